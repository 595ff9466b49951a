// The `random` module: CPython's Mersenne Twister with CPython's seeding and
// derivations, so `random.seed(n)` gives the same stream of random()/randint()/choice()/
// shuffle()/gauss() values as CPython.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <unordered_map>

#include "interp/builtins/numbers.hpp"

namespace shard::interp::bi {

namespace {

// ---- random ----

struct MT19937 {
  static constexpr int N = 624, M = 397;
  uint32_t mt[N];
  int mti = N + 1;

  void init_genrand(uint32_t s) {
    mt[0] = s;
    for (mti = 1; mti < N; mti++) mt[mti] = 1812433253U * (mt[mti - 1] ^ (mt[mti - 1] >> 30)) + uint32_t(mti);
  }

  void init_by_array(const uint32_t* key, size_t len) {
    init_genrand(19650218U);
    size_t i = 1, j = 0;
    for (size_t k = std::max<size_t>(N, len); k; k--) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + uint32_t(j);
      i++;
      j++;
      if (i >= size_t(N)) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= len) j = 0;
    }
    for (size_t k = N - 1; k; k--) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - uint32_t(i);
      i++;
      if (i >= size_t(N)) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000U;
  }

  uint32_t next() {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    if (mti >= N) {
      if (mti == N + 1) init_genrand(5489U);
      int kk;
      for (kk = 0; kk < N - M; kk++) {
        y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
        mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag01[y & 0x1U];
      }
      for (; kk < N - 1; kk++) {
        y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
        mt[kk] = mt[kk + (M - N)] ^ (y >> 1) ^ mag01[y & 0x1U];
      }
      y = (mt[N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
      mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
      mti = 0;
    }
    y = mt[mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
  }
};

struct RandomObj : NativeObj {
  MT19937 gen;
  std::optional<double> gauss_next;
  using NativeObj::NativeObj;

  void seed_u64(uint64_t n) {
    uint32_t key[2] = {uint32_t(n), uint32_t(n >> 32)};
    gen.init_by_array(key, key[1] ? 2 : 1);
    gauss_next.reset();
  }
  double random() {
    uint32_t a = gen.next() >> 5, b = gen.next() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }
  uint64_t getrandbits(int k) {
    if (k <= 0) return 0;
    if (k <= 32) return gen.next() >> (32 - k);
    uint64_t lo = gen.next();
    uint64_t hi = gen.next() >> (64 - k);
    return lo | (hi << 32);
  }
  uint64_t randbelow(uint64_t n) {
    if (n == 0) return 0;
    int k = 64 - __builtin_clzll(n);
    uint64_t r = getrandbits(k);
    while (r >= n) r = getrandbits(k);
    return r;
  }
};

ClassP g_random_cls;

RandomObj& self_random(Interp& I, CallArgs& a, const char* meth) {
  if (a.args.empty() || !a.args[0]->cls->is_subclass_of(g_random_cls.get()) || a.args[0]->kind != ObjKind::Native)
    bad_self(I, a, "Random", meth);
  return static_cast<RandomObj&>(*a.args[0]);
}

void do_seed(Interp& I, RandomObj& r, const Value& a) {
  if (!a || a->kind == ObjKind::None) {
    auto now = uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
    r.seed_u64(now ^ (uint64_t(reinterpret_cast<uintptr_t>(&r)) << 16));
    return;
  }
  if (auto i = int_of(a)) {
    r.seed_u64(*i < 0 ? uint64_t(0) - uint64_t(*i) : uint64_t(*i));
    return;
  }
  if (is_float(a)) {
    int64_t h = numfmt::hash_float(*real_of(a));
    r.seed_u64(h < 0 ? uint64_t(0) - uint64_t(h) : uint64_t(h));
    return;
  }
  if (auto* s = str_of(a)) {
    r.seed_u64(numfmt::hash_bytes(s->v));
    return;
  }
  I.raise("TypeError", "The only supported seed types are: None,\nint, float, str, bytes, and bytearray.");
}

int64_t randrange(Interp& I, RandomObj& r, const Value& start, const Value& stop, const Value& step) {
  int64_t istart = index_of(I, start, "");
  if (!stop || stop->kind == ObjKind::None) {
    if (step) I.raise("TypeError", "Missing a non-None stop argument");
    if (istart > 0) return int64_t(r.randbelow(uint64_t(istart)));
    I.raise("ValueError", "empty range for randrange()");
  }
  int64_t istop = index_of(I, stop, "");
  int64_t width = checked_sub(I, istop, istart);
  int64_t istep = step ? index_of(I, step, "") : 1;
  if (istep == 1) {
    if (width > 0) return istart + int64_t(r.randbelow(uint64_t(width)));
    I.raise("ValueError", fmt::format("empty range for randrange() ({}, {}, {})", istart, istop, width));
  }
  int64_t n;
  if (istep > 0) n = floordiv_i(I, width + istep - 1, istep);
  else if (istep < 0) n = floordiv_i(I, width + istep + 1, istep);
  else I.raise("ValueError", "zero step for randrange()");
  if (n <= 0) I.raise("ValueError", "empty range for randrange()");
  return istart + istep * int64_t(r.randbelow(uint64_t(n)));
}

void def_random_methods(const ClassP& c) {
  def(c, "seed", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "seed", {"$self", "a=", "version="});
    do_seed(I, self_random(I, a, "seed"), p.get("a"));
    return none();
  });
  def(c, "random", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "random", 0, 0);
    return make_float(self_random(I, a, "random").random());
  });
  def(c, "getrandbits", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "getrandbits", 1, 1);
    int64_t k = index_of(I, a.args[1], "");
    if (k < 0) I.raise("ValueError", "number of bits must be non-negative");
    if (k > 63) int_overflow(I);
    return make_int(int64_t(self_random(I, a, "getrandbits").getrandbits(int(k))));
  });
  def(c, "randrange", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "randrange", {"$self", "start", "stop=", "step="});
    return make_int(randrange(I, self_random(I, a, "randrange"), p.get("start"), p.get("stop"), p.get("step")));
  });
  def(c, "randint", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "randint", {"$self", "a", "b"});
    Value hi = make_int(checked_add(I, index_of(I, p.get("b"), ""), 1));
    return make_int(randrange(I, self_random(I, a, "randint"), p.get("a"), hi, nullptr));
  });
  def(c, "choice", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "choice", 1, 1);
    auto& r = self_random(I, a, "choice");
    int64_t n = I.len(a.args[1]);
    if (n == 0) I.raise("IndexError", "Cannot choose from an empty sequence");
    return I.getitem(a.args[1], make_int(int64_t(r.randbelow(uint64_t(n)))));
  });
  def(c, "shuffle", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "shuffle", 1, 1);
    auto& r = self_random(I, a, "shuffle");
    const Value& x = a.args[1];
    int64_t n = I.len(x);
    for (int64_t i = n - 1; i > 0; --i) {
      int64_t j = int64_t(r.randbelow(uint64_t(i + 1)));
      if (auto* l = unwrap<ListObj>(x, ObjKind::List); l && x->kind == ObjKind::List) {
        std::swap(l->items[size_t(i)], l->items[size_t(j)]);
      } else {
        Value xi = I.getitem(x, make_int(i)), xj = I.getitem(x, make_int(j));
        I.setitem(x, make_int(i), xj);
        I.setitem(x, make_int(j), xi);
      }
    }
    return none();
  });
  def(c, "sample", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "sample", {"$self", "population", "k", "*", "counts="});
    auto& r = self_random(I, a, "sample");
    std::vector<Value> pop = collect(I, p.get("population"));
    int64_t n = int64_t(pop.size()), k = index_of(I, p.get("k"), "");
    if (k < 0 || k > n) I.raise("ValueError", "Sample larger than population or is negative");
    std::vector<Value> result(static_cast<size_t>(k));
    int64_t setsize = 21;
    if (k > 5) setsize += int64_t(std::pow(4.0, std::ceil(std::log(double(k * 3)) / std::log(4.0))));
    if (n <= setsize) {
      std::vector<Value> pool = pop;
      for (int64_t i = 0; i < k; ++i) {
        int64_t j = int64_t(r.randbelow(uint64_t(n - i)));
        result[size_t(i)] = pool[size_t(j)];
        pool[size_t(j)] = pool[size_t(n - i - 1)];
      }
    } else {
      std::vector<bool> selected(size_t(n), false);
      for (int64_t i = 0; i < k; ++i) {
        int64_t j = int64_t(r.randbelow(uint64_t(n)));
        while (selected[size_t(j)]) j = int64_t(r.randbelow(uint64_t(n)));
        selected[size_t(j)] = true;
        result[size_t(i)] = pop[size_t(j)];
      }
    }
    return make_list(std::move(result));
  });
  def(c, "choices", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "choices", {"$self", "population", "weights=", "*", "cum_weights=", "k="});
    auto& r = self_random(I, a, "choices");
    std::vector<Value> pop = collect(I, p.get("population"));
    int64_t k = p.has("k") ? index_of(I, p.get("k"), "") : 1;
    check_alloc(I, k);
    double n = double(pop.size());
    std::vector<Value> out;
    Value w = p.get("weights"), cw = p.get("cum_weights");
    if (w && w->kind == ObjKind::None) w = nullptr;
    if (cw && cw->kind == ObjKind::None) cw = nullptr;
    if (!w && !cw) {
      for (int64_t i = 0; i < k; ++i) out.push_back(pop.at(size_t(std::floor(r.random() * n))));
      return make_list(std::move(out));
    }
    if (w && cw) I.raise("TypeError", "Cannot specify both weights and cumulative weights");
    std::vector<double> cum;
    if (w) {
      double acc = 0;
      for (auto& x : collect(I, w)) cum.push_back(acc += *real_of(x));
    } else {
      for (auto& x : collect(I, cw)) cum.push_back(*real_of(x));
    }
    if (cum.size() != pop.size()) I.raise("ValueError", "The number of weights does not match the population");
    double total = cum.empty() ? 0.0 : cum.back();
    if (total <= 0.0) I.raise("ValueError", "Total of weights must be greater than zero");
    if (!std::isfinite(total)) I.raise("ValueError", "Total of weights must be finite");
    size_t hi = pop.size() - 1;
    for (int64_t i = 0; i < k; ++i) {
      double x = r.random() * total;
      size_t j = size_t(std::upper_bound(cum.begin(), cum.begin() + long(hi), x) - cum.begin());
      out.push_back(pop[j]);
    }
    return make_list(std::move(out));
  });
  def(c, "uniform", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "uniform", 2, 2);
    auto& r = self_random(I, a, "uniform");
    double lo = *real_of(a.args[1]), hi = *real_of(a.args[2]);
    return make_float(lo + (hi - lo) * r.random());
  });
  def(c, "gauss", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "gauss", {"$self", "mu=", "sigma="});
    auto& r = self_random(I, a, "gauss");
    double mu = p.has("mu") ? *real_of(p.get("mu")) : 0.0, sigma = p.has("sigma") ? *real_of(p.get("sigma")) : 1.0;
    double z;
    if (r.gauss_next) {
      z = *r.gauss_next;
      r.gauss_next.reset();
    } else {
      double x2pi = r.random() * 2 * M_PI;
      double g2rad = std::sqrt(-2.0 * std::log(1.0 - r.random()));
      z = std::cos(x2pi) * g2rad;
      r.gauss_next = std::sin(x2pi) * g2rad;
    }
    return make_float(mu + z * sigma);
  });
  def(c, "normalvariate", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "normalvariate", {"$self", "mu=", "sigma="});
    auto& r = self_random(I, a, "normalvariate");
    double mu = p.has("mu") ? *real_of(p.get("mu")) : 0.0, sigma = p.has("sigma") ? *real_of(p.get("sigma")) : 1.0;
    const double magic = 4 * std::exp(-0.5) / std::sqrt(2.0);
    double z;
    while (true) {
      double u1 = r.random();
      double u2 = 1.0 - r.random();
      z = magic * (u1 - 0.5) / u2;
      double zz = z * z / 4.0;
      if (zz <= -std::log(u2)) break;
    }
    return make_float(mu + z * sigma);
  });
  def(c, "expovariate", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "expovariate", 0, 1);
    auto& r = self_random(I, a, "expovariate");
    double lambd = a.args.size() > 1 ? *real_of(a.args[1]) : 1.0;
    return make_float(-std::log(1.0 - r.random()) / lambd);
  });
}

