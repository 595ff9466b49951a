#!/usr/bin/python3
"""Differential fuzzer of shard's jit pipeline (issue 19, "Keep it so").

Each case is a random small array program over shard's primitives: elementwise unary and
binary ops with broadcasting and weak Python scalars, reductions over random axes with
keepdims, reshape / transpose / slicing / concatenate / stack / flip, dot / matmul, where,
cumsum, casts; float32, int32 and bool values; shapes of up to 3 dims with size-1 and
zero-size dims. numpy evaluates the program as it is generated (each op in JAX's result
dtype), so the reference is independent of shard. Each case runs three ways in shard:
eagerly, under jax.jit, and under jax.jit with its inputs device_put on a random mesh of 2,
4 or 8 devices (Explicit or Auto axes) with random PartitionSpecs.

A case fails on a wrong value (float32: rtol 1e-5, atol 1e-5; integers and bools exact),
a dtype or shape different from JAX's (or between jit and eager), a Python exception where
numpy computed a value, a crash (a signal, exit 70 "internal error") or a hang. A
ShardingTypeError of the sharded run is a sharding rule rejecting the case: skipped.
Failing programs are saved, one standalone .shard file each, under --save-dir.

Cases are batched, dozens per shard process; a crash or hang fails the case that was
running and the batch's remaining cases run in a new process.

    /usr/bin/python3 tests/fuzz/differential_fuzz.py build/src/shard --seed 1 --cases 300
The last line is "N passed, N failed"; the line before it "N skipped". --allow-known counts
failures of the known, unfixed bugs (KNOWN_BUGS, reproducers in tests/fuzz/found/) apart.
"""
import argparse
import ast
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

FLOAT, INT, BOOL = "float32", "int32", "bool"
MAX_ELEMENTS = 512
FLOAT_BOUND = 1e6  # larger floats make float32 rounding differences grow past the tolerance
INT_BOUND = 2 ** 30  # keeps integer results away from INT_MIN // -1 and similar edge cases
BATCH_TIMEOUT_S = 120
# Each shard process gets at most this much address space: an allocation that would take the
# machine's memory fails inside shard (which should say so) instead of waking the OOM killer.
MEMORY_LIMIT_BYTES = 8 << 30


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))

# Bugs found by this fuzzer and not fixed yet: (text in every problem of a failure, reproducer).
# With --allow-known such failures are counted as "known", not failed, so a short CI run stays
# meaningful; once a bug is fixed its failures stop matching and nothing else changes.
KNOWN_BUGS = [
    # (message substring, reproducer under tests/fuzz/found/): none open. The bugs found so far
    # are fixed; their reproducers are regression goldens in tests/golden/fuzz_found/.
]


class Reject(Exception):
    """The op drawn does not fit the operand; draw another."""


class Value:
    def __init__(self, name, array):
        self.name = name
        self.array = array

    @property
    def dtype(self):
        return str(self.array.dtype)

    @property
    def shape(self):
        return self.array.shape


def checked(array, dtype, accumulates=False):
    """numpy's result in JAX's dtype, or Reject when it leaves the compared range. A sum,
    product or dot that ends non-finite is rejected: when it overflows on the way, whether the
    answer is inf or nan (inf * 0) depends on the order of accumulation."""
    array = np.asarray(array).astype(dtype)
    if accumulates and dtype == FLOAT and not np.isfinite(array).all():
        raise Reject()
    if array.size > MAX_ELEMENTS:
        raise Reject()
    if dtype == FLOAT and array.size:
        finite = array[np.isfinite(array)]
        if finite.size and np.abs(finite).max() > FLOAT_BOUND:
            raise Reject()
    if dtype == INT and array.size and np.abs(array.astype(np.int64)).max() > INT_BOUND:
        raise Reject()
    return array


