#include "trace/trace.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>

#include "ir/builder.hpp"

namespace shard::trace {

Trace::Trace(std::string name, types::AbstractMesh context_mesh) : mesh_(std::move(context_mesh)) { fn_.name = std::move(name); }

Trace::Trace(std::string name, types::AbstractMesh context_mesh, std::shared_ptr<Trace> parent)
    : parent_(std::move(parent)), mesh_(std::move(context_mesh)) {
  fn_.name = std::move(name);
  if (parent_) loc_ = parent_->loc_;
}

ValueId Trace::lift(const Trace& from, ValueId v) {
  if (&from == this) return v;
  if (!parent_) throw std::logic_error("internal error: a tracer of an unrelated trace reached Trace::lift");
  ValueId outer = parent_->lift(from, v);
  for (size_t i = 0; i < captured_.size(); ++i)
    if (captured_[i] == outer) return capture_params_[i];
  ValueId p = param(parent_->type(outer));
  captured_.push_back(outer);
  capture_params_.push_back(p);
  return p;
}

namespace {
bool is_ancestor(const Trace* anc, const Trace* t) {
  for (; t; t = t->parent().get())
    if (t == anc) return true;
  return false;
}
}  // namespace

std::shared_ptr<Trace> innermost(const std::shared_ptr<Trace>& a, const std::shared_ptr<Trace>& b) {
  if (!a) return b;
  if (!b || a == b) return a;
  if (is_ancestor(a.get(), b.get())) return b;
  if (is_ancestor(b.get(), a.get())) return a;
  throw types::ShardingError("UnexpectedTracerError",
                             "Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a "
                             "reference to an intermediate value to escape the scope of the transformation.");
}

namespace {
std::vector<std::shared_ptr<Trace>>& trace_stack() {
  static std::vector<std::shared_ptr<Trace>> stack;
  return stack;
}
}  // namespace

std::shared_ptr<Trace> current_trace() { return trace_stack().empty() ? nullptr : trace_stack().back(); }
TraceScope::TraceScope(std::shared_ptr<Trace> t) { trace_stack().push_back(std::move(t)); }
TraceScope::~TraceScope() { trace_stack().pop_back(); }

void Trace::note_mesh(const types::Mesh& m) {
  Trace* root = this;
  while (root->parent_) root = root->parent_.get();
  if (!root->noted_mesh_) root->noted_mesh_ = m;
}

ValueId Trace::param(const ArrayType& t) {
  auto v = ir::Builder(fn_).param(t);
  return v;
}

// An array larger than the machine's memory cannot be made: JAX's RESOURCE_EXHAUSTED, raised
// where the user asked for it (not as a failed allocation on a device thread).
void check_fits_memory(const ArrayType& t) {
  static const uint64_t physical = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : UINT64_MAX;
  }();
  const auto elements = static_cast<uint64_t>(t.num_elements());  // checked: throws on overflow
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(elements, static_cast<uint64_t>(types::dtype_size(t.dtype())), &bytes) || bytes > physical)
    throw types::ShardingError("XlaRuntimeError", fmt::format("RESOURCE_EXHAUSTED: Out of memory while trying to allocate {} bytes "
                                                              "(an array of shape {} and dtype {}; this machine has {} bytes).",
                                                              bytes == 0 ? elements : bytes, types::py_int_tuple(t.shape()),
                                                              types::dtype_name(t.dtype()), physical));
}

ValueId Trace::emit(ir::OpKind kind, std::vector<ValueId> operands, ArrayType result, ir::Attrs attrs) {
  check_fits_memory(result);
  return ir::Builder(fn_, loc_).op(kind, std::move(operands), std::move(result), std::move(attrs));
}

std::vector<ValueId> Trace::emit_multi(ir::OpKind kind, std::vector<ValueId> operands, const std::vector<ArrayType>& results,
                                       ir::Attrs attrs, std::vector<std::shared_ptr<const ir::Function>> regions) {
  for (auto& r : results) check_fits_memory(r);
  return ir::Builder(fn_, loc_).op_multi(kind, std::move(operands), results, std::move(attrs), std::move(regions));
}

