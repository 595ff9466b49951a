// CpuDevice objects (jax.devices()) and numpy object arrays of them (np.array(devices),
// mesh.devices), printed byte-for-byte as numpy 1.24 prints object arrays.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "api/device_count.hpp"
#include "api/objects/array_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "interp/builtins/support.hpp"
#include "interp/complex_value.hpp"
#include "runtime/process_layout.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ObjKind;
namespace bi = interp::bi;

// ---- CpuDevice ----------------------------------------------------------------------------

ClassP device_class() {
  // type(jax.devices()[0]) is jaxlib.xla_extension.Device in JAX 0.6.
  static ClassP c = interp::make_class("Device", {interp::T().object}, "jaxlib.xla_extension");
  return c;
}

Value device_value(int id) {
  static std::map<int, Value> made;
  auto& v = made[id];
  if (!v) v = std::make_shared<DeviceObj>(device_class(), id);
  return v;
}

std::optional<int> device_id_of(const Value& v) {
  if (!v || v->kind != ObjKind::Native) return std::nullopt;
  if (auto* d = dynamic_cast<DeviceObj*>(v.get())) return d->id;
  return std::nullopt;
}

Value device_list(const std::vector<int>& ids) {
  std::vector<Value> items;
  for (int id : ids) items.push_back(device_value(id));
  return interp::make_list(std::move(items));
}

Value device_set(Interp& I, std::vector<int> ids) {
  // JAX's set order follows object addresses (not reproducible): ascending ids instead
  // (sets of non-numbers iterate in insertion order here).
  std::sort(ids.begin(), ids.end());
  auto s = interp::make_set();
  for (int id : ids) s->set(I, device_value(id), interp::none());
  return s;
}

namespace {

DeviceObj& self_device(Interp& I, CallArgs& a) {
  DeviceObj* d = a.args.empty() || a.args[0]->kind != ObjKind::Native ? nullptr : dynamic_cast<DeviceObj*>(a.args[0].get());
  if (!d) I.raise("TypeError", "descriptor requires a 'Device' object");
  return *d;
}

void init_device_class() {
  auto c = device_class();
  bi::def(c, "__repr__", [](Interp& I, CallArgs& a) { return interp::make_str(fmt::format("CpuDevice(id={})", self_device(I, a).id)); });
  bi::def(c, "__str__", [](Interp& I, CallArgs& a) { return interp::make_str(fmt::format("TFRT_CPU_{}", self_device(I, a).id)); });
  // The hash is the id, so a set of devices hashes consistently with the interpreter's dicts.
  bi::def(c, "__hash__", [](Interp& I, CallArgs& a) { return interp::make_int(self_device(I, a).id); });
  bi::def(c, "__eq__", [](Interp& I, CallArgs& a) -> Value {
    auto other = a.args.size() > 1 ? device_id_of(a.args[1]) : std::nullopt;
    if (!other) return interp::not_implemented();
    return interp::make_bool(*other == self_device(I, a).id);
  });
  bi::def(c, "__ne__", [](Interp& I, CallArgs& a) -> Value {
    auto other = a.args.size() > 1 ? device_id_of(a.args[1]) : std::nullopt;
    if (!other) return interp::not_implemented();
    return interp::make_bool(*other != self_device(I, a).id);
  });
  bi::def(c, "__lt__", [](Interp& I, CallArgs& a) -> Value {
    auto other = a.args.size() > 1 ? device_id_of(a.args[1]) : std::nullopt;
    if (!other) return interp::not_implemented();
    return interp::make_bool(self_device(I, a).id < *other);
  });
  bi::def_property(c, "id", [](Interp& I, CallArgs& a) { return interp::make_int(self_device(I, a).id); });
  bi::def_property(c, "platform", [](Interp&, CallArgs&) { return interp::make_str("cpu"); });
  bi::def_property(c, "device_kind", [](Interp&, CallArgs&) { return interp::make_str("cpu"); });
  // Process p of P owns devices p*D .. p*D+D-1 (runtime/process_layout.hpp).
  auto process_of = [](Interp& I, CallArgs& a) {
    return interp::make_int(runtime::process_layout().process_of(self_device(I, a).id));
  };
  bi::def_property(c, "process_index", process_of);
  bi::def_property(c, "host_id", process_of);
  bi::def_property(c, "task_id", process_of);
  bi::def_property(c, "local_hardware_id", [](Interp& I, CallArgs& a) {
    const int id = self_device(I, a).id;
    return interp::make_int(id - runtime::process_layout().process_of(id) * runtime::process_layout().local_device_count);
  });
  bi::def_property(c, "client", [](Interp&, CallArgs&) { return interp::none(); });
}

}  // namespace