class CaseBuilder:
    """Draws one program: inputs, body lines, the output value and the sharded placement."""

    def __init__(self, rng):
        self.rng = rng
        self.inputs = []
        self.pool = []
        self.lines = []
        self.counter = 0

    # ---- random pieces ----
    def choice(self, items):
        return items[self.rng.integers(len(items))]

    def random_shape(self, ndim=None):
        if ndim is None:
            ndim = int(self.choice([0, 1, 1, 2, 2, 2, 3, 3]))
        dims = [0, 1, 1, 2, 2, 3, 4, 4, 5, 6, 8]
        shape = tuple(int(self.choice(dims[1:] if self.rng.random() < 0.9 else dims)) for _ in range(ndim))
        return shape

    def new_input(self, shape, dtype):
        size = int(np.prod(shape, dtype=np.int64))
        if dtype == FLOAT:  # multiples of 1/8: sums and products stay exact in float32
            array = (self.rng.integers(-32, 33, size) / 8).astype(np.float32)
        elif dtype == INT:
            array = self.rng.integers(-20, 21, size).astype(np.int32)
        else:
            array = self.rng.random(size) < 0.5
        value = Value("x%d" % len(self.inputs), array.reshape(shape))
        self.inputs.append(value)
        self.pool.append(value)
        return value

    def fresh_name(self):
        self.counter += 1
        return "v%d" % self.counter

    def operand_like(self, shape, dtype):
        """A pool value of exactly this shape and dtype, or a new input."""
        matches = [v for v in self.pool if v.shape == shape and v.dtype == dtype]
        if matches and self.rng.random() < 0.5:
            return self.choice(matches)
        return self.new_input(shape, dtype)

    def broadcast_partner(self, value):
        """A shape that broadcasts against value's: dims replaced by 1, leading dims dropped or added."""
        shape = list(value.shape)
        if shape and self.rng.random() < 0.3:
            shape = shape[self.rng.integers(len(shape) + 1):]
        shape = [1 if self.rng.random() < 0.3 else d for d in shape]
        if len(shape) < 3 and self.rng.random() < 0.15:
            shape = [int(self.choice([1, 2, 3]))] + shape
        return tuple(shape)

    def axis_arg(self, ndim, allow_tuple=True, allow_none=True):
        options = ["int"] + (["none"] if allow_none else []) + (["tuple"] if allow_tuple and ndim > 1 else [])
        kind = self.choice(options) if ndim else ("none" if allow_none else None)
        if kind is None:
            raise Reject()
        if kind == "none":
            return None
        if kind == "int":
            axis = int(self.rng.integers(ndim))
            return axis - ndim if self.rng.random() < 0.3 else axis
        count = int(self.rng.integers(2, ndim + 1))
        axes = [int(a) for a in self.rng.permutation(ndim)[:count]]
        return tuple(a - ndim if self.rng.random() < 0.3 else a for a in axes)

    # ---- ops: each returns (expression text, numpy value in JAX's dtype) ----
    def op_unary(self, a):
        if a.dtype == FLOAT:
            bounded = a.array.size == 0 or np.nanmax(np.abs(a.array)) < 30
            names = ["negative", "abs", "square", "floor", "ceil", "round", "sign", "tanh", "sqrt", "reciprocal"]
            if bounded:
                names += ["sin", "cos", "exp", "log1p", "log", "expm1", "arctan"]
            name = self.choice(names)
            return "jnp.%s(%s)" % (name, a.name), checked(getattr(np, name)(a.array), FLOAT)
        if a.dtype == INT:
            name = self.choice(["negative", "abs", "sign", "square", "invert"])
            text = "~%s" % a.name if name == "invert" and self.rng.random() < 0.5 else "jnp.%s(%s)" % (name, a.name)
            return text, checked(getattr(np, name)(a.array), INT)
        return "jnp.logical_not(%s)" % a.name, checked(np.logical_not(a.array), BOOL)

    def op_binary(self, a):
        b = self.operand_like(self.broadcast_partner(a), a.dtype)
        lhs, rhs = (a, b) if self.rng.random() < 0.5 else (b, a)
        x, y = lhs.array, rhs.array
        comparisons = {"less": "<", "greater": ">", "equal": "==", "not_equal": "!=", "less_equal": "<=",
                       "greater_equal": ">="}
        arithmetic = {"add": "+", "subtract": "-", "multiply": "*"}
        if a.dtype == BOOL:
            name = self.choice(["logical_and", "logical_or", "logical_xor", "equal", "not_equal"])
            return "jnp.%s(%s, %s)" % (name, lhs.name, rhs.name), checked(getattr(np, name)(x, y), BOOL)
        names = list(comparisons) + list(arithmetic) + ["maximum", "minimum", "divide"]
        names += ["arctan2"] if a.dtype == FLOAT else ["floor_divide", "remainder", "bitwise_and", "bitwise_or",
                                                        "bitwise_xor"]
        name = self.choice(names)
        if name in ("floor_divide", "remainder"):  # JAX and numpy differ only for a zero divisor
            text = "jnp.%s(%s, jnp.where(%s == 0, 1, %s))" % (name, lhs.name, rhs.name, rhs.name)
            return text, checked(getattr(np, name)(x, np.where(y == 0, 1, y)), INT)
        out_dtype = BOOL if name in comparisons else (FLOAT if name == "divide" else a.dtype)
        symbol = comparisons.get(name) or arithmetic.get(name) or ("/" if name == "divide" else None)
        if symbol and self.rng.random() < 0.5:
            text = "(%s %s %s)" % (lhs.name, symbol, rhs.name)
        else:
            text = "jnp.%s(%s, %s)" % (name, lhs.name, rhs.name)
        with np.errstate(all="ignore"):
            return text, checked(getattr(np, name)(x.astype(np.float32) if name == "divide" else x, y), out_dtype)

    def op_scalar(self, a):
        """A weak Python scalar: keeps an array's dtype, except that a float makes an int array float32."""
        if a.dtype == BOOL:
            raise Reject()
        scalar = self.choice([2, -3, 0.5, 1.25]) if a.dtype == INT else self.choice([2.0, -0.5, 3, 0.25])
        symbol = self.choice(["+", "-", "*"])
        out_dtype = FLOAT if isinstance(scalar, float) or a.dtype == FLOAT else INT
        x = a.array.astype(np.float32) if out_dtype == FLOAT else a.array
        s = np.float32(scalar) if out_dtype == FLOAT else np.int32(scalar)
        result = {"+": x + s, "-": x - s, "*": x * s}[symbol]
        if self.rng.random() < 0.5:
            return "(%s %s %r)" % (a.name, symbol, scalar), checked(result, out_dtype)
        reflected = {"+": s + x, "-": s - x, "*": s * x}[symbol]
        return "(%r %s %s)" % (scalar, symbol, a.name), checked(reflected, out_dtype)

    def op_reduce(self, a):
        ndim = len(a.shape)
        keepdims = bool(self.rng.random() < 0.4)
        names = ["sum", "max", "min", "mean", "any", "all", "argmax", "argmin", "prod"]
        name = self.choice(names)
        if name in ("argmax", "argmin"):
            axis = self.axis_arg(ndim, allow_tuple=False)
        else:
            axis = self.axis_arg(ndim)
        x = a.array
        if name in ("sum", "prod"):
            out_dtype = FLOAT if a.dtype == FLOAT else INT
        elif name == "mean":
            out_dtype, x = FLOAT, x.astype(np.float32)
        elif name in ("any", "all"):
            out_dtype = BOOL
        elif name in ("argmax", "argmin"):
            out_dtype = INT
        else:
            out_dtype = a.dtype
        with np.errstate(all="ignore"):
            if name == "mean" and x.size and a.dtype != FLOAT:
                x = x.astype(np.float64)  # JAX sums ints exactly before dividing
            result = getattr(np, name)(x, axis=axis, keepdims=keepdims)
        form = self.choice(["fn", "method"]) if name not in ("argmax", "argmin") else "fn"
        args = "axis=%r" % (axis,) + (", keepdims=True" if keepdims else "")
        result = checked(result, out_dtype, accumulates=name in ("sum", "prod", "mean"))
        if form == "method":
            return "%s.%s(%s)" % (a.name, name, args), result
        return "jnp.%s(%s, %s)" % (name, a.name, args), result

    def op_cumsum(self, a):
        axis = None if not a.shape or self.rng.random() < 0.25 else int(self.rng.integers(len(a.shape)))
        out_dtype = FLOAT if a.dtype == FLOAT else INT
        return "jnp.cumsum(%s, axis=%r)" % (a.name, axis), checked(np.cumsum(a.array, axis=axis), out_dtype, accumulates=True)

    def op_reshape(self, a):
        size = a.array.size
        if size == 0:
            raise Reject()
        factors = []
        remaining = size
        for _ in range(int(self.rng.integers(0, 4))):
            divisors = [d for d in range(1, remaining + 1) if remaining % d == 0]
            d = int(self.choice(divisors))
            factors.append(d)
            remaining //= d
        factors.append(remaining)
        order = [int(i) for i in self.rng.permutation(len(factors))]
        shape = [factors[i] for i in order]
        if self.rng.random() < 0.3:
            shape[int(self.rng.integers(len(shape)))] = -1
        result = a.array.reshape(shape)
        if self.rng.random() < 0.5:
            return "jnp.reshape(%s, %r)" % (a.name, tuple(shape)), checked(result, a.dtype)
        return "%s.reshape(%r)" % (a.name, tuple(shape)), checked(result, a.dtype)

    def op_transpose(self, a):
        if len(a.shape) < 2:
            raise Reject()
        if self.rng.random() < 0.3:
            return "%s.T" % a.name, checked(a.array.T, a.dtype)
        perm = tuple(int(p) for p in self.rng.permutation(len(a.shape)))
        return "jnp.transpose(%s, %r)" % (a.name, perm), checked(np.transpose(a.array, perm), a.dtype)

    def op_slice(self, a):
        if not a.shape:
            raise Reject()
        parts = []
        for d in a.shape:
            r = self.rng.random()
            if r < 0.15 and d > 0:
                parts.append(str(int(self.rng.integers(-d, d))))
            elif r < 0.3:
                parts.append(":")
            else:
                start = self.choice(["", str(int(self.rng.integers(-d - 1, d + 2)))])
                stop = self.choice(["", str(int(self.rng.integers(-d - 1, d + 2)))])
                step = self.choice(["", "", "2", "-1", "-2", "3"])
                parts.append("%s:%s" % (start, stop) + (":" + step if step else ""))
        if self.rng.random() < 0.15:
            parts.insert(int(self.rng.integers(len(parts) + 1)), "None")
        index = ", ".join(parts)
        result = eval("a.array[%s]" % index, {"a": a})
        return "%s[%s]" % (a.name, index), checked(result, a.dtype)

    def op_concatenate(self, a):
        if not a.shape:
            raise Reject()
        axis = int(self.rng.integers(len(a.shape)))
        shape = list(a.shape)
        shape[axis] = int(self.choice([0, 1, 2, 3]))
        b = a if self.rng.random() < 0.3 else self.operand_like(tuple(shape), a.dtype)
        if self.rng.random() < 0.3 and b.shape == a.shape:
            return "jnp.stack([%s, %s], axis=%d)" % (a.name, b.name, axis), \
                checked(np.stack([a.array, b.array], axis=axis), a.dtype)
        return "jnp.concatenate([%s, %s], axis=%d)" % (a.name, b.name, axis), \
            checked(np.concatenate([a.array, b.array], axis=axis), a.dtype)

    def op_reshape_dims(self, a):
        kind = self.choice(["expand_dims", "squeeze", "flip", "broadcast_to"])
        if kind == "expand_dims":
            axis = int(self.rng.integers(len(a.shape) + 1))
            return "jnp.expand_dims(%s, %d)" % (a.name, axis), checked(np.expand_dims(a.array, axis), a.dtype)
        if kind == "squeeze":
            ones = [i for i, d in enumerate(a.shape) if d == 1]
            if not ones:
                raise Reject()
            axis = int(self.choice(ones))
            return "jnp.squeeze(%s, axis=%d)" % (a.name, axis), checked(np.squeeze(a.array, axis=axis), a.dtype)
        if kind == "flip":
            axis = self.axis_arg(len(a.shape))
            return "jnp.flip(%s, axis=%r)" % (a.name, axis), checked(np.flip(a.array, axis=axis), a.dtype)
        shape = tuple(int(self.choice([2, 3])) if d == 1 else d for d in a.shape)
        if len(shape) < 3:
            shape = (int(self.choice([1, 2])),) + shape
        return "jnp.broadcast_to(%s, %r)" % (a.name, shape), checked(np.broadcast_to(a.array, shape), a.dtype)

    def op_matmul(self, a):
        if a.dtype == BOOL or not a.shape:
            raise Reject()
        k = a.shape[-1]
        n = int(self.choice([1, 2, 3, 4]))
        if len(a.shape) >= 3 and self.rng.random() < 0.5:
            b_shape = a.shape[:-2] + (k, n)
        else:
            b_shape = self.choice([(k,), (k, n)])
        b = self.operand_like(b_shape, a.dtype)
        form = self.choice(["@", "matmul"] + (["dot"] if len(a.shape) <= 2 and len(b_shape) <= 2 else []))
        result = np.matmul(a.array, b.array) if form != "dot" else np.dot(a.array, b.array)
        text = "(%s @ %s)" % (a.name, b.name) if form == "@" else "jnp.%s(%s, %s)" % (form, a.name, b.name)
        return text, checked(result, a.dtype, accumulates=True)

    def op_where(self, a):
        b = self.operand_like(self.broadcast_partner(a), a.dtype)
        if a.dtype == BOOL:
            cond_text, cond = a.name, a.array
        else:
            cond_text, cond = "%s > 0" % a.name, a.array > 0
        if self.rng.random() < 0.5:
            return "jnp.where(%s, %s, %s)" % (cond_text, a.name, b.name), checked(np.where(cond, a.array, b.array), a.dtype)
        return "jnp.where(%s, %s, %s)" % (cond_text, b.name, a.name), checked(np.where(cond, b.array, a.array), a.dtype)

    def op_astype(self, a):
        targets = {FLOAT: [BOOL, INT], INT: [FLOAT, BOOL], BOOL: [INT, FLOAT]}[a.dtype]
        target = self.choice(targets)
        if a.dtype == FLOAT and target == INT and a.array.size and not np.isfinite(a.array).all():
            raise Reject()  # nan and inf to int32 is implementation-defined
        form = self.choice(["%s.astype(jnp.%s)", "jnp.asarray(%s, dtype=jnp.%s)"])
        return form % (a.name, target), checked(a.array.astype(target), target)

    OPS = [("op_unary", 3), ("op_binary", 4), ("op_scalar", 1), ("op_reduce", 3), ("op_cumsum", 1),
           ("op_reshape", 2), ("op_transpose", 1), ("op_slice", 2), ("op_concatenate", 1),
           ("op_reshape_dims", 1), ("op_matmul", 2), ("op_where", 1), ("op_astype", 1)]

    def build(self):
        first = self.new_input(self.random_shape(), self.choice([FLOAT, FLOAT, INT, INT, BOOL]))
        names = [n for n, w in self.OPS for _ in range(w)]
        last = first
        for _ in range(int(self.rng.integers(1, 6))):
            for _attempt in range(20):
                operand = last if self.rng.random() < 0.7 else self.choice(self.pool)
                try:
                    with warnings.catch_warnings(), np.errstate(all="ignore"):
                        warnings.simplefilter("ignore")
                        text, array = getattr(self, self.choice(names))(operand)
                except (Reject, ValueError, IndexError, TypeError):
                    continue
                value = Value(self.fresh_name(), array)
                self.lines.append("%s = %s" % (value.name, text))
                self.pool.append(value)
                last = value
                break
        return last

    def placement(self, mesh_shape, axis_types):
        """A PartitionSpec per input: dims sharded over unused mesh axes whose size divides them
        (two axes on one dim only when their types agree, as JAX requires)."""
        names = ["x", "y", "z"][:len(mesh_shape)]
        specs = []
        for value in self.inputs:
            unused = list(range(len(names)))
            entries = []
            for d in value.shape:
                options = [i for i in unused if d % mesh_shape[i] == 0]
                if options and self.rng.random() < 0.6:
                    i = int(self.choice(options))
                    unused.remove(i)
                    pair = [j for j in unused if d % (mesh_shape[i] * mesh_shape[j]) == 0
                            and axis_types[i] == axis_types[j]]
                    if pair and self.rng.random() < 0.2:
                        j = int(self.choice(pair))
                        unused.remove(j)
                        entries.append("(%r, %r)" % (names[i], names[j]))
                    else:
                        entries.append(repr(names[i]))
                else:
                    entries.append("None")
            while entries and entries[-1] == "None" and self.rng.random() < 0.5:
                entries.pop()
            specs.append("P(%s)" % ", ".join(entries))
        return specs


