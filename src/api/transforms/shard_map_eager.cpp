#include "api/transforms/shard_map_eager.hpp"

#include <fmt/format.h>

#include "api/objects/array_placement_specs.hpp"
#include "api/op_args.hpp"
#include "array/array_format.hpp"
#include "exec/run_global.hpp"
#include "trace/ops.hpp"
#include "types/jax_version.hpp"

namespace shard::api {

using ir::ValueId;
using types::ArrayType;
using types::PartitionSpec;
using types::Shape;

namespace {

std::unordered_map<const trace::Trace*, EagerShardMap*>& live() {
  static std::unordered_map<const trace::Trace*, EagerShardMap*> m;
  return m;
}

Shape with_leading_one(const Shape& s) {
  Shape out{1};
  out.insert(out.end(), s.begin(), s.end());
  return out;
}

std::string py_tuple(const std::vector<std::string>& items) {
  if (items.size() == 1) return "(" + items[0] + ",)";
  return "(" + fmt::format("{}", fmt::join(items, ", ")) + ")";
}

// The spec an eager shard_map's output reports: JAX 0.6 runs the output through a jit whose
// out_shardings is NamedSharding(mesh, _names_to_pspec(out_names)), the out_specs without
// their trailing Nones (P(None, None) -> P()); current JAX passes the out_specs as written.
PartitionSpec reported_out_spec(const PartitionSpec& out_spec) {
  return types::jax_version() == types::JaxVersion::V0_6 ? without_trailing_none(out_spec) : out_spec;
}

}  // namespace

bool runs_eagerly(const sharding::ShardMapSpec& sm) { return sm.manual_axes.size() == sm.mesh.axis_names().size(); }

EagerShardMap::EagerShardMap(types::Mesh mesh, sharding::ShardMapSpec sm)
    : mesh_(std::move(mesh)), sm_(std::move(sm)), inner_(sharding::shard_map_inner_mesh(sm_)),
      trace_(std::make_shared<trace::Trace>("shard_map", inner_)) {
  live()[trace_.get()] = this;
}

EagerShardMap::~EagerShardMap() { live().erase(trace_.get()); }

EagerShardMap* EagerShardMap::of(const trace::Trace& t) {
  if (live().empty()) return nullptr;  // every op asks: no eager body is the common case
  auto it = live().find(&t);
  return it == live().end() ? nullptr : it->second;
}

// Row i of a stacked value is the block of mesh position i: its dim 0 is split over every
// manual axis, in mesh order.
PartitionSpec EagerShardMap::stacked_spec(size_t rank) const {
  std::vector<PartitionSpec::Entry> entries(rank);
  entries[0] = PartitionSpec::Entry(sm_.manual_axes.begin(), sm_.manual_axes.end());
  return PartitionSpec(entries);
}

Value EagerShardMap::adopt(exec::ArrayRef stacked, const ArrayType& local) {
  ValueId id = trace_->param(local);
  stacked_[id] = std::move(stacked);
  return wrap_tracer(trace_, id);
}

std::vector<Value> EagerShardMap::enter(Interp& I, const std::vector<Value>& leaves, const std::vector<PartitionSpec>& in_specs,
                                        const std::vector<sharding::SpecSite>& sites) {
  if (leaves.empty()) return {};
  Program p = begin(I, sm_.fun_name);
  std::vector<ValueId> params, results;
  std::vector<ArrayType> locals, out_types;
  std::vector<PartitionSpec> out_specs;
  for (size_t i = 0; i < leaves.size(); ++i) {
    Value v = is_array_like(leaves[i]) ? leaves[i] : to_array(I, leaves[i], std::nullopt, false);
    auto* a = as_array(v);
    if (!a) I.raise("TypeError", fmt::format("shard_map arguments must be arrays, got {}", I.type_name(leaves[i])));
    exec::ArrayRef arr = a->host ? guarded(I, [&] { return to_device(a->array, std::nullopt, std::nullopt); }) : a->array;
    p.inputs.push_back(arr);
    p.outer_params.push_back(p.outer->param(arr->type));
    p.in_specs.push_back(in_specs[i]);
    locals.push_back(guarded(I, [&] { return sharding::shard_map_input(sm_, arr->type, in_specs[i], sites[i]); }));
    params.push_back(p.body->param(locals.back()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    results.push_back(guarded(I, [&] { return trace::reshape(*p.body, params[i], with_leading_one(locals[i].shape())); }));
    out_specs.push_back(stacked_spec(locals[i].rank() + 1));
    out_types.push_back(guarded(I, [&] { return sharding::shard_map_output(sm_, p.body->type(results[i]), out_specs.back()); }));
  }
  auto outputs = finish(I, p, results, out_specs, out_types);
  std::vector<Value> out;
  for (size_t i = 0; i < locals.size(); ++i) out.push_back(adopt(outputs.at(i), locals[i]));
  return out;
}

EagerShardMap::Program EagerShardMap::begin(Interp& I, const std::string& name) const {
  Program p;
  p.outer = std::make_shared<trace::Trace>("shard_map", mesh_.abstract_mesh());
  p.outer->set_loc(I.current_loc());
  p.body = std::make_shared<trace::Trace>(name, inner_, p.outer);
  p.body->set_loc(I.current_loc());
  return p;
}

std::vector<exec::ArrayRef> EagerShardMap::finish(Interp& I, Program& p, const std::vector<ValueId>& results,
                                                  const std::vector<PartitionSpec>& out_specs, const std::vector<ArrayType>& out_types) {
  ir::Function fn = p.body->finish(results);
  trace::ShardMapSpecs specs{sm_.manual_axes, sm_.check_vma, p.in_specs, out_specs, mesh_, sm_.mesh};
  auto gouts = trace::shard_map(*p.outer, {std::make_shared<const ir::Function>(std::move(fn)), p.body->captured()}, p.outer_params,
                                out_types, specs);
  ir::Function gfn = p.outer->finish(gouts);
  return guarded(I, [&] { return exec::run_global(gfn, p.inputs, mesh_).outputs; });
}

// A body value as a value of the program's shard_map body: its stacked array becomes an input
// ([1, *local] per device), reshaped to the local type inside.
ValueId EagerShardMap::import(Interp& I, Program& p, ValueId v) {
  if (auto it = p.imported.find(v); it != p.imported.end()) return it->second;
  const auto& arr = stacked_.at(v);
  const ArrayType local = trace_->type(v);
  p.inputs.push_back(arr);
  p.outer_params.push_back(p.outer->param(arr->type));
  p.in_specs.push_back(stacked_spec(arr->type.rank()));
  ValueId block = p.body->param(local.with_shape(with_leading_one(local.shape()), PartitionSpec()));
  ValueId id = guarded(I, [&] { return trace::reshape(*p.body, block, local.shape()); });
  p.imported[v] = id;
  return id;
}

std::optional<std::vector<Value>> EagerShardMap::import_closed_over(Interp& I, const std::vector<Value>& operands) {
  if (live().empty()) return std::nullopt;
  auto active = trace::current_trace();
  std::optional<std::vector<Value>> out;
  for (size_t i = 0; i < operands.size(); ++i) {
    auto* tr = as_tracer(operands[i]);
    if (!tr) continue;
    EagerShardMap* e = of(*tr->trace);
    if (!e || e->programs_.empty() || active == tr->trace) continue;
    Program& p = *e->programs_.back();
    if (!out) out = operands;
    (*out)[i] = wrap_tracer(p.body, e->import(I, p, tr->id));
  }
  return out;
}

std::vector<Value> EagerShardMap::run(Interp& I, const std::string& name, const std::vector<Value>& operands, const OpBody& body,
                                      const std::vector<PartitionSpec>* final_specs, const std::vector<sharding::SpecSite>* sites) {
  Program p = begin(I, name);
  // Body values enter as their blocks; everything else (concrete arrays, Python numbers)
  // becomes a constant of the body.
  std::vector<Value> inner_operands = operands;
  for (size_t i = 0; i < operands.size(); ++i) {
    auto* tr = as_tracer(operands[i]);
    if (!tr) continue;
    if (tr->trace != trace_)
      I.raise("NotImplementedError",
              fmt::format("`{}` mixes a value of an eager shard_map body with a value of another trace: wrap the "
                          "shard_map in jax.jit so the whole body is traced",
                          name));
    inner_operands[i] = wrap_tracer(p.body, import(I, p, tr->id));
  }
  std::vector<ValueId> results;
  std::vector<ArrayType> locals, out_types;
  std::vector<PartitionSpec> out_specs;
  {
    ShardMapBodyScope scope(p.body, inner_, sm_.check_vma);
    programs_.push_back(&p);
    struct Pop {
      std::vector<Program*>& v;
      ~Pop() { v.pop_back(); }
    } pop{programs_};
    auto outs = apply_multi(I, name, inner_operands, body);
    for (size_t k = 0; k < outs.size(); ++k) {
      ValueId id = as_tracer(outs[k])->id;
      locals.push_back(p.body->type(id));
      if (final_specs) {
        results.push_back(id);
        out_specs.push_back(final_specs->at(k));
        out_types.push_back(guarded(I, [&] { return sharding::shard_map_output(sm_, locals.back(), out_specs.back(), sites->at(k)); }));
      } else {
        results.push_back(guarded(I, [&] { return trace::reshape(*p.body, id, with_leading_one(locals.back().shape())); }));
        out_specs.push_back(stacked_spec(locals.back().rank() + 1));
        out_types.push_back(guarded(I, [&] { return sharding::shard_map_output(sm_, p.body->type(results.back()), out_specs.back()); }));
      }
    }
  }
  auto outputs = finish(I, p, results, out_specs, out_types);
  std::vector<Value> out;
  for (size_t k = 0; k < locals.size(); ++k)
    out.push_back(final_specs ? wrap(with_reported_spec(outputs.at(k), reported_out_spec(final_specs->at(k))))
                              : adopt(outputs.at(k), locals[k]));
  return out;
}

std::vector<Value> EagerShardMap::apply(Interp& I, const std::string& name, const std::vector<Value>& operands, const OpBody& body) {
  return run(I, name, operands, body, nullptr, nullptr);
}

std::vector<Value> EagerShardMap::leave(Interp& I, const std::vector<Value>& results, const std::vector<PartitionSpec>& out_specs,
                                        const std::vector<sharding::SpecSite>& sites) {
  if (results.empty()) return {};
  return run(I, "shard_map", results, [](trace::Trace&, const std::vector<ValueId>& ids) { return ids; }, &out_specs, &sites);
}

std::string EagerShardMap::block_text(ValueId v) const {
  const auto& arr = stacked_.at(v);
  const ArrayType local = trace_->type(v);
  const auto bytes = exec::array_to_host(*arr);
  const size_t block = static_cast<size_t>(types::shape_product(local.shape())) * types::dtype_size(local.dtype());
  const auto& am = mesh_.abstract_mesh();
  const std::string names = "(" + fmt::format("{}", fmt::join(am.axis_names(), ", ")) + ",)";
  std::string text;
  for (int64_t p = 0; p < am.size(); ++p) {
    std::vector<std::string> coords;
    for (int64_t c : am.coords_of(p)) coords.push_back(std::to_string(c));
    array::ArrayView view{local.dtype(), local.shape(), bytes.data() + static_cast<size_t>(p) * block};
    if (p > 0) text += "\n";
    text += fmt::format("On TFRT_CPU_{} at mesh coordinates {} = {}:\n{}\n", mesh_.device_at(p), names, py_tuple(coords),
                        array::format_array_str(view));
  }
  return text;
}

}  // namespace shard::api
