// jax.debug.visualize_array_sharding and jax.debug.inspect_array_sharding.
//
// The picture is the one JAX draws with `rich` (jax/_src/debugging.py visualize_sharding):
// one cell per distinct block, labelled "CPU " + the sorted ids of the devices holding it,
// sized in proportion to the block (10 lines for the whole height, 2.5 columns per line of
// width, at least 9 columns), in a rich Table with box.SQUARE and lines between rows. On a
// terminal JAX colours the cells (tab20b backgrounds, no box); elsewhere it prints the boxes
// without colour — so do we. Beyond JAX: rank >= 3 arrays draw one grid per block of the
// leading dimensions, each headed by its index range.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "api/modules/visualize.hpp"
#include "api/modules/debug_layout_probe.hpp"
#include "api/objects/array_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "api/pytree/pytree.hpp"
#include "interp/builtins/support.hpp"
#include "trace/trace.hpp"

namespace shard::api {

namespace {

using types::NamedSharding;
using types::Shape;


// Python's divmod for ints (floor division: divmod(-1, 2) == (-1, 1)).
std::pair<int64_t, int64_t> py_divmod(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) {
    --q;
    r += b;
  }
  return {q, r};
}

// One cell of the grid: its label, padding (top, right, bottom, left) and background.
struct Cell {
  std::string text;
  int64_t top = 0, right = 0, bottom = 0, left = 0;
  std::optional<std::array<int, 3>> bg;
};

// matplotlib's tab20b, the colours JAX uses on a terminal.
constexpr std::array<std::array<int, 3>, 20> kTab20b = {{
    {0x39, 0x3b, 0x79}, {0x52, 0x54, 0xa3}, {0x6b, 0x6e, 0xcf}, {0x9c, 0x9e, 0xde}, {0x63, 0x79, 0x39},
    {0x8c, 0xa2, 0x52}, {0xb5, 0xcf, 0x6b}, {0xce, 0xdb, 0x9c}, {0x8c, 0x6d, 0x31}, {0xbd, 0x9e, 0x39},
    {0xe7, 0xba, 0x52}, {0xe7, 0xcb, 0x94}, {0x84, 0x3c, 0x39}, {0xad, 0x49, 0x4a}, {0xd6, 0x61, 0x6b},
    {0xe7, 0x96, 0x9c}, {0x7b, 0x41, 0x73}, {0xa5, 0x51, 0x94}, {0xce, 0x6d, 0xbd}, {0xde, 0x9e, 0xd6},
}};

// JAX's make_color_iter: evenly spaced samples of the colour map, visited with a stride of
// about half the count so that neighbouring cells differ.
std::vector<std::array<int, 3>> cell_colors(int64_t n) {
  std::vector<std::array<int, 3>> out;
  int64_t idx = 0;
  for (int64_t k = 0; k < n; ++k) {
    double v = n == 1 ? 0.0 : static_cast<double>(idx) / static_cast<double>(n - 1);
    int64_t c = std::min<int64_t>(19, static_cast<int64_t>(v * 20));
    out.push_back(kTab20b[static_cast<size_t>(c)]);
    idx = (idx + n / 2 + (n % 2 == 0 ? 1 : 0)) % n;
  }
  return out;
}

size_t text_width(const std::string& s) {  // labels are ASCII
  return s.size();
}

// rich's word wrap of a label into lines of at most `width` (long words are folded).
std::vector<std::string> wrap_label(const std::string& text, int64_t width) {
  if (width <= 0) return {""};
  std::vector<std::string> words, lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t sp = text.find(' ', start);
    words.push_back(text.substr(start, sp == std::string::npos ? std::string::npos : sp - start));
    if (sp == std::string::npos) break;
    start = sp + 1;
  }
  std::string line;
  for (auto w : words) {
    while (static_cast<int64_t>(w.size()) > width) {  // fold
      if (!line.empty()) { lines.push_back(line); line.clear(); }
      lines.push_back(w.substr(0, static_cast<size_t>(width)));
      w = w.substr(static_cast<size_t>(width));
    }
    if (line.empty()) line = w;
    else if (static_cast<int64_t>(line.size() + 1 + w.size()) <= width) line += " " + w;
    else { lines.push_back(line); line = w; }
  }
  lines.push_back(line);
  return lines;
}

