// jax.numpy contractions: dot matmul vdot inner outer tensordot einsum, all lowered to
// dot_general (and transposes/reductions), and jax.numpy.linalg.norm.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "api/modules/jnp_module.hpp"
#include "api/modules/linalg_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "api/objects/dtype_value.hpp"
#include "interp/builtins/support.hpp"
#include "primitives/linalg/linalg.hpp"

namespace shard::api {

using ir::EwOp;
using interp::ArgParser;
using sharding::DotDims;

namespace {

Value contraction_operand(Interp& I, const Value& v, const std::string& name, size_t pos) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position {}.", name, I.type_name(v), pos));
}

std::optional<DType> preferred(Interp& I, const ArgParser& p) { return dtype_arg(I, p.get("preferred_element_type")); }

// A float16 / bfloat16 operand of a contraction whose preferred_element_type is a wider
// float: widened first (exact), so the products accumulate in that type, as XLA's dot does.
ValueId widen_operand(Trace& t, ValueId v, std::optional<DType> pref) {
  const DType d = t.type(v).dtype();
  if (pref && types::is_float(*pref) && (d == DType::F16 || d == DType::BF16) && types::dtype_size(*pref) > 2)
    return trace::convert(t, v, {storage_dtype(*pref, false), false});
  return v;
}

ValueId finish(Trace& t, ValueId r, std::optional<DType> pref) {
  return pref ? trace::convert(t, r, {storage_dtype(*pref, false), false}) : r;
}

void check_contract(const types::ArrayType& l, const types::ArrayType& r, const DotDims& d) {
  for (size_t i = 0; i < d.lhs_contracting.size(); ++i) {
    int64_t a = l.shape()[d.lhs_contracting[i]], b = r.shape()[d.rhs_contracting[i]];
    if (a != b)
      throw types::ShardingError("TypeError", fmt::format("dot_general requires contracting dimensions to have the same shape, got "
                                                          "({},) and ({},).", a, b));
  }
}

// numpy.dot: scalars multiply; otherwise contract a's last dim with b's last (1-D b) or
// second-to-last dim.
ValueId dot_body(Trace& t, ValueId a, ValueId b, const sharding::OptOutSharding& out) {
  auto at = t.type(a), bt = t.type(b);
  if (at.rank() == 0 || bt.rank() == 0) return trace::binary(t, "mul", EwOp::Mul, a, b);
  DotDims d;
  d.lhs_contracting = {static_cast<int64_t>(at.rank()) - 1};
  d.rhs_contracting = {bt.rank() == 1 ? 0 : static_cast<int64_t>(bt.rank()) - 2};
  check_contract(at, bt, d);
  return trace::dot_general(t, a, b, d, out, "dot_general");
}

// --- einsum -----------------------------------------------------------------------------------

struct Term {
  ValueId v;
  std::string labels;
};

// Sums out labels of `x` that nothing else needs.
Term sum_unneeded(Trace& t, Term x, const std::string& needed) {
  std::vector<int64_t> axes;
  std::string kept;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (needed.find(x.labels[i]) == std::string::npos) axes.push_back(static_cast<int64_t>(i));
    else kept += x.labels[i];
  }
  if (axes.empty()) return x;
  return {trace::reduce(t, "einsum", ir::ReduceKind::Sum, x.v, axes, false), kept};
}

// out_sharding= names the einsum output's dims; the last dot_general produces them in the
// order batch + lhs free + rhs free (a transpose follows), so its spec is reordered to match.
sharding::OptOutSharding reorder_out(const sharding::OptOutSharding& out, const std::string& out_labels, const std::string& dot_labels) {
  if (!out || out_labels == dot_labels) return out;
  auto reorder = [&](const types::PartitionSpec& spec) {
    std::vector<types::PartitionSpec::Entry> entries;
    for (char c : dot_labels) {
      auto i = out_labels.find(c);
      entries.push_back(i < spec.size() ? spec[i] : types::PartitionSpec::Entry{});
    }
    return types::PartitionSpec(entries);
  };
  if (auto* p = std::get_if<types::PartitionSpec>(&*out)) return reorder(*p);
  const auto& ns = std::get<types::NamedSharding>(*out);
  return ns.with_spec(reorder(ns.spec()));
}

