// The `re` module: its functions, the RegexFlag constants, re.error, and compiling a pattern
// (Python syntax -> re_translate -> PCRE2) through a cache like CPython's re._cache.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>

#include "interp/builtins/re_objects.hpp"

namespace shard::interp::bi::re {

namespace {

ClassP g_error, g_flag, g_pattern, g_match;

// ---- RegexFlag: an int subclass printing as re.IGNORECASE|re.MULTILINE ----

// In RegexFlag's definition order, which its repr follows; `alias` is the one-letter name.
struct FlagMember {
  const char* name;
  const char* alias;
  int64_t bit;
};
const FlagMember kFlagMembers[] = {
    {"ASCII", "A", kAscii},         {"IGNORECASE", "I", kIgnoreCase}, {"LOCALE", "L", kLocale},
    {"UNICODE", "U", kUnicode},     {"MULTILINE", "M", kMultiline},   {"DOTALL", "S", kDotAll},
    {"VERBOSE", "X", kVerbose},     {"TEMPLATE", "T", kTemplate},     {"DEBUG", nullptr, kDebug},
};
constexpr int64_t kAllFlags = 511;

std::string flag_repr(int64_t v) {
  if (v == 0) return "re.NOFLAG";
  if (v < 0 || !(v & kAllFlags)) return fmt::format("re.RegexFlag({})", v);
  std::string out;
  int64_t rest = v;
  for (auto& f : kFlagMembers) {
    if (!(rest & f.bit)) continue;
    out += (out.empty() ? "re." : "|re.") + std::string(f.name);
    rest &= ~f.bit;
  }
  if (rest) out += fmt::format("|0x{:x}", rest);
  return out;
}

Value make_flag(int64_t v) { return wrap_for_class(g_flag, make_int(v)); }

int64_t flag_value(Interp& I, const CallArgs& a, const char* meth) {
  auto v = a.args.empty() ? std::nullopt : int_of(a.args[0]);
  if (!v || !a.args[0]->cls->is_subclass_of(g_flag.get())) bad_self(I, a, "RegexFlag", meth);
  return *v;
}

void init_flag_class() {
  g_flag = make_class("RegexFlag", {T().int_}, "re");
  auto repr = [](Interp& I, CallArgs& a) { return make_str(flag_repr(flag_value(I, a, "__repr__"))); };
  def(g_flag, "__repr__", repr);
  def(g_flag, "__str__", repr);
  def(g_flag, "__format__", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "__format__", 1, 1);
    int64_t v = flag_value(I, a, "__format__");
    const std::string& spec = str_arg(I, a.args[1], "format spec");
    if (spec.empty()) return make_str(flag_repr(v));
    return make_str(I.format(make_int(v), spec));
  });
  // |, & and ^ with an int keep the flag type; other arithmetic gives plain ints.
  auto bitwise = [](const char* name, int64_t (*op)(int64_t, int64_t)) {
    return [name, op](Interp& I, CallArgs& a) -> Value {
      method_nargs(I, a, name, 1, 1);
      int64_t v = flag_value(I, a, name);
      auto other = int_of(a.args[1]);
      if (!other) return not_implemented();
      return make_flag(op(v, *other));
    };
  };
  auto bit_or = [](int64_t x, int64_t y) { return x | y; };
  auto bit_and = [](int64_t x, int64_t y) { return x & y; };
  auto bit_xor = [](int64_t x, int64_t y) { return x ^ y; };
  def(g_flag, "__or__", bitwise("__or__", bit_or));
  def(g_flag, "__ror__", bitwise("__ror__", bit_or));
  def(g_flag, "__and__", bitwise("__and__", bit_and));
  def(g_flag, "__rand__", bitwise("__rand__", bit_and));
  def(g_flag, "__xor__", bitwise("__xor__", bit_xor));
  def(g_flag, "__rxor__", bitwise("__rxor__", bit_xor));
  def(g_flag, "__invert__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "__invert__", 0, 0);
    int64_t v = flag_value(I, a, "__invert__");
    return v >= 0 && v <= kAllFlags ? make_flag(v ^ kAllFlags) : make_int(~v);
  });
  def_property(g_flag, "value", [](Interp& I, CallArgs& a) { return make_int(flag_value(I, a, "value")); });
}

