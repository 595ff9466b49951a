// The grammar: precedence, every statement kind, literals and f-strings, locations, and a
// table of bad inputs with CPython 3.11's messages and positions.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "ast/source.hpp"
#include "grammar/parse.hpp"

using namespace shard;

namespace {

std::string strip_locs(const std::string& dump) { return std::regex_replace(dump, std::regex(" @\\d+:\\d+"), ""); }

std::string dump_module(const std::string& src, bool locs = false) {
  uint32_t id = ast::add_source("<test>", src);
  std::string d = ast::dump(grammar::parse_module(id));
  return locs ? d : strip_locs(d);
}

// The dump of a single expression statement's expression, without locations, on one line
// (nodes separated by "; ") so precedence tests read compactly.
std::string expr(const std::string& src) {
  uint32_t id = ast::add_source("<test>", src + "\n");
  ast::Module m = grammar::parse_module(id);
  REQUIRE(m.body.size() == 1);
  REQUIRE(m.body[0]->kind == ast::StmtKind::ExprStmt);
  std::string d = strip_locs(ast::dump(*m.body[0]->value));
  std::string out;
  std::istringstream lines(d);
  for (std::string line; std::getline(lines, line);) {
    size_t first = line.find_first_not_of(' ');
    if (!out.empty()) out += "; ";
    out += std::to_string(first / 2) + ":" + line.substr(first);
  }
  return out;
}

// Like dump_module, for statements that are only allowed inside a (nested) function and a loop.
std::string dump_in_loop(const std::string& src) {
  uint32_t id = ast::add_source("<test>", "def g():\n x = 1\n def f():\n  while x:\n    " + src);
  ast::Module m = grammar::parse_module(id);
  ast::Module inner;
  inner.body = m.body.at(0)->body.at(1)->body.at(0)->body;
  return strip_locs(ast::dump(inner));
}

std::string error_of(const std::string& src) {
  uint32_t id = ast::add_source("<test>", src);
  try {
    grammar::parse_module(id);
  } catch (const grammar::SyntaxError& e) {
    return e.kind + ": " + e.what() + " @" + std::to_string(e.loc.line) + ":" + std::to_string(e.loc.col);
  }
  return "OK";
}

}  // namespace

TEST_CASE("grammar: arithmetic precedence and associativity", "[grammar]") {
  CHECK(expr("1 + 2 * 3") == "0:BinOp +; 1:Int 1; 1:BinOp *; 2:Int 2; 2:Int 3");
  CHECK(expr("1 - 2 - 3") == "0:BinOp -; 1:BinOp -; 2:Int 1; 2:Int 2; 1:Int 3");
  CHECK(expr("2 ** 3 ** 2") == "0:BinOp **; 1:Int 2; 1:BinOp **; 2:Int 3; 2:Int 2");
  CHECK(expr("-2 ** 2") == "0:UnaryOp -; 1:BinOp **; 2:Int 2; 2:Int 2");
  CHECK(expr("2 ** -1") == "0:BinOp **; 1:Int 2; 1:UnaryOp -; 2:Int 1");
  CHECK(expr("a @ b // c % d / e") ==
        "0:BinOp /; 1:BinOp %; 2:BinOp //; 3:BinOp @; 4:Name a; 4:Name b; 3:Name c; 2:Name d; 1:Name e");
  CHECK(expr("a | b ^ c & d << e + f") ==
        "0:BinOp |; 1:Name a; 1:BinOp ^; 2:Name b; 2:BinOp &; 3:Name c; 3:BinOp <<; 4:Name d; 4:BinOp +; "
        "5:Name e; 5:Name f");
  CHECK(expr("~a + -b - +c") == "0:BinOp -; 1:BinOp +; 2:UnaryOp ~; 3:Name a; 2:UnaryOp -; 3:Name b; 1:UnaryOp +; 2:Name c");
  CHECK(expr("(1 + 2) * 3") == "0:BinOp *; 1:BinOp +; 2:Int 1; 2:Int 2; 1:Int 3");
}

