// jax.lax contractions: dot_general with explicit contracting and batch dimensions.
#include <fmt/format.h>

#include "api/modules/lax_module.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api::lax {

using interp::ArgParser;

void add_contractions(ModuleObj& m) {
  def_lax(m, "dot_general", [](Interp& I, CallArgs& a) {
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
      // float16 / bfloat16 operands with a wider preferred float accumulate in it (widened
      // first: exact), as XLA's dot does.
      auto widen = [&](ValueId v) {
        const DType dt = t.type(v).dtype();
        const bool half = dt == DType::F16 || dt == DType::BF16;
        return pref && half && types::is_float(*pref) && types::dtype_size(*pref) > 2
                   ? trace::convert(t, v, {storage_dtype(*pref, false), false}) : v;
      };
      ValueId l = widen(ids[0]);
      ValueId r = widen(ids[1]);
      ValueId res = trace::dot_general(t, l, r, d, out, "dot_general");
      if (pref) res = trace::convert(t, res, {storage_dtype(*pref, false), false});
      return std::vector<ValueId>{res};
    });
  });
}

}  // namespace shard::api::lax
