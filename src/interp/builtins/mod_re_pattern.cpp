// re.Pattern: attributes, repr/equality, and the scans (search, match, fullmatch, findall,
// finditer, sub, subn, split) with CPython's _sre loops, over the Scanner defined here.
#include <fmt/format.h>

#include "interp/builtins/re_objects.hpp"

namespace shard::interp::bi::re {

// ---- Scanner ----

Scanner::Scanner(Interp& I, Value pattern, Value string, int64_t pos, int64_t endpos)
    : I_(I),
      pattern_(std::move(pattern)),
      string_(std::move(string)),
      re_(static_cast<PatternObj&>(*pattern_)),
      text_(str_of(string_)->v),
      index_(text_) {
  int64_t len = int64_t(index_.size());
  pos_ = std::clamp<int64_t>(pos, 0, len);
  endpos_ = std::clamp<int64_t>(endpos, 0, len);
  cursor_ = index_.off(size_t(pos_));
  end_byte_ = index_.off(size_t(endpos_));
  data_ = pcre2_match_data_create_from_pattern(re_.code, nullptr);
  if (!data_) I.raise("MemoryError", "");
  ovector_ = pcre2_get_ovector_pointer(data_);
}

Scanner::~Scanner() { pcre2_match_data_free(data_); }

bool Scanner::next(uint32_t anchor) {
  if (done_ || cursor_ > end_byte_) {
    done_ = true;
    return false;
  }
  uint32_t options = anchor | (must_advance_ ? PCRE2_NOTEMPTY_ATSTART : 0);
  auto subject = reinterpret_cast<PCRE2_SPTR>(text_.data());
  auto run = [&](uint32_t extra) {
    pcre2_code* code = lenient_ ? lenient_code(I_, re_) : re_.code;
    int rc = pcre2_match(code, subject, end_byte_, cursor_, options | extra, data_, nullptr);
    // The JIT's stack is small; the interpreter's limits are PCRE2's heap and match limits.
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
      rc = pcre2_match(code, subject, end_byte_, cursor_, options | extra | PCRE2_NO_JIT, data_, nullptr);
    return rc;
  };
  int rc = run(checked_ ? PCRE2_NO_UTF_CHECK : 0);
  if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21 && !lenient_) {
    lenient_ = true;
    rc = run(0);
  }
  checked_ = !lenient_;
  if (rc == PCRE2_ERROR_NOMATCH) {
    done_ = true;
    return false;
  }
  if (rc < 0) I_.raise("RuntimeError", "regular expression matching failed: " + pcre2_message(rc));
  set_ = size_t(rc);
  must_advance_ = ovector_[0] == ovector_[1];
  cursor_ = ovector_[1];
  return true;
}

std::optional<std::string_view> Scanner::group_text(size_t g) const {
  if (!has_group(g)) return std::nullopt;
  return std::string_view(text_).substr(start_byte(g), end_byte(g) - start_byte(g));
}

Value Scanner::group_value(size_t g, const Value& unset) const {
  auto t = group_text(g);
  return t ? make_str(std::string(*t)) : unset;
}

Value Scanner::match_object() const {
  auto m = std::make_shared<MatchObj>(match_class());
  m->pattern = pattern_;
  m->string = string_;
  m->pos = pos_;
  m->endpos = endpos_;
  size_t n = re_.groups + 1;
  m->bytes.assign(2 * n, -1);
  m->chars.assign(2 * n, -1);
  for (size_t g = 0; g < n; ++g) {
    if (!has_group(g)) continue;
    for (size_t k : {2 * g, 2 * g + 1}) {
      m->bytes[k] = int64_t(ovector_[k]);
      m->chars[k] = int64_t(index_.index_of_byte(ovector_[k]));
    }
  }
  // CPython's lastindex is the group whose ')' was passed last. Without a trace of the match,
  // take the group ending furthest right; among those, the one closing last in the pattern
  // (an enclosing group, or the later of adjacent ones).
  for (size_t g = 1; g < n; ++g) {
    if (!has_group(g)) continue;
    int64_t best = m->lastindex;
    if (best < 0 || m->bytes[2 * g + 1] > m->bytes[2 * best + 1] ||
        (m->bytes[2 * g + 1] == m->bytes[2 * best + 1] && re_.close_rank[g - 1] > re_.close_rank[best - 1]))
      m->lastindex = int64_t(g);
  }
  return m;
}

