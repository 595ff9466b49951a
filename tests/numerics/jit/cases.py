"""The cases: jitted functions over every PartitionSpec combination of their inputs.

A family is a Python function over `model.Sym` arguments (see model.py) plus the input arrays it
takes; `cases_for_mesh` enumerates the specs of those inputs on a mesh and builds one `Case` per
combination (and, when the combination must raise a sharding error, a second `Case` with the
fix applied). Families whose functions can never raise are batched: one jitted function per
input spec returning many results.
"""
import itertools
from dataclasses import dataclass, field

import numpy as np

import model as M
from model import Predicted


@dataclass
class Case:
    name: str
    params: list  # (param name, input key, spec source)
    lines: list  # function body (without the return)
    outs: list = field(default_factory=list)  # (expression, expected type, numpy value)
    error: str = None  # a phrase the message of the expected error must contain
    error_type: str = "ShardingTypeError"
    tol: str = "exact"  # or "float": rtol 1e-5 (transcendentals)


# ---- inputs -------------------------------------------------------------------------------
# Multiples of 1/4 in [-1, 1]: sums and products of these stay exact in float32, so every
# contraction and reduction order gives the same bits.

def make_inputs():
    rng = np.random.default_rng(20251122)

    def q(*shape):
        return (rng.integers(-4, 5, shape) * 0.25).astype(np.float32)

    return {
        "x": q(8, 16), "w1": q(16, 8), "b1": q(8), "w2": q(8, 4), "b2": q(4),
        "a": q(8, 16), "v": q(16), "col": q(8, 1), "wsq": q(16, 16),
        "s": q(2, 8, 16), "t": q(2, 16, 4),
    }


# ---- spec enumeration ---------------------------------------------------------------------

def dim_options(mesh, n):
    """Spellings of one dim's entry: None, one axis, a tuple of axes; only those dividing n.
    On a 1-D mesh the one-axis tuple ('x',) is spelled out too (same type as 'x')."""
    names = list(mesh)
    opts = [None] + names
    if len(names) == 1:
        opts.append((names[0],))
    else:
        opts += [tuple(p) for p in itertools.permutations(names, 2)]
    return [o for o in opts if n % int(np.prod([mesh[a] for a in M.entry(o)] or [1])) == 0]


def specs_for(mesh, shape):
    """Every legal spec of an array (no axis twice), as lists of spelled entries."""
    out = []
    for combo in itertools.product(*[dim_options(mesh, n) for n in shape]):
        axes = [a for e in combo for a in M.entry(e)]
        if len(axes) == len(set(axes)):
            out.append(list(combo))
    return out


def spec_label(spelled):
    return M.spec_src(tuple(M.entry(e) for e in spelled), spelled)


# ---- families -----------------------------------------------------------------------------

def mlp(x, w1, b1, w2, b2):
    h = M.relu(x @ w1 + b1)
    return [h @ w2 + b2]


def matmul_out(out_spelled):
    """x @ w1 with a given out_sharding: any operand layouts to any result layout."""
    spec = tuple(M.entry(e) for e in out_spelled)
    return lambda x, w1: [M.matmul(x, w1, out=spec)]


def chain(a, v, col):
    """Elementwise chain with broadcasting: (8,16) with (16,) and (8,1)."""
    y = a * v + col
    return [M.tanh(y) * 0.5 + a, y * col]


def where_same(a, b):
    return [M.where(a > 0.0, a, b)]


def where_bcast(a, v):
    return [M.where(a > 0.0, a, v)]


def ein_transposed(x, w1):
    return [M.einsum("ij,jk->ki", x, w1)]


def ein_rowdot(x, a):
    return [M.einsum("ij,ij->i", x, a)]


def ein_batched(s, t):
    return [M.einsum("bij,bjk->bik", s, t)]


def never_failing(x):
    """Ops whose rules cannot fail on one operand: reductions, argmax, elementwise, transpose."""
    outs = []
    for kind in ["sum", "mean", "max"]:
        for axis in [0, 1, None]:
            for keep in [False, True]:
                outs.append(M.reduce(kind, x, axis, keep))
    outs += [M.reduce("sum", x, (0, 1)), M.reduce("argmax", x, 0), M.reduce("argmax", x, 1),
             M.reduce("argmax", x, 1, True)]
    outs += [M.clip(x * 2.0 - 0.5, -0.5, 0.75), M.relu(x) + x * x, x.T,
             M.transpose(x.T * 3.0, (1, 0))]
    return outs


def reductions_3d(s):
    """Reductions over tuples of axes of a (2, 8, 16) array (reduced dims leave the spec)."""
    return [M.reduce("sum", s, (0, 2)), M.reduce("max", s, (1, 2), True),
            M.reduce("mean", s, (0, 1)), M.reduce("sum", s, 1), M.reduce("argmax", s, 2),
            M.reduce("max", s, None, True), M.transpose(s, (2, 0, 1)) * 0.5]


def one_op(fn):
    return lambda x: [fn(x)]


