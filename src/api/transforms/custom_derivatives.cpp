// jax.custom_jvp and jax.custom_vjp: functions whose derivatives the user defines. Called on
// concrete arrays outside any trace, the function simply runs. Under a trace (jit, grad, a
// loop body) the function is traced as the region of a custom_jvp_call / custom_vjp_call op
// that carries the user's rule as a callable (autodiff/custom_rules.hpp); autodiff calls the
// rule, and everything else runs the body.
#include "api/transforms/custom_derivatives.hpp"

#include <fmt/format.h>

#include "api/objects/array_value.hpp"
#include "api/transforms/region_trace.hpp"
#include "autodiff/custom_rules.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ClassP;
using interp::Interp;
using interp::ObjKind;
using interp::Value;
using ir::ValueId;
namespace bi = interp::bi;

namespace {

struct CustomObj : interp::NativeObj {
  bool vjp = false;  // custom_vjp (else custom_jvp)
  Value fun, jvp, fwd, bwd;
  std::vector<int64_t> nondiff;
  std::string id;
  CustomObj(ClassP c, bool v, Value f, std::vector<int64_t> nd)
      : NativeObj(std::move(c), gc_tracked), vjp(v), fun(std::move(f)), nondiff(std::move(nd)) {
    static int64_t counter = 0;
    id = fmt::format("{}#{}", v ? "custom_vjp" : "custom_jvp", ++counter);
  }
  void gc_traverse(interp::GcVisitor& visit) const override {
    for (auto* v : {&fun, &jvp, &fwd, &bwd}) visit(*v);
  }
  void gc_clear() override {
    for (auto* v : {&fun, &jvp, &fwd, &bwd}) v->reset();
  }
};

ClassP custom_jvp_class();
ClassP custom_vjp_class();

std::string fn_name(Interp& I, const Value& f) {
  if (auto n = I.try_getattr(f, "__name__"); n && (*n)->kind == ObjKind::Str) return static_cast<interp::StrObj&>(**n).v;
  return "fun";
}

bool is_nondiff(const CustomObj& c, size_t i) { return std::find(c.nondiff.begin(), c.nondiff.end(), static_cast<int64_t>(i)) != c.nondiff.end(); }

// The call's arguments split into the differentiable ones (flattened) and the nondiff ones.
struct SplitArgs {
  std::vector<Value> args;      // all positional arguments, as given
  std::vector<Value> diff;      // the differentiable ones, in order
  std::vector<Value> nondiff;   // the nondiff_argnums ones, in order
  TreeDef diff_def;             // tuple of the differentiable arguments
  std::vector<Value> leaves;
};

SplitArgs split_args(Interp& I, const CustomObj& c, const CallArgs& a) {
  if (!a.kwargs.empty()) I.raise("TypeError", "custom_jvp / custom_vjp functions take positional arguments only in shard");
  SplitArgs s;
  s.args = a.args;
  for (size_t i = 0; i < a.args.size(); ++i) (is_nondiff(c, i) ? s.nondiff : s.diff).push_back(a.args[i]);
  s.diff_def = tree_flatten(I, interp::make_tuple(s.diff), s.leaves);
  return s;
}

// All positional arguments again, with the differentiable ones taken from `diff_tuple`.
std::vector<Value> merge_args(Interp& I, const CustomObj& c, const SplitArgs& s, const Value& diff_tuple) {
  auto diff = I.to_vector(diff_tuple);
  std::vector<Value> out;
  size_t d = 0, n = 0;
  for (size_t i = 0; i < s.args.size(); ++i) out.push_back(is_nondiff(c, i) ? s.nondiff[n++] : diff.at(d++));
  return out;
}

Value rebuild(Interp& I, const TreeDef& def, const std::vector<Value>& leaves) {
  size_t pos = 0;
  return tree_unflatten(I, def, leaves, pos);
}

std::vector<Value> wrap_all(const std::shared_ptr<trace::Trace>& t, const std::vector<ValueId>& ids, size_t from) {
  std::vector<Value> out;
  for (size_t i = from; i < ids.size(); ++i) out.push_back(wrap_tracer(t, ids[i]));
  return out;
}

// The leaves of a value, as values of the trace recorded now (constants materialised).
std::vector<ValueId> ids_of(Interp& I, const std::vector<Value>& leaves, const char* name) {
  if (leaves.empty()) return {};
  std::vector<ValueId> out;
  for (auto& v : apply_multi(I, name, leaves, [](trace::Trace&, const std::vector<ValueId>& ids) { return ids; }))
    out.push_back(as_tracer(v)->id);
  return out;
}

std::pair<Value, Value> as_pair(Interp& I, const Value& v, const std::string& what) {
  if (!v || (v->kind != ObjKind::Tuple && v->kind != ObjKind::List) || I.to_vector(v).size() != 2)
    I.raise("TypeError", fmt::format("{} must produce a pair (list or tuple of length two), got {}.", what, v ? I.repr(v) : "None"));
  auto items = I.to_vector(v);
  return {items[0], items[1]};
}

// custom_jvp_call: the user's jvp(*nondiff, primals, tangents) as the op's rule.
autodiff::CustomJvpRule jvp_rule(Interp& I, const CustomObj& c, const SplitArgs& s, size_t ncap, const TreeDef& out_def) {
  Value jvp = c.jvp;
  std::vector<Value> nondiff = s.nondiff;
  TreeDef diff_def = s.diff_def;
  Interp* interp = &I;
  return [interp, jvp, nondiff, diff_def, ncap, out_def](trace::Trace& t, const std::vector<ValueId>& primals,
                                                         const std::vector<ValueId>& tangents) {
    Interp& I2 = *interp;
    auto tp = t.shared_from_this();
    trace::TraceScope scope(tp);
    std::vector<Value> args = nondiff;
    args.push_back(rebuild(I2, diff_def, wrap_all(tp, primals, ncap)));
    args.push_back(rebuild(I2, diff_def, wrap_all(tp, tangents, ncap)));
    auto [po, to] = as_pair(I2, I2.call(jvp, args), "Custom JVP rule");
    std::vector<Value> pl, tl;
    TreeDef pd = tree_flatten(I2, po, pl), td = tree_flatten(I2, to, tl);
    if (tree_signature(I2, pd) != tree_signature(I2, td))
      I2.raise("TypeError", fmt::format("Custom JVP rule must produce primal and tangent outputs with equal container (pytree) structures, "
                                        "but got {} and {} respectively.", pytreedef_str(I2, pd), pytreedef_str(I2, td)));
    if (tree_signature(I2, pd) != tree_signature(I2, out_def))
      I2.raise("TypeError", fmt::format("Custom JVP rule must produce primal outputs with the same container (pytree) structure as the "
                                        "function's output, {}, but got {}.", pytreedef_str(I2, out_def), pytreedef_str(I2, pd)));
    return std::pair{ids_of(I2, pl, "custom_jvp"), ids_of(I2, tl, "custom_jvp")};
  };
}

// custom_vjp_call: the user's fwd(*args) -> (out, res) and bwd(*nondiff, res, g) -> cotangents.
autodiff::CustomVjpFwd vjp_fwd(Interp& I, const CustomObj& c, const SplitArgs& s, size_t ncap, const TreeDef& out_def) {
  Value fwd = c.fwd, bwd = c.bwd;
  std::vector<int64_t> nondiff_argnums = c.nondiff;
  // What merge_args needs later: the argument count and the nondiff values. The
  // differentiable arguments may be tracers, whose trace holds this rule (a cycle).
  SplitArgs split;
  split.args.assign(s.args.size(), nullptr);
  split.nondiff = s.nondiff;
  split.diff_def = s.diff_def;
  Interp* interp = &I;
  return [interp, fwd, bwd, nondiff_argnums, split, ncap, out_def](trace::Trace& t, const std::vector<ValueId>& primals) {
    Interp& I2 = *interp;
    auto tp = t.shared_from_this();
    trace::TraceScope scope(tp);
    CustomObj shape(nullptr, true, nullptr, nondiff_argnums);
    auto args = merge_args(I2, shape, split, rebuild(I2, split.diff_def, wrap_all(tp, primals, ncap)));
    auto [out, res] = as_pair(I2, I2.call(fwd, args), "Custom VJP fwd rule");
    std::vector<Value> ol, rl;
    TreeDef od = tree_flatten(I2, out, ol), rd = tree_flatten(I2, res, rl);
    if (tree_signature(I2, od) != tree_signature(I2, out_def))
      I2.raise("TypeError", fmt::format("Custom VJP fwd rule must produce a pair (list or tuple of length two) where the first element "
                                        "represents the primal output (equal to the output of the custom_vjp-decorated function), got "
                                        "output structure {} instead of {}.", pytreedef_str(I2, od), pytreedef_str(I2, out_def)));
    autodiff::CustomVjpForward fw{ids_of(I2, ol, "custom_vjp"), ids_of(I2, rl, "custom_vjp"), nullptr};
    std::vector<Value> nondiff = split.nondiff;
    TreeDef diff_def = split.diff_def;
    fw.bwd = std::make_shared<const autodiff::CustomVjpBwd>(
        [interp, bwd, nondiff, diff_def, rd, out_def, ncap](trace::Trace& t2, const std::vector<ValueId>& res_ids, const std::vector<ValueId>& cts) {
          Interp& I3 = *interp;
          auto tp2 = t2.shared_from_this();
          trace::TraceScope scope2(tp2);
          std::vector<Value> args = nondiff;
          args.push_back(rebuild(I3, rd, wrap_all(tp2, res_ids, 0)));
          args.push_back(rebuild(I3, out_def, wrap_all(tp2, cts, 0)));
          Value got = I3.call(bwd, args);
          const size_t ndiff = diff_def.children.size();
          if (!got || (got->kind != ObjKind::Tuple && got->kind != ObjKind::List) || I3.to_vector(got).size() != ndiff)
            I3.raise("TypeError", fmt::format("Custom VJP bwd rule must produce a tuple of length equal to the number of primal inputs "
                                              "({}), got {}.", ndiff, got ? I3.repr(got) : "None"));
          std::vector<autodiff::Tangent> out(ncap);
          auto items = I3.to_vector(got);
          for (size_t i = 0; i < ndiff; ++i) {
            std::vector<Value> leaves;
            TreeDef d = tree_flatten(I3, items[i], leaves);
            std::vector<Value> want_leaves;
            if (items[i]->kind == ObjKind::None) {  // None: a zero cotangent for the whole argument
              out.insert(out.end(), tree_num_leaves(diff_def.children[i]), std::nullopt);
              continue;
            }
            if (tree_signature(I3, d) != tree_signature(I3, diff_def.children[i]))
              I3.raise("TypeError", fmt::format("Custom VJP bwd rule must produce an output with the same container (pytree) structure as "
                                                "the args tuple of the primal function; the cotangent of argument {} has structure {} "
                                                "but the argument has {}.", i, pytreedef_str(I3, d), pytreedef_str(I3, diff_def.children[i])));
            for (auto id : ids_of(I3, leaves, "custom_vjp")) out.push_back(id);
          }
          return out;
        });
    return fw;
  };
}

Value call_custom(Interp& I, CustomObj& c, CallArgs& a) {
  SplitArgs s = split_args(I, c, a);
  bool traced = trace::current_trace() != nullptr;
  for (auto& l : s.leaves) traced |= as_tracer(l) != nullptr;
  if (!traced) return I.call(c.fun, a);  // concrete arrays: the function itself
  if (!c.vjp && !c.jvp)
    I.raise("AttributeError", fmt::format("No JVP defined for custom_jvp function {} using defjvp.", fn_name(I, c.fun)));
  if (c.vjp && !c.fwd)
    I.raise("AttributeError", fmt::format("No VJP defined for custom_vjp function {} using defvjp.", fn_name(I, c.fun)));
  const char* opname = c.vjp ? "custom_vjp_call" : "custom_jvp_call";
  TreeDef out_def;
  std::vector<Value> results = apply_multi(I, opname, s.leaves, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    std::vector<types::ArrayType> types;
    for (auto id : ids) types.push_back(t.type(id));
    Region r = trace_region(I, t, fn_name(I, c.fun), types, [&](const std::vector<Value>& tracers) {
      return I.call(c.fun, merge_args(I, c, s, rebuild(I, s.diff_def, tracers)));
    });
    out_def = r.out;
    std::vector<ValueId> operands = r.captured;
    operands.insert(operands.end(), ids.begin(), ids.end());
    const size_t ncap = r.captured.size();
    ir::attr::Names identity{fn_name(I, c.fun), c.id};
    if (c.vjp) {
      ir::attr::CustomVjpCall attrs{identity, std::make_shared<const autodiff::CustomVjpFwd>(vjp_fwd(I, c, s, ncap, r.out))};
      return t.emit_multi(ir::OpKind::CustomVjpCall, operands, r.result_types, attrs, {r.fn});
    }
    ir::attr::CustomJvpCall attrs{identity, std::make_shared<const autodiff::CustomJvpRule>(jvp_rule(I, c, s, ncap, r.out))};
    return t.emit_multi(ir::OpKind::CustomJvpCall, operands, r.result_types, attrs, {r.fn});
  });
  return rebuild(I, out_def, results);
}

