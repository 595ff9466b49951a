#include "ir/ir.hpp"

#include <fmt/format.h>

#include <cctype>

namespace shard::ir {

const char* op_kind_name(OpKind k) {
  switch (k) {
#define X(e, n, a, r, l) case OpKind::e: return #e;
    SHARD_IR_OPS(X)
#undef X
  }
  return "?";
}

namespace {
const char* base_name(OpKind k) {
  switch (k) {
#define X(e, n, a, r, l) case OpKind::e: return n;
    SHARD_IR_OPS(X)
#undef X
  }
  return "?";
}
struct Arity { int operands, results; };
Arity arity(OpKind k) {
  switch (k) {
#define X(e, n, a, r, l) case OpKind::e: return {a, r};
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

std::string attr_text(const Function& f, const Op& op, const std::string& indent) {
  const Attrs& a = op.attrs;
  std::vector<std::string> kv;
  switch (op.kind) {
    case OpKind::Elementwise:
      if (a.ew == EwOp::Convert) kv.push_back(fmt::format("new_dtype={}", types::dtype_name(f.type(op.results[0]).dtype())));
      break;
    case OpKind::Iota: kv.push_back(fmt::format("dimension={}", a.axis)); break;
    case OpKind::BroadcastInDim: kv.push_back(fmt::format("broadcast_dimensions={}", ints(a.dims))); break;
    case OpKind::Reshape: kv.push_back(fmt::format("new_sizes={}", ints(f.type(op.results[0]).shape()))); break;
    case OpKind::Transpose: kv.push_back(fmt::format("permutation={}", ints(a.dims))); break;
    case OpKind::Slice:
      kv.push_back(fmt::format("start_indices={}", ints(a.dims)));
      kv.push_back(fmt::format("limit_indices={}", ints(a.dims2)));
      if (!a.dims3.empty()) kv.push_back(fmt::format("strides={}", ints(a.dims3)));
      break;
    case OpKind::Concatenate: case OpKind::Sort: kv.push_back(fmt::format("dimension={}", a.axis)); break;
    case OpKind::Pad: kv.push_back(fmt::format("low={} high={}", ints(a.dims), ints(a.dims2))); break;
    case OpKind::Rev: case OpKind::Reduce: kv.push_back(fmt::format("axes={}", ints(a.dims))); break;
    case OpKind::ArgReduce: kv.push_back(fmt::format("axes=({},) index_dtype={}", a.axis, types::dtype_name(a.dtype))); break;
    case OpKind::Cumulative: kv.push_back(fmt::format("axis={} reverse={}", a.axis, a.flag ? "True" : "False")); break;
    case OpKind::DotGeneral:
      kv.push_back(fmt::format("dimension_numbers=(({}, {}), ({}, {}))", ints(a.dims), ints(a.dims2), ints(a.dims3), ints(a.dims4)));
      break;
    case OpKind::Reshard: kv.push_back(fmt::format("dst_sharding={}", f.type(op.results[0]).sharding().spec().repr())); break;
    case OpKind::ShardingConstraint: if (a.spec) kv.push_back(fmt::format("sharding={}", a.spec->repr())); break;
    case OpKind::AllReduce: case OpKind::AxisIndex: kv.push_back(fmt::format("axes={}", names(a.axes))); break;
    case OpKind::AllGather:
      kv.push_back(fmt::format("all_gather_dimension={} axis_name={} tiled={}", a.axis, names(a.axes), a.flag ? "True" : "False"));
      break;
    case OpKind::ReduceScatter:
      kv.push_back(fmt::format("axis_name={} scatter_dimension={} tiled={}", names(a.axes), a.axis, a.flag ? "True" : "False"));
      break;
    case OpKind::AllToAll:
      kv.push_back(fmt::format("axis_name={} split_axis={} concat_axis={}", names(a.axes), a.axis, a.axis2));
      break;
    case OpKind::CollectivePermute: {
      std::vector<std::string> p;
      for (auto& [s, d] : a.pairs) p.push_back(fmt::format("({}, {})", s, d));
      kv.push_back(fmt::format("axis_name={} perm=({})", names(a.axes), fmt::join(p, ", ")));
      break;
    }
    case OpKind::DynamicSlice: kv.push_back(fmt::format("slice_sizes={}", ints(a.dims))); break;
    case OpKind::HostCallback:
      if (!a.axes.empty()) kv.push_back(fmt::format("fmt={}", py_str_repr(a.axes[0])));
      break;
    case OpKind::Fusion: kv.push_back(fmt::format("jaxpr={}", region_text(op, 0, indent))); break;
    case OpKind::ShardMap: {
      std::vector<std::string> in, out;
      for (auto& sp : a.specs) in.push_back(sp.repr());
      for (auto& sp : a.specs2) out.push_back(sp.repr());
      kv.push_back(fmt::format("axes={}", names(a.axes)));
      kv.push_back(fmt::format("check_vma={}", a.flag ? "True" : "False"));
      kv.push_back(fmt::format("in_specs=({}{})", fmt::join(in, ", "), in.size() == 1 ? "," : ""));
      kv.push_back(fmt::format("jaxpr={}", region_text(op, 0, indent)));
      kv.push_back(fmt::format("out_specs=({}{})", fmt::join(out, ", "), out.size() == 1 ? "," : ""));
      break;
    }
    case OpKind::While:
      kv.push_back(fmt::format("body_jaxpr={}", region_text(op, 1, indent)));
      kv.push_back(fmt::format("body_nconsts={}", a.dims.at(1)));
      kv.push_back(fmt::format("cond_jaxpr={}", region_text(op, 0, indent)));
      kv.push_back(fmt::format("cond_nconsts={}", a.dims.at(0)));
      break;
    case OpKind::Cond: {
      std::vector<std::string> branches;
      for (size_t i = 0; i < op.regions.size(); ++i) branches.push_back(region_text(op, i, indent));
      kv.push_back(fmt::format("branches=(\n{}    {}\n{}  )", indent, fmt::join(branches, fmt::format("\n{}    ", indent)), indent));
      break;
    }
    case OpKind::Scan:
      kv.push_back(fmt::format("jaxpr={}", region_text(op, 0, indent)));
      kv.push_back(fmt::format("length={}", a.axis));
      kv.push_back(fmt::format("num_carry={}", a.dims.at(1)));
      kv.push_back(fmt::format("num_consts={}", a.dims.at(0)));
      kv.push_back(fmt::format("reverse={}", a.flag ? "True" : "False"));
      break;
    default: break;
  }
  if (kv.empty()) return "";
  if (!op.regions.empty()) return fmt::format("[\n{}  {}\n{}]", indent, fmt::join(kv, fmt::format("\n{}  ", indent)), indent);
  return fmt::format("[{}]", fmt::join(kv, " "));
}
}  // namespace

std::string op_display_name(const Op& op) {
  switch (op.kind) {
    case OpKind::Elementwise: return ew_info(op.attrs.ew).primitive;
    case OpKind::Reduce: return std::string("reduce_") + reduce_kind_name(op.attrs.reduce);
    case OpKind::ArgReduce: return std::string("arg") + reduce_kind_name(op.attrs.reduce);
    case OpKind::Cumulative: return std::string("cum") + reduce_kind_name(op.attrs.reduce);
    case OpKind::AllReduce: return all_reduce_name(op.attrs.reduce);
    default: return base_name(op.kind);
  }
}

const char* collective_kind_name(OpKind k) {
  switch (k) {
#define X(e, n, a, r, l) case OpKind::e: return l[0] ? l : nullptr;
    SHARD_IR_OPS(X)
#undef X
  }
  return nullptr;
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
  auto name_of = [](ValueId v) { return var_name(static_cast<size_t>(v)); };
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
      if (op.regions.size() != 2 || op.attrs.dims.size() != 2) { problems.push_back(where + ": malformed while"); return; }
      const size_t ncc = op.attrs.dims[0], nbc = op.attrs.dims[1];
      if (ncc + nbc > ops.size() || ops.size() - ncc - nbc != op.results.size()) { problems.push_back(where + ": operand counts"); return; }
      auto carries = slice(ops, ncc + nbc, ops.size());
      auto cond_in = slice(ops, 0, ncc), body_in = slice(ops, ncc, ncc + nbc);
      cond_in.insert(cond_in.end(), carries.begin(), carries.end());
      body_in.insert(body_in.end(), carries.begin(), carries.end());
      expect_params(*op.regions[0], cond_in, "cond");
      expect_params(*op.regions[1], body_in, "body");
      if (op.regions[0]->results.size() != 1 || op.regions[0]->type(op.regions[0]->results[0]).dtype() != DType::Bool)
        problems.push_back(where + ": cond must return one bool");
      if (op.regions[1]->results.size() != carries.size()) problems.push_back(where + ": body result count");
      break;
    }
    case OpKind::Fusion:
      if (op.regions.size() != 1 || op.regions[0]->results.size() != 1) { problems.push_back(where + ": malformed fusion"); return; }
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
      if (op.regions.size() != 1 || op.attrs.dims.size() != 2) { problems.push_back(where + ": malformed scan"); return; }
      const size_t nc = op.attrs.dims[0], nk = op.attrs.dims[1];
      if (nc + nk > ops.size() || nk > op.results.size()) { problems.push_back(where + ": operand counts"); return; }
      const Function& body = *op.regions[0];
      if (body.params.size() != ops.size() || body.results.size() != op.results.size())
        problems.push_back(where + ": body signature");
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
    std::string where = fmt::format("op {} ({})", i, op_display_name(op));
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
    if (op.kind == OpKind::Elementwise && op.attrs.ew != EwOp::Select) {
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

bool same_attrs(const Attrs& a, const Attrs& b) {
  if (a.ew != b.ew || a.reduce != b.reduce || a.dims != b.dims || a.dims2 != b.dims2 || a.dims3 != b.dims3 ||
      a.dims4 != b.dims4 || a.axis != b.axis || a.axis2 != b.axis2 || a.flag != b.flag || a.dtype != b.dtype ||
      a.axes != b.axes || a.pairs != b.pairs || a.spec != b.spec || a.specs != b.specs || a.specs2 != b.specs2)
    return false;
  if (!a.literal || !b.literal) return !a.literal && !b.literal;
  return a.literal == b.literal || a.literal->bytes == b.literal->bytes;
}

}  // namespace

size_t structural_hash(const Function& f) {
  size_t h = f.value_types.size();
  for (auto& t : f.value_types) hash_type(h, t);
  for (auto p : f.params) mix(h, static_cast<size_t>(p));
  for (auto r : f.results) mix(h, static_cast<size_t>(r) * 31);
  for (const Op& op : f.ops) {
    mix(h, static_cast<size_t>(op.kind));
    mix(h, static_cast<size_t>(op.attrs.ew) * 131 + static_cast<size_t>(op.attrs.reduce));
    for (auto v : op.operands) mix(h, static_cast<size_t>(v));
    hash_ints(h, op.attrs.dims);
    mix(h, static_cast<size_t>(op.attrs.axis));
    if (op.attrs.literal) mix(h, std::hash<std::string_view>{}(std::string_view(
                                     reinterpret_cast<const char*>(op.attrs.literal->bytes.data()), op.attrs.literal->bytes.size())));
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
    if (x.kind != y.kind || x.operands != y.operands || x.results != y.results || !same_attrs(x.attrs, y.attrs) ||
        x.regions.size() != y.regions.size() || x.loc.file != y.loc.file || x.loc.line != y.loc.line || x.loc.col != y.loc.col)
      return false;
    for (size_t r = 0; r < x.regions.size(); ++r)
      if (x.regions[r] != y.regions[r] && !structurally_equal(*x.regions[r], *y.regions[r])) return false;
  }
  return true;
}

}  // namespace shard::ir
