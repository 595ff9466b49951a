// numpy.random: default_rng(seed) -> Generator over PCG64 seeded through numpy's SeedSequence,
// so random(), uniform() and integers() give numpy's own streams; normal variates use
// Box-Muller (numpy's ziggurat tables are not reproduced, so those streams differ). The legacy
// global functions (seed, rand, randn, randint, ...) draw from one module-level Generator.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <random>

#include "api/device_count.hpp"
#include "api/modules/numpy_internal.hpp"

namespace shard::api::np {

namespace bi = interp::bi;

namespace {

using u128 = unsigned __int128;

// numpy's SeedSequence(entropy).generate_state(n_words) for a non-negative int entropy.
std::vector<uint32_t> seed_sequence_state(std::vector<uint32_t> entropy, size_t n_words32) {
  constexpr uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875, kInitB = 0x8b51f9dd, kMultB = 0x58f38ded;
  constexpr uint32_t kMixMultL = 0xca01f9dd, kMixMultR = 0x4973f715;
  constexpr int kXShift = 16;
  constexpr size_t kPool = 4;
  uint32_t hash_const = kInitA;
  auto hashmix = [&](uint32_t value) {
    value ^= hash_const;
    hash_const *= kMultA;
    value *= hash_const;
    value ^= value >> kXShift;
    return value;
  };
  auto mix = [](uint32_t x, uint32_t y) {
    uint32_t r = kMixMultL * x - kMixMultR * y;
    r ^= r >> kXShift;
    return r;
  };
  std::vector<uint32_t> pool(kPool);
  for (size_t i = 0; i < kPool; ++i) pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0);
  for (size_t src = 0; src < kPool; ++src)
    for (size_t dst = 0; dst < kPool; ++dst)
      if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
  for (size_t src = kPool; src < entropy.size(); ++src)
    for (size_t dst = 0; dst < kPool; ++dst) pool[dst] = mix(pool[dst], hashmix(entropy[src]));
  std::vector<uint32_t> state(n_words32);
  uint32_t hc = kInitB;
  for (size_t i = 0; i < n_words32; ++i) {
    uint32_t v = pool[i % kPool];
    v ^= hc;
    hc *= kMultB;
    v *= hc;
    v ^= v >> kXShift;
    state[i] = v;
  }
  return state;
}

// PCG64 (XSL-RR 128/64) with numpy's 32-bit buffering.
struct Pcg64 {
  u128 state = 0, inc = 0;
  bool has32 = false;
  uint32_t buf32 = 0;

  static constexpr u128 kMult = (static_cast<u128>(2549297995355413924ULL) << 64) | 4865540595714422341ULL;

