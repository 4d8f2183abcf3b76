#!/usr/bin/env bash
# fuzz/seed-corpus.sh DIR: copies every .shard file under tests/lit and
# examples/ into DIR as the pipeline fuzzer's seed corpus (file names keep
# their path, '/' becoming '_', so seeds never collide).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=${1:?usage: fuzz/seed-corpus.sh DIR}
mkdir -p "$dir"
n=0
while IFS= read -r -d '' f; do
  cp "$f" "$dir/seed_${f//\//_}"
  n=$((n + 1))
done < <(find tests/lit examples -name '*.shard' -print0)
echo "seed-corpus.sh: $n seeds in $dir"
