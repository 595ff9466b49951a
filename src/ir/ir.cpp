#include "ir/ir.hpp"

#include <fmt/format.h>

#include <cctype>

namespace shard::ir {

const char* op_kind_name(OpKind k) {
  switch (k) {
#define X(e, n, a, r, l, lin) case OpKind::e: return #e;
    SHARD_IR_OPS(X)
#undef X
  }
  return "?";
}

namespace {
const char* base_name(OpKind k) {
  switch (k) {
#define X(e, n, a, r, l, lin) case OpKind::e: return n;
    SHARD_IR_OPS(X)
#undef X
  }
  return "?";
}
struct Arity { int operands, results; };
Arity arity(OpKind k) {
  switch (k) {
#define X(e, n, a, r, l, lin) case OpKind::e: return {a, r};
    SHARD_IR_OPS(X)
#undef X
  }
  return {-1, -1};
}

// a, b, ..., z, ba, bb, ... as jaxprs name variables.
std::string var_name(size_t i) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('a' + i % 26));
    i /= 26;
  } while (i > 0);
  if (s.size() > 1) s[0] = static_cast<char>(s[0] + 1);  // aa would be ambiguous with a
  return s;
}

// A Python string literal of `s` (single quotes, backslash escapes) for printed attributes.
std::string py_str_repr(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out + "'";
}

std::string ints(const std::vector<int64_t>& v) {
  return v.size() == 1 ? fmt::format("({},)", v[0]) : fmt::format("({})", fmt::join(v, ", "));
}
std::string names(const std::vector<std::string>& v) {
  std::vector<std::string> q;
  for (auto& n : v) q.push_back("'" + n + "'");
  return q.size() == 1 ? fmt::format("({},)", q[0]) : fmt::format("({})", fmt::join(q, ", "));
}

std::string print_indented(const Function& f, const std::string& indent);

std::string region_text(const Op& op, size_t i, const std::string& indent) {
  return print_indented(*op.regions.at(i), indent + "  ");
}

std::string flag(bool b) { return b ? "True" : "False"; }
std::string specs(const std::vector<PartitionSpec>& v) {
  std::vector<std::string> r;
  for (auto& sp : v) r.push_back(sp.repr());
  return fmt::format("({}{})", fmt::join(r, ", "), r.size() == 1 ? "," : "");
}

// JAX's parameter text of each kind's attributes.
struct AttrText {
  const Function& f;
  const Op& op;
  const std::string& indent;
  std::vector<std::string> kv;

