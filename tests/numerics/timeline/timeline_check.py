#!/usr/bin/python3
"""Checks the --trace timeline of shard against what the program ran.

Runs a jitted program on 8 devices (an elementwise op, a matmul and a reduction over a
sharded dim, so kernels, GEMM and an all-reduce) and one on a single device, each with
--trace FILE.json, then checks with Python's json module: the file parses; each device that
ran has exactly one track, named "device N"; every slice is an "X" event on a named track
with numeric ts/dur in microseconds (dur >= 0, within the run's wall time); slices are named
after the IR ops the program contains; on one track, slices do not overlap (a device runs
its steps in order).

usage: timeline_check.py SHARD_EXE      Prints `N passed, N failed` last.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

SHARDED = """
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P, NamedSharding
mesh = jax.make_mesh((8,), ("i",))
x = jax.device_put(np.arange(64.0, dtype=np.float32).reshape(16, 4), NamedSharding(mesh, P("i")))
w = jnp.ones((4, 4), dtype=jnp.float32)
f = jax.jit(lambda x, w: jnp.sin(x @ w).sum(axis=0))
for _ in range(3):
    r = f(x, w)
print(r.shape)
"""

SINGLE = """
import jax.numpy as jnp
a = jnp.arange(1024.0)
print(float(jnp.exp(a / 1024.0).sum()) > 0)
"""

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))


def run_traced(shard, program, devices, tmp, tag):
    src = os.path.join(tmp, tag + ".shard")
    out = os.path.join(tmp, tag + ".json")
    with open(src, "w") as f:
        f.write(program)
    t0 = time.time()
    p = subprocess.run([shard, "--devices", str(devices), "--trace", out, src], capture_output=True, text=True, timeout=120)
    wall_us = (time.time() - t0) * 1e6
    check(f"{tag}: program runs", p.returncode == 0, p.stderr[-500:])
    try:
        with open(out) as f:
            return json.load(f), wall_us
    except (OSError, ValueError) as e:
        check(f"{tag}: trace file is valid JSON", False, str(e))
        return None, wall_us


def check_trace(tag, trace, wall_us, want_devices, want_ops):
    check(f"{tag}: trace file is valid JSON", True)
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    check(f"{tag}: has traceEvents", isinstance(events, list), repr(type(trace)))
    if not isinstance(events, list):
        return
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names.setdefault(e["tid"], []).append(e["args"]["name"])
    # One track per device, plus the host's (tid -1) for tracing and compiling, so a first
    # call's compile time is not folded into the devices' kernel slices.
    want_names = {d: [f"device {d}"] for d in want_devices}
    want_names[-1] = ["host: trace, compile"]
    check(f"{tag}: one track per device, named 'device N', and the host's", names == want_names, f"{names} != {want_names}")
    slices = [e for e in events if e.get("ph") == "X"]
    check(f"{tag}: has slices", len(slices) > 0)
    bad = [e for e in slices
           if not isinstance(e.get("ts"), (int, float)) or not isinstance(e.get("dur"), (int, float))
           or e["dur"] < 0 or e["ts"] < 0 or e["ts"] + e["dur"] > wall_us or e.get("tid") not in names
           or not isinstance(e.get("name"), str) or not e["name"]]
    check(f"{tag}: slices have ts/dur in us on named tracks", not bad, repr(bad[:3]))
    seen_ops = {e["name"] for e in slices}
    missing = [op for op in want_ops if op not in seen_ops]
    check(f"{tag}: slices named after IR ops {want_ops}", not missing, f"missing {missing} in {sorted(seen_ops)}")
    per_device = {d: {e["name"] for e in slices if e["tid"] == d} for d in want_devices}
    check(f"{tag}: every device ran the ops", all(not [o for o in want_ops if o not in s] for s in per_device.values()),
          repr(per_device))
    overlaps = 0
    for d in want_devices:
        track = sorted((e["ts"], e["ts"] + e["dur"]) for e in slices if e["tid"] == d)
        overlaps += sum(1 for a, b in zip(track, track[1:]) if b[0] < a[1] - 1e-3)
    check(f"{tag}: slices on a track do not overlap", overlaps == 0, f"{overlaps} overlaps")


def main():
    shard = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        trace, wall = run_traced(shard, SHARDED, 8, tmp, "sharded")
        if trace is not None:
            # sin and the local reduce_sum over the rows run as one fused kernel (spmd/row_fusion).
            check_trace("sharded", trace, wall, list(range(8)), ["dot_general", "fusion", "psum"])
        trace, wall = run_traced(shard, SINGLE, 8, tmp, "single")
        if trace is not None:
            check_trace("single", trace, wall, [0], ["exp", "reduce_sum"])
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
