// Tracing the bodies of control-flow ops as IR regions: a child trace of the enclosing one,
// parameters for the carried values, outer values captured on use, the Python result
// flattened to IR values. Plus the printing helpers their type errors need (PyTreeDef,
// ShapedArray, keystr paths) — shared with shard_map.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/pytree/pytree.hpp"
#include "interp/interp.hpp"
#include "ir/ir.hpp"
#include "trace/trace.hpp"

namespace shard::api {

using types::ArrayType;

struct Region {
  std::shared_ptr<const ir::Function> fn;  // params: captured values first, then the explicit ones
  std::vector<ir::ValueId> captured;       // values of the parent trace, in parameter order
  TreeDef out;                             // structure of what the body returned
  std::vector<ArrayType> result_types;     // its leaves' types
};

// Traces `body(tracers)` (one tracer per type in `params`) as a region of `parent`. Leaves of
// the result that are not tracers (Python scalars, concrete arrays) become constants.
Region trace_region(interp::Interp& I, trace::Trace& parent, const std::string& name, const std::vector<ArrayType>& params,
                    const std::function<interp::Value(const std::vector<interp::Value>&)>& body);

// The region's function with params (explicit..., then one per value of `all_captured`),
// adding unused params for values this region did not capture (cond branches share operands).
std::shared_ptr<const ir::Function> with_capture_params(const Region& r, const std::vector<ir::ValueId>& all_captured,
                                                       const trace::Trace& parent);

// The name of a Python function's k-th positional parameter ("" when unknown).
std::string param_name(const interp::Value& fn, size_t k);
// ShapedArray(float32[3]) / ShapedArray(float32[], weak_type=True).
std::string shaped_array_str(const ArrayType& t);
// JAX's _show_diff over a tree: matching leaves print as ShapedArray, others as
// "DIFFERENT a vs. b".
std::string type_diff_str(interp::Interp& I, const TreeDef& def, const std::vector<ArrayType>& a, const std::vector<ArrayType>& b);
// core.typematch: equal but for weak_type.
bool same_type_ignoring_weak(const ArrayType& a, const ArrayType& b);
// (3,) / () / (2, 3)
std::string py_shape(const types::Shape& s);

}  // namespace shard::api
