#include "array/element_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "array/dragon4.hpp"
#include "types/half_float.hpp"

namespace shard::array {

using types::DType;

uint64_t load_element_bits(DType dtype, const void* data, int64_t i) {
  const auto* p = static_cast<const unsigned char*>(data);
  switch (dtype) {
    case DType::Bool: return p[i] != 0;
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, p + i * 4, 4);
      return uint64_t(int64_t(v));
    }
    case DType::I64: {
      uint64_t v;
      std::memcpy(&v, p + i * 8, 8);
      return v;
    }
    // Unsigned values zero-extend: as int64 they print as their (non-negative) values.
    case DType::U8: return p[i];
    case DType::U16: {
      uint16_t v;
      std::memcpy(&v, p + i * 2, 2);
      return v;
    }
    case DType::U32: {
      uint32_t v;
      std::memcpy(&v, p + i * 4, 4);
      return v;
    }
    case DType::F16:
    case DType::BF16: {
      uint16_t v;
      std::memcpy(&v, p + i * 2, 2);
      return v;
    }
    case DType::F32: {
      uint32_t v;
      std::memcpy(&v, p + i * 4, 4);
      return v;
    }
    case DType::F64: {
      uint64_t v;
      std::memcpy(&v, p + i * 8, 8);
      return v;
    }
    case DType::C64: case DType::C128: return uint64_t(i);
  }
  return 0;
}

namespace {

std::string split_before(const std::string& s, char c) { return s.substr(0, s.find(c)); }
std::string split_after(const std::string& s, char c) {
  auto pos = s.find(c);
  return pos == std::string::npos ? std::string() : s.substr(pos + 1);
}

// A bfloat16 element as ml_dtypes prints it (its scalar repr, which numpy's array2string
// calls for a dtype it does not know): the float32 value through C++ `ostream << float`, i.e.
// printf's %g (6 significant digits); NaN without its sign. Elements get no common width.
std::string bfloat16_text(uint64_t element) {
  const float f = types::half_to_float(static_cast<uint16_t>(element), DType::BF16);
  if (std::isnan(f)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(f));
  return buf;
}

}  // namespace

ElementFormat::ElementFormat(DType dtype, const std::vector<uint64_t>& shown, bool zero_dim, const void* data, bool sign_plus)
    : dtype_(dtype), zero_dim_(zero_dim), sign_plus_(sign_plus), data_(data) {
  if (types::is_complex(dtype)) {
    const DType part = types::complex_part_dtype(dtype);
    std::vector<uint64_t> re, im;
    for (uint64_t i : shown) {
      re.push_back(load_element_bits(part, data, int64_t(2 * i)));
      im.push_back(load_element_bits(part, data, int64_t(2 * i + 1)));
    }
    real_format_ = std::make_shared<ElementFormat>(part, re, zero_dim);
    imag_format_ = std::make_shared<ElementFormat>(part, im, zero_dim, nullptr, true);
  } else if (types::is_int(dtype)) {
    // numpy: width of the longer of str(max) and str(min)
    if (!shown.empty()) {
      auto [mn, mx] = std::minmax_element(shown.begin(), shown.end(), [](uint64_t a, uint64_t b) {
        return int64_t(a) < int64_t(b);
      });
      int_width_ = int(std::max(std::to_string(int64_t(*mn)).size(),
                                std::to_string(int64_t(*mx)).size()));
    }
  } else if (types::is_float(dtype) && dtype != DType::BF16) {
    fill_float_format(shown);
  }
}

// numpy FloatingFormat.fillFormat with floatmode 'maxprec', precision 8, suppress False.
void ElementFormat::fill_float_format(const std::vector<uint64_t>& shown) {
  std::vector<uint64_t> finite;
  bool any_neg_inf = false;
  double max_abs = 0, min_abs = INFINITY;
  bool any_nonzero = false;
  for (uint64_t b : shown) {
    const double v = float_bits_to_double(dtype_, b);
    if (!std::isfinite(v)) {
      if (std::isinf(v) && v < 0) any_neg_inf = true;
      continue;
    }
    finite.push_back(b);
    if (v != 0) {
      any_nonzero = true;
      max_abs = std::max(max_abs, std::fabs(v));
      min_abs = std::min(min_abs, std::fabs(v));
    }
  }
  if (any_nonzero) {
    // numpy divides in the array's own precision (float32 / float16), then compares the
    // scalar with a Python float in float64.
    const double ratio = round_to_dtype(dtype_, max_abs / min_abs);
    exp_format_ = max_abs >= 1e8 || min_abs < 0.0001 || ratio > 1000.0;
  }
  if (finite.empty()) {
    pad_left_ = pad_right_ = 0;
    exp_size_ = -1;
    min_digits_ = -1;
  } else if (exp_format_) {
    Dragon4Options o;
    o.scientific = true;
    o.precision = precision_;
    o.trim = Trim::Zeros;
    o.sign = sign_plus_;
    int max_exp = 0, max_frac = 0, max_int = 0;
    for (uint64_t b : finite) {
      const std::string s = dragon4_format(dtype_, b, o);
      const std::string mant = split_before(s, 'e');
      max_exp = std::max(max_exp, int(split_after(s, 'e').size()));
      max_int = std::max(max_int, int(split_before(mant, '.').size()));
      max_frac = std::max(max_frac, int(split_after(mant, '.').size()));
    }
    exp_size_ = max_exp - 1;
    precision_ = max_frac;
    min_digits_ = max_frac;
    pad_left_ = max_int;
    pad_right_ = exp_size_ + 2 + precision_;
  } else {
    Dragon4Options o;
    o.precision = precision_;
    o.trim = Trim::Zeros;
    o.sign = sign_plus_;
    int max_frac = 0, max_int = 0;
    for (uint64_t b : finite) {
      const std::string s = dragon4_format(dtype_, b, o);
      max_int = std::max(max_int, int(split_before(s, '.').size()));
      max_frac = std::max(max_frac, int(split_after(s, '.').size()));
    }
    pad_left_ = max_int;
    pad_right_ = max_frac;
    exp_size_ = -1;
    min_digits_ = 0;
  }
  if (finite.size() != shown.size()) {
    // room for "nan" / "inf" / "-inf" in the common width
    // numpy: with sign='+' an infinity always has a sign
    const int offset = pad_right_ + 1;
    pad_left_ = std::max({pad_left_, 3 - offset, 3 + int(any_neg_inf || sign_plus_) - offset});
  }
}