CustomObj& self_custom(Interp& I, CallArgs& a, const char* meth) {
  auto* o = a.args.empty() ? nullptr : dynamic_cast<CustomObj*>(a.args[0].get());
  if (!o) I.raise("TypeError", fmt::format("descriptor '{}' requires a custom_jvp or custom_vjp object", meth));
  return *o;
}

void add_common(const ClassP& k) {
  bi::def(k, "__call__", [](Interp& I, CallArgs& a) -> Value {
    CustomObj& c = self_custom(I, a, "__call__");
    CallArgs rest = bi::args_without_self(a);
    return call_custom(I, c, rest);
  });
  bi::def_property(k, "__name__", [](Interp& I, CallArgs& a) -> Value { return interp::make_str(fn_name(I, self_custom(I, a, "__name__").fun)); });
  bi::def_property(k, "__wrapped__", [](Interp& I, CallArgs& a) -> Value { return self_custom(I, a, "__wrapped__").fun; });
  bi::def_property(k, "fun", [](Interp& I, CallArgs& a) -> Value { return self_custom(I, a, "fun").fun; });
}

ClassP custom_jvp_class() {
  static ClassP c = [] {
    auto k = interp::make_class("custom_jvp", {interp::T().object}, "jax");
    add_common(k);
    bi::def(k, "defjvp", [](Interp& I, CallArgs& a) -> Value {
      CustomObj& c = self_custom(I, a, "defjvp");
      interp::ArgParser p(I, a, "defjvp", {"self", "jvp", "symbolic_zeros="});
      c.jvp = p.get("jvp");
      return c.jvp;
    });
    bi::def(k, "__repr__", [](Interp& I, CallArgs& a) -> Value {
      return interp::make_str(fmt::format("<jax.custom_jvp function {}>", fn_name(I, self_custom(I, a, "__repr__").fun)));
    });
    return k;
  }();
  return c;
}

