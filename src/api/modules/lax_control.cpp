// jax.lax control flow (see lax_control.hpp). Every construct goes through apply_multi, so it
// records into the innermost trace (jit, an enclosing loop body) or, called eagerly, runs as
// a one-op program. Bodies are traced by transforms/region_trace.cpp helpers; this file holds
// each construct's signature, checks and the IR op it emits.
#include "api/modules/lax_control.hpp"

#include <fmt/format.h>

#include "api/objects/array_value.hpp"
#include "api/pytree/pytree.hpp"
#include "api/transforms/region_trace.hpp"
#include "interp/builtins/support.hpp"
#include "sharding/rules.hpp"

namespace shard::api {

using interp::ArgParser;
using interp::ObjKind;
using ir::ValueId;
using trace::Trace;
namespace bi = interp::bi;

namespace {

bool is_integral(types::DType t) { return types::dtype_kind(t) == 'i' || types::dtype_kind(t) == 'u'; }

std::vector<ArrayType> types_of(const Trace& t, const std::vector<ValueId>& ids) {
  std::vector<ArrayType> out;
  for (auto v : ids) out.push_back(t.type(v));
  return out;
}

// JAX promotes a weak-typed initial carry to what the body returns (and traces again).
bool promote_weak_carries(Trace& t, std::vector<ValueId>& carry, const std::vector<ArrayType>& out) {
  bool changed = false;
  for (size_t i = 0; i < carry.size() && i < out.size(); ++i) {
    const auto& in = t.type(carry[i]);
    if (in.weak_type() && !same_type_ignoring_weak(in, out[i]) && in.shape() == out[i].shape()) {
      carry[i] = trace::convert(t, carry[i], trace::DTypeW{out[i].dtype(), out[i].weak_type()});
      changed = true;
    }
  }
  return changed;
}

// The first collective `f` runs (regions included), or null.
const ir::Op* first_collective(const ir::Function& f) {
  for (const auto& op : f.ops) {
    if (ir::is_collective(op.kind)) return &op;
    for (const auto& r : op.regions)
      if (const ir::Op* c = first_collective(*r)) return c;
  }
  return nullptr;
}

// Beyond JAX (where this hangs on real hardware): a predicate that differs between devices
// sends them down different paths, and a collective on only some of them can never complete.
void check_uniform_control(Interp& I, const char* what, const ArrayType& pred, const std::vector<const Region*>& bodies) {
  if (pred.vma().empty()) return;
  for (const Region* r : bodies)
    if (const ir::Op* c = first_collective(*r->fn)) {
      std::vector<std::string> q;
      for (auto& a : pred.vma()) q.push_back("'" + a + "'");
      I.raise("ValueError", fmt::format("{} inside shard_map: its predicate varies over the manual axes {} (type {}), so devices may take "
                                        "different paths, but the body runs the collective `{}`, which every device of its group "
                                        "must reach. Make the predicate uniform first (e.g. reduce it with jax.lax.pmax / psum over "
                                        "those axes) or move the collective out of the {}.",
                                        what, fmt::join(q, ", "), pred.str_short(), ir::op_display_name(*c),
                                        std::string(what) == "lax.while_loop" ? "loop" : "branches"));
    }
}

// A loop's results are typed by what its body returns (weak types included).
std::vector<ArrayType> carry_result_types(const Trace& t, const std::vector<ValueId>& carry, const std::vector<ArrayType>& body_out) {
  std::vector<ArrayType> out;
  for (size_t i = 0; i < carry.size(); ++i) out.push_back(t.type(carry[i]).with_weak_type(body_out.at(i).weak_type()));
  return out;
}

void check_carry(Interp& I, const char* loop, const std::string& carry_name, const TreeDef& def,
                 const std::vector<ArrayType>& in, const std::vector<ArrayType>& out) {
  auto paths = leaf_path_strings(I, def);
  std::vector<sharding::CarryComponent> comps;
  for (size_t i = 0; i < in.size(); ++i) comps.push_back({paths.at(i), in[i], out.at(i)});
  sharding::check_carry_types(loop, carry_name, comps);
}

void check_same_structure(Interp& I, const char* loop, const TreeDef& in, const TreeDef& out) {
  if (tree_signature(I, in) == tree_signature(I, out)) return;
  I.raise("TypeError", fmt::format("{} function carry input and carry output must have the same pytree structure, but they differ:\n\n"
                                   "the input tree structure is:\n{}\n\nthe output tree structure is:\n{}\n\n"
                                   "Revise the function so that the carry output has the same pytree structure as the carry input.",
                                   loop, pytreedef_str(I, in), pytreedef_str(I, out)));
}

// ---- while_loop ---------------------------------------------------------------------------------

struct WhileParts {
  Region cond, body;
};

// Traces cond and body on the carry's types, promoting weak initial carries once.
WhileParts trace_while_parts(Interp& I, Trace& t, const char* loop, const Value& cond_fun, const Value& body_fun,
                             const std::string& carry_name, const TreeDef& def, std::vector<ValueId>& carry,
                             const std::function<Value(const Value& body, const std::vector<Value>&)>& call_body) {
  for (int attempt = 0;; ++attempt) {
    auto types = types_of(t, carry);
    Region cond = trace_region(I, t, "cond", types, [&](const std::vector<Value>& xs) {
      size_t pos = 0;
      return I.call(cond_fun, std::vector<Value>{tree_unflatten(I, def, xs, pos)});
    });
    const auto& ct = cond.result_types;
    if (ct.size() != 1 || ct[0].dtype() != types::DType::Bool || ct[0].rank() != 0) {
      std::vector<std::string> shown;
      for (auto& x : ct) shown.push_back(shaped_array_str(x));
      I.raise("TypeError", fmt::format("cond_fun must return a boolean scalar, but got output type(s) [{}].", fmt::join(shown, ", ")));
    }
    Region body = trace_region(I, t, "body", types, [&](const std::vector<Value>& xs) { return call_body(body_fun, xs); });
    check_uniform_control(I, "lax.while_loop", ct[0], {&cond, &body});
    check_same_structure(I, loop, def, body.out);
    if (attempt == 0 && promote_weak_carries(t, carry, body.result_types)) continue;
    check_carry(I, loop, carry_name, def, types, body.result_types);
    return {std::move(cond), std::move(body)};
  }
}

std::vector<ValueId> emit_while(Trace& t, const WhileParts& w, const std::vector<ValueId>& carry) {
  return trace::while_loop(t, {w.cond.fn, w.cond.captured}, {w.body.fn, w.body.captured}, carry,
                           carry_result_types(t, carry, w.body.result_types));
}

Value lax_while_loop(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "while_loop", {"cond_fun", "body_fun", "init_val"});
  Value cond_fun = p.get("cond_fun"), body_fun = p.get("body_fun");
  std::vector<Value> leaves;
  TreeDef def = tree_flatten(I, p.get("init_val"), leaves);
  auto outs = apply_multi(I, "while_loop", leaves, [&](Trace& t, const std::vector<ValueId>& ids) {
    std::vector<ValueId> carry = ids;
    auto w = trace_while_parts(I, t, "while_loop body", cond_fun, body_fun, param_name(body_fun, 0), def, carry,
                               [&](const Value& f, const std::vector<Value>& xs) {
                                 size_t pos = 0;
                                 return I.call(f, std::vector<Value>{tree_unflatten(I, def, xs, pos)});
                               });
    return emit_while(t, w, carry);
  });
  size_t pos = 0;
  return tree_unflatten(I, def, outs, pos);
}

// ---- scan ---------------------------------------------------------------------------------------

struct ScanSetup {
  Value f;
  TreeDef carry_def, xs_def;
  size_t ncarry = 0, nxs = 0;
  int64_t length = 0;
  bool reverse = false;
  std::string carry_name;  // the body's carry parameter, as errors name it
};

// Emits a scan whose body is `call_body(carry tracers, x tracers) -> (carry, y)` as a pytree
// pair; returns the carry leaves then the stacked y leaves, and the y structure.
std::vector<ValueId> emit_scan(Interp& I, Trace& t, const ScanSetup& s, std::vector<ValueId> carry, const std::vector<ValueId>& xs,
                               TreeDef& ys_def, const char* loop,
                               const std::function<Value(const std::vector<Value>&, const std::vector<Value>&)>& call_body) {
  std::vector<ArrayType> x_types;
  for (auto v : xs) {
    const auto& xt = t.type(v);
    auto entries = xt.spec().entries();
    if (!entries.empty() && !entries[0].empty())
      I.raise("ValueError", fmt::format("0th dimension of all xs should be replicated. Got {}", xt.spec().repr()));
    types::Shape shape(xt.shape().begin() + 1, xt.shape().end());
    entries.erase(entries.begin());
    x_types.push_back(ArrayType(xt.dtype(), shape, xt.mesh(), types::PartitionSpec(entries), xt.vma(), xt.weak_type()));
  }
  for (int attempt = 0;; ++attempt) {
    auto types = types_of(t, carry);
    std::vector<ArrayType> params = types;
    params.insert(params.end(), x_types.begin(), x_types.end());
    TreeDef carry_out;
    Region body = trace_region(I, t, "body", params, [&](const std::vector<Value>& vs) -> Value {
      std::vector<Value> c(vs.begin(), vs.begin() + static_cast<long>(s.ncarry)), x(vs.begin() + static_cast<long>(s.ncarry), vs.end());
      Value out = call_body(c, x);
      if (out->kind != ObjKind::Tuple || I.to_vector(out).size() != 2)
        I.raise("TypeError", fmt::format("scan body output must be a pair, got {}.", as_tracer(out) ? shaped_array_str(type_of(out)) : I.repr(out)));
      return out;
    });
    // body.out is the pair (carry, y): split its leaves.
    const TreeDef& c_def = body.out.children.at(0);
    ys_def = body.out.children.at(1);
    check_same_structure(I, loop, s.carry_def, c_def);
    std::vector<ArrayType> c_out(body.result_types.begin(), body.result_types.begin() + static_cast<long>(s.ncarry));
    if (attempt == 0 && promote_weak_carries(t, carry, c_out)) continue;
    check_carry(I, loop, s.carry_name, s.carry_def, types, c_out);
    std::vector<ArrayType> result_types = carry_result_types(t, carry, c_out);
    for (size_t i = s.ncarry; i < body.result_types.size(); ++i) {
      const auto& yt = body.result_types[i];
      types::Shape shape{s.length};
      shape.insert(shape.end(), yt.shape().begin(), yt.shape().end());
      auto entries = yt.spec().entries();
      entries.insert(entries.begin(), types::PartitionSpec::Entry{});
      result_types.push_back(ArrayType(yt.dtype(), shape, yt.mesh(), types::PartitionSpec(entries), yt.vma(), yt.weak_type()));
    }
    return trace::scan(t, {body.fn, body.captured}, carry, xs, result_types, s.length, s.reverse);
  }
}

Value lax_scan(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "scan", {"f", "init", "xs=", "length=", "reverse=", "unroll=", "_split_transpose="});
  ScanSetup s;
  s.f = p.get("f");
  s.carry_name = param_name(s.f, 0);
  if (!I.truthy(I.call(I.getattr(I.builtins(), "callable"), std::vector<Value>{s.f})))
    I.raise("TypeError", "lax.scan: f argument should be a callable.");
  std::vector<Value> carry_leaves, xs_leaves;
  s.carry_def = tree_flatten(I, p.get("init"), carry_leaves);
  Value xs = p.get("xs");
  s.xs_def = tree_flatten(I, xs ? xs : interp::none(), xs_leaves);
  s.ncarry = carry_leaves.size();
  s.nxs = xs_leaves.size();
  s.reverse = p.get("reverse") && I.truthy(p.get("reverse"));
  std::vector<int64_t> lengths;
  for (auto& x : xs_leaves) {
    auto shape = is_array_like(x) ? type_of(x).shape() : types::Shape{};
    if (shape.empty()) I.raise("ValueError", fmt::format("scan got value with no leading axis to scan over: {}.", I.str(x)));
    lengths.push_back(shape[0]);
  }
  if (Value len = p.get("length"); len && len->kind != ObjKind::None) {
    auto l = bi::int_of(len);
    if (!l) I.raise("TypeError", "The `length` argument to `scan` expects a concrete `int` value.");
    for (auto x : lengths)
      if (x != *l) {
        std::vector<std::string> ls;
        for (auto y : lengths) ls.push_back(std::to_string(y));
        I.raise("ValueError", fmt::format("scan got `length` argument of {} which disagrees with leading axis sizes [{}].", *l, fmt::join(ls, ", ")));
      }
    s.length = *l;
  } else {
    if (lengths.empty()) I.raise("ValueError", "scan got no values to scan over and `length` not provided.");
    for (auto x : lengths)
      if (x != lengths[0]) {
        std::vector<std::string> ls;
        for (auto y : lengths) ls.push_back(std::to_string(y));
        I.raise("ValueError", fmt::format("scan got values with different leading axis sizes: {}.", fmt::join(ls, ", ")));
      }
    s.length = lengths[0];
  }
  std::vector<Value> operands = carry_leaves;
  operands.insert(operands.end(), xs_leaves.begin(), xs_leaves.end());
  TreeDef ys_def;
  auto outs = apply_multi(I, "scan", operands, [&](Trace& t, const std::vector<ValueId>& ids) {
    std::vector<ValueId> carry(ids.begin(), ids.begin() + static_cast<long>(s.ncarry)), x(ids.begin() + static_cast<long>(s.ncarry), ids.end());
    return emit_scan(I, t, s, carry, x, ys_def, "scan body", [&](const std::vector<Value>& c, const std::vector<Value>& xv) {
      size_t p1 = 0, p2 = 0;
      return I.call(s.f, std::vector<Value>{tree_unflatten(I, s.carry_def, c, p1), tree_unflatten(I, s.xs_def, xv, p2)});
    });
  });
  std::vector<Value> c(outs.begin(), outs.begin() + static_cast<long>(s.ncarry)), ys(outs.begin() + static_cast<long>(s.ncarry), outs.end());
  size_t p1 = 0, p2 = 0;
  return interp::make_tuple({tree_unflatten(I, s.carry_def, c, p1), tree_unflatten(I, ys_def, ys, p2)});
}

