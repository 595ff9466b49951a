// jax.lax array ops: dot_general, reshape, broadcasted_iota / iota, convert_element_type,
// stop_gradient, the elementwise primitives (same dtypes required, as lax does), select,
// clamp, slice / dynamic_slice / dynamic_update_slice, concatenate, transpose,
// broadcast_in_dim, pad, rev, reductions and scans. The collectives and control flow
// (psum, scan, cond, ...) are registered by their own modules.
#include <fmt/format.h>

#include <numeric>

#include "api/device_count.hpp"
#include "api/modules/lax_collectives.hpp"
#include "api/modules/lax_control.hpp"
#include "api/objects/dtype_value.hpp"
#include "api/op_args.hpp"
#include "interp/builtins/support.hpp"
#include "ir/ir.hpp"
#include "trace/ops_random.hpp"

namespace shard::api {

using ir::EwOp;
using ir::ReduceKind;
using interp::ArgParser;
using interp::ObjKind;

namespace {

Value lax_operand(Interp& I, const Value& v, const std::string& name, size_t pos) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  if (auto* a = as_array(v); a && a->host) return v;
  I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position {}.", name, I.type_name(v), pos));
}

std::vector<int64_t> int_list(Interp& I, const Value& v, const char* what) {
  std::vector<int64_t> out;
  if (is_none(v)) return out;
  for (auto& x : I.to_vector(v)) out.push_back(int_arg(I, x, what));
  return out;
}

// lax's elementwise ops take operands of one dtype and shape; Python scalars take the
// array's dtype (weakly).
std::vector<ValueId> lax_coerce(Trace& t, const std::string& name, const std::vector<ValueId>& ids, const std::vector<bool>& is_array) {
  std::optional<DTypeW> dt;
  std::optional<Shape> shape;
  std::vector<std::string> dtypes, shapes;
  bool mismatch = false, shape_mismatch = false;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!is_array[i]) continue;
    const auto& ty = t.type(ids[i]);
    dtypes.push_back(std::string(types::dtype_name(ty.dtype())));
    shapes.push_back(types::py_int_tuple(ty.shape()));
    if (!dt) dt = DTypeW{ty.dtype(), ty.weak_type()};
    else if (dt->dtype != ty.dtype()) mismatch = true;
    else dt->weak = dt->weak && ty.weak_type();
    if (!shape) shape = ty.shape();
    else if (*shape != ty.shape()) shape_mismatch = true;
  }
  if (mismatch)
    throw types::ShardingError("TypeError", fmt::format("lax.{} requires arguments to have the same dtypes, got {}. (Tip: jnp.{} is "
                                                        "a similar function that does automatic type promotion on inputs).",
                                                        name, fmt::join(dtypes, ", "), name));
  if (shape_mismatch)
    throw types::ShardingError("TypeError", fmt::format("{} got incompatible shapes for broadcasting: {}.", name, fmt::join(shapes, ", ")));
  std::vector<ValueId> out = ids;
  if (dt)
    for (size_t i = 0; i < ids.size(); ++i)
      if (!is_array[i]) out[i] = trace::broadcast_to(t, trace::convert(t, ids[i], {dt->dtype, true}), *shape);
  return out;
}

Value lax_nary(Interp& I, const std::string& name, CallArgs& a, size_t n,
               const std::function<ValueId(Trace&, const std::vector<ValueId>&)>& body) {
  interp::bi::func_nargs(I, a, name, n, n);
  std::vector<Value> ops;
  std::vector<bool> is_arr;
  for (size_t i = 0; i < n; ++i) {
    ops.push_back(lax_operand(I, a.args[i], name, i));
    is_arr.push_back(is_array_like(ops.back()));
  }
  return apply(I, name, ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    return std::vector<ValueId>{body(t, lax_coerce(t, name, ids, is_arr))};
  });
}

// An elementwise lax op of `arity` operands whose trace is body(t, name, op, operands).
using EwBody = ValueId (*)(Trace&, const std::string&, EwOp, const std::vector<ValueId>&);
NativeFn lax_elementwise(std::string name, size_t arity, EwOp op, EwBody body) {
  return [name, arity, op, body](Interp& I, CallArgs& a) {
    return lax_nary(I, name, a, arity, [&](Trace& t, const std::vector<ValueId>& ids) { return body(t, name, op, ids); });
  };
}

