#!/usr/bin/env python3
"""Times one command and prints a markdown table row.

  measure.py LABEL RUNS CMD...                 time and memory
  measure.py --instructions LABEL RUNS CMD...  instructions (callgrind)

The first form gives the best wall-clock time of RUNS runs, the best
user+system CPU time (less sensitive to a busy machine than wall time), and
the peak resident memory of the largest run (from wait4's rusage, so no
/usr/bin/time is needed). The second counts the instructions the command
executes under valgrind's callgrind, once: slow, but the same on a busy
machine as on an idle one, so before/after comparisons hold wherever they
are taken. stdout and stderr of the command are discarded; its exit status
is printed, so a benchmark that fails shows it instead of a fast time.
"""
import os
import re
import subprocess
import sys
import tempfile
import time


def run_once(cmd):
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(cmd, stdout=null, stderr=null)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def timed(label, runs, cmd):
    results = [run_once(cmd) for _ in range(runs)]
    wall = min(r[0] for r in results)
    cpu = min(r[1] for r in results)
    rss = max(r[2] for r in results)
    codes = sorted({r[3] for r in results})
    print("| %-40s | %7.3f s | %7.3f s | %7.1f MB | %s |" %
          (label, wall, cpu, rss / 1024.0, ",".join(str(c) for c in codes)))


def instructions(label, cmd):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        with open(os.devnull, "wb") as null:
            proc = subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
                + cmd, stdout=null, stderr=subprocess.PIPE)
        found = re.search(rb"Collected : (\d+)", proc.stderr)
        count = int(found.group(1)) if found else 0
        code = proc.returncode
    print("| %-40s | %9.0f M | %s |" % (label, count / 1e6, code))


def main():
    args = sys.argv[1:]
    if args[0] == "--instructions":
        instructions(args[1], args[3:])
    else:
        timed(args[0], int(args[1]), args[2:])


if __name__ == "__main__":
    main()
