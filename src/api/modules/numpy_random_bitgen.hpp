// numpy.random's bit generators and integer algorithms, as numpy 1.24 defines their streams:
// PCG64 seeded through SeedSequence (what default_rng uses) and MT19937 seeded the legacy
// way (RandomState / np.random.seed), plus the bounded-integer methods both draw with.
// Each engine gives next64(), next32(), next_double() and next_float() the way numpy's
// bitgen_t does for it.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace shard::api::np::bitgen {

// numpy's SeedSequence(entropy).generate_state(n_words) (32-bit words) for entropy given as
// 32-bit words, low word first.
std::vector<uint32_t> seed_sequence_state(const std::vector<uint32_t>& entropy, size_t n_words);
// 128 bits from the OS, as SeedSequence() draws when no seed is given.
std::vector<uint32_t> os_entropy();

// PCG64 (XSL-RR 128/64) with numpy's buffering of the spare 32-bit half.
struct Pcg64 {
  using u128 = unsigned __int128;
  u128 state = 0, inc = 0;
  bool has32 = false;
  uint32_t buf32 = 0;

  static Pcg64 from_entropy(const std::vector<uint32_t>& entropy);  // default_rng(seed)

  uint64_t next64();
  uint32_t next32();
  double next_double() { return static_cast<double>(next64() >> 11) * (1.0 / 9007199254740992.0); }
  float next_float() { return static_cast<float>(next32() >> 8) * (1.0f / 16777216.0f); }
};

// MT19937 as numpy's RandomState holds it: the 624-word key and the position in it.
struct Mt19937 {
  static constexpr int kWords = 624;
  std::array<uint32_t, kWords> key{};
  int pos = kWords;

  void seed(uint32_t s);                              // init_genrand (RandomState(int))
  void seed_by_array(const std::vector<uint32_t>& k);  // init_by_array (RandomState([ints]))
  void seed_from_os();                                 // RandomState() / seed(None)

  uint32_t next32();
  uint64_t next64() {
    const uint64_t hi = next32();
    return hi << 32 | next32();
  }
  // 27 + 26 bits, as the original randomkit.
  double next_double() {
    const int32_t a = static_cast<int32_t>(next32() >> 5), b = static_cast<int32_t>(next32() >> 6);
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }
  float next_float() { return static_cast<float>(next32() >> 8) * (1.0f / 16777216.0f); }

 private:
  void regenerate();
};

// The smallest all-ones mask covering `max`.
inline uint64_t mask_covering(uint64_t max) {
  for (int s = 1; s < 64; s <<= 1) max |= max >> s;
  return max;
}

// An integer in [0, rng] by rejection on the masked bits: RandomState.randint, and numpy's
// random_interval (shuffle / permutation in both APIs). 32-bit draws when rng fits.
template <class G>
uint64_t bounded_masked(G& g, uint64_t rng) {
  if (rng == 0) return 0;
  const uint64_t mask = mask_covering(rng);
  uint64_t v;
  if (rng <= 0xFFFFFFFFULL) {
    do v = g.next32() & mask;
    while (v > rng);
  } else {
    do v = g.next64() & mask;
    while (v > rng);
  }
  return v;
}

// An integer in [0, rng] by Lemire's multiply-and-reject: Generator.integers and
// Generator.choice. 32-bit draws when rng fits.
template <class G>
uint64_t bounded_lemire(G& g, uint64_t rng) {
  using u128 = unsigned __int128;
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

// numpy's bool draws: one bit at a time from a 32-bit word, for as long as one fill call lasts.
template <class G>
struct BitBuffer {
  G& g;
  uint32_t word = 0;
  int left = 0;
  bool next() {
    if (left == 0) {
      word = g.next32();
      left = 31;
    } else {
      word >>= 1;
      --left;
    }
    return word & 1;
  }
};

}  // namespace shard::api::np::bitgen