TEST_CASE("grammar: boolean operators, not, comparisons", "[grammar]") {
  CHECK(expr("a or b and not c") == "0:BoolOp or; 1:Name a; 1:BoolOp and; 2:Name b; 2:UnaryOp not; 3:Name c");
  CHECK(expr("a or b or c") == "0:BoolOp or; 1:Name a; 1:Name b; 1:Name c");
  CHECK(expr("a < b <= c") == "0:Compare [<] [<=]; 1:Name a; 1:Name b; 1:Name c");
  CHECK(expr("a not in b") == "0:Compare [not in]; 1:Name a; 1:Name b");
  CHECK(expr("a is not b") == "0:Compare [is not]; 1:Name a; 1:Name b");
  CHECK(expr("a in b is c == d != e > f >= g") ==
        "0:Compare [in] [is] [==] [!=] [>] [>=]; 1:Name a; 1:Name b; 1:Name c; 1:Name d; 1:Name e; 1:Name f; 1:Name g");
  CHECK(expr("not a == b") == "0:UnaryOp not; 1:Compare [==]; 2:Name a; 2:Name b");
  CHECK(expr("(a < b) < c") == "0:Compare [<]; 1:Compare [<]; 2:Name a; 2:Name b; 1:Name c");
  CHECK(expr("a | b < c") == "0:Compare [<]; 1:BinOp |; 2:Name a; 2:Name b; 1:Name c");
}

TEST_CASE("grammar: conditional expressions, lambda, walrus", "[grammar]") {
  CHECK(expr("a if b else c if d else e") == "0:IfExp; 1:Name b; 1:Name a; 1:IfExp; 2:Name d; 2:Name c; 2:Name e");
  CHECK(expr("lambda: 0") == "0:Lambda; 1:body=Int 0");
  CHECK(expr("lambda x, y=2, *a, k, m=3, **kw: x") ==
        "0:Lambda; 1:param x; 1:param y; 2:default=Int 2; 1:param *a; 1:param kwonly k; 1:param kwonly m; "
        "2:default=Int 3; 1:param **kw; 1:body=Name x");
  CHECK(expr("lambda *, k: k") == "0:Lambda; 1:param kwonly k; 1:body=Name k");
  CHECK(expr("(y := f(x))") == "0:NamedExpr; 1:Name y; 1:Call; 2:func=Name f; 2:arg=Name x");
}

TEST_CASE("grammar: calls, attributes, subscripts and slices", "[grammar]") {
  CHECK(expr("f(a, b=1, *c, **d)") ==
        "0:Call; 1:func=Name f; 1:arg=Name a; 1:arg=Starred; 2:Name c; 1:kw b=Int 1; 1:kw **Name d");
  CHECK(expr("f(x for x in y)") == "0:Call; 1:func=Name f; 1:arg=GeneratorExp; 2:Name x; 2:for Name x; 2:in Name y");
  CHECK(expr("f()()") == "0:Call; 1:func=Call; 2:func=Name f");
  CHECK(expr("a.b.c") == "0:Attribute .c; 1:Attribute .b; 2:Name a");
  CHECK(expr("a[1]") == "0:Subscript; 1:Name a; 1:Int 1");
  CHECK(expr("a[1:2]") == "0:Subscript; 1:Name a; 1:Slice; 2:lower=Int 1; 2:upper=Int 2");
  CHECK(expr("a[::3]") == "0:Subscript; 1:Name a; 1:Slice; 2:step=Int 3");
  CHECK(expr("a[:]") == "0:Subscript; 1:Name a; 1:Slice");
  CHECK(expr("a[1:2, ::3, None, ...]") ==
        "0:Subscript; 1:Name a; 1:Tuple; 2:Slice; 3:lower=Int 1; 3:upper=Int 2; 2:Slice; 3:step=Int 3; "
        "2:NoneLit; 2:EllipsisLit");
  CHECK(expr("a[1,]") == "0:Subscript; 1:Name a; 1:Tuple; 2:Int 1");
  CHECK(expr("x.f(1)[0].g") == "0:Attribute .g; 1:Subscript; 2:Call; 3:func=Attribute .f; 4:Name x; 3:arg=Int 1; 2:Int 0");
}