// ---- object arrays ----------------------------------------------------------------------

ClassP object_array_class() {
  // Prints as <class 'numpy.ndarray'>; a class of its own because numeric ndarray methods
  // assume numeric data.
  static ClassP c = interp::make_class("ndarray", {interp::T().object}, "numpy");
  return c;
}

Value make_object_array(types::Shape shape, std::vector<Value> items) {
  return std::make_shared<ObjectArrayObj>(object_array_class(), std::move(shape), std::move(items));
}

ObjectArrayObj* as_object_array(const Value& v) {
  if (!v || v->kind != ObjKind::Native) return nullptr;
  return dynamic_cast<ObjectArrayObj*>(v.get());
}

namespace {

bool is_numeric_leaf(const Value& v) {
  return v->kind == ObjKind::Int || v->kind == ObjKind::Float || v->kind == ObjKind::Bool || interp::is_complex(v) || as_array(v) != nullptr;
}

const std::vector<Value>* seq_items(const Value& v) {
  if (v->kind == ObjKind::List) return &static_cast<interp::ListObj&>(*v).items;
  if (v->kind == ObjKind::Tuple) return &static_cast<interp::TupleObj&>(*v).items;
  return nullptr;
}

void scan_leaves(const Value& v, bool& any_object, int depth) {
  if (depth > 64) return;
  if (auto* items = seq_items(v)) {
    for (auto& x : *items) scan_leaves(x, any_object, depth + 1);
    return;
  }
  if (auto* oa = as_object_array(v)) {
    any_object = true;
    (void)oa;
    return;
  }
  if (!is_numeric_leaf(v)) any_object = true;
}

void collect_objects(Interp& I, const Value& v, size_t depth, types::Shape& shape, std::vector<Value>& out) {
  if (depth > 64) I.raise("ValueError", "object array nesting is too deep");
  auto inhomogeneous = [&] {
    I.raise("ValueError", fmt::format("setting an array element with a sequence. The requested array has an inhomogeneous "
                                      "shape after {} dimensions. The detected shape was {} + inhomogeneous part.",
                                      depth, types::py_int_tuple(types::Shape(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(std::min(depth, shape.size()))))));
  };
  if (auto* oa = as_object_array(v)) {
    if (depth == shape.size()) shape.insert(shape.end(), oa->shape.begin(), oa->shape.end());
    out.insert(out.end(), oa->items.begin(), oa->items.end());
    return;
  }
  if (auto* items = seq_items(v)) {
    if (depth == shape.size()) shape.push_back(static_cast<int64_t>(items->size()));
    else if (depth > shape.size() || shape[depth] != static_cast<int64_t>(items->size())) inhomogeneous();
    for (auto& x : *items) collect_objects(I, x, depth + 1, shape, out);
    return;
  }
  if (depth < shape.size()) inhomogeneous();
  out.push_back(v);
}

}  // namespace

std::optional<Value> object_array_from_python(Interp& I, const Value& data) {
  bool any_object = false;
  scan_leaves(data, any_object, 0);
  if (!any_object) return std::nullopt;
  types::Shape shape;
  std::vector<Value> items;
  collect_objects(I, data, 0, shape, items);
  return make_object_array(std::move(shape), std::move(items));
}

namespace {

// numpy's _formatArray (arrayprint.py, legacy=False) over pre-formatted element strings.
struct ObjectFormatter {
  const types::Shape& shape;
  const std::vector<std::string>& words;
  std::string separator;

