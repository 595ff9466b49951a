// Seeding and stepping of numpy's PCG64 and MT19937 (see numpy_random_bitgen.hpp).
#include "api/modules/numpy_random_bitgen.hpp"

#include <random>

namespace shard::api::np::bitgen {

std::vector<uint32_t> seed_sequence_state(const std::vector<uint32_t>& entropy, size_t n_words) {
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
  std::vector<uint32_t> state(n_words);
  uint32_t hc = kInitB;
  for (size_t i = 0; i < n_words; ++i) {
    uint32_t v = pool[i % kPool];
    v ^= hc;
    hc *= kMultB;
    v *= hc;
    v ^= v >> kXShift;
    state[i] = v;
  }
  return state;
}

std::vector<uint32_t> os_entropy() {
  std::random_device rd;
  return {rd(), rd(), rd(), rd()};
}

// ---- PCG64 ----

namespace {
constexpr Pcg64::u128 kPcgMult = (static_cast<Pcg64::u128>(2549297995355413924ULL) << 64) | 4865540595714422341ULL;
}

Pcg64 Pcg64::from_entropy(const std::vector<uint32_t>& entropy) {
  auto w = seed_sequence_state(entropy, 8);
  auto word64 = [&](size_t i) { return static_cast<uint64_t>(w[2 * i]) | (static_cast<uint64_t>(w[2 * i + 1]) << 32); };
  const u128 initstate = (static_cast<u128>(word64(0)) << 64) | word64(1);
  const u128 initseq = (static_cast<u128>(word64(2)) << 64) | word64(3);
  Pcg64 g;
  g.inc = (initseq << 1) | 1;
  g.state = g.inc;  // one step from 0
  g.state += initstate;
  g.state = g.state * kPcgMult + g.inc;
  return g;
}

uint64_t Pcg64::next64() {
  state = state * kPcgMult + inc;
  const uint64_t hi = static_cast<uint64_t>(state >> 64), lo = static_cast<uint64_t>(state);
  const unsigned rot = static_cast<unsigned>(state >> 122);
  const uint64_t x = hi ^ lo;
  return (x >> rot) | (x << ((64 - rot) & 63));
}

uint32_t Pcg64::next32() {
  if (has32) {
    has32 = false;
    return buf32;
  }
  const uint64_t n = next64();
  has32 = true;
  buf32 = static_cast<uint32_t>(n >> 32);
  return static_cast<uint32_t>(n);
}

// ---- MT19937 (Matsumoto & Nishimura's reference algorithm) ----

namespace {
constexpr int kN = Mt19937::kWords, kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfu, kUpper = 0x80000000u, kLower = 0x7fffffffu;
}

void Mt19937::seed(uint32_t s) {
  key[0] = s;
  for (int i = 1; i < kN; ++i) key[i] = 1812433253u * (key[i - 1] ^ (key[i - 1] >> 30)) + static_cast<uint32_t>(i);
  pos = kN;
}

void Mt19937::seed_by_array(const std::vector<uint32_t>& k) {
  seed(19650218u);
  const int n = static_cast<int>(k.size());
  int i = 1, j = 0;
  for (int c = kN > n ? kN : n; c; --c) {
    key[i] = (key[i] ^ ((key[i - 1] ^ (key[i - 1] >> 30)) * 1664525u)) + k[j] + static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      key[0] = key[kN - 1];
      i = 1;
    }
    if (j >= n) j = 0;
  }
  for (int c = kN - 1; c; --c) {
    key[i] = (key[i] ^ ((key[i - 1] ^ (key[i - 1] >> 30)) * 1566083941u)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= kN) {
      key[0] = key[kN - 1];
      i = 1;
    }
  }
  key[0] = 0x80000000u;  // a non-zero state whatever the rest holds
  pos = kN;
}

void Mt19937::seed_from_os() {
  // numpy: SeedSequence().generate_state(624) with the top bit of word 0 set.
  auto words = seed_sequence_state(os_entropy(), kN);
  key[0] = 0x80000000u;
  for (int i = 1; i < kN; ++i) key[i] = words[i];
  pos = kN;
}

void Mt19937::regenerate() {
  auto twist = [&](int i, int next, int far) {
    const uint32_t y = (key[i] & kUpper) | (key[next] & kLower);
    key[i] = key[far] ^ (y >> 1) ^ ((y & 1) ? kMatrixA : 0u);
  };
  int i = 0;
  for (; i < kN - kM; ++i) twist(i, i + 1, i + kM);
  for (; i < kN - 1; ++i) twist(i, i + 1, i + kM - kN);
  twist(kN - 1, 0, kM - 1);
  pos = 0;
}

uint32_t Mt19937::next32() {
  if (pos >= kN) regenerate();
  uint32_t y = key[pos++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

}  // namespace shard::api::np::bitgen