ClassP custom_vjp_class() {
  static ClassP c = [] {
    auto k = interp::make_class("custom_vjp", {interp::T().object}, "jax");
    add_common(k);
    bi::def(k, "defvjp", [](Interp& I, CallArgs& a) -> Value {
      CustomObj& c = self_custom(I, a, "defvjp");
      interp::ArgParser p(I, a, "defvjp", {"self", "fwd", "bwd", "symbolic_zeros=", "optimize_remat="});
      c.fwd = p.get("fwd");
      c.bwd = p.get("bwd");
      return interp::none();
    });
    bi::def(k, "__repr__", [](Interp& I, CallArgs& a) -> Value {
      return interp::make_str(fmt::format("<jax.custom_vjp function {}>", fn_name(I, self_custom(I, a, "__repr__").fun)));
    });
    return k;
  }();
  return c;
}

std::vector<int64_t> argnums_of(Interp& I, const Value& v) {
  std::vector<int64_t> out;
  if (!v || v->kind == ObjKind::None) return out;
  if (auto i = bi::int_of(v)) return {*i};
  for (auto& x : I.to_vector(v)) {
    auto i = bi::int_of(x);
    if (!i) I.raise("TypeError", fmt::format("nondiff_argnums must be a tuple of ints, got {}", I.repr(v)));
    out.push_back(*i);
  }
  return out;
}

Value make_custom(Interp& I, CallArgs& a, bool vjp) {
  const char* name = vjp ? "custom_vjp" : "custom_jvp";
  interp::ArgParser p(I, a, name, {"fun", "nondiff_argnums="});
  return std::make_shared<CustomObj>(vjp ? custom_vjp_class() : custom_jvp_class(), vjp, p.get("fun"), argnums_of(I, p.get("nondiff_argnums")));
}

}  // namespace

void install_custom_derivatives(interp::ModuleObj& jax) {
  jax.dict.set("custom_jvp", interp::make_builtin("custom_jvp", [](Interp& I, CallArgs& a) { return make_custom(I, a, false); }));
  jax.dict.set("custom_vjp", interp::make_builtin("custom_vjp", [](Interp& I, CallArgs& a) { return make_custom(I, a, true); }));
}

}  // namespace shard::api