TEST_CASE("grammar: displays and comprehensions", "[grammar]") {
  CHECK(expr("()") == "0:Tuple");
  CHECK(expr("(1,)") == "0:Tuple; 1:Int 1");
  CHECK(expr("1, 2") == "0:Tuple; 1:Int 1; 1:Int 2");
  CHECK(expr("[]") == "0:List");
  CHECK(expr("[1, *a,]") == "0:List; 1:Int 1; 1:Starred; 2:Name a");
  CHECK(expr("{}") == "0:Dict");
  CHECK(expr("{1: 2, **d}") == "0:Dict; 1:key=Int 1; 1:value=Int 2; 1:**; 1:value=Name d");
  CHECK(expr("{**d, 'k': v}") == "0:Dict; 1:**; 1:value=Name d; 1:key=Str 'k'; 1:value=Name v");
  CHECK(expr("{1, *s}") == "0:Set; 1:Int 1; 1:Starred; 2:Name s");
  CHECK(expr("[x for x in y if x if z for w in x]") ==
        "0:ListComp; 1:Name x; 1:for Name x; 1:in Name y; 1:if Name x; 1:if Name z; 1:for Name w; 1:in Name x");
  CHECK(expr("{k: v for k, v in d}") == "0:DictComp; 1:Name k; 1:Name v; 1:for Tuple; 2:Name k; 2:Name v; 1:in Name d");
  CHECK(expr("{x for x in y}") == "0:SetComp; 1:Name x; 1:for Name x; 1:in Name y");
  CHECK(expr("(x for x in y)") == "0:GeneratorExp; 1:Name x; 1:for Name x; 1:in Name y");
}

TEST_CASE("grammar: number and string literals", "[grammar]") {
  CHECK(expr("0x1F") == "0:Int 31");
  CHECK(expr("0o17") == "0:Int 15");
  CHECK(expr("0b101") == "0:Int 5");
  CHECK(expr("1_000_000") == "0:Int 1000000");
  CHECK(expr("1e-3") == "0:Float 0.001");
  CHECK(expr("8.") == "0:Float 8.0");
  CHECK(expr(".5") == "0:Float 0.5");
  CHECK(expr("1.5E+3") == "0:Float 1500.0");
  CHECK(expr("9223372036854775807") == "0:Int 9223372036854775807");
  CHECK(expr("True, False, None, ...") == "0:Tuple; 1:Bool True; 1:Bool False; 1:NoneLit; 1:EllipsisLit");
  CHECK(expr("'a' \"b\" '''c'''") == "0:Str 'abc'");
  CHECK(expr("'\\n\\t\\\\\\'\\x41\\u00e9\\101'") == "0:Str '\\n\\t\\\\\\'A\xC3\xA9" "A'");
  CHECK(expr("r'\\n'") == "0:Str '\\\\n'");
  CHECK(expr("'''a\nb'''") == "0:Str 'a\\nb'");
  CHECK(expr("'a\\\nb'") == "0:Str 'ab'");
  CHECK(expr("'\\q'") == "0:Str '\\\\q'");
}