ValueId lax_unary(Trace& t, const std::string& name, EwOp op, const std::vector<ValueId>& ids) {
  return trace::unary(t, name, op, ids[0]);
}
ValueId lax_binary(Trace& t, const std::string& name, EwOp op, const std::vector<ValueId>& ids) {
  return trace::binary(t, name, op, ids[0], ids[1]);
}
ValueId lax_shift(Trace& t, const std::string& name, EwOp op, const std::vector<ValueId>& ids) {
  return trace::shift(t, name, op, ids[0], ids[1]);
}
// lax.div on integers truncates (C semantics): Rem's partner.
ValueId lax_div(Trace& t, const std::string& name, EwOp, const std::vector<ValueId>& ids) {
  if (types::is_int(t.type(ids[0]).dtype())) {
    ValueId r = trace::binary(t, name, EwOp::Rem, ids[0], ids[1]);
    ValueId num = trace::binary(t, name, EwOp::Sub, ids[0], r);
    return trace::binary(t, name, EwOp::FloorDiv, num, ids[1]);
  }
  return trace::binary(t, name, EwOp::Div, ids[0], ids[1]);
}

// lax ops of one operand and a list of dimensions (expand_dims, squeeze, rev).
using DimsOp = ValueId (*)(Trace&, ValueId, const std::vector<int64_t>&);
NativeFn lax_dims_op(std::string name, std::string operand, DimsOp op) {
  return [name, operand, op](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {operand, "dimensions"});
    auto dims = int_list(I, p.get("dimensions"), "dimensions");
    return apply(I, name, {lax_operand(I, p.get(operand), name, 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{op(t, ids[0], dims)};
    });
  };
}

Value lax_reduce(Interp& I, CallArgs& a, const char* name, ReduceKind kind) {
  ArgParser p(I, a, name, {"operand", "axes"});
  auto axes = int_list(I, p.get("axes"), "axes");
  Value x = lax_operand(I, p.get("operand"), name, 0);
  return apply(I, name, {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    if (axes.empty()) return std::vector<ValueId>{ids[0]};
    return std::vector<ValueId>{trace::reduce(t, name, kind, ids[0], axes, false)};
  });
}

Value lax_cumulative(Interp& I, CallArgs& a, const char* name, ReduceKind kind) {
  ArgParser p(I, a, name, {"operand", "axis=", "reverse="});
  int64_t axis = p.has("axis") ? int_arg(I, p.get("axis"), "axis") : 0;
  bool reverse = p.has("reverse") && I.truthy(p.get("reverse"));
  Value x = lax_operand(I, p.get("operand"), name, 0);
  return apply(I, name, {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId v = ids[0];
    if (reverse) v = trace::rev(t, v, {axis});
    v = trace::cumulative(t, name, kind, v, axis);
    if (reverse) v = trace::rev(t, v, {axis});
    return std::vector<ValueId>{v};
  });
}

// A start index as int32, negative ones counted from the end of the dim (as lax does before
// clamping: i < 0 ? i + size : i).
ValueId wrapped_start(Trace& t, ValueId index, int64_t size) {
  ValueId i = trace::convert(t, index, {DType::I32, false});
  ValueId zero = trace::scalar_constant(t, 0, {DType::I32, false});
  ValueId negative = trace::binary(t, "lt", EwOp::Lt, i, zero);
  ValueId from_end = trace::binary(t, "add", EwOp::Add, i, trace::scalar_constant(t, static_cast<double>(size), {DType::I32, false}));
  return trace::where(t, negative, from_end, i);
}

// Start indices of dynamic_slice / dynamic_update_slice: Python ints or scalar arrays.
std::vector<Value> index_operands(Interp& I, const Value& v) {
  std::vector<Value> out;
  if (is_array_like(v) && type_of(v).rank() == 1) {
    for (int64_t i = 0; i < type_of(v).shape()[0]; ++i) out.push_back(op_getitem(I, v, interp::make_int(i)));
    return out;
  }
  for (auto& x : I.to_vector(v)) {
    if (!is_array_like(x) && !interp::bi::int_of(x))
      I.raise("TypeError", fmt::format("index arguments to dynamic_slice must be integers, got {}", I.repr(x)));
    out.push_back(x);
  }
  return out;
}

}  // namespace

