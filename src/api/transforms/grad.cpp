// jax.grad, value_and_grad, vjp, jvp, linearize: the function is traced as a region of the
// current trace (or of an eager one-op program), and src/autodiff/ differentiates the IR.
// Eagerly the whole derivative is one compiled program; under jit it is part of the jitted
// one. Closed-over values are constants of the differentiation, as in JAX, and nested
// transforms compose because each one's result is ordinary IR the outer one differentiates.
#include "api/transforms/grad.hpp"

#include <fmt/format.h>

#include "api/objects/array_value.hpp"
#include "api/transforms/region_trace.hpp"
#include "autodiff/autodiff.hpp"
#include "batching/batching.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::Interp;
using interp::ObjKind;
using interp::Value;
using ir::ValueId;
namespace bi = interp::bi;

namespace {

// A call's positional arguments as a pytree, and their leaves.
struct FlatArgs {
  TreeDef def;               // a tuple of the positional arguments
  std::vector<Value> leaves;
  std::vector<size_t> arg_of;  // the positional argument each leaf belongs to
};

FlatArgs flatten_args(Interp& I, const std::vector<Value>& args) {
  FlatArgs f;
  f.def = tree_flatten(I, interp::make_tuple(args), f.leaves);
  for (size_t i = 0; i < f.def.children.size(); ++i) {
    std::vector<Value> sub;
    tree_flatten(I, args[i], sub);
    f.arg_of.insert(f.arg_of.end(), sub.size(), i);
  }
  return f;
}

Value rebuild(Interp& I, const TreeDef& def, const std::vector<Value>& leaves) {
  size_t pos = 0;
  return tree_unflatten(I, def, leaves, pos);
}

// `fun` traced as a region of t on the leaves' types (the call's positional arguments are
// `make_args(tracers)`); r.fn's params are the captured values, then the leaves.
using MakeArgs = std::function<std::vector<Value>(const std::vector<Value>& tracers)>;
Region trace_call(Interp& I, trace::Trace& t, const Value& fun, const MakeArgs& make_args, const std::vector<ValueId>& ids,
                  const std::vector<std::pair<std::string, Value>>& kwargs) {
  std::vector<types::ArrayType> types;
  for (auto id : ids) types.push_back(t.type(id));
  return trace_region(I, t, "jvp", types, [&](const std::vector<Value>& tracers) {
    CallArgs call;
    call.args = make_args(tracers);
    call.kwargs = kwargs;
    call.loc = I.current_loc();
    return I.call(fun, call);
  });
}

Region trace_fun(Interp& I, trace::Trace& t, const Value& fun, const FlatArgs& flat, const std::vector<ValueId>& ids,
                 const std::vector<std::pair<std::string, Value>>& kwargs) {
  return trace_call(I, t, fun, [&](const std::vector<Value>& tracers) { return I.to_vector(rebuild(I, flat.def, tracers)); }, ids, kwargs);
}

std::vector<ValueId> region_inputs(const Region& r, const std::vector<ValueId>& ids) {
  std::vector<ValueId> in = r.captured;
  in.insert(in.end(), ids.begin(), ids.end());
  return in;
}

std::vector<int64_t> parse_argnums(Interp& I, const Value& v, size_t nargs, bool& is_tuple) {
  std::vector<int64_t> out;
  is_tuple = v && (v->kind == ObjKind::Tuple || v->kind == ObjKind::List);
  std::vector<Value> items = is_tuple ? I.to_vector(v) : std::vector<Value>{v ? v : interp::make_int(0)};
  for (auto& it : items) {
    auto i = bi::int_of(it);
    if (!i) I.raise("TypeError", fmt::format("argnums must be an int or a tuple of ints, got {}", I.repr(it)));
    int64_t k = *i < 0 ? *i + static_cast<int64_t>(nargs) : *i;
    if (k < 0 || k >= static_cast<int64_t>(nargs))
      I.raise("TypeError", fmt::format("differentiating with respect to argnums={} requires at least {} positional arguments to be "
                                       "passed by the caller, but got only {} positional arguments.",
                                       I.repr(v), *i + 1, nargs));
    out.push_back(k);
  }
  return out;
}

// The arguments a derivative is taken with respect to (argnums): only they are traced, the
// others are passed as they are (JAX's argnums_partial), so they may be any Python value.
struct DiffArgs {
  std::vector<int64_t> argnums;
  bool argnums_tuple = false;
  FlatArgs flat;  // the argnums arguments, flattened

