// jax.random: keys (legacy raw uint32[2] arrays from PRNGKey, typed key arrays from key),
// split / fold_in, and the samplers, all traced through trace::random (threefry2x32 in
// JAX's partitionable mode) so they run eagerly, under jit, and with out_sharding=.
#include <fmt/format.h>

#include <cstring>

#include "api/modules/random_args.hpp"
#include "api/modules/random_keys.hpp"
#include "api/objects/dtype_value.hpp"
#include "api/op_args.hpp"
#include "array/array_format.hpp"
#include "interp/builtins/support.hpp"
#include "trace/ops_random.hpp"
#include "types/x64_mode.hpp"

namespace shard::api {

namespace random = trace::random;
namespace bi = interp::bi;
using bi::int_tuple;
using interp::ArgParser;
using interp::ObjKind;

namespace {

// A typed key array (dtype key<fry>): its shape is the data's shape without the trailing 2.
struct KeyArrayObj : interp::NativeObj {
  Value data;  // an array or tracer of uint32[..., 2]
  KeyArrayObj(ClassP c, Value d) : NativeObj(std::move(c)), data(std::move(d)) {}
};

ClassP key_array_class() {
  static ClassP c = interp::make_class("PRNGKeyArray", {interp::T().object}, "jax._src.prng");
  return c;
}
ClassP key_dtype_class() {
  static ClassP c = interp::make_class("KeyTy", {interp::T().object}, "jax._src.prng");
  return c;
}

KeyArrayObj* as_key(const Value& v) {
  if (!v || v->kind != ObjKind::Native) return nullptr;
  return dynamic_cast<KeyArrayObj*>(v.get());
}
Value make_key(Value data) { return std::make_shared<KeyArrayObj>(key_array_class(), std::move(data)); }

Shape key_shape(const types::ArrayType& data) { return Shape(data.shape().begin(), data.shape().end() - 1); }

}  // namespace

namespace random_args {

KeyArg key_arg(Interp& I, const Value& v, const std::string& name, bool allow_batched) {
  KeyArg k;
  if (auto* key = as_key(v)) k = {key->data, true};
  else if (is_array_like(v)) k = {v, false};
  else I.raise("TypeError", fmt::format("unexpected PRNG key type <class '{}'>", I.type_name(v)));
  auto t = type_of(k.data);
  if (!k.typed) {
    if (t.dtype() != random::kKeyDType)
      I.raise("TypeError", fmt::format("JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype={}",
                                       types::dtype_name(t.dtype())));
    if (t.rank() < 1 || t.shape().back() != 2)
      I.raise("TypeError", fmt::format("random_wrap requires key_data.shape to end with (2,); got {}", types::py_int_tuple(t.shape())));
  }
  if (!allow_batched && t.rank() != 1)
    I.raise("ValueError", fmt::format("{} accepts a single key, but was given a key array of shape {} != (). Use jax.vmap for batching.",
                                      name, types::py_int_tuple(k.typed ? key_shape(t) : t.shape())));
  return k;
}

Shape random_shape(Interp& I, const Value& v, const std::string& fname) {
  if (is_none(v)) return {};
  if (v->kind != ObjKind::Tuple && v->kind != ObjKind::List)
    I.raise("TypeError", fmt::format("Shapes must be 1D sequences of concrete values of integer type, got {}.", I.repr(v)));
  return shape_arg(I, v, fname);
}

DType float_dtype(Interp& I, const Value& v, const std::string& fname) {
  DType d = is_none(v) ? types::default_float_dtype() : storage_dtype(require_dtype(I, v), false);
  if (!types::is_float(d))
    I.raise("ValueError", fmt::format("dtype argument to `{}` must be a float dtype, got {}", fname, types::dtype_name(d)));  // canonical, as JAX
  return d;
}

}  // namespace random_args

using namespace random_args;

namespace {

// Results that are keys come back typed when the key argument was.
Value key_result(const KeyArg& k, Value data) { return k.typed ? make_key(std::move(data)) : data; }

// A Python int operand that must fit int32 with x64 off, as jnp.asarray checks.
Value int32_operand(Interp& I, const Value& v) {
  if (v && v->kind == ObjKind::Int && !types::x64_enabled()) {
    int64_t x = static_cast<interp::IntObj&>(*v).v;
    if (x < INT32_MIN || x > INT32_MAX) I.raise("OverflowError", fmt::format("Python int {} too large to convert to int32", x));
  }
  return v;
}

// A seed or fold_in datum as 32 bits: Python ints wrap modulo 2**32 (JAX converts through
// int64 / uint32 first); arrays pass through.
Value seed_operand(Interp& I, const Value& v, const std::string& fname) {
  if (v && v->kind == ObjKind::Int) {
    auto bits = static_cast<uint32_t>(static_cast<uint64_t>(static_cast<interp::IntObj&>(*v).v));
    return interp::make_int(static_cast<int32_t>(bits));
  }
  if (is_array_like(v)) return v;
  I.raise("TypeError", fmt::format("{} requires an integer seed, got {}", fname, I.repr(v)));
}

// ---- keys ---------------------------------------------------------------------------------

Value make_seed_key(Interp& I, CallArgs& a, const char* fname) {
  ArgParser p(I, a, fname, {"seed", "*", "impl="});
  if (!is_none(p.get("impl"))) {
    Value impl = p.get("impl");
    if (impl->kind != ObjKind::Str || static_cast<interp::StrObj&>(*impl).v != "threefry2x32")
      I.raise("ValueError", fmt::format("unrecognized PRNG implementation {}. Did you mean one of: \"threefry2x32\"?", I.repr(impl)));
  }
  if (as_key(p.get("seed"))) I.raise("TypeError", fmt::format("{} accepts a scalar seed, but was given a PRNG key.", fname));
  Value s = seed_operand(I, p.get("seed"), fname);
  if (is_array_like(s) && type_of(s).rank() != 0)
    I.raise("TypeError", fmt::format("{} accepts a scalar seed, but was given an array of shape {} != (). Use jax.vmap for batching",
                                     fname, types::py_int_tuple(type_of(s).shape())));
  return apply(I, fname, {s}, [](Trace& t, const std::vector<ValueId>& ids) { return one(random::seed(t, ids[0])); });
}

Value key_repr(const KeyArrayObj& k) {
  auto t = type_of(k.data);
  const std::string head = fmt::format("Array({}, dtype=key<fry>)", array::shape_to_string(key_shape(t)));
  auto* arr = as_array(k.data);
  if (!arr) return interp::make_str(fmt::format("Traced<key<fry>[{}]>", fmt::join(key_shape(t), ",")));
  // The overlay prints the uint32 words as numpy's str does.
  auto bytes = exec::array_to_host(*arr->array);
  array::ArrayView view{t.dtype(), t.shape(), bytes.data()};
  return interp::make_str(head + " overlaying:\n" + array::format_array_str(view));
}

void init_key_classes() {
  static bool done = false;
  if (done) return;
  done = true;
  auto c = key_array_class();
  auto self = [](Interp& I, CallArgs& a) -> KeyArrayObj& { return bi::native_self<KeyArrayObj>(I, a, key_array_class(), "PRNGKeyArray", "method"); };
  auto repr = [self](Interp& I, CallArgs& a) { return key_repr(self(I, a)); };
  bi::def(c, "__repr__", repr);
  bi::def(c, "__str__", repr);
  bi::def_property(c, "shape", [self](Interp& I, CallArgs& a) { return int_tuple(key_shape(type_of(self(I, a).data))); });
  bi::def_property(c, "ndim", [self](Interp& I, CallArgs& a) {
    return interp::make_int(static_cast<int64_t>(type_of(self(I, a).data).rank()) - 1);
  });
  bi::def_property(c, "size", [self](Interp& I, CallArgs& a) { return interp::make_int(types::shape_product(key_shape(type_of(self(I, a).data)))); });
  bi::def_property(c, "dtype", [](Interp&, CallArgs&) -> Value { return std::make_shared<interp::NativeObj>(key_dtype_class()); });
  bi::def(c, "__len__", [self](Interp& I, CallArgs& a) {
    auto s = key_shape(type_of(self(I, a).data));
    if (s.empty()) I.raise("TypeError", "len() of unsized object");
    return interp::make_int(s[0]);
  });
  bi::def(c, "__getitem__", [self](Interp& I, CallArgs& a) {
    bi::method_nargs(I, a, "__getitem__", 1, 1);
    KeyArrayObj& k = self(I, a);
    if (type_of(k.data).rank() == 1) I.raise("IndexError", "Too many indices for array: 1 non-None/Ellipsis indices for dim 0.");
    return make_key(op_getitem(I, k.data, a.args[1]));
  });
  bi::def(c, "__iter__", [self](Interp& I, CallArgs& a) {
    KeyArrayObj& k = self(I, a);
    auto s = key_shape(type_of(k.data));
    if (s.empty()) I.raise("TypeError", "iteration over a 0-d key array");
    std::vector<Value> items;
    for (int64_t i = 0; i < s[0]; ++i) items.push_back(make_key(op_getitem(I, k.data, interp::make_int(i))));
    return I.iter(interp::make_tuple(std::move(items)));
  });
  auto dt = key_dtype_class();
  auto name = [](Interp&, CallArgs&) { return interp::make_str("key<fry>"); };
  bi::def(dt, "__repr__", name);
  bi::def(dt, "__str__", name);
  bi::def_property(dt, "name", name);
}

// ---- samplers -----------------------------------------------------------------------------

Value r_split(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "split", {"key", "num="});
  KeyArg k = key_arg(I, p.get("key"), "split");
  Value num = p.get("num");
  Shape shape = is_none(num) ? Shape{2}
              : (num->kind == ObjKind::Tuple || num->kind == ObjKind::List) ? shape_arg(I, num, "split")
                                                                             : Shape{int_arg(I, num, "num")};
  for (auto d : shape)
    if (d < 0) I.raise("ValueError", fmt::format("split requires a non-negative number of keys, got {}", d));
  return key_result(k, apply(I, "split", {k.data}, [&](Trace& t, const std::vector<ValueId>& ids) { return one(random::split(t, ids[0], shape)); }));
}

Value r_fold_in(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "fold_in", {"key", "data"});
  KeyArg k = key_arg(I, p.get("key"), "fold_in");
  Value d = seed_operand(I, p.get("data"), "fold_in");
  if (is_array_like(d) && type_of(d).rank() != 0)
    I.raise("TypeError", fmt::format("fold_in accepts a scalar, but was given an array ofshape {} != (). Use jax.vmap for batching.",
                                     types::py_int_tuple(type_of(d).shape())));
  return key_result(k, apply(I, "fold_in", {k.data, d}, [&](Trace& t, const std::vector<ValueId>& ids) { return one(random::fold_in(t, ids[0], ids[1])); }));
}

