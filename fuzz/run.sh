#!/usr/bin/env bash
# fuzz/run.sh SECONDS: builds the libFuzzer targets into build-fuzz (clang-14,
# ASan + UBSan, warnings as errors) and runs each target for SECONDS (default
# 60).
#
#   shardc-fuzz-pipeline    bytes as a .shard file; seeds: every .shard under
#                           tests/lit and examples/ (fuzz/seed-corpus.sh)
#   shardc-fuzz-structured  bytes as the choices of ProgramGenerator (forward
#                           programs) or StepGenerator (training steps)
#
# Corpora grow in fuzz/corpus-<target>/ (ignored by git) and are reused by
# the next run. A crash, timeout, leak or sanitizer report stops the run with
# a non-zero exit and leaves the input in build-fuzz/artifacts/; turn it into
# a lit test (tests/lit/hostile/) before fixing it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-60}

cmake -S . -B build-fuzz -G Ninja -DSHARDC_FUZZ=ON -DSHARDC_WERROR=ON \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build build-fuzz --target shardc-fuzz-pipeline shardc-fuzz-structured

bash fuzz/seed-corpus.sh fuzz/corpus-pipeline
mkdir -p fuzz/corpus-structured build-fuzz/artifacts
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The pipeline target reads text (the dictionary holds its tokens); the
# structured one reads choices, where longer inputs make larger programs.
run() {
  local target=$1
  shift
  echo "fuzz/run.sh: shardc-fuzz-$target for ${seconds}s"
  build-fuzz/bin/shardc-fuzz-$target "$@" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/$target- \
    fuzz/corpus-$target
}
run pipeline -dict=fuzz/shard.dict
run structured -max_len=2048
