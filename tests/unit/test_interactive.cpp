// Interp::run_interactive (the REPL's chunks: which expression values are displayed and
// which one comes back), Interp::display and Interp::clear_interrupt.
#include <catch2/catch.hpp>

#include <iostream>
#include <sstream>
#include <string>

#include "interp/interp.hpp"

using namespace shard::interp;

namespace {

// Captures std::cout while alive.
struct CaptureStdout {
  std::ostringstream buf;
  std::streambuf* old;
  CaptureStdout() : old(std::cout.rdbuf(buf.rdbuf())) {}
  ~CaptureStdout() { std::cout.rdbuf(old); }
};

}  // namespace

TEST_CASE("run_interactive displays earlier expression statements and returns the last", "[interactive]") {
  Interp I;
  CaptureStdout out;
  Value v = I.run_interactive("<stdin>", "x = 41\nprint(x); x * 2; None; 'a'\n");
  CHECK(out.buf.str() == "41\n82\n");  // print's output, then 82; None is not shown
  CHECK(I.repr(v) == "'a'");           // the last one is the caller's to display
  CHECK(I.repr(I.getattr(I.builtins(), "_")) == "82");
}

TEST_CASE("run_interactive echoes nested statements but not function or class bodies", "[interactive]") {
  Interp I;
  CaptureStdout out;
  Value v = I.run_interactive("<stdin>", "for i in range(3):\n    i * 10\n");
  CHECK(is(v, ObjKind::None));
  v = I.run_interactive("<stdin>", "class C:\n    5\ndef f():\n    6\n    return 7\n");
  CHECK(is(v, ObjKind::None));
  v = I.run_interactive("<stdin>", "f()\n");
  CHECK(out.buf.str() == "0\n10\n20\n");
  CHECK(I.repr(v) == "7");
}

TEST_CASE("run_interactive without echo shows nothing and returns None", "[interactive]") {
  Interp I;
  CaptureStdout out;
  Value v = I.run_interactive("<embed>", "1\n2\n", false);
  CHECK(out.buf.str().empty());
  CHECK(is(v, ObjKind::None));
}

TEST_CASE("display prints repr and binds _, skipping None", "[interactive]") {
  Interp I;
  CaptureStdout out;
  I.display(none());
  I.display(make_str("hi"));
  CHECK(out.buf.str() == "'hi'\n");
  CHECK(I.repr(I.getattr(I.builtins(), "_")) == "'hi'");
}

TEST_CASE("clear_interrupt forgets a pending Ctrl-C", "[interactive]") {
  Interp I;
  request_interrupt();
  I.clear_interrupt();
  CHECK_NOTHROW(I.run_interactive("<stdin>", "for i in range(3):\n    pass\n", false));
  // Without clearing, the next loop iteration raises KeyboardInterrupt.
  request_interrupt();
  try {
    I.run_interactive("<stdin>", "for i in range(3):\n    pass\n", false);
    FAIL("expected KeyboardInterrupt");
  } catch (const PyError& e) {
    CHECK(I.type_name(e.exc) == "KeyboardInterrupt");
  }
}
