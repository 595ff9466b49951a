"""A symbolic model of jitted shard code: each operation at once

  * writes a line of the .shard function body (`t3 = jnp.matmul(t1, w1)`),
  * computes numpy's value (the numerical reference), and
  * applies the project's sharding rules (the specification the rules in src/sharding/ implement) to predict the result's
    type (`float32[8@x,16]`) or the ShardingTypeError shard must raise.

A case is an ordinary Python function over `Sym` values. It is built twice when needed: first
as written (`Builder(fix=False)`), where a predicted sharding error ends the build with
`Predicted`; then with `fix=True`, where every op that would raise applies the fix the error
message proposes instead (an `out_sharding=` for contractions and reshapes, a `reshard` of an
operand otherwise), so every combination also runs to a checked value.
"""
import numpy as np


class Predicted(Exception):
    """The sharding error shard must raise; `kind` is a phrase its message must contain."""

    def __init__(self, kind, detail):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


# Phrases of the error messages (SHARDING_RULES.md §1-§5), used as `Predicted.kind`.
INCOMPATIBLE = "incompatible shardings for broadcasting"
ILLEGAL = "illegally sharded"
SELECT = "select cases must have the same shardings"
BATCH = "batch dimensions"
AMBIGUOUS = "ambiguous"
# cumsum: "...unsharded over the axis being reduced"; sort: "...over the sorting dimension" (JAX)
UNSHARDED = "unsharded over the"
RESHAPE = "reshape is not supported"


# ---- specs --------------------------------------------------------------------------------
# An entry is a tuple of mesh axis names (empty: None); a spec is a tuple of entries.

def entry(e):
    if e is None:
        return ()
    return tuple(e) if isinstance(e, (tuple, list)) else (e,)


def spec_src(spec, spelled=None):
    """PartitionSpec source; `spelled` keeps an input's own spelling (e.g. ('x',))."""
    items = spelled if spelled is not None else [
        None if not e else (e[0] if len(e) == 1 else tuple(e)) for e in spec]
    return "P(" + ", ".join(repr(i) for i in items) + ")"


def type_str(dtype, shape, spec):
    dims = []
    for n, e in zip(shape, spec):
        if not e:
            dims.append(str(n))
        elif len(e) == 1:
            dims.append(f"{n}@{e[0]}")
        else:
            dims.append(f"{n}@({','.join(e)})")
    return f"ShapedArray({np.dtype(dtype).name}[{','.join(dims)}])"


def axes_of(spec):
    return [a for e in spec for a in e]


# ---- the builder --------------------------------------------------------------------------

class Builder:
    """Collects one jitted function's body; `mesh` maps axis names to sizes (in order)."""

    def __init__(self, mesh, fix=False, variant=0):
        self.mesh = mesh
        self.fix = fix
        self.variant = variant  # picks among equally valid fixes, to vary them across cases
        self.lines = []
        self.params = []  # (name, input key, spec source)
        self.fixed = []  # what was fixed, for the case's description
        self.n = 0

    def size(self, e):
        return int(np.prod([self.mesh[a] for a in e])) if e else 1

    def emit(self, expr, val, spec, fixed=None):
        name = f"t{self.n}"
        self.n += 1
        self.lines.append(f"{name} = {expr}")
        if fixed:
            self.fixed.append(fixed)
        return Sym(self, name, np.asarray(val), tuple(spec))

    def param(self, key, val, spelled):
        """A jit argument: input array `key` placed with spec `spelled` (list of entries)."""
        name = f"a{len(self.params)}"
        spec = tuple(entry(e) for e in spelled)
        spec = spec + ((),) * (np.ndim(val) - len(spec))
        self.params.append((name, key, spec_src(spec, spelled)))
        return Sym(self, name, np.asarray(val), spec)

    def result(self, spec):
        """Check an output spec: no axis twice (SHARDING_RULES.md §0)."""
        axes = axes_of(spec)
        if len(axes) != len(set(axes)):
            return Predicted(ILLEGAL, f"axis used twice in {spec}")
        return None

    def fail(self, err, expr):
        """Without fix: write the op as the user would (the line shard must reject), stop."""
        self.lines.append(f"t{self.n} = {expr}")
        raise err


class Sym:
    def __init__(self, b, src, val, spec):
        self.b, self.src, self.val, self.spec = b, src, val, spec
        assert len(spec) == val.ndim, (src, spec, val.shape)

    @property
    def shape(self):
        return self.val.shape

    @property
    def ndim(self):
        return self.val.ndim

    def type(self):
        return type_str(self.val.dtype, self.shape, self.spec)

    # operators
    def __add__(self, o):
        return elementwise("+", self, o, np.add)

    def __radd__(self, o):
        return elementwise("+", o, self, np.add)

    def __sub__(self, o):
        return elementwise("-", self, o, np.subtract)

    def __mul__(self, o):
        return elementwise("*", self, o, np.multiply)

    def __rmul__(self, o):
        return elementwise("*", o, self, np.multiply)

    def __gt__(self, o):
        return elementwise(">", self, o, np.greater)

    def __matmul__(self, o):
        return matmul(self, o)

    @property
    def T(self):
        return transpose(self, None)


