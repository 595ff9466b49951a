// Builtin functions about objects: print, input, len, repr/ascii, isinstance/issubclass,
// attribute access, id/hash/callable, iter/next, vars/dir, chr/ord, plus the stream
// objects behind sys.stdout/sys.stderr.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "interp/builtins/support.hpp"

namespace shard::interp::bi {

namespace {
// Cached iterator classes (iter_class takes a lock).
ClassP iter_cls_callable_iterator() {
  static const ClassP c = iter_class("callable_iterator");
  return c;
}
}  // namespace

namespace {

struct StreamObj : NativeObj {
  std::ostream* os;
  std::string name;
  StreamObj(ClassP c, std::ostream* o, std::string n) : NativeObj(std::move(c)), os(o), name(std::move(n)) {}
};

ClassP stream_class() {
  static ClassP c = [] {
    auto cls = native_class("TextIOWrapper", nullptr, "_io", ObjKind::Native);
    auto self_stream = [](Interp& I, CallArgs& a, const char* m) -> StreamObj& {
      if (a.args.empty() || !stream_of(a.args[0])) bad_self(I, a, "TextIOWrapper", m);
      return static_cast<StreamObj&>(*a.args[0]);
    };
    def(cls, "write", [self_stream](Interp& I, CallArgs& a) {
      method_nargs(I, a, "write", 1, 1);
      auto& s = self_stream(I, a, "write");
      auto* text = str_of(a.args[1]);
      if (!text) I.raise("TypeError", fmt::format("write() argument must be str, not {}", I.type_name(a.args[1])));
      if (s.os != &std::cout) std::cout.flush();
      *s.os << text->v;
      return make_int(int64_t(numfmt::utf8_length(text->v)));
    });
    def(cls, "flush", [self_stream](Interp& I, CallArgs& a) {
      self_stream(I, a, "flush").os->flush();
      return none();
    });
    def(cls, "isatty", [](Interp&, CallArgs&) { return make_bool(false); });
    def(cls, "fileno", [self_stream](Interp& I, CallArgs& a) {
      return make_int(self_stream(I, a, "fileno").os == &std::cout ? 1 : 2);
    });
    def(cls, "__repr__", [self_stream](Interp& I, CallArgs& a) {
      return make_str(fmt::format("<_io.TextIOWrapper name='<{}>' mode='w' encoding='utf-8'>", self_stream(I, a, "__repr__").name));
    });
    return cls;
  }();
  return c;
}

void write_out(Interp& I, const Value& file, const std::string& text, bool flush) {
  std::ostream* os = (!file || file->kind == ObjKind::None) ? &std::cout : stream_of(file);
  if (os) {
    if (os != &std::cout) std::cout.flush();
    *os << text;
    if (flush || os != &std::cout) os->flush();
    return;
  }
  I.call(I.getattr(file, "write"), std::vector<Value>{make_str(text)});
  if (flush)
    if (auto f = I.try_getattr(file, "flush")) I.call(*f, std::vector<Value>{});
}

Value builtin_print(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "print", {"*args", "sep=", "end=", "file=", "flush="});
  std::string sep = " ", end = "\n";
  for (auto [name, dst] : {std::pair{"sep", &sep}, std::pair{"end", &end}}) {
    Value v = p.get(name);
    if (!v || v->kind == ObjKind::None) continue;
    auto* s = str_of(v);
    if (!s) I.raise("TypeError", fmt::format("{} must be None or a string, not {}", name, I.type_name(v)));
    *dst = s->v;
  }
  std::string out;
  const auto& items = p.varargs();
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += str_of_value(I, items[i]);
  }
  out += end;
  Value flush = p.get("flush");
  write_out(I, p.get("file"), out, flush && I.truthy(flush));
  return none();
}

Value builtin_input(Interp& I, CallArgs& a) {
  func_nargs(I, a, "input", 0, 1);
  if (!a.args.empty()) {
    std::cout << str_of_value(I, a.args[0]);
  }
  std::cout.flush();
  std::string line;
  if (!std::getline(std::cin, line)) I.raise("EOFError", "EOF when reading a line");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return make_str(std::move(line));
}

bool is_class(const Value& v) { return v && v->kind == ObjKind::Class; }

// A class whose metaclass defines the hook (abc.ABCMeta): isinstance / issubclass ask it.
std::optional<Value> metaclass_check(Interp& I, const Value& cls, const char* hook, const Value& arg) {
  if (!cls->cls || !cls->cls->lookup(hook)) return std::nullopt;
  return I.call_method(cls, hook, {arg});
}