namespace {

PatternObj& self_pattern(Interp& I, CallArgs& a, const char* meth) {
  return native_self<PatternObj>(I, a, pattern_class(), "re.Pattern", meth);
}

int64_t int_param(Interp& I, const ArgParser& p, const char* name, int64_t dflt) {
  return p.has(name) ? index_of(I, p.get(name), "") : dflt;
}

// search / match / fullmatch (string, pos=0, endpos=sys.maxsize)
NativeFn single_match(const char* name, uint32_t anchor) {
  return [name, anchor](Interp& I, CallArgs& a) -> Value {
    ArgParser p(I, a, name, {"$clinic", "$self", "string", "pos=", "endpos="});
    self_pattern(I, a, name);
    Scanner s(I, a.args[0], subject_arg(I, p.get("string")), int_param(I, p, "pos", 0),
              int_param(I, p, "endpos", INT64_MAX));
    return s.next(anchor) ? s.match_object() : none();
  };
}

// findall's item: the whole match, the one group, or a tuple of all groups ("" when unset).
Value findall_item(const Scanner& s) {
  size_t groups = s.re().groups;
  Value empty = make_str("");
  if (groups == 0) return s.group_value(0, empty);
  if (groups == 1) return s.group_value(1, empty);
  std::vector<Value> items;
  items.reserve(groups);
  for (size_t g = 1; g <= groups; ++g) items.push_back(s.group_value(g, empty));
  return make_tuple(std::move(items));
}

bool is_callable(const Value& v) {
  switch (v->kind) {
    case ObjKind::Function: case ObjKind::Builtin: case ObjKind::BoundMethod: case ObjKind::Class: return true;
    default: return v->cls->lookup("__call__") != nullptr;
  }
}

// sub / subn: pattern_subx in _sre.c. The pieces are joined at the end as CPython joins its
// list, so a callable's non-str result is reported after every call has run, by its index.
Value substitute(Interp& I, CallArgs& a, const char* name, bool with_count) {
  ArgParser p(I, a, name, {"$clinic", "$self", "repl", "string", "count="});
  self_pattern(I, a, name);
  Value repl = p.get("repl");
  Value string = subject_arg(I, p.get("string"));
  int64_t count = int_param(I, p, "count", 0);
  bool callable = is_callable(repl);
  std::vector<TemplatePiece> pieces;
  if (!callable) {
    auto* r = str_of(repl);
    if (!r)
      I.raise("TypeError", fmt::format("decoding to str: need a bytes-like object, {} found", I.type_name(repl)));
    if (r->v.find('\\') == std::string::npos) pieces.push_back({r->v, -1});
    else pieces = template_for(I, static_cast<PatternObj&>(*a.args[0]), repl);
  }
  Scanner s(I, a.args[0], string);
  const std::string& text = s.text();
  std::string out;
  size_t last = 0, items = 0;
  int64_t n = 0;
  std::optional<std::string> bad_item;
  while (count == 0 || n < count) {
    if (!s.next()) break;
    if (last < s.start_byte()) {
      out.append(text, last, s.start_byte() - last);
      ++items;
    }
    if (callable) {
      Value r = I.call(repl, std::vector<Value>{s.match_object()});
      if (auto* str = str_of(r)) {
        out += str->v;
        ++items;
      } else if (r->kind != ObjKind::None) {
        if (!bad_item)
          bad_item = fmt::format("sequence item {}: expected str instance, {} found", items, I.type_name(r));
        ++items;
      }
    } else {
      out += expand_template(pieces, [&](size_t g) { return s.group_text(g); });
      ++items;
    }
    last = s.end_byte();
    ++n;
  }
  if (bad_item) I.raise("TypeError", *bad_item);
  if (last < s.end_limit()) out.append(text, last, s.end_limit() - last);
  Value result = make_str(std::move(out));
  return with_count ? make_tuple({result, make_int(n)}) : result;
}

std::string pattern_repr(const PatternObj& p) {
  std::string shown = str_repr(p.pattern);
  U8 index(shown);
  if (index.size() > 200) shown.resize(index.off(200));  // %.200R
  int64_t flags = p.flags;
  if ((flags & (kLocale | kUnicode | kAscii)) == kUnicode) flags &= ~kUnicode;  // implied for str
  if (!flags) return "re.compile(" + shown + ")";
  // _sre.c's flag_names order
  static const std::pair<const char*, int64_t> names[] = {
      {"re.TEMPLATE", kTemplate}, {"re.IGNORECASE", kIgnoreCase}, {"re.LOCALE", kLocale},
      {"re.MULTILINE", kMultiline}, {"re.DOTALL", kDotAll}, {"re.UNICODE", kUnicode},
      {"re.VERBOSE", kVerbose}, {"re.DEBUG", kDebug}, {"re.ASCII", kAscii},
  };
  std::string text;
  for (auto& [name, bit] : names) {
    if (!(flags & bit)) continue;
    text += (text.empty() ? "" : "|") + std::string(name);
    flags &= ~bit;
  }
  if (flags) text += (text.empty() ? "" : "|") + fmt::format("0x{:x}", flags);
  return "re.compile(" + shown + ", " + text + ")";
}

}  // namespace