  std::string region(size_t i) { return region_text(op, i, indent); }
  void operator()(const attr::Elementwise& a) {
    if (a.op == EwOp::Convert) kv.push_back(fmt::format("new_dtype={}", types::dtype_name(f.type(op.results[0]).dtype())));
    if (a.op == EwOp::IntegerPow) kv.push_back(fmt::format("y={}", a.y));
  }
  void operator()(const attr::Iota& a) { kv.push_back(fmt::format("dimension={}", a.dimension)); }
  void operator()(const attr::BroadcastInDim& a) { kv.push_back(fmt::format("broadcast_dimensions={}", ints(a.broadcast_dimensions))); }
  void operator()(const attr::Reshape&) { kv.push_back(fmt::format("new_sizes={}", ints(f.type(op.results[0]).shape()))); }
  void operator()(const attr::Transpose& a) { kv.push_back(fmt::format("permutation={}", ints(a.permutation))); }
  void operator()(const attr::Slice& a) {
    kv.push_back(fmt::format("start_indices={}", ints(a.start_indices)));
    kv.push_back(fmt::format("limit_indices={}", ints(a.limit_indices)));
    if (!a.strides.empty()) kv.push_back(fmt::format("strides={}", ints(a.strides)));
  }
  void operator()(const attr::Concatenate& a) { kv.push_back(fmt::format("dimension={}", a.dimension)); }
  void operator()(const attr::Sort& a) {
    kv.push_back(fmt::format("dimension={}", a.dimension));
    if (op.operands.size() > 1) kv.push_back(fmt::format("num_keys={}", a.num_keys));
  }
  void operator()(const attr::Pad& a) { kv.push_back(fmt::format("low={} high={}", ints(a.low), ints(a.high))); }
  void operator()(const attr::Rev& a) { kv.push_back(fmt::format("axes={}", ints(a.dimensions))); }
  void operator()(const attr::Reduce& a) { kv.push_back(fmt::format("axes={}", ints(a.axes))); }
  void operator()(const attr::ArgReduce& a) {
    kv.push_back(fmt::format("axes=({},) index_dtype={}", a.axis, types::dtype_name(a.index_dtype)));
  }
  void operator()(const attr::Cumulative& a) { kv.push_back(fmt::format("axis={} reverse={}", a.axis, flag(a.reverse))); }
  void operator()(const attr::DotGeneral& a) {
    kv.push_back(fmt::format("dimension_numbers=(({}, {}), ({}, {}))", ints(a.lhs_contracting), ints(a.rhs_contracting),
                             ints(a.lhs_batch), ints(a.rhs_batch)));
  }
  void operator()(const attr::Reshard&) { kv.push_back(fmt::format("dst_sharding={}", f.type(op.results[0]).sharding().spec().repr())); }
  void operator()(const attr::ShardingConstraint& a) {
    if (a.sharding) kv.push_back(fmt::format("sharding={}", a.sharding->repr()));
  }
  void operator()(const attr::AllReduce& a) { kv.push_back(fmt::format("axes={}", names(a.axes))); }
  void operator()(const attr::AxisIndex& a) { kv.push_back(fmt::format("axes={}", names(a.axes))); }
  void operator()(const attr::AllGather& a) {
    kv.push_back(fmt::format("all_gather_dimension={} axis_name={} tiled={}", a.all_gather_dimension, names(a.axes), flag(a.tiled)));
  }
  void operator()(const attr::ReduceScatter& a) {
    kv.push_back(fmt::format("axis_name={} scatter_dimension={} tiled={}", names(a.axes), a.scatter_dimension, flag(a.tiled)));
  }
  void operator()(const attr::AllToAll& a) {
    kv.push_back(fmt::format("axis_name={} split_axis={} concat_axis={}", names(a.axes), a.split_axis, a.concat_axis));
  }
  void operator()(const attr::CollectivePermute& a) {
    std::vector<std::string> p;
    for (auto& [src, dst] : a.perm) p.push_back(fmt::format("({}, {})", src, dst));
    kv.push_back(fmt::format("axis_name={} perm=({})", names(a.axes), fmt::join(p, ", ")));
  }
  void operator()(const attr::TriangularSolve& a) {
    kv.push_back(fmt::format("conjugate_a={} left_side={} lower={} transpose_a={} unit_diagonal={}", flag(a.conjugate_a),
                             flag(a.left_side), flag(a.lower), flag(a.transpose_a), flag(a.unit_diagonal)));
  }
  void operator()(const attr::Eigh& a) { kv.push_back(fmt::format("lower={} sort_eigenvalues={}", flag(a.lower), flag(a.sort_eigenvalues))); }
  void operator()(const attr::Svd& a) { kv.push_back(fmt::format("compute_uv={} full_matrices={}", flag(a.compute_uv), flag(a.full_matrices))); }
  void operator()(const attr::Qr& a) { kv.push_back(fmt::format("full_matrices={}", flag(a.full_matrices))); }
  void operator()(const attr::DynamicSlice& a) { kv.push_back(fmt::format("slice_sizes={}", ints(a.slice_sizes))); }
  void operator()(const attr::Fft& a) {
    static const char* kTypes[] = {"FftType.FFT", "FftType.IFFT", "FftType.RFFT", "FftType.IRFFT"};
    kv.push_back(fmt::format("fft_lengths={} fft_type={}", ints(a.fft_lengths), kTypes[static_cast<int>(a.fft_type)]));
  }
  void operator()(const attr::HostCallback& a) {
    if (!a.identity.empty()) kv.push_back(fmt::format("fmt={}", py_str_repr(a.identity[0])));
  }
  void operator()(const attr::Fusion&) { kv.push_back(fmt::format("jaxpr={}", region(0))); }
  void operator()(const attr::CustomJvpCall& a) {
    kv.push_back(fmt::format("call_jaxpr={}", region(0)));
    if (!a.identity.empty()) kv.push_back(fmt::format("jvp={}", a.identity[0]));
  }
  void operator()(const attr::CustomVjpCall& a) {
    kv.push_back(fmt::format("call_jaxpr={}", region(0)));
    if (!a.identity.empty()) kv.push_back(fmt::format("fwd_jaxpr_thunk={}", a.identity[0]));
  }
  void operator()(const attr::CustomVjpLin& a) { kv.push_back(fmt::format("num_res={}", a.num_residuals)); }
  void operator()(const attr::Checkpoint& a) {
    kv.push_back(fmt::format("jaxpr={}", region(0)));
    kv.push_back(fmt::format("policy={}", a.policy));
  }
  void operator()(const attr::ShardMap& a) {
    kv.push_back(fmt::format("axes={}", names(a.manual_axes)));
    kv.push_back(fmt::format("check_vma={}", flag(a.check_vma)));
    kv.push_back(fmt::format("in_specs={}", specs(a.in_specs)));
    kv.push_back(fmt::format("jaxpr={}", region(0)));
    kv.push_back(fmt::format("out_specs={}", specs(a.out_specs)));
  }
  void operator()(const attr::While& a) {
    kv.push_back(fmt::format("body_jaxpr={}", region(1)));
    kv.push_back(fmt::format("body_nconsts={}", a.body_nconsts));
    kv.push_back(fmt::format("cond_jaxpr={}", region(0)));
    kv.push_back(fmt::format("cond_nconsts={}", a.cond_nconsts));
  }
  void operator()(const attr::Cond&) {
    std::vector<std::string> branches;
    for (size_t i = 0; i < op.regions.size(); ++i) branches.push_back(region(i));
    kv.push_back(fmt::format("branches=(\n{}    {}\n{}  )", indent, fmt::join(branches, fmt::format("\n{}    ", indent)), indent));
  }
  void operator()(const attr::Scan& a) {
    kv.push_back(fmt::format("jaxpr={}", region(0)));
    kv.push_back(fmt::format("length={}", a.length));
    kv.push_back(fmt::format("num_carry={}", a.num_carry));
    kv.push_back(fmt::format("num_consts={}", a.num_consts));
    kv.push_back(fmt::format("reverse={}", flag(a.reverse)));
  }
  template <class A>
  void operator()(const A&) {}  // no parameters shown
};

