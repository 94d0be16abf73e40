#!/usr/bin/env bash
# Builds a third labelled set, larger, for impostors: Labeled Faces in the Wild (250 x 250 news
# photos) from a full copy in a public repository's history, as <root>/lfw-<Name>/<n>.jpg:
#   baileyfriend/Gender-Image-Classifier  9aaaad06efad7888c2d12b77c343a0ef1bea17bc  lfw/<Name>/<Name>_<k>.jpg
#   (13 233 photos of 5 749 people; the repository states no licence: LFW's own terms apply)
# Taken: every 4th person (by name) of those with 2 or more photos, their first 2 photos, leaving
# out the people of faces-extra.sh and of the evaluation set (the same person under two names).
# Usage: faces-lfw.sh <Gender-Image-Classifier git dir> <root>
set -euo pipefail
GIT=$1 ROOT=$2
COMMIT=9aaaad06efad7888c2d12b77c343a0ef1bea17bc
SKIP='^(Ariel_Sharon|Arnold_Schwarzenegger|Colin_Powell|Donald_Rumsfeld|George_W_Bush|Gerhard_Schroeder|Hugo_Chavez|Jacques_Chirac|Tony_Blair|Vladimir_Putin|Angelina_Jolie|Scarlett_Johansson|Mark_Zuckerberg|Jeff_Bezos|Sundar_Pichai|Matt_Damon|George_Clooney|Barack_Obama|Joe_Biden|Paul_Rudd|Bradley_Cooper|Kate_Siegel|Shea_Whigham|Kit_Harington|Rose_Leslie|Lin_Manuel_Miranda|Alex_Lacamoire)$'
git --git-dir="$GIT" ls-tree -r --name-only "$COMMIT" lfw/ | cut -d/ -f2 | sort | uniq -c | awk '$1 >= 2 { print $2 }' | grep -Ev "$SKIP" | awk 'NR % 4 == 1' |
  while read -r who; do
    mkdir -p "$ROOT/lfw-$who"
    for n in 1 2; do
      git --git-dir="$GIT" show "$COMMIT:lfw/$who/${who}_000$n.jpg" > "$ROOT/lfw-$who/$n.jpg"
    done
  done
