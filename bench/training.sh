#!/usr/bin/env bash
# bench/training.sh [BUILD_DIR] [RUNS|instructions]: the training-step
# target, measured by hand like bench/run.sh (not in CI). Generates MLP-stack
# training programs with bench/gen_training.py (no `repeat`: every layer is
# its own statements) of 1,000 and 10,000 forward + derived backward ops, and
# prints one table row per stage: the best wall and CPU (user + system)
# times of RUNS runs (default 5) and the peak RSS; or, with `instructions`,
# the instructions each stage executes (valgrind's callgrind).
#
#   - --emit=ast: the frontend alone;
#   - --emit=ir: checks and every pass (derive-backward, insert-collectives,
#     place-collectives, estimate-costs, schedule-step, check-memory);
#   - the text and JSON reports.
#
# Target: the 10,000-op JSON report under 1 s, and linear growth
# (time(10k) / time(1k) about 10 or less).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
RUNS=${2:-5}
SHARDC=$BUILD/bin/shardc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 bench/gen_training.py --ops 10000 > "$TMP/t10k.shard"
python3 bench/gen_training.py --ops 1000 > "$TMP/t1k.shard"
for f in t10k t1k; do
  echo "input $f.shard: $(wc -l < "$TMP/$f.shard") lines, $(wc -c < "$TMP/$f.shard") bytes;" \
    "$(head -1 "$TMP/$f.shard" | sed 's/.*: //');" \
    "$("$SHARDC" --emit=ir "$TMP/$f.shard" | grep -c '^  %') ops in the lowered step" \
    "(inputs, params, syncs and the optimizer included)"
done
echo
source bench/table.sh
m "10k ops: parse (--emit=ast)" "$SHARDC" --emit=ast "$TMP/t10k.shard"
m "10k ops: check + passes (--emit=ir)" "$SHARDC" --emit=ir "$TMP/t10k.shard"
m "10k ops: text report" "$SHARDC" "$TMP/t10k.shard"
m "10k ops: JSON report" "$SHARDC" --format=json "$TMP/t10k.shard"
m "1k ops: check + passes (--emit=ir)" "$SHARDC" --emit=ir "$TMP/t1k.shard"
m "1k ops: JSON report" "$SHARDC" --format=json "$TMP/t1k.shard"