  DiffArgs(Interp& I, const Value& argnums_v, const CallArgs& a) {
    argnums = parse_argnums(I, argnums_v, a.args.size(), argnums_tuple);
    std::vector<Value> dyn;
    for (auto k : argnums) dyn.push_back(a.args[static_cast<size_t>(k)]);
    flat = flatten_args(I, dyn);
  }
  // The call's positional arguments with the differentiated ones taken from `leaves`.
  std::vector<Value> call_args(Interp& I, const CallArgs& a, const std::vector<Value>& leaves) const {
    std::vector<Value> args = a.args;
    auto dyn = I.to_vector(rebuild(I, flat.def, leaves));
    for (size_t j = 0; j < argnums.size(); ++j) args[static_cast<size_t>(argnums[j])] = dyn[j];
    return args;
  }
  // One value per flattened leaf (from results[first]) shaped as the arguments: the tree of
  // the one argnum, or a tuple of them.
  Value shaped(Interp& I, const std::vector<Value>& results, size_t first) const {
    std::vector<Value> per_arg;
    for (size_t j = 0; j < argnums.size(); ++j) {
      std::vector<Value> leaves;
      for (size_t i = 0; i < flat.leaves.size(); ++i)
        if (flat.arg_of[i] == j) leaves.push_back(results.at(first + i));
      per_arg.push_back(rebuild(I, flat.def.children.at(j), leaves));
    }
    return argnums_tuple ? interp::make_tuple(per_arg) : per_arg.at(0);
  }
};

// grad / value_and_grad of `fun` at the call's arguments.
Value call_value_and_grad(Interp& I, const Value& fun, const Value& argnums_v, bool has_aux, bool allow_int, bool with_value,
                          CallArgs& a) {
  const char* what = with_value ? "value_and_grad" : "grad";
  const DiffArgs d(I, argnums_v, a);
  for (const Value& leaf : d.flat.leaves) {
    if (!is_array_like(leaf) && !python_scalar_type(leaf, false))
      I.raise("TypeError", fmt::format("Argument '{}' of type {} is not a valid JAX type.", I.repr(leaf), I.type_name(leaf)));
    types::DType dt = is_array_like(leaf) ? type_of(leaf).dtype() : python_scalar_type(leaf, false)->dtype;
    if (!types::is_inexact(dt) && !allow_int)
      I.raise("TypeError", fmt::format("{} requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got "
                                       "{}. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True.",
                                       what, types::dtype_name(dt)));
  }
  auto make_args = [&](const std::vector<Value>& tracers) { return d.call_args(I, a, tracers); };
  TreeDef out_def;
  size_t n_aux = 0;
  std::vector<Value> results = apply_multi(I, what, d.flat.leaves, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    Region r = trace_call(I, t, fun, make_args, ids, a.kwargs);
    out_def = r.out;
    // The differentiated output: the whole result, or the first of (output, aux).
    if (has_aux && (r.out.kind != TreeDef::Tuple || r.out.children.size() != 2))
      I.raise("TypeError", fmt::format("{} with has_aux=True requires fun to return a (value, aux) pair", what));
    const TreeDef& main = has_aux ? r.out.children[0] : r.out;
    if (main.kind != TreeDef::Leaf)
      I.raise("TypeError", "Gradient only defined for scalar-output functions. Output was not a single array.");
    const types::ArrayType out_t = r.result_types.at(0);
    if (out_t.rank() != 0)
      I.raise("TypeError", fmt::format("Gradient only defined for scalar-output functions. Output had shape: {}.", py_shape(out_t.shape())));
    if (!types::is_float(out_t.dtype()))
      I.raise("TypeError", fmt::format("{} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got {}. "
                                       "For holomorphic differentiation, pass holomorphic=True. For differentiation of non-holomorphic "
                                       "functions involving complex outputs, use jax.vjp directly.",
                                       what, types::dtype_name(out_t.dtype())));
    n_aux = r.result_types.size() - 1;
    std::vector<ValueId> inputs = region_inputs(r, ids);
    std::vector<bool> wrt_all(r.captured.size(), false);
    wrt_all.insert(wrt_all.end(), ids.size(), true);
    auto lin = autodiff::linearize(t, *r.fn, inputs, wrt_all);
    std::vector<autodiff::Tangent> cts(r.result_types.size());
    cts[0] = autodiff::ones(t, out_t);
    auto grads = autodiff::transpose(t, lin.linear, lin.residuals, cts);
    std::vector<ValueId> out;
    if (with_value) out.push_back(lin.primals[0]);
    for (size_t i = 0; i < ids.size(); ++i) out.push_back(grads[i] ? *grads[i] : autodiff::zeros(t, t.type(ids[i])));
    for (size_t i = 1; i < lin.primals.size(); ++i) out.push_back(lin.primals[i]);
    return out;
  });
  // Gradients shaped as the differentiated arguments.
  Value grads = d.shaped(I, results, with_value ? 1 : 0);
  Value value = with_value ? results.at(0) : nullptr;
  if (has_aux) {
    const size_t first_aux = results.size() - n_aux;
    Value aux = rebuild(I, out_def.children[1], std::vector<Value>(results.begin() + static_cast<long>(first_aux), results.end()));
    if (with_value) return interp::make_tuple({interp::make_tuple({value, aux}), grads});
    return interp::make_tuple({grads, aux});
  }
  if (with_value) return interp::make_tuple({value, grads});
  return grads;
}