MESHES = [(2,), (4,), (8,), (2, 2), (2, 4), (4, 2), (2, 2, 2)]


class Case:
    def __init__(self, seed, index):
        rng = np.random.default_rng([seed, index])
        builder = CaseBuilder(rng)
        self.index = index
        self.output = builder.build()
        self.inputs = builder.inputs
        self.lines = builder.lines
        self.mesh_shape = MESHES[rng.integers(len(MESHES))]
        self.axis_types = tuple(str(builder.choice(["Explicit", "Auto"])) for _ in self.mesh_shape)
        self.specs = builder.placement(self.mesh_shape, self.axis_types)

    def source(self):
        """The case as shard code: a function, its inputs and the three runs."""
        params = ", ".join(v.name for v in self.inputs)
        body = "".join("    %s\n" % line for line in self.lines)
        out = []
        out.append("def case_%d(%s):\n%s    return %s\n" % (self.index, params, body, self.output.name))
        inputs = []
        for v in self.inputs:
            inputs.append("jnp.asarray(np.array(%r, dtype=%r).reshape(%r))" % (v.array.ravel().tolist(), v.dtype, v.shape))
        names = ["x", "y", "z"][:len(self.mesh_shape)]
        mesh = "jax.make_mesh(%r, %r, axis_types=(%s,))" % (
            self.mesh_shape, tuple(names), ", ".join("AxisType." + t for t in self.axis_types))
        out.append("_run(%d, case_%d, [%s], lambda: %s, [%s])\n" % (
            self.index, self.index, ", ".join(inputs), mesh, ", ".join(self.specs)))
        return "".join(out)