TEST_CASE("grammar: f-strings", "[grammar]") {
  CHECK(expr("f'a{x}b'") == "0:FString; 1:Str 'a'; 1:FormattedValue; 2:value=Name x; 1:Str 'b'");
  CHECK(expr("f'{x!r}'") == "0:FString; 1:FormattedValue !r; 2:value=Name x");
  CHECK(expr("f'{x!s:>10}'") == "0:FString; 1:FormattedValue !s; 2:value=Name x; 2:spec=FString; 3:Str '>10'");
  CHECK(expr("f'{x:{w}.{p}f}'") ==
        "0:FString; 1:FormattedValue; 2:value=Name x; 2:spec=FString; 3:FormattedValue; 4:value=Name w; "
        "3:Str '.'; 3:FormattedValue; 4:value=Name p; 3:Str 'f'");
  CHECK(expr("f'{x=}'") == "0:FString; 1:FormattedValue !r text='x='; 2:value=Name x");
  CHECK(expr("f'{ x = }'") == "0:FString; 1:FormattedValue !r text=' x = '; 2:value=Name x");
  CHECK(expr("f'{x=:.2f}'") == "0:FString; 1:FormattedValue text='x='; 2:value=Name x; 2:spec=FString; 3:Str '.2f'");
  CHECK(expr("f'{x=!s}'") == "0:FString; 1:FormattedValue !s text='x='; 2:value=Name x");
  CHECK(expr("f'{{}}{a[\"k\"]}'") ==
        "0:FString; 1:Str '{}'; 1:FormattedValue; 2:value=Subscript; 3:Name a; 3:Str 'k'");
  CHECK(expr("f'{a != b}'") == "0:FString; 1:FormattedValue; 2:value=Compare [!=]; 3:Name a; 3:Name b");
  CHECK(expr("f'{x, y}'") == "0:FString; 1:FormattedValue; 2:value=Tuple; 3:Name x; 3:Name y");
  CHECK(expr("'a' f'{x}' 'b'") == "0:FString; 1:Str 'a'; 1:FormattedValue; 2:value=Name x; 1:Str 'b'");
  CHECK(expr("f'\\n{x}'") == "0:FString; 1:Str '\\n'; 1:FormattedValue; 2:value=Name x");
  CHECK(expr("rf'\\n{x}'") == "0:FString; 1:Str '\\\\n'; 1:FormattedValue; 2:value=Name x");
  CHECK(expr("f'''{\nx\n}'''") == "0:FString; 1:FormattedValue; 2:value=Name x");
}

TEST_CASE("grammar: simple statements", "[grammar]") {
  CHECK(dump_module("x = y = 1\n") == "Module\n  Assign\n    target=Name x\n    target=Name y\n    value=Int 1\n");
  CHECK(dump_module("(a, b), *c = f()\n") ==
        "Module\n  Assign\n    target=Tuple\n      Tuple\n        Name a\n        Name b\n      Starred\n        Name c\n"
        "    value=Call\n      func=Name f\n");
  CHECK(dump_module("x += 1\n") == "Module\n  AugAssign +=\n    target=Name x\n    value=Int 1\n");
  CHECK(dump_module("x **= 2\n") == "Module\n  AugAssign **=\n    target=Name x\n    value=Int 2\n");
  CHECK(dump_module("x: int = 5\n") ==
        "Module\n  AnnAssign\n    target=Name x\n    annotation=Name int\n    value=Int 5\n");
  CHECK(dump_module("a.b: int\n") ==
        "Module\n  AnnAssign\n    target=Attribute .b\n      Name a\n    annotation=Name int\n");
  CHECK(dump_in_loop("pass; break; continue\n") == "Module\n  Pass\n  Break\n  Continue\n");
  CHECK(dump_in_loop("return\n") == "Module\n  Return\n");
  CHECK(dump_in_loop("return 1, *a\n") ==
        "Module\n  Return\n    value=Tuple\n      Int 1\n      Starred\n        Name a\n");
  CHECK(dump_module("raise\n") == "Module\n  Raise\n");
  CHECK(dump_module("raise E('x') from e\n") ==
        "Module\n  Raise\n    exc=Call\n      func=Name E\n      arg=Str 'x'\n    cause=Name e\n");
  CHECK(dump_module("assert x, 'm'\n") == "Module\n  Assert\n    test=Name x\n    msg=Str 'm'\n");
  CHECK(dump_module("del a[0], b.c\n") ==
        "Module\n  Delete\n    target=Subscript\n      Name a\n      Int 0\n    target=Attribute .c\n      Name b\n");
  CHECK(dump_in_loop("global a, b; nonlocal x\n") == "Module\n  Global a b\n  Nonlocal x\n");
  CHECK(dump_module("import a.b as c, d\n") == "Module\n  Import\n    alias a.b as c\n    alias d\n");
  CHECK(dump_module("from . import x\n") == "Module\n  ImportFrom .\n    alias x\n");
  CHECK(dump_module("from ...p.q import (x as y, z,)\n") ==
        "Module\n  ImportFrom ...p.q\n    alias x as y\n    alias z\n");
  CHECK(dump_module("from m import *\n") == "Module\n  ImportFrom m\n    alias *\n");
  CHECK(dump_module("f(x)\n") == "Module\n  ExprStmt\n    value=Call\n      func=Name f\n      arg=Name x\n");
}

