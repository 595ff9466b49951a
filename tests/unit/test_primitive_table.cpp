// The primitive tables of src/ir/: what every layer derives from them must hold together.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "ir/dim_map.hpp"
#include "ir/ir.hpp"
#include "test_program_util.hpp"

using namespace shard;
using ir::EwDTypeRule;
using ir::EwOp;

TEST_CASE("every bound elementwise primitive has a dtype rule and an arity the bindings handle", "[primitives]") {
  for (size_t i = 0; i < ir::kNumEwOps; ++i) {
    const auto& e = ir::kEwInfo[i];
    INFO(e.enum_name);
    const bool bound = !e.jnp_names.empty() || !e.lax_names.empty() || !e.numpy_names.empty();
    if (bound) {
      CHECK(e.dtype_rule != EwDTypeRule::Internal);
      CHECK((e.arity == 1 || e.arity == 2));
    }
    CHECK(std::string(e.primitive).find(' ') == std::string::npos);
    CHECK(e.flops >= 0);
  }
}

TEST_CASE("each module binds a name to at most one primitive", "[primitives]") {
  auto check_column = [](auto column) {
    std::set<std::string> seen;
    ir::for_each_binding(column, [&](EwOp op, std::string_view name) {
      INFO(ir::ew_op_name(op) << " as " << name);
      CHECK(seen.insert(std::string(name)).second);
    });
    return seen;
  };
  auto jnp = check_column([](const ir::EwInfo& e) { return e.jnp_names; });
  auto lax = check_column([](const ir::EwInfo& e) { return e.lax_names; });
  auto np = check_column([](const ir::EwInfo& e) { return e.numpy_names; });
  // Aliases are split on spaces: both spellings are bound.
  CHECK(jnp.count("abs") == 1);
  CHECK(jnp.count("absolute") == 1);
  CHECK(lax.count("erf") == 1);
  CHECK(np.count("logaddexp") == 1);
  CHECK(jnp.count("erf") == 0);  // jax.scipy.special.erf, not jnp
}

TEST_CASE("the table's properties: dtype rules, cost columns", "[primitives]") {
  CHECK(ir::ew_makes_inexact(EwOp::Sin));
  CHECK(ir::ew_makes_inexact(EwOp::Div));
  CHECK_FALSE(ir::ew_makes_inexact(EwOp::Floor));  // Rounding: integers pass through in jnp
  CHECK(ir::ew_info(EwOp::Floor).dtype_rule == EwDTypeRule::Rounding);
  CHECK(ir::ew_returns_bool(EwOp::Lt));
  CHECK(ir::ew_returns_bool(EwOp::IsNan));
  CHECK_FALSE(ir::ew_returns_bool(EwOp::And));
  CHECK(ir::ew_info(EwOp::Exp).transcendental);
  CHECK_FALSE(ir::ew_info(EwOp::Add).transcendental);
  CHECK(std::string(ir::ew_info(EwOp::Mod).primitive) == "remainder");
  CHECK(std::string(ir::ew_op_name(EwOp::LogAddExp)) == "LogAddExp");
}

TEST_CASE("reduce kinds and collectives are named from their tables", "[primitives]") {
  CHECK(std::string(ir::reduce_kind_name(ir::ReduceKind::Prod)) == "prod");
  CHECK(std::string(ir::all_reduce_name(ir::ReduceKind::Sum)) == "psum");
  CHECK(std::string(ir::all_reduce_name(ir::ReduceKind::Max)) == "pmax");
  std::set<std::string> ledger;
  for (int k = 0; k <= static_cast<int>(ir::OpKind::Scan); ++k)
    if (const char* n = ir::collective_kind_name(static_cast<ir::OpKind>(k))) ledger.insert(n);
  CHECK(ledger == std::set<std::string>{"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute"});
  CHECK_FALSE(ir::is_collective(ir::OpKind::Transpose));
}

TEST_CASE("printed jaxprs name elementwise ops by the table's primitive names", "[primitives]") {
  using types::DType;
  ir::Function f;
  auto t = ir::ArrayType(DType::F32, {4});
  auto x = f.new_value(t), y = f.new_value(t);
  f.params = {x, y};
  auto a = testing::op1(f, ir::OpKind::Elementwise, {x, y}, t, testing::ew(EwOp::LogAddExp));
  auto b = testing::op1(f, ir::OpKind::Elementwise, {a}, t, testing::ew(EwOp::Expm1));
  auto c = testing::op1(f, ir::OpKind::Elementwise, {b, y}, t, testing::ew(EwOp::Mod));
  f.results = {c};
  CHECK(ir::verify(f).empty());
  auto text = ir::print(f);
  CHECK(text.find("= logaddexp a b") != std::string::npos);
  CHECK(text.find("= expm1 c") != std::string::npos);
  CHECK(text.find("= remainder d b") != std::string::npos);
}

