// The jax.lax module: its registration, which adds each op family in turn (the control flow
// and collectives, then the array ops of the lax_*.cpp files), and the argument helpers the
// families share.
#include "api/modules/lax_module.hpp"
#include "api/modules/fft_module.hpp"
#include "api/modules/scipy_linalg_module.hpp"
#include "api/modules/linalg_module.hpp"

#include <fmt/format.h>

#include "api/device_count.hpp"
#include "api/modules/lax_collectives.hpp"
#include "api/modules/lax_control.hpp"
#include "api/modules/random_args.hpp"
#include "api/modules/registration.hpp"

namespace shard::api {

namespace lax {

void def_lax(ModuleObj& m, const std::string& name, NativeFn fn) {
  api::def_fn(m, name, [fn](Interp& I, CallArgs& a) {
    ensure_device_runtime();
    return fn(I, a);
  });
}

Value lax_operand(Interp& I, const Value& v, const std::string& name, size_t pos) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  if (auto* a = as_array(v); a && a->host) return v;
  I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position {}.", name, I.type_name(v), pos));
}

std::vector<int64_t> int_list(Interp& I, const Value& v, const char* what) {
  std::vector<int64_t> out;
  if (is_none(v)) return out;
  for (auto& x : I.to_vector(v)) out.push_back(int_arg(I, x, what));
  return out;
}

}  // namespace lax

void register_lax_module() {
  Interp::register_builtin_module("jax.lax", [](Interp& I, ModuleObj& m) {
    install_lax_control(I, m);      // scan, fori_loop, while_loop, cond, switch
    install_lax_collectives(I, m);  // the shard_map collectives
    lax::add_elementwise(m);
    lax::add_conversions(m);
    lax::add_contractions(m);
    lax::add_creation(m);
    lax::add_shape(m);
    lax::add_slicing(m);
    lax::add_reductions(m);
    add_lax_betainc(m);  // scipy_special_module.cpp
    add_lax_fft(m);      // fft_module.cpp
    add_lax_random_gamma_grad(m);  // random_samplers.cpp
    m.dict.set("linalg", I.import_module("jax.lax.linalg", I.current_loc()));
  });
  register_lax_linalg_module();
}

}  // namespace shard::api