// ---- fori_loop ----------------------------------------------------------------------------------

// fori_loop with concrete bounds is a scan over (i, carry) of length upper - lower (as JAX
// does); with traced bounds, a while_loop over (i, upper, carry).
Value lax_fori_loop(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "fori_loop", {"lower", "upper", "body_fun", "init_val", "*", "unroll="});
  Value lower = p.get("lower"), upper = p.get("upper"), body_fun = p.get("body_fun");
  std::vector<Value> leaves;
  TreeDef def = tree_flatten(I, p.get("init_val"), leaves);
  auto lo = bi::int_of(lower), hi = bi::int_of(upper);
  std::vector<Value> operands{lower, upper};
  operands.insert(operands.end(), leaves.begin(), leaves.end());
  auto call_body = [&](const Value& i, const std::vector<Value>& xs) {
    size_t pos = 0;
    return I.call(body_fun, std::vector<Value>{i, tree_unflatten(I, def, xs, pos)});
  };
  auto outs = apply_multi(I, "fori_loop", operands, [&](Trace& t, const std::vector<ValueId>& ids) -> std::vector<ValueId> {
    auto dt = trace::promote({t.type(ids[0]).dtype(), t.type(ids[0]).weak_type()}, {t.type(ids[1]).dtype(), t.type(ids[1]).weak_type()});
    if (!is_integral(dt.dtype))
      I.raise("TypeError", fmt::format("lower and upper arguments to fori_loop must have equal types, got {} and {}",
                                       shaped_array_str(t.type(ids[0])), shaped_array_str(t.type(ids[1]))));
    ValueId i0 = trace::convert(t, ids[0], dt), n = trace::convert(t, ids[1], dt);
    std::vector<ValueId> carry(ids.begin() + 2, ids.end());
    if (lo && hi) {
      ScanSetup s;
      s.f = body_fun;
      s.carry_name = "loop_carry";  // JAX's scanned wrapper names it so
      s.ncarry = carry.size() + 1;
      s.length = std::max<int64_t>(0, *hi - *lo);
      // The scanned carry is (i, x): its structure for the checks is a tuple of the two.
      s.carry_def.kind = TreeDef::Tuple;
      s.carry_def.children = {TreeDef{}, def};
      std::vector<ValueId> c{i0};
      c.insert(c.end(), carry.begin(), carry.end());
      TreeDef ys_def;
      auto out = emit_scan(I, t, s, c, {}, ys_def, "scan body", [&](const std::vector<Value>& cv, const std::vector<Value>&) -> Value {
        std::vector<Value> xs(cv.begin() + 1, cv.end());
        Value next = apply(I, "add", {cv[0], interp::make_int(1)}, [&](Trace& rt, const std::vector<ValueId>& v) {
          return std::vector<ValueId>{trace::binary(rt, "add", ir::EwOp::Add, v[0], v[1])};
        });
        return interp::make_tuple({interp::make_tuple({next, call_body(cv[0], xs)}), interp::none()});
      });
      return std::vector<ValueId>(out.begin() + 1, out.end());
    }
    std::vector<ValueId> c{i0, n};
    c.insert(c.end(), carry.begin(), carry.end());
    TreeDef wdef;
    wdef.kind = TreeDef::Tuple;
    wdef.children = {TreeDef{}, TreeDef{}, def};
    auto w = trace_while_parts(
        I, t, "while_loop body",
        interp::make_builtin("fori_cond", [](Interp& I2, CallArgs& a2) -> Value {
          auto st = I2.to_vector(a2.args.at(0));
          return I2.compare(ast::CmpOpKind::Lt, st.at(0), st.at(1));
        }),
        body_fun, "loop_carry", wdef, c, [&](const Value&, const std::vector<Value>& xs) -> Value {
          std::vector<Value> rest(xs.begin() + 2, xs.end());
          Value next = I.binary_op(ast::BinOpKind::Add, xs[0], interp::make_int(1));
          return interp::make_tuple({next, xs[1], call_body(xs[0], rest)});
        });
    auto out = emit_while(t, w, c);
    return std::vector<ValueId>(out.begin() + 2, out.end());
  });
  size_t pos = 0;
  return tree_unflatten(I, def, outs, pos);
}

