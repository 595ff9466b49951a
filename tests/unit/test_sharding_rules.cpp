// Sharding rules §0-§3 (SHARDING_RULES.md): the framework, elementwise, creation, shape ops,
// reshape, slicing. Tables of input types -> result type, or error class + message substring.
// Expected strings from the seeds (000 Part 2.A/2.B) are exact.
#include "test_sharding_util.hpp"

using namespace sharding_test;

TEST_CASE("§0 framework: when rules run, mesh checks, illegal results", "[sharding][rules]") {
  AbstractMesh xy = mXY(), auto_xy = mXY(A), dp = mDP(), empty;
  auto add = [&](const AbstractMesh& c, std::vector<ArrayType> ops) {
    return propagate_elementwise(ctx(c, "add"), ops, DType::F32);
  };
  run_rows({
      // No Explicit axis anywhere: no sharding, the rule does not run.
      ROW("float32[8,4]", add(auto_xy, {T(auto_xy, "f32[8,4]"), T(auto_xy, "f32[8,4]")})),
      ROW("float32[8,4]", add(empty, {T(empty, "f32[8,4]"), T(empty, "f32[8,4]")})),
      // Inputs on an Explicit mesh without a context mesh: the rule runs.
      ROW("float32[8@X]", add(empty, {T(xy, "f32[8@X]"), T(xy, "f32[8@X]")})),
      // Context mesh Explicit, inputs without a mesh (constants): replicated on the context.
      ROW("float32[8]", add(xy, {T(empty, "f32[8]"), T(empty, "f32[8]")})),
      ROW("float32[8@X]", add(xy, {T(xy, "f32[8@X]"), T(empty, "f32[8]")})),
      // Meshes without Explicit axes never conflict.
      ROW("float32[4]", add(empty, {T(auto_xy, "f32[4]"), T(mDP(A), "f32[4]")})),
      ERR("ValueError", "the context mesh AbstractMesh('dp': 4, 'mp': 2, axis_types=(Explicit, "
                        "Explicit)) should match the mesh AbstractMesh('X': 2, 'Y': 2",
          add(dp, {T(xy, "f32[8@X]")})),
      ERR("ValueError", "Mesh for all inputs of `add` should be equal",
          add(empty, {T(xy, "f32[8@X]"), T(dp, "f32[8@dp]")})),
      // The duplicate-axis check after the rule.
      ERR(STE,
          "`add` operation with inputs: float32[4@X,4], float32[4,4@X] produces an illegally "
          "sharded result: float32[4@X,4@X]",
          add(xy, {T(xy, "f32[4@X,4]"), T(xy, "f32[4,4@X]")})),
      ERR(STE, "`auto_axes(f, out_sharding=P('X', None))`",
          add(xy, {T(xy, "f32[4@X,4]"), T(xy, "f32[4,4@X]")})),
      // The divisibility check on results.
      ERR("ValueError",
          "Sharding spec ('X',) implies that array axis 0 is partitioned 2 times, but does not "
          "evenly divide the dimension size 5. Got shape: (5,)",
          propagate_reshape(ctx(xy, "reshape"), T(xy, "f32[5]"), {5}, OutSharding(P({{"X"}})))),
      // A primitive without a rule.
      ERR(STE, "sharding rule for `gather` is not implemented",
          propagate_without_rule(ctx(xy, "gather"), {T(xy, "f32[8@X]")}, DType::F32, {3})),
      ERR(STE, "jax.sharding.auto_axes(f, out_sharding=P(...))",
          propagate_without_rule(ctx(xy, "gather"), {T(xy, "f32[8]")}, DType::F32, {3})),
      ROW("float32[3]",
          propagate_without_rule(ctx(auto_xy, "gather"), {T(auto_xy, "f32[8]")}, DType::F32, {3})),
  });
}

