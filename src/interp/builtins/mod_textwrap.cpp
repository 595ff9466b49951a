// The `textwrap` module: wrap, fill, shorten, dedent, indent and the TextWrapper class
// (whose options are ordinary instance attributes, read when wrap() / fill() run, so
// programs may change them or subclass it). The algorithms are in textwrap.cpp.
#include <fmt/format.h>

#include "interp/builtins/str_util.hpp"
#include "interp/builtins/support.hpp"
#include "interp/builtins/textwrap.hpp"

namespace shard::interp::bi {

namespace {

using textwrap::Options;

// TextWrapper.__init__'s parameters.
const std::vector<std::string> kInitSignature = {
    "width=", "initial_indent=", "subsequent_indent=", "expand_tabs=", "replace_whitespace=",
    "fix_sentence_endings=", "break_long_words=", "drop_whitespace=", "break_on_hyphens=", "tabsize=",
    "*", "max_lines=", "placeholder="};

const char* const kOptionNames[] = {"width", "initial_indent", "subsequent_indent", "expand_tabs",
                                    "replace_whitespace", "fix_sentence_endings", "break_long_words",
                                    "drop_whitespace", "break_on_hyphens", "tabsize", "max_lines", "placeholder"};

int64_t int_option(Interp& I, const Value& v, const char* name) {
  auto n = int_of(v);
  if (!n) I.raise("TypeError", fmt::format("TextWrapper.{} must be an integer, not '{}'", name, I.type_name(v)));
  return *n;
}

std::u32string str_option(Interp& I, const Value& v, const char* name) {
  auto* s = str_of(v);
  if (!s) I.raise("TypeError", fmt::format("TextWrapper.{} must be a str, not '{}'", name, I.type_name(v)));
  return to_u32(s->v);
}

// Options from a lookup of each attribute (`get` returns null for "use the default").
template <class Get>
Options options_from(Interp& I, Get get) {
  Options o;
  if (Value v = get("width")) o.width = int_option(I, v, "width");
  if (Value v = get("initial_indent")) o.initial_indent = str_option(I, v, "initial_indent");
  if (Value v = get("subsequent_indent")) o.subsequent_indent = str_option(I, v, "subsequent_indent");
  if (Value v = get("expand_tabs")) o.expand_tabs = I.truthy(v);
  if (Value v = get("replace_whitespace")) o.replace_whitespace = I.truthy(v);
  if (Value v = get("fix_sentence_endings")) o.fix_sentence_endings = I.truthy(v);
  if (Value v = get("break_long_words")) o.break_long_words = I.truthy(v);
  if (Value v = get("drop_whitespace")) o.drop_whitespace = I.truthy(v);
  // CPython tests `break_on_hyphens is True`.
  if (Value v = get("break_on_hyphens")) o.break_on_hyphens = v->kind == ObjKind::Bool && I.truthy(v);
  if (Value v = get("tabsize")) o.tabsize = int_option(I, v, "tabsize");
  if (Value v = get("max_lines"); v && v->kind != ObjKind::None) o.max_lines = int_option(I, v, "max_lines");
  if (Value v = get("placeholder")) o.placeholder = str_option(I, v, "placeholder");
  return o;
}

// TextWrapper(...)'s arguments, as given to wrap() / fill() / shorten() after the text.
Options options_from_call(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "TextWrapper.__init__", kInitSignature);
  return options_from(I, [&](const char* name) { return p.get(name); });
}

Options options_of(Interp& I, const Value& wrapper) {
  return options_from(I, [&](const char* name) { return I.getattr(wrapper, name); });
}

const std::string& text_arg(Interp& I, const Value& v, const char* method) {
  auto* s = str_of(v);
  if (!s) I.raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", I.type_name(v), method));
  return s->v;
}

Value lines_value(const std::vector<std::u32string>& lines) {
  std::vector<Value> out;
  out.reserve(lines.size());
  for (auto& l : lines) out.push_back(make_str(from_u32(l)));
  return make_list(std::move(out));
}

std::string fill_text(const std::vector<std::u32string>& lines) {
  std::u32string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? U"\n" : U"") + lines[i];
  return from_u32(out);
}

std::vector<std::u32string> wrap_text(Interp& I, const std::string& text, const Options& o) {
  try {
    return textwrap::wrap(to_u32(text), o);
  } catch (const textwrap::WrapError& e) {
    I.raise("ValueError", e.what());
  }
}

// wrap(text, width=70, **kwargs) / fill(...): the text, then TextWrapper's arguments.
std::pair<std::string, Options> text_and_options(Interp& I, CallArgs& a, const char* fname, bool width_required) {
  ArgParser p(I, a, fname, {"text", width_required ? "width" : "width=", "**kwargs"});
  std::string text = text_arg(I, p.get("text"), "expandtabs");
  CallArgs init;
  init.loc = a.loc;
  if (p.has("width")) init.kwargs.emplace_back("width", p.get("width"));
  for (auto& kw : p.varkw()) init.kwargs.push_back(kw);
  return {text, options_from_call(I, init)};
}

