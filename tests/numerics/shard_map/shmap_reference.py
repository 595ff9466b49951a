"""A numpy reference for jax.shard_map: every device's block is computed explicitly.

shmap_reference(mesh_shape, axis_names, body, in_specs, out_specs, *args) slices each global
argument into per-device blocks by its in_spec, runs `body` once over all devices at a time
(values are `Blocks`: one numpy array per mesh coordinate, so a collective can see every
device's block), and assembles each output from the blocks by its out_spec: named axes tile,
unnamed ones take the copy at coordinate 0 (shard_map's "replicated: one copy").

Bodies are written against `ref_lax` / `ref_jnp` (the subset of jax.lax / jax.numpy the tests
use), so one source text serves both shard and this reference.
"""
import itertools
import math

import numpy as np


def entry_axes(entry):
    if entry is None:
        return ()
    return (entry,) if isinstance(entry, str) else tuple(entry)


class Mesh:
    def __init__(self, shape, names):
        self.shape = tuple(shape)
        self.names = tuple(names)
        self.coords = list(itertools.product(*[range(n) for n in self.shape]))

    def size(self, axes):
        return math.prod(self.shape[self.names.index(a)] for a in axes)

    def index(self, coord, axes):
        """Row-major index of `coord` over `axes` (in the order given), as lax.axis_index."""
        i = 0
        for a in axes:
            k = self.names.index(a)
            i = i * self.shape[k] + coord[k]
        return i

    def group(self, coord, axes):
        """The coordinates that differ from `coord` only along `axes`, ordered by index."""
        out = []
        for c in self.coords:
            if all(c[k] == coord[k] for k, n in enumerate(self.names) if n not in axes):
                out.append(c)
        return sorted(out, key=lambda c: self.index(c, axes))


class Blocks:
    """One block per device; arithmetic applies device by device."""

    def __init__(self, mesh, blocks):
        self.mesh = mesh
        self.b = blocks  # coord -> np.ndarray

    def map(self, f, *others):
        return Blocks(self.mesh, {c: f(self.b[c], *[o.b[c] if isinstance(o, Blocks) else o for o in others])
                                  for c in self.mesh.coords})

    @property
    def shape(self):
        return next(iter(self.b.values())).shape

    def __add__(self, o): return self.map(lambda a, b: (a + b).astype(np.float32), o)
    def __radd__(self, o): return self.map(lambda a, b: (b + a).astype(np.float32), o)
    def __sub__(self, o): return self.map(lambda a, b: (a - b).astype(np.float32), o)
    def __mul__(self, o): return self.map(lambda a, b: (a * b).astype(np.float32), o)
    def __rmul__(self, o): return self.map(lambda a, b: (b * a).astype(np.float32), o)
    def reshape(self, *shape): return self.map(lambda a: a.reshape(*shape))


def _as_blocks(mesh, x):
    return x if isinstance(x, Blocks) else Blocks(mesh, {c: np.asarray(x) for c in mesh.coords})


class RefJnp:
    float32 = np.float32

    def __init__(self, mesh):
        self.mesh = mesh

    def sin(self, x): return x.map(lambda a: np.sin(a).astype(np.float32))
    def cos(self, x): return x.map(lambda a: np.cos(a).astype(np.float32))
    def dot(self, x, y): return x.map(lambda a, b: np.dot(a, b).astype(np.float32), y)
    def sum(self, x, axis=None): return x.map(lambda a: np.sum(a, axis=axis).astype(np.float32))
    def maximum(self, x, y): return _as_blocks(self.mesh, x).map(lambda a, b: np.maximum(a, b), y)