// ---- re.error ----

// error(msg, pattern=None, pos=None): the message gains " at position N" and, for a
// multi-line pattern, " (line L, column C)"; lineno and colno are set as CPython sets them.
Value error_new(Interp& I, const ClassP& cls, CallArgs& a) {
  ArgParser p(I, a, "error", {"msg", "pattern=", "pos="});
  Value msg = p.get("msg");
  Value pattern = p.has("pattern") ? p.get("pattern") : none();
  Value pos = p.has("pos") ? p.get("pos") : none();
  Value lineno = none(), colno = none();
  std::string text = str_of_value(I, msg);
  if (pattern->kind != ObjKind::None && pos->kind != ObjKind::None) {
    int64_t at = index_of(I, pos, "");
    text += fmt::format(" at position {}", at);
    if (auto* s = str_of(pattern)) {
      U8 u(s->v);
      int64_t clamped = std::clamp<int64_t>(at, 0, int64_t(u.size()));
      std::string_view before = u.range(0, size_t(clamped));
      int64_t line = 1 + std::count(before.begin(), before.end(), '\n');
      size_t nl = before.rfind('\n');
      int64_t col = nl == std::string_view::npos ? at + 1 : at - int64_t(u.index_of_byte(nl));
      lineno = make_int(line);
      colno = make_int(col);
      if (s->v.find('\n') != std::string::npos) text += fmt::format(" (line {}, column {})", line, col);
    }
  }
  CallArgs base;
  base.args = {make_str(text)};
  base.loc = a.loc;
  Value e = T().base_exception->native_new(I, cls, base);
  if (auto* inst = unwrap<InstanceObj>(e, ObjKind::Instance)) {
    inst->dict.set("msg", msg);
    inst->dict.set("pattern", pattern);
    inst->dict.set("pos", pos);
    inst->dict.set("lineno", lineno);
    inst->dict.set("colno", colno);
  }
  return e;
}

// ---- compiling, with CPython's cache of 512 patterns (oldest dropped first) ----

struct PatternCache {
  std::mutex mu;
  std::map<std::pair<std::string, int64_t>, Value> entries;
  std::deque<std::pair<std::string, int64_t>> order;
};
PatternCache& cache() {
  static auto* c = new PatternCache;  // never destroyed: patterns may outlive static teardown
  return *c;
}
constexpr size_t kMaxCache = 512;

pcre2_code* compile_pcre(const std::string& pcre, uint32_t options, int& code, PCRE2_SIZE& offset) {
  pcre2_compile_context* context = pcre2_compile_context_create(nullptr);
  if (!context) {
    code = PCRE2_ERROR_NOMEMORY;
    return nullptr;
  }
  pcre2_set_newline(context, PCRE2_NEWLINE_LF);  // Python's '.', '^' and '$' know only '\n'
  pcre2_set_parens_nest_limit(context, 1000);     // the translator's own limit comes first
  pcre2_code* compiled =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pcre.data()), pcre.size(), options, &code, &offset, context);
  pcre2_compile_context_free(context);
  return compiled;
}