Value make_grad(Interp& I, CallArgs& a, bool with_value) {
  const char* name = with_value ? "value_and_grad" : "grad";
  interp::ArgParser p(I, a, name, {"fun", "argnums=", "has_aux=", "holomorphic=", "allow_int=", "reduce_axes="});
  Value fun = p.get("fun");
  Value argnums = p.get("argnums");
  const bool has_aux = p.get("has_aux") && I.truthy(p.get("has_aux"));
  const bool allow_int = p.get("allow_int") && I.truthy(p.get("allow_int"));
  if (p.get("holomorphic") && I.truthy(p.get("holomorphic")))
    I.raise("NotImplementedError", "holomorphic differentiation is not supported: shard has no complex dtypes");
  return interp::make_builtin(name, [fun, argnums, has_aux, allow_int, with_value](Interp& I2, CallArgs& b) {
    return call_value_and_grad(I2, fun, argnums, has_aux, allow_int, with_value, b);
  });
}

// The leaves of a value that must have the structure `def` (the cotangent of vjp's output).
std::vector<Value> leaves_matching(Interp& I, const Value& v, const TreeDef& def, const char* what) {
  std::vector<Value> leaves;
  TreeDef got = tree_flatten(I, v, leaves);
  if (tree_signature(I, got) != tree_signature(I, def))
    I.raise("ValueError", fmt::format("unexpected tree structure of argument to {}: got {}, but expected to match {}", what,
                                      pytreedef_str(I, got), pytreedef_str(I, def)));
  return leaves;
}