TEST_CASE("§1 elementwise: unary, broadcasting, where, clamp", "[sharding][rules]") {
  AbstractMesh xy = mXY(), dp = mDP(), empty;
  auto ew = [&](std::vector<ArrayType> ops, std::string op = "add", DType d = DType::F32) {
    return propagate_elementwise(ctx(xy, op), ops, d);
  };
  AbstractMesh manual = mesh({"b"}, {2}, {M});
  run_rows({
      // seed 000 Part 2.A
      ROW("float32[8@dp,4@mp]", propagate_unary(ctx(dp, "sin"), T(dp, "f32[8@dp,4@mp]"), DType::F32)),
      ROW("float32[8@dp,5]", propagate_elementwise(ctx(dp, "add"),
                                                   {T(dp, "f32[8@dp,5]"), T(dp, "f32[8@dp,5]")},
                                                   DType::F32)),
      ROW("int32[8@X,4@Y]", propagate_unary(ctx(xy, "astype"), T(xy, "f32[8@X,4@Y]"), DType::I32)),
      ROW("float32[4@X,4]", ew({T(xy, "f32[4@X,4]"), T(xy, "f32[4,4]")})),
      ROW("float32[4@X,4]", ew({T(xy, "f32[4,4]"), T(xy, "f32[4@X,4]")})),
      ROW("int32[4@X,8@Y]", ew({T(xy, "i32[4@X,1]"), T(xy, "i32[1,8@Y]")}, "add", DType::I32)),
      ROW("float32[4@X,8]", ew({T(xy, "f32[4@X,8]"), T(xy, "f32[8]")})),   // ranks aligned
      ROW("float32[4,8@Y]", ew({T(xy, "f32[8@Y]"), T(xy, "f32[4,8]")})),
      ROW("float32[8@X]", ew({T(xy, "f32[]"), T(xy, "f32[8@X]")})),          // scalars take no part
      ROW("float32[4@X,8@Y]", ew({T(xy, "f32[4@X,8@Y]"), T(xy, "f32[4@X,8@Y]")}, "mul")),
      ROW("float32[8@X]", ew({T(xy, "f32[8@X]"), T(xy, "f32[8]"), T(xy, "f32[8@X]")}, "fma")),
      ROW("float32[8@(X,Y)]", ew({T(xy, "f32[8@(X,Y)]"), T(xy, "f32[8]")})),
      ROW("bool[8@X]", ew({T(xy, "f32[8@X]"), T(xy, "f32[8@X]")}, "lt", DType::Bool)),
      ERR(STE, "`add` got incompatible shardings for broadcasting: ('X', None), ('Y', None).",
          ew({T(xy, "f32[4@X,4]"), T(xy, "f32[4@Y,4]")})),
      ERR(STE, "`reshard(x, P('X', None))` for the operand of type float32[4@Y,4]",
          ew({T(xy, "f32[4@X,4]"), T(xy, "f32[4@Y,4]")})),
      ERR(STE, "`sub` got incompatible shardings for broadcasting: (('X', 'Y'),), ('X',).",
          ew({T(xy, "f32[8@(X,Y)]"), T(xy, "f32[8@X]")}, "sub")),
      ERR(STE, "illegally sharded result: float32[4@X,4@X]",
          ew({T(xy, "f32[4@X,1]"), T(xy, "f32[1,4@X]")})),
      ERR("TypeError", "`add` got incompatible shapes for broadcasting: (3,), (4,).",
          ew({T(xy, "f32[3]"), T(xy, "f32[4]")})),
      // VMA: binary ops take the union (implicit pvary).
      ROW("float32[3]{b}", propagate_elementwise(ctx(manual, "add"),
                                                 {T(manual, "f32[3]{b}"), T(manual, "f32[3]")},
                                                 DType::F32)),
      ROW("float32[3]", propagate_elementwise(ctx(manual, "add", false),
                                              {T(manual, "f32[3]"), T(manual, "f32[3]")},
                                              DType::F32)),
      // Unreduced (partial sums): add keeps equal unreduced axes and refuses a reduced operand;
      // mul scales one unreduced operand; a non-linear op needs the sum first.
      ROW("float32[4,4]{U:X}", ew({T(xy, "f32[4,4]{U:X}"), T(xy, "f32[4,4]{U:X}")})),
      ERR(STE, "unreduced along the same axes", ew({T(xy, "f32[4,4]{U:X}"), T(xy, "f32[4,4]")})),
      ROW("float32[4,4]{U:X}", propagate_elementwise(ctx(xy, "mul"), {T(xy, "f32[4,4]{U:X}"), T(xy, "f32[4,4]")}, DType::F32)),
      ERR("NotImplementedError", "unreduced rule for `mul`",
          propagate_elementwise(ctx(xy, "mul"), {T(xy, "f32[4,4]{U:X}"), T(xy, "f32[4,4]{U:X}")}, DType::F32)),
      ERR("NotImplementedError", "unreduced rule for `sin`", propagate_unary(ctx(xy, "sin"), T(xy, "f32[4,4]{U:X}"), DType::F32)),
      ROW("float32[4,4]{U:X}", propagate_unary(ctx(xy, "neg"), T(xy, "f32[4,4]{U:X}"), DType::F32)),
      // where / select
      ROW("float32[8@X]", propagate_where(ctx(xy, "where"), T(xy, "bool[8@X]"), T(xy, "f32[8@X]"),
                                          T(xy, "f32[8@X]"))),
      ERR(STE, "select cases must have the same shardings, got [float32[8@X], float32[8]]",
          propagate_where(ctx(xy, "where"), T(xy, "bool[8]"), T(xy, "f32[8@X]"), T(xy, "f32[8]"))),
      ROW("float32[8@X]", propagate_where(ctx(xy, "where"), T(xy, "bool[8@X]"), T(xy, "f32[8@X]"),
                                          T(xy, "f32[]"))),
      ROW("float32[8@X,4@Y]", propagate_where(ctx(xy, "where"), T(xy, "bool[8@X,1]"),
                                              T(xy, "f32[4@Y]"), T(xy, "f32[1,4]"))),
      ERR(STE, "incompatible shardings for broadcasting",
          propagate_where(ctx(xy, "where"), T(xy, "bool[8@Y]"), T(xy, "f32[8@X]"), T(xy, "f32[]"))),
      // clamp / clip: the operand's sharding
      ROW("float32[8@X]", propagate_clamp(ctx(xy, "clamp"), T(xy, "f32[]"), T(xy, "f32[8@X]"),
                                          T(xy, "f32[]"))),
      ROW("float32[8@X]", propagate_clamp(ctx(xy, "clip"), T(xy, "f32[8]"), T(xy, "f32[8@X]"),
                                          T(xy, "f32[8@Y]"))),
      ROW("float32[4,8@X]", propagate_clamp(ctx(xy, "clip"), T(xy, "f32[4,1]"), T(xy, "f32[8@X]"),
                                            T(xy, "f32[]"))),
  });
  // weak types: all weak -> weak
  CHECK(ew({T(xy, "f32[8@X]", true), T(xy, "f32[]", true)}).weak_type());
  CHECK_FALSE(ew({T(xy, "f32[8@X]", true), T(xy, "f32[]")}).weak_type());
}