std::string attr_text(const Function& f, const Op& op, const std::string& indent) {
  AttrText t{f, op, indent, {}};
  std::visit(t, op.attrs);
  if (t.kv.empty()) return "";
  if (!op.regions.empty()) return fmt::format("[\n{}  {}\n{}]", indent, fmt::join(t.kv, fmt::format("\n{}  ", indent)), indent);
  return fmt::format("[{}]", fmt::join(t.kv, " "));
}
}  // namespace

std::string op_display_name(const Op& op) {
  // get_if: a malformed op (attributes of another kind) still prints, for the verifier's report.
  if (auto* e = std::get_if<attr::Elementwise>(&op.attrs)) return ew_info(e->op).primitive;
  if (auto* r = std::get_if<attr::Reduce>(&op.attrs)) return std::string("reduce_") + reduce_kind_name(r->kind);
  if (auto* r = std::get_if<attr::ArgReduce>(&op.attrs)) return std::string("arg") + reduce_kind_name(r->kind);
  if (auto* r = std::get_if<attr::Cumulative>(&op.attrs)) return std::string("cum") + reduce_kind_name(r->kind);
  if (auto* r = std::get_if<attr::AllReduce>(&op.attrs)) return all_reduce_name(r->kind);
  return base_name(op.kind);
}

const char* collective_kind_name(OpKind k) {
  switch (k) {
#define X(e, n, a, r, l, lin) case OpKind::e: return l[0] ? l : nullptr;
    SHARD_IR_OPS(X)
#undef X
  }
  return nullptr;
}

const std::vector<std::string>& collective_axes(const Attrs& attrs) {
  static const std::vector<std::string> none;
  return std::visit(
      [](const auto& a) -> const std::vector<std::string>& {
        if constexpr (requires { requires std::is_same_v<decltype(a.axes), attr::Names>; }) return a.axes;
        else return none;
      },
      attrs);
}

Attrs default_attrs(OpKind k) {
  switch (k) {
#define X(e, n, a, r, l, lin) case OpKind::e: return attr::e{};
    SHARD_IR_OPS(X)
#undef X
  }
  return attr::Unset{};
}

ValueId Function::new_value(ArrayType t) {
  value_types.push_back(std::move(t));
  return static_cast<ValueId>(value_types.size() - 1);
}

std::string short_dtype(DType t) { return std::string(types::dtype_short_name(t)); }

std::string short_type(const ArrayType& t) {
  std::string s = t.str_short();  // float32[8@dp,4]{vma}
  auto bracket = s.find('[');
  return short_dtype(t.dtype()) + (bracket == std::string::npos ? "" : s.substr(bracket));
}

