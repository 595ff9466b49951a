// Before partitioning, a function with user-defined derivatives is just its body: the
// custom_jvp_call / custom_vjp_call ops give way to their regions' ops (at every depth).
#include <fmt/format.h>

#include "ir/builder.hpp"
#include "ir/ir.hpp"

namespace shard::ir {

namespace {
bool is_custom(OpKind k) {
  return k == OpKind::CustomJvpCall || k == OpKind::CustomVjpCall || k == OpKind::CustomVjpLin || k == OpKind::Checkpoint;
}

// Appends f's ops to `out` with the custom ops inlined.
std::vector<ValueId> inline_custom_into(Function& out, const Function& f, const std::vector<ValueId>& args) {
  std::vector<ValueId> map(f.value_types.size(), -1);
  for (size_t i = 0; i < f.params.size(); ++i) map[static_cast<size_t>(f.params[i])] = args.at(i);
  for (const auto& op : f.ops) {
    std::vector<ValueId> operands;
    for (auto v : op.operands) operands.push_back(map[static_cast<size_t>(v)]);
    std::vector<ValueId> rs;
    if (op.kind == OpKind::CustomVjpLin)
      throw types::ShardingError("TypeError", "can't apply forward-mode autodiff (jvp) to a custom_vjp function.");
    if (op.kind == OpKind::CustomJvpCall || op.kind == OpKind::CustomVjpCall || op.kind == OpKind::Checkpoint) {
      rs = inline_custom_into(out, *op.regions.at(0), operands);
    } else {
      std::vector<std::shared_ptr<const Function>> regions;
      for (auto& r : op.regions) regions.push_back(has_custom_calls(*r) ? std::make_shared<const Function>(inline_custom_calls(*r)) : r);
      std::vector<ArrayType> types;
      for (auto r : op.results) types.push_back(f.type(r));
      rs = Builder(out, op.loc).op_multi(op.kind, operands, types, op.attrs, regions);  // with its regions inlined
    }
    for (size_t k = 0; k < rs.size(); ++k) map[static_cast<size_t>(op.results[k])] = rs[k];
  }
  std::vector<ValueId> results;
  for (auto v : f.results) results.push_back(map[static_cast<size_t>(v)]);
  return results;
}
}  // namespace

bool has_custom_calls(const Function& f) {
  for (const auto& op : f.ops) {
    if (is_custom(op.kind)) return true;
    for (auto& r : op.regions)
      if (has_custom_calls(*r)) return true;
  }
  return false;
}

Function inline_custom_calls(const Function& f) {
  Function out;
  out.name = f.name;
  std::vector<ValueId> params;
  for (auto p : f.params) params.push_back(Builder(out).param(f.type(p)));
  out.results = inline_custom_into(out, f, params);
  return out;
}

std::vector<ValueId> copy_op(Function& dst, const Function& src, const Op& op, const std::vector<ValueId>& operands) {
  std::vector<ArrayType> types;
  for (auto r : op.results) types.push_back(src.type(r));
  return Builder(dst, op.loc).op_multi(op.kind, operands, types, op.attrs, op.regions);
}

std::vector<ValueId> inline_mapped(Function& out, const Function& f, const std::vector<ValueId>& args) {
  std::vector<ValueId> map(f.value_types.size(), -1);
  for (size_t i = 0; i < f.params.size(); ++i) map[static_cast<size_t>(f.params[i])] = args.at(i);
  for (const auto& op : f.ops) {
    std::vector<ValueId> operands;
    for (auto v : op.operands) operands.push_back(map[static_cast<size_t>(v)]);
    auto rs = copy_op(out, f, op, operands);
    for (size_t k = 0; k < rs.size(); ++k) map[static_cast<size_t>(op.results[k])] = rs[k];
  }
  return map;
}

std::vector<ValueId> inline_into(Function& out, const Function& f, const std::vector<ValueId>& args) {
  auto map = inline_mapped(out, f, args);
  std::vector<ValueId> results;
  for (auto v : f.results) results.push_back(map[static_cast<size_t>(v)]);
  return results;
}

}  // namespace shard::ir