// jax.vjp(fun, *primals, has_aux=False) -> (primals_out, vjp_fun[, aux])
Value jax_vjp(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "vjp", {"fun", "*primals", "has_aux=", "reduce_axes="});
  Value fun = p.get("fun");
  const bool has_aux = p.get("has_aux") && I.truthy(p.get("has_aux"));
  FlatArgs flat = flatten_args(I, p.varargs());
  TreeDef out_def;
  auto linear = std::make_shared<ir::Function>();
  size_t n_out = 0, n_res = 0;
  std::vector<types::ArrayType> in_types;
  CallArgs none;
  std::vector<Value> results = apply_multi(I, "vjp", flat.leaves, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    Region r = trace_fun(I, t, fun, flat, ids, none.kwargs);
    out_def = r.out;
    if (has_aux && (r.out.kind != TreeDef::Tuple || r.out.children.size() != 2))
      I.raise("TypeError", "vjp with has_aux=True requires fun to return a (value, aux) pair");
    for (auto id : ids) in_types.push_back(t.type(id));
    std::vector<bool> wrt(r.captured.size(), false);
    wrt.insert(wrt.end(), ids.size(), true);
    auto lin = autodiff::linearize(t, *r.fn, region_inputs(r, ids), wrt);
    *linear = std::move(lin.linear);
    n_out = lin.primals.size();
    n_res = lin.residuals.size();
    std::vector<ValueId> out = lin.primals;
    out.insert(out.end(), lin.residuals.begin(), lin.residuals.end());
    return out;
  });
  // The differentiated outputs: all of them, or those of the first of (output, aux).
  TreeDef main_def = has_aux ? out_def.children[0] : out_def;
  const size_t count_main = tree_num_leaves(main_def);
  std::vector<Value> outs(results.begin(), results.begin() + static_cast<long>(n_out));
  std::vector<Value> residuals(results.begin() + static_cast<long>(n_out), results.begin() + static_cast<long>(n_out + n_res));
  std::vector<types::ArrayType> out_types;
  for (size_t i = 0; i < count_main; ++i) out_types.push_back(type_of(outs[i]));
  const TreeDef in_def = flat.def;
  Value vjp_fun = interp::make_builtin("vjp_fun", [linear, residuals, main_def, in_def, in_types, out_types, count_main, n_out](Interp& I2,
                                                                                                                             CallArgs& b) {
    if (b.args.size() != 1) I2.raise("TypeError", fmt::format("The function returned by `jax.vjp` applied to {} was called with {} arguments, "
                                                             "but expected 1 (the cotangent of its output).", "fun", b.args.size()));
    std::vector<Value> ct_leaves = leaves_matching(I2, b.args[0], main_def, "vjp function");
    for (size_t i = 0; i < ct_leaves.size(); ++i) {
      if (!is_array_like(ct_leaves[i])) continue;
      auto ct_t = type_of(ct_leaves[i]);
      if (ct_t.shape() != out_types[i].shape())
        I2.raise("ValueError", fmt::format("unexpected JAX type (e.g. shape/dtype) for argument to vjp function: got {}, but expected {} "
                                           "because the corresponding output of the function had dtype {}",
                                           ct_t.str_short(), out_types[i].str_short(), types::dtype_name(out_types[i].dtype())));
    }
    std::vector<Value> operands = residuals;
    operands.insert(operands.end(), ct_leaves.begin(), ct_leaves.end());
    const size_t nres = residuals.size();
    std::vector<Value> cts = apply_multi(I2, "vjp", operands, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      std::vector<ValueId> res(ids.begin(), ids.begin() + static_cast<long>(nres));
      std::vector<autodiff::Tangent> out_cts(n_out);
      for (size_t i = 0; i < count_main; ++i) out_cts[i] = autodiff::fit_type(t, ids[nres + i], out_types[i]);
      auto in_cts = autodiff::transpose(t, *linear, res, out_cts);
      std::vector<ValueId> out;
      for (size_t i = 0; i < in_cts.size(); ++i) out.push_back(in_cts[i] ? *in_cts[i] : autodiff::zeros(t, in_types[i]));
      return out;
    });
    return rebuild(I2, in_def, cts);
  });
  Value primals_out = rebuild(I, main_def, std::vector<Value>(outs.begin(), outs.begin() + static_cast<long>(count_main)));
  if (has_aux) {
    Value aux = rebuild(I, out_def.children[1], std::vector<Value>(outs.begin() + static_cast<long>(count_main), outs.end()));
    return interp::make_tuple({primals_out, vjp_fun, aux});
  }
  return interp::make_tuple({primals_out, vjp_fun});
}

// Checks a jvp tangent against its primal as JAX does.
void check_tangent(Interp& I, const Value& primal, const Value& tangent) {
  auto pt = type_of(primal), tt = type_of(tangent);
  if (pt.shape() != tt.shape())
    I.raise("ValueError", fmt::format("jvp called with different primal and tangent shapes;Got primal shape {} and tangent shape as {}",
                                      py_shape(pt.shape()), py_shape(tt.shape())));
  if (types::is_float(pt.dtype()) && pt.dtype() != tt.dtype())
    I.raise("TypeError", fmt::format("primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case of int/bool "
                                     "primal dtype the tangent dtype must be float0.Got primal dtype {} and so expected tangent dtype "
                                     "{}, but got tangent dtype {} instead.",
                                     types::dtype_name(pt.dtype()), types::dtype_name(pt.dtype()), types::dtype_name(tt.dtype())));
}

