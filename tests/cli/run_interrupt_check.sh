#!/usr/bin/env bash
# Ctrl-C (SIGINT) in a script (issue 19, item 5): `except KeyboardInterrupt` runs; uncaught, the
# program reports KeyboardInterrupt where it stopped and exits 130 (as CPython); a jitted loop
# that would run forever on the devices (compiled, or with a collective on the step path) stops
# within a second and the devices work afterwards. Picked up by scripts/test.sh. Last line:
# "N passed, N failed".
#   bash tests/cli/run_interrupt_check.sh build/src/shard
set -uo pipefail
SHARD=$(realpath "${1:?usage: run_interrupt_check.sh SHARD}")
passed=0 failed=0
check() {  # description, status (0 = ok)
  if [ "$2" -eq 0 ]; then echo "ok   $1"; passed=$((passed + 1)); else echo "FAIL $1"; failed=$((failed + 1)); fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_interrupted SCRIPT: starts it, sends SIGINT once it printed "ready", waits; sets out,
# status and secs (from the signal to the exit).
run_interrupted() {
  "$SHARD" --devices 4 "$1" >"$tmp/out" 2>&1 &
  local pid=$! i
  for i in $(seq 200); do grep -q ready "$tmp/out" 2>/dev/null && break; sleep 0.05; done
  sleep 0.3
  local t0=$(date +%s%N)
  kill -INT $pid
  wait $pid; status=$?
  secs=$(( ($(date +%s%N) - t0) / 1000000 ))
  out=$(cat "$tmp/out")
}

cat > "$tmp/host_loop.shard" <<'PY'
print("ready", flush=True)
while True:
    pass
PY
run_interrupted "$tmp/host_loop.shard"
[ $status -eq 130 ] && [[ "$out" == *"KeyboardInterrupt"* ]] && [[ "$out" == *"host_loop.shard:3"* ]]
check "uncaught in a host loop: KeyboardInterrupt at the line it stopped, exit 130 (${secs} ms)" $?

cat > "$tmp/caught.shard" <<'PY'
try:
    print("ready", flush=True)
    while True:
        pass
except KeyboardInterrupt:
    print("caught")
PY
run_interrupted "$tmp/caught.shard"
[ $status -eq 0 ] && [[ "$out" == *caught* ]]
check "except KeyboardInterrupt runs" $?

cat > "$tmp/device_loop.shard" <<'PY'
import jax, jax.numpy as jnp
from jax.sharding import PartitionSpec as P
mesh = jax.make_mesh((4,), ('x',))
forever = jax.jit(lambda c: jax.lax.while_loop(lambda c: c[0] >= 0, lambda c: c * 0.5 + 1, c))
with_psum = jax.jit(jax.shard_map(
    lambda b: jax.lax.while_loop(lambda c: jax.lax.psum(c[0], 'x') >= 0, lambda c: c * 0.5 + 1, b),
    mesh=mesh, in_specs=P('x'), out_specs=P('x')))
x = jnp.ones(4)
for f in (forever, with_psum):
    try:
        print("ready", flush=True)
        f(x).block_until_ready()
    except KeyboardInterrupt:
        print("stopped")
print(jnp.sum(x * 2), with_psum.__name__ if hasattr(with_psum, '__name__') else '')
PY
"$SHARD" --devices 4 "$tmp/device_loop.shard" >"$tmp/out" 2>&1 &
pid=$!
ok=0
for round in 1 2; do
  for i in $(seq 200); do [ "$(grep -c ready "$tmp/out" 2>/dev/null)" -ge $round ] && break; sleep 0.05; done
  sleep 0.5
  kill -INT $pid
done
for i in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
if kill -0 $pid 2>/dev/null; then kill -9 $pid; fi
wait $pid; status=$?
out=$(cat "$tmp/out")
[ $status -eq 0 ] && [ "$(grep -c stopped <<<"$out")" -eq 2 ] && [[ "$out" == *"8.0"* ]]
check "a jitted endless while_loop (compiled, and with a psum) stops on Ctrl-C; the devices work after" $?
[ $status -eq 0 ] || echo "$out" | head -20

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