// ---- cond / switch --------------------------------------------------------------------------------

std::vector<ValueId> emit_branches(Interp& I, Trace& t, ValueId index, const std::vector<Value>& branches,
                                   const std::vector<ValueId>& args, const TreeDef& args_def, TreeDef& out_def, bool is_cond) {
  std::vector<Region> regions;
  auto types = types_of(t, args);
  for (size_t b = 0; b < branches.size(); ++b)
    regions.push_back(trace_region(I, t, fmt::format("branch{}", b), types, [&](const std::vector<Value>& xs) {
      size_t pos = 0;
      Value tuple = tree_unflatten(I, args_def, xs, pos);
      return I.call(branches[b], I.to_vector(tuple));
    }));
  auto what = [&](size_t b) {
    if (is_cond) return std::string("true_fun and false_fun output");
    return fmt::format("branch 0 output and branch {} output", b);
  };
  for (size_t b = 1; b < regions.size(); ++b) {
    if (tree_signature(I, regions[b].out) != tree_signature(I, regions[0].out))
      I.raise("TypeError", fmt::format("{} must have same type structure, got {} and {}.", what(b),
                                       pytreedef_str(I, regions[is_cond ? 1 : 0].out), pytreedef_str(I, regions[is_cond ? 0 : b].out)));
    const auto& r0 = regions[is_cond ? 1 : 0].result_types;
    const auto& rb = regions[is_cond ? 0 : b].result_types;
    bool match = true;
    for (size_t k = 0; k < r0.size(); ++k) match &= same_type_ignoring_weak(r0[k], rb[k]);
    if (!match) I.raise("TypeError", fmt::format("{} must have identical types, got\n{}.", what(b), type_diff_str(I, regions[0].out, r0, rb)));
  }
  std::vector<const Region*> bodies;
  for (auto& r : regions) bodies.push_back(&r);
  check_uniform_control(I, is_cond ? "lax.cond" : "lax.switch", t.type(index), bodies);
  out_def = regions[0].out;
  // Each branch takes the arguments, then every value any branch captured (the union).
  std::vector<ValueId> captured;
  for (auto& r : regions)
    for (auto v : r.captured)
      if (std::find(captured.begin(), captured.end(), v) == captured.end()) captured.push_back(v);
  std::vector<std::shared_ptr<const ir::Function>> fns;
  for (auto& r : regions) fns.push_back(with_capture_params(r, captured, t));
  std::vector<ArrayType> result_types = regions[0].result_types;
  for (size_t k = 0; k < result_types.size(); ++k) {
    bool weak = true;
    for (auto& r : regions) weak &= r.result_types[k].weak_type();
    result_types[k] = result_types[k].with_weak_type(weak);
  }
  std::vector<ValueId> operands = args;
  operands.insert(operands.end(), captured.begin(), captured.end());
  return trace::cond(t, index, operands, fns, result_types);
}