std::string ElementFormat::operator()(uint64_t element) const {
  if (dtype_ == DType::Bool) {
    if (element) return zero_dim_ ? "True" : " True";
    return "False";
  }
  if (dtype_ == DType::BF16) return bfloat16_text(element);
  if (types::is_complex(dtype_)) {
    const DType part = types::complex_part_dtype(dtype_);
    const std::string r = (*real_format_)(load_element_bits(part, data_, int64_t(2 * element)));
    std::string i = (*imag_format_)(load_element_bits(part, data_, int64_t(2 * element + 1)));
    // the 'j' goes before the imaginary part's trailing padding
    const size_t end = i.find_last_not_of(' ');
    const size_t sp = end == std::string::npos ? 0 : end + 1;
    i.insert(sp, "j");
    return r + i;
  }
  if (types::is_int(dtype_)) {
    std::string s = std::to_string(int64_t(element));
    if (int(s.size()) < int_width_) s.insert(0, size_t(int_width_) - s.size(), ' ');
    return s;
  }
  const double v = float_bits_to_double(dtype_, element);
  if (!std::isfinite(v)) {
    const std::string s = std::isnan(v) ? (sign_plus_ ? "+nan" : "nan") : v < 0 ? "-inf" : sign_plus_ ? "+inf" : "inf";
    const int width = pad_left_ + pad_right_ + 1;
    return std::string(size_t(std::max(0, width - int(s.size()))), ' ') + s;
  }
  Dragon4Options o;
  o.precision = precision_;
  o.min_digits = min_digits_;
  o.pad_left = pad_left_;
  o.sign = sign_plus_;
  if (exp_format_) {
    o.scientific = true;
    o.trim = Trim::Keep;
    o.exp_digits = exp_size_;
  } else {
    o.trim = Trim::Zeros;
    o.pad_right = pad_right_;
  }
  return dragon4_format(dtype_, element, o);
}

std::string format_scalar_element(DType dtype, uint64_t element) {
  if (dtype == DType::Bool) return element ? "True" : "False";
  if (types::is_int(dtype)) return std::to_string(int64_t(element));
  if (dtype == DType::BF16) return bfloat16_text(element);
  // numpy scalar str/repr: positional between 1e-4 and 1e16, else scientific
  const double a = std::fabs(float_bits_to_double(dtype, element));
  Dragon4Options o;
  if (a == 0 || (a < 1e16 && a >= 1e-4)) {
    o.trim = Trim::LeaveOneZero;
  } else {
    o.scientific = true;
    o.trim = Trim::DptZeros;
  }
  return dragon4_format(dtype, element, o);
}

// numpy's complex scalar str: `2j` when the real part is +0, else `(re+imj)`; each part
// as a float scalar (positional between 1e-4 and 1e16, trailing zeros and point dropped).
std::string format_complex_scalar(DType dtype, const void* data) {
  const DType part = types::complex_part_dtype(dtype);
  const uint64_t re = load_element_bits(part, data, 0), im = load_element_bits(part, data, 1);
  auto either = [&](uint64_t bits, bool sign) {
    const double v = float_bits_to_double(part, bits);
    const double a = std::fabs(v);
    Dragon4Options o;
    o.sign = sign;
    o.trim = Trim::DptZeros;
    if (!(a == 0 || (a < 1e16 && a >= 1e-4))) o.scientific = true;
    return dragon4_format(part, bits, o);
  };
  const double r = float_bits_to_double(part, re), i = float_bits_to_double(part, im);
  if (r == 0 && !std::signbit(r)) return either(im, false) + "j";
  const std::string rs = std::isfinite(r) ? either(re, false) : std::isnan(r) ? "nan" : r > 0 ? "inf" : "-inf";
  const std::string is = std::isfinite(i) ? either(im, true) : std::isnan(i) ? "+nan" : i > 0 ? "+inf" : "-inf";
  return "(" + rs + is + "j)";
}

}  // namespace shard::array