Value r_bits(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "bits", {"key", "shape=", "dtype=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "bits");
  Shape shape = random_shape(I, p.get("shape"), "bits");
  if (!is_none(p.get("dtype"))) {  // JAX's default and (x64 off) only 32-bit choice: uint32
    DType dt = storage_dtype(require_dtype(I, p.get("dtype")), false);
    if (!types::is_unsigned(dt))
      I.raise("ValueError", fmt::format("dtype argument to `bits` must be an unsigned int dtype, got {}", I.str(p.get("dtype"))));
    if (dt != random::kKeyDType)
      I.raise("NotImplementedError", fmt::format("jax.random.bits with dtype={} is not supported yet (uint32 only)", types::dtype_name(dt)));
  }
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "bits", {k.data}, [&](Trace& t, const std::vector<ValueId>& ids) { return one(random::bits(t, ids[0], shape, out)); });
}

Value r_uniform(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "uniform", {"key", "shape=", "dtype=", "minval=", "maxval=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "uniform");
  Shape shape = random_shape(I, p.get("shape"), "uniform");
  DType dt = float_dtype(I, p.get("dtype"), "uniform");
  Value lo = p.has("minval") ? p.get("minval") : interp::make_float(0.0);
  Value hi = p.has("maxval") ? p.get("maxval") : interp::make_float(1.0);
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "uniform", {k.data, as_operand(I, lo, false), as_operand(I, hi, false)}, [&](Trace& t, const std::vector<ValueId>& ids) {
    return one(random::uniform(t, ids[0], shape, dt, ids[1], ids[2], out));
  });
}

