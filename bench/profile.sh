#!/usr/bin/env bash
# bench/profile.sh [BUILD_DIR]: where the 30,000-op JSON report spends its
# time, by phase. Samples the run with `perf record` (or, where perf cannot
# sample, counts instructions with valgrind's callgrind, about 30x slower)
# and prints each phase's inclusive share:
#   frontend   shardc::loadProgram   read, lex, parse, build the AST
#   sema       shardc::checkProgram  name resolution, checks, lowering to IR
#   passes     shardc::runPipeline   insert/place collectives, costs, verifier
#   report     shardc::printJsonReport
# The rest is process start-up, reading the file and freeing at exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
SHARDC=$BUILD/bin/shardc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 bench/gen_program.py --ops 30000 > "$TMP/p30k.shard"
PHASES="shardc::loadProgram shardc::checkProgram shardc::runPipeline shardc::printJsonReport"

if perf record -q -e cpu-clock -o "$TMP/probe.data" true 2>/dev/null; then
  perf record -q -e cpu-clock -F 2000 --call-graph dwarf,16384 \
    -o "$TMP/perf.data" "$SHARDC" --format=json "$TMP/p30k.shard" > /dev/null
  perf report -i "$TMP/perf.data" --children --sort sym -g none 2>/dev/null \
    > "$TMP/report.txt"
  echo "perf, cpu-clock samples (inclusive %):"
  for p in $PHASES; do
    # perf prints "  children%  self%  [.] symbol"
    pct=$(awk -v s="$p" '$3 == "[.]" && $4 == s { print $1; exit }' "$TMP/report.txt")
    printf '  %-26s %s\n' "$p" "${pct:-0%}"
  done
else
  valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" \
    "$SHARDC" --format=json "$TMP/p30k.shard" > /dev/null 2>&1
  callgrind_annotate --inclusive=yes "$TMP/cg.out" > "$TMP/report.txt"
  echo "callgrind, instructions (inclusive):"
  grep -m1 "PROGRAM TOTALS" "$TMP/report.txt"
  for p in $PHASES; do
    grep -m1 -E ":$p\(" "$TMP/report.txt" | cut -c1-100 || true
  done
fi