// rich's ratio_reduce: takes `total` off `values` in proportion to `ratios`, at most
// `maximums` each.
std::vector<int64_t> ratio_reduce(int64_t total, std::vector<int64_t> ratios, const std::vector<int64_t>& maximums,
                                  const std::vector<int64_t>& values) {
  for (size_t i = 0; i < ratios.size(); ++i)
    if (!maximums[i]) ratios[i] = 0;
  int64_t total_ratio = 0;
  for (auto r : ratios) total_ratio += r;
  if (!total_ratio) return values;
  int64_t remaining = total;
  std::vector<int64_t> out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (ratios[i] && total_ratio > 0) {
      auto distributed = std::min<int64_t>(maximums[i], std::llround(static_cast<double>(ratios[i] * remaining) / total_ratio));
      out.push_back(values[i] - distributed);
      remaining -= distributed;
      total_ratio -= ratios[i];
    } else {
      out.push_back(values[i]);
    }
  }
  return out;
}

// rich's Table._collapse_widths then ratio_reduce: column widths that fit `max_width`.
std::vector<int64_t> fit_widths(std::vector<int64_t> widths, int64_t max_width) {
  auto sum = [](const std::vector<int64_t>& v) { int64_t s = 0; for (auto x : v) s += x; return s; };
  int64_t total = sum(widths), excess = total - max_width;
  while (total && excess > 0) {
    int64_t mx = *std::max_element(widths.begin(), widths.end()), second = 0;
    for (auto w : widths)
      if (w != mx) second = std::max(second, w);
    int64_t diff = mx - second;
    if (!diff) break;
    std::vector<int64_t> ratios;
    for (auto w : widths) ratios.push_back(w == mx ? 1 : 0);
    widths = ratio_reduce(excess, ratios, std::vector<int64_t>(widths.size(), std::min(excess, diff)), widths);
    total = sum(widths);
    excess = total - max_width;
  }
  if (total > max_width) widths = ratio_reduce(total - max_width, std::vector<int64_t>(widths.size(), 1), widths, widths);
  return widths;
}

std::string sgr(const std::array<int, 3>& bg) {
  // JAX's _get_text_color: black on light backgrounds, white on dark ones.
  double lum = bg[0] / 255.0 * 0.299 * 256 + bg[1] / 255.0 * 0.587 * 256 + bg[2] / 255.0 * 0.114 * 256;
  int fg = lum > 186 ? 0 : 255;
  return fmt::format("\x1b[38;2;{0};{0};{0};48;2;{1};{2};{3}m", fg, bg[0], bg[1], bg[2]);
}

// Renders rows of cells as rich does: columns as wide as their widest cell, each cell's label
// centred between its paddings, cells top-aligned in their row.
std::string render_table(const std::vector<std::vector<Cell>>& rows, bool color, int64_t console_width) {
  const size_t ncols = rows.at(0).size();
  std::vector<int64_t> widths(ncols, 0);
  for (auto& row : rows)
    for (size_t j = 0; j < ncols; ++j)
      widths[j] = std::max<int64_t>(widths[j], row[j].left + row[j].right + static_cast<int64_t>(text_width(row[j].text)));
  const int64_t edges = color ? 0 : static_cast<int64_t>(ncols) + 1;
  widths = fit_widths(widths, console_width - edges);
  auto rule = [&](const char* l, const char* mid, const char* r) {
    std::string s = l;
    for (size_t j = 0; j < ncols; ++j) {
      if (j) s += mid;
      for (int64_t k = 0; k < widths[j]; ++k) s += "─";
    }
    return s + r + "\n";
  };
  std::string out;
  if (!color) out += rule("┌", "┬", "┐");
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<std::vector<std::string>> cells;  // each cell's lines, `widths[j]` wide
    size_t height = 0;
    for (size_t j = 0; j < ncols; ++j) {
      const Cell& c = rows[i][j];
      const int64_t w = widths[j], inner = std::max<int64_t>(0, w - c.left - c.right);
      std::vector<std::string> lines(static_cast<size_t>(c.top), std::string(static_cast<size_t>(w), ' '));
      for (auto& text : wrap_label(c.text, inner)) {
        int64_t excess = std::max<int64_t>(0, inner - static_cast<int64_t>(text.size()));
        int64_t lpad = excess / 2;
        std::string line = std::string(static_cast<size_t>(c.left + lpad), ' ') + text +
                           std::string(static_cast<size_t>(excess - lpad + c.right), ' ');
        lines.push_back(line.substr(0, static_cast<size_t>(w)));
      }
      for (int64_t k = 0; k < c.bottom; ++k) lines.emplace_back(static_cast<size_t>(w), ' ');
      height = std::max(height, lines.size());
      cells.push_back(std::move(lines));
    }
    for (size_t k = 0; k < height; ++k) {
      std::string line = color ? "" : "│";
      for (size_t j = 0; j < ncols; ++j) {
        std::string part = k < cells[j].size() ? cells[j][k] : std::string(static_cast<size_t>(widths[j]), ' ');
        if (color && rows[i][j].bg) line += sgr(*rows[i][j].bg) + part + "\x1b[0m";
        else line += part;
        if (!color) line += "│";
      }
      out += line + "\n";
    }
    if (!color && i + 1 < rows.size()) out += rule("├", "┼", "┤");
  }
  if (!color) out += rule("└", "┴", "┘");
  return out;
}