TEST_CASE("grammar: compound statements", "[grammar]") {
  CHECK(dump_module("if a:\n  x\nelif b:\n  y\nelse:\n  z\n") ==
        "Module\n  If\n    test=Name a\n    body:\n      ExprStmt\n        value=Name x\n    orelse:\n      If\n"
        "        test=Name b\n        body:\n          ExprStmt\n            value=Name y\n        orelse:\n"
        "          ExprStmt\n            value=Name z\n");
  CHECK(dump_module("if x: y\n") == "Module\n  If\n    test=Name x\n    body:\n      ExprStmt\n        value=Name y\n");
  CHECK(dump_module("while x:\n  break\nelse:\n  pass\n") ==
        "Module\n  While\n    test=Name x\n    body:\n      Break\n    orelse:\n      Pass\n");
  CHECK(dump_module("for i, (j, k) in z:\n  pass\nelse:\n  pass\n") ==
        "Module\n  For\n    target=Tuple\n      Name i\n      Tuple\n        Name j\n        Name k\n    iter=Name z\n"
        "    body:\n      Pass\n    orelse:\n      Pass\n");
  CHECK(dump_module("try:\n  a\nexcept (A, B) as e:\n  b\nexcept C:\n  c\nexcept:\n  d\nelse:\n  e\nfinally:\n  f\n") ==
        "Module\n  Try\n    body:\n      ExprStmt\n        value=Name a\n    except as e\n      type=Tuple\n"
        "        Name A\n        Name B\n      body:\n        ExprStmt\n          value=Name b\n    except\n"
        "      type=Name C\n      body:\n        ExprStmt\n          value=Name c\n    except\n      body:\n"
        "        ExprStmt\n          value=Name d\n    orelse:\n      ExprStmt\n        value=Name e\n    finally:\n"
        "      ExprStmt\n        value=Name f\n");
  CHECK(dump_module("with a as b, c as (d, e):\n  pass\n") ==
        "Module\n  With\n    with=Name a\n      as=Name b\n    with=Name c\n      as=Tuple\n        Name d\n"
        "        Name e\n    body:\n      Pass\n");
  CHECK(dump_module("with (a as b, c):\n  pass\n") ==
        "Module\n  With\n    with=Name a\n      as=Name b\n    with=Name c\n    body:\n      Pass\n");
  CHECK(dump_module("with (a) as b:\n  pass\n") == "Module\n  With\n    with=Name a\n      as=Name b\n    body:\n      Pass\n");
  CHECK(dump_module("@d\n@p(1)\ndef f(a, b=1, /, *args, c, d=2, **kw) -> int:\n  return a\n") ==
        "Module\n  FunctionDef f\n    decorator=Name d\n    decorator=Call\n      func=Name p\n      arg=Int 1\n"
        "    param a\n    param b\n      default=Int 1\n    param *args\n    param kwonly c\n    param kwonly d\n"
        "      default=Int 2\n    param **kw\n    body:\n      Return\n        value=Name a\n");
  CHECK(dump_module("def f(x: int = 1, *, y: str): pass\n") ==
        "Module\n  FunctionDef f\n    param x\n      default=Int 1\n    param kwonly y\n    body:\n      Pass\n");
  CHECK(dump_module("class A(B, metaclass=M):\n  x = 1\n") ==
        "Module\n  ClassDef A\n    base=Name B\n    kw metaclass=Name M\n    body:\n      Assign\n"
        "        target=Name x\n        value=Int 1\n");
  CHECK(dump_module("class A:\n  pass\n") == "Module\n  ClassDef A\n    body:\n      Pass\n");
}

