// jax.debug.print: outside any trace it formats and prints at once; under jit or in a loop
// body it records a host callback op, so the values print when the program runs (once per
// execution, per loop iteration), formatted with str.format like JAX.
#include <fmt/format.h>

#include "api/modules/debug_print.hpp"
#include "api/objects/array_value.hpp"
#include "api/pytree/pytree.hpp"
#include "exec/host_callback.hpp"
#include "trace/ops.hpp"

namespace shard::api {

using interp::ObjKind;

namespace {

void print_formatted(Interp& I, const std::string& text_fmt, const Value& args, const Value& kwargs) {
  CallArgs fa;
  fa.args = I.to_vector(args);
  for (auto& k : I.to_vector(kwargs)) fa.kwargs.emplace_back(static_cast<interp::StrObj&>(*k).v, I.getitem(kwargs, k));
  Value text = I.call(I.getattr(interp::make_str(text_fmt), "format"), fa);
  I.call(I.getattr(I.builtins(), "print"), std::vector<Value>{text});
}

}  // namespace

Value jax_debug_print(Interp& I, CallArgs& a) {
  if (a.args.empty() || a.args[0]->kind != ObjKind::Str) I.raise("TypeError", "jax.debug.print() needs a format string as its first argument");
  const std::string text_fmt = static_cast<interp::StrObj&>(*a.args[0]).v;
  auto kw = interp::make_dict();
  for (auto& [k, v] : a.kwargs)
    if (k != "ordered") I.setitem(kw, interp::make_str(k), v);
  Value tree = interp::make_tuple({interp::make_tuple(std::vector<Value>(a.args.begin() + 1, a.args.end())), kw});
  std::vector<Value> leaves;
  TreeDef def = tree_flatten(I, tree, leaves);
  bool traced = trace::current_trace() != nullptr;
  for (auto& l : leaves) traced |= as_tracer(l) != nullptr;
  auto split = [&](const Value& t) {
    auto parts = I.to_vector(t);
    return std::pair{parts.at(0), parts.at(1)};
  };
  if (!traced) {
    auto [args, kwargs] = split(tree);
    print_formatted(I, text_fmt, args, kwargs);
    return interp::none();
  }
  // Array leaves become operands; the rest stay Python values, put back at print time.
  std::vector<Value> operands;
  std::vector<int> operand_of(leaves.size(), -1);
  for (size_t i = 0; i < leaves.size(); ++i)
    if (is_array_like(leaves[i])) {
      operand_of[i] = static_cast<int>(operands.size());
      operands.push_back(leaves[i]);
    }
  Interp* interp = &I;
  // What identifies the callback in the program cache: the format, the tree and the Python
  // (non-array) values; the callable itself rides along as the op's payload.
  std::vector<std::string> identity{text_fmt, tree_signature(I, def)};
  for (size_t i = 0; i < leaves.size(); ++i)
    if (operand_of[i] < 0) identity.push_back(I.type_name(leaves[i]) + ":" + I.repr(leaves[i]));
  // The callback keeps only the Python values: an array leaf may be a tracer, which holds
  // its trace, which holds this callback (a cycle no collector sees through).
  std::vector<Value> python_leaves = leaves;
  for (size_t i = 0; i < leaves.size(); ++i)
    if (operand_of[i] >= 0) python_leaves[i] = nullptr;
  auto callback = std::make_shared<const exec::HostCallback>([interp, text_fmt, def, python_leaves, operand_of](const std::vector<exec::HostValue>& values) {
    std::vector<Value> filled = python_leaves;
    for (size_t i = 0; i < filled.size(); ++i)
      if (operand_of[i] >= 0) {
        const auto& hv = values.at(static_cast<size_t>(operand_of[i]));
        auto arr = exec::array_from_host(hv.bytes.data(), hv.type, types::NamedSharding(exec::single_device_mesh(), types::PartitionSpec()), true);
        filled[i] = wrap(arr);
      }
    size_t pos = 0;
    auto parts = interp->to_vector(tree_unflatten(*interp, def, filled, pos));
    print_formatted(*interp, text_fmt, parts.at(0), parts.at(1));
  });
  apply_multi(I, "debug_print", operands, [&](trace::Trace& t, const std::vector<ir::ValueId>& ids) {
    trace::host_callback(t, ids, identity, callback);
    return std::vector<ir::ValueId>{};
  });
  return interp::none();
}

}  // namespace shard::api