Value run_branches(Interp& I, const char* name, const Value& index_or_pred, const std::vector<Value>& branches,
                   const std::vector<Value>& operands, bool is_cond) {
  std::vector<Value> leaves;
  TreeDef args_def = tree_flatten(I, interp::make_tuple(operands), leaves);
  std::vector<Value> all{index_or_pred};
  all.insert(all.end(), leaves.begin(), leaves.end());
  TreeDef out_def;
  auto outs = apply_multi(I, name, all, [&](Trace& t, const std::vector<ValueId>& ids) {
    const auto& pt = t.type(ids[0]);
    if (pt.rank() != 0)
      I.raise("TypeError", fmt::format("{} must be a scalar, got {} of shape {}.", is_cond ? "Pred" : "Branch index",
                                       I.str(index_or_pred), py_shape(pt.shape())));
    ValueId index = ids[0];
    if (is_cond) {
      if (pt.dtype() != types::DType::Bool && !is_integral(pt.dtype()) && !types::is_float(pt.dtype()))
        I.raise("TypeError", fmt::format("Pred type must be either boolean or number, got {}.", types::dtype_name(pt.dtype())));
      if (pt.dtype() != types::DType::Bool)
        index = trace::binary(t, "ne", ir::EwOp::Ne, index, trace::scalar_constant(t, 0, {pt.dtype(), true}));
    } else if (!is_integral(pt.dtype())) {
      I.raise("TypeError", fmt::format("index argument to switch must be an int32 scalar, got {}.", shaped_array_str(pt)));
    }
    index = trace::convert(t, index, {types::DType::I32, false});
    std::vector<ValueId> args(ids.begin() + 1, ids.end());
    return emit_branches(I, t, index, branches, args, args_def, out_def, is_cond);
  });
  size_t pos = 0;
  return tree_unflatten(I, out_def, outs, pos);
}

