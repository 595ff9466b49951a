#!/usr/bin/python3
"""numpy oracle for stdlib/optax: every optimizer and schedule runs several jitted steps in
shard on a small pytree of params with a quadratic-plus-sine loss; numpy runs the same steps
with the update rules of optax's documentation, written out in float64. Both sides must agree
to float32 precision, on an unsharded and on a sharded placement (optimizer states must have
the params' sharding).

usage: optax_oracle.py SHARD_EXE [-v]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

STEPS = 4
P0 = {"b": np.array([0.5, -0.25], np.float32), "w": np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)}


def grad(p):  # of sum(w^2) + sum(sin(b))
    return {"b": np.cos(p["b"]), "w": 2 * p["w"]}


def tmap(f, *ts):
    return {k: f(*(t[k] for t in ts)) for k in ts[0]}


def gnorm(u):
    return np.sqrt(sum(np.sum(v * v) for v in u.values()))


def run(update, state):
    p = {k: v.astype(np.float64) for k, v in P0.items()}
    for _ in range(STEPS):
        u, state = update(grad(p), state, p)
        p = tmap(lambda a, b: a + b, p, u)
    return p


def sgd(lr, momentum=None, nesterov=False):
    def update(g, s, p):
        if momentum is None:
            return tmap(lambda x: -lr * x, g), s
        t = tmap(lambda x, y: x + momentum * y, g, s)
        u = tmap(lambda x, y: x + momentum * y, g, t) if nesterov else t
        return tmap(lambda x: -lr * x, u), t
    return update, tmap(np.zeros_like, P0)


def adam_like(lr, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, schedule=None):
    def update(g, s, p):
        c, m, v = s
        m = tmap(lambda x, y: (1 - b1) * x + b1 * y, g, m)
        v = tmap(lambda x, y: (1 - b2) * x * x + b2 * y, g, v)
        c += 1
        u = tmap(lambda a, b: (a / (1 - b1 ** c)) / (np.sqrt(b / (1 - b2 ** c)) + eps), m, v)
        u = tmap(lambda a, w: a + wd * w, u, p)
        rate = schedule(c - 1) if schedule else lr
        return tmap(lambda a: -rate * a, u), (c, m, v)
    return update, (0, tmap(np.zeros_like, P0), tmap(np.zeros_like, P0))


def lion(lr, b1=0.9, b2=0.99, wd=1e-3):
    def update(g, m, p):
        u = tmap(lambda x, y: np.sign((1 - b1) * x + b1 * y), g, m)
        m = tmap(lambda x, y: (1 - b2) * x + b2 * y, g, m)
        u = tmap(lambda a, w: a + wd * w, u, p)
        return tmap(lambda a: -lr * a, u), m
    return update, tmap(np.zeros_like, P0)


def clipped_sgd(max_norm, lr):
    def update(g, s, p):
        n = gnorm(g)
        g = g if n < max_norm else tmap(lambda x: x / n * max_norm, g)
        return tmap(lambda x: -lr * x, g), s
    return update, None


def warmup_cosine(init, peak, warmup, decay_steps, end=0.0):
    def f(c):
        if c < warmup:
            return init + (peak - init) * min(c, warmup) / warmup
        prog = min(c - warmup, decay_steps - warmup) / (decay_steps - warmup)
        return (peak - end) * 0.5 * (1 + np.cos(np.pi * prog)) + end
    return f


def linear(init, end, steps):
    return lambda c: init + (end - init) * min(c, steps) / steps


CASES = [
    ("sgd", "optax.sgd(0.1)", sgd(0.1)),
    ("sgd_momentum", "optax.sgd(0.1, momentum=0.9)", sgd(0.1, 0.9)),
    ("sgd_nesterov", "optax.sgd(0.05, momentum=0.8, nesterov=True)", sgd(0.05, 0.8, True)),
    ("adam", "optax.adam(0.1)", adam_like(0.1)),
    ("adam_b", "optax.adam(0.01, b1=0.8, b2=0.99, eps=1e-6)", adam_like(0.01, 0.8, 0.99, 1e-6)),
    ("adamw", "optax.adamw(0.1, weight_decay=0.01)", adam_like(0.1, wd=0.01)),
    ("lion", "optax.lion(0.05)", lion(0.05)),
    ("clip_sgd", "optax.chain(optax.clip_by_global_norm(0.5), optax.sgd(0.1))", clipped_sgd(0.5, 0.1)),
    ("adam_warmup_cosine", "optax.adam(optax.warmup_cosine_decay_schedule(0.0, 0.1, 2, 10))",
     adam_like(None, schedule=warmup_cosine(0.0, 0.1, 2, 10))),
    ("adam_linear", "optax.adam(optax.linear_schedule(0.1, 0.01, 3))", adam_like(None, schedule=linear(0.1, 0.01, 3))),
]

PLACEMENTS = [("unsharded", None), ("sharded", "P(None, 'x')")]


def program(out_dir, spec):
    lines = ["import jax", "import jax.numpy as jnp", "import numpy as np", "import optax",
             "from jax.sharding import PartitionSpec as P, AxisType"]
    lines.append(f"p0 = {{'b': jnp.array({P0['b'].tolist()}), 'w': jnp.array({P0['w'].tolist()})}}")
    if spec:
        lines += ["mesh = jax.make_mesh((4,), ('x',), axis_types=(AxisType.Explicit,))", "jax.sharding.set_mesh(mesh)",
                  f"p0 = {{'b': p0['b'], 'w': jax.device_put(p0['w'], {spec})}}"]
    lines.append("loss = lambda p: jnp.sum(p['w'] ** 2) + jnp.sum(jnp.sin(p['b']))")
    for k, (name, ctor, _) in enumerate(CASES):
        lines += [
            "try:",
            f"    opt = {ctor}",
            "    state = opt.init(p0)",
            "    @jax.jit",
            "    def step(p, s):",
            "        u, s = opt.update(jax.grad(loss)(p), s, p)",
            "        return optax.apply_updates(p, u), s",
            "    p = p0",
            f"    for _ in range({STEPS}):",
            "        p, state = step(p, state)",
            f"    np.save({os.path.join(out_dir, f'{k}_w.npy')!r}, np.asarray(p['w']))",
            f"    np.save({os.path.join(out_dir, f'{k}_b.npy')!r}, np.asarray(p['b']))",
            "    for leaf in jax.tree_util.tree_leaves(state):",
            "        if leaf.shape == p0['w'].shape and jax.typeof(leaf).sharding.spec != jax.typeof(p0['w']).sharding.spec:",
            f"            print('CASE', {k}, 'state sharding', jax.typeof(leaf), 'differs from the params', jax.typeof(p0['w']))",
            "except Exception as e:",
            f"    print('CASE', {k}, type(e).__name__ + ':', str(e).replace(chr(10), ' '))",
        ]
    return "\n".join(lines) + "\n"


def main(argv):
    shard = os.path.abspath(argv[1])
    verbose = "-v" in argv
    passed = failed = 0
    for label, spec in PLACEMENTS:
        work = tempfile.mkdtemp(prefix="optax_oracle_")
        prog = os.path.join(work, "prog.shard")
        with open(prog, "w") as f:
            f.write(program(work, spec))
        proc = subprocess.run([shard, prog], capture_output=True, text=True, env=dict(os.environ, SHARD_DEVICES="4"), timeout=600)
        errors = {}
        for line in proc.stdout.splitlines():
            if line.startswith("CASE "):
                _, k, msg = line.split(" ", 2)
                errors[int(k)] = msg
        if proc.returncode != 0:
            print(f"[{label}] shard exited with {proc.returncode}: {proc.stderr[-2000:]}")
            failed += 1
        for k, (name, ctor, (update, state)) in enumerate(CASES):
            if k in errors:
                failed += 1
                print(f"[{label}] FAIL {name}: {errors[k]}")
                continue
            want = run(update, state)
            try:
                got = {n: np.load(os.path.join(work, f"{k}_{n}.npy")) for n in ("w", "b")}
            except FileNotFoundError:
                failed += 1
                print(f"[{label}] FAIL {name}: no result")
                continue
            bad = [n for n in got if not np.allclose(got[n], want[n], rtol=2e-5, atol=2e-6)]
            if bad:
                failed += 1
                print(f"[{label}] FAIL {name} ({ctor}): {bad[0]} = {got[bad[0]].ravel()[:4]} expected {want[bad[0]].ravel()[:4]}")
            else:
                passed += 1
                if verbose:
                    print(f"[{label}] ok {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
