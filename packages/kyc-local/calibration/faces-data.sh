#!/usr/bin/env bash
# Builds the labelled public face photos the face matcher is calibrated and evaluated on, as
# <root>/<person>/<n>.jpg, from git checkouts of two MIT-licensed repositories (the photos are
# not committed to Signet: their licences are the source repositories' own):
#   justadudewhohacks/face-api.js  a86f011d72124e5fb93e59d5c4ab98f699dd5c9c  examples/images/<name>/<name><n>.png  (8 people x 5 photos)
#   serengil/deepface              243209fd7b46ecdecf72665cc25219f6e8181f25  tests/unit/dataset/img<k>.jpg, labelled by the "Yes" rows of
#                                                                            tests/unit/dataset/master.csv (13 people, 2-8 photos each)
# Usage: faces-data.sh <face-api.js git dir> <deepface git dir> <root>
#   (a git dir: `git clone` + `<clone>/.git`, or a bare mirror; the pinned commits must be present)
set -euo pipefail
FACEAPI=$1 DEEPFACE=$2 ROOT=$3
FACEAPI_COMMIT=a86f011d72124e5fb93e59d5c4ab98f699dd5c9c
DEEPFACE_COMMIT=243209fd7b46ecdecf72665cc25219f6e8181f25
mkdir -p "$ROOT"
for who in amy bernadette howard leonard penny raj sheldon stuart; do
  mkdir -p "$ROOT/bbt-$who"
  for n in 1 2 3 4 5; do
    git --git-dir="$FACEAPI" show "$FACEAPI_COMMIT:examples/images/$who/$who$n.png" | convert png:- -quality 95 "$ROOT/bbt-$who/$n.jpg"
  done
done
# deepface's people, each named after its lowest-numbered image (the union of master.csv's "Yes" pairs)
declare -A PEOPLE=(
  [df-img1]="1 2 4 5 6 7 10 11"
  [df-img3]="3 12 53 54 55 56"
  [df-img8]="8 9 47 48 49 50 51"
  [df-img13]="13 14 15 57 58"
  [df-img16]="16 17 59 61 62"
  [df-img18]="18 19 67"
  [df-img20]="20 21"
  [df-img22]="22 23"
  [df-img24]="24 25"
  [df-img26]="26 27 28 42 43 44 45 46"
  [df-img29]="29 30 31 32 33"
  [df-img34]="34 35 36 37"
  [df-img38]="38 39 40 41"
)
for who in "${!PEOPLE[@]}"; do
  mkdir -p "$ROOT/$who"
  n=1
  for k in ${PEOPLE[$who]}; do
    # img47.jpg is a WebP under a .jpg name: re-encoded (quality 95); the others are copied as they are
    git --git-dir="$DEEPFACE" show "$DEEPFACE_COMMIT:tests/unit/dataset/img$k.jpg" >"$ROOT/$who/$n.jpg"
    if [ "$(head -c 2 "$ROOT/$who/$n.jpg" | od -An -tx1 | tr -d ' ')" != "ffd8" ]; then convert "$ROOT/$who/$n.jpg" -quality 95 "jpg:$ROOT/$who/$n.jpg"; fi
    n=$((n + 1))
  done
done
echo "$(find "$ROOT" -name '*.jpg' | wc -l) photos of $(ls "$ROOT" | wc -l) people in $ROOT"
