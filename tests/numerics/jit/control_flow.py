"""Control-flow cases (jax.lax.fori_loop / while_loop / scan / cond / switch) inside jit, on
every spec of an (8, 16) input. Loop bodies and branches keep the carry's type, as JAX
requires, so the expected type of a carry is its input's; scanned outputs are stacked on a new
leading dim that is unsharded (SHARDING_RULES.md §3 broadcast/stack: new dims are None).
Enabled by `--with-control-flow` (run_oracle.sh passes it once shard has jax.lax.fori_loop).
"""
import numpy as np

import model as M
from cases import Case, spec_label


def _fori(x, **_):
    c = x.copy()
    for i in range(3):
        c = c * np.float32(0.5) + x * np.float32(i)
    return [c]


def _fori_matmul(x, wsq, **_):
    c = x.copy()
    for _ in range(2):
        c = np.tanh(c @ wsq).astype(np.float32)
    return [c]


def _while(x, **_):
    c = x.copy()
    for _ in range(3):
        c = c * np.float32(0.5) + x
    return [c]


def _scan(x, reverse=False, **_):
    rows = x[::-1] if reverse else x
    c, ys = np.zeros_like(x[0]), []
    for r in rows:
        ys.append(c * np.float32(2))
        c = c + r
    ys = np.stack(ys)
    return [c, ys[::-1] if reverse else ys]


def _scan_length(x, **_):
    c, ys = x.copy(), []
    for _ in range(3):
        ys.append(c.sum(axis=0))
        c = c * np.float32(0.5) + x
    return [c, np.stack(ys)]


def _cond(x, positive, **_):
    return [x * np.float32(2) if (x.sum() > 0) == positive else x - np.float32(1)]


def _switch(x, index=None, **_):
    i = int(np.argmax(x.sum(axis=1)) % 3) if index is None else min(max(index, 0), 2)
    return [[x * np.float32(2), x - np.float32(1), -x][i]]


# (name, body lines with {x} the input and {w} a (16, 16) weight, outputs, numpy reference,
# reference kwargs, "carry" or "scan" (what the output types are))
CASES = [
    ("fori_loop", ["def body(i, c):", "    return c * 0.5 + {x} * i",
                   "t0 = jax.lax.fori_loop(0, 3, body, {x})"], ["t0"], _fori, {}, "carry"),
    ("fori_loop_matmul", ["def body(i, c):", "    return jnp.tanh(c @ {w})",
                          "t0 = jax.lax.fori_loop(0, 2, body, {x})"], ["t0"], _fori_matmul, {},
     "carry"),
    ("while_loop", ["def cond(c):", "    return c[0] < 3",
                    "def body(c):", "    return (c[0] + 1, c[1] * 0.5 + {x})",
                    "t0 = jax.lax.while_loop(cond, body, (0, {x}))[1]"], ["t0"], _while, {},
     "carry"),
    ("scan", ["def step(c, r):", "    return (c + r, c * 2.0)",
              "t0, t1 = jax.lax.scan(step, jnp.zeros_like({xs}[0]), {xs})"], ["t0", "t1"], _scan,
     {}, "scan"),
    ("scan_reverse", ["def step(c, r):", "    return (c + r, c * 2.0)",
                      "t0, t1 = jax.lax.scan(step, jnp.zeros_like({xs}[0]), {xs}, reverse=True)"],
     ["t0", "t1"], _scan, {"reverse": True}, "scan"),
    ("scan_length", ["def step(c, _):", "    return (c * 0.5 + {x}, jnp.sum(c, axis=0))",
                     "t0, t1 = jax.lax.scan(step, {x}, None, length=3)"], ["t0", "t1"],
     _scan_length, {}, "scan_length"),
    ("cond_true", ["def yes(v):", "    return v * 2.0", "def no(v):", "    return v - 1.0",
                   "t0 = jax.lax.cond(jnp.sum({x}) > -1000.0, yes, no, {x})"], ["t0"], _cond,
     {"positive": True}, "carry"),
    ("cond_data", ["def yes(v):", "    return v * 2.0", "def no(v):", "    return v - 1.0",
                   "t0 = jax.lax.cond(jnp.sum({x}) > 0.0, yes, no, {x})"], ["t0"],
     lambda x, **_: [x * np.float32(2) if x.sum() > 0 else x - np.float32(1)], {}, "carry"),
    ("switch", ["branches = [lambda v: v * 2.0, lambda v: v - 1.0, lambda v: -v]",
                "t0 = jax.lax.switch(jnp.argmax(jnp.sum({x}, axis=1)) % 3, branches, {x})"],
     ["t0"], _switch, {}, "carry"),
    ("switch_clamped", ["branches = [lambda v: v * 2.0, lambda v: v - 1.0, lambda v: -v]",
                        "t0 = jax.lax.switch(7, branches, {x})"], ["t0"], _switch,
     {"index": 7}, "carry"),
]


