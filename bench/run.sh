#!/usr/bin/env bash
# bench/run.sh [BUILD_DIR]: the speed targets of the issues, measured by hand
# (not in CI). Prints wall time and peak memory of:
#   1. parse + check + lower 10,000 statements to IR (--emit=ast is the
#      frontend alone; --print-ir-after=none is not a thing: we time
#      `--emit=tokens`, `--emit=ast`, and the whole pipeline);
#   2. the full cost report for 10,000 ops on a 1,024-chip mesh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
SHARDC=$BUILD/bin/shardc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 bench/gen_program.py --ops 10000 --x 128 --y 8 > "$TMP/big.shard"
echo "input: $(wc -l < "$TMP/big.shard") lines, $(wc -c < "$TMP/big.shard") bytes, 10,000 ops, mesh 128x8 = 1,024 chips"
measure() {
  local label=$1; shift
  # best of 5 wall-clock runs; peak RSS from GNU time when present
  local best=999
  for _ in 1 2 3 4 5; do
    local s e
    s=$(date +%s.%N)
    "$@" > /dev/null
    e=$(date +%s.%N)
    best=$(python3 -c "print(min($best, $e - $s))")
  done
  local rss=""
  if [ -x /usr/bin/time ]; then
    rss=$(/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1)
    rss=", peak RSS ${rss} KiB"
  fi
  printf '%-40s best of 5: %.3f s%s\n' "$label" "$best" "$rss"
}
measure "tokens (lex only)" "$SHARDC" --emit=tokens "$TMP/big.shard"
measure "ast (parse + imports)" "$SHARDC" --emit=ast "$TMP/big.shard"
measure "ir (check, lower, all passes)" "$SHARDC" --emit=ir "$TMP/big.shard"
measure "report (text)" "$SHARDC" "$TMP/big.shard"
measure "report (json)" "$SHARDC" --format=json "$TMP/big.shard"