bool isinstance_of(Interp& I, const Value& obj, const Value& spec, int depth) {
  if (depth > 100) I.raise("RecursionError", "maximum recursion depth exceeded in __instancecheck__");
  if (is_class(spec)) {
    if (I.isinstance(obj, static_cast<ClassObj&>(*spec))) return true;
    if (auto r = metaclass_check(I, spec, "__instancecheck__", obj)) return I.truthy(*r);
    return false;
  }
  std::vector<Value> members;
  if (auto* t = unwrap<TupleObj>(spec, ObjKind::Tuple)) members = t->items;
  else if (!union_members(spec, members)) members.clear();
  if (!members.empty() || spec->kind == ObjKind::Tuple) {
    for (auto& s : members)
      if (isinstance_of(I, obj, s, depth + 1)) return true;
    return false;
  }
  I.raise("TypeError", "isinstance() arg 2 must be a type, a tuple of types, or a union");
}

bool issubclass_of(Interp& I, const Value& cv, const Value& spec, int depth) {
  ClassObj& c = static_cast<ClassObj&>(*cv);
  if (depth > 100) I.raise("RecursionError", "maximum recursion depth exceeded in __subclasscheck__");
  if (is_class(spec)) {
    if (c.is_subclass_of(static_cast<ClassObj*>(spec.get()))) return true;
    if (auto r = metaclass_check(I, spec, "__subclasscheck__", cv)) return I.truthy(*r);
    return false;
  }
  std::vector<Value> members;
  if (auto* t = unwrap<TupleObj>(spec, ObjKind::Tuple)) members = t->items;
  else if (!union_members(spec, members)) members.clear();
  if (!members.empty() || spec->kind == ObjKind::Tuple) {
    for (auto& s : members)
      if (issubclass_of(I, cv, s, depth + 1)) return true;
    return false;
  }
  I.raise("TypeError", "issubclass() arg 2 must be a class, a tuple of classes, or a union");
}

const std::string& attr_name(Interp& I, const Value& v) {
  auto* s = str_of(v);
  if (!s) I.raise("TypeError", fmt::format("attribute name must be string, not '{}'", I.type_name(v)));
  return s->v;
}

Value dict_of_table(Interp& I, const AttrTable& t) {
  auto d = make_dict();
  for (auto& [k, v] : t.entries)
    if (v) d->set(I, make_str(k), v);
  return d;
}

Value builtin_vars(Interp& I, CallArgs& a) {
  func_nargs(I, a, "vars", 0, 1);
  if (a.args.empty()) return dict_of_table(I, I.main_module()->dict);
  const Value& o = a.args[0];
  switch (o->kind) {
    case ObjKind::Instance: return dict_of_table(I, static_cast<InstanceObj&>(*o).dict);
    case ObjKind::Module: return dict_of_table(I, static_cast<ModuleObj&>(*o).dict);
    case ObjKind::Class: return dict_of_table(I, static_cast<ClassObj&>(*o).dict);
    case ObjKind::Function: return dict_of_table(I, static_cast<FunctionObj&>(*o).dict);
    default: I.raise("TypeError", "vars() argument must have __dict__ attribute");
  }
}

Value builtin_dir(Interp& I, CallArgs& a) {
  func_nargs(I, a, "dir", 0, 1);
  std::set<std::string> names;
  auto add_table = [&](const AttrTable& t) {
    for (auto& [k, v] : t.entries)
      if (v) names.insert(k);
  };
  if (a.args.empty()) {
    add_table(I.main_module()->dict);
  } else {
    const Value& o = a.args[0];
    if (o->kind == ObjKind::Module) add_table(static_cast<ModuleObj&>(*o).dict);
    else {
      if (o->kind == ObjKind::Instance) add_table(static_cast<InstanceObj&>(*o).dict);
      ClassObj& c = o->kind == ObjKind::Class ? static_cast<ClassObj&>(*o) : *o->cls;
      for (ClassObj* m : c.mro) add_table(m->dict);
    }
  }
  std::vector<Value> out;
  for (auto& n : names) out.push_back(make_str(n));
  return make_list(std::move(out));
}

}  // namespace

Value make_stream(std::ostream* os, std::string name) {
  return std::make_shared<StreamObj>(stream_class(), os, std::move(name));
}

std::ostream* stream_of(const Value& v) {
  if (v && v->kind == ObjKind::Native && v->cls.get() == stream_class().get()) return static_cast<StreamObj&>(*v).os;
  return nullptr;
}

