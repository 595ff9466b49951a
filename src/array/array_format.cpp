// Port of the behaviour of numpy 1.24 arrayprint (_formatArray, array_repr, array_str) for
// the legacy=False default options, plus JAX's repr built on top of array2string.
#include "array/array_format.hpp"

#include <algorithm>

#include "array/element_format.hpp"

namespace shard::array {

using types::DType;

namespace {

constexpr int kLineWidth = 75;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
const std::string kSummaryInsert = "...";

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

// Flat indices of the elements numpy keeps when summarising (_leading_trailing): along each
// axis longer than 2*edgeitems only the first and last edgeitems entries.
void collect_shown(const ArrayView& a, const std::vector<int64_t>& strides, bool summarise,
                   size_t axis, int64_t offset, std::vector<uint64_t>& out) {
  if (axis == a.shape.size()) {
    out.push_back(load_element_bits(a.dtype, a.data, offset));
    return;
  }
  const int64_t n = a.shape[axis];
  const bool cut = summarise && n > 2 * kEdgeItems;
  for (int64_t i = 0; i < n; ++i) {
    if (cut && i == kEdgeItems) i = n - kEdgeItems;
    collect_shown(a, strides, summarise, axis + 1, offset + i * strides[axis], out);
  }
}

// numpy _extendLine (legacy=False): wrap before `word` if it would pass line_width, unless the
// line holds nothing but the indent.
void extend_line(std::string& s, std::string& line, const std::string& word, int line_width,
                 const std::string& next_line_prefix) {
  bool needs_wrap = int(line.size() + word.size()) > line_width;
  if (line.size() <= next_line_prefix.size()) needs_wrap = false;
  if (needs_wrap) {
    size_t end = line.find_last_not_of(" \t\n");
    s.append(line, 0, end == std::string::npos ? 0 : end + 1);
    s += '\n';
    line = next_line_prefix;
  }
  line += word;
}

std::string rstrip(std::string_view s) {
  size_t end = s.find_last_not_of(" \t\n");
  return std::string(s.substr(0, end == std::string_view::npos ? 0 : end + 1));
}

struct FormatArray {
  const ArrayView& a;
  const std::vector<int64_t>& strides;
  const ElementFormat& fmt;
  std::string separator;
  bool summarise;

  std::string element(int64_t offset) const {
    return fmt(load_element_bits(a.dtype, a.data, offset));
  }