  static void extend_line(std::string& s, std::string& line, const std::string& word, size_t width,
                          const std::string& next_prefix) {
    bool wrap = line.size() + word.size() > width;
    if (line.size() <= next_prefix.size()) wrap = false;
    if (wrap) {
      size_t end = line.find_last_not_of(' ');
      s += (end == std::string::npos ? std::string() : line.substr(0, end + 1)) + "\n";
      line = next_prefix;
    }
    line += word;
  }

  std::string recurse(size_t axis, size_t offset, const std::string& hanging, size_t width) const {
    if (axis == shape.size()) return words[offset];
    const std::string next_hanging = hanging + " ";
    const size_t next_width = width - 1;
    const size_t n = static_cast<size_t>(shape[axis]);
    size_t stride = 1;
    for (size_t d = axis + 1; d < shape.size(); ++d) stride *= static_cast<size_t>(shape[d]);
    std::string sep_r = separator;
    while (!sep_r.empty() && sep_r.back() == ' ') sep_r.pop_back();
    std::string s;
    if (n == 0) return "[]";
    if (axis + 1 == shape.size()) {
      const size_t elem_width = width - std::max(sep_r.size(), size_t{1});
      std::string line = hanging;
      for (size_t i = 0; i + 1 < n; ++i) {
        extend_line(s, line, recurse(axis + 1, offset + i * stride, next_hanging, next_width), elem_width, hanging);
        line += separator;
      }
      extend_line(s, line, recurse(axis + 1, offset + (n - 1) * stride, next_hanging, next_width), elem_width, hanging);
      s += line;
    } else {
      const std::string line_sep = sep_r + std::string(shape.size() - axis - 1, '\n');
      for (size_t i = 0; i + 1 < n; ++i) s += hanging + recurse(axis + 1, offset + i * stride, next_hanging, next_width) + line_sep;
      s += hanging + recurse(axis + 1, offset + (n - 1) * stride, next_hanging, next_width);
    }
    return "[" + s.substr(hanging.size()) + "]";
  }
};

std::vector<std::string> element_reprs(Interp& I, const ObjectArrayObj& a) {
  std::vector<std::string> words;
  words.reserve(a.items.size());
  for (auto& v : a.items) words.push_back(I.repr(v));
  return words;
}

}  // namespace

std::string object_array_str(Interp& I, const ObjectArrayObj& a) {
  auto words = element_reprs(I, a);
  if (a.shape.empty()) return words.empty() ? "None" : words[0];
  ObjectFormatter f{a.shape, words, " "};
  return f.recurse(0, 0, " ", 75);
}