void init_pattern_class(const ClassP& c) {
  def(c, "search", single_match("search", 0));
  def(c, "match", single_match("match", PCRE2_ANCHORED));
  def(c, "fullmatch", single_match("fullmatch", PCRE2_ANCHORED | PCRE2_ENDANCHORED));
  def(c, "findall", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "findall", {"$clinic", "$self", "string", "pos=", "endpos="});
    self_pattern(I, a, "findall");
    Scanner s(I, a.args[0], subject_arg(I, p.get("string")), int_param(I, p, "pos", 0),
              int_param(I, p, "endpos", INT64_MAX));
    std::vector<Value> out;
    while (s.next()) out.push_back(findall_item(s));
    return make_list(std::move(out));
  });
  def(c, "finditer", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "finditer", {"$clinic", "$self", "string", "pos=", "endpos="});
    self_pattern(I, a, "finditer");
    auto s = std::make_shared<Scanner>(I, a.args[0], subject_arg(I, p.get("string")), int_param(I, p, "pos", 0),
                                       int_param(I, p, "endpos", INT64_MAX));
    return make_iterator(iter_class("callable_iterator"), [s]() -> std::optional<Value> {
      if (!s->next()) return std::nullopt;
      return s->match_object();
    });
  });
  def(c, "sub", [](Interp& I, CallArgs& a) { return substitute(I, a, "sub", false); });
  def(c, "subn", [](Interp& I, CallArgs& a) { return substitute(I, a, "subn", true); });
  def(c, "split", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "split", {"$clinic", "$self", "string", "maxsplit="});
    auto& re = self_pattern(I, a, "split");
    Scanner s(I, a.args[0], subject_arg(I, p.get("string")));
    int64_t maxsplit = int_param(I, p, "maxsplit", 0);
    const std::string& text = s.text();
    std::vector<Value> out;
    size_t last = 0;
    for (int64_t n = 0; (maxsplit == 0 || n < maxsplit) && s.next(); ++n) {
      out.push_back(make_str(text.substr(last, s.start_byte() - last)));
      for (size_t g = 1; g <= re.groups; ++g) out.push_back(s.group_value(g, none()));
      last = s.end_byte();
    }
    out.push_back(make_str(text.substr(last, s.end_limit() - last)));
    return make_list(std::move(out));
  });
  def_property(c, "pattern", [](Interp& I, CallArgs& a) { return make_str(self_pattern(I, a, "pattern").pattern); });
  def_property(c, "flags", [](Interp& I, CallArgs& a) { return make_int(self_pattern(I, a, "flags").flags); });
  def_property(c, "groups", [](Interp& I, CallArgs& a) {
    return make_int(int64_t(self_pattern(I, a, "groups").groups));
  });
  // CPython returns a read-only mappingproxy; a fresh dict keeps the pattern's own intact.
  def_property(c, "groupindex", [](Interp& I, CallArgs& a) {
    auto d = make_dict();
    for (auto& [name, g] : self_pattern(I, a, "groupindex").names) d->set(I, make_str(name), make_int(int64_t(g)));
    return Value(d);
  });
  def(c, "__repr__", [](Interp& I, CallArgs& a) { return make_str(pattern_repr(self_pattern(I, a, "__repr__"))); });
  def(c, "__eq__", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "__eq__", 1, 1);
    auto& x = self_pattern(I, a, "__eq__");
    const Value& other = a.args[1];
    if (other->kind != ObjKind::Native || other->cls.get() != pattern_class().get()) return not_implemented();
    auto& y = static_cast<PatternObj&>(*other);
    return make_bool(x.flags == y.flags && x.pattern == y.pattern);
  });
  def(c, "__hash__", [](Interp& I, CallArgs& a) {
    auto& x = self_pattern(I, a, "__hash__");
    return make_int(int64_t(numfmt::hash_bytes(x.pattern) ^ uint64_t(x.flags)));
  });
  auto self = [](Interp& I, CallArgs& a) -> Value {
    self_pattern(I, a, "__copy__");
    return a.args[0];
  };
  def(c, "__copy__", self);
  def(c, "__deepcopy__", self);
}

}  // namespace shard::interp::bi::re