  // numpy _formatArray.recurser: index -> (axis, offset)
  std::string recurse(size_t axis, int64_t offset, const std::string& hanging_indent,
                      int curr_width) const {
    const size_t axes_left = a.shape.size() - axis;
    if (axes_left == 0) return element(offset);
    const std::string next_hanging_indent = hanging_indent + ' ';
    const int next_width = curr_width - 1;  // room for the closing ']'
    const int64_t len = a.shape[axis];
    const bool show_summary = summarise && 2 * kEdgeItems < len;
    const int64_t leading = show_summary ? kEdgeItems : 0;
    const int64_t trailing = show_summary ? kEdgeItems : len;
    const int64_t stride = strides[axis];
    auto child = [&](int64_t i) {  // i may be negative: counts from the end
      const int64_t idx = i < 0 ? len + i : i;
      return recurse(axis + 1, offset + idx * stride, next_hanging_indent, next_width);
    };
    std::string s;
    if (axes_left == 1) {
      const int sep_width = int(rstrip(separator).size());
      const int elem_width = curr_width - std::max(sep_width, 1);
      std::string line = hanging_indent;
      for (int64_t i = 0; i < leading; ++i) {
        extend_line(s, line, child(i), elem_width, hanging_indent);
        line += separator;
      }
      if (show_summary) {
        extend_line(s, line, kSummaryInsert, elem_width, hanging_indent);
        line += separator;
      }
      for (int64_t i = trailing; i > 1; --i) {
        extend_line(s, line, child(-i), elem_width, hanging_indent);
        line += separator;
      }
      extend_line(s, line, child(-1), elem_width, hanging_indent);
      s += line;
    } else {
      const std::string line_sep = rstrip(separator) + std::string(axes_left - 1, '\n');
      for (int64_t i = 0; i < leading; ++i) s += hanging_indent + child(i) + line_sep;
      if (show_summary) s += hanging_indent + kSummaryInsert + line_sep;
      for (int64_t i = trailing; i > 1; --i) s += hanging_indent + child(-i) + line_sep;
      s += hanging_indent + child(-1);
    }
    return "[" + s.substr(hanging_indent.size()) + "]";
  }
};

bool dtype_is_implied(DType t) {
  return t == DType::F64 || t == DType::I64 || t == DType::Bool || t == DType::C128;
}

}  // namespace

int64_t element_count(const ArrayView& a) {
  int64_t n = 1;
  for (int64_t d : a.shape) n *= std::max<int64_t>(d, 0);  // a bad negative dim reads nothing
  return n;
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string array_to_string(const ArrayView& a, std::string_view separator,
                            std::string_view prefix, size_t suffix_len) {
  const int64_t size = element_count(a);
  if (size == 0) return "[]";
  const bool summarise = size > kThreshold;
  const auto strides = row_major_strides(a.shape);
  std::vector<uint64_t> shown;
  collect_shown(a, strides, summarise, 0, 0, shown);
  const ElementFormat fmt(a.dtype, shown, a.shape.empty(), a.data);
  FormatArray f{a, strides, fmt, std::string(separator), summarise};
  const std::string next_line_prefix = " " + std::string(prefix.size(), ' ');
  return f.recurse(0, 0, next_line_prefix, kLineWidth - int(suffix_len));
}

std::string format_array_str(const ArrayView& a) {
  if (a.shape.empty()) return format_scalar_str(a.dtype, a.data);
  return array_to_string(a, " ");
}

std::string format_array_repr(const ArrayView& a, std::string_view prefix,
                              bool show_dtype_always) {
  const int64_t size = element_count(a);
  const bool skip_dtype = !show_dtype_always && dtype_is_implied(a.dtype) && size > 0;
  const std::string suffix = skip_dtype ? ")" : ",";
  std::string body;
  if (size > 0 || a.shape.size() == 1) {
    body = array_to_string(a, ", ", prefix, suffix.size());
  } else {
    body = "[], shape=" + shape_to_string(a.shape);
  }
  std::string out = std::string(prefix) + body + suffix;
  if (skip_dtype) return out;
  const std::string dtype_str = "dtype=" + std::string(types::dtype_name(a.dtype)) + ")";
  const size_t nl = out.rfind('\n');
  const size_t last_line_len = out.size() - (nl == std::string::npos ? 0 : nl + 1);
  if (int(last_line_len + dtype_str.size() + 1) > kLineWidth)
    return out + "\n" + std::string(prefix.size(), ' ') + dtype_str;
  return out + " " + dtype_str;
}

std::string format_jax_repr(const ArrayView& a, bool weak_type) {
  const std::string prefix = "Array(";
  const std::string dtype_str = "dtype=" + std::string(types::dtype_name(a.dtype)) +
                                (weak_type ? ", weak_type=True)" : ")");
  std::string s;
  if (element_count(a) == 0) {
    s = "[], shape=" + shape_to_string(a.shape);
  } else {
    s = array_to_string(a, ", ", prefix, 1);
  }
  // JAX computes len(s) - s.rfind('\n') + 1 (two more than the last line's length when there
  // is a newline, len+2 when not) and pads with spaces instead of breaking the line.
  const size_t nl = s.rfind('\n');
  const int64_t last_line_len =
      int64_t(s.size()) - (nl == std::string::npos ? -1 : int64_t(nl)) + 1;
  std::string sep = " ";
  if (last_line_len + int64_t(dtype_str.size()) + 1 > kLineWidth)
    sep = std::string(prefix.size(), ' ');
  return prefix + s + "," + sep + dtype_str;
}

std::string format_scalar_str(DType dtype, const void* data) {
  if (types::is_complex(dtype)) return format_complex_scalar(dtype, data);
  return format_scalar_element(dtype, load_element_bits(dtype, data, 0));
}

}  // namespace shard::array
