#!/usr/bin/env bash
# bench/run.sh [BUILD_DIR] [RUNS|instructions]: the speed targets of issue 8,
# measured by hand (not in CI; timed tests would be flaky on a shared
# machine). Generates the inputs with bench/gen_program.py and prints one
# table row per stage: the best wall and CPU (user + system) times of RUNS
# runs (default 5) and the peak RSS; or, with `instructions`, the
# instructions each stage executes (valgrind's callgrind; slow, but the same
# however busy the machine is).
#
#   - a 30,000-op program (and a 3,000-op one, for the growth ratio): lexing
#     only (--emit=tokens), the frontend (--emit=ast), checks and passes
#     (--emit=ir), and the text and JSON reports;
#   - a file of 300,000 syntax errors (13.7 MB), of which shardc reports the
#     first 20 (the default --error-limit) and stops.
#
# Targets: 30k JSON report < 0.5 s and < 100 MB; time(30k) / time(3k) <= 12;
# first 20 of 300,000 errors < 1 s.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
RUNS=${2:-5}
SHARDC=$BUILD/bin/shardc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 bench/gen_program.py --ops 30000 > "$TMP/p30k.shard"
python3 bench/gen_program.py --ops 3000 > "$TMP/p3k.shard"
python3 bench/gen_program.py --errors 300000 > "$TMP/errors.shard"
for f in p30k p3k errors; do
  echo "input $f.shard: $(wc -l < "$TMP/$f.shard") lines, $(wc -c < "$TMP/$f.shard") bytes"
done
echo
source bench/table.sh
m "30k ops: lex (--emit=tokens)" "$SHARDC" --emit=tokens "$TMP/p30k.shard"
m "30k ops: parse (--emit=ast)" "$SHARDC" --emit=ast "$TMP/p30k.shard"
m "30k ops: check + passes (--emit=ir)" "$SHARDC" --emit=ir "$TMP/p30k.shard"
m "30k ops: text report" "$SHARDC" "$TMP/p30k.shard"
m "30k ops: JSON report" "$SHARDC" --format=json "$TMP/p30k.shard"
m "3k ops: parse (--emit=ast)" "$SHARDC" --emit=ast "$TMP/p3k.shard"
m "3k ops: JSON report" "$SHARDC" --format=json "$TMP/p3k.shard"
m "300,000 syntax errors: first 20" "$SHARDC" "$TMP/errors.shard"