Value r_truncated_normal(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "truncated_normal", {"key", "lower", "upper", "shape=", "dtype=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "truncated_normal");
  Shape shape = random_shape(I, p.get("shape"), "truncated_normal");
  DType dt = float_dtype(I, p.get("dtype"), "truncated_normal");
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "truncated_normal", {k.data, as_operand(I, p.get("lower"), false), as_operand(I, p.get("upper"), false)},
               [&](Trace& t, const std::vector<ValueId>& ids) { return one(random::truncated_normal(t, ids[0], ids[1], ids[2], shape, dt, out)); });
}

Value r_normal(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "normal", {"key", "shape=", "dtype=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "normal");
  Shape shape = random_shape(I, p.get("shape"), "normal");
  DType dt = float_dtype(I, p.get("dtype"), "normal");
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "normal", {k.data}, [&](Trace& t, const std::vector<ValueId>& ids) { return one(random::normal(t, ids[0], shape, dt, out)); });
}

Value r_randint(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "randint", {"key", "shape", "minval", "maxval", "dtype=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "randint");
  Shape shape = random_shape(I, p.get("shape"), "randint");
  DType dt = is_none(p.get("dtype")) ? types::default_int_dtype() : storage_dtype(require_dtype(I, p.get("dtype")), false);
  if (!types::is_int(dt)) I.raise("TypeError", fmt::format("randint only accepts integer dtypes, got {}", types::dtype_name(dt)));
  if (dt == DType::I64)
    I.raise("NotImplementedError", "jax.random.randint with int64 (the default int with jax_enable_x64) is not supported yet: "
                                   "pass dtype=jnp.int32");
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  std::vector<Value> ops = {k.data, as_operand(I, int32_operand(I, p.get("minval")), false), as_operand(I, int32_operand(I, p.get("maxval")), false)};
  return apply(I, "randint", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    for (size_t i = 1; i < 3; ++i)
      if (trace::broadcast_shapes("randint", {t.type(ids[i]).shape(), shape}) != shape)
        throw types::ShardingError("ValueError", fmt::format("randint parameter shapes must be broadcast-compatible with shape argument, and the "
                                                             "result of broadcasting the shapes must equal the shape argument, but got result {} "
                                                             "for shape argument {}.",
                                                             types::py_int_tuple(trace::broadcast_shapes("randint", {t.type(ids[i]).shape(), shape})),
                                                             types::py_int_tuple(shape)));
    return one(random::randint(t, ids[0], shape, ids[1], ids[2], dt, out));
  });
}