TEST_CASE("§2 creation ops and *_like", "[sharding][rules]") {
  AbstractMesh dp = mDP(), empty, mixed = mesh({"dp", "mp"}, {4, 2}, {A, E});
  AbstractMesh manual = mesh({"dp", "mp"}, {4, 2}, {M, M});
  auto zeros = [&](const AbstractMesh& c, Shape s, OptOutSharding o = std::nullopt) {
    return propagate_creation(ctx(c, "zeros"), DType::F32, s, o);
  };
  NamedSharding ns_mp(dp, P({None, {"mp"}}));
  run_rows({
      ROW("float32[8,4]", zeros(dp, {8, 4})),  // seed 000 Part 2.A: jnp.zeros((M,K))
      ROW("float32[8@dp,4]", zeros(dp, {8, 4}, OutSharding(P({{"dp"}})))),
      ROW("float32[8@dp,4@mp]", zeros(dp, {8, 4}, OutSharding(P({{"dp"}, {"mp"}})))),
      ROW("float32[8@(dp,mp)]", zeros(dp, {8}, OutSharding(P({{"dp", "mp"}})))),
      ROW("float32[8,4@mp]", zeros(empty, {8, 4}, OutSharding(ns_mp))),
      ROW("float32[8,4@mp]", zeros(dp, {8, 4}, OutSharding(ns_mp))),
      ROW("int32[8]", propagate_creation(ctx(dp, "arange"), DType::I32, {8}, std::nullopt)),
      ROW("float32[8@dp]", propagate_creation(ctx(dp, "normal"), DType::F32, {8}, OutSharding(P({{"dp"}})))),
      ERR("ValueError", "Using PartitionSpec when you are not under a mesh context",
          zeros(empty, {8}, OutSharding(P({{"dp"}})))),
      ERR("ValueError", "Please pass a NamedSharding instance", zeros(empty, {8}, OutSharding(P({{"dp"}})))),
      ERR("ValueError",
          "PartitionSpec passed to `zeros` cannot contain axis names that are of type Auto or "
          "Manual. Got PartitionSpec: PartitionSpec('dp',) with axis name: dp of type: "
          "AxisType.Auto.",
          zeros(mixed, {8}, OutSharding(P({{"dp"}})))),
      ROW("float32[8@mp]", zeros(mixed, {8}, OutSharding(P({{"mp"}})))),
      ERR("ValueError", "of type: AxisType.Manual", zeros(manual, {8}, OutSharding(P({{"dp"}})))),
      ERR("ValueError", "Context mesh AbstractMesh('dp': 4, 'mp': 2, axis_types=(Auto, Explicit)) "
                        "should match the mesh of sharding",
          zeros(mixed, {8, 4}, OutSharding(ns_mp))),
      ERR("ValueError", "does not evenly divide the dimension size 6",
          zeros(dp, {6}, OutSharding(P({{"dp"}})))),
      // *_like
      ROW("float32[8@dp,4@mp]", propagate_full_like(ctx(dp, "zeros_like"), T(dp, "f32[8@dp,4@mp]"),
                                                    DType::F32, std::nullopt, std::nullopt)),
      ROW("int32[8@dp,4@mp]", propagate_full_like(ctx(empty, "ones_like"), T(dp, "f32[8@dp,4@mp]"),
                                                  DType::I32, Shape{8, 4}, std::nullopt)),
      ROW("float32[2,2]", propagate_full_like(ctx(dp, "full_like"), T(dp, "f32[8@dp,4@mp]"),
                                              DType::F32, Shape{2, 2}, std::nullopt)),
      ROW("float32[8,4@mp]", propagate_full_like(ctx(dp, "zeros_like"), T(dp, "f32[8@dp,4@mp]"),
                                                 DType::F32, std::nullopt, OutSharding(P({None, {"mp"}})))),
      ROW("float32[2,3]{dp}", propagate_full_like(ctx(manual, "zeros_like"), T(manual, "f32[2,3]{dp}"),
                                                  DType::F32, std::nullopt, std::nullopt)),
  });
  CHECK(zeros(dp, {8, 4}).mesh() == dp);
}