void register_lax_module() {
  Interp::register_builtin_module("jax.lax", [](Interp& I, ModuleObj& m) {
    install_lax_control(I, m);  // scan, fori_loop, while_loop, cond, switch (lax_control.cpp)
    install_lax_collectives(I, m);  // psum, all_gather, ppermute, pvary, ... (lax_collectives.cpp)
    // Every lax function may be the first device use.
    auto def_fn = [](ModuleObj& mod, const std::string& name, NativeFn fn) {
      api::def_fn(mod, name, [fn](Interp& I, CallArgs& a) {
        ensure_device_runtime();
        return fn(I, a);
      });
    };
    // The elementwise primitives of the table's lax column (ir/elementwise_ops.hpp).
    ir::for_each_binding([](const ir::EwInfo& e) { return e.lax_names; }, [&](EwOp op, std::string_view n) {
      const std::string name(n);
      const auto& info = ir::ew_info(op);
      EwBody body = info.dtype_rule == ir::EwDTypeRule::Shift ? lax_shift : info.arity == 1 ? lax_unary : lax_binary;
      def_fn(m, name, lax_elementwise(name, static_cast<size_t>(info.arity), op, body));
    });
    def_fn(m, "div", lax_elementwise("div", 2, EwOp::Div, lax_div));
    def_fn(m, "bitcast_convert_type", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "bitcast_convert_type", {"operand", "new_dtype"});
      Value x = lax_operand(I, p.get("operand"), "bitcast_convert_type", 0);
      DType to = storage_dtype(require_dtype(I, p.get("new_dtype")), false);
      return apply(I, "bitcast_convert_type", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{trace::bitcast_convert(t, ids[0], to)};
      });
    });
    def_fn(m, "integer_pow", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "integer_pow", {"x", "y"});
      int64_t y = int_arg(I, p.get("y"), "y");
      return apply(I, "integer_pow", {lax_operand(I, p.get("x"), "integer_pow", 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{trace::integer_pow(t, ids[0], y)};
      });
    });
    def_fn(m, "select", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "select", {"pred", "on_true", "on_false"});
      std::vector<Value> ops = {lax_operand(I, p.get("pred"), "select", 0), lax_operand(I, p.get("on_true"), "select", 1),
                                lax_operand(I, p.get("on_false"), "select", 2)};
      std::vector<bool> is_arr = {is_array_like(ops[1]), is_array_like(ops[2])};
      return apply(I, "select", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
        if (t.type(ids[0]).dtype() != DType::Bool)
          throw types::ShardingError("TypeError", fmt::format("select `which` must be boolean, got {}.", types::dtype_name(t.type(ids[0]).dtype())));
        auto cases = lax_coerce(t, "select", {ids[1], ids[2]}, is_arr);
        const auto& pt = t.type(ids[0]);
        if (pt.rank() != 0 && pt.shape() != t.type(cases[0]).shape())
          throw types::ShardingError("TypeError", fmt::format("select `which` must be scalar or have the same shape as cases, got `which` "
                                                              "shape {} but case shape {}.", types::py_int_tuple(pt.shape()),
                                                              types::py_int_tuple(t.type(cases[0]).shape())));
        return std::vector<ValueId>{trace::where(t, ids[0], cases[0], cases[1])};
      });
    });
    def_fn(m, "clamp", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "clamp", {"min", "x", "max"});
      std::vector<Value> ops = {lax_operand(I, p.get("min"), "clamp", 0), lax_operand(I, p.get("x"), "clamp", 1),
                                lax_operand(I, p.get("max"), "clamp", 2)};
      return apply(I, "clamp", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{trace::clip(t, ids[1], ids[0], ids[2])};
      });
    });
    def_fn(m, "stop_gradient", [](Interp& I, CallArgs& a) {
      interp::bi::func_nargs(I, a, "stop_gradient", 1, 1);
      return a.args[0];
    });
    def_fn(m, "convert_element_type", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "convert_element_type", {"operand", "new_dtype"});
      Value x = lax_operand(I, p.get("operand"), "convert_element_type", 0);
      if (!is_array_like(x)) x = to_array(I, x, std::nullopt, false);
      return op_astype(I, x, storage_dtype(require_dtype(I, p.get("new_dtype")), false));
    });
    def_fn(m, "dot_general", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "dot_general", {"lhs", "rhs", "dimension_numbers", "precision=", "preferred_element_type=", "*", "out_sharding="});
      Value l = lax_operand(I, p.get("lhs"), "dot_general", 0), r = lax_operand(I, p.get("rhs"), "dot_general", 1);
      auto dn = I.to_vector(p.get("dimension_numbers"));
      if (dn.size() != 2) I.raise("TypeError", "dot_general dimension_numbers must be ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))");
      auto contract = I.to_vector(dn[0]), batch = I.to_vector(dn[1]);
      if (contract.size() != 2 || batch.size() != 2)
        I.raise("TypeError", "dot_general dimension_numbers must be ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))");
      sharding::DotDims d;
      d.lhs_contracting = int_list(I, contract[0], "dimension_numbers");
      d.rhs_contracting = int_list(I, contract[1], "dimension_numbers");
      d.lhs_batch = int_list(I, batch[0], "dimension_numbers");
      d.rhs_batch = int_list(I, batch[1], "dimension_numbers");
      auto out = out_sharding_arg(I, p.get("out_sharding"));
      auto pref = dtype_arg(I, p.get("preferred_element_type"));
      return apply(I, "dot_general", {l, r}, [&](Trace& t, const std::vector<ValueId>& ids) {
        const auto& lt = t.type(ids[0]);
        const auto& rt = t.type(ids[1]);
        auto check = [&](std::vector<int64_t>& dims, size_t rank) {
          for (auto& x : dims) x = trace::normalize_axis("dot_general", x, rank);
        };
        check(d.lhs_contracting, lt.rank());
        check(d.lhs_batch, lt.rank());
        check(d.rhs_contracting, rt.rank());
        check(d.rhs_batch, rt.rank());
        if (d.lhs_contracting.size() != d.rhs_contracting.size() || d.lhs_batch.size() != d.rhs_batch.size())
          throw types::ShardingError("TypeError", "dot_general requires equal numbers of lhs and rhs contracting and batch dimensions");
        for (size_t i = 0; i < d.lhs_batch.size(); ++i)
          if (lt.shape()[d.lhs_batch[i]] != rt.shape()[d.rhs_batch[i]])
            throw types::ShardingError("TypeError", fmt::format("dot_general requires lhs batch dimensions and rhs batch dimensions to have "
                                                                "the same shape, got {} and {}.",
                                                                types::py_int_tuple({lt.shape()[d.lhs_batch[i]]}),
                                                                types::py_int_tuple({rt.shape()[d.rhs_batch[i]]})));
        ValueId res = trace::dot_general(t, ids[0], ids[1], d, out, "dot_general");
        if (pref) res = trace::convert(t, res, {storage_dtype(*pref, false), false});
        return std::vector<ValueId>{res};
      });
    });
    def_fn(m, "reshape", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "reshape", {"operand", "new_sizes", "dimensions=", "*", "out_sharding=", "sharding="});
      Value x = lax_operand(I, p.get("operand"), "reshape", 0);
      Shape sizes = shape_arg(I, p.get("new_sizes"), "reshape");
      auto dims = int_list(I, p.get("dimensions"), "dimensions");
      auto out = out_sharding_arg(I, p.has("out_sharding") ? p.get("out_sharding") : p.get("sharding"));
      return apply(I, "reshape", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
        ValueId v = ids[0];
        if (!dims.empty()) v = trace::transpose(t, v, dims);
        for (auto s : sizes)
          if (s < 0)
            throw types::ShardingError("TypeError", fmt::format("reshape new_sizes must be all nonnegative, got {}.", types::py_int_tuple(sizes)));
        return std::vector<ValueId>{trace::reshape(t, v, sizes, out)};
      });
    });
    def_fn(m, "broadcasted_iota", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "broadcasted_iota", {"dtype", "shape", "dimension", "*", "out_sharding=", "sharding="});
      DType dt = storage_dtype(require_dtype(I, p.get("dtype")), false);
      Shape shape = shape_arg(I, p.get("shape"), "broadcasted_iota");
      int64_t dim = int_arg(I, p.get("dimension"), "dimension");
      auto out = out_sharding_arg(I, p.has("out_sharding") ? p.get("out_sharding") : p.get("sharding"));
      return apply(I, "broadcasted_iota", {}, [&](Trace& t, const std::vector<ValueId>&) {
        int64_t d = trace::normalize_axis("broadcasted_iota", dim, shape.size());
        return std::vector<ValueId>{trace::iota(t, dt, shape, d, out)};
      });
    });
    def_fn(m, "iota", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "iota", {"dtype", "size", "*", "sharding="});
      DType dt = storage_dtype(require_dtype(I, p.get("dtype")), false);
      int64_t n = int_arg(I, p.get("size"), "size");
      auto out = out_sharding_arg(I, p.get("sharding"));
      return apply(I, "iota", {}, [&](Trace& t, const std::vector<ValueId>&) { return std::vector<ValueId>{trace::iota(t, dt, {n}, 0, out)}; });
    });
    def_fn(m, "full", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "full", {"shape", "fill_value", "dtype=", "*", "sharding="});
      Shape shape = shape_arg(I, p.get("shape"), "full");
      Value fill = p.get("fill_value");
      auto dt = dtype_arg(I, p.get("dtype"));
      auto out = out_sharding_arg(I, p.get("sharding"));
      auto st = python_scalar_type(fill, false);
      if (!st && !is_array_like(fill)) I.raise("TypeError", "lax.full: fill_value must be a scalar");
      DTypeW w = dt ? DTypeW{storage_dtype(*dt, false), false} : st ? *st : DTypeW{type_of(fill).dtype(), false};
      double v = float_arg(I, fill, "fill_value");
      return apply(I, "full", {}, [&](Trace& t, const std::vector<ValueId>&) { return std::vector<ValueId>{trace::full(t, shape, v, w, out)}; });
    });
    def_fn(m, "concatenate", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "concatenate", {"operands", "dimension"});
      std::vector<Value> ops;
      for (auto& v : I.to_vector(p.get("operands"))) ops.push_back(lax_operand(I, v, "concatenate", ops.size()));
      int64_t dim = int_arg(I, p.get("dimension"), "dimension");
      return apply(I, "concatenate", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
        for (auto id : ids)
          if (t.type(id).dtype() != t.type(ids[0]).dtype())
            throw types::ShardingError("TypeError", "lax.concatenate requires arguments to have the same dtypes");
        return std::vector<ValueId>{trace::concatenate(t, ids, dim)};
      });
    });
    def_fn(m, "transpose", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "transpose", {"operand", "permutation"});
      auto perm = int_list(I, p.get("permutation"), "permutation");
      Value x = lax_operand(I, p.get("operand"), "transpose", 0);
      return apply(I, "transpose", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
        if (perm.size() != t.type(ids[0]).rank())
          throw types::ShardingError("TypeError", fmt::format("transpose permutation isn't a permutation of operand dimensions, got "
                                                              "permutation {} for operand shape {}.",
                                                              types::py_int_tuple(perm), types::py_int_tuple(t.type(ids[0]).shape())));
        return std::vector<ValueId>{trace::transpose(t, ids[0], perm)};
      });
    });
    def_fn(m, "broadcast_in_dim", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "broadcast_in_dim", {"operand", "shape", "broadcast_dimensions", "*", "out_sharding=", "sharding="});
      Value x = lax_operand(I, p.get("operand"), "broadcast_in_dim", 0);
      Shape shape = shape_arg(I, p.get("shape"), "broadcast_in_dim");
      auto bdims = int_list(I, p.get("broadcast_dimensions"), "broadcast_dimensions");
      auto out = out_sharding_arg(I, p.has("out_sharding") ? p.get("out_sharding") : p.get("sharding"));
      return apply(I, "broadcast_in_dim", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
        const auto& xt = t.type(ids[0]);
        if (bdims.size() != xt.rank())
          throw types::ShardingError("TypeError", fmt::format("broadcast_in_dim broadcast_dimensions must have length equal to operand "
                                                              "ndim; got broadcast_dimensions {} for operand ndim {}.",
                                                              types::py_int_tuple(bdims), xt.rank()));
        for (size_t i = 0; i < bdims.size(); ++i) {
          if (bdims[i] < 0 || bdims[i] >= static_cast<int64_t>(shape.size()) ||
              (xt.shape()[i] != 1 && xt.shape()[i] != shape[bdims[i]]))
            throw types::ShardingError("TypeError", fmt::format("broadcast_in_dim operand dimension sizes must either be 1, or be equal "
                                                                "to their corresponding dimensions in the target broadcast shape; got "
                                                                "operand of shape {}, target broadcast shape {}, broadcast_dimensions {} ",
                                                                types::py_int_tuple(xt.shape()), types::py_int_tuple(shape),
                                                                types::py_int_tuple(bdims)));
        }
        auto rt = sharding::propagate_broadcast_in_dim(t.ctx("broadcast_in_dim"), xt, shape, bdims, out);
        ir::attr::BroadcastInDim at;
        at.broadcast_dimensions = bdims;
        return std::vector<ValueId>{t.emit(ir::OpKind::BroadcastInDim, {ids[0]}, rt, at)};
      });
    });
    def_fn(m, "broadcast", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "broadcast", {"operand", "sizes", "*", "out_sharding="});
      Value x = lax_operand(I, p.get("operand"), "broadcast", 0);
      Shape sizes = shape_arg(I, p.get("sizes"), "broadcast");
      return apply(I, "broadcast", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
        Shape s = sizes;
        const auto xs = t.type(ids[0]).shape();
        s.insert(s.end(), xs.begin(), xs.end());
        return std::vector<ValueId>{trace::broadcast_to(t, ids[0], s)};
      });
    });
    def_fn(m, "expand_dims", lax_dims_op("expand_dims", "array", [](Trace& t, ValueId x, const std::vector<int64_t>& dims) {
      return trace::expand_dims(t, x, dims);
    }));
    def_fn(m, "squeeze", lax_dims_op("squeeze", "array", [](Trace& t, ValueId x, const std::vector<int64_t>& dims) {
      return trace::squeeze(t, x, dims);
    }));
    def_fn(m, "rev", lax_dims_op("rev", "operand", [](Trace& t, ValueId x, const std::vector<int64_t>& dims) {
      return trace::rev(t, x, dims);
    }));
    def_fn(m, "slice", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "slice", {"operand", "start_indices", "limit_indices", "strides="});
      auto start = int_list(I, p.get("start_indices"), "start_indices");
      auto limit = int_list(I, p.get("limit_indices"), "limit_indices");
      auto strides = int_list(I, p.get("strides"), "strides");
      return apply(I, "slice", {lax_operand(I, p.get("operand"), "slice", 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
        const auto& xt = t.type(ids[0]);
        if (start.size() != xt.rank() || limit.size() != xt.rank() || (!strides.empty() && strides.size() != xt.rank()))
          throw types::ShardingError("TypeError", fmt::format("slice start_indices must have length equal to the number of dimensions "
                                                              "of the operand, got indices {} for operand shape {}.",
                                                              types::py_int_tuple(start), types::py_int_tuple(xt.shape())));
        for (size_t d = 0; d < xt.rank(); ++d)
          if (start[d] < 0 || limit[d] > xt.shape()[d] || start[d] > limit[d] || (!strides.empty() && strides[d] < 1))
            throw types::ShardingError("TypeError", fmt::format("slice indices out of range: start_indices {}, limit_indices {} for "
                                                                "operand shape {}.",
                                                                types::py_int_tuple(start), types::py_int_tuple(limit),
                                                                types::py_int_tuple(xt.shape())));
        return std::vector<ValueId>{trace::slice(t, ids[0], start, limit, strides)};
      });
    });
    def_fn(m, "slice_in_dim", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "slice_in_dim", {"operand", "start_index", "limit_index", "stride=", "axis="});
      Value x = lax_operand(I, p.get("operand"), "slice_in_dim", 0);
      int64_t axis = p.has("axis") ? int_arg(I, p.get("axis"), "axis") : 0;
      int64_t stride = p.has("stride") ? int_arg(I, p.get("stride"), "stride") : 1;
      return apply(I, "slice", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
        const auto& xt = t.type(ids[0]);
        int64_t ax = trace::normalize_axis("slice_in_dim", axis, xt.rank());
        const int64_t n = xt.shape()[ax];
        auto norm = [n](const Value& v, int64_t dflt) {
          if (is_none(v)) return dflt;
          int64_t i = *interp::bi::int_of(v);
          return i < 0 ? i + n : i;
        };
        Shape start(xt.rank(), 0), limit = xt.shape(), strides(xt.rank(), 1);
        start[ax] = norm(p.get("start_index"), 0);
        limit[ax] = norm(p.get("limit_index"), n);
        strides[ax] = stride;
        return std::vector<ValueId>{trace::slice(t, ids[0], start, limit, strides)};
      });
    });
    def_fn(m, "dynamic_slice", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "dynamic_slice", {"operand", "start_indices", "slice_sizes"});
      Value x = lax_operand(I, p.get("operand"), "dynamic_slice", 0);
      auto starts = index_operands(I, p.get("start_indices"));
      Shape sizes = shape_arg(I, p.get("slice_sizes"), "dynamic_slice");
      std::vector<Value> ops = {x};
      ops.insert(ops.end(), starts.begin(), starts.end());
      return apply(I, "dynamic_slice", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
        const auto& xt = t.type(ids[0]);
        if (starts.size() != xt.rank() || sizes.size() != xt.rank())
          throw types::ShardingError("TypeError", fmt::format("dynamic_slice: the start indices and slice sizes must each have one entry "
                                                              "per operand dimension ({}), got {} and {}.",
                                                              xt.rank(), starts.size(), sizes.size()));
        for (size_t d = 0; d < xt.rank(); ++d)
          if (sizes[d] < 0 || sizes[d] > xt.shape()[d])
            throw types::ShardingError("TypeError", fmt::format("slice slice_sizes must be less than or equal to operand shape, got "
                                                                "slice_sizes {} for operand shape {}.",
                                                                types::py_int_tuple(sizes), types::py_int_tuple(xt.shape())));
        std::vector<ValueId> operands = {ids[0]};
        for (size_t i = 1; i < ids.size(); ++i) operands.push_back(wrapped_start(t, ids[i], xt.shape()[i - 1]));
        auto rt = sharding::propagate_dynamic_slice(t.ctx("dynamic_slice"), xt, sizes);
        ir::attr::DynamicSlice at;
        at.slice_sizes = sizes;
        return std::vector<ValueId>{t.emit(ir::OpKind::DynamicSlice, operands, rt, at)};
      });
    });
    def_fn(m, "dynamic_update_slice", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "dynamic_update_slice", {"operand", "update", "start_indices"});
      Value x = lax_operand(I, p.get("operand"), "dynamic_update_slice", 0);
      Value u = lax_operand(I, p.get("update"), "dynamic_update_slice", 1);
      auto starts = index_operands(I, p.get("start_indices"));
      std::vector<Value> ops = {x, u};
      ops.insert(ops.end(), starts.begin(), starts.end());
      return apply(I, "dynamic_update_slice", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
        const auto& xt = t.type(ids[0]);
        const auto& ut = t.type(ids[1]);
        if (ut.rank() != xt.rank() || starts.size() != xt.rank())
          throw types::ShardingError("TypeError", fmt::format("dynamic_update_slice update must have the same rank as operand and one "
                                                              "start index per dimension, got update shape {} for operand shape {}.",
                                                              types::py_int_tuple(ut.shape()), types::py_int_tuple(xt.shape())));
        if (ut.dtype() != xt.dtype())
          throw types::ShardingError("TypeError", fmt::format("lax.dynamic_update_slice requires arguments to have the same dtypes, got "
                                                              "{}, {}.", types::dtype_name(xt.dtype()), types::dtype_name(ut.dtype())));
        for (size_t d = 0; d < xt.rank(); ++d)
          if (ut.shape()[d] > xt.shape()[d])
            throw types::ShardingError("TypeError", fmt::format("dynamic_update_slice update shape must be smaller than operand shape, "
                                                                "got update shape {} for operand shape {}.",
                                                                types::py_int_tuple(ut.shape()), types::py_int_tuple(xt.shape())));
        std::vector<ValueId> operands = {ids[0], ids[1]};
        for (size_t i = 2; i < ids.size(); ++i) operands.push_back(wrapped_start(t, ids[i], xt.shape()[i - 2]));
        auto rt = sharding::propagate_dynamic_update_slice(t.ctx("dynamic_update_slice"), xt, ut);
        return std::vector<ValueId>{t.emit(ir::OpKind::DynamicUpdateSlice, operands, rt)};
      });
    });
    def_fn(m, "pad", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "pad", {"operand", "padding_value", "padding_config"});
      Value x = lax_operand(I, p.get("operand"), "pad", 0), pv = lax_operand(I, p.get("padding_value"), "pad", 1);
      std::vector<sharding::PadDim> cfg;
      for (auto& c : I.to_vector(p.get("padding_config"))) {
        auto tr = int_list(I, c, "padding_config");
        if (tr.size() != 3) I.raise("TypeError", "pad: each padding_config entry must be (low, high, interior)");
        if (tr[2] != 0 || tr[0] < 0 || tr[1] < 0)
          I.raise("NotImplementedError", "lax.pad with interior or negative padding is not supported yet");
        cfg.push_back({tr[0], tr[1], tr[2]});
      }
      return apply(I, "pad", {x, pv}, [&](Trace& t, const std::vector<ValueId>& ids) {
        if (cfg.size() != t.type(ids[0]).rank())
          throw types::ShardingError("ValueError", fmt::format("length of padding_config must equal the number of axes of operand, got "
                                                               "padding_config {} for operand shape {}",
                                                               cfg.size(), types::py_int_tuple(t.type(ids[0]).shape())));
        ValueId v = trace::convert(t, ids[1], {t.type(ids[0]).dtype(), false});
        auto rt = sharding::propagate_pad(t.ctx("pad"), t.type(ids[0]), cfg);
        ir::attr::Pad at;
        for (auto& c : cfg) {
          at.low.push_back(c.low);
          at.high.push_back(c.high);
        }
        return std::vector<ValueId>{t.emit(ir::OpKind::Pad, {ids[0], v}, rt, at)};
      });
    });
    def_fn(m, "reduce_sum", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_sum", ReduceKind::Sum); });
    def_fn(m, "reduce_prod", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_prod", ReduceKind::Prod); });
    def_fn(m, "reduce_max", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_max", ReduceKind::Max); });
    def_fn(m, "reduce_min", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_min", ReduceKind::Min); });
    def_fn(m, "reduce_and", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_and", ReduceKind::And); });
    def_fn(m, "reduce_or", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_or", ReduceKind::Or); });
    for (const char* nm : {"argmax", "argmin"}) {
      const ReduceKind kind = std::string(nm) == "argmax" ? ReduceKind::Max : ReduceKind::Min;
      def_fn(m, nm, [nm, kind](Interp& I, CallArgs& a) {
        ArgParser p(I, a, nm, {"operand", "axis", "index_dtype"});
        int64_t axis = int_arg(I, p.get("axis"), "axis");
        DType idt = storage_dtype(require_dtype(I, p.get("index_dtype")), false);
        return apply(I, nm, {lax_operand(I, p.get("operand"), nm, 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
          ValueId r = trace::argminmax(t, nm, kind, ids[0], axis, false);
          return std::vector<ValueId>{trace::convert(t, r, {idt, false})};
        });
      });
    }
    def_fn(m, "cumsum", [](Interp& I, CallArgs& a) { return lax_cumulative(I, a, "cumsum", ReduceKind::Sum); });
    def_fn(m, "cumprod", [](Interp& I, CallArgs& a) { return lax_cumulative(I, a, "cumprod", ReduceKind::Prod); });
    def_fn(m, "cummax", [](Interp& I, CallArgs& a) { return lax_cumulative(I, a, "cummax", ReduceKind::Max); });
    def_fn(m, "cummin", [](Interp& I, CallArgs& a) { return lax_cumulative(I, a, "cummin", ReduceKind::Min); });
    def_fn(m, "sort", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "sort", {"operand", "dimension=", "is_stable=", "num_keys="});
      int64_t dim = p.has("dimension") ? int_arg(I, p.get("dimension"), "dimension") : -1;
      return apply(I, "sort", {lax_operand(I, p.get("operand"), "sort", 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{trace::sort(t, ids[0], dim)};
      });
    });
  });
}

}  // namespace shard::api
