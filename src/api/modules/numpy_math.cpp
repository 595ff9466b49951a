// numpy's computing functions (elementwise math, comparisons, reductions, shape functions,
// products) on host arrays. Operands are first brought to numpy's result dtype, so the
// tracer's JAX promotion never decides a numpy dtype; results keep host semantics.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "api/modules/numpy_internal.hpp"
#include "api/op_args.hpp"
#include "api/objects/sharding_objects.hpp"

namespace shard::api::np {

namespace bi = interp::bi;
using ir::EwOp;
using ir::ReduceKind;

namespace {

enum class Mode {
  Arith,    // the common dtype
  Inexact,  // the common dtype, ints and bools made float64
  Compare,  // compared in the common dtype, bool result
  Logical,  // operands made bool
};

using Fn = std::function<ValueId(trace::Trace&, const std::vector<ValueId>&)>;

// numpy's broadcasting error, before the tracer would report it in JAX's words.
void check_broadcast(Interp& I, const std::vector<Operand>& ops) {
  size_t rank = 0;
  for (auto& o : ops) rank = std::max(rank, o.array->type.rank());
  for (size_t k = 1; k <= rank; ++k) {
    int64_t size = 1;
    for (auto& o : ops) {
      const auto& s = o.array->type.shape();
      if (k > s.size() || s[s.size() - k] == 1) continue;
      if (size != 1 && size != s[s.size() - k]) {
        std::string shapes;  // numpy writes shapes without spaces: (2,3) (4,)
        for (auto& o2 : ops) {
          std::string t = types::py_int_tuple(o2.array->type.shape());
          t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
          shapes += t + " ";
        }
        I.raise("ValueError", "operands could not be broadcast together with shapes " + shapes);
      }
      size = s[s.size() - k];
    }
  }
}

exec::ArrayRef elementwise(Interp& I, const std::string& name, const std::vector<Value>& args, Mode mode, const Fn& f) {
  std::vector<Operand> ops;
  for (auto& v : args) ops.push_back(operand(I, v));
  check_broadcast(I, ops);
  DType common = result_type(ops);
  if (mode == Mode::Inexact && !types::is_inexact(common)) common = DType::F64;
  if (mode == Mode::Logical) common = DType::Bool;
  std::vector<exec::ArrayRef> inputs;
  for (auto& o : ops) inputs.push_back(o.array);
  return run1(I, name, inputs, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    std::vector<ValueId> cast_ids;
    for (auto id : ids) cast_ids.push_back(cast(t, id, common));
    return std::vector<ValueId>{f(t, cast_ids)};
  });
}

void def_unary(ModuleObj& m, const std::string& name, EwOp op, Mode mode) {
  std::string n = name;
  add(m, n, [n, op, mode](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, n, {"x", "/", "out=", "*", "where=", "dtype="});
    return result(elementwise(I, n, {p.get("x")}, mode, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return trace::unary(t, n, op, ids[0]);
    }));
  });
}

void def_binary(ModuleObj& m, const std::string& name, EwOp op, Mode mode) {
  std::string n = name;
  add(m, n, [n, op, mode](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, n, {"x1", "x2", "/", "out=", "*", "where=", "dtype="});
    return result(elementwise(I, n, {p.get("x1"), p.get("x2")}, mode, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return trace::binary(t, n, op, ids[0], ids[1]);
    }));
  });
}

// ---- reductions -------------------------------------------------------------------------------

// The accumulation dtype numpy uses: ints and bools sum/prod in int64.
DType accumulate_dtype(DType d) { return types::is_inexact(d) ? d : DType::I64; }

Value reduction(Interp& I, CallArgs& a, const std::string& name, ReduceKind kind) {
  interp::ArgParser p(I, a, name, {"a", "axis=", "dtype=", "out=", "keepdims=", "initial=", "where="});
  auto h = host_array(I, p.get("a"));
  auto axes = axes_arg(I, p.get("axis"));
  bool keepdims = bool_arg(I, p.get("keepdims"), false);
  auto dt = dtype_arg(I, p.get("dtype"));
  DType work = h->type.dtype();
  if (kind == ReduceKind::Sum || kind == ReduceKind::Prod) work = dt.value_or(accumulate_dtype(work));
  if (kind == ReduceKind::And || kind == ReduceKind::Or) work = DType::Bool;
  return result(run1(I, name, {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    ValueId x = cast(t, ids[0], work);
    if (axes && axes->empty()) return std::vector<ValueId>{x};
    return std::vector<ValueId>{trace::reduce(t, name, kind, x, axes.value_or(std::vector<int64_t>{}), keepdims)};
  }));
}