PRELUDE = '''import jax, jax.numpy as jnp, numpy as np
from jax.sharding import PartitionSpec as P, NamedSharding, AxisType


def _emit(cid, mode, r):
    a = np.asarray(r)
    print("R\\t%d\\t%s\\t%s\\t%r\\t%r" % (cid, mode, a.dtype, a.shape, a.ravel().tolist()), flush=True)


def _fail(cid, mode, e):
    print("E\\t%d\\t%s\\t%s\\t%s" % (cid, mode, type(e).__name__, str(e).replace("\\n", " ")[:400]), flush=True)


def _run(cid, f, inputs, make_mesh, specs):
    print("S\\t%d" % cid, flush=True)
    try:
        _emit(cid, "eager", f(*inputs))
    except Exception as e:
        _fail(cid, "eager", e)
    try:
        _emit(cid, "jit", jax.jit(f)(*inputs))
    except Exception as e:
        _fail(cid, "jit", e)
    try:
        mesh = make_mesh()
        with jax.sharding.use_mesh(mesh):
            placed = [jax.device_put(x, NamedSharding(mesh, s)) for x, s in zip(inputs, specs)]
            _emit(cid, "sharded", jax.jit(f)(*placed))
    except Exception as e:
        _fail(cid, "sharded", e)


'''


