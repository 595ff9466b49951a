// Unit tests for re's syntax layer (src/interp/builtins/re_syntax.hpp): the PCRE2 text a
// Python pattern becomes, the group facts the translator records, and replacement templates.
// Errors and positions are CPython 3.11's (re/_parser.py).
#include <catch2/catch.hpp>

#include <string>

#include "interp/builtins/re_syntax.hpp"

using namespace shard::interp::bi::re;

namespace {
std::string pcre(const char* pattern, int64_t flags = 0) { return translate(pattern, flags).pcre; }

std::string error_of(const char* pattern, int64_t flags = 0) {
  try {
    translate(pattern, flags);
  } catch (const SyntaxError& e) {
    return (e.type.empty() ? "error" : e.type) + ": " + e.msg + (e.pos ? " @" + std::to_string(*e.pos) : "");
  }
  return "no error";
}
}  // namespace

TEST_CASE("Python-only syntax becomes its PCRE2 equivalent", "[builtins][re]") {
  CHECK(pcre(R"(a\Z)") == R"(a\z)");
  CHECK(pcre(R"(\v)") == R"(\x{b})");  // a vertical tab, not PCRE2's vertical-space class
  CHECK(pcre(R"(\u00e9\U0001F600\x41)") == "\xc3\xa9\xf0\x9f\x98\x80" "A");
  CHECK(pcre(R"((a)\1)") == R"((a)\g{1})");
  CHECK(pcre(R"(\101\0)") == R"(A\x{0})");
  CHECK(pcre("a{,3}b{2}c{1,}") == "a{0,3}b{2}c{1,}");
  CHECK(pcre("x{a}y{}") == R"(x\{a\}y\{\})");
  CHECK(pcre("[[:alpha:]]") == R"([\[\:alpha\:]\])");
  CHECK(pcre("(?P<year>\\d+)(?P=year)") == R"((\d+)\g{1})");
  CHECK(pcre("(?P<q>')?x(?(q)')") == R"((\')?x(?(1)\'))");
  CHECK(pcre("(?#note)a(?i:b)(?-i:c)(?s-im:d)") == "a(?i:b)(?-i:c)(?s-im:d)");
  CHECK(pcre("(?>a+)b*+c?") == "(?>a+)b*+c?");
}

TEST_CASE("VERBOSE whitespace and comments are removed with Python's rules", "[builtins][re]") {
  CHECK(pcre("a b # c\n d", kVerbose) == "abd");
  CHECK(pcre("a\\ b[ ]", kVerbose) == R"(a\ b[\ ])");
  CHECK(pcre("a{1, 2}", kVerbose) == R"(a\{1\,2\})");  // "{1, 2}" is no repeat
  CHECK(pcre("(?x) a (?-x: b ) c") == R"(a(?:\ b\ )c)");
}

TEST_CASE("flags settle as CPython reports them", "[builtins][re]") {
  CHECK(translate("a", 0).flags == kUnicode);
  CHECK(translate("(?i)a", 0).flags == (kIgnoreCase | kUnicode));
  CHECK(translate("(?a)a", 0).flags == kAscii);
  CHECK(translate("a", kAscii | kMultiline).flags == (kAscii | kMultiline));
  CHECK(pcre(R"(\s)") == R"([\s\x{1c}-\x{1f}])");  // str.isspace() holds \x1c-\x1f
  CHECK(pcre(R"(\s)", kAscii) == R"(\s)");
  CHECK(error_of("a", kLocale) == "ValueError: cannot use LOCALE flag with a str pattern");
  CHECK(error_of("a", kAscii | kUnicode) == "ValueError: ASCII and UNICODE flags are incompatible");
}

TEST_CASE("groups, names and the order groups close", "[builtins][re]") {
  Translation t = translate("(?P<outer>(?P<inner>a)(b))(?:c)(d)", 0);
  CHECK(t.groups == 4);
  REQUIRE(t.names.size() == 2);
  CHECK(t.names[0] == std::make_pair(std::string("outer"), size_t(1)));
  CHECK(t.names[1] == std::make_pair(std::string("inner"), size_t(2)));
  CHECK(t.close_rank == std::vector<size_t>{2, 0, 1, 3});
}

TEST_CASE("pattern errors carry CPython's message and position", "[builtins][re]") {
  CHECK(error_of("a(b") == "error: missing ), unterminated subpattern @1");
  CHECK(error_of("a)") == "error: unbalanced parenthesis @1");
  CHECK(error_of("a**") == "error: multiple repeat @2");
  CHECK(error_of("^*") == "error: nothing to repeat @1");
  CHECK(error_of("(*FAIL)") == "error: nothing to repeat @1");
  CHECK(error_of(R"(\K)") == R"(error: bad escape \K @0)");
  CHECK(error_of("(?R)") == "error: unknown extension ?R @1");
  CHECK(error_of("[z-a]") == "error: bad character range z-a @1");
  CHECK(error_of(R"((a\1))") == "error: cannot refer to an open group @2");
  CHECK(error_of("x|(?i)y") == "error: global flags not at the start of the expression @2");
  CHECK(error_of("a{4294967295}") == "OverflowError: the repetition number is too large");
  CHECK(error_of("a\\") == "error: bad escape (end of pattern) @1");
  CHECK(error_of(std::string(500, '(').c_str()) == "RecursionError: maximum recursion depth exceeded");
}

TEST_CASE("replacement templates split into text and group references", "[builtins][re]") {
  std::vector<std::pair<std::string, size_t>> names{{"word", 2}};
  auto pieces = parse_template(R"(<\g<word>|\1\g<0>\n\&\101>)", 2, names);
  REQUIRE(pieces.size() == 6);
  CHECK(pieces[0].text == "<");
  CHECK(pieces[1].group == 2);
  CHECK(pieces[2].text == "|");
  CHECK(pieces[3].group == 1);
  CHECK(pieces[4].group == 0);
  CHECK(pieces[5].text == "\n\\&A>");
  auto error = [&](const char* repl) {
    try {
      parse_template(repl, 2, names);
    } catch (const SyntaxError& e) {
      return (e.type.empty() ? "error" : e.type) + ": " + e.msg + (e.pos ? " @" + std::to_string(*e.pos) : "");
    }
    return std::string("no error");
  };
  CHECK(error(R"(\3)") == "error: invalid group reference 3 @1");
  CHECK(error(R"(\g<nope>)") == "IndexError: unknown group name 'nope'");
  CHECK(error(R"(\g<1)") == "error: missing >, unterminated name @3");
  CHECK(error(R"(\q)") == R"(error: bad escape \q @0)");
}