// jax.jvp(fun, primals, tangents, has_aux=False) -> (primals_out, tangents_out[, aux])
Value jax_jvp(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "jvp", {"fun", "primals", "tangents", "has_aux="});
  Value fun = p.get("fun");
  const bool has_aux = p.get("has_aux") && I.truthy(p.get("has_aux"));
  for (const char* k : {"primals", "tangents"}) {
    Value v = p.get(k);
    if (v->kind != ObjKind::Tuple && v->kind != ObjKind::List)
      I.raise("TypeError", fmt::format("{} arguments to jax.jvp must be a tuple or a list; found {}.", k[0] == 'p' ? "primal" : "tangent",
                                       I.type_name(v)));
  }
  FlatArgs flat = flatten_args(I, I.to_vector(p.get("primals")));
  FlatArgs tflat = flatten_args(I, I.to_vector(p.get("tangents")));
  if (tree_signature(I, flat.def) != tree_signature(I, tflat.def))
    I.raise("TypeError", fmt::format("primal and tangent arguments to jax.jvp must have the same tree structure; primals have tree "
                                     "structure {} whereas tangents have tree structure {}.",
                                     pytreedef_str(I, flat.def), pytreedef_str(I, tflat.def)));
  std::vector<Value> operands = flat.leaves;
  for (size_t i = 0; i < tflat.leaves.size(); ++i) {
    Value tl = tflat.leaves[i];
    if (is_array_like(flat.leaves[i]) && is_array_like(tl)) check_tangent(I, flat.leaves[i], tl);
    operands.push_back(tl);
  }
  const size_t n = flat.leaves.size();
  TreeDef out_def;
  CallArgs none;
  std::vector<Value> results = apply_multi(I, "jvp", operands, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    std::vector<ValueId> primals(ids.begin(), ids.begin() + static_cast<long>(n));
    Region r = trace_fun(I, t, fun, flat, primals, none.kwargs);
    out_def = r.out;
    if (has_aux && (r.out.kind != TreeDef::Tuple || r.out.children.size() != 2))
      I.raise("TypeError", "jvp with has_aux=True requires fun to return a (value, aux) pair");
    std::vector<autodiff::Tangent> tangents(r.captured.size());
    for (size_t i = 0; i < n; ++i) tangents.push_back(autodiff::fit_type(t, ids[n + i], t.type(primals[i])));
    auto res = autodiff::jvp(t, *r.fn, region_inputs(r, primals), tangents);
    std::vector<ValueId> out = res.primals;
    for (size_t i = 0; i < res.tangents.size(); ++i)
      out.push_back(res.tangents[i] ? *res.tangents[i] : autodiff::zeros(t, t.type(res.primals[i])));
    return out;
  });
  const size_t nr = results.size() / 2;
  std::vector<Value> prim(results.begin(), results.begin() + static_cast<long>(nr));
  std::vector<Value> tan(results.begin() + static_cast<long>(nr), results.end());
  if (!has_aux) return interp::make_tuple({rebuild(I, out_def, prim), rebuild(I, out_def, tan)});
  const TreeDef& main = out_def.children[0];
  const size_t nm = tree_num_leaves(main);
  auto part = [&](const std::vector<Value>& v, size_t from, size_t to) { return std::vector<Value>(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(to)); };
  return interp::make_tuple({rebuild(I, main, part(prim, 0, nm)), rebuild(I, main, part(tan, 0, nm)), rebuild(I, out_def.children[1], part(prim, nm, nr))});
}