  void seed(u128 initstate, u128 initseq) {
    state = 0;
    inc = (initseq << 1) | 1;
    step();
    state += initstate;
    step();
  }
  void step() { state = state * kMult + inc; }
  uint64_t next64() {
    step();
    uint64_t hi = static_cast<uint64_t>(state >> 64), lo = static_cast<uint64_t>(state);
    unsigned rot = static_cast<unsigned>(state >> 122);
    uint64_t x = hi ^ lo;
    return (x >> rot) | (x << ((64 - rot) & 63));
  }
  uint32_t next32() {
    if (has32) {
      has32 = false;
      return buf32;
    }
    uint64_t n = next64();
    has32 = true;
    buf32 = static_cast<uint32_t>(n >> 32);
    return static_cast<uint32_t>(n);
  }
  double next_double() { return static_cast<double>(next64() >> 11) * (1.0 / 9007199254740992.0); }
  float next_float() { return static_cast<float>(next32() >> 8) * (1.0f / 16777216.0f); }
};

Pcg64 seeded(std::vector<uint32_t> entropy) {
  auto w = seed_sequence_state(std::move(entropy), 8);
  auto word64 = [&](size_t i) { return static_cast<uint64_t>(w[2 * i]) | (static_cast<uint64_t>(w[2 * i + 1]) << 32); };
  Pcg64 g;
  g.seed((static_cast<u128>(word64(0)) << 64) | word64(1), (static_cast<u128>(word64(2)) << 64) | word64(3));
  return g;
}

std::vector<uint32_t> fresh_entropy() {
  std::random_device rd;
  return {rd(), rd(), rd(), rd()};
}

struct GeneratorObj : interp::NativeObj {
  Pcg64 rng;
  GeneratorObj(ClassP c, Pcg64 g) : NativeObj(std::move(c)), rng(g) {}
};

ClassP generator_class();

GeneratorObj& self_gen(Interp& I, CallArgs& a) {
  auto* g = a.args.empty() || a.args[0]->kind != ObjKind::Native ? nullptr : dynamic_cast<GeneratorObj*>(a.args[0].get());
  if (!g) I.raise("TypeError", "descriptor requires a 'numpy.random.Generator' object");
  return *g;
}

std::vector<uint32_t> entropy_of(Interp& I, const Value& seed) {
  if (!seed || seed->kind == ObjKind::None) return fresh_entropy();
  if (auto* g = dynamic_cast<GeneratorObj*>(seed.get())) {
    // default_rng(generator) returns it unchanged; the caller handles that case.
    (void)g;
    return {};
  }
  std::vector<Value> parts;
  if (seed->kind == ObjKind::List || seed->kind == ObjKind::Tuple) parts = I.to_vector(seed);
  else parts = {seed};
  std::vector<uint32_t> words;
  for (auto& p : parts) {
    auto v = bi::try_index(I, p);
    if (!v) I.raise("TypeError", fmt::format("SeedSequence expects int or sequence of ints for entropy not {}", I.repr(p)));
    if (*v < 0) I.raise("ValueError", "expected non-negative integer");
    uint64_t u = static_cast<uint64_t>(*v);
    // numpy splits each int into 32-bit words, low word first, without high zero words.
    words.push_back(static_cast<uint32_t>(u));
    if (u >> 32) words.push_back(static_cast<uint32_t>(u >> 32));
  }
  if (words.empty()) words.push_back(0);
  return words;
}

Value make_generator(Pcg64 g) { return std::make_shared<GeneratorObj>(generator_class(), g); }

// size=None -> nullopt (one Python scalar); an int or tuple -> a shape.
std::optional<Shape> size_arg(Interp& I, const Value& v) {
  if (!v || v->kind == ObjKind::None) return std::nullopt;
  return shape_arg(I, v);
}

Value doubles_result(Interp& I, const std::optional<Shape>& size, DType dt, const std::function<double()>& draw) {
  if (!size) return interp::make_float(draw());
  const int64_t n = types::shape_product(*size);
  std::vector<uint8_t> bytes(static_cast<size_t>(n) * types::dtype_size(dt));
  for (int64_t i = 0; i < n; ++i) {
    double x = draw();
    if (dt == DType::F32) {
      float f = static_cast<float>(x);
      std::memcpy(bytes.data() + i * 4, &f, 4);
    } else {
      std::memcpy(bytes.data() + i * 8, &x, 8);
    }
  }
  ensure_device_runtime();
  types::ArrayType t(dt, *size);
  return wrap(guarded(I, [&] {
                return exec::array_from_host(bytes.data(), t, types::NamedSharding(exec::single_device_mesh(), types::PartitionSpec()), true);
              }),
              true);
}

DType float_dtype_arg(Interp& I, const Value& v) {
  auto d = dtype_arg(I, v).value_or(DType::F64);
  if (d != DType::F64 && d != DType::F32) I.raise("TypeError", fmt::format("Unsupported dtype dtype('{}') for this distribution", types::dtype_name(d)));
  return d;
}

double gauss(Pcg64& g) {
  // Box-Muller on two uniforms in (0, 1].
  double u1 = 1.0 - g.next_double(), u2 = g.next_double();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

// numpy's bounded integer in [0, rng] (random_bounded_uint64 with Lemire's method; 32-bit
// draws with buffering when the range fits in 32 bits).
uint64_t bounded(Pcg64& g, uint64_t rng) {
  if (rng == 0) return 0;
  if (rng <= 0xFFFFFFFFULL) {
    if (rng == 0xFFFFFFFFULL) return g.next32();
    const uint32_t excl = static_cast<uint32_t>(rng) + 1;
    uint64_t m = static_cast<uint64_t>(g.next32()) * excl;
    uint32_t left = static_cast<uint32_t>(m);
    if (left < excl) {
      const uint32_t threshold = (0xFFFFFFFFu - static_cast<uint32_t>(rng)) % excl;
      while (left < threshold) {
        m = static_cast<uint64_t>(g.next32()) * excl;
        left = static_cast<uint32_t>(m);
      }
    }
    return m >> 32;
  }
  if (rng == ~uint64_t{0}) return g.next64();
  const uint64_t excl = rng + 1;
  u128 m = static_cast<u128>(g.next64()) * excl;
  uint64_t left = static_cast<uint64_t>(m);
  if (left < excl) {
    const uint64_t threshold = (~uint64_t{0} - rng) % excl;
    while (left < threshold) {
      m = static_cast<u128>(g.next64()) * excl;
      left = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

Value integers(Interp& I, Pcg64& g, const Value& low_v, const Value& high_v, const Value& size_v, const Value& dtype_v, bool endpoint) {
  int64_t low = bi::index_of(I, low_v, ""), high = 0;
  if (!high_v || high_v->kind == ObjKind::None) {
    high = low;
    low = 0;
  } else {
    high = bi::index_of(I, high_v, "");
  }
  if (!endpoint) {
    if (high <= low) I.raise("ValueError", "high <= low");
    high -= 1;
  } else if (high < low) {
    I.raise("ValueError", "low > high");
  }
  DType dt = dtype_arg(I, dtype_v).value_or(DType::I64);
  if (dt != DType::I64 && dt != DType::I32 && dt != DType::Bool) I.raise("TypeError", "Unsupported dtype for integers");
  if (dt == DType::I32 && (low < INT32_MIN || high > INT32_MAX)) I.raise("ValueError", fmt::format("low is out of bounds for int32"));
  const uint64_t rng = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  auto draw = [&] { return static_cast<int64_t>(static_cast<uint64_t>(low) + bounded(g, rng)); };
  auto size = size_arg(I, size_v);
  if (!size) return interp::make_int(draw());
  const int64_t n = types::shape_product(*size);
  std::vector<uint8_t> bytes(static_cast<size_t>(n) * types::dtype_size(dt));
  for (int64_t i = 0; i < n; ++i) {
    int64_t x = draw();
    if (dt == DType::I64) std::memcpy(bytes.data() + i * 8, &x, 8);
    else if (dt == DType::I32) {
      int32_t y = static_cast<int32_t>(x);
      std::memcpy(bytes.data() + i * 4, &y, 4);
    } else {
      bytes[static_cast<size_t>(i)] = x != 0;
    }
  }
  ensure_device_runtime();
  types::ArrayType t(dt, *size);
  return wrap(guarded(I, [&] {
                return exec::array_from_host(bytes.data(), t, types::NamedSharding(exec::single_device_mesh(), types::PartitionSpec()), true);
              }),
              true);
}

// The methods shared by Generator and the legacy module functions, over a given stream.
Value g_random(Interp& I, Pcg64& g, const Value& size, const Value& dtype) {
  DType dt = float_dtype_arg(I, dtype);
  if (dt == DType::F32) return doubles_result(I, size_arg(I, size), dt, [&] { return static_cast<double>(g.next_float()); });
  return doubles_result(I, size_arg(I, size), dt, [&] { return g.next_double(); });
}
Value g_uniform(Interp& I, Pcg64& g, const Value& low, const Value& high, const Value& size) {
  double lo = low ? number_arg(I, low, "low") : 0.0, hi = high ? number_arg(I, high, "high") : 1.0;
  return doubles_result(I, size_arg(I, size), DType::F64, [&] { return lo + (hi - lo) * g.next_double(); });
}
Value g_normal(Interp& I, Pcg64& g, const Value& loc, const Value& scale, const Value& size, DType dt) {
  double mu = loc ? number_arg(I, loc, "loc") : 0.0, sigma = scale ? number_arg(I, scale, "scale") : 1.0;
  if (sigma < 0) I.raise("ValueError", "scale < 0");
  return doubles_result(I, size_arg(I, size), dt, [&] { return mu + sigma * gauss(g); });
}

Value g_permutation(Interp& I, Pcg64& g, const Value& x) {
  std::vector<Value> items;
  if (auto n = bi::try_index(I, x)) {
    for (int64_t i = 0; i < *n; ++i) items.push_back(interp::make_int(i));
  } else {
    items = I.to_vector(I.call(I.getattr(wrap(host_array(I, x), true), "tolist"), std::vector<Value>{}));
  }
  for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[bounded(g, i - 1)]);
  return wrap(host_array(I, interp::make_list(std::move(items))), true);
}

ClassP generator_class() {
  static ClassP c = [] {
    auto k = interp::make_class("Generator", {interp::T().object}, "numpy.random._generator");
    bi::def(k, "__repr__", [](Interp& I, CallArgs& a) {
      auto& g = self_gen(I, a);
      return interp::make_str(fmt::format("Generator(PCG64) at 0x{:X}", reinterpret_cast<uintptr_t>(&g)));
    });
    bi::def(k, "random", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "random", {"$self", "size=", "dtype=", "out="});
      return g_random(I, self_gen(I, a).rng, p.get("size"), p.get("dtype"));
    });
    bi::def(k, "standard_normal", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "standard_normal", {"$self", "size=", "dtype=", "out="});
      return g_normal(I, self_gen(I, a).rng, nullptr, nullptr, p.get("size"), float_dtype_arg(I, p.get("dtype")));
    });
    bi::def(k, "normal", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "normal", {"$self", "loc=", "scale=", "size="});
      return g_normal(I, self_gen(I, a).rng, p.get("loc"), p.get("scale"), p.get("size"), DType::F64);
    });
    bi::def(k, "uniform", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "uniform", {"$self", "low=", "high=", "size="});
      return g_uniform(I, self_gen(I, a).rng, p.get("low"), p.get("high"), p.get("size"));
    });
    bi::def(k, "integers", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "integers", {"$self", "low", "high=", "size=", "dtype=", "endpoint="});
      return integers(I, self_gen(I, a).rng, p.get("low"), p.get("high"), p.get("size"), p.get("dtype"), bool_arg(I, p.get("endpoint"), false));
    });
    bi::def(k, "permutation", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "permutation", {"$self", "x", "axis="});
      return g_permutation(I, self_gen(I, a).rng, p.get("x"));
    });
    return k;
  }();
  return c;
}