Term contract_pair(Trace& t, Term l, Term r, const std::string& keep, const sharding::OptOutSharding& out,
                   const std::string& out_labels = "") {
  l = sum_unneeded(t, l, keep + r.labels);
  r = sum_unneeded(t, r, keep + l.labels);
  DotDims d;
  std::string batch, lfree, rfree;
  for (size_t i = 0; i < l.labels.size(); ++i) {
    char c = l.labels[i];
    auto j = r.labels.find(c);
    if (j == std::string::npos) {
      lfree += c;
    } else if (keep.find(c) != std::string::npos) {
      d.lhs_batch.push_back(static_cast<int64_t>(i));
      d.rhs_batch.push_back(static_cast<int64_t>(j));
      batch += c;
    } else {
      d.lhs_contracting.push_back(static_cast<int64_t>(i));
      d.rhs_contracting.push_back(static_cast<int64_t>(j));
    }
  }
  for (char c : r.labels)
    if (l.labels.find(c) == std::string::npos) rfree += c;
  check_contract(t.type(l.v), t.type(r.v), d);
  const std::string labels = batch + lfree + rfree;
  return {trace::dot_general(t, l.v, r.v, d, reorder_out(out, out_labels.empty() ? labels : out_labels, labels), "dot_general"), labels};
}

struct EinsumSpec {
  std::vector<std::string> inputs;
  std::string output;
};

EinsumSpec parse_einsum(Interp& I, std::string spec, const std::vector<Value>& ops) {
  spec.erase(std::remove(spec.begin(), spec.end(), ' '), spec.end());
  if (spec.find("...") != std::string::npos) I.raise("NotImplementedError", "einsum with an ellipsis ('...') is not supported yet");
  EinsumSpec e;
  auto arrow = spec.find("->");
  std::string lhs = arrow == std::string::npos ? spec : spec.substr(0, arrow);
  size_t start = 0;
  while (true) {
    auto comma = lhs.find(',', start);
    e.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (e.inputs.size() != ops.size())
    I.raise("ValueError", fmt::format("einsum: {} operands given but the subscripts name {}", ops.size(), e.inputs.size()));
  std::map<char, int> count;
  std::map<char, int64_t> size;
  for (size_t k = 0; k < e.inputs.size(); ++k) {
    const auto& in = e.inputs[k];
    auto shape = is_array_like(ops[k]) ? type_of(ops[k]).shape() : Shape{};
    if (in.size() != shape.size())
      I.raise("ValueError", fmt::format("einsum() operand {} has {} dimensions but its subscripts '{}' name {}", k, shape.size(), in,
                                        in.size()));
    for (size_t i = 0; i < in.size(); ++i) {
      char c = in[i];
      if (!std::isalpha(static_cast<unsigned char>(c)))
        I.raise("ValueError", fmt::format("einsum(): invalid subscript '{}' in einstein sum subscripts string", c));
      if (in.find(c) != i)
        I.raise("NotImplementedError", fmt::format("einsum with a repeated subscript in one operand ('{}') is not supported yet", in));
      ++count[c];
      if (size.count(c) && size[c] != shape[i] && size[c] != 1 && shape[i] != 1)
        I.raise("ValueError", fmt::format("Size of label '{}' for operand {} ({}) does not match previous terms ({}).", c, k, shape[i],
                                          size[c]));
      size[c] = shape[i];
    }
  }
  if (arrow != std::string::npos) {
    e.output = spec.substr(arrow + 2);
    for (char c : e.output) {
      if (!count.count(c))
        I.raise("ValueError", fmt::format("einsum(): output subscript '{}' does not appear in the input subscripts", c));
      if (std::count(e.output.begin(), e.output.end(), c) > 1)
        I.raise("ValueError", fmt::format("einsum(): output subscript string contains '{}' more than once", c));
    }
  } else {
    for (auto& [c, n] : count)
      if (n == 1) e.output += c;
  }
  return e;
}

ValueId einsum_body(Trace& t, const EinsumSpec& e, const std::vector<ValueId>& ids, const sharding::OptOutSharding& out) {
  std::vector<Term> terms;
  for (size_t k = 0; k < ids.size(); ++k) terms.push_back({ids[k], e.inputs[k]});
  Term acc = terms[0];
  for (size_t k = 1; k < terms.size(); ++k) {
    std::string keep = e.output;
    for (size_t j = k + 1; j < terms.size(); ++j) keep += terms[j].labels;
    const bool last = k + 1 == terms.size();
    acc = contract_pair(t, acc, terms[k], keep, last ? out : std::nullopt, e.output);
  }
  acc = sum_unneeded(t, acc, e.output);
  if (acc.labels == e.output) {
    if (terms.size() == 1 && out) return trace::reshard(t, acc.v, out);
    return acc.v;
  }
  std::vector<int64_t> perm;
  for (char c : e.output) perm.push_back(static_cast<int64_t>(acc.labels.find(c)));
  ValueId r = trace::transpose(t, acc.v, perm);
  return out && terms.size() == 1 ? trace::reshard(t, r, out) : r;
}

}  // namespace

Value jnp_dot(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "dot", {"a", "b", "*", "precision=", "preferred_element_type=", "out_sharding="});
  Value x = contraction_operand(I, p.get("a"), "dot", 0), y = contraction_operand(I, p.get("b"), "dot", 1);
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  auto pref = preferred(I, p);
  return apply(I, "dot", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId l = widen_operand(t, ids[0], pref);
    ValueId r = widen_operand(t, ids[1], pref);
    return std::vector<ValueId>{finish(t, dot_body(t, l, r, out), pref)};
  });
}