// The grid of a 1-D or 2-D array (or of the last two dims of one leading block): JAX's
// visualize_sharding sizing.
std::string draw_grid(const Shape& shape, const std::vector<types::ShardBlock>& blocks, const VisualizeOptions& o) {
  const bool color = o.color;
  const bool two_d = shape.size() == 2;
  const auto base_height = static_cast<int64_t>(10 * o.scale);
  const double aspect = static_cast<double>(two_d ? shape[1] : 1) / static_cast<double>(shape[0]);
  const auto base_width = static_cast<int64_t>(static_cast<double>(base_height) * aspect);
  const double height_to_width = 2.5;
  struct Chunk { std::vector<int> devices; double width = 0; std::optional<double> height; };
  std::map<std::pair<int64_t, int64_t>, Chunk> chunks;
  for (const auto& b : blocks) {
    auto chunk_idx = [&](size_t d) { return b.index[d].size() == shape[d] ? 0 : b.index[d].start / std::max<int64_t>(1, b.index[d].size()); };
    auto& c = two_d ? chunks[{chunk_idx(0), chunk_idx(1)}] : chunks[{0, chunk_idx(0)}];
    c.devices.insert(c.devices.end(), b.devices.begin(), b.devices.end());
    if (two_d) {
      c.height = static_cast<double>(b.index[0].size()) / static_cast<double>(shape[0]);
      c.width = static_cast<double>(b.index[1].size()) / static_cast<double>(shape[1]);
    } else {
      c.width = static_cast<double>(b.index[0].size()) / static_cast<double>(shape[0]);
    }
  }
  int64_t nrows = 0, ncols = 0;
  for (auto& [k, c] : chunks) {
    nrows = std::max(nrows, k.first + 1);
    ncols = std::max(ncols, k.second + 1);
  }
  auto colors = cell_colors(nrows * ncols);
  size_t next_color = 0;
  std::vector<std::vector<Cell>> rows;
  for (int64_t i = 0; i < nrows; ++i) {
    std::vector<Cell> row;
    for (int64_t j = 0; j < ncols; ++j) {
      auto& c = chunks.at({i, j});
      std::sort(c.devices.begin(), c.devices.end());
      c.devices.erase(std::unique(c.devices.begin(), c.devices.end()), c.devices.end());
      Cell cell;
      cell.text = fmt::format("CPU {}", fmt::join(c.devices, ","));
      auto width = static_cast<int64_t>(c.width * static_cast<double>(base_width) * height_to_width);
      int64_t height = c.height ? static_cast<int64_t>(*c.height * base_height) : 1;
      width = std::min<int64_t>(std::max<int64_t>(width, o.min_width), o.max_width);
      auto [left, lrem] = py_divmod(width - static_cast<int64_t>(cell.text.size()) - 2, 2);
      auto [top, trem] = py_divmod(height - 2, 2);
      int64_t right = left + lrem, bottom = top + trem;
      if (color) {
        cell.bg = colors[next_color++];
        ++top, ++bottom, ++left, ++right;
      }
      cell.top = std::max<int64_t>(0, top);
      cell.right = std::max<int64_t>(0, right);
      cell.bottom = std::max<int64_t>(0, bottom);
      cell.left = std::max<int64_t>(0, left);
      row.push_back(cell);
    }
    rows.push_back(std::move(row));
  }
  return render_table(rows, color, o.max_width);
}

bool stdout_is_terminal() {
  const char* no_color = std::getenv("NO_COLOR");
  return ::isatty(STDOUT_FILENO) && !(no_color && *no_color);
}

