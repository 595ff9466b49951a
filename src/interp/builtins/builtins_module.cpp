// init_builtins_module: fills the `builtins` module with the classes, functions, constants
// and exception classes; and register_host_modules.
#include "interp/builtins/support.hpp"

namespace shard::interp {

namespace bi {
void add_help_function(ModuleObj& m);  // help.cpp
}  // namespace bi

void init_builtins_module(Interp& I, ModuleObj& m) {
  auto& t = T();
  std::pair<const char*, ClassP> classes[] = {
      {"object", t.object}, {"type", t.type}, {"int", t.int_}, {"bool", t.bool_}, {"float", t.float_},
      {"complex", t.complex},
      {"str", t.str}, {"tuple", t.tuple}, {"list", t.list}, {"dict", t.dict}, {"set", t.set},
      {"frozenset", t.frozenset}, {"range", t.range}, {"slice", t.slice}, {"property", t.property},
      {"staticmethod", t.staticmethod}, {"classmethod", t.classmethod}, {"super", t.super_},
      {"BaseException", t.base_exception}, {"Exception", t.exception},
  };
  for (auto& [name, c] : classes) m.dict.set(name, c);
  for (const char* name :
       {"GeneratorExit", "KeyboardInterrupt", "SystemExit", "ArithmeticError", "FloatingPointError", "OverflowError",
        "ZeroDivisionError", "AssertionError", "AttributeError", "BufferError", "EOFError", "ImportError",
        "ModuleNotFoundError", "LookupError", "IndexError", "KeyError", "MemoryError", "NameError",
        "UnboundLocalError", "OSError", "BlockingIOError", "ChildProcessError", "ConnectionError", "BrokenPipeError",
        "ConnectionAbortedError", "ConnectionRefusedError", "ConnectionResetError", "FileExistsError",
        "FileNotFoundError", "InterruptedError", "IsADirectoryError", "NotADirectoryError", "PermissionError",
        "ProcessLookupError", "TimeoutError", "ReferenceError", "RuntimeError", "NotImplementedError",
        "RecursionError", "StopAsyncIteration", "StopIteration", "SyntaxError", "IndentationError", "TabError",
        "SystemError", "TypeError", "ValueError", "UnicodeError", "UnicodeDecodeError", "UnicodeEncodeError",
        "UnicodeTranslateError", "Warning", "BytesWarning", "DeprecationWarning", "EncodingWarning", "FutureWarning",
        "ImportWarning", "PendingDeprecationWarning", "ResourceWarning", "RuntimeWarning", "SyntaxWarning",
        "UnicodeWarning", "UserWarning"})
    m.dict.set(name, bi::exc_class(name));
  m.dict.set("EnvironmentError", bi::exc_class("OSError"));
  m.dict.set("IOError", bi::exc_class("OSError"));
  m.dict.set("None", none());
  m.dict.set("True", make_bool(true));
  m.dict.set("False", make_bool(false));
  m.dict.set("NotImplemented", not_implemented());
  m.dict.set("Ellipsis", ellipsis());
  m.dict.set("__debug__", make_bool(true));
  bi::add_core_functions(I, m);
  bi::add_iter_functions(I, m);
  bi::add_numeric_functions(I, m);
  bi::add_help_function(m);
}

void register_host_modules() {
  static bool done = false;
  if (done) return;
  done = true;
  bi::register_math_module();
  bi::register_cmath_module();
  bi::register_functools_module();
  bi::register_sys_os_time_modules();
  bi::register_collections_module();
  bi::register_itertools_module();
  bi::register_typing_modules();
  bi::register_copy_module();
  bi::register_random_module();
  bi::register_string_operator_bisect_heapq_modules();
  bi::register_json_module();
  bi::register_re_module();
  bi::register_enum_module();
  bi::register_abc_module();
  bi::register_textwrap_module();
  bi::register_gc_module();
}

}  // namespace shard::interp
