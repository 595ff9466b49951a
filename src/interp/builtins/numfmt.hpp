// Number and string formatting with CPython's exact rules, as plain C++ (no interpreter):
// float repr, the format-spec mini-language (format(x, spec), f-strings, str.format) and the
// pieces of printf-style `%` formatting. Errors are thrown as FormatError and turned into
// Python exceptions by the callers.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace shard::interp::numfmt {

// A Python-level error raised by formatting code: `type` is "ValueError", "TypeError", ...
struct FormatError {
  std::string type;
  std::string msg;
};

// repr(float) / str(float): shortest round-trip digits, exponent past 1e16 or below 1e-4.
std::string float_repr(double x);

// PyOS_double_to_string: code is one of e E f F g G r (r = repr digits; precision unused).
// `alt` is the '#' flag, `add_dot_0` keeps ".0" on integral values (format with no type).
std::string double_to_string(double x, char code, int precision, bool alt, bool add_dot_0,
                             bool no_neg_0 = false);

// The parsed format-spec mini-language: [[fill]align][sign][z][#][0][width][grouping][.precision][type]
struct FormatSpec {
  std::string fill = " ";  // one code point (UTF-8)
  char align = 0;          // '<' '>' '^' '=' or 0 (default for the type)
  char sign = 0;           // '+' '-' ' ' or 0
  bool no_neg_0 = false;   // 'z'
  bool alt = false;        // '#'
  int64_t width = -1;
  char grouping = 0;       // ',' or '_' (0 = none); '_' on b/o/x/X groups by 4
  int64_t precision = -1;
  char type = 0;
};

// Parses `spec` for an object of Python type `type_name`; default_align is '>' for numbers and
// '<' for strings (used by the '0' flag). Throws FormatError on a malformed spec.
FormatSpec parse_format_spec(std::string_view spec, std::string_view type_name, char default_align);

// format(int, spec); e/f/g/% types convert to float as CPython does.
std::string format_int(int64_t v, std::string_view spec, std::string_view type_name = "int");
std::string format_int(int64_t v, const FormatSpec& s, std::string_view type_name = "int");
std::string format_float(double v, std::string_view spec, std::string_view type_name = "float");
std::string format_float(double v, const FormatSpec& s, std::string_view type_name = "float");
std::string format_str(std::string_view v, std::string_view spec, std::string_view type_name = "str");

// repr(complex) / str(complex): "(1+2j)", "2j" (no parentheses when the real part is +0),
// each part with repr's digits and no ".0" (complex_repr in Objects/complexobject.c).
std::string complex_repr(double re, double im);
// format(complex, spec): float presentation types e E f F g G n (or none), applied to both
// parts, the imaginary one always signed; no '0' padding and no '=' alignment.
std::string format_complex(double re, double im, std::string_view spec, std::string_view type_name = "complex");

// Pads `body` (already converted) to the spec's width with fill/align; `len` in code points.
std::string pad_to_width(std::string_view body, const FormatSpec& s, char default_align);

// printf-style conversions for `%` formatting (flags: '-' '+' ' ' '#' '0').
struct PercentFlags {
  bool left = false, plus = false, blank = false, alt = false, zero = false;
  int64_t width = -1, precision = -1;
};
std::string percent_int(int64_t v, char conv, const PercentFlags& f);     // d i u x X o
std::string percent_float(double v, char conv, const PercentFlags& f);    // e E f F g G
std::string percent_str(std::string_view s, const PercentFlags& f);       // s r a c (precision truncates)

// Integer to text in base 2/8/10/16 (no prefix), and Python's bin()/oct()/hex() ("-0x1f").
std::string int_to_base(int64_t v, int base, bool upper = false);
std::string int_with_prefix(int64_t v, int base);

// round(x, ndigits) for floats as CPython (correctly rounded, half-even on the exact value).
double round_double(double x, int64_t ndigits);

// UTF-8 helpers (str is stored as UTF-8 and indexed by code points).
size_t utf8_length(std::string_view s);
bool is_ascii(std::string_view s);
void utf8_append(std::string& out, uint32_t cp);
// Decodes the code point at byte offset i and advances i (invalid bytes decode as themselves).
uint32_t utf8_next(std::string_view s, size_t& i);

// CPython's numeric hashes (so hash(1) == hash(1.0) == hash(True)).
int64_t hash_int(int64_t v);
int64_t hash_float(double v);  // nan hashes to 0 here (CPython uses the object's address)
// hash(complex): hash(re) + 1000003 * hash(im) (both parts not NaN).
int64_t hash_complex(double re, double im);
int64_t hash_tuple(const int64_t* item_hashes, size_t n);
uint64_t hash_bytes(std::string_view s);  // str hash (CPython's is randomised per process)

}  // namespace shard::interp::numfmt
