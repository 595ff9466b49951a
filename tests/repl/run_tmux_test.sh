#!/usr/bin/env bash
# The REPL on a real terminal: starts `shard repl` in a tmux pane, types a session (a function
# over several lines, an error, a value defined before the error, Tab completion of a name and
# of a module member, of module names after `import ` and of a module's names after
# `from M import `, :time of a first and a cached jitted call, Ctrl-C on a running loop and
# on a half-typed input, Ctrl-D) and checks the captured screen. Prints one line per check and "N passed, N failed" last.
#   bash tests/repl/run_tmux_test.sh build/src/shard
set -uo pipefail
SHARD=$(realpath "${1:?usage: run_tmux_test.sh SHARD}")
if ! command -v tmux > /dev/null; then echo "tmux not installed"; echo "0 passed, 1 failed"; exit 1; fi

work=$(mktemp -d)
sock="shard-repl-test-$$"
T() { tmux -L "$sock" "$@"; }
trap 'T kill-server 2> /dev/null; rm -rf "$work"' EXIT
export SHARD_HISTORY="$work/history"

screen() { T capture-pane -p -J -S -500 -t repl; }
# Waits (up to 20 s: the machine may be busy) until the screen has `pattern` at least `count` times.
wait_for() {
  local pattern=$1 count=${2:-1}
  for _ in $(seq 200); do
    [ "$(screen | grep -cF -- "$pattern")" -ge "$count" ] && return 0
    sleep 0.1
  done
  echo "(timed out waiting for: $pattern)"
  return 1
}
prompts() { screen | grep -c '^>>> '; }
# Types a line and waits for the next ">>> " prompt.
line() {
  local n; n=$(prompts)
  T send-keys -t repl -l -- "$1"
  T send-keys -t repl Enter
  wait_for ">>> " $((n + 1)) > /dev/null || true
}

T new-session -d -s repl -x 100 -y 50 "cd '$work' && '$SHARD' repl; echo \"repl exited with status \$?\"; sleep 600"
wait_for ">>> " || { screen; echo "0 passed, 1 failed"; exit 1; }

# A function over several lines: continuation prompts, the block ends at an empty line.
T send-keys -t repl -l "def square(n):"; T send-keys -t repl Enter
wait_for "... " > /dev/null
T send-keys -t repl -l "    return n * n"; T send-keys -t repl Enter
line ""
line "base = square(7)"
line "1 / 0"                       # an error...
line "base + 1"                    # ...and the state from before it
T send-keys -t repl -l "squ"; T send-keys -t repl Tab   # completes to "square"
wait_for ">>> square" > /dev/null
line "(3)"
T send-keys -t repl -l "while True: base += 1"; T send-keys -t repl Enter
wait_for "... " 2 > /dev/null
T send-keys -t repl Enter
sleep 1                             # the loop is running
T send-keys -t repl C-c
wait_for "KeyboardInterrupt" > /dev/null
wait_for ">>> " 7 > /dev/null
line "base > 49"
T send-keys -t repl -l "pending = (1,"; T send-keys -t repl Enter
wait_for "... " 4 > /dev/null
T send-keys -t repl -l "2"; T send-keys -t repl C-c   # Ctrl-C at the prompt drops the input
wait_for "KeyboardInterrupt" 2 > /dev/null
line "pending"
line "import jax.numpy as jnp"
T send-keys -t repl -l "jnp.aran"; T send-keys -t repl Tab   # a module member
wait_for ">>> jnp.arange" > /dev/null
line "(4) * 10"
line ":time square(12)"
T send-keys -t repl -l "import jax.nu"; T send-keys -t repl Tab   # a submodule's name
wait_for ">>> import jax.numpy" > /dev/null
line ""
T send-keys -t repl -l "from jax.sharding import Partit"; T send-keys -t repl Tab   # a module's name
wait_for ">>> from jax.sharding import PartitionSpec" > /dev/null
line " as Spec"
line "Spec('a')"
T send-keys -t repl -l "import ite"; T send-keys -t repl Tab   # a host module
wait_for ">>> import itertools" > /dev/null
line ""
line "import jax"
line "g = jax.jit(lambda v: v * 2)"
line ":time g(jnp.arange(3))"       # the first call traces and compiles
line ":time g(jnp.arange(3))"       # the second finds it cached
T send-keys -t repl C-d
wait_for "repl exited with status" > /dev/null
out=$(screen | sed 's/ *$//')

passed=0 failed=0
check() {  # description, then the command that must succeed
  local what=$1; shift
  if "$@"; then echo "ok   $what"; passed=$((passed + 1)); else echo "FAIL $what"; failed=$((failed + 1)); fi
}
has() { grep -qF -- "$1" <<< "$out"; }
# Line `a` of the screen directly followed by line `b`.
follows() { grep -A1 -xF -- "$1" <<< "$out" | grep -qxF -- "$2"; }

check "multi-line def with continuation prompts" follows ">>> def square(n):" "...     return n * n"
check "the block ends at an empty line" follows "...     return n * n" "..."
check "the error is reported in the script format" follows ">>> 1 / 0" "<stdin>:1:1: ZeroDivisionError: division by zero"
check "the error shows its caret" has "    ^"
check "a value defined before the error survives it" follows ">>> base + 1" "50"
check "Tab completes a name" follows ">>> square(3)" "9"
check "Ctrl-C interrupts a running loop" follows "^C" "<stdin>:1:13: KeyboardInterrupt"
check "the interrupted loop's state is kept" follows ">>> base > 49" "True"
check "Ctrl-C at the prompt drops the partial input" follows ">>> pending" "<stdin>:1:1: NameError: name 'pending' is not defined"
check "Tab completes a module member" follows ">>> jnp.arange(4) * 10" "Array([ 0, 10, 20, 30], dtype=int32)"
check ":time prints the value and the wall time" bash -c 'grep -A2 -xF ">>> :time square(12)" <<< "$1" | grep -q "^wall time: [0-9.]* ms$"' _ "$out"
check "Tab after 'import ' completes a submodule" has ">>> import jax.numpy"
check "Tab after 'from M import ' completes M's name" follows ">>> Spec('a')" "PartitionSpec('a',)"
check "Tab after 'import ' completes a host module" has ">>> import itertools"
# The first call of a jitted function: compile time > 0, said to be skipped when cached; the
# second: nothing compiled. Both split the wall time into compile and run.
# The 5 screen lines from the n-th line equal to `line`.
block() { awk -v pat="$1" -v n="$2" '$0 == pat { c++ } c == n && k < 5 { print; k++ }' <<< "$out"; }
first_time=$(block ">>> :time g(jnp.arange(3))" 1)
second_time=$(block ">>> :time g(jnp.arange(3))" 2)
check ":time of a first call shows its compile time" \
  grep -qE "^  compile: [0-9.]*[1-9][0-9.]* ms \(tracing [0-9.]+ ms, compiling [0-9.]+ ms\): a call with cached types skips it$" <<< "$first_time"
check ":time of a first call shows its run time" grep -qE "^  run: +[0-9.]+ ms$" <<< "$first_time"
check ":time of a cached call compiles nothing" \
  grep -qxF "  compile: 0.000 ms (tracing 0.000 ms, compiling 0.000 ms): nothing compiled" <<< "$second_time"
check ":time of a cached call shows its value" grep -qxF "Array([0, 2, 4], dtype=int32)" <<< "$second_time"
check "Ctrl-D exits with status 0" has "repl exited with status 0"
check "the history file has the session's lines" grep -qxF "def square(n):" "$SHARD_HISTORY"

if [ "$failed" -ne 0 ]; then echo "---- screen ----"; echo "$out"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
