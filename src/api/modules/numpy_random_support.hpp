// What numpy.random's two APIs share (Generator in numpy_random.cpp, RandomState and the
// module functions in numpy_random_legacy.cpp): a bit generator behind one interface,
// argument handling, building results, and the integer / permutation / choice algorithms
// with the variations numpy's two APIs differ by (permutations and choice are in
// numpy_random_sampling.cpp).
#pragma once
#include <functional>
#include <optional>

#include "api/modules/numpy_internal.hpp"
#include "api/modules/numpy_random_bitgen.hpp"

namespace shard::api::np::rnd {

struct Bits {
  virtual ~Bits() = default;
  virtual uint64_t next64() = 0;
  virtual uint32_t next32() = 0;
  virtual double next_double() = 0;
  virtual float next_float() = 0;
};

template <class G>
struct BitsOf final : Bits {
  G& g;
  explicit BitsOf(G& engine) : g(engine) {}
  uint64_t next64() override { return g.next64(); }
  uint32_t next32() override { return g.next32(); }
  double next_double() override { return g.next_double(); }
  float next_float() override { return g.next_float(); }
};

// Entropy words for SeedSequence from an int or a sequence of ints (None: from the OS).
std::vector<uint32_t> seed_sequence_entropy(Interp& I, const Value& seed);

// size=None -> nullopt (one Python scalar); an int or tuple -> a shape.
std::optional<Shape> size_arg(Interp& I, const Value& v);
// dtype= of the float samplers: float64 (default) or float32.
DType float_dtype_arg(Interp& I, const Value& v, const char* method);
// A distribution parameter (loc=, scale=, ...): a number, or array-like data that numpy
// broadcasts against the other parameters and size=, checked as numpy checks it
// ("<name> < 0", "<name> <= 0").
struct Param {
  std::vector<double> values;
  Shape shape;  // empty for a scalar
};
enum class Check { None, NonNegative, Positive };
Param param_arg(Interp& I, const Value& v, double dflt, const char* name, Check check);
// numpy's broadcast of several shapes: the result, or the two arguments that conflict.
struct Broadcast {
  Shape shape;
  int conflict_a = -1, conflict_b = -1;
};
Broadcast broadcast_shapes(const std::vector<Shape>& shapes);
// numpy's cont(): scalar parameters and size=None give one Python float; otherwise the
// output has shape size= (or the parameters' broadcast shape) and element i, in C order,
// is draw(p) with p[k] = parameter k at that element.
// `dt` float32 stores each draw rounded to float.
Value param_draws(Interp& I, const std::vector<Param>& params, const Value& size, const std::function<double(const double*)>& draw,
                  DType dt = DType::F64);
// uniform's high - low, broadcast; raises OverflowError (`overflow`) unless every value is
// finite, and ValueError if `nonneg` and one is negative (Generator's rule).
Param uniform_range(Interp& I, const Param& low, const Param& high, const char* overflow, bool nonneg);

// size=None: a Python float; else an ndarray of `dt` (float64 / float32) filled in C order.
Value float_result(Interp& I, const std::optional<Shape>& size, DType dt, const std::function<double()>& draw);
// Generator's out=: draw(size) with size = out's shape, stored into `out` (a numpy array of
// dtype `dt`) in place, and out returned; without out, draw(size).
Value drawn_into(Interp& I, const Value& out, const Value& size, DType dt, const std::function<Value(const Value&)>& draw);
// An ndarray from row-major bytes.
Value host_result(Interp& I, const void* bytes, DType dt, const Shape& shape);

// Integers in [low, high) ([low, high] with endpoint) as int64 / int32 / bool; `masked`
// selects RandomState's rejection method, else Generator's Lemire method.
Value integers(Interp& I, Bits& g, const Value& low, const Value& high, const Value& size, const Value& dtype,
               bool endpoint, bool masked);

// numpy's Fisher-Yates (i from n-1 down to 1 swaps with random_interval(i)), which
// shuffle and permutation use in both APIs.
std::vector<int64_t> permuted_range(Bits& g, int64_t n);
void shuffle(Interp& I, Bits& g, const Value& x);  // a list, or an ndarray along axis 0 (in place)
Value permutation(Interp& I, Bits& g, const Value& x);

enum class Api { Generator, Legacy };
Value choice(Interp& I, Bits& g, Api api, const Value& a, const Value& size, bool replace, const Value& p, bool shuffle);

// RandomState, and the module functions over numpy's global one (numpy_random_legacy.cpp).
void add_legacy_random(Interp& I, ModuleObj& m);

}  // namespace shard::api::np::rnd