Value lax_cond(Interp& I, CallArgs& a) {
  if (a.args.size() < 3) I.raise("TypeError", "cond() missing required arguments: 'pred', 'true_fun', 'false_fun'");
  for (auto& [k, v] : a.kwargs)
    if (k != "operand") I.raise("TypeError", fmt::format("cond() got an unexpected keyword argument '{}'", k));
  std::vector<Value> operands(a.args.begin() + 3, a.args.end());
  for (auto& [k, v] : a.kwargs) operands.push_back(v);
  for (int i = 1; i <= 2; ++i)
    if (!I.truthy(I.call(I.getattr(I.builtins(), "callable"), std::vector<Value>{a.args[i]})))
      I.raise("TypeError", fmt::format("{}_fun argument must be callable.", i == 1 ? "true" : "false"));
  // Branch 0 runs for a false predicate.
  return run_branches(I, "cond", a.args[0], {a.args[2], a.args[1]}, operands, true);
}

Value lax_switch(Interp& I, CallArgs& a) {
  if (a.args.size() < 2) I.raise("TypeError", "switch() missing required arguments: 'index', 'branches'");
  auto branches = I.to_vector(a.args[1]);
  if (branches.empty()) I.raise("ValueError", "Empty branch sequence");
  std::vector<Value> operands(a.args.begin() + 2, a.args.end());
  for (auto& [k, v] : a.kwargs) operands.push_back(v);
  return run_branches(I, "switch", a.args[0], branches, operands, false);
}

