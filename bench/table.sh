# bench/table.sh: sourced by bench/run.sh and bench/training.sh. With RUNS a
# number, prints the header of a timing table and defines `m LABEL CMD...`,
# which adds the best wall and CPU times of RUNS runs and the peak RSS of
# CMD as a row (bench/measure.py); with RUNS = instructions, the
# instructions CMD executes (valgrind's callgrind).
if [ "$RUNS" = instructions ]; then
  echo "| stage | instructions | exit |"
  echo "|---|---|---|"
  m() { python3 bench/measure.py --instructions "$1" 1 "${@:2}"; }
else
  # Timings on a busy machine are inflated, and on the project's 2-core VM
  # by more than the margins the targets are met by: say so up front.
  read -r LOAD _ < /proc/loadavg 2>/dev/null || LOAD=0
  if awk -v l="$LOAD" 'BEGIN { exit !(l > 0.5) }'; then
    echo "warning: load average $LOAD: other work is running and the" \
      "timings below will be inflated; rerun when it is near 0" >&2
  fi
  echo "| stage (best of $RUNS) | wall | CPU | peak RSS | exit |"
  echo "|---|---|---|---|---|"
  m() { python3 bench/measure.py "$1" "$RUNS" "${@:2}"; }
fi