std::string range_text(const types::DimRange& r, int64_t full) {
  if (r.start == 0 && r.stop == full) return ":";
  if (r.size() == 1) return std::to_string(r.start);
  return fmt::format("{}:{}", r.start, r.stop);
}

}  // namespace

std::string visualize_sharding_text(const Shape& shape, const NamedSharding& sharding, const VisualizeOptions& o) {
  if (shape.empty())
    throw types::ShardingError("ValueError", "`visualize_sharding` only works for shapes with 1 and 2 dimensions.");
  for (auto d : shape)
    if (d == 0) throw types::ShardingError("ValueError", "`visualize_sharding` cannot draw an array with a zero-size dimension.");
  auto blocks = sharding.blocks(shape);
  if (shape.size() <= 2) return draw_grid(shape, blocks, o);
  // Rank >= 3: group the blocks by their ranges on the leading dims; one grid per group.
  const size_t lead = shape.size() - 2;
  Shape tail(shape.end() - 2, shape.end());
  std::map<std::vector<types::DimRange>, std::vector<types::ShardBlock>> groups;
  for (const auto& b : blocks) {
    std::vector<types::DimRange> key(b.index.begin(), b.index.begin() + static_cast<long>(lead));
    types::ShardBlock t;
    t.index.assign(b.index.end() - 2, b.index.end());
    t.devices = b.devices;
    groups[key].push_back(std::move(t));
  }
  std::string out;
  for (auto& [key, group] : groups) {
    std::vector<std::string> idx;
    for (size_t d = 0; d < lead; ++d) idx.push_back(range_text(key[d], shape[d]));
    idx.push_back(":");
    idx.push_back(":");
    out += fmt::format("[{}]\n", fmt::join(idx, ", "));
    out += draw_grid(tail, group, o);
  }
  return out;
}

namespace {

// The concrete sharding of an array argument: x.sharding for arrays; for a value traced
// outside jit (an eager loop, cond or shard_map body), the sharding its type fixes, known only
// on a mesh of Explicit axes (values jit traces are probed at compile time instead).
std::pair<Shape, NamedSharding> sharding_to_show(Interp& I, const Value& x, const char* api) {
  if (auto* a = as_array(x)) {
    const auto& arr = *a->array;
    return {arr.type.shape(), arr.sharding};
  }
  if (auto* t = as_tracer(x)) {
    const auto& ty = t->type();
    auto concrete = trace::MeshContext::get().concrete();
    const auto& am = t->trace->mesh();
    const bool typed = !am.empty() && !am.any_axis_is(types::AxisType::Auto) && !am.any_axis_is(types::AxisType::Manual);
    if (typed && concrete && concrete->axis_names() == am.axis_names()) return {ty.shape(), NamedSharding(*concrete, ty.spec())};
    I.raise("NotImplementedError",
            fmt::format("{} of a value traced outside jax.jit (an eager loop, cond or shard_map body): its layout is "
                        "chosen when that program is partitioned. Wrap the function in jax.jit (the sharding is then "
                        "reported when it compiles), or call it on the result.",
                        api));
  }
  I.raise("TypeError", fmt::format("{} expects a jax.Array, got {}", api, I.type_name(x)));
}

// visualize_sharding's keywords (color_map is accepted; the colours are tab20b's).
VisualizeOptions options_of(Interp& I, const interp::ArgParser& p) {
  VisualizeOptions o;
  o.color = stdout_is_terminal();
  auto given = [&](const char* k) { return p.has(k) && p.get(k)->kind != interp::ObjKind::None; };
  if (given("use_color")) o.color = o.color && I.truthy(p.get("use_color"));
  if (given("scale")) {
    Value v = p.get("scale");
    if (v->kind == interp::ObjKind::Float) o.scale = static_cast<interp::FloatObj&>(*v).v;
    else o.scale = static_cast<double>(interp::bi::index_of(I, v, "scale"));
  }
  if (given("min_width")) o.min_width = interp::bi::index_of(I, p.get("min_width"), "min_width");
  if (given("max_width")) o.max_width = interp::bi::index_of(I, p.get("max_width"), "max_width");
  if (o.scale <= 0 || o.min_width < 1 || o.max_width < o.min_width)
    I.raise("ValueError", "visualize_sharding needs scale > 0 and 1 <= min_width <= max_width");
  return o;
}

void print_text(Interp& I, const std::string& text) {
  CallArgs pa;
  pa.args.push_back(interp::make_str(text));
  pa.kwargs.emplace_back("end", interp::make_str(""));
  I.call(I.getattr(I.builtins(), "print"), pa);
}

// A value jax.jit traces: its layout is known when the program is compiled (a layout probe).
bool probed_at_compile(const Value& x) {
  auto* t = as_tracer(x);
  return t && traced_for_jit(*t->trace);
}

Value visualize_array_sharding(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "visualize_array_sharding", {"arr", "*", "use_color=", "scale=", "min_width=", "max_width=", "color_map="});
  auto o = options_of(I, p);
  if (Value x = p.get("arr"); probed_at_compile(x)) {
    const Shape shape = as_tracer(x)->type().shape();
    if (shape.empty())  // JAX's error for a scalar, raised now rather than at compile time
      guarded(I, [&] { return visualize_sharding_text(shape, NamedSharding(exec::single_device_mesh(), {}), o); });
    record_layout_probe(I, x, [shape, o](Interp& J, const NamedSharding& sharding, bool) {
      // Under vmap the probed value has the batch dims in front: draw one example's blocks.
      auto entries = sharding.spec().entries();
      if (entries.size() > shape.size()) entries.erase(entries.begin(), entries.end() - static_cast<long>(shape.size()));
      const NamedSharding example = sharding.with_spec(sharding.spec().with_entries(entries));
      print_text(J, guarded(J, [&] { return visualize_sharding_text(shape, example, o); }));
    });
    return interp::none();
  }
  auto [shape, sharding] = sharding_to_show(I, p.get("arr"), "visualize_array_sharding");
  print_text(I, guarded(I, [&] { return visualize_sharding_text(shape, sharding, o); }));
  return interp::none();
}