def parse_values(text):
    return eval(text, {"__builtins__": {}, "nan": math.nan, "inf": math.inf})


def parse_output(stdout):
    """{case: {mode: ("R", dtype, shape, values) | ("E", type, message)}} and the cases started."""
    results, started = {}, []
    for line in stdout.splitlines():
        fields = line.split("\t")
        if fields[0] == "S" and len(fields) == 2:
            started.append(int(fields[1]))
        elif fields[0] == "R" and len(fields) == 6:
            results.setdefault(int(fields[1]), {})[fields[2]] = (
                "R", fields[3], ast.literal_eval(fields[4]), parse_values(fields[5]))
        elif fields[0] == "E" and len(fields) >= 4:
            results.setdefault(int(fields[1]), {})[fields[2]] = ("E", fields[3], "\t".join(fields[4:]))
    return results, started


def same_values(dtype, got, want):
    got = np.asarray(got, dtype=np.float64 if dtype == FLOAT else None)
    want = np.asarray(want, dtype=np.float64 if dtype == FLOAT else None)
    if got.shape != want.shape:
        return False
    if dtype == FLOAT:
        return bool(np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True))
    return bool(np.array_equal(got, want))


def judge(case, runs):
    """'pass', 'skip' or a failure description."""
    want = case.output.array
    want_dtype, want_shape = str(want.dtype), want.shape
    problems = []
    skipped = False
    for mode in ("eager", "jit", "sharded"):
        run = runs.get(mode)
        if run is None:
            problems.append("%s: no result" % mode)
            continue
        if run[0] == "E":
            if mode == "sharded" and run[1] == "ShardingTypeError":
                skipped = True
            else:
                problems.append("%s raised %s: %s" % (mode, run[1], run[2]))
            continue
        _, dtype, shape, values = run
        if dtype != want_dtype or tuple(shape) != want_shape:
            problems.append("%s: type %s%s, JAX's is %s%s" % (mode, dtype, list(shape), want_dtype, list(want_shape)))
        elif not same_values(want_dtype, values, want.ravel().tolist()):
            problems.append("%s: values %r, numpy's %r" % (mode, values[:16], want.ravel().tolist()[:16]))
    eager, jitted = runs.get("eager"), runs.get("jit")
    if eager and jitted and eager[0] == "R" and jitted[0] == "R":
        if eager[1:3] != jitted[1:3]:
            problems.append("jit type %s%s differs from eager %s%s" % (jitted[1], jitted[2], eager[1], eager[2]))
        elif not same_values(eager[1], jitted[3], eager[3]):
            problems.append("jit values differ from eager")
    if problems:
        return "; ".join(problems)
    return "skip" if skipped else "pass"


