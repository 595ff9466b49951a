// The one way ops are appended to an IR function: the tracer (global types), the
// partitioner (local types), the compile path and the tests all build through it, so every
// op gets fresh result values and the user's source location the same way.
#pragma once
#include <memory>
#include <vector>

#include "ir/ir.hpp"

namespace shard::ir {

class Builder {
 public:
  // Appends to `f`; ops record `loc`, the user's call that produced them.
  explicit Builder(Function& f, ast::Loc loc = {}) : f_(f), loc_(loc) {}

  ValueId param(ArrayType t);
  ValueId op(OpKind kind, std::vector<ValueId> operands, ArrayType result, Attrs attrs = {});
  // An op with several (or no) results and, for control flow, regions.
  std::vector<ValueId> op_multi(OpKind kind, std::vector<ValueId> operands, const std::vector<ArrayType>& results,
                                Attrs attrs = {}, std::vector<std::shared_ptr<const Function>> regions = {});

 private:
  Function& f_;
  ast::Loc loc_;
};

}  // namespace shard::ir
