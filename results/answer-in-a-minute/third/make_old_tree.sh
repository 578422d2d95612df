#!/usr/bin/env bash
# old-tree/ on the GPU machine: the tree this session began with (d55146e), made from the carried
# working tree and .old/ (the 64 MiB a call may carry holds one tree and its results, not two):
# .old/old.tar has the old version of every file changed or deleted since, .old/added.txt the
# files added since. Made here by:
#   git archive d55146e -- $(git diff --name-only --diff-filter=MD d55146e HEAD) >.old/old.tar
#   git diff --name-only --diff-filter=A d55146e HEAD >.old/added.txt
# Without results/ (the old ci/main.sh reads only results/h200-main-answer/quick.json, its eta).
set -euo pipefail
rm -rf old-tree
mkdir old-tree
tar -c --exclude=./build --exclude=./old-tree --exclude=./.old --exclude=./.whl --exclude=./results \
  --exclude=./out . | tar -x -C old-tree
mkdir -p old-tree/results/h200-main-answer
cp results/h200-main-answer/quick.json old-tree/results/h200-main-answer/
while IFS= read -r f; do rm -f "old-tree/$f"; done <.old/added.txt
tar -x -C old-tree -f .old/old.tar