FAMILIES_1 = {  # one (8, 16) input, one op that may need a fix
    "cumsum0": one_op(lambda x: M.cumsum(x, 0)),
    "cumsum1": one_op(lambda x: M.cumsum(x, 1)),
    "sort0": one_op(lambda x: M.sort(x, 0)),
    "sort1": one_op(lambda x: M.sort(x, 1)),
    # jnp.argmax(x) ravels first (a reshape to (128,)), so it has the reshape's rules.
    "argmax_flat": one_op(lambda x: M.argmax_flat(x)),
    "reshape_merge": one_op(lambda x: M.reshape(x, (128,))),
    "reshape_split": one_op(lambda x: M.reshape(x, (2, 4, 16))),
    "reshape_split1": one_op(lambda x: M.reshape(x, (8, 2, 8))),
    "reshape_unit": one_op(lambda x: M.reshape(x, (8, 1, 16))),
    "reshape_regroup": one_op(lambda x: M.reshape(x, (16, 8))),
}


# ---- building -----------------------------------------------------------------------------

def cases_of(label, mesh, family, fn, args, variant, tol="exact"):
    """The case as written; when it must raise, also the case with the fixes applied."""
    name = f"{label} {family} " + ", ".join(f"{k}={spec_label(s)}" for k, _, s in args)
    b = M.Builder(mesh, fix=False, variant=variant)
    syms = [b.param(key, val, spelled) for key, val, spelled in args]
    try:
        outs = fn(*syms)
        return [Case(name, b.params, b.lines, [(o.src, o.type(), o.val) for o in outs], tol=tol)]
    except Predicted as e:
        err_case = Case(name, b.params, b.lines, [], error=e.kind, tol=tol)
    b = M.Builder(mesh, fix=True, variant=variant)
    syms = [b.param(key, val, spelled) for key, val, spelled in args]
    outs = fn(*syms)
    fixed = Case(f"{name} [fixed: {'; '.join(b.fixed)}]", b.params, b.lines,
                 [(o.src, o.type(), o.val) for o in outs], tol=tol)
    return [err_case, fixed]


def product_cases(label, mesh, x, family, fn, keys, full, cycled=(), tol="exact", counter=None):
    """Every spec combination of the `full` inputs; the `cycled` inputs take their specs in
    turn (so each of their specs meets many combinations of the others)."""
    out = []
    full_specs = [specs_for(mesh, x[k].shape) for k in full]
    cyc_specs = {k: specs_for(mesh, x[k].shape) for k in cycled}
    for i, combo in enumerate(itertools.product(*full_specs)):
        chosen = dict(zip(full, combo))
        radix = 1  # mixed radix over i: the first cycled input changes fastest
        for k in cycled:
            opts = cyc_specs[k]
            chosen[k] = opts[(i // radix) % len(opts)]
            radix *= len(opts)
        args = [(k, x[k], chosen[k]) for k in keys]
        out += cases_of(label, mesh, family, fn, args, next(counter), tol)
    return out


def cases_for_mesh(label, mesh, x, control_flow=False):
    counter = itertools.count()
    one_d = len(mesh) == 1
    out = []
    add = out.extend
    mlp_keys = ["x", "w1", "b1", "w2", "b2"]
    if one_d:
        add(product_cases(label, mesh, x, "mlp", mlp, mlp_keys, mlp_keys, counter=counter))
    else:
        # Every (x, w1, w2) combination; b1 cycles fastest, so every (x, w1, b1) meets too.
        add(product_cases(label, mesh, x, "mlp", mlp, mlp_keys, ["x", "w1", "w2"], ["b1", "b2"],
                          counter=counter))
    for out_spec in specs_for(mesh, (8, 8)):  # every (x, w1) pair, every result spec
        add(product_cases(label, mesh, x, f"matmul out_sharding={spec_label(out_spec)}",
                          matmul_out(out_spec), ["x", "w1"], ["x", "w1"], counter=counter))
    add(product_cases(label, mesh, x, "chain", chain, ["a", "v", "col"], ["a", "v", "col"],
                      tol="float", counter=counter))
    add(product_cases(label, mesh, x, "where", where_same, ["a", "x"], ["a", "x"], counter=counter))
    add(product_cases(label, mesh, x, "where_bcast", where_bcast, ["a", "v"], ["a", "v"],
                      counter=counter))
    add(product_cases(label, mesh, x, "einsum_ij,jk->ki", ein_transposed, ["x", "w1"],
                      ["x", "w1"], counter=counter))
    add(product_cases(label, mesh, x, "einsum_ij,ij->i", ein_rowdot, ["x", "a"], ["x", "a"],
                      counter=counter))
    add(product_cases(label, mesh, x, "einsum_bij,bjk->bik", ein_batched, ["s", "t"],
                      ["s", "t"], counter=counter))
    add(product_cases(label, mesh, x, "reductions+elementwise", never_failing, ["x"], ["x"],
                      counter=counter))
    add(product_cases(label, mesh, x, "reductions_3d", reductions_3d, ["s"], ["s"],
                      counter=counter))
    for fam, fn in FAMILIES_1.items():
        add(product_cases(label, mesh, x, fam, fn, ["x"], ["x"], counter=counter))
    if control_flow:
        import control_flow as CF
        add(CF.cases(label, mesh, x, specs_for))
    return out