void add_jnp_linalg(Interp&, ModuleObj& m) {
  def_jnp(m, "dot", jnp_dot);
  def_jnp(m, "matmul", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "matmul", {"a", "b", "*", "precision=", "preferred_element_type=", "out_sharding="});
    Value x = contraction_operand(I, p.get("a"), "matmul", 0), y = contraction_operand(I, p.get("b"), "matmul", 1);
    auto r = op_matmul(I, x, y, out_sharding_arg(I, p.get("out_sharding")), "matmul");
    if (auto pref = preferred(I, p)) r = op_astype(I, r, storage_dtype(*pref, false));
    return r;
  });
  def_jnp(m, "vdot", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "vdot", {"a", "b", "*", "precision=", "preferred_element_type="});
    Value x = contraction_operand(I, p.get("a"), "vdot", 0), y = contraction_operand(I, p.get("b"), "vdot", 1);
    return apply(I, "vdot", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId l = trace::reshape(t, ids[0], {t.type(ids[0]).num_elements()});
      ValueId r = trace::reshape(t, ids[1], {t.type(ids[1]).num_elements()});
      return std::vector<ValueId>{dot_body(t, l, r, std::nullopt)};
    });
  });
  def_jnp(m, "inner", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "inner", {"a", "b", "*", "precision=", "preferred_element_type="});
    Value x = contraction_operand(I, p.get("a"), "inner", 0), y = contraction_operand(I, p.get("b"), "inner", 1);
    return apply(I, "inner", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto at = t.type(ids[0]), bt = t.type(ids[1]);
      if (at.rank() == 0 || bt.rank() == 0) return std::vector<ValueId>{trace::binary(t, "mul", EwOp::Mul, ids[0], ids[1])};
      DotDims d;
      d.lhs_contracting = {static_cast<int64_t>(at.rank()) - 1};
      d.rhs_contracting = {static_cast<int64_t>(bt.rank()) - 1};
      check_contract(at, bt, d);
      return std::vector<ValueId>{trace::dot_general(t, ids[0], ids[1], d, std::nullopt, "dot_general")};
    });
  });
  def_jnp(m, "outer", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "outer", {"a", "b", "out="});
    Value x = contraction_operand(I, p.get("a"), "outer", 0), y = contraction_operand(I, p.get("b"), "outer", 1);
    return apply(I, "outer", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
      int64_t n = t.type(ids[0]).num_elements(), k = t.type(ids[1]).num_elements();
      ValueId l = trace::reshape(t, ids[0], {n, 1});
      ValueId r = trace::reshape(t, ids[1], {1, k});
      return std::vector<ValueId>{trace::binary(t, "mul", EwOp::Mul, l, r)};
    });
  });
  def_jnp(m, "tensordot", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "tensordot", {"a", "b", "axes=", "*", "precision=", "preferred_element_type=", "out_sharding="});
    Value x = contraction_operand(I, p.get("a"), "tensordot", 0), y = contraction_operand(I, p.get("b"), "tensordot", 1);
    auto xt = type_of(x), yt = type_of(y);
    DotDims d;
    Value axes = p.get("axes");
    if (is_none(axes) || interp::bi::int_of(axes)) {
      int64_t n = is_none(axes) ? 2 : *interp::bi::int_of(axes);
      if (n < 0 || n > static_cast<int64_t>(xt.rank()) || n > static_cast<int64_t>(yt.rank()))
        I.raise("TypeError", fmt::format("Number of tensordot axes (axes {}) exceeds input ranks ({} and {})", n, xt.rank(), yt.rank()));
      for (int64_t i = 0; i < n; ++i) {
        d.lhs_contracting.push_back(static_cast<int64_t>(xt.rank()) - n + i);
        d.rhs_contracting.push_back(i);
      }
    } else {
      auto pair = I.to_vector(axes);
      if (pair.size() != 2) I.raise("TypeError", "tensordot axes argument must be an int or a pair of sequences");
      auto la = axes_arg(I, pair[0]), ra = axes_arg(I, pair[1]);
      if (la->size() != ra->size())
        I.raise("TypeError", fmt::format("tensordot requires axes lists to have equal length, got {} and {}.", I.repr(pair[0]),
                                         I.repr(pair[1])));
      for (size_t i = 0; i < la->size(); ++i) {
        d.lhs_contracting.push_back(guarded(I, [&] { return trace::normalize_axis("tensordot", (*la)[i], xt.rank()); }));
        d.rhs_contracting.push_back(guarded(I, [&] { return trace::normalize_axis("tensordot", (*ra)[i], yt.rank()); }));
      }
    }
    auto out = out_sharding_arg(I, p.get("out_sharding"));
    auto pref = preferred(I, p);
    return apply(I, "tensordot", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
      check_contract(t.type(ids[0]), t.type(ids[1]), d);
      ValueId l = widen_operand(t, ids[0], pref);
      ValueId r = widen_operand(t, ids[1], pref);
      return std::vector<ValueId>{finish(t, trace::dot_general(t, l, r, d, out, "dot_general"), pref)};
    });
  });
  def_jnp(m, "einsum", [](Interp& I, CallArgs& a) {
    if (a.args.empty() || a.args[0]->kind != interp::ObjKind::Str)
      I.raise("TypeError", "einsum: the first argument must be a subscripts string (the interleaved form is not supported)");
    std::string spec = static_cast<interp::StrObj&>(*a.args[0]).v;
    std::vector<Value> ops;
    for (size_t i = 1; i < a.args.size(); ++i) ops.push_back(contraction_operand(I, a.args[i], "einsum", i - 1));
    if (ops.empty()) I.raise("ValueError", "einsum: at least one operand is required");
    sharding::OptOutSharding out;
    std::optional<DType> pref;
    for (auto& [k, v] : a.kwargs) {
      if (k == "out_sharding" || k == "_dot_general_out_sharding") out = out_sharding_arg(I, v);
      else if (k == "preferred_element_type") pref = dtype_arg(I, v);
      else if (k == "optimize" || k == "precision") continue;
      else I.raise("TypeError", fmt::format("einsum() got an unexpected keyword argument '{}'", k));
    }
    auto e = parse_einsum(I, spec, ops);
    return apply(I, "einsum", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      std::vector<ValueId> wide;
      for (ValueId v : ids) wide.push_back(widen_operand(t, v, pref));
      return std::vector<ValueId>{finish(t, einsum_body(t, e, wide, out), pref)};
    });
  });
}

