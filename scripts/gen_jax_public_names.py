#!/usr/bin/env python3
"""Writes src/api/modules/jax_public_names.cpp: the public names of JAX's modules.

The names are read from JAX's own sources (no JAX install needed): each public module's
top-level bindings (re-exports `import x as x`, definitions, assignments, names kept by
`_deprecations` with a replacement), minus `del`eted and underscore names, plus a package's public submodules. The
default `--jax-version` mimics JAX 0.6 and `current` mimics 0.10, so the table is the union
of both releases. numpy's names come from the real numpy that /usr/bin/python3 imports.

  python3 scripts/gen_jax_public_names.py JAX_GIT_DIR > src/api/modules/jax_public_names.cpp

JAX_GIT_DIR is a clone of github.com/jax-ml/jax with its release tags.
"""
import ast
import json
import subprocess
import sys

JAX_TAGS = ["jax-v0.6.2", "jax-v0.10.2"]

# Trees that are not user API (tests, kernels for one backend, converters, build tools).
EXCLUDED_PREFIXES = (
    "jax/_src/", "jax/experimental/jax2tf/", "jax/experimental/mosaic/", "jax/experimental/pallas/ops/",
    "jax/extend/mlir/", "jax/tools/", "jax/collect_profile.py", "jax/experimental/colocated_python/",
    "jax/experimental/slab/",
)


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def module_name(path):
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_type_checking(test):
    return (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING") or (
        isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")


class Bindings:
    """Top-level names a module binds, in the order Python runs its statements."""

    def __init__(self, module, package):
        self.module = module
        self.package = package
        self.names = set()

    def targets(self, node):
        if isinstance(node, ast.Name):
            self.names.add(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for e in node.elts:
                self.targets(e)
        elif isinstance(node, ast.Starred):
            self.targets(node.value)

    def deprecations(self, value):
        # {"name": (message, replacement)}: a replacement of None means JAX removed the name.
        if not isinstance(value, ast.Dict):
            return
        for k, v in zip(value.keys, value.values):
            if isinstance(k, ast.Constant) and isinstance(v, ast.Tuple) and len(v.elts) == 2:
                if not (isinstance(v.elts[1], ast.Constant) and v.elts[1].value is None):
                    self.names.add(k.value)

    def run(self, body):
        for s in body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.names.add(s.name)
            # A package's __init__ is all API: what it imports it exports. In a plain module
            # JAX marks a re-export by the redundant alias `import x as x` (PEP 484's
            # convention) or imports it from JAX itself; other imports are the module's own
            # helpers (np, functools, typing names).
            elif isinstance(s, ast.Import):
                for a in s.names:
                    if a.asname and (self.package or a.asname == a.name.rpartition(".")[2]):
                        self.names.add(a.asname)
            elif isinstance(s, ast.ImportFrom):
                from_jax = s.level > 0 or (s.module or "").split(".")[0] == "jax"
                for a in s.names:
                    if a.name == "*":
                        continue
                    if self.package or a.asname == a.name or (from_jax and not a.asname):
                        self.names.add(a.asname or a.name)
            elif isinstance(s, ast.Assign):
                for t in s.targets:
                    self.targets(t)
                    if isinstance(t, ast.Name) and t.id == "_deprecations":
                        self.deprecations(s.value)
            elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
                self.targets(s.target)
            elif isinstance(s, ast.Delete):
                for t in s.targets:
                    if isinstance(t, ast.Name):
                        self.names.discard(t.id)
            elif isinstance(s, ast.If):
                if is_type_checking(s.test):
                    self.run(s.orelse)
                elif isinstance(s.test, ast.UnaryOp) and is_type_checking(s.test.operand):
                    self.run(s.body)
                else:
                    self.run(s.body)
                    self.run(s.orelse)
            elif isinstance(s, ast.Try):
                self.run(s.body)
                for h in s.handlers:
                    self.run(h.body)
                self.run(s.orelse)
                self.run(s.finalbody)
            elif isinstance(s, ast.With):
                self.run(s.body)


def public(name):
    return not name.startswith("_")


def jax_modules(repo, tag):
    paths = [p for p in git(repo, "ls-tree", "-r", "--name-only", tag, "jax").split("\n")
             if p.endswith(".py") and not p.startswith(EXCLUDED_PREFIXES)
             and not any(part.startswith("_") and part != "__init__.py" for part in p.split("/"))
             and "/tests/" not in p and "/examples/" not in p and not p.endswith("_test.py")]
    modules = {}
    for p in paths:
        name = module_name(p)
        b = Bindings(name, p.endswith("/__init__.py"))
        try:
            tree = ast.parse(git(repo, "show", f"{tag}:{p}"))
        except SyntaxError:
            continue
        names = None
        for s in tree.body:  # an explicit __all__ is the public list
            if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in s.targets):
                try:
                    names = set(ast.literal_eval(s.value))
                except ValueError:
                    pass
        if names is None:
            b.run(tree.body)
            names = b.names
        modules.setdefault(name, set()).update(n for n in names if public(n))
    for name in list(modules):  # a package's submodules are its attributes once imported
        parent, _, leaf = name.rpartition(".")
        if parent in modules:
            modules[parent].add(leaf)
    return modules


def numpy_modules():
    code = ("import json, numpy, numpy.random, numpy.linalg, numpy.fft\n"
            "print(json.dumps({m.__name__: [n for n in dir(m) if not n.startswith('_')]"
            " for m in (numpy, numpy.random, numpy.linalg, numpy.fft)}))")
    out = subprocess.run(["/usr/bin/python3", "-c", code], check=True, capture_output=True, text=True).stdout
    version = subprocess.run(["/usr/bin/python3", "-c", "import numpy; print(numpy.__version__)"], check=True,
                             capture_output=True, text=True).stdout.strip()
    return {k: set(v) for k, v in json.loads(out).items()}, version


def main():
    repo = sys.argv[1]
    modules = {}
    for tag in JAX_TAGS:
        for name, names in jax_modules(repo, tag).items():
            modules.setdefault(name, set()).update(names)
    np_modules, np_version = numpy_modules()
    modules.update(np_modules)
    rows = sorted([(m, "") for m in modules] + [(m, n) for m, names in modules.items() for n in names])
    out = sys.stdout
    out.write("// Generated by scripts/gen_jax_public_names.py: do not edit.\n")
    out.write(f"// The public names of JAX's modules ({', '.join(JAX_TAGS)}, read from their sources)\n")
    out.write(f"// and of numpy {np_version}: {len(modules)} modules, {len(rows) - len(modules)} names.\n")
    out.write('#include "api/modules/jax_public_names.hpp"\n\n#include <algorithm>\n\n')
    out.write("namespace shard::api {\n\nnamespace {\n\n")
    out.write("// (module, name), sorted; a module's own row has an empty name.\n")
    out.write("constexpr PublicName kPublicNames[] = {\n")
    for m, n in rows:
        out.write(f'    {{"{m}", "{n}"}},\n')
    out.write("};\n\n")
    out.write("static_assert(std::is_sorted(std::begin(kPublicNames), std::end(kPublicNames)));\n\n")
    out.write("}  // namespace\n\n")
    out.write("std::span<const PublicName> public_names_table() { return kPublicNames; }\n\n")
    out.write("}  // namespace shard::api\n")


if __name__ == "__main__":
    main()