// jax.linearize(fun, *primals) -> (primals_out, f_jvp): f_jvp evaluates the linear function.
Value jax_linearize(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "linearize", {"fun", "*primals", "has_aux="});
  Value fun = p.get("fun");
  FlatArgs flat = flatten_args(I, p.varargs());
  TreeDef out_def;
  auto linear = std::make_shared<ir::Function>();
  size_t n_out = 0;
  std::vector<types::ArrayType> in_types;
  CallArgs none;
  std::vector<Value> results = apply_multi(I, "linearize", flat.leaves, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    Region r = trace_fun(I, t, fun, flat, ids, none.kwargs);
    out_def = r.out;
    for (auto id : ids) in_types.push_back(t.type(id));
    std::vector<bool> wrt(r.captured.size(), false);
    wrt.insert(wrt.end(), ids.size(), true);
    auto lin = autodiff::linearize(t, *r.fn, region_inputs(r, ids), wrt);
    *linear = std::move(lin.linear);
    n_out = lin.primals.size();
    std::vector<ValueId> out = lin.primals;
    out.insert(out.end(), lin.residuals.begin(), lin.residuals.end());
    return out;
  });
  std::vector<Value> outs(results.begin(), results.begin() + static_cast<long>(n_out));
  std::vector<Value> residuals(results.begin() + static_cast<long>(n_out), results.end());
  const TreeDef in_def = flat.def;
  Value f_jvp = interp::make_builtin("f_jvp", [linear, residuals, in_def, in_types, out_def](Interp& I2, CallArgs& b) {
    FlatArgs tf = flatten_args(I2, b.args);
    if (tree_signature(I2, tf.def) != tree_signature(I2, in_def))
      I2.raise("TypeError", fmt::format("the function returned by jax.linearize takes tangents of the primals' structure {}, got {}",
                                        pytreedef_str(I2, in_def), pytreedef_str(I2, tf.def)));
    std::vector<Value> operands = residuals;
    operands.insert(operands.end(), tf.leaves.begin(), tf.leaves.end());
    const size_t nres = residuals.size();
    auto outs2 = apply_multi(I2, "linearize", operands, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      std::vector<ValueId> args(ids.begin(), ids.begin() + static_cast<long>(nres));
      for (size_t i = 0; i < in_types.size(); ++i) args.push_back(autodiff::fit_type(t, ids[nres + i], in_types[i]));
      return trace::inline_function(t, *linear, args);
    });
    return rebuild(I2, out_def, outs2);
  });
  return interp::make_tuple({rebuild(I, out_def, outs), f_jvp});
}