namespace {
std::string print_indented(const Function& f, const std::string& indent) {
  // Variables are named in the order they are defined, as JAX names them (a value id may be
  // unused: a dropped constant leaves no gap in the names).
  std::vector<size_t> order(f.value_types.size(), SIZE_MAX);
  size_t next = 0;
  auto define = [&](ValueId v) {
    if (v >= 0 && static_cast<size_t>(v) < order.size() && order[static_cast<size_t>(v)] == SIZE_MAX) order[static_cast<size_t>(v)] = next++;
  };
  for (auto p : f.params) define(p);
  for (const Op& op : f.ops)
    for (auto r : op.results) define(r);
  auto name_of = [&](ValueId v) {
    const bool known = v >= 0 && static_cast<size_t>(v) < order.size() && order[static_cast<size_t>(v)] != SIZE_MAX;
    return known ? var_name(order[static_cast<size_t>(v)]) : fmt::format("?{}", v);  // ?N: malformed (the verifier says why)
  };
  auto decl = [&](ValueId v) { return fmt::format("{}:{}", name_of(v), short_type(f.type(v))); };
  std::vector<std::string> params;
  for (auto p : f.params) params.push_back(decl(p));
  std::string out = fmt::format("{{ lambda ; {}. let\n", fmt::join(params, " "));
  for (const Op& op : f.ops) {
    std::vector<std::string> res, args;
    for (auto r : op.results) res.push_back(decl(r));
    for (auto a : op.operands) args.push_back(name_of(a));
    out += fmt::format("{}    {}{}{}{}{}\n", indent, res.empty() ? "" : fmt::format("{} = ", fmt::join(res, " ")), op_display_name(op),
                       attr_text(f, op, indent + "    "), args.empty() ? "" : " ", fmt::join(args, " "));
  }
  std::vector<std::string> res;
  for (auto r : f.results) res.push_back(name_of(r));
  out += fmt::format("{}  in ({}{}) }}", indent, fmt::join(res, ", "), res.size() == 1 ? "," : "");
  return out;
}
}  // namespace

std::string print(const Function& f) { return print_indented(f, ""); }

namespace {
// Region signatures: parameter and result types of the bodies against the op's operands and
// results (shapes and dtypes; shardings are the tracer's business).
void verify_control_flow(const Function& f, const Op& op, const std::string& where, std::vector<std::string>& problems) {
  auto same = [&](const ArrayType& a, const ArrayType& b) { return a.shape() == b.shape() && a.dtype() == b.dtype(); };
  auto expect_params = [&](const Function& r, const std::vector<ValueId>& vals, const char* what) {
    if (r.params.size() != vals.size()) {
      problems.push_back(fmt::format("{}: {} takes {} params, given {}", where, what, r.params.size(), vals.size()));
      return;
    }
    for (size_t i = 0; i < vals.size(); ++i)
      if (!same(r.type(r.params[i]), f.type(vals[i])))
        problems.push_back(fmt::format("{}: {} param {} is {}, given {}", where, what, i, short_type(r.type(r.params[i])), short_type(f.type(vals[i]))));
  };
  auto slice = [](const std::vector<ValueId>& v, size_t b, size_t e) { return std::vector<ValueId>(v.begin() + b, v.begin() + e); };
  const auto& ops = op.operands;
  switch (op.kind) {
    case OpKind::While: {
      if (op.regions.size() != 2) { problems.push_back(where + ": malformed while"); return; }
      const auto& w = op.attr<attr::While>();
      const auto ncc = static_cast<size_t>(w.cond_nconsts), nbc = static_cast<size_t>(w.body_nconsts);
      if (ncc + nbc > ops.size() || ops.size() - ncc - nbc != op.results.size()) { problems.push_back(where + ": operand counts"); return; }
      auto carries = slice(ops, ncc + nbc, ops.size());
      auto cond_in = slice(ops, 0, ncc), body_in = slice(ops, ncc, ncc + nbc);
      cond_in.insert(cond_in.end(), carries.begin(), carries.end());
      body_in.insert(body_in.end(), carries.begin(), carries.end());
      expect_params(*op.regions[0], cond_in, "cond");
      expect_params(*op.regions[1], body_in, "body");
      if (op.regions[0]->results.size() != 1 || op.regions[0]->type(op.regions[0]->results[0]).dtype() != DType::Bool)
        problems.push_back(where + ": cond must return one bool");
      if (op.regions[1]->results.size() != carries.size()) {
        problems.push_back(where + ": body result count");
        break;
      }
      for (size_t i = 0; i < carries.size(); ++i)
        for (const ArrayType* t : {&op.regions[1]->type(op.regions[1]->results[i]), &f.type(op.results[i])})
          if (!same(*t, f.type(carries[i])))
            problems.push_back(fmt::format("{}: carry {} enters as {} but is also {}", where, i, short_type(f.type(carries[i])), short_type(*t)));
      break;
    }
    case OpKind::Fusion:
      // One result; a row fusion (reductions) may have several (spmd/moments).
      if (op.regions.size() != 1 || op.regions[0]->results.size() != op.results.size() || op.results.empty()) {
        problems.push_back(where + ": malformed fusion");
        return;
      }
      expect_params(*op.regions[0], ops, "fusion");
      break;
    case OpKind::Cond:
      if (ops.empty() || op.regions.empty()) { problems.push_back(where + ": malformed cond"); return; }
      for (auto& r : op.regions) {
        expect_params(*r, slice(ops, 1, ops.size()), "branch");
        if (r->results.size() != op.results.size()) problems.push_back(where + ": branch result count");
      }
      break;
    case OpKind::Scan: {
      if (op.regions.size() != 1) { problems.push_back(where + ": malformed scan"); return; }
      const auto nc = static_cast<size_t>(op.attr<attr::Scan>().num_consts), nk = static_cast<size_t>(op.attr<attr::Scan>().num_carry);
      if (nc + nk > ops.size() || nk > op.results.size()) { problems.push_back(where + ": operand counts"); return; }
      const Function& body = *op.regions[0];
      if (body.params.size() != ops.size() || body.results.size() != op.results.size()) {
        problems.push_back(where + ": body signature");
        break;
      }
      // A carry has one type on the way in, through the body and on the way out.
      for (size_t i = 0; i < nk; ++i) {
        const auto& in = f.type(ops[nc + i]);
        for (const ArrayType* t : {&body.type(body.params[nc + i]), &body.type(body.results[i]), &f.type(op.results[i])})
          if (!same(*t, in))
            problems.push_back(fmt::format("{}: carry {} enters as {} but is also {}", where, i, short_type(in), short_type(*t)));
      }
      break;
    }
    default: break;
  }
}
}  // namespace

