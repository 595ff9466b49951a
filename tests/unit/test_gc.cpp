// The cycle collector (interp/gc.hpp): cycles among host objects are freed by a collection
// and at interpreter teardown; objects reachable from C++ variables or other live objects
// never are; every traversal reports only references its object holds.
#include <catch2/catch.hpp>

#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "api/modules/registration.hpp"
#include "interp/gc.hpp"
#include "interp/interp.hpp"

using namespace shard::interp;

namespace {

// A self-referential list, and an observer that says whether it still exists.
std::weak_ptr<Object> make_self_cycle() {
  Value l = make_list({});
  static_cast<ListObj&>(*l).items.push_back(l);
  return l;
}

std::string run(Interp& I, const std::string& src) {
  std::ostringstream buf;
  std::streambuf* old = std::cout.rdbuf(buf.rdbuf());
  try {
    I.run_source("t.shard", src);
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  return buf.str();
}

}  // namespace

TEST_CASE("gc frees a cycle nothing outside references", "[gc]") {
  Interp I;  // the built-in types exist
  std::weak_ptr<Object> w = make_self_cycle();
  REQUIRE_FALSE(w.expired());
  REQUIRE(gc::collect() >= 1);
  REQUIRE(w.expired());
}

TEST_CASE("gc keeps a cycle a C++ variable still holds", "[gc]") {
  Interp I;
  Value outer = make_list({});
  Value inner = make_list({outer});
  static_cast<ListObj&>(*outer).items.push_back(inner);  // outer <-> inner
  std::weak_ptr<Object> w = inner;
  inner.reset();
  gc::collect();
  REQUIRE_FALSE(w.expired());  // reached through `outer`
  REQUIRE(static_cast<ListObj&>(*outer).items.size() == 1);
  outer.reset();
  gc::collect();
  REQUIRE(w.expired());
}

TEST_CASE("gc keeps what only an untracked object references", "[gc]") {
  Interp I;
  Value l = make_list({});
  static_cast<ListObj&>(*l).items.push_back(l);
  std::weak_ptr<Object> w = l;
  // A builtin bound to it is not tracked: its reference counts as one from outside.
  Value b = make_builtin("f", [](Interp&, CallArgs&) { return none(); });
  static_cast<BuiltinObj&>(*b).self = l;
  l.reset();
  gc::collect();
  REQUIRE_FALSE(w.expired());
  b.reset();
  gc::collect();
  REQUIRE(w.expired());
}

TEST_CASE("gc traversals report no reference an object does not hold", "[gc]") {
  shard::api::register_api_modules();  // jax, for jitted functions and custom_jvp
  Interp I;
  run(I, R"(
import functools, collections
import jax, jax.numpy as jnp
class Node:
    def __init__(self, nxt): self.nxt = nxt; self.me = self
    @property
    def p(self): return 1
    @staticmethod
    def s(): return 2
def outer():
    x = [1]
    def inner(): return x
    return inner
keep = [Node(None) for _ in range(3)]
keep.append(Node(keep))
d = {'a': keep, 'b': (keep, keep)}
d['d'] = d
fns = [outer(), functools.partial(outer), functools.lru_cache(outer), keep[0].p, Node.s]
m = keep[0].__init__
s = {1, 2, (3, 4)}
f = jax.jit(lambda a: a * 2)
f(jnp.ones(3))
g = jax.custom_jvp(lambda a: a)
try:
    raise ValueError('x')
except ValueError as e:
    err = e
)");
  REQUIRE(gc::inconsistent_objects() == 0);
  gc::collect();
  REQUIRE(gc::inconsistent_objects() == 0);
  REQUIRE(run(I, "print(len(keep), keep[3].nxt is keep, d['d'] is d, fns[0](), err)\n") ==
          "4 True True [1] x\n");
}

TEST_CASE("gc frees cycles a program leaves, and the interpreter's at teardown", "[gc]") {
  std::weak_ptr<Object> main_module, cyclic;
  {
    Interp I;
    run(I, R"(
import gc
class C:
    pass
for i in range(100):
    c = C(); c.me = c
    l = []; l.append(l)
del c, l
print(gc.collect() >= 200)
def f(): return f
)");
    main_module = I.main_module();
    Value* f = I.main_module()->dict.find("f");
    REQUIRE(f);
    cyclic = *f;
  }
  REQUIRE(main_module.expired());
  REQUIRE(cyclic.expired());
}

TEST_CASE("gc runs automatically as tracked objects grow", "[gc]") {
  Interp I;
  gc::Stats before = gc::stats();
  run(I, R"(
for i in range(50000):
    l = [i]; l.append(l)
)");
  gc::Stats after = gc::stats();
  REQUIRE(after.collections > before.collections);
  REQUIRE(after.collected - before.collected >= 40000);
  REQUIRE(gc::count_since_collection() < 50000);
}