# Bodies and branches that change the carry's sharding: a TypeError naming the mismatch when
# the carry is sharded (with a replicated carry the types agree and the values are checked).
TYPE_CHANGING = [
    ("fori_loop_reshard", ["def body(i, c):", "    return jax.sharding.reshard(c * 2.0, P())",
                           "t0 = jax.lax.fori_loop(0, 3, body, {x})"],
     lambda x, **_: [x * np.float32(8)], "the shardings do not match"),
    ("while_loop_reshard", ["def cond(c):", "    return c[0] < 2",
                            "def body(c):",
                            "    return (c[0] + 1, jax.sharding.reshard(c[1] - 1.0, P()))",
                            "t0 = jax.lax.while_loop(cond, body, (0, {x}))[1]"],
     lambda x, **_: [x - np.float32(2)], "the shardings do not match"),
    ("cond_reshard", ["def yes(v):", "    return v * 2.0",
                      "def no(v):", "    return jax.sharding.reshard(v, P())",
                      "t0 = jax.lax.cond(jnp.sum({x}) > -1000.0, yes, no, {x})"],
     lambda x, **_: [x * np.float32(2)], "must have identical types"),
]


def cases(label, mesh, x, specs_for):
    out = []
    for spelled in specs_for(mesh, x["x"].shape):
        spec = tuple(M.entry(e) for e in spelled)
        name_of = lambda name: f"{label} {name} x={spec_label(spelled)}"
        for name, body, outs, ref, kw, kind in CASES:
            params = [("a0", "x", spec_label(spelled))]
            fmt = {"x": "a0", "xs": "a0", "w": "a1"}
            if "{w}" in "".join(body):
                # The weight's output dim shares the carry's column sharding, so `c @ w`
                # keeps the carry's type (the contracting dim is sharded on one side only).
                params.append(("a1", "wsq", M.spec_src(((), spec[1]))))
            lines, suffix = [], ""
            if "{xs}" in "".join(body) and spec[0]:
                # JAX: "0th dimension of all xs should be replicated" (a ValueError); the
                # fixed case reshards first.
                out.append(Case(name_of(name), params, [l.format(**fmt) for l in body], [],
                                error="0th dimension of all xs should be replicated",
                                error_type="ValueError"))
                lines.append(f"xs = jax.sharding.reshard(a0, {M.spec_src(((), spec[1]))})")
                fmt["xs"] = "xs"
                suffix = " [fixed: reshard xs]"
            lines += [line.format(**fmt) for line in body]
            vals = ref(x["x"], wsq=x["wsq"], **kw)
            if kind == "carry":
                specs = [spec]
            elif kind == "scan":
                specs = [(spec[1],), ((), spec[1])]
            else:  # scan_length: the carry is x-like, ys are column sums stacked
                specs = [spec, ((), spec[1])]
            expected = [(src, M.type_str(v.dtype, v.shape, s), v)
                        for src, v, s in zip(outs, vals, specs)]
            out.append(Case(name_of(name) + suffix, params, lines, expected, tol="float"))
        for name, body, ref, phrase in TYPE_CHANGING:
            params = [("a0", "x", spec_label(spelled))]
            lines = [line.format(x="a0") for line in body]
            if any(spec):
                out.append(Case(name_of(name), params, lines, [], error=phrase,
                                error_type="TypeError"))
            else:
                v = ref(x["x"])[0]
                out.append(Case(name_of(name), params, lines,
                                [("t0", M.type_str(v.dtype, v.shape, spec), v)], tol="float"))
    return out
