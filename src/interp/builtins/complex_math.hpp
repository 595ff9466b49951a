// Complex arithmetic as CPython 3.11 does it (Objects/complexobject.c), as plain C++ with
// no interpreter: the operators' formulas (no C99 Annex G recovery of infinities, so
// results match CPython's bit for bit), pow with errno, abs, and complex('...') parsing.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace shard::interp::cx {

struct C {
  double re = 0, im = 0;
};

C sum(C a, C b);
C diff(C a, C b);
C neg(C a);
C prod(C a, C b);
// a / b; sets errno = EDOM when b is 0 (the caller raises "complex division by zero").
C quot(C a, C b);
// a ** b; errno EDOM for 0 to a negative or complex power, ERANGE on overflow (the
// errno checks of complex_pow, with _Py_ADJUST_ERANGE2 applied).
C pow(C a, C b);
// abs(z) with C99's infinities; errno ERANGE when finite parts give an infinite result.
double abs(C z);

// complex(str): the text grammar of complex_from_string_inner (spaces, one pair of
// parentheses, <float>, <float>j, <float><signed-float>j and the forms with a bare j) and
// the underscores of _Py_string_to_number_with_underscores.
enum class ParseError { None, Malformed, Underscore };
struct ParseResult {
  C value;
  ParseError error = ParseError::None;
};
ParseResult parse(std::string_view text);

}  // namespace shard::interp::cx