// jacfwd / jacrev: the linear function of f (linearize) batched over a basis: of the input
// tangents (forward: one JVP per input element, all at once) or of the output cotangents
// (reverse: the transposed function batched, one VJP per output element). Each block of the
// Jacobian has the shape out_shape + in_shape, as JAX's.
Value call_jacobian(Interp& I, const Value& fun, const Value& argnums_v, bool has_aux, bool forward, CallArgs& a) {
  const char* what = forward ? "jacfwd" : "jacrev";
  const DiffArgs d(I, argnums_v, a);
  for (const Value& leaf : d.flat.leaves) {
    types::DType dt = is_array_like(leaf) ? type_of(leaf).dtype() : python_scalar_type(leaf, false) ? python_scalar_type(leaf, false)->dtype : types::DType::I32;
    if (!types::is_float(dt))
      I.raise("TypeError", fmt::format("{} requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got {}. For "
                                       "holomorphic differentiation, pass holomorphic=True. For differentiation of non-holomorphic "
                                       "functions involving complex inputs or integer inputs, use jax.jacfwd directly.",
                                       what, types::dtype_name(dt)));
  }
  auto make_args = [&](const std::vector<Value>& tracers) { return d.call_args(I, a, tracers); };
  TreeDef out_def, main_def;
  size_t n_main = 0;
  std::vector<Value> results = apply_multi(I, what, d.flat.leaves, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    Region r = trace_call(I, t, fun, make_args, ids, a.kwargs);
    out_def = r.out;
    if (has_aux && (r.out.kind != TreeDef::Tuple || r.out.children.size() != 2))
      I.raise("TypeError", fmt::format("{} with has_aux=True requires fun to return a (value, aux) pair", what));
    main_def = has_aux ? r.out.children[0] : r.out;
    n_main = tree_num_leaves(main_def);
    std::vector<bool> wrt(r.captured.size(), false);
    wrt.insert(wrt.end(), ids.size(), true);
    auto lin = autodiff::linearize(t, *r.fn, region_inputs(r, ids), wrt);
    std::vector<types::ArrayType> in_t, out_t;
    for (auto id : ids) in_t.push_back(t.type(id));
    for (size_t j = 0; j < n_main; ++j) out_t.push_back(t.type(lin.primals[j]));
    auto eye_rows = [&](const std::vector<types::ArrayType>& ts, types::DType dt) {
      int64_t n = 0;
      for (auto& ty : ts) n += ty.num_elements();
      return std::pair{n, trace::eye(t, n, n, 0, {dt, false}, std::nullopt)};
    };
    // The basis: for each leaf, the rows of the identity at its elements, shaped as the leaf.
    auto basis = [&](const std::vector<types::ArrayType>& ts, int64_t n, ValueId eye) {
      std::vector<batching::Batched> out;
      int64_t off = 0;
      for (auto& ty : ts) {
        const int64_t k = ty.num_elements();
        ValueId cols = trace::slice(t, eye, {0, off}, {n, off + k}, {});
        types::Shape shape{n};
        shape.insert(shape.end(), ty.shape().begin(), ty.shape().end());
        ValueId b = trace::convert(t, trace::reshape(t, cols, shape), {ty.dtype(), ty.weak_type()});
        // Each basis row sharded as the leaf it perturbs.
        if (ty.is_sharded() && !t.mesh().explicit_axes().empty()) {
          auto e = ty.spec().normalized(ty.rank()).entries();
          e.insert(e.begin(), types::PartitionSpec::Entry{});
          b = trace::reshard(t, b, sharding::OutSharding{types::PartitionSpec(e)});
        }
        out.push_back({b, true});
        off += k;
      }
      return out;
    };
    // A block: rows [off, off + k) of a batched result, as [*lead_shape, *rest] (reversed
    // roles for jacfwd: the batch is over inputs and must end up last).
    auto block = [&](ValueId batched, int64_t off, const types::ArrayType& row_t, const types::ArrayType& other_t, bool rows_last) {
      const auto bt = t.type(batched);
      const int64_t k = row_t.num_elements();
      types::Shape start(bt.rank(), 0), limit = bt.shape();
      start[0] = off;
      limit[0] = off + k;
      ValueId rows = trace::slice(t, batched, start, limit, {});
      types::Shape shape = row_t.shape();
      shape.insert(shape.end(), other_t.shape().begin(), other_t.shape().end());
      rows = trace::reshape(t, rows, shape);
      if (!rows_last) return rows;
      std::vector<int64_t> perm;  // [*row, *other] -> [*other, *row]
      const auto nr = static_cast<int64_t>(row_t.rank()), no = static_cast<int64_t>(other_t.rank());
      for (int64_t d = 0; d < no; ++d) perm.push_back(nr + d);
      for (int64_t d = 0; d < nr; ++d) perm.push_back(d);
      return trace::transpose(t, rows, perm);
    };
    std::vector<ValueId> out;
    std::vector<batching::Batched> res;
    for (auto v : lin.residuals) res.push_back({v, false});
    if (forward) {
      auto [n, eye] = eye_rows(in_t, in_t.empty() ? types::DType::F32 : in_t[0].dtype());
      auto args = res;
      for (auto& b : basis(in_t, n, eye)) args.push_back(b);
      auto tangents = batching::batch(t, lin.linear, args, n);
      for (size_t j = 0; j < n_main; ++j) {
        ValueId tj = batching::materialize(t, tangents[j], n);
        int64_t off = 0;
        for (size_t i = 0; i < in_t.size(); ++i) {
          out.push_back(block(tj, off, in_t[i], out_t[j], true));
          off += in_t[i].num_elements();
        }
      }
    } else {
      // The transposed linear function, as a function of (residuals, output cotangents).
      auto tt = std::make_shared<trace::Trace>("transpose", t.mesh());
      std::vector<ValueId> rp;
      for (auto v : lin.residuals) rp.push_back(tt->param(t.type(v)));
      std::vector<autodiff::Tangent> cts;
      for (size_t j = 0; j < lin.linear.results.size(); ++j) {
        if (j < n_main) cts.push_back(tt->param(out_t[j]));
        else cts.push_back(std::nullopt);
      }
      auto got = autodiff::transpose(*tt, lin.linear, rp, cts);
      std::vector<ValueId> ins;
      for (size_t i = 0; i < got.size(); ++i) ins.push_back(got[i] ? *got[i] : autodiff::zeros(*tt, in_t[i]));
      const ir::Function tf = tt->finish(ins);
      auto [m, eye] = eye_rows(out_t, out_t.empty() ? types::DType::F32 : out_t[0].dtype());
      auto args = res;
      for (auto& b : basis(out_t, m, eye)) args.push_back(b);
      auto cot = batching::batch(t, tf, args, m);
      for (size_t j = 0, off = 0; j < n_main; off += static_cast<size_t>(out_t[j].num_elements()), ++j)
        for (size_t i = 0; i < in_t.size(); ++i)
          out.push_back(block(batching::materialize(t, cot[i], m), static_cast<int64_t>(off), out_t[j], in_t[i], false));
    }
    for (size_t j = n_main; j < lin.primals.size(); ++j) out.push_back(lin.primals[j]);
    return out;
  });
  // Jacobian blocks: the output tree, each leaf holding the input tree(s).
  const size_t n_in = d.flat.leaves.size();
  std::vector<Value> per_out;
  for (size_t j = 0; j < n_main; ++j) per_out.push_back(d.shaped(I, results, j * n_in));
  // The output tree with each leaf replaced by its Jacobian block(s).
  Value jac = rebuild(I, main_def, per_out);
  if (!has_aux) return jac;
  std::vector<Value> aux(results.begin() + static_cast<long>(n_main * n_in), results.end());
  return interp::make_tuple({jac, rebuild(I, out_def.children[1], aux)});
}

