// The `sys`, `os` (with os.path and an environ dict that writes through to the process
// environment) and `time` modules.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <csignal>
#include <cstring>
#include <thread>

#include "interp/builtins/dict_common.hpp"

extern char** environ;

namespace shard::interp::bi {

namespace {

namespace fs = std::filesystem;

// ---- sys ----

void fill_sys(Interp& I, ModuleObj& m) {
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  std::vector<Value> argv;
  for (auto& s : I.options().argv) argv.push_back(make_str(s));
  m.dict.set("argv", make_list(std::move(argv)));
  std::vector<Value> path;
  for (auto& s : I.options().module_path) path.push_back(make_str(s));
  m.dict.set("path", make_list(std::move(path)));
  m.dict.set("version", make_str("3.11 (shard)"));
  m.dict.set("version_info", make_tuple({make_int(3), make_int(11), make_int(0), make_str("final"), make_int(0)}));
  m.dict.set("maxsize", make_int(INT64_MAX));
  m.dict.set("platform", make_str("linux"));
  m.dict.set("byteorder", make_str("little"));
  m.dict.set("executable", make_str(""));
  m.dict.set("stdout", make_stream(&std::cout, "stdout"));
  m.dict.set("stderr", make_stream(&std::cerr, "stderr"));
  m.dict.set("__stdout__", *m.dict.find("stdout"));
  m.dict.set("__stderr__", *m.dict.find("stderr"));
  m.dict.set("modules", make_dict());
  add("exit", [](Interp& I, CallArgs& a) -> Value {
    func_nargs(I, a, "exit", 0, 1);
    Value exc = I.call(exc_class("SystemExit"), a.args);
    if (exc->kind == ObjKind::Instance && static_cast<InstanceObj&>(*exc).exc)
      static_cast<InstanceObj&>(*exc).exc->loc = I.current_loc();
    throw PyError{exc};
  });
  add("getrecursionlimit", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "getrecursionlimit", 0, 0);
    return make_int(1000);
  });
  add("setrecursionlimit", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "setrecursionlimit", 1, 1);
    if (index_of(I, a.args[0], "") < 1) I.raise("ValueError", "recursion limit must be greater or equal than 1");
    return none();
  });
  add("intern", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "intern", 1, 1);
    str_arg(I, a.args[0], "intern() argument");
    return a.args[0];
  });
  add("getsizeof", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "getsizeof", 1, 2);
    return make_int(64);
  });
}

// ---- os ----

ClassP g_environ_cls;

void setenv_checked(Interp& I, const Value& k, const Value& v) {
  auto* ks = str_of(k);
  auto* vs = str_of(v);
  if (!ks) I.raise("TypeError", fmt::format("str expected, not {}", I.type_name(k)));
  if (!vs) I.raise("TypeError", fmt::format("str expected, not {}", I.type_name(v)));
  ::setenv(ks->v.c_str(), vs->v.c_str(), 1);
}

void init_environ_class() {
  g_environ_cls = native_class("_Environ", T().dict, "os", ObjKind::Dict);
  def(g_environ_cls, "__setitem__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "__setitem__", 2, 2);
    auto& d = self_dict(I, a, "__setitem__");
    setenv_checked(I, a.args[1], a.args[2]);
    d.set(I, a.args[1], a.args[2]);
    return none();
  });
  def(g_environ_cls, "__delitem__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "__delitem__", 1, 1);
    auto& d = self_dict(I, a, "__delitem__");
    if (!d.erase(I, a.args[1])) raise_key_error(I, a.args[1]);
    if (auto* s = str_of(a.args[1])) ::unsetenv(s->v.c_str());
    return none();
  });
  def(g_environ_cls, "update", [](Interp& I, CallArgs& a) {
    auto& d = self_dict(I, a, "update");
    auto tmp = make_dict();
    CallArgs b = args_without_self(a);
    dict_from_args(I, tmp, b, 0, "update");
    for (auto& [k, v] : tmp->items()) {
      setenv_checked(I, k, v);
      d.set(I, k, v);
    }
    return none();
  });
  def(g_environ_cls, "setdefault", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "setdefault", 1, 2);
    auto& d = self_dict(I, a, "setdefault");
    if (Value* v = d.find(I, a.args[1])) return *v;
    Value dflt = a.args.size() > 2 ? a.args[2] : none();
    setenv_checked(I, a.args[1], dflt);
    d.set(I, a.args[1], dflt);
    return dflt;
  });
  def(g_environ_cls, "pop", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "pop", 1, 2);
    auto& d = self_dict(I, a, "pop");
    if (Value* v = d.find(I, a.args[1])) {
      Value out = *v;
      d.erase(I, a.args[1]);
      if (auto* s = str_of(a.args[1])) ::unsetenv(s->v.c_str());
      return out;
    }
    if (a.args.size() > 2) return a.args[2];
    raise_key_error(I, a.args[1]);
  });
  def(g_environ_cls, "__repr__", [](Interp& I, CallArgs& a) {
    auto& d = self_dict(I, a, "__repr__");
    return make_str("environ(" + dict_repr(I, &d, d) + ")");
  });
  def(g_environ_cls, "copy", [](Interp& I, CallArgs& a) -> Value {
    auto& d = self_dict(I, a, "copy");
    auto r = make_dict();
    for (auto& [k, v] : d.items()) r->set(I, k, v);
    return r;
  });
}

