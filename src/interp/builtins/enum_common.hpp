// The `enum` module's classes, shared by its two files: enum_type.cpp (the metaclass
// EnumType, which turns a class body's attributes into members and makes enum classes
// iterable, sized, subscriptable by name and callable by value) and mod_enum.cpp (Enum,
// ReprEnum, IntEnum, StrEnum, auto, unique).
//
// As in CPython, members are instances of their class whose __dict__ holds `_name_` and
// `_value_`, and each enum class's dict holds `_member_names_` (list, definition order,
// no aliases), `_member_map_` (name -> member, aliases included), `_value2member_map_`
// (hashable value -> member) and `_member_type_` (object, int, str or a mixin class).
#pragma once
#include <vector>

#include "interp/builtins/support.hpp"

namespace shard::interp::bi::enums {

struct EnumClasses {
  ClassP type;       // EnumType (alias EnumMeta): the metaclass
  ClassP enum_;      // Enum
  ClassP repr_enum;  // ReprEnum: str() and format() of the data type, repr() of Enum
  ClassP int_enum;   // IntEnum(int, ReprEnum)
  ClassP str_enum;   // StrEnum(str, ReprEnum)
  ClassP auto_;      // auto
};
// Created on first use (importing enum).
const EnumClasses& classes();

bool is_enum_class(const ClassObj* c);
// The canonical members of an enum class, in definition order.
std::vector<Value> members_of(Interp& I, ClassObj& cls);
// `_member_map_` of an enum class (null if a program replaced it with something else).
DictObj* member_map(ClassObj& cls);
// The member's `_name_` / `_value_` (TypeError if `v` is not a member).
Value member_name(Interp& I, const Value& v);
Value member_value(Interp& I, const Value& v);

// EnumType's methods and its class-creation hook (enum_type.cpp).
void init_enum_type(const ClassP& meta);
// Enum's functional API: Enum('Color', 'RED GREEN', start=1).
Value create_enum(Interp& I, const ClassP& base, const Value& name, const Value& names, const CallArgs& options);
// What auto() stands for while a class body is turned into members.
struct AutoObj : NativeObj {
  Value value;  // auto(value); null: _generate_next_value_ decides
  using NativeObj::NativeObj;
};

}  // namespace shard::interp::bi::enums
