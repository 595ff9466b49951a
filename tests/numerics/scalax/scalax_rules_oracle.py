#!/usr/bin/python3
"""Python oracle for stdlib/scalax's sharding rules.

FSDPShardingRule: for random shapes, axis sizes and minimum sizes, the dimension the rule
shards is compared with this file's re-statement of scalax's documented rule:
  - a tensor with fewer than min_fsdp_size elements is replicated;
  - with fsdp_axis_size: the largest dimension it divides (the first of equal ones);
  - without: the dimension with the largest power-of-two divisor (the first of equal ones),
    skipping dimensions of size 1;
  - no such dimension: replicated.
TreePathShardingRule: random parameter trees and rule lists; the spec of each leaf is the
first rule whose regular expression (Python's re.search) matches its '/'-joined path, scalars
and single-element tensors replicated, and an unmatched leaf the strict error.

usage: scalax_rules_oracle.py SHARD_EXE [-v]
"""
import random
import re
import subprocess
import sys
import tempfile

SIZES = [1, 1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]


def pow2_divisor(n):
    k = 1
    while n % (2 * k) == 0:
        k *= 2
    return k


def fsdp_dim(shape, axis_size, min_size):
    n = 1
    for d in shape:
        n *= d
    if n < min_size:
        return None
    dims = range(len(shape))
    if axis_size is None:
        for i in sorted(dims, key=lambda i: -pow2_divisor(shape[i])):
            if shape[i] > 1:
                return i
    else:
        for i in sorted(dims, key=lambda i: -shape[i]):
            if shape[i] % axis_size == 0:
                return i
    return None


def spec_text(rank, dim, name):
    if dim is None:
        return "PartitionSpec()"
    entries = ["None"] * rank
    entries[dim] = repr(name)
    return "PartitionSpec(%s)" % ", ".join(entries) if rank > 1 else "PartitionSpec(%s,)" % entries[0]


def fsdp_cases(rng, count):
    cases = []
    for _ in range(count):
        shape = tuple(rng.choice(SIZES) for _ in range(rng.randint(1, 4)))
        axis_size = rng.choice([None, None, 2, 3, 4, 8])
        min_size = rng.choice([1, 16, 64, 256, 4096])
        cases.append((shape, axis_size, min_size))
    return cases


NAMES = ["encoder", "decoder", "layers_0", "layers_1", "attn", "mlp", "kernel", "bias", "scale", "embedding", "wq", "wo"]
PATTERNS = [r"kernel", r"bias$", r"attn/(wq|wo)", r"^encoder", r"layers_\d+/mlp", r"embed", r"scale", r".*", r"decoder/.*kernel"]
SPECS = ["PartitionSpec('fsdp', 'mp')", "PartitionSpec(None, 'mp')", "PartitionSpec('fsdp',)", "PartitionSpec()"]


def random_tree(rng, depth=0):
    if depth >= 2 or rng.random() < 0.3:
        return tuple(rng.choice([1, 2, 4, 8]) for _ in range(rng.randint(0, 2)))  # a leaf: its shape
    return {rng.choice(NAMES) + ("" if rng.random() < 0.7 else str(i)): random_tree(rng, depth + 1) for i in range(rng.randint(1, 3))}


def leaves(tree, path=()):
    if isinstance(tree, tuple):
        yield "/".join(path), tree
        return
    for k in sorted(tree):
        yield from leaves(tree[k], path + (k,))


def tree_text(tree):  # the tree as shard source: leaves are jnp.ones(shape)
    if isinstance(tree, tuple):
        return "jnp.ones(%r)" % (tree,)
    return "{" + ", ".join("%r: %s" % (k, tree_text(v)) for k, v in sorted(tree.items())) + "}"


def treepath_expected(tree, rules, strict):
    out = []
    for name, shape in leaves(tree):
        n = 1
        for d in shape:
            n *= d
        if len(shape) == 0 or n == 1:
            out.append(name + " PartitionSpec()")
            continue
        for pattern, spec in rules:
            if re.search(pattern, name) is not None:
                out.append(name + " " + spec)
                break
        else:
            if strict:  # apply raises before anything is printed
                return ["ValueError: Partition rule not found for param: " + name]
            out.append(name + " PartitionSpec()")
    return out


def main():
    shard = sys.argv[1]
    verbose = "-v" in sys.argv
    rng = random.Random(1234)
    cases = fsdp_cases(rng, 400)
    prog = ["import jax, jax.numpy as jnp", "from jax.sharding import PartitionSpec as P",
            "from scalax.sharding import FSDPShardingRule, TreePathShardingRule"]
    expected = []
    for shape, axis_size, min_size in cases:
        prog.append("print(FSDPShardingRule('fsdp', fsdp_axis_size=%r, min_fsdp_size=%d).apply(jnp.ones(%r)))" % (axis_size, min_size, shape))
        expected.append(spec_text(len(shape), fsdp_dim(shape, axis_size, min_size), "fsdp"))
    trees = 60
    for _ in range(trees):
        tree = random_tree(rng)
        if isinstance(tree, tuple):
            tree = {"w": tree}
        rules = [(rng.choice(PATTERNS), rng.choice(SPECS)) for _ in range(rng.randint(1, 4))]
        strict = rng.random() < 0.5
        prog.append("try:")
        prog.append("    specs = TreePathShardingRule(%s, strict=%r).apply(%s)" % (
            ", ".join("(%r, %s)" % (p, s.replace("PartitionSpec", "P")) for p, s in rules), strict, tree_text(tree)))
        prog.append("    for path, spec in jax.tree_util.tree_flatten_with_path(specs, is_leaf=lambda x: isinstance(x, P))[0]:")
        prog.append("        print('/'.join(str(k.key) for k in path), spec)")
        prog.append("except ValueError as e:")
        prog.append("    print('ValueError:', e)")
        expected.extend(treepath_expected(tree, rules, strict))
    with tempfile.NamedTemporaryFile("w", suffix=".shard", delete=False) as f:
        f.write("\n".join(prog) + "\n")
        path = f.name
    r = subprocess.run([shard, path], capture_output=True, text=True, timeout=600)
    got = r.stdout.splitlines()
    if r.returncode != 0:
        print(r.stderr[-2000:])
    passed = failed = 0
    for i, want in enumerate(expected):
        have = got[i] if i < len(got) else "<missing>"
        if have == want:
            passed += 1
        else:
            failed += 1
            if verbose or failed <= 10:
                print("FAIL line %d: expected %r, got %r" % (i + 1, want, have))
    print("FSDPShardingRule: %d shapes; TreePathShardingRule: %d trees" % (len(cases), trees))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and r.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