Value random_new(Interp& I, const ClassP& cls, CallArgs& a) {
  auto r = std::make_shared<RandomObj>(cls);
  do_seed(I, *r, a.args.empty() ? nullptr : a.args[0]);
  return r;
}

void fill_random(Interp& I, ModuleObj& m) {
  if (!g_random_cls) {
    g_random_cls = native_class("Random", nullptr, "random", ObjKind::Native);
    g_random_cls->native_new = random_new;
    def(g_random_cls, "__init__", [](Interp&, CallArgs&) { return none(); });
    def_random_methods(g_random_cls);
  }
  m.dict.set("Random", g_random_cls);
  auto inst = std::make_shared<RandomObj>(g_random_cls);
  do_seed(I, *inst, nullptr);
  Value self = inst;
  for (const char* name : {"seed", "random", "getrandbits", "randrange", "randint", "choice", "shuffle", "sample",
                           "choices", "uniform", "gauss", "normalvariate", "expovariate"}) {
    Value fn = *g_random_cls->dict.find(name);
    auto bound = std::make_shared<BuiltinObj>(static_cast<BuiltinObj&>(*fn));
    bound->self = self;
    m.dict.set(name, bound);
  }
}

}  // namespace

void register_random_module() { Interp::register_builtin_module("random", fill_random); }

}  // namespace shard::interp::bi