// jax.numpy.linalg: norm (vector and matrix norms of every order) and the
// decompositions and solvers of linalg_module.cpp.
void register_jnp_linalg_module() {
  Interp::register_builtin_module("jax.numpy.linalg", [](Interp& I, ModuleObj& m) {
    add_jnp_linalg_decompositions(I, m);
    def_jnp(m, "norm", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "norm", {"x", "ord=", "axis=", "keepdims="});
      trace::NormOrder ord;
      if (Value o = p.get("ord"); !is_none(o)) {
        if (o->kind == interp::ObjKind::Str) ord.name = I.str(o);
        else ord.value = float_arg(I, o, "ord");
      }
      auto axes = axes_arg(I, p.get("axis"));
      bool keepdims = p.has("keepdims") && I.truthy(p.get("keepdims"));
      Value x = contraction_operand(I, p.get("x"), "norm", 0);
      return apply(I, "norm", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
        ValueId v = trace::convert(t, ids[0], trace::to_inexact(dtw(t, ids[0])));
        return std::vector<ValueId>{trace::norm(t, v, ord, axes, keepdims)};
      });
    });
  });
}

// numpy.einsum on host arrays: the jnp parser and contraction body, operands first brought
// to numpy's result dtype.
namespace np {

void add_contraction_functions(Interp&, ModuleObj& m) {
  add(m, "einsum", [](Interp& I, CallArgs& a) {
    if (a.args.empty() || a.args[0]->kind != interp::ObjKind::Str)
      I.raise("TypeError", "einsum: the first argument must be a subscripts string (the interleaved form is not supported)");
    std::string spec = static_cast<interp::StrObj&>(*a.args[0]).v;
    std::vector<Operand> ops;
    for (size_t i = 1; i < a.args.size(); ++i) ops.push_back(operand(I, a.args[i]));
    if (ops.empty()) I.raise("ValueError", "No input operands");
    std::optional<DType> dt;
    for (auto& [k, v] : a.kwargs) {
      if (k == "dtype") dt = dtype_arg(I, v);
      else if (k == "optimize" || k == "order" || k == "casting" || k == "out") continue;
      else I.raise("TypeError", fmt::format("einsum() got an unexpected keyword argument '{}'", k));
    }
    std::vector<Value> vals;
    std::vector<exec::ArrayRef> ins;
    for (auto& o : ops) {
      vals.push_back(wrap(o.array, true));
      ins.push_back(o.array);
    }
    auto e = parse_einsum(I, spec, vals);
    DType common = dt.value_or(result_type(ops));
    return result(run1(I, "einsum", ins, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      std::vector<ValueId> xs;
      for (auto id : ids) xs.push_back(cast(t, id, common));
      return std::vector<ValueId>{einsum_body(t, e, xs, std::nullopt)};
    }));
  });
}

}  // namespace np

}  // namespace shard::api
