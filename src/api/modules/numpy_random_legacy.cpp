// numpy.random's legacy API: RandomState over MT19937 (seeded by init_genrand for an int,
// init_by_array for a sequence, the OS when None) and the module functions, which are bound
// to one global RandomState as numpy's are. Streams match numpy 1.24's: random_sample /
// rand / uniform (53-bit doubles from two words), randint (masked rejection), randn /
// standard_normal / normal (the polar method with its cached second value), exponential
// (inversion), standard_gamma / gamma / beta, permutation / shuffle / choice, and
// get_state / set_state.
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "api/modules/numpy_random_gamma.hpp"
#include "api/modules/numpy_random_support.hpp"

namespace shard::api::np {

namespace bi = interp::bi;

namespace {

using bitgen::Mt19937;

// numpy's aug_bitgen: the engine plus the polar method's spare normal.
struct LegacyState {
  Mt19937 mt;
  bool has_gauss = false;
  double gauss = 0;

  double next_double() { return mt.next_double(); }
  double standard_normal() {
    if (has_gauss) {
      has_gauss = false;
      const double x = gauss;
      gauss = 0;
      return x;
    }
    double x1, x2, r2;
    do {
      x1 = 2.0 * mt.next_double() - 1.0;
      x2 = 2.0 * mt.next_double() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    gauss = f * x1;
    has_gauss = true;
    return f * x2;
  }
};

struct RandomStateObj : interp::NativeObj {
  LegacyState st;
  explicit RandomStateObj(ClassP c) : NativeObj(std::move(c)) {}
};

RandomStateObj& self_rs(Interp& I, CallArgs& a) {
  auto* r = a.args.empty() ? nullptr : dynamic_cast<RandomStateObj*>(a.args[0].get());
  if (!r) I.raise("TypeError", "descriptor requires a 'numpy.random.RandomState' object");
  return *r;
}

constexpr int64_t kMaxSeed = 0xFFFFFFFFLL;

// RandomState(seed) / seed(seed): numpy's MT19937._legacy_seeding.
void legacy_seed(Interp& I, LegacyState& st, const Value& seed) {
  st.has_gauss = false;
  st.gauss = 0;
  if (!seed || seed->kind == ObjKind::None) {
    st.mt.seed_from_os();
    return;
  }
  if (auto v = bi::try_index(I, seed)) {
    if (*v < 0 || *v > kMaxSeed) I.raise("ValueError", "Seed must be between 0 and 2**32 - 1");
    st.mt.seed(static_cast<uint32_t>(*v));
    return;
  }
  auto arr = host_array(I, seed);
  if (arr->type.num_elements() == 0) I.raise("ValueError", "Seed must be non-empty");
  const DType dt = arr->type.dtype();
  if (dt != DType::I64 && dt != DType::I32 && dt != DType::U32 && dt != DType::Bool)
    I.raise("TypeError", fmt::format("Cannot cast {} from dtype('{}') to dtype('int64') according to the rule 'safe'",
                                     arr->type.rank() == 0 ? "scalar" : "array data", types::dtype_name(dt)));
  arr = host_array(I, seed, DType::I64);
  if (arr->type.rank() != 1) I.raise("ValueError", "Seed array must be 1-d");
  auto bytes = exec::array_to_host(*arr);
  std::vector<uint32_t> key(static_cast<size_t>(arr->type.num_elements()));
  for (size_t i = 0; i < key.size(); ++i) {
    int64_t x;
    std::memcpy(&x, bytes.data() + i * 8, 8);
    if (x < 0 || x > kMaxSeed) I.raise("ValueError", "Seed must be between 0 and 2**32 - 1");
    key[i] = static_cast<uint32_t>(x);
  }
  st.mt.seed_by_array(key);
}

// get_state(): ('MT19937', key, pos, has_gauss, gauss); legacy=False: numpy's dict form.
Value get_state(Interp& I, LegacyState& st, bool legacy) {
  Value key = rnd::host_result(I, st.mt.key.data(), DType::U32, {Mt19937::kWords});
  Value name = interp::make_str("MT19937"), pos = interp::make_int(st.mt.pos);
  Value has_gauss = interp::make_int(st.has_gauss ? 1 : 0), gauss = interp::make_float(st.gauss);
  if (legacy) return interp::make_tuple({name, key, pos, has_gauss, gauss});
  auto inner = interp::make_dict();
  inner->set(I, interp::make_str("key"), key);
  inner->set(I, interp::make_str("pos"), pos);
  auto d = interp::make_dict();
  d->set(I, interp::make_str("bit_generator"), name);
  d->set(I, interp::make_str("state"), inner);
  d->set(I, interp::make_str("has_gauss"), has_gauss);
  d->set(I, interp::make_str("gauss"), gauss);
  return d;
}

void set_state(Interp& I, LegacyState& st, const Value& state) {
  Value name, key_v, pos_v, has_gauss_v, gauss_v;
  if (state && state->kind == ObjKind::Dict) {
    auto& d = static_cast<interp::DictObj&>(*state);
    auto field = [&](interp::DictObj& in, const char* k) -> Value {
      Value* v = in.find(I, interp::make_str(k));
      return v ? *v : nullptr;
    };
    name = field(d, "bit_generator");
    Value inner = field(d, "state");
    if (!name || !inner || inner->kind != ObjKind::Dict) I.raise("ValueError", "state dictionary is not valid.");
    key_v = field(static_cast<interp::DictObj&>(*inner), "key");
    pos_v = field(static_cast<interp::DictObj&>(*inner), "pos");
    has_gauss_v = field(d, "has_gauss");
    gauss_v = field(d, "gauss");
    if (!key_v || !pos_v) I.raise("ValueError", "state dictionary is not valid.");
  } else if (state && (state->kind == ObjKind::Tuple || state->kind == ObjKind::List)) {
    auto parts = I.to_vector(state);
    if (parts.empty()) I.raise("ValueError", "state is not a legacy MT19937 state");
    name = parts[0];
    if (name->kind != ObjKind::Str || I.str(name) != "MT19937")
      I.raise("ValueError", "set_state can only be used with legacy MT19937state instances.");  // numpy's text
    if (parts.size() != 3 && parts.size() != 5) I.raise("ValueError", "state is not a legacy MT19937 state");
    key_v = parts[1];
    pos_v = parts[2];
    if (parts.size() == 5) {
      has_gauss_v = parts[3];
      gauss_v = parts[4];
    }
  } else {
    I.raise("TypeError", "state must be a dict or a tuple.");
  }
  if (name->kind != ObjKind::Str || I.str(name) != "MT19937") I.raise("ValueError", "state must be for a MT19937 PRNG");
  auto key = host_array(I, key_v, DType::I64);
  if (key->type.num_elements() != Mt19937::kWords) I.raise("ValueError", "state key must hold 624 words");
  const int64_t pos = bi::index_of(I, pos_v, "pos");
  if (pos < 0 || pos > Mt19937::kWords) I.raise("ValueError", "state pos must be in [0, 624]");
  auto bytes = exec::array_to_host(*key);
  for (int i = 0; i < Mt19937::kWords; ++i) {
    int64_t x;
    std::memcpy(&x, bytes.data() + static_cast<size_t>(i) * 8, 8);
    st.mt.key[i] = static_cast<uint32_t>(x);
  }
  st.mt.pos = static_cast<int>(pos);
  st.has_gauss = has_gauss_v && I.truthy(has_gauss_v);
  st.gauss = gauss_v ? number_arg(I, gauss_v, "gauss") : 0.0;
}

Value varargs_size(const std::vector<Value>& dims) { return dims.empty() ? interp::none() : interp::make_tuple(dims); }

Value random_sample(Interp& I, LegacyState& st, const Value& size) {
  return rnd::float_result(I, rnd::size_arg(I, size), DType::F64, [&] { return st.next_double(); });
}
Value standard_normals(Interp& I, LegacyState& st, const Value& size) {
  return rnd::float_result(I, rnd::size_arg(I, size), DType::F64, [&] { return st.standard_normal(); });
}
double standard_exponential(LegacyState& st) { return -std::log(1.0 - st.next_double()); }

// The variates RandomState's gamma family draws from.
struct Variates {
  LegacyState& st;
  double uniform() { return st.next_double(); }
  double exponential() { return standard_exponential(st); }
  double normal() { return st.standard_normal(); }
};

ClassP random_state_class() {
  static ClassP c = [] {
    auto k = interp::make_class("RandomState", {interp::T().object}, "numpy.random.mtrand");
    k->native_new = [](Interp& I, const ClassP& cls, CallArgs& a) -> Value {
      interp::ArgParser p(I, a, "RandomState", {"seed="});
      auto r = std::make_shared<RandomStateObj>(cls);
      legacy_seed(I, r->st, p.get("seed"));
      return r;
    };
    bi::def(k, "__init__", [](Interp&, CallArgs&) { return interp::none(); });
    bi::def(k, "__repr__", [](Interp& I, CallArgs& a) {
      auto& r = self_rs(I, a);
      return interp::make_str(fmt::format("RandomState(MT19937) at 0x{:X}", reinterpret_cast<uintptr_t>(&r)));
    });
    bi::def(k, "seed", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "seed", {"$self", "seed="});
      legacy_seed(I, self_rs(I, a).st, p.get("seed"));
      return interp::none();
    });
    bi::def(k, "get_state", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "get_state", {"$self", "legacy="});
      return get_state(I, self_rs(I, a).st, bool_arg(I, p.get("legacy"), true));
    });
    bi::def(k, "set_state", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "set_state", {"$self", "state"});
      set_state(I, self_rs(I, a).st, p.get("state"));
      return interp::none();
    });
    for (const char* name : {"random_sample", "random"}) {
      bi::def(k, name, [name](Interp& I, CallArgs& a) {
        interp::ArgParser p(I, a, name, {"$self", "size="});
        return random_sample(I, self_rs(I, a).st, p.get("size"));
      });
    }
    bi::def(k, "rand", [](Interp& I, CallArgs& a) {
      bi::no_kwargs(I, a, "rand");
      auto& r = self_rs(I, a);
      return random_sample(I, r.st, varargs_size(std::vector<Value>(a.args.begin() + 1, a.args.end())));
    });
    bi::def(k, "randn", [](Interp& I, CallArgs& a) {
      bi::no_kwargs(I, a, "randn");
      auto& r = self_rs(I, a);
      return standard_normals(I, r.st, varargs_size(std::vector<Value>(a.args.begin() + 1, a.args.end())));
    });
    bi::def(k, "standard_normal", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "standard_normal", {"$self", "size="});
      return standard_normals(I, self_rs(I, a).st, p.get("size"));
    });
    bi::def(k, "normal", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "normal", {"$self", "loc=", "scale=", "size="});
      auto& st = self_rs(I, a).st;
      const rnd::Param loc = rnd::param_arg(I, p.get("loc"), 0.0, "loc", rnd::Check::None), scale = rnd::param_arg(I, p.get("scale"), 1.0, "scale", rnd::Check::NonNegative);
      return rnd::param_draws(I, {loc, scale}, p.get("size"), [&](const double* q) { return q[0] + q[1] * st.standard_normal(); });
    });
    bi::def(k, "uniform", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "uniform", {"$self", "low=", "high=", "size="});
      auto& st = self_rs(I, a).st;
      const rnd::Param low = rnd::param_arg(I, p.get("low"), 0.0, "low", rnd::Check::None), high = rnd::param_arg(I, p.get("high"), 1.0, "high", rnd::Check::None);
      const rnd::Param range = rnd::uniform_range(I, low, high, "Range exceeds valid bounds", false);
      return rnd::param_draws(I, {low, range}, p.get("size"), [&](const double* q) { return q[0] + q[1] * st.next_double(); });
    });
    bi::def(k, "standard_exponential", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "standard_exponential", {"$self", "size="});
      auto& st = self_rs(I, a).st;
      return rnd::float_result(I, rnd::size_arg(I, p.get("size")), DType::F64, [&] { return standard_exponential(st); });
    });
    bi::def(k, "exponential", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "exponential", {"$self", "scale=", "size="});
      auto& st = self_rs(I, a).st;
      const rnd::Param scale = rnd::param_arg(I, p.get("scale"), 1.0, "scale", rnd::Check::NonNegative);
      return rnd::param_draws(I, {scale}, p.get("size"), [&](const double* q) { return q[0] * standard_exponential(st); });
    });
    bi::def(k, "standard_gamma", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "standard_gamma", {"$self", "shape", "size="});
      Variates src{self_rs(I, a).st};
      const rnd::Param shape = rnd::param_arg(I, p.get("shape"), 0.0, "shape", rnd::Check::NonNegative);
      return rnd::param_draws(I, {shape}, p.get("size"), [&](const double* q) { return gamma::standard_gamma(src, q[0]); });
    });
    bi::def(k, "gamma", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "gamma", {"$self", "shape", "scale=", "size="});
      Variates src{self_rs(I, a).st};
      const rnd::Param shape = rnd::param_arg(I, p.get("shape"), 0.0, "shape", rnd::Check::NonNegative);
      const rnd::Param scale = rnd::param_arg(I, p.get("scale"), 1.0, "scale", rnd::Check::NonNegative);
      return rnd::param_draws(I, {shape, scale}, p.get("size"), [&](const double* q) { return q[1] * gamma::standard_gamma(src, q[0]); });
    });
    bi::def(k, "beta", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "beta", {"$self", "a", "b", "size="});
      Variates src{self_rs(I, a).st};
      const rnd::Param pa = rnd::param_arg(I, p.get("a"), 0.0, "a", rnd::Check::Positive), pb = rnd::param_arg(I, p.get("b"), 0.0, "b", rnd::Check::Positive);
      return rnd::param_draws(I, {pa, pb}, p.get("size"), [&](const double* q) { return gamma::beta(src, q[0], q[1], true); });
    });
    bi::def(k, "randint", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "randint", {"$self", "low", "high=", "size=", "dtype="});
      rnd::BitsOf<Mt19937> bits(self_rs(I, a).st.mt);
      return rnd::integers(I, bits, p.get("low"), p.get("high"), p.get("size"), p.get("dtype"), false, true);
    });
    bi::def(k, "permutation", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "permutation", {"$self", "x"});
      rnd::BitsOf<Mt19937> bits(self_rs(I, a).st.mt);
      return rnd::permutation(I, bits, p.get("x"));
    });
    bi::def(k, "shuffle", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "shuffle", {"$self", "x"});
      rnd::BitsOf<Mt19937> bits(self_rs(I, a).st.mt);
      rnd::shuffle(I, bits, p.get("x"));
      return interp::none();
    });
    bi::def(k, "choice", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "choice", {"$self", "a", "size=", "replace=", "p="});
      rnd::BitsOf<Mt19937> bits(self_rs(I, a).st.mt);
      return rnd::choice(I, bits, rnd::Api::Legacy, p.get("a"), p.get("size"), bool_arg(I, p.get("replace"), true), p.get("p"), true);
    });
    return k;
  }();
  return c;
}

}  // namespace

void rnd::add_legacy_random(Interp&, ModuleObj& m) {
  ClassP cls = random_state_class();
  m.dict.set("RandomState", cls);
  // numpy's module functions are the methods of one global RandomState, seeded from the OS.
  // One per interpreter (each import of numpy fills its own module).
  auto global = std::make_shared<RandomStateObj>(cls);
  global->st.mt.seed_from_os();
  for (const char* name : {"seed", "get_state", "set_state", "random_sample", "random", "rand", "randn", "standard_normal", "normal",
                           "uniform", "standard_exponential", "exponential", "standard_gamma", "gamma", "beta", "randint", "permutation", "shuffle", "choice"}) {
    Value fn = *cls->dict.find(name);
    auto bound = std::make_shared<interp::BuiltinObj>(static_cast<interp::BuiltinObj&>(*fn));
    bound->self = global;
    m.dict.set(name, bound);
  }
  // numpy's aliases of random_sample.
  for (const char* alias : {"ranf", "sample"}) m.dict.set(alias, *m.dict.find("random_sample"));
}

}  // namespace shard::api::np
