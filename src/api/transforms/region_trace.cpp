#include "api/transforms/region_trace.hpp"

#include <fmt/format.h>

#include "api/objects/array_value.hpp"

namespace shard::api {

using interp::Value;
using ir::ValueId;

Region trace_region(Interp& I, trace::Trace& parent, const std::string& name, const std::vector<ArrayType>& params,
                    const std::function<Value(const std::vector<Value>&)>& body) {
  auto rt = std::make_shared<trace::Trace>(name, parent.mesh(), parent.shared_from_this());
  std::vector<Value> tracers;
  std::vector<ValueId> explicit_params;
  for (auto& t : params) {
    explicit_params.push_back(rt->param(t));
    tracers.push_back(wrap_tracer(rt, explicit_params.back()));
  }
  Region r;
  std::vector<ValueId> ids;
  {
    trace::TraceScope scope(rt);
    Value result = body(tracers);
    std::vector<Value> leaves;
    r.out = tree_flatten(I, result, leaves);
    // Through an identity op: ancestors' tracers are captured, constants materialise.
    auto vals = leaves.empty() ? std::vector<Value>{}
                               : apply_multi(I, name, leaves, [](trace::Trace&, const std::vector<ValueId>& v) { return v; });
    for (auto& v : vals) ids.push_back(as_tracer(v)->id);
  }
  ir::Function fn = rt->finish(ids);
  // Captured values first (JAX's consts), then the explicit params.
  std::vector<ValueId> order;
  order.insert(order.end(), fn.params.begin() + static_cast<long>(explicit_params.size()), fn.params.end());
  order.insert(order.end(), explicit_params.begin(), explicit_params.end());
  fn.params = order;
  for (auto v : ids) r.result_types.push_back(fn.type(v));
  r.captured = rt->captured();
  r.fn = std::make_shared<const ir::Function>(std::move(fn));
  return r;
}

std::shared_ptr<const ir::Function> with_capture_params(const Region& r, const std::vector<ValueId>& all_captured,
                                                       const trace::Trace& parent) {
  ir::Function fn = *r.fn;
  const size_t ncap = r.captured.size();
  std::vector<ValueId> params(fn.params.begin() + static_cast<long>(ncap), fn.params.end());
  for (auto v : all_captured) {
    auto it = std::find(r.captured.begin(), r.captured.end(), v);
    if (it != r.captured.end()) params.push_back(fn.params[static_cast<size_t>(it - r.captured.begin())]);
    else params.push_back(fn.new_value(parent.type(v)));
  }
  fn.params = params;
  return std::make_shared<const ir::Function>(std::move(fn));
}

std::string param_name(const Value& fn, size_t k) {
  if (!fn) return "";
  if (fn->kind == interp::ObjKind::BoundMethod) return param_name(static_cast<interp::BoundMethodObj&>(*fn).func, k + 1);
  if (fn->kind != interp::ObjKind::Function) return "";
  auto& f = static_cast<interp::FunctionObj&>(*fn);
  if (!f.params || k >= f.params->positional.size()) return "";
  return f.params->positional[k].name;
}

namespace {
std::string diff_text(Interp& I, const TreeDef& d, const std::vector<ArrayType>& a, const std::vector<ArrayType>& b, size_t& pos,
                      bool top) {
  std::vector<std::string> parts;
  switch (d.kind) {
    case TreeDef::Leaf: {
      size_t i = pos++;
      std::string s = same_type_ignoring_weak(a[i], b[i]) ? shaped_array_str(a[i])
                                                          : fmt::format("DIFFERENT {} vs. {}", shaped_array_str(a[i]), shaped_array_str(b[i]));
      return top ? s : "'" + s + "'";
    }
    case TreeDef::None: return "None";
    case TreeDef::Key: return diff_text(I, d.children.at(0), a, b, pos, top);
    case TreeDef::Tuple: case TreeDef::List: case TreeDef::Custom:
      for (auto& c : d.children) parts.push_back(diff_text(I, c, a, b, pos, false));
      if (d.kind == TreeDef::Custom) return fmt::format("{}({})", d.node->type->name, fmt::join(parts, ", "));
      if (d.kind == TreeDef::List) return fmt::format("[{}]", fmt::join(parts, ", "));
      return parts.size() == 1 ? fmt::format("({},)", parts[0]) : fmt::format("({})", fmt::join(parts, ", "));
    case TreeDef::Dict:
      for (size_t i = 0; i < d.children.size(); ++i)
        parts.push_back(fmt::format("{}: {}", I.repr(d.keys[i]), diff_text(I, d.children[i], a, b, pos, false)));
      return fmt::format("{{{}}}", fmt::join(parts, ", "));
  }
  return "";
}
}  // namespace



std::string shaped_array_str(const ArrayType& t) {
  return fmt::format("ShapedArray({}{})", t.str_short(), t.weak_type() ? ", weak_type=True" : "");
}

std::string type_diff_str(Interp& I, const TreeDef& def, const std::vector<ArrayType>& a, const std::vector<ArrayType>& b) {
  size_t pos = 0;
  return diff_text(I, def, a, b, pos, true);
}

bool same_type_ignoring_weak(const ArrayType& a, const ArrayType& b) {
  if (a.with_weak_type(false) == b.with_weak_type(false)) return true;
  // An unsharded, non-varying value is the same type on any mesh: a value from outside a
  // mesh context and one made inside it (a constant picks up the context mesh) agree.
  auto plain = [](const ArrayType& t) {
    return !t.is_sharded() && t.vma().empty() && t.spec().unreduced().empty() && t.spec().reduced().empty();
  };
  return plain(a) && plain(b) && a.dtype() == b.dtype() && a.shape() == b.shape();
}

std::string py_shape(const types::Shape& s) {
  if (s.size() == 1) return fmt::format("({},)", s[0]);
  return fmt::format("({})", fmt::join(s, ", "));
}

}  // namespace shard::api