Value np_mean(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "mean", {"a", "axis=", "dtype=", "out=", "keepdims=", "*", "where="});
  auto h = host_array(I, p.get("a"));
  auto axes = axes_arg(I, p.get("axis"));
  DType work = dtype_arg(I, p.get("dtype")).value_or(types::is_inexact(h->type.dtype()) ? h->type.dtype() : DType::F64);
  bool keepdims = bool_arg(I, p.get("keepdims"), false);
  return result(run1(I, "mean", {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    return std::vector<ValueId>{trace::mean(t, cast(t, ids[0], work), axes.value_or(std::vector<int64_t>{}), keepdims)};
  }));
}

Value np_var(Interp& I, CallArgs& a, const char* name, bool std_dev) {
  interp::ArgParser p(I, a, name, {"a", "axis=", "dtype=", "out=", "ddof=", "keepdims=", "*", "where="});
  auto h = host_array(I, p.get("a"));
  auto axes = axes_arg(I, p.get("axis"));
  DType work = dtype_arg(I, p.get("dtype")).value_or(types::is_inexact(h->type.dtype()) ? h->type.dtype() : DType::F64);
  int64_t ddof = p.get("ddof") ? bi::index_of(I, p.get("ddof"), "") : 0;
  bool keepdims = bool_arg(I, p.get("keepdims"), false);
  return result(run1(I, name, {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    return std::vector<ValueId>{trace::var(t, cast(t, ids[0], work), axes.value_or(std::vector<int64_t>{}), keepdims, ddof, std_dev)};
  }));
}

Value np_argminmax(Interp& I, CallArgs& a, const std::string& name, ReduceKind kind) {
  interp::ArgParser p(I, a, name, {"a", "axis=", "out=", "*", "keepdims="});
  auto h = host_array(I, p.get("a"));
  std::optional<int64_t> axis;
  if (p.get("axis") && p.get("axis")->kind != ObjKind::None) axis = bi::index_of(I, p.get("axis"), "");
  bool keepdims = bool_arg(I, p.get("keepdims"), false);
  return result(run1(I, name, {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    return std::vector<ValueId>{cast(t, trace::argminmax(t, name, kind, ids[0], axis, keepdims), DType::I64)};
  }));
}

// Flattens x (row-major) inside a body.
ValueId flat(trace::Trace& t, ValueId x) { return trace::reshape(t, x, {t.type(x).num_elements()}); }

Value np_cumulative(Interp& I, CallArgs& a, const std::string& name, ReduceKind kind) {
  interp::ArgParser p(I, a, name, {"a", "axis=", "dtype=", "out="});
  auto h = host_array(I, p.get("a"));
  std::optional<int64_t> axis;
  if (p.get("axis") && p.get("axis")->kind != ObjKind::None) axis = bi::index_of(I, p.get("axis"), "");
  DType work = dtype_arg(I, p.get("dtype")).value_or(accumulate_dtype(h->type.dtype()));
  return result(run1(I, name, {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    ValueId x = cast(t, ids[0], work);
    if (!axis) return std::vector<ValueId>{trace::cumulative(t, name, kind, flat(t, x), 0)};
    return std::vector<ValueId>{trace::cumulative(t, name, kind, x, axis)};
  }));
}

// ---- comparisons ------------------------------------------------------------------------------