TEST_CASE("§3 broadcasts, expand_dims, squeeze, transpose, concatenate, stack", "[sharding][rules]") {
  AbstractMesh xy = mXY(), empty;
  auto c = [&](std::string op) { return ctx(xy, op); };
  run_rows({
      ROW("float32[4,8@X]", propagate_broadcast_in_dim(c("broadcast_in_dim"), T(xy, "f32[8@X]"), {4, 8}, {1})),
      ROW("float32[8@X,4]", propagate_broadcast_in_dim(c("broadcast_in_dim"), T(xy, "f32[8@X]"), {8, 4}, {0})),
      ROW("float32[8@X,3,4@Y]", propagate_broadcast_in_dim(c("broadcast_in_dim"), T(xy, "f32[8@X,4@Y]"), {8, 3, 4}, {0, 2})),
      ROW("float32[4,8@X]", propagate_broadcast_in_dim(c("broadcast_in_dim"), T(xy, "f32[8@X]"), {4, 8}, {1},
                                                       OutSharding(P({None, {"X"}})))),
      ROW("float32[4@Y,8]", propagate_broadcast_in_dim(c("broadcast_in_dim"), T(xy, "f32[8@X]"), {4, 8}, {1},
                                                       OutSharding(P({{"Y"}})))),
      ERR("TypeError", "cannot broadcast operand of shape (8,) to shape (4, 6)",
          propagate_broadcast_in_dim(c("broadcast_in_dim"), T(xy, "f32[8@X]"), {4, 6}, {1})),
      ROW("float32[2,8@X]", propagate_broadcast_to(c("broadcast_to"), T(xy, "f32[8@X]"), {2, 8})),
      ROW("float32[4,8@Y]", propagate_broadcast_to(c("broadcast_to"), T(xy, "f32[1,8@Y]"), {4, 8})),
      ROW("float32[3,2@X,5]", propagate_broadcast_to(c("broadcast_to"), T(xy, "f32[2@X,1]"), {3, 2, 5})),
      ERR("ValueError", "Incompatible shapes for broadcasting: (3,) and requested shape (4,)",
          propagate_broadcast_to(c("broadcast_to"), T(xy, "f32[3]"), {4})),
      ROW("float32[1,8@X]", propagate_expand_dims(c("expand_dims"), T(xy, "f32[8@X]"), {0})),
      ROW("float32[8@X,1]", propagate_expand_dims(c("expand_dims"), T(xy, "f32[8@X]"), {-1})),
      ROW("float32[1,8@X,1,4@Y]", propagate_expand_dims(c("expand_dims"), T(xy, "f32[8@X,4@Y]"), {0, 2})),
      ROW("float32[8@X]", propagate_squeeze(c("squeeze"), T(xy, "f32[1,8@X]"), {0})),
      ROW("float32[8@X,4]", propagate_squeeze_all(c("squeeze"), T(xy, "f32[1,8@X,1,4]"))),
      ERR("ValueError", "cannot select an axis to squeeze out which has size not equal to one",
          propagate_squeeze(c("squeeze"), T(xy, "f32[8@X]"), {0})),
      ROW("float32[4@Y,8@X]", propagate_transpose(c("transpose"), T(xy, "f32[8@X,4@Y]"), {})),  // .T
      ROW("float32[4@Y,8@X]", propagate_transpose(c("transpose"), T(xy, "f32[8@X,4@Y]"), {1, 0})),
      ROW("float32[6,2@X,4@Y]", propagate_transpose(c("transpose"), T(xy, "f32[2@X,4@Y,6]"), {2, 0, 1})),
      ERR("TypeError", "permutation must be a permutation of range(ndim)",
          propagate_transpose(c("transpose"), T(xy, "f32[8@X,4@Y]"), {0, 0})),
      ROW("float32[8@X,4]", propagate_rev(c("rev"), T(xy, "f32[8@X,4]"), {0})),
      ROW("float32[8@X]", propagate_concatenate(c("concatenate"), {T(xy, "f32[4@X]"), T(xy, "f32[4@X]")}, 0)),
      ROW("float32[4@X,8]", propagate_concatenate(c("concatenate"), {T(xy, "f32[4@X,2]"), T(xy, "f32[4@X,6]")}, 1)),
      ROW("float32[4@X,8]", propagate_concatenate(c("concatenate"), {T(xy, "f32[4@X,2]"), T(empty, "f32[4,6]")}, -1)),
      ERR(STE, "`concatenate`: all operands should have the same sharding. Got operand types "
               "float32[4@X], float32[4]",
          propagate_concatenate(c("concatenate"), {T(xy, "f32[4@X]"), T(xy, "f32[4]")}, 0)),
      ERR("TypeError", "operands must have the same shape except on dimension 0",
          propagate_concatenate(c("concatenate"), {T(xy, "f32[4@X,2]"), T(xy, "f32[4@X,3]")}, 0)),
      ROW("float32[2,4@X]", propagate_stack(c("stack"), {T(xy, "f32[4@X]"), T(xy, "f32[4@X]")}, 0)),
      ROW("float32[4@X,3]", propagate_stack(c("stack"), {T(xy, "f32[4@X]"), T(xy, "f32[4@X]"), T(xy, "f32[4@X]")}, 1)),
      ERR(STE, "all operands should have the same sharding",
          propagate_stack(c("stack"), {T(xy, "f32[4@X]"), T(xy, "f32[4@Y]")}, 0)),
  });
}