TEST_CASE("grammar: locations point at the original source", "[grammar]") {
  std::string d = dump_module("x = (1 +\n     foo(a))\nif x:\n    y = f'{x}'\n", true);
  CHECK(d ==
        "Module\n  Assign @1:1\n    target=Name x @1:1\n    value=BinOp + @1:6\n      Int 1 @1:6\n"
        "      Call @2:6\n        func=Name foo @2:6\n        arg=Name a @2:10\n  If @3:1\n    test=Name x @3:4\n"
        "    body:\n      Assign @4:5\n        target=Name y @4:5\n        value=FString @4:9\n"
        "          FormattedValue @4:9\n            value=Name x @4:12\n");
  // parse_expression places its expression at `base`.
  ast::ExprP e = grammar::parse_expression("a +\n b", ast::Loc{3, 10, 5});
  CHECK(strip_locs(ast::dump(*e)) == "BinOp +\n  Name a\n  Name b\n");
  CHECK(e->a->loc.line == 10);
  CHECK(e->a->loc.col == 5);
  CHECK(e->b->loc.line == 11);
  CHECK(e->b->loc.col == 2);
  CHECK(e->loc.file == 3);
}

TEST_CASE("grammar: syntax errors have CPython's message and position", "[grammar]") {
  const std::vector<std::pair<std::string, std::string>> table = {
      {"x = 1 +\n", "SyntaxError: invalid syntax @1:8"},
      {"a b\n", "SyntaxError: invalid syntax @1:3"},
      {"x = $\n", "SyntaxError: invalid syntax @1:5"},
      {"a = 1; ; b\n", "SyntaxError: invalid syntax @1:8"},
      {"if x\n  pass\n", "SyntaxError: expected ':' @1:5"},
      {"def f()\n  pass\n", "SyntaxError: expected ':' @1:8"},
      {"if x:\npass\n", "IndentationError: expected an indented block after 'if' statement on line 1 @2:1"},
      {"def f():\n", "IndentationError: expected an indented block after function definition on line 1 @1:9"},
      {"for x in y:\n  pass\nelse:\nz", "IndentationError: expected an indented block after 'else' statement on line 3 @4:1"},
      {"class A:\nx", "IndentationError: expected an indented block after class definition on line 1 @2:1"},
      {"try:\n x\nexcept:\ny", "IndentationError: expected an indented block after 'except' statement on line 3 @4:1"},
      {"if x:\n  if y:\n", "IndentationError: expected an indented block after 'if' statement on line 2 @2:8"},
      {" x=1\n", "IndentationError: unexpected indent @1:1"},
      {"a = 1\n  b = 2\n", "IndentationError: unexpected indent @2:2"},
      {"f(\n", "SyntaxError: '(' was never closed @1:2"},
      {"x = [1, 2\ny = 3\n", "SyntaxError: '[' was never closed @1:5"},
      {"f() = 1", "SyntaxError: cannot assign to function call here. Maybe you meant '==' instead of '='? @1:1"},
      {"1 = x", "SyntaxError: cannot assign to literal here. Maybe you meant '==' instead of '='? @1:1"},
      {"x = f() = 1", "SyntaxError: cannot assign to function call @1:5"},
      {"(a, f()) = 1", "SyntaxError: cannot assign to function call @1:5"},
      {"True = 1", "SyntaxError: cannot assign to True @1:1"},
      {"f() += 1", "SyntaxError: 'function call' is an illegal expression for augmented assignment @1:1"},
      {"[a, b] += 1", "SyntaxError: 'list' is an illegal expression for augmented assignment @1:1"},
      {"for f() in x: pass", "SyntaxError: cannot assign to function call @1:5"},
      {"with a as f(): pass", "SyntaxError: cannot assign to function call @1:11"},
      {"del f()", "SyntaxError: cannot delete function call @1:5"},
      {"(a, b): int", "SyntaxError: only single target (not tuple) can be annotated @1:1"},
      {"*a", "SyntaxError: can't use starred expression here @1:1"},
      {"*a = 1", "SyntaxError: starred assignment target must be in a list or tuple @1:1"},
      {"[*a for a in b]", "SyntaxError: iterable unpacking cannot be used in comprehension @1:2"},
      {"def f(a=1, b): pass", "SyntaxError: non-default argument follows default argument @1:12"},
      {"def f(*, **k): pass", "SyntaxError: named arguments must follow bare * @1:7"},
      {"def f(a, a): pass", "SyntaxError: duplicate argument 'a' in function definition @1:10"},
      {"f(**k, *a)", "SyntaxError: iterable argument unpacking follows keyword argument unpacking @1:8"},
      {"f(x=1, x=2)", "SyntaxError: keyword argument repeated: x @1:8"},
      {"f(a for a in b, c)", "SyntaxError: Generator expression must be parenthesized @1:3"},
      {"f(a for a in b, )", "SyntaxError: Generator expression must be parenthesized @1:3"},
      {"try:\n x\ny=1", "SyntaxError: expected 'except' or 'finally' block @3:1"},
      {"try:\n x\nexcept:\n y\nexcept A:\n z", "SyntaxError: default 'except:' must be last @3:1"},
      {"x = (a + b c)", "SyntaxError: invalid syntax. Perhaps you forgot a comma? @1:6"},
      {"x = (1,\n 2 3)", "SyntaxError: invalid syntax. Perhaps you forgot a comma? @2:2"},
      {"print \"x\"", "SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)? @1:1"},
      {"x = 0777", "SyntaxError: leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
                  "octal integers @1:5"},
      {"x = 1abc", "SyntaxError: invalid decimal literal @1:5"},
      {"x = 1__0", "SyntaxError: invalid decimal literal @1:6"},
      {"f'{}'", "SyntaxError: f-string: empty expression not allowed @1:4"},
      {"f'{x!z}'", "SyntaxError: f-string: invalid conversion character: expected 's', 'r', or 'a' @1:6"},
      {"f'}'", "SyntaxError: f-string: single '}' is not allowed @1:3"},
      {"f'{a b}'", "SyntaxError: f-string: invalid syntax @1:6"},
      {"x = 'a' b'c'", "SyntaxError: cannot mix bytes and nonbytes literals @1:5"},
      {"x = a if b", "SyntaxError: expected 'else' after 'if' expression @1:11"},
      {"def f():\n  def g():\n    nonlocal x", "SyntaxError: no binding for nonlocal 'x' found @3:5"},
      {"def f():\n  x = 1\n  def g():\n    nonlocal x", "OK"},
      {"def f(x):\n  nonlocal x", "SyntaxError: name 'x' is parameter and nonlocal @2:3"},
      {"return 1", "SyntaxError: 'return' outside function @1:1"},
      {"class A:\n  return 1", "SyntaxError: 'return' outside function @2:3"},
      {"for x in y:\n  pass\nelse:\n  break", "SyntaxError: 'break' outside loop @4:3"},
      {"while 1:\n  def f():\n    continue", "SyntaxError: 'continue' not properly in loop @3:5"},
      {"nonlocal x", "SyntaxError: nonlocal declaration not allowed at module level @1:1"},
      {"def f():\n  x = yield\n  y = yield 1, 2\n  z = yield from g()\n  w += (yield)\n  yield", "OK"},
      {"match x:\n  case 1: pass", "SyntaxError: match statements are not supported by shard @1:1"},
      {"x = 1.5j + 1_0J + 1e3j", "OK"},
      {"x = 0x1j", "SyntaxError: invalid hexadecimal literal @1:8"},
      {"def f: pass", "SyntaxError: expected '(' @1:6"},
      {"try x: pass", "SyntaxError: expected ':' @1:5"},
      {"x = 0b102", "SyntaxError: invalid digit '2' in binary literal @1:9"},
      {"  x = 1\ny = 'abc", "IndentationError: unexpected indent @1:2"},
      {"x = 1 2\ny = 'abc", "SyntaxError: unterminated string literal (detected at line 2) @2:5"},
      {"def f(:\n  pass", "SyntaxError: invalid syntax @1:7"},
      {"f(1,\n2 3", "SyntaxError: '(' was never closed @1:2"},
      {"x = 1 \xE2\x86\x90 2", "SyntaxError: invalid character '\xE2\x86\x90' (U+2190) @1:7"},
      {"x\xC2\xA0= 1", "SyntaxError: invalid non-printable character U+00A0 @1:2"},
      {"\xCF\x80 = 3.14\nx = '\xE2\x86\x90'", "OK"},
  };
  for (const auto& [src, want] : table) {
    INFO(src);
    CHECK(error_of(src) == want);
  }
}

