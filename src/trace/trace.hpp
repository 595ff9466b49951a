// A Trace records array operations into a global IR function: eager ops trace a one-op
// function, jit traces a whole Python function. Every op records the user's source location
// (for errors and the cost ledger) and runs its sharding rule against the context mesh.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ast/ast.hpp"
#include "ir/ir.hpp"
#include "sharding/common.hpp"
#include "types/mesh.hpp"

namespace shard::trace {

using ir::ValueId;
using types::ArrayType;

class Trace : public std::enable_shared_from_this<Trace> {
 public:
  Trace(std::string name, types::AbstractMesh context_mesh);
  // A region's trace (a loop body, a branch): values of `parent` (or its ancestors) used
  // inside become captured parameters of the region, appended after its own parameters.
  Trace(std::string name, types::AbstractMesh context_mesh, std::shared_ptr<Trace> parent);

  ValueId param(const ArrayType& t);
  ValueId emit(ir::OpKind kind, std::vector<ValueId> operands, ArrayType result, ir::Attrs attrs = {});
  // An op with several results and (for control flow) regions.
  std::vector<ValueId> emit_multi(ir::OpKind kind, std::vector<ValueId> operands, const std::vector<ArrayType>& results,
                                  ir::Attrs attrs, std::vector<std::shared_ptr<const ir::Function>> regions);
  // By value: emitting an op grows the value table, so a reference could dangle.
  ArrayType type(ValueId v) const { return fn_.type(v); }
  sharding::RuleContext ctx(std::string op) const { return {mesh_, std::move(op), true}; }
  const types::AbstractMesh& mesh() const { return mesh_; }

  void set_loc(ast::Loc loc) { loc_ = loc; }
  ast::Loc loc() const { return loc_; }
  ir::Function& fn() { return fn_; }
  ir::Function finish(std::vector<ValueId> results);

  // A concrete mesh an op inside names (a sharding constraint with a NamedSharding): where a
  // program without committed inputs runs, as JAX takes the device assignment from shardings
  // inside the function. Noted on the outermost trace.
  void note_mesh(const types::Mesh& m);
  const std::optional<types::Mesh>& noted_mesh() const { return noted_mesh_; }

  const std::shared_ptr<Trace>& parent() const { return parent_; }
  // The value `v` of trace `from` (this trace or an ancestor) as a value of this trace.
  ValueId lift(const Trace& from, ValueId v);
  // The ancestor-trace values captured so far, in parameter order (as values of parent()).
  const std::vector<ValueId>& captured() const { return captured_; }
  // Records a child trace's ops into this one (its params are its captures, values of this
  // trace); returns, per child value, the value of this trace that holds it.
  std::vector<ValueId> inline_child(const Trace& child);

 private:
  ir::Function fn_;
  std::shared_ptr<Trace> parent_;
  std::vector<ValueId> captured_;       // parent values
  std::vector<ValueId> capture_params_;  // this trace's params for them
  types::AbstractMesh mesh_;
  ast::Loc loc_;
  std::optional<types::Mesh> noted_mesh_;
};

// The op copied into t with `operands` in place of its own: its attributes, result types and
// regions (a primal op re-emitted by a transform, a linear op applied to tangents).
std::vector<ValueId> emit_like(Trace& t, const ir::Function& fn, const ir::Op& op, const std::vector<ValueId>& operands);
// f's ops copied into t with f's params bound to `args`, each keeping its source line; f's
// results as values of t.
std::vector<ValueId> inline_function(Trace& t, const ir::Function& f, const std::vector<ValueId>& args);

// Of two traces whose tracers meet in one op, the one to record into: the deeper, when the
// other is its ancestor. Unrelated traces mean a tracer escaped its transformation.
std::shared_ptr<Trace> innermost(const std::shared_ptr<Trace>& a, const std::shared_ptr<Trace>& b);

// JAX's RESOURCE_EXHAUSTED when an array of type `t` cannot fit in this machine's memory
// (every traced op checks its result; host-side builders call it before they allocate).
void check_fits_memory(const ArrayType& t);

// The traces being recorded right now, innermost last: a region body's ops go to its trace
// even when their operands are concrete or come from outer traces (JAX's dynamic trace).
std::shared_ptr<Trace> current_trace();  // null when nothing is being traced
class TraceScope {
 public:
  explicit TraceScope(std::shared_ptr<Trace> t);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
};

// The mesh in context: `with use_mesh(m)` pushes, set_mesh(m) replaces the base. The concrete
// mesh is kept for placing new arrays; types use its abstract form.
class MeshContext {
 public:
  static MeshContext& get();
  std::optional<types::Mesh> concrete() const;
  types::AbstractMesh abstract() const;
  void push(types::Mesh m);
  void pop();
  void set(std::optional<types::Mesh> m);
  // Scopes that change axis types (auto_axes / explicit_axes / shard_map) push an abstract
  // override on top of the concrete mesh.
  void push_abstract(types::AbstractMesh m);
  void pop_abstract();

 private:
  std::optional<types::Mesh> base_;
  std::vector<types::Mesh> stack_;
  std::vector<types::AbstractMesh> abstract_stack_;
};

}  // namespace shard::trace