Value r_bernoulli(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "bernoulli", {"key", "p=", "shape=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "bernoulli");
  Value pv = p.has("p") ? p.get("p") : interp::make_float(0.5);
  pv = as_operand(I, pv, false);
  if (!pv) I.raise("TypeError", "bernoulli requires p to be an array or a scalar");
  std::optional<Shape> shape;
  if (!is_none(p.get("shape"))) shape = random_shape(I, p.get("shape"), "bernoulli");
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "bernoulli", {k.data, pv}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Shape s = shape ? *shape : t.type(ids[1]).shape();
    return one(random::bernoulli(t, ids[0], ids[1], s, out));
  });
}

// An integer n or a 0-d integer array (concrete) for permutation / choice.
std::optional<int64_t> population(Interp& I, const Value& v, const std::string& what) {
  if (v->kind == ObjKind::Int || v->kind == ObjKind::Bool) return *bi::int_of(v);
  if (is_array_like(v) && type_of(v).rank() == 0) {
    if (!types::is_int(type_of(v).dtype())) return std::nullopt;
    return *bi::int_of(array_elements(concrete(I, v, what)).at(0));
  }
  return std::nullopt;
}

Value r_permutation(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "permutation", {"key", "x", "axis=", "independent="});
  KeyArg k = key_arg(I, p.get("key"), "permutation");
  Value x = p.get("x");
  int64_t axis = p.has("axis") ? int_arg(I, p.get("axis"), "axis") : 0;
  bool independent = p.has("independent") && I.truthy(p.get("independent"));
  if (!is_array_like(x) || type_of(x).rank() == 0) {
    if (x->kind == ObjKind::List || x->kind == ObjKind::Tuple) {
      x = to_array(I, x, std::nullopt, false);
    } else {
      auto n = population(I, x, "argument x of jax.random.permutation()");
      if (!n) I.raise("TypeError", "x must be an integer or at least 1-dimensional");
      return apply(I, "permutation", {k.data}, [&](Trace& t, const std::vector<ValueId>& ids) {
        return one(random::permutation_indices(t, ids[0], std::max<int64_t>(*n, 0)));
      });
    }
  }
  auto xt = type_of(x);
  if (independent && xt.rank() > 1) I.raise("NotImplementedError", "permutation(independent=True) of arrays of rank > 1 is not supported yet");
  return apply(I, "permutation", {k.data, x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    int64_t ax = trace::normalize_axis("permutation", axis, xt.rank());
    ValueId perm = random::permutation_indices(t, ids[0], xt.shape()[ax]);
    return one(random::take(t, ids[1], perm, ax));
  });
}