TEST_CASE("grammar: deep nesting is a SyntaxError, never a crash", "[grammar]") {
  CHECK(error_of("x = " + std::string(201, '(') + "1" + std::string(201, ')')) ==
        "SyntaxError: too many nested parentheses @1:205");
  CHECK(error_of("x = " + std::string(200, '(') + "1" + std::string(200, ')')) == "OK");
  std::string unary = "x = " + std::string(5000, '-') + "1";
  CHECK(error_of(unary).find("expression nested too deeply") != std::string::npos);
  std::string nots;
  for (int i = 0; i < 3000; ++i) nots += "not ";
  CHECK(error_of("x = " + nots + "y").find("expression nested too deeply") != std::string::npos);
  std::string chain = "x = a";
  for (int i = 0; i < 20000; ++i) chain += " + a";
  CHECK(error_of(chain) == "OK");
}

// A golden test fed to the REPL: `# shard-args: repl` among its leading comment lines (the
// first line of every golden is its provenance line).
static bool is_repl_session(const std::string& src) {
  std::istringstream in(src);
  for (std::string line; std::getline(in, line) && line.rfind('#', 0) == 0;)
    if (line.rfind("# shard-args: repl", 0) == 0) return true;
  return false;
}

TEST_CASE("grammar: every golden program parses", "[grammar]") {
  namespace fs = std::filesystem;
  // __FILE__ is relative to the build directory (meson) or absolute.
  fs::path dir = fs::path(__FILE__).parent_path().parent_path() / "golden";
  for (const char* alt : {"../tests/golden", "tests/golden"})
    if (!fs::exists(dir)) dir = alt;
  if (!fs::exists(dir)) {
    WARN("no golden directory at " << dir.string());
    return;
  }
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".shard") continue;
    // Programs whose expected output is a syntax error are not meant to parse.
    std::ifstream expected(fs::path(entry.path()).replace_extension(".out"));
    std::stringstream out;
    out << expected.rdbuf();
    if (out.str().find("SyntaxError") != std::string::npos || out.str().find("IndentationError") != std::string::npos ||
        out.str().find("TabError") != std::string::npos)
      continue;
    std::ifstream f(entry.path());
    std::stringstream ss;
    ss << f.rdbuf();
    if (is_repl_session(ss.str())) continue;  // `:` commands, not programs
    INFO(entry.path().string());
    CHECK(error_of(ss.str()) == "OK");
    ++count;
  }
  CHECK(count > 0);
}