def src_of(x):
    return x.src if isinstance(x, Sym) else repr(x)


def val_of(x):
    return x.val if isinstance(x, Sym) else np.float32(x)


def builder_of(*xs):
    return next(x.b for x in xs if isinstance(x, Sym))


# ---- §1 elementwise -------------------------------------------------------------------------

def broadcast_rule(b, operands):
    """(result spec, error or None) for n-ary broadcasting; scalars take no part."""
    arrs = [x for x in operands if isinstance(x, Sym) and x.ndim > 0]
    rank = max([x.ndim for x in arrs], default=0)
    aligned = [(((),) * (rank - x.ndim) + x.spec, (1,) * (rank - x.ndim) + x.shape) for x in arrs]
    out = []
    for d in range(rank):
        non_none = {s[d] for s, _ in aligned if s[d]}
        if len(non_none) > 1:
            return None, Predicted(INCOMPATIBLE, f"dim {d}: {sorted(non_none)}")
        out.append(non_none.pop() if non_none else ())
    return tuple(out), b.result(tuple(out))


def conform(x, target_spec, target_shape):
    """The spec `x` must be resharded to so it agrees with an operand of `target_spec`
    (rank-aligned from the right): the target's entry on each dim x really has, None on
    size-1 dims, and x's own entries on extra leading dims unless the target uses those axes."""
    used = set(axes_of(target_spec))
    off = len(target_shape) - x.ndim
    spec = []
    for d in range(x.ndim):
        td = d + off
        if x.shape[d] == 1:
            spec.append(())
        elif td >= 0:
            spec.append(target_spec[td])
        else:
            spec.append(x.spec[d] if not set(x.spec[d]) & used else ())
    return tuple(spec)


def reshard(x, spec, why=None):
    return x.b.emit(f"jax.sharding.reshard({x.src}, {spec_src(spec)})", x.val, spec,
                    fixed=why)


def elementwise(op, x, y, fn):
    b = builder_of(x, y)
    spec, err = broadcast_rule(b, [x, y])
    if err:
        if not b.fix:
            b.fail(err, f"{src_of(x)} {op} {src_of(y)}")
        # Reshard the lower-rank (else the second) operand to agree with the other; only two
        # arrays can disagree, so both are Syms here.
        first, second = (x, y) if x.ndim >= y.ndim else (y, x)
        fixed = reshard(second, conform(second, first.spec, first.shape), f"reshard for `{op}`")
        x, y = (first, fixed) if first is x else (fixed, first)
        spec, err = broadcast_rule(b, [x, y])
        assert err is None, err
    val = fn(val_of(x), val_of(y))
    if val.dtype == np.float64:
        val = val.astype(np.float32)
    return b.emit(f"{src_of(x)} {op} {src_of(y)}", val, spec)


def unary(fn_src, x, fn):
    return x.b.emit(f"{fn_src}({x.src})", fn(x.val).astype(x.val.dtype), x.spec)


def relu(x):
    return x.b.emit(f"jnp.maximum({x.src}, 0.0)", np.maximum(x.val, np.float32(0)), x.spec)


def tanh(x):
    return unary("jnp.tanh", x, np.tanh)


def clip(x, lo, hi):
    return x.b.emit(f"jnp.clip({x.src}, {lo!r}, {hi!r})",
                    np.clip(x.val, np.float32(lo), np.float32(hi)), x.spec)


def where(c, x, y):
    """jnp.where: same-shape cases must agree exactly; then all three broadcast."""
    b = x.b
    err = None
    if x.shape == y.shape and x.spec != y.spec:
        err = Predicted(SELECT, f"{x.spec} vs {y.spec}")
    else:
        _, err = broadcast_rule(b, [c, x, y])
    if err:
        if not b.fix:
            b.fail(err, f"jnp.where({c.src}, {x.src}, {y.src})")
        big = max([c, x, y], key=lambda s: s.ndim)
        c, x, y = [s if s is big else reshard(s, conform(s, big.spec, big.shape),
                                                "reshard for `where`") for s in (c, x, y)]
    spec, err = broadcast_rule(b, [c, x, y])
    assert err is None, err
    return b.emit(f"jnp.where({c.src}, {x.src}, {y.src})", np.where(c.val, x.val, y.val), spec)


