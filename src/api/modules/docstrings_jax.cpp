// Docstrings of jax, jax.sharding and jax.profiler (see docstrings.hpp). Written for shard.
#include "api/modules/docstrings.hpp"

namespace shard::api {

namespace {

constexpr ApiDoc kJaxDocs[] = {
    {"jax.jit", "jit(fun, in_shardings=None, out_shardings=None, static_argnums=None, static_argnames=None, donate_argnums=None)",
     R"(Compile `fun` for the argument types it is called with.

The first call with new shapes, dtypes, shardings or static values traces `fun`
into shard's IR, partitions it for the mesh of its arguments and compiles the
per-device program with LLVM; later calls with the same types reuse it.
Under an enclosing trace (another jit, a loop body) the call is inlined.

Differences from JAX: the program runs on shard's simulated devices (threads),
not through XLA; donate_argnums / donate_argnames are accepted and ignored.
`shard --stats` prints each jitted function's calls, traces, compiles and their
compile / run times; `--emit=spmd` prints the per-device program.)"},
    {"jax.grad", "grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False)",
     R"(The gradient of scalar-valued `fun` with respect to the argument(s) `argnums`.

Reverse mode over shard's traced IR (linearize, then transpose). A gradient
keeps the sharding of its primal argument.)"},
    {"jax.value_and_grad", "value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False)",
     R"(Like grad, but the returned function gives (fun(*args), gradient) in one pass.)"},
    {"jax.vmap", "vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None)",
     R"(Map `fun` over a leading (or `in_axes`) dimension of its arguments.

Each primitive's batching rule turns the per-example program into a batched
one; nothing is looped at run time.)"},
    {"jax.make_jaxpr", "make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False)",
     R"(A function that traces `fun` and returns its program as a printable jaxpr.

Differences from JAX: the text is shard's IR printed in jaxpr form; sharded
dimensions show their mesh axis (f32[8@dp,4]). The REPL's `:ir f a b` prints
make_jaxpr(f)(a, b).)"},
    {"jax.device_put", "device_put(x, device=None, *, may_alias=None, donate=None)",
     R"(Place `x` (an array, a numpy array or a pytree of them) on a device or a sharding.

With a NamedSharding each simulated device receives its shard; an array that
already has that sharding is returned as is.)"},
    {"jax.devices", "devices(backend=None)",
     R"(The list of devices: shard's simulated CPU devices (`--devices N`, default 8).)"},
    {"jax.device_count", "device_count(backend=None)",
     R"(How many devices there are in all processes (`--devices N`; default 8).)"},
    {"jax.local_devices", "local_devices(process_index=None, backend=None)",
     R"(The devices this process drives.)"},
    {"jax.block_until_ready", "block_until_ready(x)",
     R"(Wait until every array in the pytree `x` has been computed; returns `x`.)"},
    {"jax.typeof", "typeof(x)",
     R"(The abstract type of `x`: its shape, dtype and, on an Explicit mesh axis, which
dimensions are sharded over which axes (ShapedArray(float32[8@dp,4])).)"},
    {"jax.make_mesh", "make_mesh(axis_shapes, axis_names, *, devices=None, axis_types=None)",
     R"(A Mesh of the devices laid out with `axis_shapes`, its axes named `axis_names`.

`axis_types` gives each axis AxisType.Explicit (shardings in the types),
AxisType.Auto (the partitioner chooses) or AxisType.Manual. The product of the
shapes must equal the device count.)"},
    {"jax.shard_map", "shard_map(f, *, out_specs, in_specs=None, mesh=None, axis_names=set(), check_vma=True)",
     R"(Run `f` once per device on its local shards: the per-device (SPMD) view.

Inside `f`, collectives of jax.lax (psum, all_gather, ppermute, ...) name the
mesh axes they communicate over; `in_specs` / `out_specs` are the
PartitionSpecs of the arguments and results. Without `mesh` the context mesh
(jax.set_mesh / jax.sharding.use_mesh) is used.)"},
    {"jax.jvp", "jvp(fun, primals, tangents, has_aux=False)",
     R"(Forward mode: (fun(*primals), the directional derivative along `tangents`).)"},
    {"jax.vjp", "vjp(fun, *primals, has_aux=False)",
     R"(Reverse mode: fun(*primals) and a function mapping a cotangent of the output to
cotangents of the primals.)"},
    {"jax.linearize", "linearize(fun, *primals)",
     R"(fun(*primals) and its linear approximation at primals, as a function of tangents.)"},
    {"jax.eval_shape", "eval_shape(fun, *args, **kwargs)",
     R"(The ShapeDtypeStructs of fun's outputs, found by tracing only (nothing runs).)"},
    {"jax.checkpoint", "checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=())",
     R"(Recompute `fun`'s intermediates in the backward pass instead of keeping them
(jax.remat). `policy` (jax.checkpoint_policies) says which ones to save.)"},
    {"jax.reshard", "reshard(x, out_shardings)",
     R"(Move `x` to a new sharding (a NamedSharding or, under a mesh, a PartitionSpec).

Under jit the partitioner plans the collectives that move the data; the
REPL's `:ledger` shows them.)"},
    {"jax.set_mesh", "set_mesh(mesh)",
     R"(Make `mesh` the context mesh, for the rest of the program or, as a context
manager, for its block. Creation ops and PartitionSpecs refer to it.)"},
    {"jax.sharding.use_mesh", "use_mesh(mesh)",
     R"(A context manager making `mesh` the context mesh inside its block.)"},
    {"jax.sharding.reshard", "reshard(x, out_shardings)", R"(The same as jax.reshard.)"},
    {"jax.sharding.get_abstract_mesh", "get_abstract_mesh()",
     R"(The context mesh's abstract form (axis names, sizes and types), empty outside one.)"},
    {"jax.sharding.NamedSharding", "NamedSharding(mesh, spec, *, memory_kind=None)",
     R"(A sharding over a Mesh: the PartitionSpec `spec` names, per array dimension,
the mesh axes that dimension is split over (None: replicated).

Differences from JAX: memory_kind prints as unpinned_host, the simulated
devices' memory.)"},
    {"jax.sharding.PartitionSpec", "PartitionSpec(*partitions)",
     R"(Which mesh axes each array dimension is sharded over: P('dp', None) splits
dimension 0 over axis 'dp' and replicates dimension 1; a tuple entry
P(('dp', 'mp')) splits one dimension over several axes.)"},
    {"jax.sharding.Mesh", "Mesh(devices, axis_names, *, axis_types=None)",
     R"(Devices arranged in an n-dimensional array whose axes have names; usually
made with jax.make_mesh.)"},
    {"jax.jacfwd", "jacfwd(fun, argnums=0, has_aux=False, holomorphic=False)",
     R"(The Jacobian of `fun` by forward mode (one JVP per input element, batched).)"},
    {"jax.jacrev", "jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False)",
     R"(The Jacobian of `fun` by reverse mode (one VJP per output element, batched).)"},
    {"jax.hessian", "hessian(fun, argnums=0, has_aux=False, holomorphic=False)",
     R"(The Hessian of scalar `fun`: jacfwd(jacrev(fun)).)"},
    {"jax.local_device_count", "local_device_count(backend=None)", R"(How many devices this process drives.)"},
    {"jax.process_index", "process_index(backend=None)",
     R"(This process's index (0 unless shard runs under mpirun with several processes).)"},
    {"jax.process_count", "process_count(backend=None)", R"(How many processes run the program (1 without mpirun).)"},
    {"jax.device_get", "device_get(x)", R"(The pytree `x` with its arrays copied to host numpy arrays.)"},
    {"jax.sharding.set_mesh", "set_mesh(mesh)", R"(The same as jax.set_mesh.)"},
    {"jax.sharding.get_mesh", "get_mesh()", R"(The concrete context mesh (set by set_mesh / use_mesh).)"},
    {"jax.sharding.auto_axes", "auto_axes(fun=None, *, axes=None, out_sharding=None)",
     R"(Run `fun` (or, as a context manager, a block) with the named Explicit mesh
axes switched to Auto: the partitioner lays those out; `out_sharding` gives
the results' explicit sharding back.)"},
    {"jax.sharding.explicit_axes", "explicit_axes(fun=None, *, axes=None, in_sharding=None)",
     R"(Run `fun` (or a block) with the named Auto mesh axes switched to Explicit,
the arguments resharded by `in_sharding`.)"},
    {"jax.sharding.SingleDeviceSharding", "SingleDeviceSharding(device, *, memory_kind=None)",
     R"(All of an array on one device.)"},
    {"jax.sharding.AxisType", "AxisType", R"(How a mesh axis is sharded: Explicit (in the types, rules propagate it), Auto
(the partitioner decides) or Manual (inside shard_map).)"},
    {"jax.profiler.trace", "trace(log_dir, create_perfetto_link=False, create_perfetto_trace=False)",
     R"(A context manager recording shard's timeline while its block runs.

On exit the Chrome-trace JSON (one track per device with its kernels,
GEMMs and collectives, and a host track with each jitted function's trace
and compile and each eager op's compile) is written to
<log_dir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<hostname>.trace.json.

Differences from JAX: no TensorBoard / XProf protobufs (.xplane.pb); the file
is plain (not gzipped) JSON that Perfetto and chrome://tracing open.)"},
    {"jax.profiler.start_trace", "start_trace(log_dir, create_perfetto_link=False, create_perfetto_trace=False)",
     R"(Start recording the timeline; stop_trace() writes it under `log_dir` (see
jax.profiler.trace). Only one trace records at a time: starting a second one,
or starting one while `--trace FILE` records, raises RuntimeError.)"},
    {"jax.profiler.stop_trace", "stop_trace()",
     R"(Stop the trace start_trace began and write its file; RuntimeError if none runs.)"},
    {"jax.profiler.TraceAnnotation", "TraceAnnotation(name, **kwargs)",
     R"(A context manager marking its block as a slice named `name` on the timeline's
host track (when --trace or jax.profiler records); the jit compiles and
device kernels it causes appear under it. Keyword metadata is not kept.)"},
    {"jax.profiler.StepTraceAnnotation", "StepTraceAnnotation(name, **kwargs)",
     R"(TraceAnnotation for one step of a loop: the slice is named
'<name> <step_num>'.)"},
    {"jax.profiler.annotate_function", "annotate_function(func, name=None, **kwargs)",
     R"(`func` wrapped so each call is a host-track slice named `name` (default:
func's __name__).)"},
};

}  // namespace

std::span<const ApiDoc> jax_docs() { return kJaxDocs; }

}  // namespace shard::api
