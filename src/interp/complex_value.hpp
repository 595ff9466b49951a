// Host complex scalars for code outside the interpreter (jnp's conversion of Python
// complex values into arrays, ...). A complex is a ComplexObj (value.hpp); instances of
// user subclasses of complex wrap one (InstanceObj::native).
#pragma once
#include <complex>

#include "interp/value.hpp"

namespace shard::interp {

// The ComplexObj behind `v` (a complex or an instance of a subclass of complex), or null.
inline const ComplexObj* complex_obj(const Value& v) {
  if (!v) return nullptr;
  if (v->kind == ObjKind::Complex) return static_cast<const ComplexObj*>(v.get());
  if (v->kind == ObjKind::Instance) {
    const Value& n = static_cast<const InstanceObj&>(*v).native;
    if (n && n->kind == ObjKind::Complex) return static_cast<const ComplexObj*>(n.get());
  }
  return nullptr;
}

// True for Python complex values (not for ints or floats: test those separately).
inline bool is_complex(const Value& v) { return complex_obj(v) != nullptr; }

// The value of a complex; an int, bool or float gives (x, 0). Anything else gives (0, 0):
// test is_complex (or the real kinds) first.
inline std::complex<double> complex_of(const Value& v) {
  if (const ComplexObj* c = complex_obj(v)) return {c->re, c->im};
  if (!v) return {};
  switch (v->kind) {
    case ObjKind::Float: return {static_cast<const FloatObj&>(*v).v, 0.0};
    case ObjKind::Int: return {double(static_cast<const IntObj&>(*v).v), 0.0};
    case ObjKind::Bool: return {static_cast<const BoolObj&>(*v).v ? 1.0 : 0.0, 0.0};
    default: return {};
  }
}

// A new Python complex (make_complex(re, im) is in value.hpp).
inline Value make_complex(std::complex<double> z) { return make_complex(z.real(), z.imag()); }
inline Value make_complex(Interp&, std::complex<double> z) { return make_complex(z.real(), z.imag()); }

}  // namespace shard::interp