# ---- §3 shape operations --------------------------------------------------------------------

def transpose(x, perm):
    perm = tuple(perm) if perm is not None else tuple(reversed(range(x.ndim)))
    src = f"{x.src}.T" if perm == tuple(reversed(range(x.ndim))) and x.ndim == 2 else \
        f"jnp.transpose({x.src}, {perm})"
    return x.b.emit(src, np.transpose(x.val, perm), [x.spec[p] for p in perm])


def _groups(ins, outs):
    """Minimal blocks of equal element count between non-size-1 dims (operand, result)."""
    a = [d for d, n in enumerate(ins) if n != 1]
    c = [d for d, n in enumerate(outs) if n != 1]
    groups, i, j = [], 0, 0
    while i < len(a) and j < len(c):
        g = ([a[i]], [c[j]])
        p, q = ins[a[i]], outs[c[j]]
        while p != q:
            if p < q:
                i += 1
                g[0].append(a[i])
                p *= ins[a[i]]
            else:
                j += 1
                g[1].append(c[j])
                q *= outs[c[j]]
        groups.append(g)
        i += 1
        j += 1
    return groups


def reshape_rule(b, x, shape):
    """SHARDING_RULES.md §3 reshape, rules (2)-(6): (spec, error)."""
    out = [()] * len(shape)
    if not axes_of(x.spec):
        return tuple(out), None
    groups = _groups(x.shape, shape)
    # With a sharded operand at most one block may be a split or a merge: two of them, or a
    # regroup like (6, 4) -> (4, 6), is rule (6).
    nontrivial = [g for g in groups if not (len(g[0]) == 1 and len(g[1]) == 1)]
    err = Predicted(RESHAPE, f"{x.shape} -> {shape}")
    if len(nontrivial) > 1 or any(len(g[0]) > 1 and len(g[1]) > 1 for g in nontrivial):
        return None, err
    for ins, outs in groups:
        if len(ins) == 1 and len(outs) == 1:
            out[outs[0]] = x.spec[ins[0]]
        elif len(ins) == 1:  # (4) split: axes to the major-most pieces
            piece, rem = 0, shape[outs[0]]
            pieces = [[] for _ in outs]
            for a in x.spec[ins[0]]:
                while rem == 1 and piece + 1 < len(outs):
                    piece += 1
                    rem = shape[outs[piece]]
                if rem % b.mesh[a]:
                    return None, err
                rem //= b.mesh[a]
                pieces[piece].append(a)
            for k, o in enumerate(outs):
                out[o] = tuple(pieces[k])
        else:  # (5) merge: a None or a partly split dim before a sharded dim is an error
            specs = [x.spec[d] for d in ins]
            last = max((k for k, e in enumerate(specs) if e), default=None)
            if last is None:
                continue
            for k in range(last):
                if not specs[k] or x.shape[ins[k]] != b.size(specs[k]):
                    return None, err
            out[outs[0]] = tuple(a for e in specs[:last + 1] for a in e)
    return tuple(out), None


def reshape(x, shape):
    b = x.b
    spec, err = reshape_rule(b, x, shape)
    val = x.val.reshape(shape)
    if err:
        if not b.fix:
            b.fail(err, f"{x.src}.reshape{tuple(shape)}")
        # out_sharding: dims that map one-to-one keep their spec, the rest replicated.
        spec = [()] * len(shape)
        for ins, outs in _groups(x.shape, shape):
            if len(ins) == 1 and len(outs) == 1:
                spec[outs[0]] = x.spec[ins[0]]
        return b.emit(f"jax.lax.reshape({x.src}, {tuple(shape)}, out_sharding={spec_src(spec)})",
                      val, spec, fixed="reshape out_sharding")
    return b.emit(f"{x.src}.reshape{tuple(shape)}", val, spec)


# ---- §4 contractions ------------------------------------------------------------------------

def contraction_rule(b, lhs, rhs, lsub, rsub, osub):
    """dot_general's rule for an einsum-style subscript: (spec in `osub` order, error)."""
    lspec = dict(zip(lsub, lhs.spec))
    rspec = dict(zip(rsub, rhs.spec))
    batch = [c for c in lsub if c in rsub and c in osub]
    contracting = [c for c in lsub if c in rsub and c not in osub]
    if [lspec[c] for c in batch] != [rspec[c] for c in batch]:
        return None, Predicted(BATCH, f"{[lspec[c] for c in batch]} vs {[rspec[c] for c in batch]}")
    for c in contracting:
        if lspec[c] and rspec[c]:
            return None, Predicted(AMBIGUOUS, f"{lspec[c]} and {rspec[c]}")
    # Result of dot_general: batch, lhs free, rhs free; einsum then transposes to `osub`.
    order = batch + [c for c in lsub if c not in rsub] + [c for c in rsub if c not in lsub]
    by = {c: (lspec[c] if c in lspec else rspec[c]) for c in order}
    spec = tuple(by[c] for c in osub)
    return spec, b.result(tuple(by[c] for c in order))


