// jit's call arguments (see jit_args.hpp).
#include "api/transforms/jit_args.hpp"

#include <fmt/format.h>

#include "api/device_count.hpp"
#include "api/objects/array_value.hpp"
#include "api/pytree/pytree.hpp"
#include "interp/complex_value.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ObjKind;
using interp::Value;
namespace bi = interp::bi;

namespace {

std::vector<std::string> positional_names(const Value& f) {
  std::vector<std::string> names;
  if (f && f->kind == ObjKind::Function) {
    auto& fo = static_cast<interp::FunctionObj&>(*f);
    if (fo.params)
      for (auto& p : fo.params->positional) names.push_back(p.name);
  }
  return names;
}

void check_hashable(Interp& I, const Value& v) {
  try {
    (void)I.hash(v);
  } catch (const interp::PyError& e) {
    I.raise("ValueError", fmt::format("Non-hashable static arguments are not supported. An error occurred while trying to hash an "
                                      "object of type <class '{}'>, {}. The error was:\nTypeError: unhashable type: '{}'",
                                      bi::class_qualname(*v->cls), I.repr(v), bi::class_qualname(*v->cls)));
  }
}

}  // namespace

CallParts split_call(Interp& I, const Value& fun, const JitOptions& opts, const CallArgs& a) {
  CallParts parts;
  auto names = positional_names(fun);
  const int64_t n = static_cast<int64_t>(a.args.size());
  auto is_static_name = [&](const std::string& name) {
    for (auto& s : opts.static_argnames)
      if (s == name) return true;
    for (auto k : opts.static_argnums) {
      if (k < 0) k += n;
      if (k >= 0 && static_cast<size_t>(k) < names.size() && names[static_cast<size_t>(k)] == name) return true;
    }
    return false;
  };
  std::vector<Value> dyn_pos;
  for (int64_t i = 0; i < n; ++i) {
    bool st = false;
    for (auto k : opts.static_argnums)
      if (k == i || k + n == i) st = true;
    if (!st && static_cast<size_t>(i) < names.size()) st = is_static_name(names[static_cast<size_t>(i)]);
    parts.pos_static.push_back(st);
    if (st) {
      check_hashable(I, a.args[static_cast<size_t>(i)]);
      parts.statics.push_back(a.args[static_cast<size_t>(i)]);
    } else {
      dyn_pos.push_back(a.args[static_cast<size_t>(i)]);
    }
  }
  auto dyn_kw = interp::make_dict();
  for (auto& [k, v] : a.kwargs) {
    bool st = is_static_name(k);
    parts.kw_static.push_back(st);
    if (st) {
      check_hashable(I, v);
      parts.statics.push_back(interp::make_str(k));
      parts.statics.push_back(v);
    } else {
      dyn_kw->set(I, interp::make_str(k), v);
    }
  }
  parts.dynamic = interp::make_tuple({interp::make_tuple(std::move(dyn_pos)), dyn_kw});
  return parts;
}

// Rebuilds the call's arguments with the dynamic part replaced by `dynamic`.
CallArgs rebuild_call(Interp& I, const CallArgs& a, const CallParts& parts, const Value& dynamic) {
  CallArgs out;
  out.loc = a.loc;
  const auto& pos = static_cast<interp::TupleObj&>(*static_cast<interp::TupleObj&>(*dynamic).items[0]).items;
  auto& kw = static_cast<interp::DictObj&>(*static_cast<interp::TupleObj&>(*dynamic).items[1]);
  size_t d = 0;
  for (size_t i = 0; i < a.args.size(); ++i) out.args.push_back(parts.pos_static[i] ? a.args[i] : pos.at(d++));
  for (size_t i = 0; i < a.kwargs.size(); ++i) {
    const auto& [k, v] = a.kwargs[i];
    if (parts.kw_static[i]) out.kwargs.emplace_back(k, v);
    else out.kwargs.emplace_back(k, *kw.find(I, interp::make_str(k)));
  }
  return out;
}

// The JAX path of every leaf of `v` (in tree_flatten's order): x, x[0], x['key'], x.field.
static void leaf_paths(Interp& I, const Value& v, const std::string& path, std::vector<std::string>& out) {
  std::vector<Value> leaves;
  for (auto& s : leaf_path_strings(I, tree_flatten(I, v, leaves), path)) out.push_back(std::move(s));
}

// The path of dynamic leaf `index` for the error message: the parameter's name, then indices.
static std::string dynamic_leaf_path(Interp& I, const Value& fun, const CallArgs& a, const CallParts& parts, size_t index) {
  auto names = positional_names(fun);
  std::vector<std::string> paths;
  const auto& pos = static_cast<interp::TupleObj&>(*static_cast<interp::TupleObj&>(*parts.dynamic).items[0]).items;
  size_t d = 0;
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (parts.pos_static[i]) continue;
    leaf_paths(I, pos.at(d++), i < names.size() ? names[i] : fmt::format("args[{}]", i), paths);
  }
  leaf_paths(I, static_cast<interp::TupleObj&>(*parts.dynamic).items[1], "", paths);
  if (index >= paths.size()) return "";
  std::string p = paths[index];
  if (p.size() > 2 && p[0] == '[' && p[1] == '\'') p = p.substr(2, p.find('\'', 2) - 2) + p.substr(p.find(']') + 1);
  return p;
}

// The dynamic leaves as device arrays (Python scalars weak-typed).
std::vector<exec::ArrayRef> leaf_arrays(Interp& I, const Value& fun, const CallArgs& a, const CallParts& parts,
                                        const std::vector<Value>& values) {
  std::vector<exec::ArrayRef> out;
  for (size_t i = 0; i < values.size(); ++i) {
    const Value& v = values[i];
    if (!as_array(v) && v->kind != ObjKind::Int && v->kind != ObjKind::Float && v->kind != ObjKind::Bool && !interp::is_complex(v))
      I.raise("TypeError", fmt::format("Error interpreting argument to {} as an abstract array. The problematic value is of type <class '{}'> "
                                       "and was passed to the function at path {}.\nThis typically means that a jit-wrapped function was "
                                       "called with a non-array argument, and this argument was not marked as static using the "
                                       "static_argnums or static_argnames parameters of jax.jit.",
                                       I.repr(fun), bi::class_qualname(*v->cls), dynamic_leaf_path(I, fun, a, parts, i)));
    out.push_back(guarded(I, [&] {
      ensure_device_runtime();
      if (auto* arr = as_array(v)) return arr->host ? to_device(arr->array, std::nullopt, std::nullopt) : arr->array;
      auto st = python_scalar_type(v, false);
      return to_device(host_array_from_python(I, v, std::nullopt), std::nullopt, std::nullopt, st && st->weak);
    }));
  }
  return out;
}

}  // namespace shard::api