// jax.debug.visualize_sharding(shape, sharding): the same picture for a shape and a sharding.
Value visualize_sharding(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "visualize_sharding", {"shape", "sharding", "*", "use_color=", "scale=", "min_width=", "max_width=", "color_map="});
  auto o = options_of(I, p);
  Shape shape;
  for (auto& d : I.to_vector(p.get("shape"))) shape.push_back(interp::bi::index_of(I, d, "shape"));
  auto* s = as_sharding(p.get("sharding"));
  if (!s) I.raise("TypeError", fmt::format("visualize_sharding expects a Sharding, got {}", I.type_name(p.get("sharding"))));
  NamedSharding ns = s->named ? *s->named : NamedSharding(exec::single_device_mesh(s->device), types::PartitionSpec());
  if (!ns.is_concrete()) I.raise("ValueError", "visualize_sharding needs a sharding over a concrete Mesh (its device ids label the cells)");
  print_text(I, guarded(I, [&] { return visualize_sharding_text(shape, ns, o); }));
  return interp::none();
}

// Every leaf of the pytree `value`: its sharding, passed to callback (JAX's tree_map).
Value inspect_array_sharding(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "inspect_array_sharding", {"value", "*", "callback"});
  Value callback = p.get("callback");
  std::vector<Value> leaves;
  tree_flatten(I, p.get("value"), leaves);
  for (const Value& x : leaves) {
    if (probed_at_compile(x)) {
      record_layout_probe(I, x, [callback](Interp& J, const NamedSharding& sharding, bool single_device) {
        Value s = single_device ? single_device_sharding_value(sharding.mesh().device_ids().at(0)) : named_sharding_value(sharding);
        J.call(callback, std::vector<Value>{s});
      });
      continue;
    }
    Value sharding_value;
    if (auto* arr = as_array(x)) sharding_value = array_sharding_value(*arr->array);
    else {
      auto [shape, s] = sharding_to_show(I, x, "inspect_array_sharding");
      (void)shape;
      sharding_value = named_sharding_value(s);
    }
    I.call(callback, std::vector<Value>{sharding_value});
  }
  return interp::none();
}

}  // namespace

void install_visualize(interp::ModuleObj& m) {
  m.dict.set("visualize_array_sharding", interp::make_builtin("visualize_array_sharding", visualize_array_sharding));
  m.dict.set("visualize_sharding", interp::make_builtin("visualize_sharding", visualize_sharding));
  m.dict.set("inspect_array_sharding", interp::make_builtin("inspect_array_sharding", inspect_array_sharding));
}

}  // namespace shard::api
