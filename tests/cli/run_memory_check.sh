#!/usr/bin/env bash
# Memory stays bounded and nothing leaks (issue 19, items 8 and 9):
#   - a loop that leaves a reference cycle behind on every iteration (an instance holding
#     itself, a list holding itself, a closure over itself) peaks at about the same memory for
#     400,000 iterations as for 50,000: the cycle collector frees them as they pile up;
#   - with gc.disable() the same loop grows (so the check above can fail);
#   - every golden test passes with a collection at every 50th statement (SHARD_GC_STRESS):
#     no collection frees a value still in use;
#   - programs run under LeakSanitizer (gcc's liblsan, preloaded: no special build) leak
#     nothing at exit: the interpreter's teardown empties its modules and collects.
# Peak RSS comes from getrusage(RUSAGE_CHILDREN) through the system python3. Picked up by
# scripts/test.sh. Last line: "N passed, N failed".
#   bash tests/cli/run_memory_check.sh build/src/shard
set -uo pipefail
SHARD=$(realpath "${1:?usage: run_memory_check.sh SHARD}")
cd "$(dirname "$0")/../.."
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

cycles_program() {  # iterations, extra first line
  cat <<PROG
import gc
$2
class Node:
    def __init__(self, i):
        self.me = self
        self.data = [i] * 16
def closure(i):
    def f():
        return f, i
    return f
for i in range($1):
    n = Node(i)
    l = [i, i]; l.append(l)
    g = closure(i)
print("done")
PROG
}
peak_kb() {  # program file -> peak RSS in KiB of running it (prints nothing else)
  python3 -c '
import resource, subprocess, sys
out = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout
if b"done" not in out: sys.exit("the program failed: " + out.decode(errors="replace")[-400:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$SHARD" "$1"
}

cycles_program 50000 "" > "$tmp/small.shard"
cycles_program 400000 "" > "$tmp/large.shard"
cycles_program 400000 "gc.disable()" > "$tmp/disabled.shard"
small=$(peak_kb "$tmp/small.shard") && large=$(peak_kb "$tmp/large.shard") && disabled=$(peak_kb "$tmp/disabled.shard")
status=$?
echo "     peak RSS: 50k iterations ${small:-?} KiB, 400k ${large:-?} KiB, 400k with gc.disable() ${disabled:-?} KiB"
[ $status -eq 0 ] && [ $((large - small)) -lt 40000 ]
check "cycles left by a loop are collected: 400k iterations peak within 40 MB of 50k" $?
[ $status -eq 0 ] && [ $((disabled - small)) -gt 100000 ]
check "with gc.disable() the same loop grows by over 100 MB (the check above can fail)" $?

# The collector never frees a value in use: every golden test still prints what it should
# with a collection at every 50th statement boundary (SHARD_GC_STRESS).
out=$(SHARD_GC_STRESS=50 "$SHARD" test tests/golden examples 2>&1); status=$?
echo "     $(tail -n 1 <<< "$out")"
[ $status -eq 0 ]
check "goldens pass with a collection every 50 statements (SHARD_GC_STRESS=50)" $?
[ $status -eq 0 ] || grep -E "^FAIL" <<< "$out" | head -n 20

# LeakSanitizer over programs that build cycles through modules, classes, closures, jit
# caches and functools wrappers, and over the examples.
lsan=$(ls /usr/lib/x86_64-linux-gnu/liblsan.so.0 2>/dev/null || true)
if [ -z "$lsan" ]; then
  check "LeakSanitizer runtime (gcc's liblsan0) is installed" 1
else
  cat > "$tmp/leaky.shard" <<'PROG'
import functools
import jax
import jax.numpy as jnp
class Tree:
    def __init__(self, parent):
        self.parent = parent
        self.children = []
        if parent is not None:
            parent.children.append(self)
root = Tree(None)
for i in range(50):
    Tree(root)
@jax.jit
def step(x):
    return x * 2 + 1
@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
scaled = functools.partial(step)
print(step(jnp.ones(4)), fib(20), scaled(jnp.zeros(2)))
try:
    raise ValueError("kept in a cycle through its traceback context")
except ValueError as e:
    err = e
PROG
  for prog in "$tmp/leaky.shard" examples/hello.shard examples/fsdp_mlp.shard examples/train_tp_transformer.shard; do
    args=$(sed -n '2s/^# shard-args: *//p' "$prog")
    # shellcheck disable=SC2086  # the args line is a list of words
    out=$(cd "$(dirname "$prog")" && LSAN_OPTIONS=exitcode=23 LD_PRELOAD="$lsan" "$SHARD" $args "$(basename "$prog")" 2>&1 >/dev/null)
    status=$?
    summary=$(grep -m1 "SUMMARY: LeakSanitizer" <<< "$out")
    [ $status -eq 0 ] && [ -z "$summary" ]
    check "no leak at exit: $(basename "$prog") ${summary:+($summary)}" $?
  done
  # Embedded Interpreters created and destroyed on several threads (the stress test beside
  # the shard binary's build directory) free what they made.
  stress="$(dirname "$(dirname "$SHARD")")/tests/embed_threads_stress"
  if [ -x "$stress" ]; then
    out=$(LSAN_OPTIONS=exitcode=23 LD_PRELOAD="$lsan" "$stress" 2>&1); status=$?
    summary=$(grep -m1 "SUMMARY: LeakSanitizer" <<< "$out")
    [ $status -eq 0 ] && [ -z "$summary" ]
    check "no leak: embedded Interpreters on three threads, created and destroyed ${summary:+($summary)}" $?
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
