// Array printing vs numpy 1.24 / JAX: expected texts were produced by Debian's numpy 1.24
// (/usr/bin/python3); the JAX ones by jax.Array.__repr__'s formula on numpy's array2string.
// tests/numerics/print_oracle.py checks hundreds more generated arrays against numpy live.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "array/array_format.hpp"
#include "array/dragon4.hpp"

using shard::array::ArrayView;
using shard::types::DType;
namespace sa = shard::array;

namespace {

// An owned array: raw bytes plus the view the formatters take.
struct TestArray {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;
  ArrayView view() const { return ArrayView{dtype, shape, bytes.data()}; }
  std::string str() const { return sa::format_array_str(view()); }
  std::string repr() const { return sa::format_array_repr(view()); }
  std::string jax(bool weak = false) const { return sa::format_jax_repr(view(), weak); }
};

template <class T>
TestArray make(DType dtype, std::vector<int64_t> shape, const std::vector<T>& values) {
  TestArray a{dtype, std::move(shape), std::vector<unsigned char>(values.size() * sizeof(T))};
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

template <class T>
TestArray arange(DType dtype, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = T(i);
  return make<T>(dtype, std::move(shape), v);
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("float arrays: alignment, trailing point, padding", "[array_print]") {
  auto a = make<float>(DType::F32, {4}, {0, 1, 2, 3});
  CHECK(a.str() == "[0. 1. 2. 3.]");
  CHECK(a.repr() == "array([0., 1., 2., 3.], dtype=float32)");
  CHECK(a.jax() == "Array([0., 1., 2., 3.], dtype=float32)");

  auto b = make<double>(DType::F64, {3}, {0.1, 0.25, 3.0});
  CHECK(b.str() == "[0.1  0.25 3.  ]");
  CHECK(b.repr() == "array([0.1 , 0.25, 3.  ])");

  CHECK(make<double>(DType::F64, {3}, {-0.0, 0.0, 1.0}).repr() == "array([-0.,  0.,  1.])");
  CHECK(make<double>(DType::F64, {2}, {1.0 / 512, 1.0}).str() == "[0.00195312 1.        ]");
  CHECK(make<double>(DType::F64, {2}, {0.999999999, 1.5}).str() == "[1.  1.5]");
  // float32 digits are the shortest that round-trip as float32; integer digits are exact
  CHECK(make<float>(DType::F32, {1}, {99999992.0f}).str() == "[99999992.]");
}

TEST_CASE("scientific switch and exponent padding", "[array_print]") {
  CHECK(make<double>(DType::F64, {2}, {1e-5, 1e100}).str() == "[1.e-005 1.e+100]");
  // min_digits pads with exact digits of the float32 value
  auto a = make<float>(DType::F32, {2}, {0.1f, 1.2345678e-6f});
  CHECK(a.str() == "[1.0000000e-01 1.2345678e-06]");
  CHECK(a.repr() == "array([1.0000000e-01, 1.2345678e-06], dtype=float32)");
  // float32(1e-4) is below 1e-4 as a double, so numpy goes scientific
  CHECK(make<float>(DType::F32, {1}, {1e-4f}).str() == "[1.e-04]");
}

TEST_CASE("nan and inf", "[array_print]") {
  CHECK(make<double>(DType::F64, {3}, {kNaN, 1.5, -kInf}).str() == "[ nan  1.5 -inf]");
  CHECK(make<double>(DType::F64, {3}, {kNaN, 1e-5, -kInf}).repr() ==
        "array([   nan, 1.e-05,   -inf])");
  auto m = make<float>(DType::F32, {2, 2}, {1.5f, float(kNaN), float(-kInf), 2.25f});
  CHECK(m.repr() == "array([[1.5 ,  nan],\n       [-inf, 2.25]], dtype=float32)");
}

TEST_CASE("integers and bools", "[array_print]") {
  auto i = make<int32_t>(DType::I32, {3}, {1, -20, 300});
  CHECK(i.str() == "[  1 -20 300]");
  CHECK(i.repr() == "array([  1, -20, 300], dtype=int32)");
  CHECK(i.jax() == "Array([  1, -20, 300], dtype=int32)");

  auto e = make<int64_t>(DType::I64, {3}, {std::numeric_limits<int64_t>::min(), 0,
                                           std::numeric_limits<int64_t>::max()});
  CHECK(e.str() == "[-9223372036854775808                    0  9223372036854775807]");
  // JAX pads with spaces (not a newline) when the dtype does not fit
  CHECK(e.jax() ==
        "Array([-9223372036854775808,                    0,  9223372036854775807],      "
        "dtype=int64)");

  auto b = make<uint8_t>(DType::Bool, {2}, {1, 0});
  CHECK(b.str() == "[ True False]");
  CHECK(b.repr() == "array([ True, False])");
  CHECK(b.jax() == "Array([ True, False], dtype=bool)");
}

TEST_CASE("0-d arrays and scalars", "[array_print]") {
  auto f = make<float>(DType::F32, {}, {1.0f});
  CHECK(f.str() == "1.0");
  CHECK(f.repr() == "array(1., dtype=float32)");
  CHECK(f.jax() == "Array(1., dtype=float32)");
  CHECK(f.jax(true) == "Array(1., dtype=float32, weak_type=True)");

  auto i = make<int32_t>(DType::I32, {}, {1});
  CHECK(i.str() == "1");
  CHECK(i.jax() == "Array(1, dtype=int32)");

  auto d = make<double>(DType::F64, {}, {1e16});
  CHECK(d.str() == "1e+16");
  CHECK(d.repr() == "array(1.e+16)");

  auto t = make<uint8_t>(DType::Bool, {}, {1});
  CHECK(t.str() == "True");
  CHECK(t.repr() == "array(True)");
  CHECK(t.jax() == "Array(True, dtype=bool)");

  auto scalar_f32 = [](float v) { return sa::format_scalar_str(DType::F32, &v); };
  auto scalar_f64 = [](double v) { return sa::format_scalar_str(DType::F64, &v); };
  CHECK(scalar_f32(1e16f) == "1e+16");
  CHECK(scalar_f32(1e-5f) == "1e-05");
  CHECK(scalar_f32(1.5f) == "1.5");
  CHECK(scalar_f32(float(kNaN)) == "nan");
  CHECK(scalar_f32(float(-kInf)) == "-inf");
  CHECK(scalar_f32(123456789.0f) == "123456790.0");
  CHECK(scalar_f32(1e-4f) == "1e-04");
  CHECK(scalar_f64(0.1) == "0.1");
  CHECK(scalar_f64(1e-4) == "0.0001");
  CHECK(scalar_f64(-0.0) == "-0.0");
  CHECK(scalar_f64(1e22) == "1e+22");
  uint16_t h = 0x2e66;  // float16(0.1)
  CHECK(sa::format_scalar_str(DType::F16, &h) == "0.1");
  h = 0x7bff;  // float16 max, 65504
  CHECK(sa::format_scalar_str(DType::F16, &h) == "65500.0");
}

TEST_CASE("empty arrays", "[array_print]") {
  auto e = make<float>(DType::F32, {0}, {});
  CHECK(e.str() == "[]");
  CHECK(e.repr() == "array([], dtype=float32)");
  CHECK(e.jax() == "Array([], shape=(0,), dtype=float32)");
  auto m = make<float>(DType::F32, {0, 3}, {});
  CHECK(m.str() == "[]");
  CHECK(m.repr() == "array([], shape=(0, 3), dtype=float32)");
  CHECK(m.jax() == "Array([], shape=(0, 3), dtype=float32)");
  CHECK(make<uint8_t>(DType::Bool, {0}, {}).repr() == "array([], dtype=bool)");
}

TEST_CASE("matrices and blank lines between blocks", "[array_print]") {
  auto m = arange<double>(DType::F64, {3, 4});
  CHECK(m.str() == "[[ 0.  1.  2.  3.]\n [ 4.  5.  6.  7.]\n [ 8.  9. 10. 11.]]");
  CHECK(m.repr() ==
        "array([[ 0.,  1.,  2.,  3.],\n       [ 4.,  5.,  6.,  7.],\n"
        "       [ 8.,  9., 10., 11.]])");

  auto c = arange<int64_t>(DType::I64, {2, 3, 4});
  CHECK(c.str() == R"([[[ 0  1  2  3]
  [ 4  5  6  7]
  [ 8  9 10 11]]

 [[12 13 14 15]
  [16 17 18 19]
  [20 21 22 23]]])");

  auto r4 = arange<int32_t>(DType::I32, {2, 2, 2, 2});
  CHECK(r4.repr() == R"(array([[[[ 0,  1],
         [ 2,  3]],

        [[ 4,  5],
         [ 6,  7]]],