def run_batch(shard, cases, workdir, batch_id):
    """Runs cases in as many processes as crashes need; yields (case, verdict)."""
    pending = list(cases)
    attempt = 0
    while pending:
        attempt += 1
        path = os.path.join(workdir, "batch_%d_%d.shard" % (batch_id, attempt))
        with open(path, "w") as f:
            f.write(PRELUDE + "\n".join(c.source() for c in pending))
        try:
            proc = subprocess.run([shard, path], capture_output=True, text=True, timeout=BATCH_TIMEOUT_S,
                                  preexec_fn=limit_memory)
            stdout, status, hung = proc.stdout, proc.returncode, False
            stderr = proc.stderr
        except subprocess.TimeoutExpired as e:
            stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            stderr, status, hung = "", None, True
        results, started = parse_output(stdout)
        finished_all = not hung and status == 0
        by_index = {c.index: c for c in pending}
        last_started = started[-1] if started else None
        done = set()
        for index in started:
            case = by_index[index]
            if index == last_started and not finished_all:
                why = "hang (no exit in %d s)" % BATCH_TIMEOUT_S if hung else "exit status %s: %s" % (
                    status, stderr.strip()[-600:])
                yield case, "crash while running: " + why
            else:
                yield case, judge(case, results.get(index, {}))
            done.add(index)
        if finished_all:
            for case in pending:
                if case.index not in done:
                    yield case, "never ran"
            return
        if not started:  # the process died before its first case: the prelude itself failed
            for case in pending:
                yield case, "process failed before the first case: status %s: %s" % (status, stderr.strip()[-600:])
            return
        pending = [c for c in pending if c.index not in done]


