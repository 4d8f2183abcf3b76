#!/usr/bin/env python3
"""Times one command: measure.py LABEL RUNS CMD... prints a table row.

The best wall-clock time of RUNS runs, the best user+system CPU time (less
sensitive to a busy machine than wall time), and the peak resident memory of
the largest run (from wait4's rusage, so no /usr/bin/time is needed). stdout and
stderr of the command are discarded; its exit status is printed, so a
benchmark that fails shows it instead of a fast time.
"""
import os
import subprocess
import sys
import time


def run_once(cmd):
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(cmd, stdout=null, stderr=null)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def main():
    label, runs, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    results = [run_once(cmd) for _ in range(runs)]
    wall = min(r[0] for r in results)
    cpu = min(r[1] for r in results)
    rss = max(r[2] for r in results)
    codes = sorted({r[3] for r in results})
    print("| %-40s | %7.3f s | %7.3f s | %7.1f MB | %s |" %
          (label, wall, cpu, rss / 1024.0, ",".join(str(c) for c in codes)))


if __name__ == "__main__":
    main()