std::string object_array_repr(Interp& I, const ObjectArrayObj& a) {
  auto words = element_reprs(I, a);
  if (a.shape.empty()) return "array(" + (words.empty() ? std::string("None") : words[0]) + ", dtype=object)";
  std::string body;
  if (a.items.empty()) {
    body = a.shape.size() == 1 ? "[]" : "[], shape=" + types::py_int_tuple(a.shape);
  } else {
    ObjectFormatter f{a.shape, words, ", "};
    body = f.recurse(0, 0, std::string(1 + 6, ' '), 75 - 1);  // prefix "array(", suffix ","
  }
  std::string out = "array(" + body + ",";
  const std::string dtype = "dtype=object)";
  size_t last_line = out.size() - (out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  out += last_line + dtype.size() + 1 > 75 ? "\n      " : " ";
  return out + dtype;
}

namespace {

ObjectArrayObj& self_oa(Interp& I, CallArgs& a) {
  auto* o = a.args.empty() ? nullptr : as_object_array(a.args[0]);
  if (!o) I.raise("TypeError", "descriptor requires a 'numpy.ndarray' object");
  return *o;
}

// reshape arguments: ints or one tuple, with one -1 inferred.
types::Shape reshape_target(Interp& I, const std::vector<Value>& args, int64_t size) {
  std::vector<Value> dims = args;
  if (dims.size() == 1 && (dims[0]->kind == ObjKind::Tuple || dims[0]->kind == ObjKind::List)) dims = I.to_vector(dims[0]);
  types::Shape shape;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = bi::index_of(I, dims[i], "");
    if (d == -1) {
      if (infer >= 0) I.raise("ValueError", "can only specify one unknown dimension");
      infer = static_cast<int>(i);
    } else if (d < 0) {
      I.raise("ValueError", "negative dimensions not allowed");
    } else {
      known *= d;
    }
    shape.push_back(d);
  }
  if (infer >= 0) {
    if (known == 0 || size % known != 0)
      I.raise("ValueError", fmt::format("cannot reshape array of size {} into shape {}", size, types::py_int_tuple(shape)));
    shape[static_cast<size_t>(infer)] = size / known;
  }
  if (types::shape_product(shape) != size)
    I.raise("ValueError", fmt::format("cannot reshape array of size {} into shape {}", size, types::py_int_tuple(shape)));
  return shape;
}

Value shape_tuple(const types::Shape& s) {
  std::vector<Value> xs;
  for (auto d : s) xs.push_back(interp::make_int(d));
  return interp::make_tuple(std::move(xs));
}

Value tolist(const ObjectArrayObj& a, size_t axis, size_t offset) {
  if (axis == a.shape.size()) return a.items[offset];
  size_t stride = 1;
  for (size_t d = axis + 1; d < a.shape.size(); ++d) stride *= static_cast<size_t>(a.shape[d]);
  std::vector<Value> out;
  for (int64_t i = 0; i < a.shape[axis]; ++i) out.push_back(tolist(a, axis + 1, offset + static_cast<size_t>(i) * stride));
  return interp::make_list(std::move(out));
}

// Basic indexing: ints and slices per leading dimension.
Value getitem(Interp& I, const ObjectArrayObj& a, const Value& key) {
  std::vector<Value> keys = key->kind == ObjKind::Tuple ? static_cast<interp::TupleObj&>(*key).items : std::vector<Value>{key};
  if (keys.size() > a.shape.size())
    I.raise("IndexError", fmt::format("too many indices for array: array is {}-dimensional, but {} were indexed", a.shape.size(), keys.size()));
  // For each dim: the selected indices, and whether the dim is kept.
  std::vector<std::vector<int64_t>> sel(a.shape.size());
  std::vector<bool> keep(a.shape.size(), true);
  for (size_t d = 0; d < a.shape.size(); ++d) {
    const int64_t n = a.shape[d];
    if (d < keys.size() && keys[d]->kind == ObjKind::Slice) {
      auto idx = bi::slice_indices(I, static_cast<interp::SliceObj&>(*keys[d]), n);
      for (int64_t i = 0, x = idx.start; i < idx.length; ++i, x += idx.step) sel[d].push_back(x);
    } else if (d < keys.size()) {
      auto i = bi::try_index(I, keys[d]);
      if (!i) I.raise("IndexError", "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices");
      int64_t j = bi::norm_index(*i, n);
      if (j < 0) I.raise("IndexError", fmt::format("index {} is out of bounds for axis {} with size {}", *i, d, n));
      sel[d].push_back(j);
      keep[d] = false;
    } else {
      for (int64_t i = 0; i < n; ++i) sel[d].push_back(i);
    }
  }
  types::Shape out_shape;
  for (size_t d = 0; d < a.shape.size(); ++d)
    if (keep[d]) out_shape.push_back(static_cast<int64_t>(sel[d].size()));
  std::vector<Value> out;
  std::vector<size_t> pos(a.shape.size(), 0);
  bool empty = false;
  for (auto& s : sel) empty = empty || s.empty();
  while (!empty) {
    size_t flat = 0;
    for (size_t d = 0; d < a.shape.size(); ++d) flat = flat * static_cast<size_t>(a.shape[d]) + static_cast<size_t>(sel[d][pos[d]]);
    out.push_back(a.items[flat]);
    size_t d = a.shape.size();
    while (d > 0) {
      --d;
      if (++pos[d] < sel[d].size()) break;
      pos[d] = 0;
      if (d == 0) empty = true;
    }
    if (a.shape.empty()) break;
  }
  if (out_shape.empty() && out.size() == 1) return out[0];
  return make_object_array(out_shape, std::move(out));
}

ClassP object_dtype_class() {
  static ClassP c = [] {
    auto k = interp::make_class("dtype[object_]", {interp::T().object}, "numpy");
    bi::def(k, "__repr__", [](Interp&, CallArgs&) { return interp::make_str("dtype('O')"); });
    bi::def(k, "__str__", [](Interp&, CallArgs&) { return interp::make_str("object"); });
    bi::def_property(k, "name", [](Interp&, CallArgs&) { return interp::make_str("object"); });
    bi::def_property(k, "kind", [](Interp&, CallArgs&) { return interp::make_str("O"); });
    return k;
  }();
  return c;
}

void init_object_array_class() {
  auto c = object_array_class();
  bi::def(c, "__repr__", [](Interp& I, CallArgs& a) { return interp::make_str(object_array_repr(I, self_oa(I, a))); });
  bi::def(c, "__str__", [](Interp& I, CallArgs& a) { return interp::make_str(object_array_str(I, self_oa(I, a))); });
  bi::def_property(c, "shape", [](Interp& I, CallArgs& a) { return shape_tuple(self_oa(I, a).shape); });
  bi::def_property(c, "ndim", [](Interp& I, CallArgs& a) { return interp::make_int(static_cast<int64_t>(self_oa(I, a).shape.size())); });
  bi::def_property(c, "size", [](Interp& I, CallArgs& a) { return interp::make_int(static_cast<int64_t>(self_oa(I, a).items.size())); });
  bi::def_property(c, "dtype", [](Interp&, CallArgs&) -> Value { return std::make_shared<interp::NativeObj>(object_dtype_class()); });
  bi::def_property(c, "flat", [](Interp& I, CallArgs& a) {
    auto& o = self_oa(I, a);
    return make_object_array({static_cast<int64_t>(o.items.size())}, o.items);
  });
  auto flatten = [](Interp& I, CallArgs& a) {
    auto& o = self_oa(I, a);
    return make_object_array({static_cast<int64_t>(o.items.size())}, o.items);
  };
  bi::def(c, "flatten", flatten);
  bi::def(c, "ravel", flatten);
  bi::def(c, "reshape", [](Interp& I, CallArgs& a) {
    auto& o = self_oa(I, a);
    std::vector<Value> dims(a.args.begin() + 1, a.args.end());
    return make_object_array(reshape_target(I, dims, static_cast<int64_t>(o.items.size())), o.items);
  });
  bi::def(c, "tolist", [](Interp& I, CallArgs& a) { return tolist(self_oa(I, a), 0, 0); });
  bi::def(c, "item", [](Interp& I, CallArgs& a) -> Value {
    auto& o = self_oa(I, a);
    if (o.items.size() != 1) I.raise("ValueError", "can only convert an array of size 1 to a Python scalar");
    return o.items[0];
  });
  bi::def(c, "copy", [](Interp& I, CallArgs& a) {
    auto& o = self_oa(I, a);
    return make_object_array(o.shape, o.items);
  });
  bi::def(c, "__len__", [](Interp& I, CallArgs& a) -> Value {
    auto& o = self_oa(I, a);
    if (o.shape.empty()) I.raise("TypeError", "len() of unsized object");
    return interp::make_int(o.shape[0]);
  });
  bi::def(c, "__getitem__", [](Interp& I, CallArgs& a) {
    bi::method_nargs(I, a, "__getitem__", 1, 1);
    return getitem(I, self_oa(I, a), a.args[1]);
  });
  bi::def(c, "__iter__", [](Interp& I, CallArgs& a) {
    auto self = a.args[0];
    auto& o = self_oa(I, a);
    if (o.shape.empty()) I.raise("TypeError", "iteration over a 0-d array");
    auto i = std::make_shared<int64_t>(0);
    Interp* ip = &I;
    return bi::make_iterator(bi::iter_class("iterator"), [self, i, ip]() -> std::optional<Value> {
      auto& oa = *as_object_array(self);
      if (*i >= oa.shape[0]) return std::nullopt;
      return getitem(*ip, oa, interp::make_int((*i)++));
    });
  });
}

}  // namespace

void init_device_classes() {
  static bool done = false;
  if (done) return;
  done = true;
  init_device_class();
  init_object_array_class();
}

}  // namespace shard::api
