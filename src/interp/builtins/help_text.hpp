// The pieces of help()'s text shared by help.cpp (functions, modules) and help_class.cpp
// (classes): pydoc's plain-text layout, as CPython 3.11 prints it to a non-terminal.
#pragma once
#include <string>

#include "interp/value.hpp"

namespace shard::interp {
class Interp;
}

namespace shard::interp::bi::help {

// `doc` cleaned as inspect.cleandoc does, each line after `prefix`.
std::string indented(const std::string& doc, const std::string& prefix);
// The `__module__` / other str attribute of obj, "" if it has none.
std::string str_attr(Interp& I, const Value& obj, const char* name);
// `f(a, b=1, *args, c, **kw)`; `bound` leaves out the first parameter.
std::string function_signature(Interp& I, FunctionObj& fn, bool bound = false);
// A function's or native's signature line and its docstring, each line after `prefix`.
// `bound_to`: the receiver of a bound method. A function without a docstring shows the one
// of the same name up its class's MRO (as pydoc does), else the comments above it.
std::string function_body(Interp& I, const Value& f, const std::string& prefix, const Value& bound_to = nullptr);
bool is_callable_entry(const Value& v);  // a function or a native
// The page of a class, from its "class C(bases)" line on.
std::string class_page(Interp& I, const Value& cls);

}  // namespace shard::interp::bi::help
