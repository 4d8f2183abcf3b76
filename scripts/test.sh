#!/usr/bin/env bash
# scripts/test.sh: every test shardc has, from a fresh machine.
#  1. set-up (scripts/setup.sh), build, and the unit + lit suites (ctest);
#  2. the same suites built with AddressSanitizer and UndefinedBehaviorSanitizer
#     (build-asan): any report fails the test that caused it;
#  3. each libFuzzer target for 60 s (fuzz/run.sh, build-fuzz).
# `--quick` stops after step 1, which is what to run between edits. The whole
# run takes about 32 minutes on 2 cores from empty build folders (the quick
# part about 8); the builds are incremental after that. docs/limits.md says what the later steps check.
# Every build here is warning-free or fails (-DSHARDC_WERROR=ON), and ctest
# includes the clang-format check (tests/format/check_format.py).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
cmake -S . -B build -G Ninja -DSHARDC_WERROR=ON
cmake --build build
ctest --test-dir build --output-on-failure
echo "scripts/test.sh: set-up, build and unit + lit suites took ${SECONDS} s"
if [ "${1:-}" = "--quick" ]; then
  exit 0
fi

# UBSan's -fno-sanitize-recover=all (CMakeLists.txt) makes every report fatal.
# LeakSanitizer works in this CI's container (a leaking program aborts with
# its report), so leaks fail the suite too.
cmake -S . -B build-asan -G Ninja -DSHARDC_SANITIZE=address,undefined \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDC_WERROR=ON
cmake --build build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure

bash fuzz/run.sh 60

# set -e stopped at the first failure; reaching here means all four passed.
echo "scripts/test.sh: everything took ${SECONDS} s"
echo "scripts/test.sh: suites and fuzzers:"
echo "4 passed, 0 failed"