Value r_choice(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "choice", {"key", "a", "shape=", "replace=", "p=", "axis="});
  KeyArg k = key_arg(I, p.get("key"), "choice");
  Value shape_v = p.get("shape");
  if (shape_v && shape_v->kind != ObjKind::Tuple && shape_v->kind != ObjKind::List)
    I.raise("TypeError", fmt::format("shape argument of jax.random.choice must be a sequence, got {}", I.repr(shape_v)));
  Shape shape = random_shape(I, shape_v, "choice");
  bool replace = !p.has("replace") || I.truthy(p.get("replace"));
  if (!is_none(p.get("p"))) I.raise("NotImplementedError", "jax.random.choice with p= is not supported yet");
  int64_t axis = p.has("axis") ? int_arg(I, p.get("axis"), "axis") : 0;
  Value arr = p.get("a");
  if (arr->kind == ObjKind::List || arr->kind == ObjKind::Tuple) arr = to_array(I, arr, std::nullopt, false);
  const bool scalar = !is_array_like(arr) || type_of(arr).rank() == 0;
  int64_t n_inputs = 0;
  if (scalar) {
    auto n = population(I, arr, "The error occurred in jax.random.choice()");
    if (!n) I.raise("TypeError", "choice requires an integer or an array for a");
    n_inputs = *n;
  } else {
    axis = guarded(I, [&] { return trace::normalize_axis("choice", axis, type_of(arr).rank()); });
    n_inputs = type_of(arr).shape()[axis];
  }
  const int64_t n_draws = types::shape_product(shape);
  if (n_draws > 0 && n_inputs <= 0) I.raise("ValueError", "a must be greater than 0 unless no samples are taken");
  if (!replace && n_draws > n_inputs)
    I.raise("ValueError", fmt::format("Cannot take a larger sample (size {}) than population (size {}) when 'replace=False'", n_draws, n_inputs));
  std::vector<Value> ops = {k.data};
  if (!scalar) ops.push_back(arr);
  return apply(I, "choice", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    Shape out_shape = shape;
    if (!scalar) {
      const auto s = t.type(ids[1]).shape();
      out_shape.assign(s.begin(), s.begin() + axis);
      out_shape.insert(out_shape.end(), shape.begin(), shape.end());
      out_shape.insert(out_shape.end(), s.begin() + axis + 1, s.end());
    }
    DTypeW dt = scalar ? DTypeW{DType::I32, false} : dtw(t, ids[1]);
    if (n_draws == 0) return one(trace::full(t, out_shape, 0, {dt.dtype, false}, std::nullopt));
    ValueId ind;
    if (replace) {
      ValueId lo = trace::scalar_constant(t, 0, {DType::I32, false});
      ValueId hi = trace::scalar_constant(t, static_cast<double>(n_inputs), {DType::I32, false});
      ind = random::randint(t, ids[0], {n_draws}, lo, hi, DType::I32);
    } else {
      ValueId perm = random::permutation_indices(t, ids[0], n_inputs);
      ind = trace::slice(t, perm, {0}, {n_draws}, {1});
    }
    ValueId r = scalar ? ind : random::take(t, ids[1], ind, axis);
    return one(trace::reshape(t, r, out_shape));
  });
}

