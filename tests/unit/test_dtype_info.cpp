// numpy dtype specifiers (api/objects/dtype_value): names, aliases and type codes; the char of
// each dtype reads back as that dtype; numpy's abstract scalar types and where the scalar
// types sit under them.
#include <catch2/catch.hpp>

#include <string>

#include "api/objects/dtype_value.hpp"

using shard::api::dtype_char;
using shard::api::dtype_from_string;
using shard::api::host_scalar_type;
using shard::api::numpy_abstract_type;
using shard::types::DType;

TEST_CASE("dtype strings: names, aliases, type codes", "[dtype_info]") {
  CHECK(dtype_from_string("c8") == DType::C64);
  CHECK(dtype_from_string("c16") == DType::C128);
  CHECK(dtype_from_string("<f4") == DType::F32);
  CHECK(dtype_from_string("=f8") == DType::F64);
  CHECK(dtype_from_string("|b1") == DType::Bool);
  CHECK(dtype_from_string("?") == DType::Bool);
  CHECK(dtype_from_string("i") == DType::I32);
  CHECK(dtype_from_string("l") == DType::I64);
  CHECK(dtype_from_string("q") == DType::I64);
  CHECK(dtype_from_string("float") == DType::F64);
  CHECK(dtype_from_string("int") == DType::I64);
  CHECK(dtype_from_string("complex") == DType::C128);
  CHECK(dtype_from_string("double") == DType::F64);
  CHECK(dtype_from_string("intc") == DType::I32);
  CHECK(dtype_from_string("bfloat16") == DType::BF16);
  // numpy dtypes shard lacks, and nonsense, are not understood.
  for (const char* s : {"b", "i1", "i2", "u8", "f16", "c4", ">f4", "float33", "", "<", "O", "U"}) {
    INFO(s);
    CHECK_FALSE(dtype_from_string(s).has_value());
  }
  for (DType d : {DType::Bool, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::F16, DType::F32, DType::F64,
                  DType::C64, DType::C128}) {
    INFO(shard::types::dtype_name(d));
    CHECK(dtype_from_string(std::string(1, dtype_char(d))) == d);
    CHECK(dtype_from_string(shard::types::dtype_name(d)) == d);
  }
  CHECK(dtype_char(DType::BF16) == 'E');  // ml_dtypes' type char; np.dtype('E') needs ml_dtypes' registry
}

TEST_CASE("numpy's scalar-type hierarchy", "[dtype_info]") {
  auto generic = numpy_abstract_type("generic");
  auto floating = numpy_abstract_type("floating");
  auto integer = numpy_abstract_type("integer");
  auto signedinteger = numpy_abstract_type("signedinteger");
  REQUIRE(generic);
  REQUIRE(floating);
  CHECK(numpy_abstract_type("float32") == nullptr);
  CHECK(numpy_abstract_type("character")->is_subclass_of(numpy_abstract_type("flexible").get()));
  CHECK(floating->is_subclass_of(numpy_abstract_type("inexact").get()));
  CHECK(host_scalar_type(DType::F32)->is_subclass_of(floating.get()));
  CHECK(host_scalar_type(DType::U8)->is_subclass_of(integer.get()));
  CHECK_FALSE(host_scalar_type(DType::U8)->is_subclass_of(signedinteger.get()));
  CHECK(host_scalar_type(DType::C64)->is_subclass_of(numpy_abstract_type("complexfloating").get()));
  CHECK_FALSE(host_scalar_type(DType::C64)->is_subclass_of(floating.get()));
  // ml_dtypes' bfloat16 is a np.generic only; the bool scalar type too.
  CHECK(host_scalar_type(DType::BF16)->is_subclass_of(generic.get()));
  CHECK_FALSE(host_scalar_type(DType::BF16)->is_subclass_of(floating.get()));
  CHECK_FALSE(host_scalar_type(DType::Bool)->is_subclass_of(numpy_abstract_type("number").get()));
  CHECK(host_scalar_type(DType::F32) == host_scalar_type(DType::F32));  // one class per dtype
}