TEST_CASE("§3 reshape (seed 000 Part 2.B), tile, repeat", "[sharding][rules]") {
  AbstractMesh xy = mXY(), dp = mDP(), x2y4 = mesh({"X", "Y"}, {2, 4}, {E, E});
  auto rs = [&](const AbstractMesh& m, std::string t, Shape s, OptOutSharding o = std::nullopt) {
    return propagate_reshape(ctx(m, "reshape"), T(m, t), s, o);
  };
  run_rows({
      ROW("float32[4@dp,6@mp]", rs(dp, "f32[4@dp,2@mp,3]", {4, 6})),  // seed, exact
      ROW("float32[2@X,4]", rs(xy, "f32[8@X]", {2, 4})),              // (4) split
      ROW("float32[2@X,4@Y]", rs(xy, "f32[8@(X,Y)]", {2, 4})),
      ROW("float32[4@X,4]", rs(xy, "f32[16@X]", {4, 4})),
      ROW("float32[4@(X,Y),4]", rs(xy, "f32[16@(X,Y)]", {4, 4})),
      ROW("float32[2@X,4@Y,3]", rs(x2y4, "f32[8@(X,Y),3]", {2, 4, 3})),
      ERR(STE, "This reshape is not supported. Please specify the sharding of the output via the "
               "`out_sharding` argument of jax.lax.reshape. Got operand type: float32[6@Y], new "
               "sizes: (3, 2)",
          rs(xy, "f32[6@Y]", {3, 2})),
      ERR(STE, "This reshape is not supported", rs(x2y4, "f32[16@(X,Y)]", {4, 4})),
      ROW("float32[8@X]", rs(xy, "f32[2@X,4]", {8})),          // (5) merge
      ROW("float32[8@(X,Y)]", rs(xy, "f32[2@X,4@Y]", {8})),
      ROW("float32[16@X]", rs(xy, "f32[4@X,4]", {16})),
      ERR(STE, "This reshape is not supported", rs(xy, "f32[2,6@Y]", {12})),  // None before sharded
      ERR(STE, "This reshape is not supported", rs(xy, "f32[4@X,4@Y]", {16})),  // not contiguous
      ROW("float32[8@X,6]", rs(xy, "f32[8@X,2,3]", {8, 6})),
      ERR(STE, "Got operand type: float32[6@X,4], new sizes: (4, 6)", rs(xy, "f32[6@X,4]", {4, 6})),  // (6) regroup
      ERR(STE, "`jax.lax.reshape(x, (4, 6), out_sharding=P(None, None))`", rs(xy, "f32[6@X,4]", {4, 6})),
      ERR(STE, "This reshape is not supported", rs(xy, "f32[8@X,6]", {2, 4, 2, 3})),  // two splits
      ERR(STE, "This reshape is not supported", rs(xy, "f32[8@X,2,3]", {2, 4, 6})),  // split + merge
      ROW("float32[4,6]", rs(xy, "f32[6,4]", {4, 6})),          // (2) replicated
      ROW("float32[1,8@X]", rs(xy, "f32[8@X]", {1, 8})),        // (3) size-1 dims
      ROW("float32[8@X,4@Y]", rs(xy, "f32[8@X,1,4@Y]", {8, 4})),
      ROW("float32[8@X,1,1]", rs(xy, "f32[1,8@X]", {8, 1, 1})),
      ROW("float32[32@X]", rs(xy, "f32[8@X,4]", {-1})),
      ROW("float32[4@X,6]", rs(xy, "f32[6@X,4]", {4, 6}, OutSharding(P({{"X"}})))),  // (1)
      ROW("float32[4,6@Y]", rs(xy, "f32[6@X,4]", {4, 6}, OutSharding(P({None, {"Y"}})))),
      ERR("TypeError", "total size must be unchanged", rs(xy, "f32[8@X]", {3})),
      ERR("TypeError", "can only specify one unknown dimension", rs(xy, "f32[8@X]", {-1, -1})),
      // tile / repeat
      ROW("float32[2,8@X]", propagate_tile(ctx(xy, "tile"), T(xy, "f32[8@X]"), {2, 1})),
      ROW("float32[8@X,8]", propagate_tile(ctx(xy, "tile"), T(xy, "f32[8@X,4]"), {1, 2})),
      ROW("float32[16]", propagate_tile(ctx(xy, "tile"), T(xy, "f32[8]"), {2})),
      ERR(STE, "`tile` repeats dimension 0 of float32[8@X], which is sharded over 'X'",
          propagate_tile(ctx(xy, "tile"), T(xy, "f32[8@X]"), {2})),
      ROW("float32[16@X]", propagate_repeat(ctx(xy, "repeat"), T(xy, "f32[8@X]"), 2, 0)),
      ROW("float32[4@X,6]", propagate_repeat(ctx(xy, "repeat"), T(xy, "f32[4@X,3]"), 2, 1)),
      ROW("float32[16@X]", propagate_repeat(ctx(xy, "repeat"), T(xy, "f32[4@X,2]"), 2, std::nullopt)),
      ERR(STE, "`repeat`: This reshape is not supported",
          propagate_repeat(ctx(xy, "repeat"), T(xy, "f32[2,4@X]"), 2, std::nullopt)),
  });
}