std::vector<ValueId> Trace::inline_child(const Trace& child) {
  const ir::Function& cf = child.fn_;
  std::vector<ValueId> map(cf.value_types.size(), -1);
  for (size_t i = 0; i < cf.params.size(); ++i) map[static_cast<size_t>(cf.params[i])] = child.captured().at(i);
  for (const auto& op : cf.ops) {
    std::vector<ValueId> operands;
    for (auto v : op.operands) operands.push_back(map.at(static_cast<size_t>(v)));
    std::vector<ArrayType> types;
    for (auto r : op.results) types.push_back(cf.type(r));
    // Each op keeps the user's line it came from.
    auto rs = ir::Builder(fn_, op.loc).op_multi(op.kind, operands, types, op.attrs, op.regions);
    for (size_t k = 0; k < rs.size(); ++k) map[static_cast<size_t>(op.results[k])] = rs[k];
  }
  return map;
}

std::vector<ValueId> emit_like(Trace& t, const ir::Function& fn, const ir::Op& op, const std::vector<ValueId>& operands) {
  std::vector<ArrayType> types;
  for (auto r : op.results) types.push_back(fn.type(r));
  return t.emit_multi(op.kind, operands, types, op.attrs, op.regions);
}

std::vector<ValueId> inline_function(Trace& t, const ir::Function& f, const std::vector<ValueId>& args) {
  std::vector<ValueId> map(f.value_types.size(), -1);
  for (size_t i = 0; i < f.params.size(); ++i) map[static_cast<size_t>(f.params[i])] = args.at(i);
  const ast::Loc outer = t.loc();
  for (const auto& op : f.ops) {
    std::vector<ValueId> operands;
    for (auto v : op.operands) operands.push_back(map[static_cast<size_t>(v)]);
    t.set_loc(op.loc);
    auto rs = emit_like(t, f, op, operands);
    for (size_t k = 0; k < rs.size(); ++k) map[static_cast<size_t>(op.results[k])] = rs[k];
  }
  t.set_loc(outer);
  std::vector<ValueId> out;
  for (auto v : f.results) out.push_back(map[static_cast<size_t>(v)]);
  return out;
}

ir::Function Trace::finish(std::vector<ValueId> results) {
  fn_.results = std::move(results);
  // Constants nothing reads (a Python exponent that became integer_pow's attribute) are not
  // part of the program: JAX never records them.
  std::vector<bool> used(fn_.value_types.size(), false);
  for (const auto& op : fn_.ops)
    for (auto v : op.operands) used[static_cast<size_t>(v)] = true;
  for (auto v : fn_.results) used[static_cast<size_t>(v)] = true;
  std::erase_if(fn_.ops, [&](const ir::Op& op) { return op.kind == ir::OpKind::Constant && !used[static_cast<size_t>(op.results[0])]; });
  return fn_;
}

MeshContext& MeshContext::get() {
  static MeshContext ctx;
  return ctx;
}

std::optional<types::Mesh> MeshContext::concrete() const {
  if (!stack_.empty()) return stack_.back();
  return base_;
}

types::AbstractMesh MeshContext::abstract() const {
  if (!abstract_stack_.empty()) return abstract_stack_.back();
  auto c = concrete();
  return c ? c->abstract_mesh() : types::AbstractMesh();
}

void MeshContext::push(types::Mesh m) { stack_.push_back(std::move(m)); }
void MeshContext::pop() {
  if (!stack_.empty()) stack_.pop_back();
}
void MeshContext::set(std::optional<types::Mesh> m) { base_ = std::move(m); }
void MeshContext::push_abstract(types::AbstractMesh m) { abstract_stack_.push_back(std::move(m)); }
void MeshContext::pop_abstract() {
  if (!abstract_stack_.empty()) abstract_stack_.pop_back();
}

}  // namespace shard::trace