std::vector<std::string> verify(const Function& f) {
  std::vector<std::string> problems;
  const auto nvals = static_cast<ValueId>(f.value_types.size());
  std::vector<bool> defined(f.value_types.size(), false);
  auto check_id = [&](ValueId v, const std::string& where) {
    if (v < 0 || v >= nvals) {
      problems.push_back(fmt::format("{}: value id {} out of range", where, v));
      return false;
    }
    return true;
  };
  for (auto p : f.params)
    if (check_id(p, "param")) defined[p] = true;
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Op& op = f.ops[i];
    const bool attrs_match = op.attrs.index() == attrs_index(op.kind);
    std::string where = attrs_match ? fmt::format("op {} ({})", i, op_display_name(op)) : fmt::format("op {} ({})", i, op_kind_name(op.kind));
    if (!attrs_match) problems.push_back(where + ": attributes of another kind");
    Arity ar = arity(op.kind);
    if (ar.operands >= 0 && static_cast<int>(op.operands.size()) != ar.operands)
      problems.push_back(fmt::format("{}: expected {} operands, got {}", where, ar.operands, op.operands.size()));
    if (ar.results >= 0 && static_cast<int>(op.results.size()) != ar.results)
      problems.push_back(fmt::format("{}: expected {} results, got {}", where, ar.results, op.results.size()));
    for (auto a : op.operands)
      if (check_id(a, where) && !defined[a]) problems.push_back(fmt::format("{}: uses {} before its definition", where, var_name(a)));
    for (auto r : op.results)
      if (check_id(r, where)) {
        if (defined[r]) problems.push_back(fmt::format("{}: redefines {}", where, var_name(r)));
        defined[r] = true;
      }
    if (!problems.empty()) continue;
    if (op.kind == OpKind::Elementwise && op.attr<attr::Elementwise>().op != EwOp::Select) {
      for (auto a : op.operands)
        if (f.type(a).shape() != f.type(op.results[0]).shape())
          problems.push_back(fmt::format("{}: operand shapes must equal the result shape", where));
    }
    for (size_t r = 0; r < op.regions.size(); ++r) {
      if (!op.regions[r]) {
        problems.push_back(fmt::format("{}: region {} is missing", where, r));
        continue;
      }
      for (auto& p : verify(*op.regions[r])) problems.push_back(fmt::format("{} region {}: {}", where, r, p));
    }
    verify_control_flow(f, op, where, problems);
    if (op.kind == OpKind::Reshape && f.type(op.operands[0]).num_elements() != f.type(op.results[0]).num_elements())
      problems.push_back(fmt::format("{}: reshape changes the number of elements", where));
  }
  for (auto r : f.results)
    if (check_id(r, "result") && !defined[r]) problems.push_back(fmt::format("result {} is never defined", var_name(r)));
  return problems;
}

