#!/usr/bin/env bash
# Seeing where time goes, outside the golden runner (timings cannot be compared as text):
#   --stats          the per-function table with trace / compile / run ms, totals over calls
#   --stats=counts   the same without the times
#   --trace FILE     Chrome-trace JSON with a host track (jit's trace and compile, eager ops'
#                    compiles) beside the device tracks, and no device step inside a compile
#   jax.profiler     trace(log_dir) / start_trace / stop_trace write the same JSON to
#                    <log_dir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<hostname>.trace.json,
#                    and refuse a second recording; TraceAnnotation, StepTraceAnnotation and
#                    annotate_function add host slices
# The JSON is read by CPython's json module. Picked up by scripts/test.sh. Last line:
# "N passed, N failed".
#   bash tests/cli/run_profiler_check.sh build/src/shard
set -uo pipefail
SHARD=$(realpath "${1:?usage: run_profiler_check.sh SHARD}")
PY=/usr/bin/python3
passed=0 failed=0
check() {  # description, command status (0 = ok)
  if [ "$2" -eq 0 ]; then
    echo "ok   $1"; passed=$((passed + 1))
  else
    echo "FAIL $1"; failed=$((failed + 1))
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/prog.shard" <<'PY'
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    return jnp.sin(x) * 2.0 + 1.0

x = jnp.arange(64.0)
print(f(x)[1])
print(f(x)[2])
PY
run() { (cd "$tmp" && env -u SHARD_DEVICES NO_COLOR=1 "$SHARD" "$@"); }

# ---- --stats ----
run --stats prog.shard > "$tmp/out.txt" 2> "$tmp/err.txt"
check "runs with --stats" $?
grep -qF -- "--- jit statistics: totals over all calls of the run." "$tmp/err.txt"
check "--stats says its numbers are totals over the calls" $?
grep -qE '^function +calls +traces +compiles +trace ms +compile ms +run ms +collectives$' "$tmp/err.txt"
check "--stats has trace / compile / run ms columns" $?
# f: 2 calls, 1 trace, 1 compile, a compile time above zero, three times with 3 decimals.
grep -qE '^f +2 +1 +1 +[0-9]+\.[0-9]{3} +[0-9]*[1-9][0-9]*\.[0-9]{3}|^f +2 +1 +1 +[0-9]+\.[0-9]{3} +0\.[0-9]*[1-9][0-9]*' "$tmp/err.txt"
check "f's row: 2 calls, 1 trace, 1 compile, compile ms > 0" $?
grep -qE '^f( +[0-9]+){3}( +[0-9]+\.[0-9]{3}){3}  none$' "$tmp/err.txt"
check "f's row has the three times before its collectives" $?
run --stats=counts prog.shard > /dev/null 2> "$tmp/err2.txt"
grep -qE '^function +calls +traces +compiles +collectives$' "$tmp/err2.txt" && grep -qE '^f +2 +1 +1  none$' "$tmp/err2.txt"
check "--stats=counts leaves the times out" $?
run --stats=often prog.shard > /dev/null 2> "$tmp/err3.txt"
[ $? -eq 2 ] && grep -qF "option --stats takes no value or =counts, got 'often'" "$tmp/err3.txt"
check "--stats=VALUE other than counts is a usage error" $?

# ---- --trace ----
run --trace trace.json prog.shard > /dev/null 2>&1
check "runs with --trace" $?
"$PY" - "$tmp/trace.json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
assert names.get(-1) == "host: trace, compile", names
host = [e for e in events if e.get("ph") == "X" and e["tid"] == -1]
steps = [e for e in events if e.get("ph") == "X" and e["tid"] >= 0]
# jit's trace and compile of f, and the one-op programs of eager ops (f(x)[1]'s getitem).
assert {"trace f", "compile f"} <= {e["name"] for e in host}, host
assert all(e["name"] in ("trace f", "compile f") or e["name"].startswith("compile eager ") for e in host), host
assert any(e["name"] == "compile eager getitem" for e in host), host
assert all(e["cat"] == "host" for e in host) and all(e["cat"] == "step" for e in steps)
compile_f = next(e for e in host if e["name"] == "compile f")
assert compile_f["dur"] > 0
# No device step runs inside the compile: the first call's kernels start after it ends.
start, end = compile_f["ts"], compile_f["ts"] + compile_f["dur"]
inside = [s for s in steps if start < s["ts"] < end]
assert not inside, inside
after = [s for s in steps if s["ts"] >= end]
assert after, "no device step after compile f"
PY
check "--trace: a host track with 'trace f' and 'compile f', no device step inside the compile" $?

# ---- jax.profiler ----
cat > "$tmp/prof.shard" <<'PY'
import os
import jax
import jax.numpy as jnp
import jax.profiler

@jax.jit
def g(x):
    return jnp.cos(x) + 3.0

@jax.jit
def later(x):
    return x * 5.0

with jax.profiler.trace("logs"):
    print(g(jnp.arange(16.0))[0])
print(later(jnp.arange(4.0))[1])  # after the block: not in the file
runs = os.listdir("logs/plugins/profile")
print(len(runs), [f.endswith(".trace.json") for r in runs for f in os.listdir("logs/plugins/profile/" + r)])
jax.profiler.start_trace("logs2")
try:
    jax.profiler.start_trace("logs3")
except RuntimeError as e:
    print("RuntimeError:", e)
print(later(jnp.arange(4.0))[1])  # cached: runs only
jax.profiler.stop_trace()
try:
    jax.profiler.stop_trace()
except RuntimeError as e:
    print("RuntimeError:", e)
print(os.path.exists("logs3"))
PY
run prof.shard > "$tmp/prof.txt" 2>&1
check "jax.profiler script runs" $?
expected="4.0
5.0
1 [True]
RuntimeError: a profiler trace is already being recorded: call jax.profiler.stop_trace() first
5.0
RuntimeError: no profiler trace is being recorded: call jax.profiler.start_trace(log_dir) first
False"
[ "$(cat "$tmp/prof.txt")" == "$expected" ]
check "jax.profiler: one run directory with <hostname>.trace.json; a second start and a stop without start refused" $?
[ "$(cat "$tmp/prof.txt")" == "$expected" ] || diff <(echo "$expected") "$tmp/prof.txt" | head -20
"$PY" - "$tmp/logs" "$tmp/logs2" <<'PY'
import json, os, re, socket, sys
def trace_of(root):
    base = os.path.join(root, "plugins", "profile")
    (run,) = os.listdir(base)
    assert re.fullmatch(r"\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d", run), run
    (name,) = os.listdir(os.path.join(base, run))
    assert name == socket.gethostname() + ".trace.json", name
    return json.load(open(os.path.join(base, run, name)))["traceEvents"]
first = trace_of(sys.argv[1])
host = {e["name"] for e in first if e.get("ph") == "X" and e["tid"] == -1}
assert {"trace g", "compile g"} <= host and not any("later" in n for n in host), host
assert any(e.get("ph") == "X" and e["tid"] >= 0 for e in first), "no device steps"
second = trace_of(sys.argv[2])
host2 = {e["name"] for e in second if e.get("ph") == "X" and e["tid"] == -1}
# later() was traced and compiled before start_trace: only its run is in the second file.
assert not any("later" in n for n in host2), host2
assert any(e.get("ph") == "X" and e["tid"] >= 0 for e in second), "no device steps"
PY
check "jax.profiler files: trace g / compile g on the host track (not later), device steps; the second run has only steps" $?
cat > "$tmp/annotate.shard" <<'PY'
import jax
import jax.numpy as jnp
import jax.profiler

@jax.profiler.annotate_function
def prepare(n):
    return jnp.arange(n * 1.0)

step = jax.jit(lambda x: x * 2.0)
with jax.profiler.TraceAnnotation("setup"):
    x = prepare(8)
for i in range(2):
    with jax.profiler.StepTraceAnnotation("train", step_num=i):
        x = step(x)
print(x[1])
PY
[ "$(run --trace ann.json annotate.shard 2>&1)" == "4.0" ]
check "annotations run" $?
"$PY" - "$tmp/ann.json" <<'PY'
import json, sys
host = {e["name"]: e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X" and e["tid"] == -1}
for name in ("setup", "prepare", "train 0", "train 1", "compile <lambda>"):
    assert name in host, (name, sorted(host))
def inside(inner, outer):
    i, o = host[inner], host[outer]
    return o["ts"] <= i["ts"] and i["ts"] + i["dur"] <= o["ts"] + o["dur"]
assert inside("prepare", "setup")
assert inside("compile <lambda>", "train 0")  # the first step pays the compile...
assert host["train 1"]["dur"] < host["train 0"]["dur"]  # ...the second does not
assert host["train 1"]["ts"] >= host["train 0"]["ts"] + host["train 0"]["dur"]
PY
check "TraceAnnotation / StepTraceAnnotation / annotate_function are host slices around what they enclose" $?
cat > "$tmp/both.shard" <<'PY'
import jax.profiler
try:
    jax.profiler.start_trace("logs4")
except RuntimeError as e:
    print("RuntimeError:", e)
PY
[ "$(run --trace t.json both.shard 2>&1)" == "RuntimeError: the timeline is already being recorded for --trace FILE; run without --trace to use jax.profiler" ]
check "jax.profiler.start_trace under --trace is refused" $?

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
