// np.save / np.load with real .npy files (NEP 1 format): magic "\x93NUMPY", version, header
// length, a Python-literal header dict padded to a 64-byte boundary, then the raw C-order
// data. Writes version 1.0 little-endian files byte-identical to numpy 1.24's; reads
// versions 1-3, either byte order, and Fortran order.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "api/device_count.hpp"
#include "api/modules/numpy_internal.hpp"

namespace shard::api::np {

namespace bi = interp::bi;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;
constexpr size_t kGrowthAxisMaxDigits = 21;

std::string descr_of(DType d) {
  switch (d) {
    case DType::Bool: return "|b1";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::U8: return "|u1";
    case DType::U16: return "<u2";
    case DType::U32: return "<u4";
    case DType::F16: return "<f2";
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
    case DType::C64: return "<c8";
    case DType::C128: return "<c16";
    case DType::BF16: break;
  }
  return "";
}

std::string path_arg(Interp& I, const Value& v, const char* fname) {
  if (v->kind == ObjKind::Str) return static_cast<interp::StrObj&>(*v).v;
  if (auto f = I.try_getattr(v, "__fspath__")) {
    Value s = I.call(*f, std::vector<Value>{});
    if (s->kind == ObjKind::Str) return static_cast<interp::StrObj&>(*s).v;
  }
  I.raise("TypeError", fmt::format("{}: expected a file name (str), got {}", fname, I.type_name(v)));
}

[[noreturn]] void raise_os_error(Interp& I, const std::string& path, int err) {
  const char* type = err == ENOENT ? "FileNotFoundError" : err == EACCES ? "PermissionError" : err == EISDIR ? "IsADirectoryError" : "OSError";
  I.raise(type, fmt::format("[Errno {}] {}: {}", err, std::strerror(err), bi::str_repr(path)));
}

std::string header_for(DType d, const Shape& shape) {
  std::string h = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr_of(d), types::py_int_tuple(shape));
  if (!shape.empty()) h += std::string(kGrowthAxisMaxDigits - std::to_string(shape[0]).size(), ' ');
  const size_t hlen = h.size() + 1;  // the final newline
  const size_t pad = kAlign - ((kMagicLen + 2 + 2 + hlen) % kAlign);
  h += std::string(pad, ' ');
  h += '\n';
  return h;
}

Value np_save(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "save", {"file", "arr", "allow_pickle=", "fix_imports="});
  std::string path = path_arg(I, p.get("file"), "save");
  if (path.size() < 4 || path.compare(path.size() - 4, 4, ".npy") != 0) path += ".npy";
  auto h = host_array(I, p.get("arr"));
  const DType d = h->type.dtype();
  if (descr_of(d).empty()) I.raise("ValueError", fmt::format("np.save cannot store {} arrays (numpy has no such dtype)", types::dtype_name(d)));
  auto data = exec::array_to_host(*h);
  std::string header = header_for(d, h->type.shape());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) raise_os_error(I, path, errno);
  out.write(kMagic, kMagicLen);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const uint16_t len = static_cast<uint16_t>(header.size());
  const char len_le[2] = {static_cast<char>(len & 0xFF), static_cast<char>(len >> 8)};
  out.write(len_le, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out) raise_os_error(I, path, errno ? errno : EIO);
  return interp::none();
}

// ---- reading ----------------------------------------------------------------------------------

struct Header {
  std::string descr;
  bool fortran = false;
  Shape shape;
};

[[noreturn]] void bad_header(Interp& I, const std::string& why) { I.raise("ValueError", "Cannot parse header: " + why); }

// The value text after 'key': in the header dict.
std::string field(Interp& I, const std::string& h, const std::string& key) {
  auto k = h.find("'" + key + "'");
  if (k == std::string::npos) k = h.find("\"" + key + "\"");
  if (k == std::string::npos) bad_header(I, fmt::format("missing key '{}'", key));
  auto colon = h.find(':', k);
  if (colon == std::string::npos) bad_header(I, "malformed dict");
  size_t i = colon + 1;
  while (i < h.size() && h[i] == ' ') ++i;
  return h.substr(i);
}

Header parse_header(Interp& I, const std::string& h) {
  Header out;
  std::string d = field(I, h, "descr");
  if (d.empty() || (d[0] != '\'' && d[0] != '"')) I.raise("ValueError", "np.load: structured or object dtypes are not supported");
  auto end = d.find(d[0], 1);
  if (end == std::string::npos) bad_header(I, "unterminated descr");
  out.descr = d.substr(1, end - 1);
  std::string f = field(I, h, "fortran_order");
  out.fortran = f.rfind("True", 0) == 0;
  std::string s = field(I, h, "shape");
  if (s.empty() || s[0] != '(') bad_header(I, "shape is not a tuple");
  auto close = s.find(')');
  if (close == std::string::npos) bad_header(I, "unterminated shape");
  std::stringstream ss(s.substr(1, close - 1));
  for (std::string part; std::getline(ss, part, ',');) {
    size_t b = part.find_first_not_of(" \tL"), e = part.find_last_not_of(" \tL");
    if (b == std::string::npos) continue;
    part = part.substr(b, e - b + 1);
    int64_t v = 0;
    for (char c : part) {
      if (c < '0' || c > '9' || v > (int64_t{1} << 40)) bad_header(I, "bad shape entry");
      v = v * 10 + (c - '0');
    }
    out.shape.push_back(v);
  }
  return out;
}

