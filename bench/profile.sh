#!/usr/bin/env bash
# bench/profile.sh [BUILD_DIR] [training]: where the 30,000-op JSON report
# spends its time, by phase; with `training`, the 10,000-op training step of
# bench/gen_training.py instead, with its passes split out too. Samples the
# run with `perf record` (or, where perf cannot sample, counts instructions
# with valgrind's callgrind, about 30x slower) and prints each phase's
# inclusive share:
#   frontend   shardc::loadProgram   read, lex, parse, build the AST
#   sema       shardc::checkProgram  name resolution, checks, lowering to IR
#   passes     shardc::runPipeline   insert/place collectives, costs, verifier
#   report     shardc::printJsonEntry (the driver renders an entry per input)
# The rest is process start-up, reading the file and freeing at exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
SHARDC=$BUILD/bin/shardc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PHASES="shardc::loadProgram shardc::checkProgram shardc::runPipeline shardc::printJsonEntry"
if [ "${2:-}" = training ]; then
  python3 bench/gen_training.py --ops 10000 > "$TMP/input.shard"
  for p in DeriveBackward InsertCollectives PlaceCollectives EstimateCosts \
      ScheduleStep CheckMemory; do
    PHASES="$PHASES (anonymous_namespace)::$p::run"
  done
  PHASES="$PHASES shardc::verifyModule[abi:cxx11]"
else
  python3 bench/gen_program.py --ops 30000 > "$TMP/input.shard"
fi

if perf record -q -e cpu-clock -o "$TMP/probe.data" true 2>/dev/null; then
  perf record -q -e cpu-clock -F 2000 --call-graph dwarf,16384 \
    -o "$TMP/perf.data" "$SHARDC" --format=json "$TMP/input.shard" > /dev/null
  perf report -i "$TMP/perf.data" --children --sort sym -g none 2>/dev/null \
    > "$TMP/report.txt"
  echo "perf, cpu-clock samples (inclusive %):"
  for p in $PHASES; do
    # perf prints "  children%  self%  [.] symbol", a symbol once per
    # thread that ran it; a symbol's spaces are written as _ in PHASES.
    pct=$(awk -v s="${p//_/ }" '$3 == "[.]" && substr($0, index($0, "[.] ") + 4) == s { t += $1 } END { printf "%.2f%%", t }' "$TMP/report.txt")
    printf '  %-48s %s\n' "${p//_/ }" "$pct"
  done
else
  valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" \
    "$SHARDC" --format=json "$TMP/input.shard" > /dev/null 2>&1
  callgrind_annotate --inclusive=yes "$TMP/cg.out" > "$TMP/report.txt"
  echo "callgrind, instructions (inclusive):"
  grep -m1 "PROGRAM TOTALS" "$TMP/report.txt"
  for p in $PHASES; do
    grep -m1 -F "${p//_/ }(" "$TMP/report.txt" | cut -c1-120 || true
  done
fi