def contraction_fix(b, lhs, rhs, lsub, rsub, osub, shape):
    """A legal out_sharding; `b.variant` rotates among: the free dims' specs (axes kept at
    their first use), replicated, and the free specs plus the contracting axes scattered onto
    an unsharded result dim (a reduce-scatter)."""
    lspec = dict(zip(lsub, lhs.spec))
    rspec = dict(zip(rsub, rhs.spec))
    used, spec = set(), []
    for c in osub:
        e = lspec.get(c) or rspec.get(c) or ()
        e = () if set(e) & used else e
        used |= set(e)
        spec.append(e)
    kind = b.variant % 3
    if kind == 1:
        return (((),) * len(osub)), "replicated"
    if kind == 2:
        contracted = [a for c in lsub if c in rsub and c not in osub
                      for a in (lspec[c] + rspec[c]) if a not in used]
        for a in dict.fromkeys(contracted):
            for d, e in enumerate(spec):
                if not e and shape[d] % b.mesh[a] == 0:
                    spec[d] = (a,)
                    used.add(a)
                    break
        return tuple(spec), "scattered"
    return tuple(spec), "free dims"


def einsum(eq, lhs, rhs, call=None, out=None):
    """`out`: an explicit out_sharding (spec in the result's dim order), used as is (§4)."""
    b = lhs.b
    ins, osub = eq.split("->")
    lsub, rsub = ins.split(",")
    val = np.einsum(eq, lhs.val, rhs.val).astype(np.float32)
    call = call or f"jnp.einsum({eq!r}, {{}}, {{}}{{}})"
    if out is not None:
        return b.emit(call.format(lhs.src, rhs.src, f", out_sharding={spec_src(out)}"), val, out)
    spec, err = contraction_rule(b, lhs, rhs, lsub, rsub, osub)
    if err:
        if not b.fix:
            b.fail(err, call.format(lhs.src, rhs.src, ""))
        spec, how = contraction_fix(b, lhs, rhs, lsub, rsub, osub, val.shape)
        return b.emit(call.format(lhs.src, rhs.src, f", out_sharding={spec_src(spec)}"),
                      val, spec, fixed=f"out_sharding ({how})")
    return b.emit(call.format(lhs.src, rhs.src, ""), val, spec)


def matmul(lhs, rhs, out=None):
    assert lhs.ndim == 2 and rhs.ndim == 2
    return einsum("ij,jk->ik", lhs, rhs, call="jnp.matmul({}, {}{})", out=out)


# ---- §5 reductions and scans ----------------------------------------------------------------

def reduce(kind, x, axis=None, keepdims=False):
    axes = tuple(range(x.ndim)) if axis is None else (axis,) if isinstance(axis, int) else axis
    spec = [() if d in axes else e for d, e in enumerate(x.spec)
            if keepdims or d not in axes]
    val = getattr(np, kind)(x.val, axis=axis, keepdims=keepdims)
    if kind == "argmax":
        val = np.asarray(val).astype(np.int32)
    kw = ", keepdims=True" if keepdims else ""
    return x.b.emit(f"jnp.{kind}({x.src}, axis={axis!r}{kw})", np.asarray(val), spec)


def along(kind, x, axis, fn):
    """cumsum / sort: the operated dim must be unsharded (§5); keeps the sharding."""
    b = x.b
    if x.spec[axis]:
        if not b.fix:
            b.fail(Predicted(UNSHARDED, f"{kind} over dim {axis} of {x.spec}"),
                   f"jnp.{kind}({x.src}, axis={axis})")
        x = reshard(x, [() if d == axis else e for d, e in enumerate(x.spec)],
                    f"reshard for `{kind}`")
    return b.emit(f"jnp.{kind}({x.src}, axis={axis})", fn(x.val, axis=axis), x.spec)


def cumsum(x, axis):
    return along("cumsum", x, axis, np.cumsum)


def sort(x, axis):
    return along("sort", x, axis, np.sort)


def argmax_flat(x):
    """jnp.argmax(x) with no axis: JAX ravels first, so the reshape rule applies (§3)."""
    b = x.b
    flat, err = reshape_rule(b, x, (x.val.size,))
    val = np.asarray(np.argmax(x.val)).astype(np.int32)
    if err:
        if not b.fix:
            b.fail(err, f"jnp.argmax({x.src})")
        x = reshard(x, ((),) * x.ndim, "reshard for `argmax`")
    return b.emit(f"jnp.argmax({x.src})", val, ())
