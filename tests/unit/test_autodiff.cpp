// Unit tests of the IR transforms: forward mode, linearize (partial evaluation), transpose,
// and batching, checked on the IR they produce (the numerics are the oracles' business).
#include <catch2/catch.hpp>

#include <string>

#include "autodiff/autodiff.hpp"
#include "batching/batching.hpp"
#include "trace/ops.hpp"

using namespace shard;
using types::ArrayType;
using types::DType;

namespace {
// f(x, y) = sin(x) * y on f32[4] values, as the tracer records it.
ir::Function sin_times() {
  trace::Trace t("f", types::AbstractMesh());
  auto x = t.param(ArrayType(DType::F32, {4}));
  auto y = t.param(ArrayType(DType::F32, {4}));
  auto s = trace::unary(t, "sin", ir::EwOp::Sin, x);
  return t.finish({trace::binary(t, "mul", ir::EwOp::Mul, s, y)});
}

size_t count(const ir::Function& f, ir::OpKind k) {
  size_t n = 0;
  for (auto& op : f.ops) n += op.kind == k;
  return n;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("jvp: a symbolic zero tangent costs nothing; the rule of sin multiplies by cos", "[autodiff]") {
  const ir::Function f = sin_times();
  auto t = std::make_shared<trace::Trace>("jvp", types::AbstractMesh());
  auto x = t->param(f.type(f.params[0])), y = t->param(f.type(f.params[1])), dx = t->param(f.type(f.params[0]));
  auto r = autodiff::jvp(*t, f, {x, y}, {dx, std::nullopt});
  REQUIRE(r.tangents.size() == 1);
  REQUIRE(r.tangents[0].has_value());
  const ir::Function g = t->finish({r.primals[0], *r.tangents[0]});
  const std::string text = ir::print(g);
  CHECK(contains(text, "cos a"));  // d sin = cos(x) dx
  // No tangent for y: sin, cos, mul (primal), mul (dx * cos), mul (by y): nothing for dy.
  CHECK(count(g, ir::OpKind::Elementwise) == 5);
  // All tangents zero: the primal program only.
  auto t2 = std::make_shared<trace::Trace>("jvp", types::AbstractMesh());
  auto x2 = t2->param(f.type(f.params[0])), y2 = t2->param(f.type(f.params[1]));
  auto r2 = autodiff::jvp(*t2, f, {x2, y2}, {std::nullopt, std::nullopt});
  CHECK_FALSE(r2.tangents[0].has_value());
}

TEST_CASE("linearize splits the primal program from the linear part; transpose runs it backwards", "[autodiff]") {
  const ir::Function f = sin_times();
  auto t = std::make_shared<trace::Trace>("grad", types::AbstractMesh());
  auto x = t->param(f.type(f.params[0])), y = t->param(f.type(f.params[1]));
  auto lin = autodiff::linearize(*t, f, {x, y}, {true, false});
  // The linear function reads residuals (cos(x) and y, or their product) and one tangent.
  REQUIRE(lin.linear.params.size() == lin.residuals.size() + 1);
  CHECK(lin.residuals.size() >= 1);
  for (auto& op : lin.linear.ops) {
    INFO(ir::print(lin.linear));
    CHECK(op.kind == ir::OpKind::Elementwise);
    CHECK(op.attr<ir::attr::Elementwise>().op == ir::EwOp::Mul);  // only scaling: linear
  }
  auto ct = t->param(f.type(f.results[0]));
  auto g = autodiff::transpose(*t, lin.linear, lin.residuals, {ct});
  REQUIRE(g.size() == 1);
  REQUIRE(g[0].has_value());
  CHECK(t->type(*g[0]) == f.type(f.params[0]));  // the cotangent has the primal's type
}

TEST_CASE("linearize refuses reverse mode through while_loop with JAX's error", "[autodiff]") {
  // while c < 10: c = c * 2
  trace::Trace cond_t("cond", types::AbstractMesh());
  auto cc = cond_t.param(ArrayType(DType::F32, {}));
  auto cond = std::make_shared<const ir::Function>(
      cond_t.finish({trace::binary(cond_t, "lt", ir::EwOp::Lt, cc, trace::scalar_constant(cond_t, 10, {DType::F32, true}))}));
  trace::Trace body_t("body", types::AbstractMesh());
  auto bc = body_t.param(ArrayType(DType::F32, {}));
  auto body = std::make_shared<const ir::Function>(
      body_t.finish({trace::binary(body_t, "mul", ir::EwOp::Mul, bc, trace::scalar_constant(body_t, 2, {DType::F32, true}))}));
  trace::Trace ft("f", types::AbstractMesh());
  auto x = ft.param(ArrayType(DType::F32, {}));
  auto r = trace::while_loop(ft, {cond, {}}, {body, {}}, {x}, {ArrayType(DType::F32, {})});
  const ir::Function f = ft.finish(r);
  auto t = std::make_shared<trace::Trace>("grad", types::AbstractMesh());
  auto p = t->param(f.type(f.params[0]));
  try {
    autodiff::linearize(*t, f, {p}, {true});
    FAIL("expected an error");
  } catch (const types::ShardingError& e) {
    CHECK(contains(e.what(), "Reverse-mode differentiation does not work for lax.while_loop"));
  }
}

TEST_CASE("batching: the batch is a leading dim; unbatched operands broadcast; dots add a batch dim", "[batching]") {
  const ir::Function f = sin_times();
  auto t = std::make_shared<trace::Trace>("vmap", types::AbstractMesh());
  auto xs = t->param(ArrayType(DType::F32, {3, 4}));
  auto y = t->param(ArrayType(DType::F32, {4}));
  auto out = batching::batch(*t, f, {{xs, true}, {y, false}}, 3);
  REQUIRE(out.size() == 1);
  CHECK(out[0].batched);
  CHECK(t->type(out[0].value).shape() == types::Shape{3, 4});
  // Both unbatched: the op is copied as it is.
  auto y2 = t->param(ArrayType(DType::F32, {4}));
  auto same = batching::batch(*t, f, {{y2, false}, {y, false}}, 3);
  CHECK_FALSE(same[0].batched);
  CHECK(t->type(same[0].value).shape() == types::Shape{4});

  // x @ w batched on both sides: one more batch dim, in front.
  trace::Trace dt("dot", types::AbstractMesh());
  auto a = dt.param(ArrayType(DType::F32, {2, 3}));
  auto b = dt.param(ArrayType(DType::F32, {3, 5}));
  const ir::Function dot = dt.finish({trace::matmul(dt, a, b)});
  auto t2 = std::make_shared<trace::Trace>("vmap", types::AbstractMesh());
  auto as = t2->param(ArrayType(DType::F32, {7, 2, 3}));
  auto bs = t2->param(ArrayType(DType::F32, {7, 3, 5}));
  auto d = batching::batch(*t2, dot, {{as, true}, {bs, true}}, 7);
  CHECK(t2->type(d[0].value).shape() == types::Shape{7, 2, 5});
  CHECK(contains(ir::print(t2->finish({d[0].value})), "(((2,), (1,)), ((0,), (0,)))"));  // a batch dim pair (0, 0)
  // Only the rhs batched: its free dim lands after the lhs's and is moved to the front.
  auto t3 = std::make_shared<trace::Trace>("vmap", types::AbstractMesh());
  auto a3 = t3->param(ArrayType(DType::F32, {2, 3}));
  auto b3 = t3->param(ArrayType(DType::F32, {7, 3, 5}));
  auto d3 = batching::batch(*t3, dot, {{a3, false}, {b3, true}}, 7);
  CHECK(t3->type(d3[0].value).shape() == types::Shape{7, 2, 5});
}
