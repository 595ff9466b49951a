// The framework every trace-time sharding rule runs in (SHARDING_RULES.md §0): the rule
// context, the checks before a rule (input meshes agree with each other and with the context
// mesh), the decision whether a rule runs at all (some Explicit axis is in play), the checks
// after it (each mesh axis shards at most one dimension; sharded dims divide), out_sharding=
// canonicalisation, the no-rule error, and the printing helpers messages are built from.
//
// Errors are types::ShardingError. py_type is the Python class the user sees: JAX raises most
// rule errors as `ShardingTypeError` (core.ShardingTypeError, a TypeError subclass), the mesh
// and out_sharding checks as ValueError, shape errors as TypeError, unbound axis names as
// NameError.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "types/array_type.hpp"

namespace shard::sharding {

using types::AbstractMesh;
using types::ArrayType;
using types::AxisNames;
using types::AxisType;
using types::DType;
using types::NamedSharding;
using types::PartitionSpec;
using types::Shape;
using types::ShardingError;
using Entry = PartitionSpec::Entry;

inline constexpr const char* kShardingTypeError = "ShardingTypeError";

// out_sharding= (and reshard / device_put targets) as the user passed them: a PartitionSpec
// against the context mesh, or a NamedSharding (concrete or abstract mesh).
using OutSharding = std::variant<PartitionSpec, NamedSharding>;
using OptOutSharding = std::optional<OutSharding>;

struct RuleContext {
  AbstractMesh mesh;      // the context mesh (use_mesh/set_mesh, jit, auto_axes, shard_map)
  std::string op;         // the op as the user called it: `add`, `dot_general`, `reshape`, ...
  bool check_vma = true;  // track varying manual axes (off under shard_map(check_vma=False))
};

[[noreturn]] void throw_sharding_type_error(const std::string& message);
[[noreturn]] void throw_name_error(const std::string& message);

// ---- printing -----------------------------------------------------------------------------

// "float32[8@X], float32[4]" — operand types as errors list them (ArrayType::str_short).
std::string types_list(const std::vector<ArrayType>& types);
// str_short of a type that may not be constructible (a result with a repeated axis).
std::string short_type(DType dtype, const Shape& shape, const PartitionSpec& spec,
                       const std::vector<std::string>& vma = {});
// A spec as the user would paste it: P('X', None), P(('X', 'Y'),), P().
std::string paste_spec(const PartitionSpec& spec);
std::string paste_spec(const std::vector<Entry>& entries);
// Python's repr of a tuple of spec entries: ('X', None), (('X', 'Y'),), ().
std::string entries_tuple(const std::vector<Entry>& entries);
// 'X' or ('X', 'Y') — how one entry prints inside a spec; and `'X'`-style axis lists.
std::string entry_str(const Entry& e);
std::string quoted_axes(const AxisNames& axes);  // 'X', 'Y'

// ---- §0 framework ---------------------------------------------------------------------------

bool has_explicit_axes(const AbstractMesh& mesh);

struct OutputPlan {
  AbstractMesh mesh;               // where the result lives: the inputs' mesh, else the context's
  bool rule_runs = false;          // an Explicit axis is in play: the rule decides the spec
  std::vector<std::string> vma;    // union of the inputs' varying manual axes (implicit pvary)
};
// Checks the inputs' meshes against each other and the context mesh (errors name both
// meshes), and decides whether the rule runs.
OutputPlan plan_output(const RuleContext& ctx, const std::vector<ArrayType>& inputs);

// What a rule does with its inputs' reduced axes (JAX's ur rules). `Kept`: the rule puts
// them in the result spec itself, and an op that cannot is refused ("unreduced/reduced rule
// for `op` is not implemented"). `Dropped`: the result is replicated there and its
// cotangent reduced (dot_general, as JAX's _dot_general_ur_rule), or the target sharding
// decides (reshard, device_put).
enum class ReducedInputs { Kept, Dropped };

// The result type: the duplicate-axis check ("... produces an illegally sharded result"),
// the reduced-axes check, then ArrayType's own checks (divisibility), whose message gains
// the op and a fix.
ArrayType make_result(const RuleContext& ctx, const std::vector<ArrayType>& inputs, DType dtype,
                      Shape shape, const AbstractMesh& mesh, const PartitionSpec& spec,
                      std::vector<std::string> vma, bool weak_type,
                      ReducedInputs reduced_inputs = ReducedInputs::Kept);
// A result without sharding (P() over all dims) on the plan's mesh.
ArrayType replicated_result(const RuleContext& ctx, const std::vector<ArrayType>& inputs,
                            DType dtype, Shape shape, const OutputPlan& plan, bool weak_type);

// "sharding rule for `{op}` is not implemented" with the auto_axes workaround.
[[noreturn]] void throw_no_rule(const RuleContext& ctx, const std::vector<ArrayType>& inputs);
// A primitive without a rule: replicated when no Explicit axis is in play, else the no-rule
// error (never a silent guess).
ArrayType propagate_without_rule(const RuleContext& ctx, const std::vector<ArrayType>& inputs,
                                 DType dtype, Shape shape);

// Rules other than elementwise ones do not handle unreduced operands (a stretch goal): they
// say so instead of dropping the pending reduction.
void reject_unreduced(const RuleContext& ctx, const std::vector<ArrayType>& inputs);

// JAX's canonicalize_sharding: a PartitionSpec binds to the context mesh (error when there is
// none); a NamedSharding's mesh must match a non-empty context mesh; unless `allow_non_explicit`
// (device_put), axes of type Auto or Manual are an error. `what` names the API in messages.
NamedSharding resolve_out_sharding(const RuleContext& ctx, const OutSharding& s,
                                   std::string_view what, bool allow_non_explicit = false);

// ---- small utilities --------------------------------------------------------------------------

// A Python-style axis index (negative counts from the end) checked against `rank`.
size_t normalize_axis(const RuleContext& ctx, int64_t axis, size_t rank, std::string_view what);
// Product of the sizes of the axes of one spec entry (1 for None).
int64_t entry_size(const AbstractMesh& mesh, const Entry& e);
bool all_weak(const std::vector<ArrayType>& inputs);
std::vector<Entry> spec_entries(const ArrayType& t);  // rank entries
std::string shape_tuple(const Shape& s);               // (4, 6)

}  // namespace shard::sharding