// (dtype, byte-swap needed) for a descr.
std::pair<DType, bool> dtype_of_descr(Interp& I, const std::string& descr) {
  if (descr.size() < 3) I.raise("ValueError", fmt::format("np.load: unsupported dtype '{}'", descr));
  const char order = descr[0];
  const std::string code = descr.substr(1);
  const bool little = true;  // this machine
  bool swap = (order == '>' && little) || (order == '<' && !little);
  if (code == "b1") return {DType::Bool, false};
  if (code == "i4") return {DType::I32, swap};
  if (code == "i8") return {DType::I64, swap};
  if (code == "u1") return {DType::U8, false};
  if (code == "u2") return {DType::U16, swap};
  if (code == "u4") return {DType::U32, swap};
  if (code == "f2") return {DType::F16, swap};
  if (code == "f4") return {DType::F32, swap};
  if (code == "f8") return {DType::F64, swap};
  // A complex element's parts swap one by one: a byte-swapped complex file is not supported.
  if (code == "c8" && !swap) return {DType::C64, false};
  if (code == "c16" && !swap) return {DType::C128, false};
  I.raise("ValueError", fmt::format("np.load: dtype '{}' is not supported (supported: bool, int32, int64, uint8, uint16, uint32, float16, float32, float64, complex64, complex128)", descr));
}

Value np_load(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "load", {"file", "mmap_mode=", "allow_pickle=", "fix_imports=", "encoding=", "*", "max_header_size="});
  std::string path = path_arg(I, p.get("file"), "load");
  std::ifstream in(path, std::ios::binary);
  if (!in) raise_os_error(I, path, errno ? errno : ENOENT);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < kMagicLen + 4 || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0) {
    if (bytes.rfind("PK", 0) == 0) I.raise("ValueError", "np.load: .npz archives are not supported");
    I.raise("ValueError", fmt::format("Cannot load file containing pickled data when allow_pickle=False"));
  }
  const int major = static_cast<unsigned char>(bytes[kMagicLen]);
  size_t pos = kMagicLen + 2, hlen = 0;
  if (major == 1) {
    hlen = static_cast<unsigned char>(bytes[pos]) | static_cast<size_t>(static_cast<unsigned char>(bytes[pos + 1])) << 8;
    pos += 2;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < pos + 4) bad_header(I, "truncated");
    for (int i = 3; i >= 0; --i) hlen = hlen << 8 | static_cast<unsigned char>(bytes[pos + static_cast<size_t>(i)]);
    pos += 4;
  } else {
    I.raise("ValueError", fmt::format("we only support format version (1,0), (2,0), and (3,0), not ({}, {})", major, static_cast<int>(bytes[kMagicLen + 1])));
  }
  if (bytes.size() < pos + hlen) bad_header(I, "truncated");
  Header h = parse_header(I, bytes.substr(pos, hlen));
  pos += hlen;
  check_size(I, h.shape);
  auto [dt, swap] = dtype_of_descr(I, h.descr);
  const size_t item = types::dtype_size(dt);
  const size_t n = static_cast<size_t>(types::shape_product(h.shape));
  if (bytes.size() - pos < n * item)
    I.raise("ValueError", fmt::format("cannot reshape array of size {} into shape {}", (bytes.size() - pos) / item, types::py_int_tuple(h.shape)));
  std::vector<uint8_t> data(bytes.begin() + static_cast<std::ptrdiff_t>(pos), bytes.begin() + static_cast<std::ptrdiff_t>(pos + n * item));
  if (swap)
    for (size_t i = 0; i < n; ++i) std::reverse(data.begin() + static_cast<std::ptrdiff_t>(i * item), data.begin() + static_cast<std::ptrdiff_t>((i + 1) * item));
  ensure_device_runtime();
  // Fortran order: the data is the C-order array of the reversed shape, transposed.
  Shape stored = h.shape;
  if (h.fortran) std::reverse(stored.begin(), stored.end());
  types::ArrayType t(dt, stored);
  auto arr = guarded(I, [&] {
    return exec::array_from_host(data.data(), t, types::NamedSharding(exec::single_device_mesh(), types::PartitionSpec()), true);
  });
  if (h.fortran && stored.size() > 1)
    arr = run1(I, "load", {arr}, [](trace::Trace& tr, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::transpose(tr, ids[0], {})};
    });
  return wrap(arr, true);
}

}  // namespace

void add_io_functions(Interp&, ModuleObj& m) {
  add(m, "save", np_save);
  add(m, "load", np_load);
}

}  // namespace shard::api::np
