// CPython 3.11's Lib/textwrap.py on code points (see textwrap.hpp). Its regular expressions
// are spelled out as scanners: wordsep_re (split_words), sentence_end_re, and dedent's
// _whitespace_only_re / _leading_whitespace_re.
#include "interp/builtins/textwrap.hpp"

#include <algorithm>
#include <new>

#include "interp/builtins/str_util.hpp"

namespace shard::interp::bi::textwrap {

namespace {

using U32 = std::u32string;

// textwrap's _whitespace: the only characters it treats as whitespace.
bool is_ws(char32_t c) { return c == '\t' || c == '\n' || c == 0x0b || c == 0x0c || c == '\r' || c == ' '; }
bool is_word(char32_t c) { return c == '_' || cp_is_alpha(c) || cp_is_digit(c); }  // \w
bool is_letter(char32_t c) { return is_word(c) && !cp_is_digit(c); }                // [^\d\W]
bool is_word_punct(char32_t c) {                                                     // [\w!"'&.,?]
  return is_word(c) || c == '!' || c == '"' || c == '\'' || c == '&' || c == '.' || c == ',' || c == '?';
}

// The text at `i` is `-{2,}` followed by a word character (an em-dash between words).
bool em_dash_at(const U32& t, size_t i) {
  size_t j = i;
  while (j < t.size() && t[j] == '-') ++j;
  return j - i >= 2 && j < t.size() && is_word(t[j]);
}

bool letter_at(const U32& t, size_t i) { return i < t.size() && is_letter(t[i]); }

// The hyphen at `j` ends a word part: a letter pair or `letter-letter` before it
// ((?<=lt{2}-) | (?<=lt-lt-)) and `letter -? letter` after it.
bool hyphen_break_at(const U32& t, size_t j) {
  if (j >= t.size() || t[j] != '-') return false;
  bool before = (j >= 2 && is_letter(t[j - 2]) && is_letter(t[j - 1])) ||
                (j >= 3 && is_letter(t[j - 3]) && t[j - 2] == '-' && is_letter(t[j - 1]));
  if (!before || !letter_at(t, j + 1)) return false;
  return (j + 2 < t.size() && t[j + 2] == '-' && letter_at(t, j + 3)) || letter_at(t, j + 2);
}

// The chunks of TextWrapper.wordsep_re.split(text): whitespace runs, em-dashes between
// words, and words (cut after the hyphens of compound words, and before em-dashes).
std::vector<U32> split_words(const U32& t) {
  std::vector<U32> out;
  size_t i = 0;
  while (i < t.size()) {
    size_t end;
    if (is_ws(t[i])) {
      end = i;
      while (end < t.size() && is_ws(t[end])) ++end;
    } else if (t[i] == '-' && i > 0 && is_word_punct(t[i - 1]) && em_dash_at(t, i)) {
      end = i;
      while (end < t.size() && t[end] == '-') ++end;
    } else {
      // The shortest run of non-whitespace that reaches a break (regex `nws+?` then a break).
      size_t j = i + 1;
      while (true) {
        if (hyphen_break_at(t, j)) {
          end = j + 1;
          break;
        }
        if (j == t.size() || is_ws(t[j])) {
          end = j;
          break;
        }
        if (is_word_punct(t[j - 1]) && em_dash_at(t, j)) {
          end = j;
          break;
        }
        ++j;
      }
    }
    out.push_back(t.substr(i, end - i));
    i = end;
  }
  return out;
}

// wordsep_simple_re.split(text): runs of whitespace and runs of anything else.
std::vector<U32> split_simple(const U32& t) {
  std::vector<U32> out;
  size_t i = 0;
  while (i < t.size()) {
    bool ws = is_ws(t[i]);
    size_t j = i;
    while (j < t.size() && is_ws(t[j]) == ws) ++j;
    out.push_back(t.substr(i, j - i));
    i = j;
  }
  return out;
}

// str.expandtabs(tabsize): columns restart after \n and \r.
U32 expand_tabs(const U32& t, int64_t tabsize) {
  U32 out;
  int64_t col = 0;
  for (char32_t c : t) {
    if (c == '\t') {
      if (tabsize > 0) {
        int64_t n = tabsize - col % tabsize;
        if (n > (int64_t(1) << 28) || out.size() > (size_t(1) << 28)) throw std::bad_alloc();  // MemoryError
        out.append(size_t(n), U' ');
        col += n;
      }
    } else {
      out.push_back(c);
      col = (c == '\n' || c == '\r') ? 0 : col + 1;
    }
  }
  return out;
}

U32 munge_whitespace(U32 t, const Options& o) {
  if (o.expand_tabs) t = expand_tabs(t, o.tabsize);
  if (o.replace_whitespace)
    for (char32_t& c : t)
      if (is_ws(c)) c = ' ';
  return t;
}

// sentence_end_re: a lowercase ASCII letter, then . ! or ?, then maybe a quote, at the end.
bool ends_sentence(const U32& c) {
  size_t n = c.size();
  auto punct = [](char32_t x) { return x == '.' || x == '!' || x == '?'; };
  auto lower = [](char32_t x) { return x >= 'a' && x <= 'z'; };
  if (n >= 2 && punct(c[n - 1]) && lower(c[n - 2])) return true;
  return n >= 3 && (c[n - 1] == '"' || c[n - 1] == '\'') && punct(c[n - 2]) && lower(c[n - 3]);
}

void fix_sentence_endings(std::vector<U32>& chunks) {
  size_t i = 0;
  while (i + 1 < chunks.size()) {
    if (chunks[i + 1] == U" " && ends_sentence(chunks[i])) {
      chunks[i + 1] = U"  ";
      i += 2;
    } else {
      ++i;
    }
  }
}

int64_t len(const U32& s) { return int64_t(s.size()); }

U32 join(const std::vector<U32>& parts) {
  U32 out;
  for (auto& p : parts) out += p;
  return out;
}

U32 lstrip(const U32& s) {
  size_t i = 0;
  while (i < s.size() && cp_is_space(s[i])) ++i;
  return s.substr(i);
}

U32 rstrip(const U32& s) {
  size_t n = s.size();
  while (n > 0 && cp_is_space(s[n - 1])) --n;
  return s.substr(0, n);
}

// _handle_long_word: a chunk longer than a whole line is cut (after a hyphen if possible).
void handle_long_word(std::vector<U32>& reversed_chunks, std::vector<U32>& cur_line, int64_t cur_len,
                      int64_t width, const Options& o) {
  int64_t space_left = width < 1 ? 1 : width - cur_len;
  if (o.break_long_words) {
    int64_t end = space_left;
    U32 chunk = reversed_chunks.back();
    if (o.break_on_hyphens && len(chunk) > space_left) {
      U32 head = chunk.substr(0, size_t(std::max<int64_t>(space_left, 0)));
      size_t hyphen = head.rfind(U'-');
      if (hyphen != U32::npos && hyphen > 0 &&
          std::any_of(chunk.begin(), chunk.begin() + hyphen, [](char32_t c) { return c != '-'; }))
        end = int64_t(hyphen) + 1;
    }
    size_t cut = size_t(std::clamp<int64_t>(end, 0, len(chunk)));
    cur_line.push_back(chunk.substr(0, cut));
    reversed_chunks.back() = chunk.substr(cut);
  } else if (cur_line.empty()) {
    cur_line.push_back(reversed_chunks.back());
    reversed_chunks.pop_back();
  }
}

// _wrap_chunks.
std::vector<U32> wrap_chunks(std::vector<U32> chunks, const Options& o) {
  std::vector<U32> lines;
  if (o.width <= 0) throw WrapError("invalid width " + std::to_string(o.width) + " (must be > 0)");
  if (o.max_lines) {
    const U32& indent = *o.max_lines > 1 ? o.subsequent_indent : o.initial_indent;
    if (len(indent) + len(lstrip(o.placeholder)) > o.width) throw WrapError("placeholder too large for max width");
  }
  std::reverse(chunks.begin(), chunks.end());
  while (!chunks.empty()) {
    std::vector<U32> cur_line;
    int64_t cur_len = 0;
    const U32& indent = lines.empty() ? o.initial_indent : o.subsequent_indent;
    int64_t width = o.width - len(indent);
    if (o.drop_whitespace && !has_text(chunks.back()) && !lines.empty()) chunks.pop_back();
    while (!chunks.empty()) {
      int64_t l = len(chunks.back());
      if (cur_len + l > width) break;
      cur_line.push_back(chunks.back());
      chunks.pop_back();
      cur_len += l;
    }
    if (!chunks.empty() && len(chunks.back()) > width) {
      handle_long_word(chunks, cur_line, cur_len, width, o);
      cur_len = 0;
      for (auto& c : cur_line) cur_len += len(c);
    }
    if (o.drop_whitespace && !cur_line.empty() && !has_text(cur_line.back())) {
      cur_len -= len(cur_line.back());
      cur_line.pop_back();
    }
    if (cur_line.empty()) continue;
    bool rest_is_blank = chunks.empty() || (o.drop_whitespace && chunks.size() == 1 && !has_text(chunks[0]));
    if (!o.max_lines || int64_t(lines.size()) + 1 < *o.max_lines || (rest_is_blank && cur_len <= width)) {
      lines.push_back(indent + join(cur_line));
      continue;
    }
    // The last line allowed: as many chunks as fit with the placeholder after them.
    bool placed = false;
    while (!cur_line.empty()) {
      if (has_text(cur_line.back()) && cur_len + len(o.placeholder) <= width) {
        cur_line.push_back(o.placeholder);
        lines.push_back(indent + join(cur_line));
        placed = true;
        break;
      }
      cur_len -= len(cur_line.back());
      cur_line.pop_back();
    }
    if (!placed) {
      if (!lines.empty()) {
        U32 prev = rstrip(lines.back());
        if (len(prev) + len(o.placeholder) <= o.width) {
          lines.back() = prev + o.placeholder;
          break;
        }
      }
      lines.push_back(indent + lstrip(o.placeholder));
    }
    break;
  }
  return lines;
}

std::vector<U32> split_lines_on_newline(const U32& t) {
  std::vector<U32> lines;
  size_t start = 0;
  while (true) {
    size_t nl = t.find(U'\n', start);
    if (nl == U32::npos) {
      lines.push_back(t.substr(start));
      return lines;
    }
    lines.push_back(t.substr(start, nl - start));
    start = nl + 1;
  }
}

bool starts_with(const U32& s, const U32& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

}  // namespace

bool has_text(const std::u32string& s) {
  return std::any_of(s.begin(), s.end(), [](char32_t c) { return !cp_is_space(c); });
}

std::vector<std::u32string> split_chunks(const std::u32string& text, const Options& o) {
  U32 t = munge_whitespace(text, o);
  return o.break_on_hyphens ? split_words(t) : split_simple(t);
}

std::vector<std::u32string> wrap(const std::u32string& text, const Options& o) {
  std::vector<U32> chunks = split_chunks(text, o);
  if (o.fix_sentence_endings) fix_sentence_endings(chunks);
  return wrap_chunks(std::move(chunks), o);
}

std::u32string dedent(const std::u32string& text) {
  std::vector<U32> lines = split_lines_on_newline(text);
  // Lines of only spaces and tabs become empty; the others' leading blanks are indents.
  std::vector<U32> indents;
  for (auto& line : lines) {
    size_t n = 0;
    while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
    if (n == line.size()) line.clear();
    else indents.push_back(line.substr(0, n));
  }
  std::optional<U32> margin;
  for (auto& indent : indents) {
    if (!margin) {
      margin = indent;
    } else if (starts_with(indent, *margin)) {
    } else if (starts_with(*margin, indent)) {
      margin = indent;
    } else {
      size_t i = 0;
      while (i < margin->size() && i < indent.size() && (*margin)[i] == indent[i]) ++i;
      margin = margin->substr(0, i);
    }
  }
  U32 out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) out += U'\n';
    const U32& line = lines[i];
    out += margin && !margin->empty() && starts_with(line, *margin) ? line.substr(margin->size()) : line;
  }
  return out;
}

}  // namespace shard::interp::bi::textwrap
