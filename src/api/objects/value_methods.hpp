// Dunders of the Python classes that wrap one immutable value of the types library (Mesh,
// AbstractMesh, PartitionSpec, NamedSharding, ShapedArray): equality and hashing follow
// the value's operator== and hash(), and repr/str its repr().
#pragma once
#include <cstdint>

#include "interp/builtins/support.hpp"

namespace shard::api {

// __hash__, __eq__ and __ne__ from two accessors:
//   self(I, a)   -> const T&   the receiver's value (raises TypeError on a wrong self)
//   other(I, v)  -> pointer or optional, empty when `v` is not comparable (NotImplemented)
template <class Self, class Other>
void def_value_equality(const interp::ClassP& c, Self self, Other other) {
  interp::bi::def(c, "__hash__", [self](interp::Interp& I, interp::CallArgs& a) {
    return interp::make_int(static_cast<int64_t>(self(I, a).hash() >> 1));
  });
  auto compare = [self, other](const char* name, bool equal) {
    return [self, other, name, equal](interp::Interp& I, interp::CallArgs& a) -> interp::Value {
      interp::bi::method_nargs(I, a, name, 1, 1);
      auto o = other(I, a.args[1]);
      if (!o) return interp::not_implemented();
      return interp::make_bool((*o == self(I, a)) == equal);
    };
  };
  interp::bi::def(c, "__eq__", compare("__eq__", true));
  interp::bi::def(c, "__ne__", compare("__ne__", false));
}

// __repr__ and __str__ both the value's repr().
template <class Self>
void def_value_repr(const interp::ClassP& c, Self self) {
  auto repr = [self](interp::Interp& I, interp::CallArgs& a) { return interp::make_str(self(I, a).repr()); };
  interp::bi::def(c, "__repr__", repr);
  interp::bi::def(c, "__str__", repr);
}

}  // namespace shard::api
