#include "exec/run_global.hpp"

#include <fmt/format.h>

#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "exec/program.hpp"
#include "exec/timeline.hpp"
#include "ir/builder.hpp"
#include "runtime/process_layout.hpp"

namespace shard::exec {

namespace {

// The process-wide program cache: keyed by the structure of the function (no IR printing on
// the eager path), the mesh and the input layouts; collisions are resolved by comparing.
struct CacheEntry {
  ir::Function fn;
  types::Mesh mesh;
  std::vector<types::PartitionSpec> layouts;
  CompiledRef program;
  uint64_t last_use = 0;
};
// Bounded: past the limit the least recently used program is dropped (a long-running program
// tracing ever new shapes must not grow without end).
constexpr size_t kProgramCacheLimit = 4096;
uint64_t g_use_clock = 0;
std::mutex g_cache_mu;
std::unordered_multimap<size_t, CacheEntry>& cache() {
  static std::unordered_multimap<size_t, CacheEntry> c;
  return c;
}

size_t cache_hash(const ir::Function& f, const types::Mesh& mesh, const std::vector<types::PartitionSpec>& layouts) {
  size_t h = ir::structural_hash(f);
  for (int d : mesh.device_ids()) h = h * 31 + static_cast<size_t>(d);
  for (auto s : mesh.axis_sizes()) h = h * 31 + static_cast<size_t>(s);
  return h * 31 + layouts.size();
}

}  // namespace

ProgramCacheSize program_cache_size() {
  std::lock_guard<std::mutex> lock(g_cache_mu);
  return {cache().size(), kProgramCacheLimit};
}

CompiledRef compile_global(const ir::Function& global, const types::Mesh& mesh,
                           const std::vector<types::PartitionSpec>& layouts, bool* cache_hit, ProgramOrigin origin) {
  const size_t key = cache_hash(global, mesh, layouts);
  std::lock_guard<std::mutex> lock(g_cache_mu);
  auto [lo, hi] = cache().equal_range(key);
  for (auto it = lo; it != hi; ++it)
    if (it->second.mesh == mesh && it->second.layouts == layouts && ir::structurally_equal(it->second.fn, global)) {
      if (cache_hit) *cache_hit = true;
      it->second.last_use = ++g_use_clock;
      return it->second.program;
    }
  if (cache_hit) *cache_hit = false;
  // jit records its own compile slice (named after the function); an eager op's is here.
  std::optional<HostSlice> slice;
  if (origin == ProgramOrigin::Eager && timeline_enabled()) slice.emplace("compile eager " + (global.name.empty() ? "op" : global.name));
  CompiledRef c = compile_program(global, mesh, layouts, origin);
  if (cache().size() >= kProgramCacheLimit) {
    auto oldest = cache().begin();
    for (auto it = cache().begin(); it != cache().end(); ++it)
      if (it->second.last_use < oldest->second.last_use) oldest = it;
    cache().erase(oldest);  // callers holding its program keep it alive
  }
  cache().emplace(key, CacheEntry{global, mesh, layouts, c, ++g_use_clock});
  return c;
}

std::vector<ArrayRef> run_compiled(const CompiledProgram& c, const Placement& p) {
  std::vector<std::vector<BufferRef>> bufs;
  bufs.reserve(p.inputs.size());
  for (auto& in : p.inputs) bufs.push_back(in->shards);
  auto outs = c.exe->run(bufs);
  std::vector<ArrayRef> result;
  result.reserve(outs.size());
  for (size_t r = 0; r < outs.size(); ++r)
    result.push_back(std::make_shared<Array>(
        Array{c.out_types[r], NamedSharding(c.mesh, c.parts.out_layouts[r]), p.single_device, std::move(outs[r])}));
  return result;
}

ArrayRef reshard_array(const ArrayRef& a, const types::Mesh& mesh, const types::PartitionSpec& spec,
                       const ArrayType& new_type, bool single_device) {
  // A one-op program whose partitioning is exactly the reshard plan.
  const bool same_mesh = !a->single_device && a->sharding.mesh() == mesh;
  if (same_mesh) {
    ir::Function f;
    f.name = "reshard";
    ir::Builder b(f);
    auto x = b.param(a->type);
    f.results = {b.op(ir::OpKind::ShardingConstraint, {x}, new_type, ir::attr::ShardingConstraint{spec})};
    auto c = compile_global(f, mesh, {a->sharding.spec()}, nullptr, ProgramOrigin::Eager);
    auto outs = c->exe->run({a->shards});
    return std::make_shared<Array>(Array{new_type, NamedSharding(mesh, c->parts.out_layouts[0]), single_device, outs[0]});
  }
  // Across meshes: through the host (a device_put between different device sets).
  auto host = array_to_host(*a);
  return array_from_host(host.data(), new_type, NamedSharding(mesh, spec), single_device);
}

ArrayRef summed_partials(const Array& a) {
  const auto spec = a.sharding.spec().with_unreduced({});
  const ArrayRef borrowed(std::shared_ptr<const Array>(), &a);  // not owned: `a` outlives the call
  return reshard_array(borrowed, a.sharding.mesh(), spec, a.type.with_spec(a.type.spec().with_unreduced({})), a.single_device);
}

std::string device_ids_on_platform(const Array& a) {
  std::vector<int64_t> ids;
  for (size_t p = 0; p < a.shards.size(); ++p) ids.push_back(a.device_of(p));
  return fmt::format("device ids [{}] on platform CPU", fmt::join(ids, ", "));
}

std::string incompatible_devices_message(const IncompatibleDevices& e, const std::vector<ArrayRef>& inputs,
                                         const std::vector<std::string>& names, const std::string& fun) {
  auto one = [&](size_t i) {
    const std::string name = i < names.size() && !names[i].empty() ? names[i] : fmt::format("args[{}]", i);
    return fmt::format("argument {} of {} with shape {} and {}", name, fun, inputs.at(i)->type.str_short(),
                       device_ids_on_platform(*inputs.at(i)));
  };
  return fmt::format("Received incompatible devices for jitted computation. Got {} and {}", one(e.first), one(e.second));
}

Placement place_inputs(const ir::Function& global, const std::vector<ArrayRef>& inputs,
                       const std::optional<types::Mesh>& context_mesh, bool always_context) {
  if (inputs.size() != global.params.size())
    throw std::logic_error(fmt::format("internal error: {} takes {} arrays, got {}", global.name, global.params.size(), inputs.size()));
  // The common mesh: the first committed (mesh) input's; single-device arrays follow it.
  const Array* anchor = nullptr;
  size_t anchor_at = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& in = inputs[i];
    if (in->single_device) continue;
    if (!anchor) {
      anchor = in.get();
      anchor_at = i;
    } else if (!(in->sharding.mesh() == anchor->sharding.mesh())) {
      throw IncompatibleDevices(anchor_at, i,
                                fmt::format("Received incompatible devices for jitted computation. Got argument with shape {} and {} "
                                            "and argument with shape {} and {}",
                                            anchor->type.str_short(), device_ids_on_platform(*anchor), in->type.str_short(),
                                            device_ids_on_platform(*in)));
    }
  }
  // Without committed inputs, a program runs on the context mesh when its types mention that
  // mesh (creation ops with out_sharding, or any op under use_mesh), else on device 0.
  bool on_context = !anchor && always_context && context_mesh && !context_mesh->empty();
  if (!anchor && !on_context && context_mesh && !context_mesh->empty())
    for (const auto& t : global.value_types)
      if (!t.mesh().empty()) on_context = true;
  // A shard_map names its own mesh.
  std::optional<types::Mesh> shard_map_mesh;
  if (!anchor && !on_context)
    for (const auto& op : global.ops) {
      const auto* sm = std::get_if<ir::attr::ShardMap>(&op.attrs);
      if (sm && !sm->device_ids.empty() && (!sm->mesh.empty() || !op.results.empty())) {
        // The shard_map's own mesh (its results' types may name none: constants on Auto axes;
        // a body that only calls back has no results).
        const auto& am = sm->mesh.empty() ? global.type(op.results[0]).mesh() : sm->mesh;
        shard_map_mesh = types::Mesh(std::vector<int>(sm->device_ids.begin(), sm->device_ids.end()), sm->mesh_shape, am.axis_names(),
                                     am.axis_types());
        on_context = true;
        break;
      }
    }
  Placement p{anchor ? anchor->sharding.mesh()
              : shard_map_mesh ? *shard_map_mesh
              : on_context ? *context_mesh
              : (inputs.empty() ? single_device_mesh() : inputs[0]->sharding.mesh()),
              anchor == nullptr && !on_context, {}, {}};
  p.inputs.reserve(inputs.size());
  p.layouts.reserve(inputs.size());
  for (const ArrayRef& input : inputs) {
    ArrayRef in = input;
    if ((anchor || on_context) && in->single_device) {
      // Replicated on the common mesh. Buffers are immutable, so every device of this process
      // shares the one block: no copy, no launch.
      const auto rep = types::PartitionSpec::replicated(in->type.rank());
      auto t = ArrayType::from_sharding(in->type.dtype(), in->type.shape(), NamedSharding(p.mesh, rep), {}, in->type.weak_type());
      std::vector<BufferRef> shared;
      for (int d : p.mesh.device_ids()) shared.push_back(runtime::process_layout().is_local(d) ? in->shards.at(0) : nullptr);
      in = std::make_shared<Array>(Array{t, NamedSharding(p.mesh, rep), false, std::move(shared)});
    }
    p.layouts.push_back(in->sharding.spec().normalized(in->type.rank()));
    p.inputs.push_back(std::move(in));
  }
  return p;
}

GlobalRun run_global(const ir::Function& global, const std::vector<ArrayRef>& inputs,
                     const std::optional<types::Mesh>& context_mesh) {
  Placement p = place_inputs(global, inputs, context_mesh);
  GlobalRun result;
  auto c = compile_global(global, p.mesh, p.layouts, &result.cache_hit, ProgramOrigin::Eager);
  result.outputs = run_compiled(*c, p);
  result.ledger = &c->parts.ledger;  // the cache keeps the program alive
  return result;
}

}  // namespace shard::exec
