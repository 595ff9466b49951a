#!/usr/bin/python3
"""API-level fuzzer of shard (issue 19, "Keep it so").

Each case is one call of jax.numpy, jax.lax, jax's sharding API or jit with hostile arguments:
huge, zero and negative shapes, axes that are None, out of range or duplicated, wrong and
unsupported dtypes, bad PartitionSpecs, meshes of odd sizes, wrong argument types. Cases run
in random sequences, dozens per shard process, each in try/except: a Python exception is the
expected answer. A failure is only a crash: a signal, exit status 70 ("internal error"), an
exception that escapes try/except, an "internal error" raised as an exception, or a hang.
The failing case's program (the sequence up to and including it, as state may matter) is
saved under --save-dir.

    /usr/bin/python3 tests/fuzz/api_fuzz.py build/src/shard --seed 1 --cases 500
The last line is "N passed, N failed"; --allow-known counts failures of the known, unfixed bugs
(KNOWN_BUGS, reproducers in tests/fuzz/found/) apart.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

BATCH_TIMEOUT_S = 120
# Each shard process gets at most this much address space: an allocation that would take the
# machine's memory fails inside shard (which should say so) instead of waking the OOM killer.
MEMORY_LIMIT_BYTES = 8 << 30

# Bugs found by this fuzzer and not fixed yet: (text of the failure, reproducer). With
# --allow-known their failures are counted as "known", not failed (see differential_fuzz.py).
KNOWN_BUGS = [
    # (message substring, reproducer under tests/fuzz/found/): none open. The bugs found so far
    # are fixed; their reproducers are regression goldens in tests/golden/fuzz_found/.
]


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))

PRELUDE = '''import jax, jax.numpy as jnp, numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P, NamedSharding, AxisType

a_f = jnp.arange(6.0).reshape(2, 3)
a_i = jnp.arange(8, dtype=jnp.int32).reshape(2, 2, 2)
a_b = jnp.array([True, False, True, True])
a_e = jnp.zeros((0, 3))
a_s = jnp.float32(2.5)
a_h = jnp.ones((4, 4), jnp.float16)
a_n = np.arange(12.0).reshape(3, 4)
m_2 = jax.make_mesh((2,), ('x',))
m_22 = jax.make_mesh((2, 2), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Explicit))
m_42 = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto, AxisType.Explicit))


def _call(cid, fn):
    print("S\\t%d" % cid, flush=True)
    try:
        r = fn()
        text = repr(r)
    except Exception as e:
        text = "%s: %s" % (type(e).__name__, e)
        if "internal error" in text:
            print("I\\t%d\\t%s" % (cid, text.replace("\\n", " ")[:400]), flush=True)


def _in_mesh(mesh, fn):
    with jax.sharding.use_mesh(mesh):
        return fn()


'''

ARRAYS = ["a_f", "a_i", "a_b", "a_e", "a_s", "a_h", "a_n"]
MESHES = ["m_2", "m_22", "m_42"]
SHAPES = ["()", "(0,)", "(3,)", "(2, 3)", "(-1,)", "(-3, 2)", "(2**31,)", "(2**40, 2**40)", "(2**62, 8)",
          "(10**12,)", "(0, 10**9)", "(1,) * 40", "(1,) * 70", "3.5", "'abc'", "None", "[2, 3]", "(2, None)",
          "(6,)", "(3, 2)", "(2, -1)", "(-1, -1)", "(True, 2)", "(2.0, 3)", "7", "-1", "(0, -1)", "(6, 0)"]
AXES = ["None", "0", "1", "-1", "2", "5", "-7", "(0, 0)", "(0, 1)", "(1, -1)", "'x'", "1.5", "[0]", "()",
        "(0, 1, 2, 3)", "2**40", "True", "(None,)"]
DTYPES = ["jnp.float32", "jnp.int32", "jnp.bool_", "jnp.float16", "jnp.bfloat16", "jnp.uint8", "jnp.int8",
          "jnp.complex64", "'float64'", "'foo'", "None", "int", "float", "object", "str", "jnp.uint32",
          "np.dtype('V8')", "jnp.int64", "'<U3'"]
SCALARS = ["0", "-1", "2**63", "-2**70", "float('nan')", "float('inf')", "True", "None", "'s'", "[1, [2]]",
           "()", "1e308", "3.5", "[]", "[[1, 2], [3]]", "{}", "b'x'"]
SPECS = ["P()", "P('x')", "P('y')", "P('nope')", "P('x', 'x')", "P(('x', 'x'))", "P(None, 'x', 'y', 'x')",
         "P(('x', 'y'))", "P('x', 'y')", "P(None, None, None, None, 'x')", "P(0)", "P(P.UNCONSTRAINED)",
         "P(('y', 'x'), None)", "None", "'x'", "P(['x'])", "P('x', None, None)"]
MESH_SHAPES = ["(3,)", "(0,)", "(-2,)", "(16,)", "(2, 3)", "(1, 1, 1, 1, 1)", "(8,)", "(2, 4)", "(1024,)",
               "(5,)", "()", "(2.0,)", "('2',)", "(2**40,)"]
MESH_NAMES = ["('x',)", "('x', 'y')", "('x', 'x')", "()", "('x', 'y', 'z', 'w', 'v')", "(1,)", "'x'",
              "('',)", "None"]
AXIS_TYPES = ["None", "(AxisType.Explicit,)", "(AxisType.Auto, AxisType.Explicit)", "(AxisType.Manual,)",
              "('Explicit',)", "()", "(AxisType.Explicit,) * 5"]


class CallMaker:
    def __init__(self, rng):
        self.rng = rng

    def pick(self, items):
        return items[self.rng.integers(len(items))]

    def arr(self):
        return self.pick(ARRAYS) if self.rng.random() < 0.85 else "(%s)" % self.pick(SCALARS)

    def shape(self):
        return self.pick(SHAPES)

    def axis(self):
        return self.pick(AXES)

    def dtype(self):
        return self.pick(DTYPES)

    def creation(self):
        fn = self.pick(["zeros", "ones", "empty", "full", "arange", "linspace", "eye", "identity", "iota",
                        "array", "asarray", "full_like", "zeros_like", "broadcast_to", "tri"])
        if fn in ("zeros", "ones", "empty"):
            return "jnp.%s(%s, dtype=%s)" % (fn, self.shape(), self.dtype())
        if fn == "full":
            return "jnp.full(%s, %s, dtype=%s)" % (self.shape(), self.pick(SCALARS), self.dtype())
        if fn == "arange":
            return "jnp.arange(%s, %s, %s, dtype=%s)" % (self.pick(SCALARS), self.pick(["10", "-5", "2**40", "None"]),
                                                         self.pick(["0", "1", "-1", "0.0", "1e-30", "None"]),
                                                         self.dtype())
        if fn == "linspace":
            return "jnp.linspace(0, 1, num=%s, endpoint=%s)" % (self.pick(["-1", "0", "1", "2**40", "3.5", "None"]),
                                                               self.pick(["True", "False", "None"]))
        if fn == "eye":
            return "jnp.eye(%s, %s, k=%s, dtype=%s)" % (self.pick(["0", "-1", "3", "2**31", "2.5"]),
                                                       self.pick(["None", "0", "-2", "4"]),
                                                       self.pick(["0", "5", "-5", "2**40"]), self.dtype())
        if fn == "identity":
            return "jnp.identity(%s, dtype=%s)" % (self.pick(["0", "-1", "3", "2**33"]), self.dtype())
        if fn == "iota":
            return "lax.iota(%s, %s)" % (self.dtype(), self.pick(["0", "-1", "3", "2**40", "2.5"]))
        if fn in ("array", "asarray"):
            return "jnp.%s(%s, dtype=%s)" % (fn, self.pick(SCALARS), self.dtype())
        if fn == "full_like":
            return "jnp.full_like(%s, %s, shape=%s)" % (self.arr(), self.pick(SCALARS), self.shape())
        if fn == "zeros_like":
            return "jnp.zeros_like(%s, dtype=%s, shape=%s)" % (self.arr(), self.dtype(), self.shape())
        if fn == "tri":
            return "jnp.tri(%s, %s, %s)" % (self.pick(["0", "-1", "3"]), self.pick(["None", "-3", "2"]),
                                           self.pick(["0", "-9", "9"]))
        return "jnp.broadcast_to(%s, %s)" % (self.arr(), self.shape())

    def shape_op(self):
        fn = self.pick(["reshape", "transpose", "squeeze", "expand_dims", "concatenate", "stack", "split",
                        "tile", "repeat", "pad", "take", "moveaxis", "swapaxes", "flip", "roll", "ravel",
                        "index", "astype", "lax_slice", "lax_dynamic_slice", "lax_broadcast_in_dim",
                        "lax_reshape", "lax_transpose", "lax_pad", "lax_rev", "lax_concatenate",
                        "lax_convert", "lax_squeeze", "lax_dynamic_update_slice"])
        a = self.arr()
        if fn == "reshape":
            return "jnp.reshape(%s, %s)" % (a, self.shape())
        if fn == "transpose":
            return "jnp.transpose(%s, %s)" % (a, self.pick(["None", "(1, 0)", "(0, 0)", "(2, 1, 0)", "(5,)", "()"]))
        if fn in ("squeeze", "expand_dims", "flip", "ravel"):
            return "jnp.%s(%s, %s)" % (fn, a, self.axis()) if fn != "ravel" else "jnp.ravel(%s, order=%s)" % (
                a, self.pick(["'C'", "'F'", "'K'", "'Z'", "None"]))
        if fn in ("concatenate", "stack"):
            return "jnp.%s([%s, %s], axis=%s)" % (fn, a, self.arr(), self.axis())
        if fn == "split":
            return "jnp.split(%s, %s, axis=%s)" % (a, self.pick(["0", "-1", "3", "[1, 0]", "[5, 1]", "2**40"]),
                                                 self.axis())
        if fn == "tile":
            return "jnp.tile(%s, %s)" % (a, self.pick(["0", "-1", "(2**31, 2**31)", "(2, 3)", "()"]))
        if fn == "repeat":
            return "jnp.repeat(%s, %s, axis=%s)" % (a, self.pick(["0", "-1", "2**40", "[1, 2]", "3"]), self.axis())
        if fn == "pad":
            return "jnp.pad(%s, %s, mode=%s)" % (a, self.pick(["1", "-1", "((1, 2),)", "((-5, 0), (0, 0))",
                                                             "2**40", "((1, 1), (1, 1), (1, 1))"]),
                                               self.pick(["'constant'", "'reflect'", "'wrap'", "'edge'", "'nope'"]))
        if fn == "take":
            return "jnp.take(%s, %s, axis=%s, mode=%s)" % (a, self.pick(["0", "-100", "2**40", "jnp.array([5, -9])",
                                                                        "a_f", "a_b"]), self.axis(),
                                                         self.pick(["None", "'clip'", "'wrap'", "'fill'", "'raise'",
                                                                    "'bad'"]))
        if fn == "moveaxis":
            return "jnp.moveaxis(%s, %s, %s)" % (a, self.axis(), self.axis())
        if fn == "swapaxes":
            return "jnp.swapaxes(%s, %s, %s)" % (a, self.axis(), self.axis())
        if fn == "roll":
            return "jnp.roll(%s, %s, axis=%s)" % (a, self.pick(["0", "-2**40", "3", "(1, 2)"]), self.axis())
        if fn == "index":
            index = self.pick(["5", "-9", "2**40", "(0, 0, 0, 0)", "...,...", "None, None", "::0", "1.5", "'x'",
                               "[0, 5]", "a_b", "jnp.array([True])", "(slice(None), 7)", "::-2**40", "-2**63:"])
            return "%s[%s]" % (a, index)
        if fn == "astype":
            return "%s.astype(%s)" % (a, self.dtype())
        if fn == "lax_slice":
            return "lax.slice(%s, %s, %s, %s)" % (a, self.pick(["(0, 0)", "(-1, 0)", "(3, 0)", "(0,)", "()"]),
                                                self.pick(["(2, 3)", "(1, 9)", "(0, 0)", "(2**40, 1)", "()"]),
                                                self.pick(["None", "(1, 1)", "(0, 1)", "(-1, 1)", "(1,)"]))
        if fn == "lax_dynamic_slice":
            return "lax.dynamic_slice(%s, %s, %s)" % (a, self.pick(["(0, 0)", "(-5, 9)", "(0,)", "(2**40, 0)"]),
                                                     self.pick(["(1, 1)", "(3, 9)", "(-1, 1)", "(0, 0)", "(1,)"]))
        if fn == "lax_dynamic_update_slice":
            return "lax.dynamic_update_slice(%s, %s, %s)" % (a, self.arr(), self.pick(["(0, 0)", "(9, -9)", "(0,)"]))
        if fn == "lax_broadcast_in_dim":
            return "lax.broadcast_in_dim(%s, %s, %s)" % (a, self.shape(), self.pick(["(0, 1)", "(1, 0)", "(0, 0)",
                                                                                    "(5,)", "()", "(-1, 0)"]))
        if fn == "lax_reshape":
            return "lax.reshape(%s, %s, dimensions=%s)" % (a, self.shape(), self.pick(["None", "(1, 0)", "(0, 0)"]))
        if fn == "lax_transpose":
            return "lax.transpose(%s, %s)" % (a, self.pick(["(1, 0)", "(0, 0)", "(0,)", "(2, 0, 1)", "(-1, 0)"]))
        if fn == "lax_pad":
            return "lax.pad(%s, %s, %s)" % (a, self.pick(["0.0", "jnp.int32(0)", "a_f", "None"]),
                                           self.pick(["((0, 0, 0), (0, 0, 0))", "((-3, -3, 0), (1, 1, 1))",
                                                      "((0, 0, -1), (0, 0, 0))", "((2**40, 0, 0), (0, 0, 0))",
                                                      "()", "((1, 1, 2**31), (0, 0, 0))"]))
        if fn == "lax_rev":
            return "lax.rev(%s, %s)" % (a, self.pick(["(0,)", "(0, 0)", "(5,)", "()", "(-1,)"]))
        if fn == "lax_concatenate":
            return "lax.concatenate([%s, %s], %s)" % (a, self.arr(), self.pick(["0", "1", "-1", "9"]))
        if fn == "lax_squeeze":
            return "lax.squeeze(%s, %s)" % (a, self.pick(["(0,)", "(0, 0)", "(9,)", "()"]))
        return "lax.convert_element_type(%s, %s)" % (a, self.dtype())

    def math_op(self):
        fn = self.pick(["sum", "max", "argmax", "mean", "var", "cumsum", "sort", "argsort", "dot", "matmul",
                        "einsum", "where", "clip", "elementwise", "dot_general", "reduce", "top_k", "cumprod",
                        "percentile", "unique", "bincount", "searchsorted", "lax_argmax", "conv"])
        a = self.arr()
        if fn in ("sum", "max", "mean", "var"):
            return "jnp.%s(%s, axis=%s, keepdims=%s)" % (fn, a, self.axis(), self.pick(["True", "False", "2", "None"]))
        if fn == "argmax":
            return "jnp.argmax(%s, axis=%s, keepdims=%s)" % (a, self.axis(), self.pick(["True", "False"]))
        if fn in ("cumsum", "cumprod", "sort", "argsort"):
            return "jnp.%s(%s, axis=%s)" % (fn, a, self.axis())
        if fn in ("dot", "matmul"):
            return "jnp.%s(%s, %s)" % (fn, a, self.arr())
        if fn == "einsum":
            return "jnp.einsum(%s, %s, %s)" % (self.pick(["'ij,jk->ik'", "'ii->i'", "'i->j'", "'...,...->'",
                                                          "'ij->'", "''", "'ab,bc,cd'", "'a->aa'"]), a, self.arr())
        if fn == "where":
            return "jnp.where(%s, %s, %s)" % (a, self.arr(), self.arr())
        if fn == "clip":
            return "jnp.clip(%s, %s, %s)" % (a, self.pick(SCALARS), self.pick(SCALARS))
        if fn == "elementwise":
            name = self.pick(["add", "subtract", "divide", "floor_divide", "remainder", "power", "left_shift",
                              "bitwise_and", "arctan2", "logaddexp", "nextafter", "hypot", "ldexp", "gcd"])
            return "jnp.%s(%s, %s)" % (name, a, self.arr())
        if fn == "dot_general":
            return "lax.dot_general(%s, %s, %s)" % (a, self.arr(), self.pick(
                ["(((1,), (0,)), ((), ()))", "(((0,), (0,)), ((0,), (0,)))", "(((5,), (0,)), ((), ()))",
                 "(((0, 0), (0, 1)), ((), ()))", "((), ())", "(((1,), (1,)), ((0,), (1,)))"]))
        if fn == "reduce":
            return "lax.reduce(%s, %s, lax.add, %s)" % (a, self.pick(["0.0", "0", "a_f", "None"]),
                                                       self.pick(["(0,)", "(0, 0)", "(9,)", "()"]))
        if fn == "top_k":
            return "lax.top_k(%s, %s)" % (a, self.pick(["0", "-1", "1", "99", "2**40"]))
        if fn == "percentile":
            return "jnp.percentile(%s, %s, axis=%s)" % (a, self.pick(["50", "-1", "101", "float('nan')", "a_f"]),
                                                       self.axis())
        if fn == "unique":
            return "jnp.unique(%s, size=%s)" % (a, self.pick(["None", "0", "-1", "2**31", "3"]))
        if fn == "bincount":
            return "jnp.bincount(%s, length=%s)" % (a, self.pick(["None", "0", "-1", "2**40", "5"]))
        if fn == "searchsorted":
            return "jnp.searchsorted(%s, %s, side=%s)" % (a, self.arr(), self.pick(["'left'", "'right'", "'mid'"]))
        if fn == "lax_argmax":
            return "lax.argmax(%s, %s, %s)" % (a, self.pick(["0", "1", "-1", "9"]), self.dtype())
        return "lax.conv(%s, %s, %s, %s)" % (a, self.arr(), self.pick(["(1, 1)", "(0, 0)", "(-1,)", "()"]),
                                            self.pick(["'SAME'", "'VALID'", "'BAD'", "((0, 0), (0, 0))"]))

    def mesh(self):
        if self.rng.random() < 0.5:
            return self.pick(MESHES)
        kind = self.pick(["make_mesh", "Mesh", "AbstractMesh"])
        if kind == "make_mesh":
            return "jax.make_mesh(%s, %s, axis_types=%s)" % (self.pick(MESH_SHAPES), self.pick(MESH_NAMES),
                                                             self.pick(AXIS_TYPES))
        if kind == "Mesh":
            return "jax.sharding.Mesh(np.array(jax.devices()%s).reshape(%s), %s)" % (
                self.pick(["", "[:3]", "[:0]", "[::-1]", " * 2"]), self.pick(MESH_SHAPES), self.pick(MESH_NAMES))
        return "jax.sharding.AbstractMesh(%s, %s)" % (self.pick(MESH_SHAPES), self.pick(MESH_NAMES))

    def sharding_op(self):
        fn = self.pick(["mesh", "device_put", "device_put", "named", "jit_shardings", "constraint", "reshard",
                        "shard_map", "psum", "typeof", "make_array", "axis_index", "use_mesh_jit"])
        a = self.arr()
        if fn == "mesh":
            return self.mesh()
        if fn == "device_put":
            return "_in_mesh(%s, lambda: jax.device_put(%s, %s))" % (self.pick(MESHES), a, self.pick(SPECS)) \
                if self.rng.random() < 0.5 else "jax.device_put(%s, NamedSharding(%s, %s))" % (a, self.mesh(),
                                                                                              self.pick(SPECS))
        if fn == "named":
            return "NamedSharding(%s, %s)" % (self.mesh(), self.pick(SPECS))
        if fn == "jit_shardings":
            return "jax.jit(lambda v: v * 2, in_shardings=%s, out_shardings=%s)(%s)" % (
                self.pick(["None", "NamedSharding(m_2, P('x'))", "NamedSharding(m_22, P('y', 'x'))", "P('x')",
                           "(None, None)", "3"]),
                self.pick(["None", "NamedSharding(m_2, P())", "NamedSharding(m_42, P(('x', 'y')))", "'bad'"]), a)
        if fn == "constraint":
            return "_in_mesh(%s, lambda: jax.jit(lambda v: lax.with_sharding_constraint(v, %s))(%s))" % (
                self.pick(MESHES), self.pick(SPECS), a)
        if fn == "reshard":
            return "_in_mesh(%s, lambda: jax.sharding.reshard(jax.device_put(%s, %s), %s))" % (
                self.pick(MESHES), a, self.pick(SPECS), self.pick(SPECS))
        if fn == "shard_map":
            return "jax.shard_map(lambda v: %s, mesh=%s, in_specs=%s, out_specs=%s)(%s)" % (
                self.pick(["v", "lax.psum(v, 'x')", "lax.all_gather(v, 'x')", "lax.psum(v, 'nope')",
                           "lax.ppermute(v, 'x', [(0, 1), (0, 1)])", "lax.all_to_all(v, 'x', 0, 5)",
                           "v.reshape(-1)", "lax.axis_index('y')"]),
                self.pick(MESHES + ["None"]), self.pick(SPECS + ["(P('x'), P('x'))"]), self.pick(SPECS), a)
        if fn == "psum":
            return "lax.psum(%s, %s)" % (a, self.pick(["'x'", "'nope'", "()", "None", "('x', 'x')"]))
        if fn == "typeof":
            return "jax.typeof(%s)" % a
        if fn == "make_array":
            return "jax.make_array_from_callback(%s, NamedSharding(%s, %s), lambda idx: %s)" % (
                self.shape(), self.pick(MESHES), self.pick(SPECS), self.pick(["a_f", "a_n", "None", "a_f[idx]"]))
        if fn == "axis_index":
            return "lax.axis_index(%s)" % self.pick(["'x'", "None", "3"])
        return "_in_mesh(%s, lambda: jax.jit(lambda v: %s)(jax.device_put(%s, %s)))" % (
            self.pick(MESHES), self.pick(["v @ v.T", "v.reshape(-1)", "jnp.sum(v, axis=0)", "v[::2]",
                                          "jnp.concatenate([v, v], axis=0)", "jnp.cumsum(v, axis=0)",
                                          "jnp.transpose(v)", "jnp.argmax(v, axis=0)"]),
            a, self.pick(SPECS))

    def transform_op(self):
        body = self.pick([self.creation, self.shape_op, self.math_op])()
        fn = self.pick(["jit", "jit_static", "vmap", "grad", "scan", "fori", "while", "cond", "eval_shape"])
        if fn == "jit":
            return "jax.jit(lambda: %s)()" % body
        if fn == "jit_static":
            return "jax.jit(lambda v: %s + v, static_argnums=%s)(%s)" % (body, self.pick(["0", "5", "-9", "(0, 0)"]),
                                                                         self.arr())
        if fn == "vmap":
            return "jax.vmap(lambda v: v + 1, in_axes=%s, out_axes=%s)(%s)" % (self.axis(), self.axis(), self.arr())
        if fn == "grad":
            return "jax.grad(lambda v: jnp.sum(v * v), argnums=%s)(%s)" % (self.pick(["0", "1", "-1", "(0, 0)"]),
                                                                          self.arr())
        if fn == "scan":
            return "lax.scan(lambda c, v: (c + v, c), %s, %s, length=%s)" % (
                self.pick(["0.0", "a_s", "a_f", "None"]), self.arr(), self.pick(["None", "0", "-1", "2**40", "3"]))
        if fn == "fori":
            return "lax.fori_loop(%s, %s, lambda i, c: c + i, %s)" % (self.pick(["0", "5", "-2**40"]),
                                                                      self.pick(["-5", "0", "3", "2.5"]), self.arr())
        if fn == "while":
            return "lax.while_loop(lambda c: c < 0, lambda c: c + 1, %s)" % self.arr()
        if fn == "cond":
            return "lax.cond(%s, lambda: %s, lambda: 0.0)" % (self.arr(), body)
        return "jax.eval_shape(lambda: %s)" % body

    def call(self):
        return self.pick([self.creation, self.creation, self.shape_op, self.shape_op, self.shape_op, self.math_op,
                          self.math_op, self.math_op, self.sharding_op, self.sharding_op, self.transform_op])()


def run_batch(shard, calls, first, workdir, batch_id, preexec=limit_memory):
    """Runs the calls in as many processes as crashes need; yields (index, verdict, program)."""
    start = 0
    attempt = 0
    while start < len(calls):
        attempt += 1
        lines = ["_call(%d, lambda: %s)\n" % (first + i, calls[i]) for i in range(start, len(calls))]
        program = PRELUDE + "".join(lines)
        path = os.path.join(workdir, "api_%d_%d.shard" % (batch_id, attempt))
        with open(path, "w") as f:
            f.write(program)
        try:
            proc = subprocess.run([shard, path], capture_output=True, text=True, timeout=BATCH_TIMEOUT_S,
                                  preexec_fn=preexec)
            stdout, stderr, status, hung = proc.stdout, proc.stderr, proc.returncode, False
        except subprocess.TimeoutExpired as e:
            stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            stderr, status, hung = "", None, True
        started, internal = [], {}
        for line in stdout.splitlines():
            fields = line.split("\t")
            if fields[0] == "S" and len(fields) == 2:
                started.append(int(fields[1]))
            elif fields[0] == "I" and len(fields) >= 3:
                internal[int(fields[1])] = fields[2]
        ok = not hung and status == 0
        last = started[-1] if started else None
        for index in started:
            prefix = PRELUDE + "".join("_call(%d, lambda: %s)\n" % (first + i, calls[i])
                                       for i in range(start, index - first + 1))
            if index == last and not ok:
                why = "hang (no exit in %d s)" % BATCH_TIMEOUT_S if hung else "exit status %s: %s" % (
                    status, stderr.strip()[-600:])
                yield index, "crash: " + why, prefix
            elif index in internal:
                yield index, "internal error raised as an exception: " + internal[index], prefix
            else:
                yield index, "pass", None
        if ok:
            return
        if not started:
            yield first + start, "process failed before the first call: status %s: %s" % (
                status, stderr.strip()[-600:]), program
            start += 1
            continue
        start = last - first + 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("shard", help="the shard executable")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--time-limit", type=float, default=None, help="stop starting batches after S seconds")
    parser.add_argument("--save-dir", default=None, help="where failing programs are saved")
    parser.add_argument("--batch", type=int, default=60, help="calls per shard process")
    parser.add_argument("--allow-known", action="store_true",
                        help="count failures of the bugs in KNOWN_BUGS (tests/fuzz/found/) as known, not failed")
    parser.add_argument("--no-address-space-limit", action="store_true",
                        help="no RLIMIT_AS for shard (an ASan build's shadow memory reserves terabytes of address "
                             "space; scripts/sanitize.sh bounds allocations with ASAN_OPTIONS instead)")
    args = parser.parse_args()
    shard = os.path.realpath(args.shard)
    preexec = None if args.no_address_space_limit else limit_memory
    start = time.monotonic()
    passed = failed = known = 0
    with tempfile.TemporaryDirectory() as workdir:
        for batch_id, first in enumerate(range(0, args.cases, args.batch)):
            if args.time_limit is not None and time.monotonic() - start > args.time_limit:
                break
            count = min(args.batch, args.cases - first)
            rng = np.random.default_rng([args.seed, first])
            maker = CallMaker(rng)
            calls = [maker.call() for _ in range(count)]
            for index, verdict, program in run_batch(shard, calls, first, workdir, batch_id, preexec):
                if verdict == "pass":
                    passed += 1
                    continue
                if args.allow_known and any(text in verdict for text, _ in KNOWN_BUGS):
                    known += 1
                    continue
                failed += 1
                note = ""
                if args.save_dir:
                    os.makedirs(args.save_dir, exist_ok=True)
                    path = os.path.join(args.save_dir, "api_seed%d_call%d.shard" % (args.seed, index))
                    with open(path, "w") as f:
                        f.write("# api_fuzz.py --seed %d: call %d failed: %s\n" % (
                            args.seed, index, verdict.replace("\n", " ")[:600]) + program)
                    note = "\n     saved " + path
                print("FAIL call %d: %s\n     %s%s" % (index, verdict[:800], calls[index - first], note))
    print("%d calls in %.1f s (seed %d)" % (passed + failed + known, time.monotonic() - start, args.seed))
    if args.allow_known:
        print("%d known (failures of the bugs in tests/fuzz/found/)" % known)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