const std::string& path_arg(Interp& I, const Value& v, const char* fname) {
  auto* s = str_of(v);
  if (!s) I.raise("TypeError", fmt::format("{}: path should be string, bytes or os.PathLike, not {}", fname, I.type_name(v)));
  return s->v;
}

std::string path_join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (i == 0) out = p;
    else if (!p.empty() && p[0] == '/') out = p;
    else if (out.empty() || out.back() == '/') out += p;
    else out += "/" + p;
  }
  return out;
}

void fill_path(Interp&, ModuleObj& m) {
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  m.dict.set("sep", make_str("/"));
  add("join", [](Interp& I, CallArgs& a) {
    no_kwargs(I, a, "join");
    if (a.args.empty()) I.raise("TypeError", "join() missing 1 required positional argument: 'a'");
    std::vector<std::string> parts;
    for (auto& v : a.args) parts.push_back(path_arg(I, v, "join"));
    return make_str(path_join(parts));
  });
  // exists / isfile / isdir: a filesystem test, false when the path cannot be examined.
  using PathTest = bool (*)(const fs::path&, std::error_code&);
  auto add_test = [&](const char* name, PathTest test) {
    add(name, [name, test](Interp& I, CallArgs& a) {
      func_nargs(I, a, name, 1, 1);
      std::error_code ec;
      return make_bool(test(path_arg(I, a.args[0], name), ec));
    });
  };
  add_test("exists", [](const fs::path& p, std::error_code& ec) { return fs::exists(p, ec); });
  add_test("isfile", [](const fs::path& p, std::error_code& ec) { return fs::is_regular_file(p, ec); });
  add_test("isdir", [](const fs::path& p, std::error_code& ec) { return fs::is_directory(p, ec); });
  add("basename", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "basename", 1, 1);
    const std::string& p = path_arg(I, a.args[0], "basename");
    auto i = p.rfind('/');
    return make_str(i == std::string::npos ? p : p.substr(i + 1));
  });
  add("dirname", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "dirname", 1, 1);
    const std::string& p = path_arg(I, a.args[0], "dirname");
    auto i = p.rfind('/');
    if (i == std::string::npos) return make_str("");
    std::string head = p.substr(0, i + 1);
    if (head.find_first_not_of('/') != std::string::npos)
      while (!head.empty() && head.back() == '/') head.pop_back();
    return make_str(head);
  });
  add("split", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "split", 1, 1);
    const std::string& p = path_arg(I, a.args[0], "split");
    auto i = p.rfind('/');
    if (i == std::string::npos) return make_tuple({make_str(""), make_str(p)});
    std::string head = p.substr(0, i + 1);
    if (head.find_first_not_of('/') != std::string::npos)
      while (!head.empty() && head.back() == '/') head.pop_back();
    return make_tuple({make_str(head), make_str(p.substr(i + 1))});
  });
  add("splitext", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "splitext", 1, 1);
    const std::string& p = path_arg(I, a.args[0], "splitext");
    auto slash = p.rfind('/');
    size_t base = slash == std::string::npos ? 0 : slash + 1;
    auto dot = p.rfind('.');
    if (dot == std::string::npos || dot < base) return make_tuple({make_str(p), make_str("")});
    size_t first_non_dot = p.find_first_not_of('.', base);
    if (first_non_dot == std::string::npos || dot < first_non_dot) return make_tuple({make_str(p), make_str("")});
    return make_tuple({make_str(p.substr(0, dot)), make_str(p.substr(dot))});
  });
  add("abspath", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "abspath", 1, 1);
    std::error_code ec;
    return make_str(fs::absolute(path_arg(I, a.args[0], "abspath"), ec).lexically_normal().string());
  });
  add("expanduser", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "expanduser", 1, 1);
    std::string p = path_arg(I, a.args[0], "expanduser");
    const char* home = std::getenv("HOME");
    if (home && !p.empty() && p[0] == '~' && (p.size() == 1 || p[1] == '/')) p = home + p.substr(1);
    return make_str(p);
  });
}