// The legacy global stream (np.random.seed / rand / randn ...).
Pcg64& global_stream() {
  static Pcg64 g = seeded(fresh_entropy());
  return g;
}

Value shape_from_varargs(Interp& I, const std::vector<Value>& dims) {
  if (dims.empty()) return interp::none();
  return interp::make_tuple(dims);
}

}  // namespace

void fill_random_module(Interp&, ModuleObj& m) {
  add(m, "default_rng", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "default_rng", {"seed="});
    Value seed = p.get("seed");
    if (seed && seed->kind == ObjKind::Native && dynamic_cast<GeneratorObj*>(seed.get())) return seed;
    return make_generator(seeded(entropy_of(I, seed)));
  });
  m.dict.set("Generator", generator_class());
  add(m, "seed", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "seed", {"seed="});
    global_stream() = seeded(entropy_of(I, p.get("seed")));
    return interp::none();
  });
  add(m, "rand", [](Interp& I, CallArgs& a) {
    bi::no_kwargs(I, a, "rand");
    return g_random(I, global_stream(), shape_from_varargs(I, a.args), nullptr);
  });
  add(m, "randn", [](Interp& I, CallArgs& a) {
    bi::no_kwargs(I, a, "randn");
    return g_normal(I, global_stream(), nullptr, nullptr, shape_from_varargs(I, a.args), DType::F64);
  });
  add(m, "random", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "random", {"size="});
    return g_random(I, global_stream(), p.get("size"), nullptr);
  });
  add(m, "random_sample", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "random_sample", {"size="});
    return g_random(I, global_stream(), p.get("size"), nullptr);
  });
  add(m, "uniform", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "uniform", {"low=", "high=", "size="});
    return g_uniform(I, global_stream(), p.get("low"), p.get("high"), p.get("size"));
  });
  add(m, "normal", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "normal", {"loc=", "scale=", "size="});
    return g_normal(I, global_stream(), p.get("loc"), p.get("scale"), p.get("size"), DType::F64);
  });
  add(m, "standard_normal", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "standard_normal", {"size="});
    return g_normal(I, global_stream(), nullptr, nullptr, p.get("size"), DType::F64);
  });
  add(m, "randint", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "randint", {"low", "high=", "size=", "dtype="});
    return integers(I, global_stream(), p.get("low"), p.get("high"), p.get("size"), p.get("dtype"), false);
  });
  add(m, "permutation", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "permutation", {"x"});
    return g_permutation(I, global_stream(), p.get("x"));
  });
}

}  // namespace shard::api::np
