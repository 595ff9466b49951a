#!/usr/bin/env bash
# Fresh machine to a running example: installs dependencies (scripts/setup.sh), configures
# and builds shard in build/ (or $BUILD_DIR), then runs an example (default: examples/hello.shard
# and examples/sharded_arrays.shard).
#   bash scripts/run_example.sh [EXAMPLE.shard [ARGS...]]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/build_env.sh
BUILD=${BUILD_DIR:-build}
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD"
configure_and_build "$BUILD" "$(shard_target "$BUILD")"  # just the driver, not the tests
shard=$(shard_binary "$BUILD")
if [ $# -gt 0 ]; then
  example=$1
  shift
  exec "$shard" "$example" "$@"
fi
# No arguments: the host language, arrays sharded over 8 simulated devices, then the FSDP and
# tensor-parallel MLP layouts with their collective ledgers.
for example in hello sharded_arrays fsdp_mlp tensor_parallel_mlp; do
  echo "== examples/$example.shard"
  "$shard" "examples/$example.shard" || exit
done