class RefLax:
    def __init__(self, mesh):
        self.mesh = mesh

    @staticmethod
    def _axes(axis_name):
        return (axis_name,) if isinstance(axis_name, str) else tuple(axis_name)

    def _reduce(self, x, axis_name, fn):
        axes = self._axes(axis_name)
        x = _as_blocks(self.mesh, x)
        out = {}
        for c in self.mesh.coords:
            out[c] = fn(np.stack([x.b[g] for g in self.mesh.group(c, axes)])).astype(x.b[c].dtype)
        return Blocks(self.mesh, out)

    def psum(self, x, axis_name): return self._reduce(x, axis_name, lambda s: s.sum(0))
    def pmax(self, x, axis_name): return self._reduce(x, axis_name, lambda s: s.max(0))
    def pmin(self, x, axis_name): return self._reduce(x, axis_name, lambda s: s.min(0))

    def pmean(self, x, axis_name):
        n = self.mesh.size(self._axes(axis_name))
        return self._reduce(x, axis_name, lambda s: s.sum(0) / n)

    def all_gather(self, x, axis_name, *, axis=0, tiled=False):
        axes = self._axes(axis_name)
        out = {}
        for c in self.mesh.coords:
            parts = [x.b[g] for g in self.mesh.group(c, axes)]
            out[c] = np.concatenate(parts, axis) if tiled else np.stack(parts, axis)
        return Blocks(self.mesh, out)

    def psum_scatter(self, x, axis_name, *, scatter_dimension=0, tiled=False):
        axes = self._axes(axis_name)
        n = self.mesh.size(axes)
        d = scatter_dimension
        if tiled:
            assert x.shape[d] % n == 0, "psum_scatter: scatter dimension not divisible"
        else:
            assert x.shape[d] == n, "psum_scatter: scatter dimension must equal the axis size"
        total = self.psum(x, axis_name)
        out = {}
        for c in self.mesh.coords:
            i = self.mesh.index(c, axes)
            piece = np.split(total.b[c], n, axis=d)[i]
            out[c] = piece if tiled else np.squeeze(piece, d)
        return Blocks(self.mesh, out)

    def ppermute(self, x, axis_name, perm):
        axes = self._axes(axis_name)
        out = {}
        for c in self.mesh.coords:
            group = self.mesh.group(c, axes)
            me = self.mesh.index(c, axes)
            src = [s for s, d in perm if d == me]
            out[c] = x.b[group[src[0]]].copy() if src else np.zeros_like(x.b[c])
        return Blocks(self.mesh, out)

    def all_to_all(self, x, axis_name, split_axis, concat_axis, *, tiled=False):
        axes = self._axes(axis_name)
        n = self.mesh.size(axes)
        out = {}
        for c in self.mesh.coords:
            group = self.mesh.group(c, axes)
            me = self.mesh.index(c, axes)
            # Device j's me-th chunk along split_axis, for every j, joined along concat_axis.
            chunks = [np.split(x.b[g], n, axis=split_axis)[me] for g in group]
            if tiled:
                out[c] = np.concatenate(chunks, concat_axis)
            else:
                chunks = [np.squeeze(ch, split_axis) for ch in chunks]
                out[c] = np.stack(chunks, concat_axis)
        return Blocks(self.mesh, out)

    def axis_index(self, axis_name):
        axes = self._axes(axis_name)
        return Blocks(self.mesh, {c: np.int32(self.mesh.index(c, axes)) for c in self.mesh.coords})

    def pvary(self, x, axis_name):
        return _as_blocks(self.mesh, x)


def slice_blocks(mesh, x, spec):
    """The block of global `x` each device gets under `spec` (in_specs)."""
    out = {}
    for c in mesh.coords:
        idx = []
        for d in range(x.ndim):
            axes = entry_axes(spec[d]) if d < len(spec) else ()
            n = mesh.size(axes)
            k = mesh.index(c, axes)
            step = x.shape[d] // n
            idx.append(slice(k * step, (k + 1) * step))
        out[c] = x[tuple(idx)]
    return Blocks(mesh, out)


def assemble(mesh, y, spec):
    """The global array of blocks `y` under `spec` (out_specs): named axes tile, others one copy."""
    local = np.asarray(y.b[mesh.coords[0]]).shape
    named = [entry_axes(spec[d]) if d < len(spec) else () for d in range(len(local))]
    gshape = tuple(local[d] * mesh.size(named[d]) for d in range(len(local)))
    out = np.zeros(gshape, dtype=np.asarray(y.b[mesh.coords[0]]).dtype)
    used = {a for axes in named for a in axes}
    for c in mesh.coords:
        if any(c[k] != 0 for k, n in enumerate(mesh.names) if n not in used):
            continue  # one copy along the unnamed axes
        idx = tuple(slice(mesh.index(c, named[d]) * local[d], (mesh.index(c, named[d]) + 1) * local[d])
                    for d in range(len(local)))
        out[idx] = y.b[c]
    return out


def shmap_reference(mesh_shape, axis_names, body, in_specs, out_specs, *args):
    mesh = Mesh(mesh_shape, axis_names)
    blocks = [slice_blocks(mesh, np.asarray(a), s) for a, s in zip(args, in_specs)]
    out = body(*blocks)
    single = not isinstance(out, tuple)
    outs = (out,) if single else out
    specs = (out_specs,) if single else out_specs
    res = [assemble(mesh, _as_blocks(mesh, o), s) for o, s in zip(outs, specs)]
    return res[0] if single else tuple(res)


def reference_namespace(mesh_shape, axis_names):
    mesh = Mesh(mesh_shape, axis_names)
    return {"lax": RefLax(mesh), "jnp": RefJnp(mesh), "np": np}
