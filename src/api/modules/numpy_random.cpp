// numpy.random's Generator: default_rng(seed) -> Generator over PCG64 seeded through
// numpy's SeedSequence, with numpy 1.24's algorithms, so every stream matches numpy bit for
// bit: random / uniform, integers (Lemire's method; bool one bit at a time), standard_normal
// / normal and standard_exponential / exponential (numpy's ziggurats, float64 and float32),
// standard_gamma / gamma / beta, permutation / shuffle and choice. Array parameters
// broadcast against size= as numpy's. The legacy API (RandomState on MT19937 and the module
// functions seed, rand, randn, ...) is numpy_random_legacy.cpp.
#include <fmt/format.h>

#include <cmath>

#include "api/modules/numpy_random_gamma.hpp"
#include "api/modules/numpy_random_support.hpp"
#include "api/modules/numpy_random_ziggurat.hpp"

namespace shard::api::np {

namespace bi = interp::bi;

namespace {

using bitgen::Pcg64;

struct GeneratorObj : interp::NativeObj {
  Pcg64 rng;
  GeneratorObj(ClassP c, Pcg64 g) : NativeObj(std::move(c)), rng(g) {}
};

GeneratorObj& self_gen(Interp& I, CallArgs& a) {
  auto* g = a.args.empty() ? nullptr : dynamic_cast<GeneratorObj*>(a.args[0].get());
  if (!g) I.raise("TypeError", "descriptor requires a 'numpy.random.Generator' object");
  return *g;
}

void only_axis_zero(Interp& I, const Value& axis, const char* method) {
  if (axis && bi::index_of(I, axis, "axis") != 0)
    I.raise("NotImplementedError", fmt::format("Generator.{}: only axis=0 is supported here; move the axis first with np.moveaxis", method));
}

// standard_normal: the variate itself (normal's loc + scale * x would turn -0.0 into 0.0).
Value standard_normals(Interp& I, Pcg64& g, const Value& size, DType dt) {
  auto sz = rnd::size_arg(I, size);
  if (dt == DType::F32) return rnd::float_result(I, sz, dt, [&] { return static_cast<double>(ziggurat::standard_normal_float(g)); });
  return rnd::float_result(I, sz, dt, [&] { return ziggurat::standard_normal(g); });
}

Value standard_exponentials(Interp& I, Pcg64& g, const Value& size, DType dt, bool inversion) {
  auto sz = rnd::size_arg(I, size);
  if (inversion) {
    // method='inv': -log(1 - U) (float32 draws a float uniform, the log in double).
    if (dt == DType::F32) return rnd::float_result(I, sz, dt, [&] { return static_cast<double>(static_cast<float>(-std::log1p(-static_cast<double>(g.next_float())))); });
    return rnd::float_result(I, sz, dt, [&] { return -std::log1p(-g.next_double()); });
  }
  if (dt == DType::F32) return rnd::float_result(I, sz, dt, [&] { return static_cast<double>(ziggurat::standard_exponential_float(g)); });
  return rnd::float_result(I, sz, dt, [&] { return ziggurat::standard_exponential(g); });
}

// The variates the gamma family draws from, in float64 and in float32.
struct Variates {
  Pcg64& g;
  double uniform() { return g.next_double(); }
  double exponential() { return ziggurat::standard_exponential(g); }
  double normal() { return ziggurat::standard_normal(g); }
};
struct FloatVariates {
  Pcg64& g;
  float uniform() { return g.next_float(); }
  float exponential() { return ziggurat::standard_exponential_float(g); }
  float normal() { return ziggurat::standard_normal_float(g); }
};

ClassP generator_class() {
  static ClassP c = [] {
    auto k = interp::make_class("Generator", {interp::T().object}, "numpy.random._generator");
    bi::def(k, "__repr__", [](Interp& I, CallArgs& a) {
      auto& g = self_gen(I, a);
      return interp::make_str(fmt::format("Generator(PCG64) at 0x{:X}", reinterpret_cast<uintptr_t>(&g)));
    });
    bi::def(k, "random", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "random", {"$self", "size=", "dtype=", "out="});
      auto& g = self_gen(I, a).rng;
      const DType dt = rnd::float_dtype_arg(I, p.get("dtype"), "random");
      return rnd::drawn_into(I, p.get("out"), p.get("size"), dt, [&](const Value& size) {
        if (dt == DType::F32) return rnd::float_result(I, rnd::size_arg(I, size), dt, [&] { return static_cast<double>(g.next_float()); });
        return rnd::float_result(I, rnd::size_arg(I, size), dt, [&] { return g.next_double(); });
      });
    });
    bi::def(k, "uniform", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "uniform", {"$self", "low=", "high=", "size="});
      auto& g = self_gen(I, a).rng;
      const rnd::Param low = rnd::param_arg(I, p.get("low"), 0.0, "low", rnd::Check::None), high = rnd::param_arg(I, p.get("high"), 1.0, "high", rnd::Check::None);
      const bool scalars = low.shape.empty() && high.shape.empty();
      const rnd::Param range = rnd::uniform_range(I, low, high, scalars ? "high - low range exceeds valid bounds" : "Range exceeds valid bounds", true);
      return rnd::param_draws(I, {low, range}, p.get("size"), [&](const double* q) { return q[0] + q[1] * g.next_double(); });
    });
    bi::def(k, "standard_normal", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "standard_normal", {"$self", "size=", "dtype=", "out="});
      auto& g = self_gen(I, a).rng;
      const DType dt = rnd::float_dtype_arg(I, p.get("dtype"), "standard_normal");
      return rnd::drawn_into(I, p.get("out"), p.get("size"), dt, [&](const Value& size) { return standard_normals(I, g, size, dt); });
    });
    bi::def(k, "normal", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "normal", {"$self", "loc=", "scale=", "size="});
      auto& g = self_gen(I, a).rng;
      const rnd::Param loc = rnd::param_arg(I, p.get("loc"), 0.0, "loc", rnd::Check::None), scale = rnd::param_arg(I, p.get("scale"), 1.0, "scale", rnd::Check::NonNegative);
      return rnd::param_draws(I, {loc, scale}, p.get("size"), [&](const double* q) { return q[0] + q[1] * ziggurat::standard_normal(g); });
    });
    bi::def(k, "standard_exponential", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "standard_exponential", {"$self", "size=", "dtype=", "method=", "out="});
      // numpy takes any method other than 'zig' as inversion.
      Value m = p.get("method");
      const bool inversion = m && !(m->kind == ObjKind::Str && I.str(m) == "zig");
      auto& g = self_gen(I, a).rng;
      const DType dt = rnd::float_dtype_arg(I, p.get("dtype"), "standard_exponential");
      return rnd::drawn_into(I, p.get("out"), p.get("size"), dt, [&](const Value& size) { return standard_exponentials(I, g, size, dt, inversion); });
    });
    bi::def(k, "exponential", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "exponential", {"$self", "scale=", "size="});
      auto& g = self_gen(I, a).rng;
      const rnd::Param scale = rnd::param_arg(I, p.get("scale"), 1.0, "scale", rnd::Check::NonNegative);
      return rnd::param_draws(I, {scale}, p.get("size"), [&](const double* q) { return q[0] * ziggurat::standard_exponential(g); });
    });
    bi::def(k, "standard_gamma", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "standard_gamma", {"$self", "shape", "size=", "dtype=", "out="});
      auto& g = self_gen(I, a).rng;
      const rnd::Param shape = rnd::param_arg(I, p.get("shape"), 0.0, "shape", rnd::Check::NonNegative);
      const DType dt = rnd::float_dtype_arg(I, p.get("dtype"), "standard_gamma");
      return rnd::drawn_into(I, p.get("out"), p.get("size"), dt, [&](const Value& size) {
        if (dt == DType::F32) {
          FloatVariates src{g};
          return rnd::param_draws(I, {shape}, size, [&](const double* q) { return static_cast<double>(gamma::standard_gamma(src, static_cast<float>(q[0]))); }, dt);
        }
        Variates src{g};
        return rnd::param_draws(I, {shape}, size, [&](const double* q) { return gamma::standard_gamma(src, q[0]); });
      });
    });
    bi::def(k, "gamma", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "gamma", {"$self", "shape", "scale=", "size="});
      Variates src{self_gen(I, a).rng};
      const rnd::Param shape = rnd::param_arg(I, p.get("shape"), 0.0, "shape", rnd::Check::NonNegative);
      const rnd::Param scale = rnd::param_arg(I, p.get("scale"), 1.0, "scale", rnd::Check::NonNegative);
      return rnd::param_draws(I, {shape, scale}, p.get("size"), [&](const double* q) { return q[1] * gamma::standard_gamma(src, q[0]); });
    });
    bi::def(k, "beta", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "beta", {"$self", "a", "b", "size="});
      Variates src{self_gen(I, a).rng};
      const rnd::Param pa = rnd::param_arg(I, p.get("a"), 0.0, "a", rnd::Check::Positive), pb = rnd::param_arg(I, p.get("b"), 0.0, "b", rnd::Check::Positive);
      return rnd::param_draws(I, {pa, pb}, p.get("size"), [&](const double* q) { return gamma::beta(src, q[0], q[1], false); });
    });
    bi::def(k, "integers", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "integers", {"$self", "low", "high=", "size=", "dtype=", "endpoint="});
      rnd::BitsOf<Pcg64> bits(self_gen(I, a).rng);
      return rnd::integers(I, bits, p.get("low"), p.get("high"), p.get("size"), p.get("dtype"), bool_arg(I, p.get("endpoint"), false), false);
    });
    bi::def(k, "permutation", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "permutation", {"$self", "x", "axis="});
      only_axis_zero(I, p.get("axis"), "permutation");
      rnd::BitsOf<Pcg64> bits(self_gen(I, a).rng);
      return rnd::permutation(I, bits, p.get("x"));
    });
    bi::def(k, "shuffle", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "shuffle", {"$self", "x", "axis="});
      only_axis_zero(I, p.get("axis"), "shuffle");
      rnd::BitsOf<Pcg64> bits(self_gen(I, a).rng);
      rnd::shuffle(I, bits, p.get("x"));
      return interp::none();
    });
    bi::def(k, "choice", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "choice", {"$self", "a", "size=", "replace=", "p=", "axis=", "shuffle="});
      only_axis_zero(I, p.get("axis"), "choice");
      rnd::BitsOf<Pcg64> bits(self_gen(I, a).rng);
      return rnd::choice(I, bits, rnd::Api::Generator, p.get("a"), p.get("size"), bool_arg(I, p.get("replace"), true), p.get("p"),
                         bool_arg(I, p.get("shuffle"), true));
    });
    return k;
  }();
  return c;
}

}  // namespace

void fill_random_module(Interp& I, ModuleObj& m) {
  add(m, "default_rng", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "default_rng", {"seed="});
    Value seed = p.get("seed");
    if (seed && dynamic_cast<GeneratorObj*>(seed.get())) return seed;  // numpy returns it unchanged
    return std::make_shared<GeneratorObj>(generator_class(), Pcg64::from_entropy(rnd::seed_sequence_entropy(I, seed)));
  });
  m.dict.set("Generator", generator_class());
  rnd::add_legacy_random(I, m);
}

}  // namespace shard::api::np