exec::ArrayRef isclose(Interp& I, CallArgs& a, const char* name) {
  interp::ArgParser p(I, a, name, {"a", "b", "rtol=", "atol=", "equal_nan="});
  double rtol = p.get("rtol") ? number_arg(I, p.get("rtol"), "rtol") : 1e-5;
  double atol = p.get("atol") ? number_arg(I, p.get("atol"), "atol") : 1e-8;
  bool equal_nan = bool_arg(I, p.get("equal_nan"), false);
  return elementwise(I, name, {p.get("a"), p.get("b")}, Mode::Inexact, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    return trace::isclose(t, ids[0], ids[1], rtol, atol, equal_nan);
  });
}

bool all_true(Interp& I, const exec::ArrayRef& b) {
  auto r = run1(I, "all", {b}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    return std::vector<ValueId>{trace::reduce(t, "all", ReduceKind::And, cast(t, ids[0], DType::Bool), {}, false)};
  });
  return exec::array_to_host(*r).at(0) != 0;
}

Value np_array_equal(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "array_equal", {"a1", "a2", "equal_nan="});
  auto x = host_array(I, p.get("a1")), y = host_array(I, p.get("a2"));
  if (x->type.shape() != y->type.shape()) return interp::make_bool(false);
  bool equal_nan = bool_arg(I, p.get("equal_nan"), false);
  auto eq = elementwise(I, "array_equal", {wrap(x, true), wrap(y, true)}, Mode::Arith, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    return trace::array_equal(t, ids[0], ids[1], equal_nan);  // already reduced to one bool
  });
  return interp::make_bool(exec::array_to_host(*eq).at(0) != 0);
}

// ---- shape functions --------------------------------------------------------------------------

Shape reshape_target(Interp& I, const Value& v, int64_t size) {
  Shape s = [&] {
    Shape out;
    if (auto i = bi::try_index(I, v)) return Shape{*i};
    for (auto& x : I.to_vector(v)) out.push_back(bi::index_of(I, x, ""));
    return out;
  }();
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == -1) {
      if (infer >= 0) I.raise("ValueError", "can only specify one unknown dimension");
      infer = static_cast<int>(i);
    } else if (s[i] < 0) {
      I.raise("ValueError", "negative dimensions not allowed");
    } else {
      known *= s[i];
    }
  }
  if (infer >= 0 && known > 0 && size % known == 0) s[static_cast<size_t>(infer)] = size / known;
  if (infer >= 0 && s[static_cast<size_t>(infer)] == -1)
    I.raise("ValueError", fmt::format("cannot reshape array of size {} into shape {}", size, types::py_int_tuple(s)));
  if (types::shape_product(s) != size)
    I.raise("ValueError", fmt::format("cannot reshape array of size {} into shape {}", size, types::py_int_tuple(s)));
  return s;
}

Value np_reshape(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "reshape", {"a", "newshape", "order="});
  if (as_object_array(p.get("a"))) return I.call(I.getattr(p.get("a"), "reshape"), std::vector<Value>{p.get("newshape")});
  auto h = host_array(I, p.get("a"));
  Shape s = reshape_target(I, p.get("newshape"), h->type.num_elements());
  return wrap(run1(I, "reshape", {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
                return std::vector<ValueId>{trace::reshape(t, ids[0], s)};
              }),
              true);
}

Value np_transpose(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "transpose", {"a", "axes="});
  auto h = host_array(I, p.get("a"));
  std::vector<int64_t> perm = axes_arg(I, p.get("axes")).value_or(std::vector<int64_t>{});
  return wrap(run1(I, "transpose", {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
                return std::vector<ValueId>{trace::transpose(t, ids[0], perm)};
              }),
              true);
}

std::vector<exec::ArrayRef> array_list(Interp& I, const Value& seq, const char* name) {
  if (as_array(seq)) {
    // An array is a sequence of its rows.
    auto h = host_array(I, seq);
    if (h->type.rank() == 0) I.raise("ValueError", fmt::format("zero-dimensional arrays cannot be concatenated"));
    std::vector<exec::ArrayRef> rows;
    for (int64_t i = 0; i < h->type.shape()[0]; ++i)
      rows.push_back(run1(I, name, {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{trace::index_dims(t, ids[0], {0}, {i})};
      }));
    return rows;
  }
  std::vector<exec::ArrayRef> out;
  for (auto& v : I.to_vector(seq)) out.push_back(host_array(I, v));
  if (out.empty()) I.raise("ValueError", "need at least one array to concatenate");
  return out;
}

