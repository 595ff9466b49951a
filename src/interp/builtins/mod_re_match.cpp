// re.Match: groups by number or name, spans in code points, expand(), repr; and reading
// replacement templates for a pattern (shared with Pattern.sub).
#include <fmt/format.h>

#include "interp/builtins/re_objects.hpp"

namespace shard::interp::bi::re {

std::vector<TemplatePiece> template_for(Interp& I, const PatternObj& re, const Value& repl) {
  auto* s = str_of(repl);
  if (!s) I.raise("TypeError", fmt::format("decoding to str: need a bytes-like object, {} found", I.type_name(repl)));
  try {
    return parse_template(s->v, re.groups, re.names);
  } catch (const SyntaxError& e) {
    raise_syntax_error(I, e, s->v);
  }
}

namespace {

MatchObj& self_match(Interp& I, CallArgs& a, const char* meth) {
  return native_self<MatchObj>(I, a, match_class(), "re.Match", meth);
}

// A group argument: its number, or a name of the pattern (match_getindex in _sre.c).
size_t group_index(Interp& I, const MatchObj& m, const Value& g) {
  if (auto i = try_index(I, g)) {
    if (*i >= 0 && size_t(*i) <= m.re().groups) return size_t(*i);
  } else if (auto* s = str_of(g)) {
    for (auto& [name, index] : m.re().names)
      if (name == s->v) return index;
  } else {
    hash_of(I, g);  // an unhashable key is a TypeError, as in the dict lookup CPython does
  }
  I.raise("IndexError", "no such group");
}

Value group_value(const MatchObj& m, size_t g, const Value& unset) {
  auto t = m.group_text(g);
  return t ? make_str(std::string(*t)) : unset;
}

// The argument `default` of groups()/groupdict(), None when absent.
Value default_arg(Interp& I, CallArgs& a, const char* name) {
  ArgParser p(I, a, name, {"$clinic", "$self", "default="});
  return p.has("default") ? p.get("default") : none();
}

// start(group=0) / end(group=0) / span(group=0): code points, -1 for an unset group.
template <class Result>
NativeFn span_method(const char* name, Result result) {
  return [name, result](Interp& I, CallArgs& a) -> Value {
    auto& m = self_match(I, a, name);
    if (!a.kwargs.empty()) I.raise("TypeError", fmt::format("{}() takes no keyword arguments", name));
    if (a.args.size() > 2) I.raise("TypeError", fmt::format("{} expected at most 1 argument, got {}", name, a.args.size() - 1));
    size_t g = a.args.size() > 1 ? group_index(I, m, a.args[1]) : 0;
    return result(m.chars[2 * g], m.chars[2 * g + 1]);
  };
}

std::string match_repr(Interp& I, const MatchObj& m) {
  std::string shown = repr_of(I, group_value(m, 0, none()));
  U8 index(shown);
  if (index.size() > 50) shown.resize(index.off(50));  // %.50R
  return fmt::format("<re.Match object; span=({}, {}), match={}>", m.chars[0], m.chars[1], shown);
}

}  // namespace

void init_match_class(const ClassP& c) {
  def(c, "group", [](Interp& I, CallArgs& a) -> Value {
    auto& m = self_match(I, a, "group");
    if (!a.kwargs.empty()) I.raise("TypeError", "Match.group() takes no keyword arguments");
    if (a.args.size() <= 1) return group_value(m, 0, none());
    if (a.args.size() == 2) return group_value(m, group_index(I, m, a.args[1]), none());
    std::vector<Value> out;
    for (size_t i = 1; i < a.args.size(); ++i) out.push_back(group_value(m, group_index(I, m, a.args[i]), none()));
    return make_tuple(std::move(out));
  });
  def(c, "__getitem__", [](Interp& I, CallArgs& a) {
    auto& m = self_match(I, a, "__getitem__");
    method_nargs(I, a, "__getitem__", 1, 1);
    return group_value(m, group_index(I, m, a.args[1]), none());
  });
  def(c, "groups", [](Interp& I, CallArgs& a) {
    auto& m = self_match(I, a, "groups");
    Value dflt = default_arg(I, a, "groups");
    std::vector<Value> out;
    for (size_t g = 1; g <= m.re().groups; ++g) out.push_back(group_value(m, g, dflt));
    return make_tuple(std::move(out));
  });
  def(c, "groupdict", [](Interp& I, CallArgs& a) {
    auto& m = self_match(I, a, "groupdict");
    Value dflt = default_arg(I, a, "groupdict");
    auto d = make_dict();
    for (auto& [name, g] : m.re().names) d->set(I, make_str(name), group_value(m, g, dflt));
    return Value(d);
  });
  def(c, "start", span_method("start", [](int64_t s, int64_t) { return make_int(s); }));
  def(c, "end", span_method("end", [](int64_t, int64_t e) { return make_int(e); }));
  def(c, "span", span_method("span", [](int64_t s, int64_t e) { return int_tuple({s, e}); }));
  def(c, "expand", [](Interp& I, CallArgs& a) {
    auto& m = self_match(I, a, "expand");
    ArgParser p(I, a, "expand", {"$clinic", "$self", "template"});
    auto pieces = template_for(I, m.re(), p.get("template"));
    return make_str(expand_template(pieces, [&](size_t g) { return m.group_text(g); }));
  });
  def_property(c, "string", [](Interp& I, CallArgs& a) { return self_match(I, a, "string").string; });
  def_property(c, "re", [](Interp& I, CallArgs& a) { return self_match(I, a, "re").pattern; });
  def_property(c, "pos", [](Interp& I, CallArgs& a) { return make_int(self_match(I, a, "pos").pos); });
  def_property(c, "endpos", [](Interp& I, CallArgs& a) { return make_int(self_match(I, a, "endpos").endpos); });
  def_property(c, "lastindex", [](Interp& I, CallArgs& a) -> Value {
    auto& m = self_match(I, a, "lastindex");
    return m.lastindex < 0 ? none() : make_int(m.lastindex);
  });
  def_property(c, "lastgroup", [](Interp& I, CallArgs& a) -> Value {
    auto& m = self_match(I, a, "lastgroup");
    for (auto& [name, g] : m.re().names)
      if (int64_t(g) == m.lastindex) return make_str(name);
    return none();
  });
  def_property(c, "regs", [](Interp& I, CallArgs& a) {
    auto& m = self_match(I, a, "regs");
    std::vector<Value> spans;
    for (size_t g = 0; g <= m.re().groups; ++g) spans.push_back(int_tuple({m.chars[2 * g], m.chars[2 * g + 1]}));
    return make_tuple(std::move(spans));
  });
  def(c, "__repr__", [](Interp& I, CallArgs& a) { return make_str(match_repr(I, self_match(I, a, "__repr__"))); });
  auto self = [](Interp& I, CallArgs& a) -> Value {
    self_match(I, a, "__copy__");
    return a.args[0];
  };
  def(c, "__copy__", self);
  def(c, "__deepcopy__", self);
}

}  // namespace shard::interp::bi::re