       [[[ 8,  9],
         [10, 11]],

        [[12, 13],
         [14, 15]]]], dtype=int32))");
}

TEST_CASE("line wrapping at 75 columns", "[array_print]") {
  std::vector<double> v(30);
  for (int i = 0; i < 30; ++i) v[size_t(i)] = i / 29.0;
  auto a = make<double>(DType::F64, {30}, v);
  CHECK(a.str() == R"([0.         0.03448276 0.06896552 0.10344828 0.13793103 0.17241379
 0.20689655 0.24137931 0.27586207 0.31034483 0.34482759 0.37931034
 0.4137931  0.44827586 0.48275862 0.51724138 0.55172414 0.5862069
 0.62068966 0.65517241 0.68965517 0.72413793 0.75862069 0.79310345
 0.82758621 0.86206897 0.89655172 0.93103448 0.96551724 1.        ])");
  CHECK(a.jax() == R"(Array([0.        , 0.03448276, 0.06896552, 0.10344828, 0.13793103,
       0.17241379, 0.20689655, 0.24137931, 0.27586207, 0.31034483,
       0.34482759, 0.37931034, 0.4137931 , 0.44827586, 0.48275862,
       0.51724138, 0.55172414, 0.5862069 , 0.62068966, 0.65517241,
       0.68965517, 0.72413793, 0.75862069, 0.79310345, 0.82758621,
       0.86206897, 0.89655172, 0.93103448, 0.96551724, 1.        ],      dtype=float64))");

  auto six = make<float>(DType::F32, {6}, std::vector<float>(6, 1.123456789f));
  CHECK(six.repr() ==
        "array([1.1234568, 1.1234568, 1.1234568, 1.1234568, 1.1234568, 1.1234568],\n"
        "      dtype=float32)");
  auto seven = make<float>(DType::F32, {7}, std::vector<float>(7, 1.123456789f));
  CHECK(seven.jax() ==
        "Array([1.1234568, 1.1234568, 1.1234568, 1.1234568, 1.1234568, 1.1234568,\n"
        "       1.1234568], dtype=float32)");
}