TEST_CASE("§3 slicing, indexing, pad, split, updates", "[sharding][rules]") {
  AbstractMesh xy = mXY(), empty;
  auto c = [&](std::string op) { return ctx(xy, op); };
  run_rows({
      ROW("float32[4@X]", propagate_slice(c("slice"), T(xy, "f32[8@X]"), {0}, {4})),
      ROW("float32[4@X]", propagate_slice(c("slice"), T(xy, "f32[8@X]"), {0}, {8}, {2})),
      ROW("float32[8@X,3]", propagate_slice(c("slice"), T(xy, "f32[8@X,5]"), {0, 1}, {8, 4})),
      ROW("float32[1]", propagate_slice(c("slice"), T(xy, "f32[8@X]"), {3}, {4})),  // all size 1
      ERR(STE,
          "`slice` on sharded dims where out dim (3) is not divisible by mesh axes (2) with spec "
          "(X) is not implemented. Got input type=float32[8@X] and output shape=(3,)",
          propagate_slice(c("slice"), T(xy, "f32[8@X]"), {0}, {3})),
      ERR(STE, "mesh axes (4) with spec (('X', 'Y'))",
          propagate_slice(c("slice"), T(xy, "f32[8@(X,Y)]"), {0}, {6})),
      ERR("TypeError", "invalid slice of dimension 0",
          propagate_slice(c("slice"), T(xy, "f32[8@X]"), {0}, {9})),
      ROW("float32[4@Y]", propagate_index(c("getitem"), T(xy, "f32[8@X,4@Y]"), {0})),
      ROW("float32[8@X]", propagate_index(c("getitem"), T(xy, "f32[8@X,4@Y]"), {-1})),
      ROW("float32[]", propagate_index(c("getitem"), T(xy, "f32[8@X,4@Y]"), {0, 1})),
      ROW("float32[1]", propagate_index(c("getitem"), T(xy, "f32[8@X,1]"), {0})),
      ROW("float32[4@X]", propagate_dynamic_slice(c("dynamic_slice"), T(xy, "f32[8@X]"), {4})),
      ROW("float32[1,4@Y]", propagate_dynamic_slice(c("dynamic_slice"), T(xy, "f32[8,4@Y]"), {1, 4})),
      ERR(STE, "`dynamic_slice` on sharded dims where out dim (1) is not divisible by mesh axes (2)",
          propagate_dynamic_slice(c("dynamic_slice"), T(xy, "f32[8@X,4]"), {1, 4})),
      ROW("float32[8@X]", propagate_dynamic_update_slice(c("dynamic_update_slice"), T(xy, "f32[8@X]"),
                                                         T(xy, "f32[4@X]"))),
      ERR(STE, "`dynamic_update_slice` operand sharding must be equal to update sharding, got "
               "operand sharding float32[8@X] and update sharding float32[4]",
          propagate_dynamic_update_slice(c("dynamic_update_slice"), T(xy, "f32[8@X]"), T(xy, "f32[4]"))),
      ROW("float32[8@X,4@Y]", propagate_at_update(c("scatter"), T(xy, "f32[8@X,4@Y]"), T(xy, "f32[]"))),
      ROW("float32[8@X,4@Y]", propagate_at_update(c("scatter"), T(xy, "f32[8@X,4@Y]"), T(xy, "f32[4@Y]"))),
      ERR(STE, "operand and update shardings must match, got operand float32[8@X,4@Y] and update "
               "float32[4]",
          propagate_at_update(c("scatter"), T(xy, "f32[8@X,4@Y]"), T(xy, "f32[4]"))),
      ROW("float32[10@X]", propagate_pad(c("pad"), T(xy, "f32[8@X]"), {{0, 2, 0}})),
      ROW("float32[8@X,11]", propagate_pad(c("pad"), T(xy, "f32[8@X,4]"), {{0, 0, 0}, {1, 0, 2}})),
      ERR(STE, "`pad` on sharded dims where out dim (9) is not divisible by mesh axes (2)",
          propagate_pad(c("pad"), T(xy, "f32[8@X]"), {{1, 0, 0}})),
  });
  auto parts = propagate_split(c("split"), T(xy, "f32[8@X,3]"), {2, 6}, 0);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].str_short() == "float32[2@X,3]");
  CHECK(parts[1].str_short() == "float32[6@X,3]");
  CHECK(propagate_split(c("split"), T(xy, "f32[3,8@X]"), {1, 2}, 0)[1].str_short() ==
        "float32[2,8@X]");
  CHECK(error_of([&] { propagate_split(c("split"), T(xy, "f32[8@X]"), {3, 5}, 0); })
            .find("`split` on sharded dims where out dim (3) is not divisible") != std::string::npos);
}