void add_core_functions(Interp& I, ModuleObj& m) {
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  add("print", builtin_print);
  add("input", builtin_input);
  add("len", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "len", 1, 1);
    return make_int(I.len(a.args[0]));
  });
  add("repr", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "repr", 1, 1);
    return make_str(I.repr(a.args[0]));
  });
  add("ascii", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "ascii", 1, 1);
    return make_str(ascii_repr(I, a.args[0]));
  });
  add("isinstance", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "isinstance", 2, 2);
    return make_bool(isinstance_of(I, a.args[0], a.args[1], 0));
  });
  add("issubclass", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "issubclass", 2, 2);
    if (!is_class(a.args[0])) I.raise("TypeError", "issubclass() arg 1 must be a class");
    return make_bool(issubclass_of(I, a.args[0], a.args[1], 0));
  });
  add("hasattr", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "hasattr", 2, 2);
    const std::string& name = attr_name(I, a.args[1]);
    try {
      I.getattr(a.args[0], name);
      return make_bool(true);
    } catch (PyError& e) {
      if (exc_is(e, "AttributeError")) return make_bool(false);
      throw;
    }
  });
  add("getattr", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "getattr", 2, 3);
    const std::string& name = attr_name(I, a.args[1]);
    if (a.args.size() == 2) return I.getattr(a.args[0], name);
    try {
      return I.getattr(a.args[0], name);
    } catch (PyError& e) {
      if (exc_is(e, "AttributeError")) return a.args[2];
      throw;
    }
  });
  add("setattr", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "setattr", 3, 3);
    I.setattr(a.args[0], attr_name(I, a.args[1]), a.args[2]);
    return none();
  });
  add("delattr", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "delattr", 2, 2);
    I.delattr(a.args[0], attr_name(I, a.args[1]));
    return none();
  });
  add("id", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "id", 1, 1);
    return make_int(int64_t(reinterpret_cast<uintptr_t>(a.args[0].get()) & INT64_MAX));
  });
  add("hash", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "hash", 1, 1);
    if (auto h = fast_hash(a.args[0])) return make_int(int64_t(*h));
    return make_int(int64_t(I.hash(a.args[0])));
  });
  add("callable", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "callable", 1, 1);
    const Value& v = a.args[0];
    switch (v->kind) {
      case ObjKind::Function: case ObjKind::Builtin: case ObjKind::BoundMethod: case ObjKind::Class:
        return make_bool(true);
      default: return make_bool(v->cls->lookup("__call__") != nullptr);
    }
  });
  add("iter", [](Interp& I, CallArgs& a) -> Value {
    func_nargs(I, a, "iter", 1, 2);
    if (a.args.size() == 1) return I.iter(a.args[0]);
    Value fn = a.args[0], sentinel = a.args[1];
    Interp* ip = &I;
    bool done = false;
    return make_iterator(iter_cls_callable_iterator(), [ip, fn, sentinel, done]() mutable -> std::optional<Value> {
      if (done) return std::nullopt;
      Value v = ip->call(fn, std::vector<Value>{});
      if (eq_fast(*ip, v, sentinel)) {
        done = true;
        return std::nullopt;
      }
      return v;
    });
  });
  add("next", [](Interp& I, CallArgs& a) -> Value {
    func_nargs(I, a, "next", 1, 2);
    // A generator's StopIteration carries its return value.
    if (a.args.size() == 1 && a.args[0]->cls.get() == iter_class("generator").get())
      return *I.call_method(a.args[0], "__next__", {});
    std::optional<Value> v = I.next(a.args[0]);
    if (v) return *v;
    if (a.args.size() == 2) return a.args[1];
    raise_stop_iteration(I);
  });
  add("vars", builtin_vars);
  add("dir", builtin_dir);
  add("chr", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "chr", 1, 1);
    int64_t i = index_of(I, a.args[0], "");
    if (i < 0 || i > 0x10ffff) I.raise("ValueError", "chr() arg not in range(0x110000)");
    return str_from_code_point(uint32_t(i));
  });
  add("ord", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "ord", 1, 1);
    auto* s = str_of(a.args[0]);
    if (!s) I.raise("TypeError", fmt::format("ord() expected string of length 1, but {} found", I.type_name(a.args[0])));
    size_t n = numfmt::utf8_length(s->v);
    if (n != 1) I.raise("TypeError", fmt::format("ord() expected a character, but string of length {} found", n));
    size_t i = 0;
    return make_int(numfmt::utf8_next(s->v, i));
  });
  add("format", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "format", 1, 2);
    std::string spec;
    if (a.args.size() > 1) {
      auto* s = str_of(a.args[1]);
      if (!s) I.raise("TypeError", fmt::format("format() argument 2 must be str, not {}", I.type_name(a.args[1])));
      spec = s->v;
    }
    return make_str(format_value(I, a.args[0], spec));
  });
  for (const char* name : {"exit", "quit"}) {
    add(name, [](Interp& I, CallArgs& a) -> Value {
      Value exc = I.call(exc_class("SystemExit"), a.args);
      throw PyError{exc};
    });
  }
}

}  // namespace shard::interp::bi