Value compile_str(Interp& I, const std::string& source, int64_t flags) {
  auto& c = cache();
  auto key = std::make_pair(source, flags);
  {
    std::lock_guard lock(c.mu);
    if (auto it = c.entries.find(key); it != c.entries.end()) return it->second;
  }
  Translation t;
  try {
    t = translate(source, flags);
  } catch (const SyntaxError& e) {
    raise_syntax_error(I, e, source);
  }
  uint32_t options = PCRE2_UTF | PCRE2_NEVER_BACKSLASH_C;
  if (!(t.flags & kAscii)) options |= PCRE2_UCP;
  if (t.flags & kIgnoreCase) options |= PCRE2_CASELESS;
  // Python's multi-line '^' also matches after a newline that ends the text
  if (t.flags & kMultiline) options |= PCRE2_MULTILINE | PCRE2_ALT_CIRCUMFLEX;
  if (t.flags & kDotAll) options |= PCRE2_DOTALL;
  auto p = std::make_shared<PatternObj>(g_pattern);  // owns the code from here on
  int code = 0;
  PCRE2_SIZE offset = 0;
  p->code = compile_pcre(t.pcre, options, code, offset);
  if (!p->code) {
    if (code == PCRE2_ERROR_LOOKBEHIND_NOT_FIXED_LENGTH)
      raise_syntax_error(I, {"look-behind requires fixed-width pattern", std::nullopt, ""}, source);
    size_t pos = offset < t.origin.size() ? t.origin[offset] : numfmt::utf8_length(source);
    raise_syntax_error(I, {pcre2_message(code), pos, ""}, source);
  }
  pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE);  // optional: without it PCRE2 interprets
  p->pattern = source;
  p->flags = t.flags;
  p->groups = t.groups;
  p->names = std::move(t.names);
  p->close_rank = std::move(t.close_rank);
  p->pcre = std::move(t.pcre);
  p->options = options;
  std::lock_guard lock(c.mu);
  if (c.entries.size() >= kMaxCache) {
    c.entries.erase(c.order.front());
    c.order.pop_front();
  }
  if (c.entries.emplace(key, p).second) c.order.push_back(key);
  return p;
}

// ---- module functions ----

// Module functions take the pattern first and flags last: (pattern, <rest>, flags=0).
PatternObj& pattern_arg(Interp& I, ArgParser& p, Value& pattern) {
  pattern = p.get("pattern");
  return compiled(I, pattern, p.get("flags"));
}

// Calls the Pattern method `name` with the module function's arguments (pattern and flags
// dropped), so both spellings share one implementation and CPython's argument names.
Value forward(Interp& I, CallArgs& a, const char* name, std::vector<std::string> rest) {
  std::vector<std::string> sig = {"pattern"};
  sig.insert(sig.end(), rest.begin(), rest.end());
  sig.push_back("flags=");
  ArgParser p(I, a, name, sig);
  Value pattern;
  pattern_arg(I, p, pattern);
  std::vector<Value> args{};
  for (auto& r : rest) {
    std::string n = r.back() == '=' ? r.substr(0, r.size() - 1) : r;
    if (!p.has(n)) break;
    args.push_back(p.get(n));
  }
  return I.call(I.getattr(pattern, name), std::move(args));
}

void fill_re(Interp& I, ModuleObj& m) {
  if (!g_error) {
    g_error = native_class("error", exc_class("Exception"), "re");
    g_error->native_new = error_new;
    init_flag_class();
    g_pattern = native_class("Pattern", nullptr, "re", ObjKind::Native);
    g_match = native_class("Match", nullptr, "re", ObjKind::Native);
    for (const ClassP& c : {g_pattern, g_match})
      c->native_new = [](Interp& I, const ClassP& cls, CallArgs&) -> Value {
        I.raise("TypeError", fmt::format("cannot create 're.{}' instances", cls->name));
      };
    init_pattern_class(g_pattern);
    init_match_class(g_match);
    g_flag->dict.set("NOFLAG", make_flag(0));
    for (auto& f : kFlagMembers) {
      g_flag->dict.set(f.name, make_flag(f.bit));
      if (f.alias) g_flag->dict.set(f.alias, *g_flag->dict.find(f.name));
    }
  }
  m.dict.set("error", g_error);
  m.dict.set("Pattern", g_pattern);
  m.dict.set("Match", g_match);
  m.dict.set("RegexFlag", g_flag);
  // the members of RegexFlag, also as module constants (re.I is re.IGNORECASE)
  m.dict.set("NOFLAG", *g_flag->dict.find("NOFLAG"));
  for (auto& f : kFlagMembers) {
    m.dict.set(f.name, *g_flag->dict.find(f.name));
    if (f.alias) m.dict.set(f.alias, *g_flag->dict.find(f.name));
  }
  m.dict.set("compile", make_builtin("compile", [](Interp& I, CallArgs& a) {
               ArgParser p(I, a, "compile", {"pattern", "flags="});
               Value pattern;
               pattern_arg(I, p, pattern);
               return pattern;
             }));
  for (const char* name : {"search", "match", "fullmatch", "findall", "finditer"}) {
    m.dict.set(name, make_builtin(name, [name](Interp& I, CallArgs& a) { return forward(I, a, name, {"string"}); }));
  }
  m.dict.set("sub", make_builtin("sub", [](Interp& I, CallArgs& a) {
               return forward(I, a, "sub", {"repl", "string", "count="});
             }));
  m.dict.set("subn", make_builtin("subn", [](Interp& I, CallArgs& a) {
               return forward(I, a, "subn", {"repl", "string", "count="});
             }));
  m.dict.set("split", make_builtin("split", [](Interp& I, CallArgs& a) {
               return forward(I, a, "split", {"string", "maxsplit="});
             }));
  m.dict.set("escape", make_builtin("escape", [](Interp& I, CallArgs& a) {
               ArgParser p(I, a, "escape", {"pattern"});
               auto* s = str_of(p.get("pattern"));
               if (!s) I.raise("TypeError", fmt::format("decoding to str: need a bytes-like object, {} found",
                                                        I.type_name(p.get("pattern"))));
               // re._special_chars_map: ()[]{}?*+-|^$\.&~# and whitespace
               static const std::string_view special = "()[]{}?*+-|^$\\.&~# \t\n\r\v\f";
               std::string out;
               for (char ch : s->v) {
                 if (special.find(ch) != std::string_view::npos) out += '\\';
                 out += ch;
               }
               return make_str(out);
             }));
  m.dict.set("purge", make_builtin("purge", [](Interp& I, CallArgs& a) {
               ArgParser(I, a, "purge", {});
               auto& c = cache();
               std::lock_guard lock(c.mu);
               c.entries.clear();
               c.order.clear();
               return none();
             }));
}

}  // namespace

