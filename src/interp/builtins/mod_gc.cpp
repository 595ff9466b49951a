// The `gc` module over the cycle collector (interp/gc.hpp): collect, enable / disable /
// isenabled, get_count, get_threshold / set_threshold, and `garbage` (always empty: the
// collector frees every cycle it finds, as CPython 3.4+ does for objects without
// uncollectable finalizers).
#include "interp/builtins/support.hpp"
#include "interp/gc.hpp"

namespace shard::interp::bi {

namespace {

int64_t int_arg(Interp& I, const Value& v, const char* fname) {
  auto n = int_of(v);
  if (!n) I.raise("TypeError", std::string("'") + I.type_name(v) + "' object cannot be interpreted as an integer");
  return *n;
}

void fill_gc(Interp& I, ModuleObj& m) {
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  add("collect", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "collect", {"generation="});
    if (Value g = p.get("generation")) {
      int64_t gen = int_arg(I, g, "collect");
      if (gen < 0 || gen > 2) I.raise("ValueError", "invalid generation");
    }
    return make_int(int64_t(gc::collect()));
  });
  add("enable", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "enable", 0, 0);
    gc::set_enabled(true);
    return none();
  });
  add("disable", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "disable", 0, 0);
    gc::set_enabled(false);
    return none();
  });
  add("isenabled", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "isenabled", 0, 0);
    return make_bool(gc::enabled());
  });
  // One generation: the second and third counts are always 0.
  add("get_count", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "get_count", 0, 0);
    return make_tuple({make_int(int64_t(gc::count_since_collection())), make_int(0), make_int(0)});
  });
  add("get_threshold", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "get_threshold", 0, 0);
    return make_tuple({make_int(int64_t(gc::threshold())), make_int(10), make_int(10)});
  });
  // threshold0 is the least growth of tracked objects between automatic collections; 0
  // turns them off, as in CPython. threshold1/2 (older generations) are accepted and unused.
  add("set_threshold", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "set_threshold", 1, 3);
    for (auto& v : a.args) int_arg(I, v, "set_threshold");
    int64_t t0 = *int_of(a.args[0]);
    gc::set_threshold(t0 < 0 ? 0 : size_t(t0));
    return none();
  });
  m.dict.set("garbage", make_list({}));
}

}  // namespace

void register_gc_module() { Interp::register_builtin_module("gc", fill_gc); }

}  // namespace shard::interp::bi