void fill_random(Interp&, ModuleObj& m) {
  init_key_classes();
  def_fn(m, "PRNGKey", [](Interp& I2, CallArgs& a) { return make_seed_key(I2, a, "PRNGKey"); });
  def_fn(m, "key", [](Interp& I2, CallArgs& a) { return make_key(make_seed_key(I2, a, "key")); });
  def_fn(m, "key_data", [](Interp& I2, CallArgs& a) {
    ArgParser p(I2, a, "key_data", {"keys"});
    return key_arg(I2, p.get("keys"), "key_data", true).data;
  });
  def_fn(m, "wrap_key_data", [](Interp& I2, CallArgs& a) {
    ArgParser p(I2, a, "wrap_key_data", {"key_bits_array", "*", "impl="});
    Value d = p.get("key_bits_array");
    if (as_key(d) || !is_array_like(d)) I2.raise("TypeError", fmt::format("wrap_key_data requires a uint32 array, got {}", I2.repr(d)));
    return make_key(key_arg(I2, d, "wrap_key_data", true).data);
  });
  def_fn(m, "key_impl", [](Interp& I2, CallArgs& a) {
    ArgParser p(I2, a, "key_impl", {"keys"});
    key_arg(I2, p.get("keys"), "key_impl", true);
    return interp::make_str("threefry2x32");
  });
  def_fn(m, "key_dtype", [](Interp& I2, CallArgs& a) -> Value {
    ArgParser p(I2, a, "key_dtype", {"impl_spec="});
    Value impl = p.get("impl_spec");
    if (!is_none(impl) && (impl->kind != ObjKind::Str || static_cast<interp::StrObj&>(*impl).v != "threefry2x32"))
      I2.raise("ValueError", fmt::format("unrecognized PRNG implementation {}. Did you mean one of: \"threefry2x32\"?", I2.repr(impl)));
    return std::make_shared<interp::NativeObj>(key_dtype_class());
  });
  // clone: a copy for key-reuse checking, which shard does not do; the same key.
  def_fn(m, "clone", [](Interp& I2, CallArgs& a) {
    ArgParser p(I2, a, "clone", {"key"});
    return p.get("key");
  });
  def_fn(m, "split", r_split);
  def_fn(m, "fold_in", r_fold_in);
  def_fn(m, "bits", r_bits);
  def_fn(m, "uniform", r_uniform);
  def_fn(m, "normal", r_normal);
  def_fn(m, "truncated_normal", r_truncated_normal);
  def_fn(m, "randint", r_randint);
  def_fn(m, "bernoulli", r_bernoulli);
  def_fn(m, "permutation", r_permutation);
  def_fn(m, "choice", r_choice);
  fill_random_distributions(m);
}

}  // namespace

bool is_key_array(const Value& v) { return as_key(v) != nullptr; }
Value key_array_data(const Value& v) {
  auto* k = as_key(v);
  if (!k) throw std::logic_error("internal error: key_array_data of a non-key");
  return k->data;
}
Value make_key_array(Value data) {
  init_key_classes();
  return make_key(std::move(data));
}

void register_random_module() { Interp::register_builtin_module("jax.random", fill_random); }

}  // namespace shard::api