// Brings arrays to their common numpy dtype.
std::vector<exec::ArrayRef> common_dtype(Interp& I, std::vector<exec::ArrayRef> xs) {
  std::optional<DType> d;
  for (auto& x : xs) d = d ? promote(*d, x->type.dtype()) : x->type.dtype();
  for (auto& x : xs)
    if (x->type.dtype() != *d) x = guarded(I, [&] { return host_astype(x, *d); });
  return xs;
}

Value join(Interp& I, CallArgs& a, const char* name, bool stack) {
  interp::ArgParser p(I, a, name, {"arrays", "axis=", "out=", "*", "dtype=", "casting="});
  auto xs = common_dtype(I, array_list(I, p.get("arrays"), name));
  Value axis_v = p.get("axis");
  const bool flatten = !stack && axis_v && axis_v->kind == ObjKind::None;
  int64_t axis = axis_v && axis_v->kind != ObjKind::None ? bi::index_of(I, axis_v, "") : 0;
  if (!stack && !flatten)
    for (auto& x : xs)
      if (x->type.rank() == 0) I.raise("ValueError", "zero-dimensional arrays cannot be concatenated");
  return wrap(run1(I, name, xs, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
                std::vector<ValueId> parts = ids;
                if (flatten)
                  for (auto& id : parts) id = flat(t, id);
                return std::vector<ValueId>{stack ? trace::stack(t, parts, axis) : trace::concatenate(t, parts, axis)};
              }),
              true);
}

Value np_stackish(Interp& I, CallArgs& a, const char* name, bool vertical) {
  interp::ArgParser p(I, a, name, {"tup", "*", "dtype=", "casting="});
  auto xs = common_dtype(I, array_list(I, p.get("tup"), name));
  return wrap(run1(I, name, xs, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
                std::vector<ValueId> parts = ids;
                int64_t axis = 0;
                if (vertical) {
                  for (auto& id : parts)
                    if (t.type(id).rank() < 2) id = trace::reshape(t, id, {1, t.type(id).num_elements()});
                } else {
                  for (auto& id : parts)
                    if (t.type(id).rank() == 0) id = trace::reshape(t, id, {1});
                  axis = t.type(parts[0]).rank() == 1 ? 0 : 1;
                }
                return std::vector<ValueId>{trace::concatenate(t, parts, axis)};
              }),
              true);
}

Value np_tile(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "tile", {"A", "reps"});
  auto h = host_array(I, p.get("A"));
  std::vector<int64_t> reps;
  if (auto i = bi::try_index(I, p.get("reps"))) reps = {*i};
  else
    for (auto& x : I.to_vector(p.get("reps"))) reps.push_back(bi::index_of(I, x, ""));
  for (auto r : reps)
    if (r < 0) I.raise("ValueError", "negative dimensions are not allowed");
  Shape shape = h->type.shape();
  const size_t n = std::max(shape.size(), reps.size());
  shape.insert(shape.begin(), n - shape.size(), 1);
  reps.insert(reps.begin(), n - reps.size(), 1);
  // x -> (1, d0, 1, d1, ...) -> broadcast (r0, d0, r1, d1, ...) -> (r0*d0, r1*d1, ...)
  Shape interleaved, broadcast, out;
  for (size_t d = 0; d < n; ++d) {
    interleaved.insert(interleaved.end(), {1, shape[d]});
    broadcast.insert(broadcast.end(), {reps[d], shape[d]});
    out.push_back(reps[d] * shape[d]);
  }
  check_size(I, broadcast);
  return wrap(run1(I, "tile", {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
                ValueId x = trace::reshape(t, ids[0], interleaved);
                x = trace::broadcast_to(t, x, broadcast);
                return std::vector<ValueId>{trace::reshape(t, x, out)};
              }),
              true);
}

Value np_shape_op(Interp& I, const char* name, const Value& x, const std::function<ValueId(trace::Trace&, ValueId)>& f) {
  auto h = host_array(I, x);
  return wrap(run1(I, name, {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{f(t, ids[0])}; }), true);
}

