#!/usr/bin/env bash
# bench/search.sh [BUILD_DIR] [THREADS]: the layout search's speed on the
# spaces of docs/search.md's targets, measured by hand (not in CI). For each
# input prints the search's own first and statistics lines (counts, compiles,
# wall time, candidates per second) and the process's wall time and peak
# RSS (GNU time). THREADS defaults to 2 (the reference machine's cores).
#
#   examples/search_llama3_8b.shard       the tour: 4,158 candidates
#   bench/search/gpt3_175b_512.shard      GPT-3 175B on 512 H100s: 219
#                                         layouts, 112,200 candidates
#   bench/search/llama3_70b_1024.shard    Llama 3 70B on 1,024 H100s, every
#                                         knob searched: 64,284 candidates
#
# Targets (issue 21): the GPT-3 175B question under 10 s and 1 GB on 2
# cores (met: about 5 s, Release); a second level deciding >= 10^6
# candidates/s (not built).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
THREADS=${2:-2}
SHARDC=$BUILD/bin/shardc
for f in examples/search_llama3_8b.shard bench/search/gpt3_175b_512.shard \
         bench/search/llama3_70b_1024.shard; do
  echo "== $f (-j $THREADS)"
  /usr/bin/time -f "   process: %e s wall, %U s user, %M KB peak RSS" \
    "$SHARDC" "$f" -j "$THREADS" --progress=never 2> >(grep -v '^$' >&2) |
    sed -n '1p;/^statistics/p' | sed 's/^/   /'
done