void fill_os(Interp& I, ModuleObj& m) {
  if (!g_environ_cls) init_environ_class();
  auto env = std::make_shared<DictObj>(g_environ_cls);
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    env->set(I, make_str(kv.substr(0, eq)), make_str(kv.substr(eq + 1)));
  }
  m.dict.set("environ", env);
  auto path = std::make_shared<ModuleObj>(T().module, "posixpath");
  fill_path(I, *path);
  m.dict.set("path", path);
  m.dict.set("sep", make_str("/"));
  m.dict.set("linesep", make_str("\n"));
  m.dict.set("name", make_str("posix"));
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  add("getenv", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "getenv", {"key", "default="});
    const char* v = std::getenv(str_arg(I, p.get("key"), "str expected, not").c_str());
    if (v) return make_str(v);
    return p.has("default") ? p.get("default") : none();
  });
  add("getcwd", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "getcwd", 0, 0);
    std::error_code ec;
    return make_str(fs::current_path(ec).string());
  });
  add("getpid", [](Interp&, CallArgs&) { return make_int(int64_t(::getpid())); });
  add("_exit", [](Interp& I, CallArgs& a) -> Value {  // no cleanup, no flushing: CPython's os._exit
    func_nargs(I, a, "_exit", 1, 1);
    std::_Exit(static_cast<int>(index_of(I, a.args[0], "_exit")));
  });
  add("kill", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "kill", 2, 2);
    if (::kill(static_cast<pid_t>(index_of(I, a.args[0], "kill")), static_cast<int>(index_of(I, a.args[1], "kill"))) != 0)
      I.raise("OSError", std::string("[Errno ") + std::to_string(errno) + "] " + std::strerror(errno));
    return none();
  });
  add("cpu_count", [](Interp&, CallArgs&) { return make_int(int64_t(std::thread::hardware_concurrency())); });
  add("listdir", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "listdir", 0, 1);
    std::string dir = a.args.empty() ? "." : path_arg(I, a.args[0], "listdir");
    std::error_code ec;
    std::vector<Value> out;
    for (auto& e : fs::directory_iterator(dir, ec)) out.push_back(make_str(e.path().filename().string()));
    if (ec) {
      Value exc = I.call(exc_class("OSError"), std::vector<Value>{make_int(ec.value()), make_str(ec.message()), make_str(dir)});
      throw PyError{exc};
    }
    return make_list(std::move(out));
  });
  auto fs_op = [](const char* name, int which) {
    return [name, which](Interp& I, CallArgs& a) {
      ArgParser p(I, a, name, {"path", "mode=", "exist_ok="});
      std::string path = path_arg(I, p.get("path"), name);
      bool exist_ok = p.has("exist_ok") && I.truthy(p.get("exist_ok"));
      std::error_code ec;
      if (which == 0) {
        if (!fs::create_directory(path, ec) && !ec) ec = std::make_error_code(std::errc::file_exists);
      } else if (which == 1) {
        if (fs::is_directory(path, ec) && !exist_ok) ec = std::make_error_code(std::errc::file_exists);
        else fs::create_directories(path, ec);
      } else {
        if (!fs::remove(path, ec) && !ec) ec = std::make_error_code(std::errc::no_such_file_or_directory);
      }
      if (ec) {
        Value exc = I.call(exc_class("OSError"), std::vector<Value>{make_int(ec.value()), make_str(ec.message()), make_str(path)});
        throw PyError{exc};
      }
      return none();
    };
  };
  add("mkdir", fs_op("mkdir", 0));
  add("makedirs", fs_op("makedirs", 1));
  add("remove", fs_op("remove", 2));
  add("unlink", fs_op("unlink", 2));
}

// ---- time ----

void fill_time(Interp&, ModuleObj& m) {
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  add("time", [](Interp&, CallArgs&) {
    return make_float(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
  });
  add("time_ns", [](Interp&, CallArgs&) {
    return make_int(int64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch()).count()));
  });
  for (const char* name : {"perf_counter", "monotonic", "process_time"}) {
    add(name, [](Interp&, CallArgs&) {
      return make_float(std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count());
    });
  }
  for (const char* name : {"perf_counter_ns", "monotonic_ns"}) {
    add(name, [](Interp&, CallArgs&) {
      return make_int(int64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now().time_since_epoch()).count()));
    });
  }
  add("sleep", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "sleep", 1, 1);
    auto d = real_of(a.args[0]);
    if (!d) I.raise("TypeError", fmt::format("'{}' object cannot be interpreted as an integer", I.type_name(a.args[0])));
    if (*d < 0) I.raise("ValueError", "sleep length must be non-negative");
    std::cout.flush();
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(*d, 1e6)));
    return none();
  });
}

}  // namespace

void register_sys_os_time_modules() {
  Interp::register_builtin_module("sys", fill_sys);
  Interp::register_builtin_module("os", fill_os);
  Interp::register_builtin_module("os.path", fill_path);
  Interp::register_builtin_module("time", fill_time);
}

}  // namespace shard::interp::bi