Value make_jacobian(Interp& I, CallArgs& a, bool forward) {
  const char* name = forward ? "jacfwd" : "jacrev";
  interp::ArgParser p(I, a, name, {"fun", "argnums=", "has_aux=", "holomorphic=", "allow_int="});
  Value fun = p.get("fun"), argnums = p.get("argnums");
  const bool has_aux = p.get("has_aux") && I.truthy(p.get("has_aux"));
  return interp::make_builtin(name, [fun, argnums, has_aux, forward](Interp& I2, CallArgs& b) {
    return call_jacobian(I2, fun, argnums, has_aux, forward, b);
  });
}

// jax.hessian(f) = jacfwd(jacrev(f)), as JAX defines it.
Value make_hessian(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "hessian", {"fun", "argnums=", "has_aux=", "holomorphic="});
  Value fun = p.get("fun"), argnums = p.get("argnums");
  const bool has_aux = p.get("has_aux") && I.truthy(p.get("has_aux"));
  Value rev = interp::make_builtin("jacrev", [fun, argnums, has_aux](Interp& I2, CallArgs& b) {
    return call_jacobian(I2, fun, argnums, has_aux, false, b);
  });
  return interp::make_builtin("hessian", [rev, argnums, has_aux](Interp& I2, CallArgs& b) {
    return call_jacobian(I2, rev, argnums, has_aux, true, b);
  });
}

}  // namespace

void install_grad(interp::ModuleObj& jax) {
  jax.dict.set("jacfwd", interp::make_builtin("jacfwd", [](Interp& I, CallArgs& a) { return make_jacobian(I, a, true); }));
  jax.dict.set("jacrev", interp::make_builtin("jacrev", [](Interp& I, CallArgs& a) { return make_jacobian(I, a, false); }));
  jax.dict.set("jacobian", interp::make_builtin("jacobian", [](Interp& I, CallArgs& a) { return make_jacobian(I, a, false); }));
  jax.dict.set("hessian", interp::make_builtin("hessian", make_hessian));
  jax.dict.set("grad", interp::make_builtin("grad", [](Interp& I, CallArgs& a) { return make_grad(I, a, false); }));
  jax.dict.set("value_and_grad", interp::make_builtin("value_and_grad", [](Interp& I, CallArgs& a) { return make_grad(I, a, true); }));
  jax.dict.set("vjp", interp::make_builtin("vjp", jax_vjp));
  jax.dict.set("jvp", interp::make_builtin("jvp", jax_jvp));
  jax.dict.set("linearize", interp::make_builtin("linearize", jax_linearize));
}

}  // namespace shard::api