std::string pcre2_message(int code) {
  PCRE2_UCHAR message[256];
  pcre2_get_error_message(code, message, sizeof message);
  return reinterpret_cast<const char*>(message);
}

ClassP pattern_class() { return g_pattern; }
ClassP match_class() { return g_match; }

void raise_syntax_error(Interp& I, const SyntaxError& e, const std::string& source) {
  if (!e.type.empty()) I.raise(e.type, e.msg);
  std::vector<Value> args{make_str(e.msg)};
  if (e.pos) {
    args.push_back(make_str(source));
    args.push_back(make_int(int64_t(*e.pos)));
  }
  throw PyError{I.call(g_error, std::move(args))};
}

Value subject_arg(Interp& I, const Value& v) {
  if (!str_of(v))
    I.raise("TypeError", fmt::format("expected string or bytes-like object, got '{}'", I.type_name(v)));
  return v;
}

PatternObj& compiled(Interp& I, Value& pattern, const Value& flags_arg) {
  int64_t flags = 0;
  if (flags_arg) {
    auto f = int_of(flags_arg);
    if (!f)
      I.raise("TypeError",
              fmt::format("unsupported operand type(s) for &: '{}' and 'RegexFlag'", I.type_name(flags_arg)));
    flags = *f;
  }
  if (pattern->kind == ObjKind::Native && pattern->cls.get() == g_pattern.get()) {
    if (flags) I.raise("ValueError", "cannot process flags argument with a compiled pattern");
    return static_cast<PatternObj&>(*pattern);
  }
  auto* s = str_of(pattern);
  if (!s) I.raise("TypeError", "first argument must be string or compiled pattern");
  pattern = compile_str(I, s->v, flags);
  return static_cast<PatternObj&>(*pattern);
}

pcre2_code* lenient_code(Interp& I, PatternObj& re) {
  if (!re.lenient_code) {
    // No JIT here: PCRE2 10.42's JIT mishandles \W, \D, \S under PCRE2_MATCH_INVALID_UTF.
    int code = 0;
    PCRE2_SIZE offset = 0;
    re.lenient_code = compile_pcre(re.pcre, re.options | PCRE2_MATCH_INVALID_UTF, code, offset);
    if (!re.lenient_code) I.raise("RuntimeError", "cannot compile the pattern for non-UTF-8 text: " + pcre2_message(code));
  }
  return re.lenient_code;
}

}  // namespace shard::interp::bi::re

namespace shard::interp::bi {
void register_re_module() { Interp::register_builtin_module("re", re::fill_re); }
}  // namespace shard::interp::bi