TEST_CASE("integer_pow carries its exponent as an attribute: printed, compared, hashed", "[primitives][attrs]") {
  using types::DType;
  auto build = [](int64_t y) {
    ir::Function f;
    ir::Builder b(f);
    auto x = b.param(ir::ArrayType(DType::F32, {4}));
    f.results = {b.op(ir::OpKind::Elementwise, {x}, ir::ArrayType(DType::F32, {4}), ir::attr::Elementwise{ir::EwOp::IntegerPow, y})};
    return f;
  };
  auto cube = build(3), square = build(2);
  CHECK(ir::print(cube).find("= integer_pow[y=3] a") != std::string::npos);
  CHECK_FALSE(ir::structurally_equal(cube, square));  // the compile cache keeps them apart
  CHECK(ir::structural_hash(cube) != ir::structural_hash(square));
  CHECK(ir::structurally_equal(cube, build(3)));
}

TEST_CASE("dimension maps of the data-movement ops", "[primitives][dim_map]") {
  SECTION("transpose: result dim j reads operand dim perm[j]") {
    auto m = ir::dim_map(ir::attr::Transpose{{2, 0, 1}}, {2, 3, 4}, {4, 2, 3});
    CHECK(m[2].result_dim == 0);
    CHECK(m[0].result_dim == 1);
    CHECK(m[1].result_dim == 2);
    CHECK(ir::keeps_whole_dim(m, 2, {2, 3, 4}, {4, 2, 3}));
  }
  SECTION("broadcast_in_dim: size-1 operand dims are broadcast, others follow dims") {
    auto m = ir::dim_map(ir::attr::BroadcastInDim{{0, 2}}, {1, 5}, {3, 7, 5});
    CHECK(m[0].result_dim == -1);
    CHECK(m[1].result_dim == 2);
    CHECK_FALSE(ir::keeps_whole_dim(m, 0, {1, 5}, {3, 7, 5}));
    CHECK(ir::keeps_whole_dim(m, 1, {1, 5}, {3, 7, 5}));
  }
  SECTION("slice: start + stride * index; a sliced dim is not whole") {
    auto m = ir::dim_map(ir::attr::Slice{{1, 0}, {7, 4}, {2, 1}}, {8, 4}, {3, 4});
    CHECK(m[0].start == 1);
    CHECK(m[0].step == 2);
    CHECK_FALSE(ir::keeps_whole_dim(m, 0, {8, 4}, {3, 4}));
    CHECK(ir::keeps_whole_dim(m, 1, {8, 4}, {3, 4}));
  }
  SECTION("rev: n - 1 - index") {
    auto m = ir::dim_map(ir::attr::Rev{{1}}, {2, 6}, {2, 6});
    CHECK(m[1].start == 5);
    CHECK(m[1].step == -1);
    CHECK(m[0].step == 1);
  }
}

TEST_CASE("typed attributes: equality, hashing and the verifier's kind check", "[primitives][attrs]") {
  using types::DType;
  auto build = [](ir::Attrs transpose_attrs) {
    ir::Function f;
    ir::Builder b(f);
    auto x = b.param(ir::ArrayType(DType::F32, {2, 3}));
    f.results = {b.op(ir::OpKind::Transpose, {x}, ir::ArrayType(DType::F32, {3, 2}), std::move(transpose_attrs))};
    return f;
  };
  auto a = build(ir::attr::Transpose{{1, 0}});
  auto same = build(ir::attr::Transpose{{1, 0}});
  CHECK(ir::verify(a).empty());
  CHECK(ir::structurally_equal(a, same));
  CHECK(ir::structural_hash(a) == ir::structural_hash(same));
  // Attributes of another kind are a malformed op.
  auto wrong = build(ir::attr::Rev{{0}});
  auto problems = ir::verify(wrong);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("attributes of another kind") != std::string::npos);
  CHECK_FALSE(ir::structurally_equal(a, wrong));
  // Kinds without attributes get their empty struct from the builder.
  ir::Function g;
  ir::Builder b(g);
  auto x = b.param(ir::ArrayType(DType::F32, {6}));
  auto r = b.op(ir::OpKind::Reshape, {x}, ir::ArrayType(DType::F32, {2, 3}));
  g.results = {r};
  CHECK(std::holds_alternative<ir::attr::Reshape>(g.ops[0].attrs));
  CHECK(ir::verify(g).empty());
  // Constants compare by their bytes, not by the buffer they share.
  auto lit = [](uint8_t v) { return std::make_shared<ir::Literal>(ir::Literal{{v, 0, 0, 0}}); };
  CHECK(ir::Attrs(ir::attr::Constant{lit(1)}) == ir::Attrs(ir::attr::Constant{lit(1)}));
  CHECK(ir::Attrs(ir::attr::Constant{lit(1)}) != ir::Attrs(ir::attr::Constant{lit(2)}));
}
