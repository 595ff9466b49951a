#!/usr/bin/env bash
# The REPL's tests outside the golden runner (picked up by scripts/test.sh): the tmux
# terminal session (run_tmux_test.sh), and the REPL on piped stdin. Last line:
# "N passed, N failed".
#   bash tests/repl/run_oracle.sh build/src/shard
set -uo pipefail
SHARD=$(realpath "${1:?usage: run_oracle.sh SHARD}")
here=$(cd "$(dirname "$0")" && pwd)
golden="$here/../golden/repl"

tmux_log=$(bash "$here/run_tmux_test.sh" "$SHARD" 2>&1)
echo "$tmux_log"
summary=$(tail -n 1 <<< "$tmux_log")
if [[ "$summary" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
  passed=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]}
else
  passed=0 failed=1
fi

check() {  # description, expected, actual
  if [ "$2" == "$3" ]; then
    echo "ok   $1"; passed=$((passed + 1))
  else
    echo "FAIL $1"; diff <(echo "$2") <(echo "$3") | head -20; failed=$((failed + 1))
  fi
}

# `shard repl` with piped stdin is the REPL without prompts: the golden session's output.
check "shard repl < session.shard prints session.out" "$(cat "$golden/session.out")" \
  "$(cd "$golden" && "$SHARD" repl < session.shard 2>&1)"
# `shard` with piped stdin stays a script run: no echo, an error ends it with status 1.
check "shard < stdin runs a script (no echo)" "$(printf 'hi\nstatus 1')" \
  "$(printf 'x = 1\nx\nprint("hi")\n1 / 0\nprint("not reached")\n' | "$SHARD" > /dev/null 2>&1; \
     printf 'x = 1\nx\nprint("hi")\n1 / 0\n' | "$SHARD" 2> /dev/null; echo "status $?")"
# SystemExit leaves the REPL with its status.
check "SystemExit ends the session with its code" "$(printf '2\nstatus 3')" \
  "$(printf 'x = 2\nx\nraise SystemExit(3)\nx\n' | "$SHARD" repl; echo "status $?")"
check "repl takes at most one session file" "status 2" \
  "$("$SHARD" repl a b > /dev/null 2>&1; echo "status $?")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