namespace {

void mix(size_t& h, size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

void hash_ints(size_t& h, const std::vector<int64_t>& v) {
  mix(h, v.size());
  for (auto x : v) mix(h, std::hash<int64_t>{}(x));
}

void hash_type(size_t& h, const ArrayType& t) {
  mix(h, static_cast<size_t>(t.dtype()));
  hash_ints(h, t.shape());
  mix(h, t.weak_type());  // shardings are left to structurally_equal
}

// Field hashing for the attribute structs' fields().
void hash_field(size_t& h, int64_t v) { mix(h, std::hash<int64_t>{}(v)); }
void hash_field(size_t& h, bool v) { mix(h, v); }
void hash_field(size_t& h, EwOp v) { mix(h, static_cast<size_t>(v)); }
void hash_field(size_t& h, ReduceKind v) { mix(h, static_cast<size_t>(v)); }
void hash_field(size_t& h, attr::FftType v) { mix(h, static_cast<size_t>(v)); }
void hash_field(size_t& h, DType v) { mix(h, static_cast<size_t>(v)); }
void hash_field(size_t& h, const std::string& v) { mix(h, std::hash<std::string>{}(v)); }
void hash_field(size_t& h, const PartitionSpec& v) { mix(h, std::hash<std::string>{}(v.repr())); }
void hash_field(size_t& h, const types::AbstractMesh& v) { mix(h, std::hash<std::string>{}(v.repr())); }
void hash_field(size_t& h, const std::pair<int64_t, int64_t>& v) {
  hash_field(h, v.first);
  hash_field(h, v.second);
}
void hash_field(size_t& h, const std::shared_ptr<const Literal>& v) {
  if (v) mix(h, std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(v->bytes.data()), v->bytes.size())));
}
template <class T>
void hash_field(size_t& h, const std::optional<T>& v) {
  mix(h, v.has_value());
  if (v) hash_field(h, *v);
}
template <class T>
void hash_field(size_t& h, const std::vector<T>& v) {
  mix(h, v.size());
  for (const auto& x : v) hash_field(h, x);
}

void hash_attrs(size_t& h, const Attrs& attrs) {
  mix(h, attrs.index());
  std::visit([&](const auto& a) { std::apply([&](const auto&... f) { (hash_field(h, f), ...); }, a.fields()); }, attrs);
}

}  // namespace

size_t structural_hash(const Function& f) {
  size_t h = f.value_types.size();
  for (auto& t : f.value_types) hash_type(h, t);
  for (auto p : f.params) mix(h, static_cast<size_t>(p));
  for (auto r : f.results) mix(h, static_cast<size_t>(r) * 31);
  for (const Op& op : f.ops) {
    mix(h, static_cast<size_t>(op.kind));
    for (auto v : op.operands) mix(h, static_cast<size_t>(v));
    hash_attrs(h, op.attrs);
    for (auto& r : op.regions) mix(h, structural_hash(*r));
  }
  return h;
}

bool structurally_equal(const Function& a, const Function& b) {
  if (a.value_types != b.value_types || a.params != b.params || a.results != b.results || a.ops.size() != b.ops.size())
    return false;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const Op &x = a.ops[i], &y = b.ops[i];
    // Source locations count too: a cached program's ledger names the user's lines.
    if (x.kind != y.kind || x.operands != y.operands || x.results != y.results || x.attrs != y.attrs ||
        x.regions.size() != y.regions.size() || x.loc.file != y.loc.file || x.loc.line != y.loc.line || x.loc.col != y.loc.col)
      return false;
    for (size_t r = 0; r < x.regions.size(); ++r)
      if (x.regions[r] != y.regions[r] && !structurally_equal(*x.regions[r], *y.regions[r])) return false;
  }
  return true;
}

}  // namespace shard::ir
