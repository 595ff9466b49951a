// Unit tests for the plain complex helpers behind the host complex type and cmath:
// CPython's arithmetic (complex_math.hpp), complex('...') parsing, repr and format
// (numfmt.hpp). Expected values come from CPython 3.11.
#include <catch2/catch.hpp>

#include <cerrno>
#include <cmath>
#include <string>

#include "interp/builtins/complex_math.hpp"
#include "interp/builtins/numfmt.hpp"

using namespace shard::interp;

TEST_CASE("complex repr follows CPython's rules for parentheses, zeros and specials", "[builtins][complex]") {
  struct Row {
    double re, im;
    const char* want;
  };
  const Row rows[] = {
      {1, 2, "(1+2j)"},          {0, 2, "2j"},           {-0.0, -1, "(-0-1j)"},
      {1.5, -0.0, "(1.5-0j)"},   {NAN, INFINITY, "(nan+infj)"}, {0, 1e20, "1e+20j"},
      {-0.0, 0.0, "(-0+0j)"},    {0, 0, "0j"},           {0, -0.0, "-0j"},
      {1e16, 1e-5, "(1e+16+1e-05j)"}, {1, -NAN, "(1+nanj)"},
  };
  for (const Row& r : rows) CHECK(numfmt::complex_repr(r.re, r.im) == r.want);
}

TEST_CASE("format(complex, spec) as CPython", "[builtins][complex]") {
  CHECK(numfmt::format_complex(1234.5, -2, ".2f") == "1234.50-2.00j");
  CHECK(numfmt::format_complex(1234.5, -2, "") == "(1234.5-2j)");
  CHECK(numfmt::format_complex(1234.5, -2, ">12") == " (1234.5-2j)");
  CHECK(numfmt::format_complex(1234.5, -2, "+") == "(+1234.5-2j)");
  CHECK(numfmt::format_complex(1234.5, -2, "e") == "1.234500e+03-2.000000e+00j");
  CHECK(numfmt::format_complex(1234.5, -2, "#") == "(1234.5-2.j)");
  CHECK(numfmt::format_complex(1234.5, -2, "g") == "1234.5-2j");
  CHECK(numfmt::format_complex(1234.5, -2, ",.1f") == "1,234.5-2.0j");
  auto error = [](const char* spec) {
    try {
      numfmt::format_complex(1, 2, spec);
    } catch (const numfmt::FormatError& e) {
      return e.type + ": " + e.msg;
    }
    return std::string("no error");
  };
  CHECK(error("010") == "ValueError: Zero padding is not allowed in complex format specifier");
  CHECK(error("=10") == "ValueError: '=' alignment flag is not allowed in complex format specifier");
  CHECK(error("d") == "ValueError: Unknown format code 'd' for object of type 'complex'");
}

TEST_CASE("complex('...') accepts CPython's forms and nothing else", "[builtins][complex]") {
  auto ok = [](const char* text, double re, double im) {
    cx::ParseResult r = cx::parse(text);
    CHECK(r.error == cx::ParseError::None);
    CHECK(r.value.re == re);
    CHECK(r.value.im == im);
  };
  ok("1+2j", 1, 2);
  ok(" ( 1+2j ) ", 1, 2);
  ok("j", 0, 1);
  ok("-J", 0, -1);
  ok("1-j", 1, -1);
  ok("2.5e3-1.5e-3j", 2500, -0.0015);
  ok("1_000+2_0j", 1000, 20);
  ok("(1)", 1, 0);
  CHECK(std::isinf(cx::parse("1e500j").value.im));
  CHECK(std::isnan(cx::parse("NaN+InFj").value.re));
  for (const char* bad : {"", "x", "1+", "((1))", "1 +2j", "1e", "0x10", "1j+1", "(1", "1+2", "j1"})
    CHECK(cx::parse(bad).error == cx::ParseError::Malformed);
  for (const char* bad : {"1__0", "_1", "1_", "1_j"}) CHECK(cx::parse(bad).error == cx::ParseError::Underscore);
}

TEST_CASE("complex arithmetic uses CPython's formulas and errno", "[builtins][complex]") {
  cx::C p = cx::pow({1, 2}, {3, 4});
  CHECK(errno == 0);
  CHECK(p.re == 0x1.08362e9b5c4e4p-3);
  CHECK(p.im == 0x1.15e7fab25f9cbp-5);
  cx::C q = cx::pow({2, 0}, {-3, 0});
  CHECK((q.re == 0.125 && q.im == 0));
  cx::pow({0, 0}, {-1, 0});
  CHECK(errno == EDOM);
  cx::pow({2, 0}, {1025, 0});
  CHECK(errno == ERANGE);
  errno = 0;
  cx::C d = cx::quot({1, 1}, {1e-320, 1e-320});
  CHECK((std::isinf(d.re) && d.im == 0));
  d = cx::quot({1, 0}, {3, 4});
  CHECK((d.re == 0.12 && d.im == -0.16));
  cx::quot({1, 0}, {0, 0});
  CHECK(errno == EDOM);
  CHECK(cx::abs({3, 4}) == 5);
  CHECK(std::isinf(cx::abs({INFINITY, NAN})));
}
