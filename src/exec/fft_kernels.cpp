#include "exec/fft_kernels.hpp"

#include <fftw3.h>

#include <complex>
#include <limits>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace shard::exec {

using ir::attr::FftType;
using types::DType;

namespace {

// FFTW's planner is not thread-safe; executing a plan is, on arrays of any alignment
// (FFTW_UNALIGNED). Plans are made once per transform shape and kept for the process.
struct PlanKey {
  DType part;
  FftType type;
  int64_t batch;
  std::vector<int64_t> lengths;
  bool operator<(const PlanKey& o) const {
    return std::tie(part, type, batch, lengths) < std::tie(o.part, o.type, o.batch, o.lengths);
  }
};

std::mutex planner_mutex;
std::map<PlanKey, void*> plans;

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (auto x : v) p *= x;
  return p;
}

// Element counts of one transform's input and output (complex elements for complex data).
std::pair<int64_t, int64_t> sizes(FftType type, const std::vector<int64_t>& n) {
  const int64_t full = product(n);
  const int64_t half = full / n.back() * (n.back() / 2 + 1);
  switch (type) {
    case FftType::Rfft: return {full, half};
    case FftType::Irfft: return {half, full};
    default: return {full, full};
  }
}

template <class Real>
void* make_plan(const PlanKey& k, void* in, void* out) {
  std::vector<int> n(k.lengths.begin(), k.lengths.end());
  const int rank = static_cast<int>(n.size());
  const int howmany = static_cast<int>(k.batch);
  auto [isize, osize] = sizes(k.type, k.lengths);
  const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
  if constexpr (std::is_same_v<Real, float>) {
    switch (k.type) {
      case FftType::Fft: case FftType::Ifft:
        return fftwf_plan_many_dft(rank, n.data(), howmany, static_cast<fftwf_complex*>(in), nullptr, 1, int(isize),
                                   static_cast<fftwf_complex*>(out), nullptr, 1, int(osize),
                                   k.type == FftType::Fft ? FFTW_FORWARD : FFTW_BACKWARD, flags);
      case FftType::Rfft:
        return fftwf_plan_many_dft_r2c(rank, n.data(), howmany, static_cast<float*>(in), nullptr, 1, int(isize),
                                       static_cast<fftwf_complex*>(out), nullptr, 1, int(osize), flags);
      case FftType::Irfft:
        return fftwf_plan_many_dft_c2r(rank, n.data(), howmany, static_cast<fftwf_complex*>(in), nullptr, 1, int(isize),
                                       static_cast<float*>(out), nullptr, 1, int(osize), flags | FFTW_DESTROY_INPUT);
    }
  } else {
    switch (k.type) {
      case FftType::Fft: case FftType::Ifft:
        return fftw_plan_many_dft(rank, n.data(), howmany, static_cast<fftw_complex*>(in), nullptr, 1, int(isize),
                                  static_cast<fftw_complex*>(out), nullptr, 1, int(osize),
                                  k.type == FftType::Fft ? FFTW_FORWARD : FFTW_BACKWARD, flags);
      case FftType::Rfft:
        return fftw_plan_many_dft_r2c(rank, n.data(), howmany, static_cast<double*>(in), nullptr, 1, int(isize),
                                      static_cast<fftw_complex*>(out), nullptr, 1, int(osize), flags);
      case FftType::Irfft:
        return fftw_plan_many_dft_c2r(rank, n.data(), howmany, static_cast<fftw_complex*>(in), nullptr, 1, int(isize),
                                      static_cast<double*>(out), nullptr, 1, int(osize), flags | FFTW_DESTROY_INPUT);
    }
  }
  return nullptr;
}

template <class Real>
void run(const PlanKey& k, const void* in, void* out) {
  auto [isize, osize] = sizes(k.type, k.lengths);
  const bool complex_in = k.type != FftType::Rfft, complex_out = k.type != FftType::Irfft;
  const size_t in_count = size_t(k.batch * isize) * (complex_in ? 2 : 1);
  // c2r overwrites its input: it works on a copy, kept per thread so its pages are reused.
  // The other transforms are out of place and preserve their input (FFTW's default for them).
  Real* src = const_cast<Real*>(static_cast<const Real*>(in));
  if (k.type == FftType::Irfft) {
    thread_local std::vector<Real> scratch;
    if (scratch.size() < in_count) scratch.resize(in_count);
    std::memcpy(scratch.data(), in, in_count * sizeof(Real));
    src = scratch.data();
  }
  void* plan;
  {
    std::lock_guard<std::mutex> lock(planner_mutex);
    auto it = plans.find(k);
    if (it == plans.end()) {
      // planned on the caller's buffers: FFTW_ESTIMATE does not touch them, and with
      // FFTW_UNALIGNED the plan runs on any others (new-array execution below)
      plan = make_plan<Real>(k, src, out);
      if (!plan) throw std::runtime_error("internal error: FFTW could not plan this transform");
      plans.emplace(k, plan);
    } else {
      plan = it->second;
    }
  }
  if constexpr (std::is_same_v<Real, float>) {
    auto p = static_cast<fftwf_plan>(plan);
    switch (k.type) {
      case FftType::Fft: case FftType::Ifft:
        fftwf_execute_dft(p, reinterpret_cast<fftwf_complex*>(src), static_cast<fftwf_complex*>(out));
        break;
      case FftType::Rfft: fftwf_execute_dft_r2c(p, src, static_cast<fftwf_complex*>(out)); break;
      case FftType::Irfft: fftwf_execute_dft_c2r(p, reinterpret_cast<fftwf_complex*>(src), static_cast<float*>(out)); break;
    }
  } else {
    auto p = static_cast<fftw_plan>(plan);
    switch (k.type) {
      case FftType::Fft: case FftType::Ifft:
        fftw_execute_dft(p, reinterpret_cast<fftw_complex*>(src), static_cast<fftw_complex*>(out));
        break;
      case FftType::Rfft: fftw_execute_dft_r2c(p, src, static_cast<fftw_complex*>(out)); break;
      case FftType::Irfft: fftw_execute_dft_c2r(p, reinterpret_cast<fftw_complex*>(src), static_cast<double*>(out)); break;
    }
  }
  if (k.type == FftType::Ifft || k.type == FftType::Irfft) {
    const Real scale = Real(1) / static_cast<Real>(product(k.lengths));
    const size_t count = size_t(k.batch * osize) * (complex_out ? 2 : 1);
    auto* o = static_cast<Real*>(out);
    for (size_t i = 0; i < count; ++i) o[i] *= scale;
  }
}

}  // namespace

void fft_kernel(DType part, FftType type, int64_t batch, const std::vector<int64_t>& lengths, const void* in, void* out) {
  if (batch == 0 || lengths.empty() || product(lengths) == 0) return;
  // FFTW's plan_many takes ints: sizes past 2^31 would need its guru64 interface
  const int64_t limit = std::numeric_limits<int>::max();
  auto [isize, osize] = sizes(type, lengths);
  if (batch > limit || isize > limit || osize > limit)
    throw std::runtime_error("fft: transforms of more than 2^31 elements (or batches) are not supported by shard yet");
  PlanKey k{part, type, batch, lengths};
  if (part == DType::F32) return run<float>(k, in, out);
  if (part == DType::F64) return run<double>(k, in, out);
  throw std::logic_error("internal error: fft of a part dtype other than float32 / float64");
}

}  // namespace shard::exec