// np.split / np.array_split: pieces along `axis` as views of the array by slicing (numpy's
// "array split does not result in an equal division" unless array_split).
Value np_split(Interp& I, CallArgs& a, const char* name, bool equal) {
  interp::ArgParser p(I, a, name, {"ary", "indices_or_sections", "axis="});
  Value x = p.get("ary");
  if (!as_array(x)) x = wrap(host_array(I, x), true);
  const Shape shape = as_array(x)->array->type.shape();
  int64_t axis = p.get("axis") ? bi::index_of(I, p.get("axis"), "") : 0;
  if (axis < 0) axis += static_cast<int64_t>(shape.size());
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
    I.raise("AxisError", fmt::format("axis {} is out of bounds for array of dimension {}", axis, shape.size()));
  const int64_t n = shape[static_cast<size_t>(axis)];
  std::vector<int64_t> bounds{0};
  Value ios = p.get("indices_or_sections");
  if (auto k = bi::int_of(ios)) {
    if (*k <= 0) I.raise("ValueError", "number sections must be larger than 0.");
    if (equal && n % *k != 0) I.raise("ValueError", "array split does not result in an equal division");
    // array_split: the first n % k pieces get one more element.
    for (int64_t i = 0, at = 0; i < *k; ++i) bounds.push_back(at += n / *k + (i < n % *k ? 1 : 0));
  } else {
    for (auto& v : I.to_vector(ios)) bounds.push_back(bi::index_of(I, v, ""));
    bounds.push_back(n);
  }
  std::vector<Value> pieces;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    std::vector<Value> index;
    for (size_t d = 0; d < shape.size(); ++d)
      index.push_back(std::make_shared<interp::SliceObj>(interp::T().slice, static_cast<int64_t>(d) == axis ? interp::make_int(bounds[i]) : interp::none(),
                                                         static_cast<int64_t>(d) == axis ? interp::make_int(bounds[i + 1]) : interp::none(), interp::none()));
    pieces.push_back(I.getitem(x, interp::make_tuple(std::move(index))));
  }
  return interp::make_list(std::move(pieces));
}

Value shape_tuple(const Shape& s) {
  std::vector<Value> xs;
  for (auto d : s) xs.push_back(interp::make_int(d));
  return interp::make_tuple(std::move(xs));
}

Value np_dot(Interp& I, CallArgs& a, const char* name) {
  interp::ArgParser p(I, a, name, {"a", "b", "out="});
  // numpy's promotion, but not elementwise broadcasting: the contraction checks the shapes
  std::vector<Operand> ops{operand(I, p.get("a")), operand(I, p.get("b"))};
  const DType common = result_type(ops);
  return result(run1(I, name, {ops[0].array, ops[1].array}, [&](trace::Trace& t, const std::vector<ValueId>& raw) {
    std::vector<ValueId> ids{cast(t, raw[0], common), cast(t, raw[1], common)};
    if (t.type(ids[0]).rank() == 0 || t.type(ids[1]).rank() == 0) {
      if (std::string(name) == "matmul") throw types::ShardingError("ValueError", "matmul: Input operand does not have enough dimensions");
      return std::vector<ValueId>{trace::binary(t, name, EwOp::Mul, ids[0], ids[1])};
    }
    return std::vector<ValueId>{trace::matmul(t, ids[0], ids[1], std::nullopt, name)};
  }));
}

}  // namespace

