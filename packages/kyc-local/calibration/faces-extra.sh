#!/usr/bin/env bash
# Builds a second labelled set of public face photos, for measuring impostors (and genuine pairs)
# of the face matcher beyond its calibration and evaluation people, as <root>/<person>/<n>.jpg
# (JPEG quality 95; the photos are not committed to Signet: their licences are the source repositories' own):
#   krasserm/face-recognition     363e4ec0f700e74b2ea7abceba289390d29dd43f  Apache-2.0  images/<Name>/<Name>_<k>.jpg
#                                 (a subset of Labeled Faces in the Wild: 10 people x 10 photos)
#   timesler/facenet-pytorch      787da06156087cd6b616fe6608213722bddc30cd  MIT         data/test_images/<name>/1.jpg (4 people x 1 photo)
#   ageitgey/face_recognition     2e2dccea9dd0ce730c8d464d0f67c6eebb40c9d1  MIT         examples/, tests/test_images/ (6 people, 1-4 photos;
#                                 byte-identical copies and resized renditions of one photo left out)
# fp-angelina_jolie is the person of deepface's df-img1 (faces-extra-eval.ts counts that cross pair as genuine).
# Usage: faces-extra.sh <krasserm/face-recognition git dir> <timesler/facenet-pytorch git dir> <ageitgey/face_recognition git dir> <root>
set -euo pipefail
LFW=$1 FACENET=$2 FR=$3 ROOT=$4
LFW_COMMIT=363e4ec0f700e74b2ea7abceba289390d29dd43f
FACENET_COMMIT=787da06156087cd6b616fe6608213722bddc30cd
FR_COMMIT=2e2dccea9dd0ce730c8d464d0f67c6eebb40c9d1
mkdir -p "$ROOT"
put() { # <git dir> <commit> <path> <person>
  mkdir -p "$ROOT/$4"
  local n=$(($(find "$ROOT/$4" -name '*.jpg' | wc -l) + 1))
  git --git-dir="$1" show "$2:$3" | convert - -quality 95 "$ROOT/$4/$n.jpg"
}
for who in $(git --git-dir="$LFW" ls-tree --name-only "$LFW_COMMIT" images/ | grep / | sed 's|images/||'); do
  [ "$who" = model.png ] && continue
  for f in $(git --git-dir="$LFW" ls-tree --name-only "$LFW_COMMIT" "images/$who/" | sort); do put "$LFW" "$LFW_COMMIT" "$f" "lfw-$who"; done
done
# bradley_cooper/1.jpg is left out: its blob was absent from the snapshot this set was built from
for who in angelina_jolie kate_siegel paul_rudd shea_whigham; do put "$FACENET" "$FACENET_COMMIT" "data/test_images/$who/1.jpg" "fp-$who"; done
while read -r who f; do put "$FR" "$FR_COMMIT" "$f" "fr-$who"; done <<'LIST'
obama examples/obama.jpg
obama examples/obama2.jpg
obama tests/test_images/obama3.jpg
obama examples/knn_examples/test/obama1.jpg
biden examples/biden.jpg
biden examples/knn_examples/train/biden/biden2.jpg
kit_harington examples/knn_examples/train/kit_harington/john1.jpeg
kit_harington examples/knn_examples/train/kit_harington/john2.jpeg
kit_harington examples/knn_examples/test/johnsnow_test1.jpg
rose_leslie examples/knn_examples/train/rose_leslie/img1.jpg
rose_leslie examples/knn_examples/train/rose_leslie/img2.jpg
alex_lacamoire examples/knn_examples/train/alex_lacamoire/img1.jpg
alex_lacamoire examples/knn_examples/test/alex_lacamoire1.jpg
alex_lacamoire examples/alex-lacamoire.png
lin_manuel_miranda examples/lin-manuel-miranda.png
LIST