// lax.map(f, xs, *, batch_size=None): f over the leading axis of xs, sequentially (a scan);
// with batch_size, a scan over vmapped chunks of that many, the remainder vmapped after.
Value lax_map(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "map", {"f", "xs", "*", "batch_size="});
  Value f = p.get("f"), xs = p.get("xs");
  Value scan = interp::make_builtin("scan", lax_scan);
  Value jax = I.import_module("jax", I.current_loc());
  Value jnp = I.import_module("jax.numpy", I.current_loc());
  Value tree_map = I.getattr(I.getattr(jax, "tree_util"), "tree_map");
  Value vmap = I.getattr(jax, "vmap");
  auto body_of = [&](const Value& fn) {
    return interp::make_builtin("map_body", [fn](Interp& I2, CallArgs& b) -> Value {
      return interp::make_tuple({interp::none(), I2.call(fn, std::vector<Value>{b.args.at(1)})});
    });
  };
  if (!p.get("batch_size") || p.get("batch_size")->kind == interp::ObjKind::None) return I.to_vector(I.call(scan, std::vector<Value>{body_of(f), interp::none(), xs})).at(1);
  const int64_t bs = interp::bi::int_of(p.get("batch_size")).value_or(0);
  std::vector<Value> leaves;
  tree_flatten(I, xs, leaves);
  if (leaves.empty()) I.raise("ValueError", "lax.map: xs must have at least one array leaf");
  const int64_t n = type_of(leaves[0]).shape().at(0);
  if (bs <= 0) I.raise("ValueError", fmt::format("lax.map: batch_size must be positive, got {}", bs));
  const int64_t full = n / bs * bs, rem = n - full;
  Value out_main, out_rem;
  Value slice_in_dim = I.getattr(I.getattr(jax, "lax"), "slice_in_dim");
  auto slice = [&](int64_t lo, int64_t hi) {
    return I.call(tree_map, std::vector<Value>{interp::make_builtin("slice", [slice_in_dim, lo, hi](Interp& I2, CallArgs& b) -> Value {
                                                 return I2.call(slice_in_dim, std::vector<Value>{b.args.at(0), interp::make_int(lo), interp::make_int(hi)});
                                               }),
                                               xs});
  };
  if (full > 0) {
    Value chunks = I.call(tree_map, std::vector<Value>{interp::make_builtin("chunk", [bs, jnp](Interp& I2, CallArgs& b) -> Value {
                                       auto shape = type_of(b.args.at(0)).shape();
                                       std::vector<Value> dims{interp::make_int(shape[0] / bs), interp::make_int(bs)};
                                       for (size_t d = 1; d < shape.size(); ++d) dims.push_back(interp::make_int(shape[d]));
                                       return I2.call(I2.getattr(jnp, "reshape"), std::vector<Value>{b.args.at(0), interp::make_tuple(dims)});
                                     }), slice(0, full)});
    Value ys = I.to_vector(I.call(scan, std::vector<Value>{body_of(I.call(vmap, std::vector<Value>{f})), interp::none(), chunks})).at(1);
    out_main = I.call(tree_map, std::vector<Value>{interp::make_builtin("unchunk", [jnp](Interp& I2, CallArgs& b) -> Value {
                                   auto shape = type_of(b.args.at(0)).shape();
                                   std::vector<Value> dims{interp::make_int(shape[0] * shape[1])};
                                   for (size_t d = 2; d < shape.size(); ++d) dims.push_back(interp::make_int(shape[d]));
                                   return I2.call(I2.getattr(jnp, "reshape"), std::vector<Value>{b.args.at(0), interp::make_tuple(dims)});
                                 }), ys});
  }
  if (rem > 0) out_rem = I.call(I.call(vmap, std::vector<Value>{f}), std::vector<Value>{slice(full, n)});
  if (!out_main) return out_rem;
  if (!out_rem) return out_main;
  return I.call(tree_map, std::vector<Value>{interp::make_builtin("concat", [jnp](Interp& I2, CallArgs& b) -> Value {
                                               return I2.call(I2.getattr(jnp, "concatenate"),
                                                              std::vector<Value>{interp::make_list({b.args.at(0), b.args.at(1)})});
                                             }),
                                             out_main, out_rem});
}

}  // namespace

void install_lax_control(Interp&, interp::ModuleObj& lax) {
  lax.dict.set("map", interp::make_builtin("map", lax_map));
  lax.dict.set("while_loop", interp::make_builtin("while_loop", lax_while_loop));
  lax.dict.set("scan", interp::make_builtin("scan", lax_scan));
  lax.dict.set("fori_loop", interp::make_builtin("fori_loop", lax_fori_loop));
  lax.dict.set("cond", interp::make_builtin("cond", lax_cond));
  lax.dict.set("switch", interp::make_builtin("switch", lax_switch));
}

}  // namespace shard::api