// ' '.join(text.strip().split())
std::string collapse_whitespace(const std::string& text) {
  std::u32string out;
  bool pending_space = false;
  for (char32_t c : to_u32(text)) {
    if (cp_is_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += U' ';
    pending_space = false;
    out += c;
  }
  return from_u32(out);
}

Value indent(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "indent", {"text", "prefix", "predicate="});
  const Value& text = p.get("text");
  text_arg(I, text, "splitlines");
  Value prefix = p.get("prefix");
  Value predicate = p.has("predicate") && p.get("predicate")->kind != ObjKind::None ? p.get("predicate") : nullptr;
  auto lines = I.call_method(text, "splitlines", {make_bool(true)});
  std::string out;
  for (auto& line : collect(I, *lines)) {
    const std::string& l = str_of(line)->v;
    bool add = predicate ? I.truthy(I.call(predicate, std::vector<Value>{line})) : textwrap::has_text(to_u32(l));
    if (add) out += str_of_value(I, I.binary_op(ast::BinOpKind::Add, prefix, line));
    else out += l;
  }
  return make_str(out);
}

ClassP text_wrapper_class() {
  static const ClassP cls = [] {
    ClassP c = make_class("TextWrapper", {T().object}, "textwrap");
    auto set_options = [](Interp& I, const Value& self, CallArgs& a) {
      ArgParser p(I, a, "TextWrapper.__init__", kInitSignature);
      Options defaults;
      for (const char* name : kOptionNames) {
        Value v = p.get(name);
        if (!v) {
          std::string n = name;
          if (n == "width") v = make_int(defaults.width);
          else if (n == "initial_indent" || n == "subsequent_indent") v = make_str("");
          else if (n == "tabsize") v = make_int(defaults.tabsize);
          else if (n == "max_lines") v = none();
          else if (n == "placeholder") v = make_str(from_u32(defaults.placeholder));
          else v = make_bool(n != "fix_sentence_endings");
        }
        I.setattr(self, name, v);
      }
    };
    c->native_new = [set_options](Interp& I, const ClassP& cls, CallArgs& a) -> Value {
      auto self = std::make_shared<InstanceObj>(cls);
      // Subclasses get their attributes from __init__ (theirs or TextWrapper's).
      if (cls.get() == text_wrapper_class().get()) set_options(I, self, a);
      return self;
    };
    def(c, "__init__", [set_options](Interp& I, CallArgs& a) {
      if (a.args.empty()) I.raise("TypeError", "TextWrapper.__init__() missing 'self'");
      Value self = a.args[0];
      CallArgs rest = args_without_self(a);
      set_options(I, self, rest);
      return none();
    });
    def(c, "wrap", [](Interp& I, CallArgs& a) {
      method_nargs(I, a, "wrap", 1, 1);
      return lines_value(wrap_text(I, text_arg(I, a.args[1], "expandtabs"), options_of(I, a.args[0])));
    });
    def(c, "fill", [](Interp& I, CallArgs& a) {
      method_nargs(I, a, "fill", 1, 1);
      return make_str(fill_text(wrap_text(I, text_arg(I, a.args[1], "expandtabs"), options_of(I, a.args[0]))));
    });
    return c;
  }();
  return cls;
}

void fill_textwrap(Interp& I, ModuleObj& m) {
  m.dict.set("TextWrapper", text_wrapper_class());
  m.dict.set("wrap", make_builtin("wrap", [](Interp& I, CallArgs& a) {
               auto [text, o] = text_and_options(I, a, "wrap", false);
               return lines_value(wrap_text(I, text, o));
             }));
  m.dict.set("fill", make_builtin("fill", [](Interp& I, CallArgs& a) {
               auto [text, o] = text_and_options(I, a, "fill", false);
               return make_str(fill_text(wrap_text(I, text, o)));
             }));
  m.dict.set("shorten", make_builtin("shorten", [](Interp& I, CallArgs& a) {
               for (auto& [k, v] : a.kwargs)
                 if (k == "max_lines")
                   I.raise("TypeError", "textwrap.TextWrapper() got multiple values for keyword argument 'max_lines'");
               auto [text, o] = text_and_options(I, a, "shorten", true);
               o.max_lines = 1;
               return make_str(fill_text(wrap_text(I, collapse_whitespace(text), o)));
             }));
  m.dict.set("dedent", make_builtin("dedent", [](Interp& I, CallArgs& a) {
               ArgParser p(I, a, "dedent", {"text"});
               auto* s = str_of(p.get("text"));
               if (!s)
                 I.raise("TypeError", fmt::format("expected string or bytes-like object, got '{}'",
                                                  I.type_name(p.get("text"))));
               return make_str(from_u32(textwrap::dedent(to_u32(s->v))));
             }));
  m.dict.set("indent", make_builtin("indent", indent));
}

}  // namespace

void register_textwrap_module() { Interp::register_builtin_module("textwrap", fill_textwrap); }

}  // namespace shard::interp::bi
