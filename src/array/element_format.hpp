// Per-element formatters of numpy 1.24's array2string (default print options): they look at
// every element that will be shown once, fix a common width/precision, then format each
// element to that layout.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "types/dtype.hpp"

namespace shard::array {

// One element of an array, read from storage: the raw bit pattern for floats, the value for
// integers and bools; for complex dtypes (two parts, too wide for 64 bits) the flat index,
// which the ElementFormat reads both parts at.
uint64_t load_element_bits(types::DType dtype, const void* data, int64_t flat_index);

class ElementFormat {
 public:
  // `shown` are the raw elements (load_element_bits) that will be printed; `zero_dim` is true
  // for 0-d arrays (bools then print without the alignment space); `data` is the array's
  // storage (complex elements are read from it). `sign_plus` prints '+' before non-negative
  // floats (numpy's sign='+', the imaginary parts of complex numbers).
  ElementFormat(types::DType dtype, const std::vector<uint64_t>& shown, bool zero_dim, const void* data = nullptr,
                bool sign_plus = false);
  std::string operator()(uint64_t element) const;

 private:
  void fill_float_format(const std::vector<uint64_t>& shown);

  types::DType dtype_;
  bool zero_dim_ = false;
  bool sign_plus_ = false;
  // complex: numpy's ComplexFloatingFormat, a format for the real parts and one ('+' signed)
  // for the imaginary parts, each fitted to its own values
  const void* data_ = nullptr;
  std::shared_ptr<const ElementFormat> real_format_, imag_format_;
  // integers: field width
  int int_width_ = 0;
  // floats (numpy FloatingFormat state, floatmode='maxprec', precision=8)
  bool exp_format_ = false;
  int precision_ = 8;
  int min_digits_ = -1;
  int pad_left_ = 0, pad_right_ = 0, exp_size_ = -1;
};

// str() of a numpy scalar of this dtype: `1.5`, `1e+16`, `nan`, `3`, `True`.
std::string format_scalar_element(types::DType dtype, uint64_t element);
// str() of a numpy complex scalar (complex64 / complex128) stored at `data`: `(1+2j)`, `2j`,
// `(nan+infj)`.
std::string format_complex_scalar(types::DType dtype, const void* data);

}  // namespace shard::array