void add_math_functions(Interp&, ModuleObj& m) {
  // The elementwise primitives of the table's numpy column (ir/elementwise_ops.hpp), in
  // numpy's dtypes: what makes floats in jnp makes float64 here.
  ir::for_each_binding([](const ir::EwInfo& e) { return e.numpy_names; }, [&](EwOp op, std::string_view n) {
    Mode mode = Mode::Arith;
    switch (ir::ew_info(op).dtype_rule) {
      case ir::EwDTypeRule::Inexact: case ir::EwDTypeRule::Rounding: case ir::EwDTypeRule::Predicate: mode = Mode::Inexact; break;
      case ir::EwDTypeRule::Compare: mode = Mode::Compare; break;
      default: break;
    }
    if (ir::ew_info(op).arity == 1) def_unary(m, std::string(n), op, mode);
    else def_binary(m, std::string(n), op, mode);
  });
  add(m, "reciprocal", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "reciprocal", {"x", "/", "out=", "*", "where=", "dtype="});
    return result(elementwise(I, "reciprocal", {p.get("x")}, Mode::Arith, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      ValueId x = ids[0];
      if (types::is_inexact(t.type(x).dtype())) return trace::unary(t, "reciprocal", EwOp::Reciprocal, x);
      // numpy keeps integers: 1 / x truncated, so 1 and -1 stay and every other value is 0
      // (1 / 0 too; numpy warns there).
      ValueId zero = trace::scalar_constant(t, 0, {t.type(x).dtype(), true});
      ValueId one = trace::scalar_constant(t, 1, {t.type(x).dtype(), true});
      return trace::where(t, trace::binary(t, "reciprocal", EwOp::Eq, trace::unary(t, "reciprocal", EwOp::Abs, x), one), x, zero);
    }));
  });
  // numpy's round half to even at `decimals` (x * 10**d rounded, / 10**d, as numpy and jnp
  // compute it); integers stay integers.
  for (const char* n : {"round", "around"})
    add(m, n, [n](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, n, {"a", "decimals=", "out="});
      const int64_t decimals = p.has("decimals") ? api::int_arg(I, p.get("decimals"), "decimals") : 0;
      return result(elementwise(I, n, {p.get("a")}, Mode::Arith, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
        return trace::round_decimals(t, ids[0], decimals);
      }));
    });
  // numpy 1.24's sign of a complex value: the sign of the real part, or of the imaginary part
  // when the real part is 0, as a complex number (jnp's is z / |z|).
  add(m, "sign", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "sign", {"x", "/", "out=", "*", "where=", "dtype="});
    return result(elementwise(I, "sign", {p.get("x")}, Mode::Arith, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      ValueId x = ids[0];
      if (!types::is_complex(t.type(x).dtype())) return trace::unary(t, "sign", EwOp::Sign, x);
      ValueId re = trace::real(t, x), im = trace::imag(t, x);
      ValueId zero = trace::scalar_constant(t, 0, {t.type(re).dtype(), true});
      ValueId s = trace::where(t, trace::binary(t, "sign", EwOp::Ne, re, zero), trace::unary(t, "sign", EwOp::Sign, re),
                               trace::unary(t, "sign", EwOp::Sign, im));
      return trace::make_complex(t, s, trace::full_like(t, "sign", s, 0, {t.type(s).dtype(), false}, std::nullopt, std::nullopt));
    }));
  });
  // Complex parts (a real array's real part is itself; its imaginary part zeros).
  using PartFn = ValueId (*)(trace::Trace&, ValueId);
  for (auto [name, fn] : {std::pair<const char*, PartFn>{"real", trace::real}, {"imag", trace::imag}, {"conj", trace::conj},
                          {"conjugate", trace::conj}})
    add(m, name, [name = std::string(name), fn = fn](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, name, {"x"});
      return result(elementwise(I, name, {p.get("x")}, Mode::Arith, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
        return fn(t, ids[0]);
      }));
    });
  add(m, "angle", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "angle", {"z", "deg="});
    const bool deg = p.has("deg") && I.truthy(p.get("deg"));
    return result(elementwise(I, "angle", {p.get("z")}, Mode::Inexact, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return trace::angle(t, ids[0], deg);
    }));
  });
  for (auto [name, complex_test] : {std::pair{"iscomplex", true}, std::pair{"isreal", false}})
    add(m, name, [name = std::string(name), complex_test = complex_test](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, name, {"x"});
      return result(elementwise(I, name, {p.get("x")}, Mode::Arith, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
        ValueId im = trace::imag(t, ids[0]);
        ValueId zero = trace::scalar_constant(t, 0, {t.type(im).dtype(), true});
        return trace::binary(t, name, complex_test ? EwOp::Ne : EwOp::Eq, im, zero);
      }));
    });
  def_unary(m, "logical_not", EwOp::Not, Mode::Logical);
  for (auto [name, op] : {std::pair{"logical_and", EwOp::And}, std::pair{"logical_or", EwOp::Or}, std::pair{"logical_xor", EwOp::Xor}})
    def_binary(m, name, op, Mode::Logical);

  add(m, "where", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "where", {"condition", "x=", "y="});
    if (!p.get("x") || !p.get("y")) I.raise("NotImplementedError", "numpy.where(condition) with one argument is not supported");
    auto cond = host_array(I, p.get("condition"), DType::Bool);
    std::vector<Operand> ops{operand(I, p.get("x")), operand(I, p.get("y"))};
    check_broadcast(I, {Operand{cond, cond->type.rank() == 0}, ops[0], ops[1]});
    DType common = result_type(ops);
    return result(run1(I, "where", {cond, ops[0].array, ops[1].array}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      ValueId x = cast(t, ids[1], common);
      ValueId y = cast(t, ids[2], common);
      return std::vector<ValueId>{trace::where(t, ids[0], x, y)};
    }));
  });
  add(m, "clip", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "clip", {"a", "a_min", "a_max", "out="});
    std::vector<Value> args{p.get("a")};
    bool has_lo = p.get("a_min")->kind != ObjKind::None, has_hi = p.get("a_max")->kind != ObjKind::None;
    if (has_lo) args.push_back(p.get("a_min"));
    if (has_hi) args.push_back(p.get("a_max"));
    return result(elementwise(I, "clip", args, Mode::Arith, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      std::optional<ValueId> lo, hi;
      if (has_lo) lo = ids[1];
      if (has_hi) hi = ids[has_lo ? 2 : 1];
      return trace::clip(t, ids[0], lo, hi);
    }));
  });

  add(m, "sum", [](Interp& I, CallArgs& a) { return reduction(I, a, "sum", ReduceKind::Sum); });
  add(m, "prod", [](Interp& I, CallArgs& a) { return reduction(I, a, "prod", ReduceKind::Prod); });
  for (const char* n : {"max", "amax"}) add(m, n, [n](Interp& I, CallArgs& a) { return reduction(I, a, n, ReduceKind::Max); });
  for (const char* n : {"min", "amin"}) add(m, n, [n](Interp& I, CallArgs& a) { return reduction(I, a, n, ReduceKind::Min); });
  add(m, "all", [](Interp& I, CallArgs& a) { return reduction(I, a, "all", ReduceKind::And); });
  add(m, "any", [](Interp& I, CallArgs& a) { return reduction(I, a, "any", ReduceKind::Or); });
  add(m, "mean", np_mean);
  add(m, "var", [](Interp& I, CallArgs& a) { return np_var(I, a, "var", false); });
  add(m, "std", [](Interp& I, CallArgs& a) { return np_var(I, a, "std", true); });
  add(m, "argmax", [](Interp& I, CallArgs& a) { return np_argminmax(I, a, "argmax", ReduceKind::Max); });
  add(m, "argmin", [](Interp& I, CallArgs& a) { return np_argminmax(I, a, "argmin", ReduceKind::Min); });
  add(m, "cumsum", [](Interp& I, CallArgs& a) { return np_cumulative(I, a, "cumsum", ReduceKind::Sum); });
  add(m, "cumprod", [](Interp& I, CallArgs& a) { return np_cumulative(I, a, "cumprod", ReduceKind::Prod); });

  add(m, "isclose", [](Interp& I, CallArgs& a) { return result(isclose(I, a, "isclose")); });
  add(m, "allclose", [](Interp& I, CallArgs& a) { return interp::make_bool(all_true(I, isclose(I, a, "allclose"))); });
  add(m, "array_equal", np_array_equal);

  add(m, "reshape", np_reshape);
  add(m, "transpose", np_transpose);
  add(m, "concatenate", [](Interp& I, CallArgs& a) { return join(I, a, "concatenate", false); });
  add(m, "stack", [](Interp& I, CallArgs& a) { return join(I, a, "stack", true); });
  add(m, "vstack", [](Interp& I, CallArgs& a) { return np_stackish(I, a, "vstack", true); });
  add(m, "hstack", [](Interp& I, CallArgs& a) { return np_stackish(I, a, "hstack", false); });
  add(m, "tile", np_tile);
  add(m, "ravel", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "ravel", {"a", "order="});
    return np_shape_op(I, "ravel", p.get("a"), [](trace::Trace& t, ValueId x) { return flat(t, x); });
  });
  add(m, "expand_dims", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "expand_dims", {"a", "axis"});
    auto axes = axes_arg(I, p.get("axis")).value_or(std::vector<int64_t>{});
    return np_shape_op(I, "expand_dims", p.get("a"), [&](trace::Trace& t, ValueId x) { return trace::expand_dims(t, x, axes); });
  });
  add(m, "squeeze", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "squeeze", {"a", "axis="});
    auto axes = axes_arg(I, p.get("axis"));
    return np_shape_op(I, "squeeze", p.get("a"), [&](trace::Trace& t, ValueId x) { return trace::squeeze(t, x, axes); });
  });
  add(m, "broadcast_to", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "broadcast_to", {"array", "shape", "subok="});
    Shape s = shape_arg(I, p.get("shape"));
    return np_shape_op(I, "broadcast_to", p.get("array"), [&](trace::Trace& t, ValueId x) { return trace::broadcast_to(t, x, s); });
  });
  add(m, "sort", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "sort", {"a", "axis=", "kind=", "order="});
    Value ax = p.get("axis");
    const bool flatten = ax && ax->kind == ObjKind::None;
    int64_t axis = ax && !flatten ? bi::index_of(I, ax, "") : -1;
    return np_shape_op(I, "sort", p.get("a"), [&](trace::Trace& t, ValueId x) { return trace::sort(t, flatten ? flat(t, x) : x, flatten ? 0 : axis); });
  });
  add(m, "argsort", [](Interp& I, CallArgs& a) {  // stable whatever `kind` (numpy's "stable" order)
    interp::ArgParser p(I, a, "argsort", {"a", "axis=", "kind=", "order=", "*", "stable="});
    Value ax = p.get("axis");
    const bool flatten = ax && ax->kind == ObjKind::None;
    int64_t axis = ax && !flatten ? bi::index_of(I, ax, "") : -1;
    return np_shape_op(I, "argsort", p.get("a"), [&](trace::Trace& t, ValueId x) {
      return trace::convert(t, trace::argsort(t, flatten ? flat(t, x) : x, flatten ? 0 : axis), {DType::I64, false});
    });
  });
  add(m, "split", [](Interp& I, CallArgs& a) { return np_split(I, a, "split", true); });
  add(m, "array_split", [](Interp& I, CallArgs& a) { return np_split(I, a, "array_split", false); });
  add(m, "shape", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "shape", {"a"});
    if (auto* oa = as_object_array(p.get("a"))) return shape_tuple(oa->shape);
    if (auto* arr = as_array(p.get("a"))) return shape_tuple(arr->array->type.shape());
    return shape_tuple(host_array(I, p.get("a"))->type.shape());
  });
  add(m, "ndim", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "ndim", {"a"});
    if (auto* oa = as_object_array(p.get("a"))) return interp::make_int(static_cast<int64_t>(oa->shape.size()));
    if (auto* arr = as_array(p.get("a"))) return interp::make_int(static_cast<int64_t>(arr->array->type.rank()));
    return interp::make_int(static_cast<int64_t>(host_array(I, p.get("a"))->type.rank()));
  });
  add(m, "size", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "size", {"a", "axis="});
    if (auto* oa = as_object_array(p.get("a"))) return interp::make_int(static_cast<int64_t>(oa->items.size()));
    if (auto* arr = as_array(p.get("a"))) return interp::make_int(arr->array->type.num_elements());
    return interp::make_int(host_array(I, p.get("a"))->type.num_elements());
  });
  add(m, "dot", [](Interp& I, CallArgs& a) { return np_dot(I, a, "dot"); });
  add(m, "matmul", [](Interp& I, CallArgs& a) { return np_dot(I, a, "matmul"); });
}

}  // namespace shard::api::np
