#!/usr/bin/env bash
# Bad arguments are said at once, with a non-zero status, never ignored (issue 19, item 7):
# --devices above the runtime's bound, an unwritable --trace path (before the program runs,
# not at exit), an unusable XLA_FLAGS device count. Picked up by scripts/test.sh. Last line:
# "N passed, N failed".
#   bash tests/cli/run_bad_arguments_check.sh build/src/shard
set -uo pipefail
SHARD=$(realpath "${1:?usage: run_bad_arguments_check.sh SHARD}")
passed=0 failed=0
check() {  # description, status (0 = ok)
  if [ "$2" -eq 0 ]; then
    echo "ok   $1"; passed=$((passed + 1))
  else
    echo "FAIL $1"; failed=$((failed + 1))
  fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo 'print("ran")' > "$tmp/prog.shard"

out=$("$SHARD" --devices 2000 "$tmp/prog.shard" 2>&1); status=$?
[ $status -eq 2 ] && [[ "$out" == *"between 1 and 1024, got '2000'"* ]] && [[ "$out" != *ran* ]]
check "--devices 2000: a usage error naming the bound (exit 2)" $?

out=$("$SHARD" --devices 1024 "$tmp/prog.shard" 2>&1); status=$?
[ $status -eq 0 ] && [[ "$out" == *ran* ]]
check "--devices 1024: the bound itself runs" $?

out=$("$SHARD" --trace "$tmp/no/such/dir/t.json" "$tmp/prog.shard" 2>&1); status=$?
[ $status -eq 2 ] && [[ "$out" == *"can't write the trace file"* ]] && [[ "$out" != *ran* ]]
check "--trace to an unwritable path: said before the program runs (exit 2)" $?

out=$(XLA_FLAGS=--xla_force_host_platform_device_count=0 "$SHARD" -c 'import jax; print(jax.device_count())' 2>&1); status=$?
[ $status -eq 1 ] && [[ "$out" == *"ValueError: XLA_FLAGS --xla_force_host_platform_device_count=0"* ]]
check "XLA_FLAGS device count 0: a ValueError, not the default count" $?

out=$("$SHARD" --jax-version=0.7 "$tmp/prog.shard" 2>&1); status=$?
[ $status -eq 2 ] && [[ "$out" == *"--jax-version must be 0.6 or current, got '0.7'"* ]] && [[ "$out" != *ran* ]]
check "--jax-version 0.7: a usage error naming the versions (exit 2)" $?

out=$(SHARD_JAX_VERSION=new "$SHARD" "$tmp/prog.shard" 2>&1); status=$?
[ $status -eq 2 ] && [[ "$out" == *"SHARD_JAX_VERSION must be 0.6 or current, got 'new'"* ]]
check "SHARD_JAX_VERSION=new: a usage error, not the default" $?

out=$(SHARD_JAX_VERSION=current "$SHARD" -c 'import jax; print(jax.__version__)' 2>&1); status=$?
[ $status -eq 0 ] && [[ "$out" == "0.10.0" ]]
check "SHARD_JAX_VERSION=current: jax.__version__ is 0.10.0" $?

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
