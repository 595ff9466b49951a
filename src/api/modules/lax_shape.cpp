// jax.lax shape and data movement: reshape, concatenate, transpose, broadcast_in_dim,
// broadcast, expand_dims, squeeze, rev and pad.
#include <fmt/format.h>

#include "api/modules/lax_module.hpp"
#include "interp/builtins/support.hpp"
#include "ir/ir.hpp"

namespace shard::api::lax {

using interp::ArgParser;

namespace {

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

}  // namespace

void add_shape(ModuleObj& m) {
  def_lax(m, "reshape", [](Interp& I, CallArgs& a) {
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
  def_lax(m, "concatenate", [](Interp& I, CallArgs& a) {
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
  def_lax(m, "transpose", [](Interp& I, CallArgs& a) {
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
  def_lax(m, "broadcast_in_dim", [](Interp& I, CallArgs& a) {
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
      return std::vector<ValueId>{trace::broadcast_in_dim(t, ids[0], shape, bdims, out)};
    });
  });
  def_lax(m, "broadcast", [](Interp& I, CallArgs& a) {
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
  def_lax(m, "expand_dims", lax_dims_op("expand_dims", "array", [](Trace& t, ValueId x, const std::vector<int64_t>& dims) {
    return trace::expand_dims(t, x, dims);
  }));
  def_lax(m, "squeeze", lax_dims_op("squeeze", "array", [](Trace& t, ValueId x, const std::vector<int64_t>& dims) {
    return trace::squeeze(t, x, dims);
  }));
  def_lax(m, "rev", lax_dims_op("rev", "operand", [](Trace& t, ValueId x, const std::vector<int64_t>& dims) {
    return trace::rev(t, x, dims);
  }));
  def_lax(m, "pad", [](Interp& I, CallArgs& a) {
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
      Shape low, high;
      for (auto& c : cfg) {
        low.push_back(c.low);
        high.push_back(c.high);
      }
      return std::vector<ValueId>{trace::pad(t, ids[0], ids[1], low, high, /*keep_if_empty=*/true)};
    });
  });
}

}  // namespace shard::api::lax
