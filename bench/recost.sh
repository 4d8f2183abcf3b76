#!/usr/bin/env bash
# bench/recost.sh [BUILD_DIR]: re-costs per second of examples/tp_dp.shard
# (a forward program) and of examples/llama3_70b_train.shard (a pipelined
# training step) over a sweep of mesh shapes and cluster variants
# (bench/Recost.cpp says which). Run by hand; the figures go in
# bench/README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
for _ in 1 2 3; do
  "$BUILD/bin/shardc-bench-recost" examples/tp_dp.shard stdlib 10
done
"$BUILD/bin/shardc-bench-recost" examples/llama3_70b_train.shard stdlib 1