def known_bug(verdict):
    """The reproducer of the known bug every problem of this failure shows, or None."""
    problems = verdict.split("; ")
    for text, reproducer in KNOWN_BUGS:
        if all(text in problem for problem in problems):
            return reproducer
    return None


def save_case(save_dir, seed, case, verdict):
    os.makedirs(save_dir, exist_ok=True)
    path = os.path.join(save_dir, "diff_seed%d_case%d.shard" % (seed, case.index))
    header = "# differential_fuzz.py --seed %d: case %d failed:\n" % (seed, case.index)
    header += "".join("#   %s\n" % line for line in verdict[:2000].split("; "))
    header += "# numpy's result: %s%s %r\n" % (case.output.dtype, list(case.output.shape),
                                               case.output.array.ravel().tolist()[:32])
    with open(path, "w") as f:
        f.write(header + PRELUDE + case.source())
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("shard", help="the shard executable")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--time-limit", type=float, default=None, help="stop starting batches after S seconds")
    parser.add_argument("--save-dir", default=None, help="where failing programs are saved")
    parser.add_argument("--batch", type=int, default=40, help="cases per shard process")
    parser.add_argument("--allow-known", action="store_true",
                        help="count failures of the bugs in KNOWN_BUGS (tests/fuzz/found/) as known, not failed")
    args = parser.parse_args()
    shard = os.path.realpath(args.shard)
    start = time.monotonic()
    counts = {"pass": 0, "skip": 0, "fail": 0, "known": 0}
    with tempfile.TemporaryDirectory() as workdir:
        for batch_id, first in enumerate(range(0, args.cases, args.batch)):
            if args.time_limit is not None and time.monotonic() - start > args.time_limit:
                break
            cases = [Case(args.seed, i) for i in range(first, min(first + args.batch, args.cases))]
            for case, verdict in run_batch(shard, cases, workdir, batch_id):
                if verdict in ("pass", "skip"):
                    counts[verdict] += 1
                    continue
                if args.allow_known and known_bug(verdict):
                    counts["known"] += 1
                    continue
                counts["fail"] += 1
                saved = save_case(args.save_dir, args.seed, case, verdict) if args.save_dir else None
                print("FAIL case %d: %s%s" % (case.index, verdict[:1500], "\n     saved " + saved if saved else ""))
    ran = sum(counts.values())
    print("%d cases in %.1f s (seed %d)" % (ran, time.monotonic() - start, args.seed))
    print("%d skipped (a sharding rule rejected the sharded run)" % counts["skip"])
    if args.allow_known:
        print("%d known (failures of the bugs in tests/fuzz/found/)" % counts["known"])
    print("%d passed, %d failed" % (counts["pass"], counts["fail"]))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
