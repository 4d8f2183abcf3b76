#!/usr/bin/env bash
# fuzz/seed-corpus.sh DIR: copies every .shard file under tests/lit and
# examples/ into DIR as the pipeline fuzzer's seed corpus (file names keep
# their path, '/' becoming '_', so seeds never collide). Left out: the
# hostile inputs that sit at a documented limit on purpose (a trace of a
# million events, 524,288 microbatches): under the fuzzers' sanitizers one
# run of them passes the 10 s timeout, which libFuzzer reports as a hang.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=${1:?usage: fuzz/seed-corpus.sh DIR}
mkdir -p "$dir"
n=0
while IFS= read -r -d '' f; do
  cp "$f" "$dir/seed_${f//\//_}"
  n=$((n + 1))
done < <(find tests/lit examples -name '*.shard' \
  -not -path 'tests/lit/hostile/Inputs/trace-*' -print0)
echo "seed-corpus.sh: $n seeds in $dir"