TEST_CASE("summarisation past 1000 elements", "[array_print]") {
  auto a = arange<double>(DType::F64, {2000});
  CHECK(a.str() == "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]");
  CHECK(a.repr() ==
        "array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n"
        "       1.999e+03])");

  auto m = arange<int32_t>(DType::I32, {2, 550});
  CHECK(m.str() == "[[   0    1    2 ...  547  548  549]\n [ 550  551  552 ... 1097 1098 1099]]");

  auto c = arange<float>(DType::F32, {30, 10, 10});
  const std::string s = c.str();
  CHECK(s.rfind(R"([[[0.000e+00 1.000e+00 2.000e+00 ... 7.000e+00 8.000e+00 9.000e+00]
  [1.000e+01 1.100e+01 1.200e+01 ... 1.700e+01 1.800e+01 1.900e+01]
  [2.000e+01 2.100e+01 2.200e+01 ... 2.700e+01 2.800e+01 2.900e+01]
  ...
  [7.000e+01 7.100e+01 7.200e+01 ... 7.700e+01 7.800e+01 7.900e+01]
  [8.000e+01 8.100e+01 8.200e+01 ... 8.700e+01 8.800e+01 8.900e+01]
  [9.000e+01 9.100e+01 9.200e+01 ... 9.700e+01 9.800e+01 9.900e+01]]

 [[1.000e+02)",
                0) == 0);
  CHECK(s.find("2.990e+02]]\n\n ...\n\n [[2.700e+03") != std::string::npos);
  const std::string r = c.repr();
  CHECK(r.find("         2.990e+02]],\n\n       ...,\n\n       [[2.700e+03, 2.701e+03") !=
        std::string::npos);
}

TEST_CASE("float16 and bfloat16 storage", "[array_print]") {
  auto h = make<uint16_t>(DType::F16, {3}, {0x2e66, 0x3555, 0x63d0});  // 0.1, 1/3, 1000
  CHECK(h.str() == "[9.998e-02 3.333e-01 1.000e+03]");
  CHECK(h.repr() == "array([9.998e-02, 3.333e-01, 1.000e+03], dtype=float16)");
  CHECK(make<uint16_t>(DType::F16, {2}, {0x3e00, 0x4000}).str() == "[1.5 2. ]");
  // bfloat16 (not in numpy): as ml_dtypes prints it, each element its float32 value through
  // C++ `ostream << float` (printf %g), no common width
  auto b = make<uint16_t>(DType::BF16, {2}, {0x3dcd, 0x3fc0});  // 0.10009765625, 1.5
  CHECK(b.str() == "[0.100098 1.5]");
  CHECK(b.jax() == "Array([0.100098, 1.5], dtype=bfloat16)");
}

TEST_CASE("round_to_dtype follows IEEE round-half-even", "[array_print]") {
  CHECK(sa::round_to_dtype(DType::F16, 1000.2) == 1000.0);   // ulp 0.5 here
  CHECK(sa::round_to_dtype(DType::F16, 1000.25) == 1000.0);  // tie: even mantissa
  CHECK(sa::round_to_dtype(DType::F16, 1000.75) == 1001.0);
  CHECK(sa::round_to_dtype(DType::F16, 65520.0) == std::numeric_limits<double>::infinity());
  CHECK(sa::round_to_dtype(DType::F16, 65519.0) == 65504.0);
  CHECK(sa::round_to_dtype(DType::F32, 1.0 + 0x1p-24) == 1.0);
  CHECK(sa::round_to_dtype(DType::F32, 1.0 + 0x1p-23 + 0x1p-24) == 1.0 + 0x1p-22);
}
