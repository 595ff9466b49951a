// Sharding rules §7: shard_map local/global types, the check_vma output check, collectives and
// their VMA, implicit pvary, and the scan carry check. Seed 001's printed types and messages
// are exact.
#include "primitives/collectives/collectives.hpp"
#include "test_sharding_util.hpp"

using namespace sharding_test;

TEST_CASE("§7 shard_map argument and output types", "[sharding][shard_map]") {
  AbstractMesh dp = mDP(), wiz = mesh({"row_of_wizards", "col_of_wizards"}, {4, 2}, {A, A});
  AbstractMesh batch = mesh({"batch_dim"}, {2}, {A});
  // seed 000 Part 3.B: X (8,6) P('dp','mp') on the Explicit mesh
  ShardMapSpec sm = make_shard_map_spec("spmd_function", dp, std::nullopt, true, true);
  ArrayType lx = shard_map_input(sm, T(dp, "f32[8@dp,6@mp]"), P({{"dp"}, {"mp"}}));
  CHECK(lx.str() == "ShapedArray(float32[2,3]{dp,mp})");
  CHECK(lx.mesh() == shard_map_inner_mesh(sm));
  CHECK(shard_map_inner_mesh(sm).repr() == "AbstractMesh('dp': 4, 'mp': 2, axis_types=(Manual, Manual))");
  ArrayType sum = propagate_elementwise(ctx(lx.mesh(), "add"), {lx, lx}, DType::F32);
  ArrayType gx = shard_map_output(sm, sum, P({{"dp"}, {"mp"}}), {"", "", ""});
  CHECK(gx.str() == "ShapedArray(float32[8@dp,6@mp])");
  // seed 000 Part 3.D: psum over dp, out_specs P(None, None): one copy of the (2,4) block
  ArrayType lc = shard_map_input(sm, T(dp, "f32[8@dp,4]"), P({{"dp"}, None}));
  CHECK(lc.str_short() == "float32[2,4]{dp}");
  ArrayType ps = propagate_psum(ctx(lc.mesh(), "psum"), lc, {"dp"});
  CHECK(ps.str_short() == "float32[2,4]");
  CHECK(shard_map_output(sm, ps, P({None, None})).str() == "ShapedArray(float32[2,4])");
  // seed 001: the Auto mesh (types carry no sharding outside)
  ShardMapSpec smw = make_shard_map_spec("matmul_basic_sharded", wiz, std::nullopt, true, true);
  ArrayType a = shard_map_input(smw, T(wiz, "f32[8,16]"), P({{"row_of_wizards"}, {"col_of_wizards"}}));
  CHECK(a.str_short() == "float32[2,8]{row_of_wizards,col_of_wizards}");
  ArrayType b = shard_map_input(smw, T(wiz, "f32[16,4]"), P({{"col_of_wizards"}, None}), {"[1]", "[1]", ""});
  CHECK(b.str_short() == "float32[8,4]{col_of_wizards}");
  ArrayType c = propagate_dot(ctx(a.mesh(), "dot"), a, b, DType::F32);
  CHECK(c.str_short() == "float32[2,4]{row_of_wizards,col_of_wizards}");
  ArrayType cs = propagate_psum(ctx(a.mesh(), "psum"), c, {"col_of_wizards"});
  CHECK(shard_map_output(smw, cs, P({{"row_of_wizards"}, None})).str_short() == "float32[8,4]");
  // un-tiling: constant (1,1) blocks
  ArrayType one = propagate_creation(ctx(a.mesh(), "array"), DType::F32, {1, 1}, std::nullopt);
  CHECK(shard_map_output(smw, one, P({{"row_of_wizards"}, {"col_of_wizards"}})).shape() == Shape{4, 2});
  CHECK(shard_map_output(smw, one, P({{"row_of_wizards"}, None})).shape() == Shape{4, 1});
  CHECK(shard_map_output(smw, one, P({None, None})).shape() == Shape{1, 1});
  // seed 001: x_block type, psum, and the replicated output
  ShardMapSpec smb = make_shard_map_spec("check_vma_effects", batch, std::nullopt, true);
  ArrayType xb = shard_map_input(smb, T(batch, "f32[6]"), P({{"batch_dim"}}), {"[0]", "", ""});
  CHECK(xb.str() == "ShapedArray(float32[3]{batch_dim})");
  CHECK(xb.vma() == std::vector<std::string>{"batch_dim"});
  ArrayType yb = propagate_psum(ctx(xb.mesh(), "psum"), xb, {"batch_dim"});
  CHECK(yb.str() == "ShapedArray(float32[3])");
  CHECK(shard_map_output(smb, yb, P(), {"", "", ""}).str() == "ShapedArray(float32[3])");

  // The check_vma output check, seed 001 exact (legacy shard_map says check_rep).
  ShardMapSpec bad = make_shard_map_spec("incorrect_out_specs_example", batch, std::nullopt, true, true);
  ArrayType xbad = shard_map_input(bad, T(batch, "f32[6]"), P({{"batch_dim"}}), {"[0]", "", ""});
  CHECK(error_of([&] { shard_map_output(bad, xbad, P(), {"", "", ""}); }) ==
        "shard_map applied to the function 'incorrect_out_specs_example' was given out_specs "
        "which require replication which can't be statically inferred given the mesh:\n\n"
        "The mesh given has shape (2,) with corresponding axis names ('batch_dim',).\n\n"
        "out_specs is PartitionSpec() which implies that the corresponding output value is "
        "replicated across mesh axis 'batch_dim', but could not infer replication over any "
        "axes\n\n"
        "Check if these output values are meant to be replicated over those mesh axes. If not, "
        "consider revising the corresponding out_specs entries. If so, consider disabling the "
        "check by passing the check_rep=False argument to shard_map.");
  ShardMapSpec bad_new = make_shard_map_spec("f", batch, std::nullopt, true, false);
  CHECK(error_of([&] { shard_map_output(bad_new, xbad, P(), {"", "", ""}); })
            .find("passing the check_vma=False argument") != std::string::npos);
  // check_vma=False: no VMA, no check; P() takes one device's block.
  ShardMapSpec off = make_shard_map_spec("f", batch, std::nullopt, false, true);
  ArrayType xo = shard_map_input(off, T(batch, "f32[6]"), P({{"batch_dim"}}));
  CHECK(xo.str_short() == "float32[3]");
  CHECK(shard_map_output(off, xo, P()).str_short() == "float32[3]");
}

TEST_CASE("§7 shard_map spec errors", "[sharding][shard_map]") {
  AbstractMesh dp = mDP();
  ShardMapSpec sm = make_shard_map_spec("f", dp, std::nullopt, true);
  SpecSite x{"[0]", "[0]", "x"};
  std::string py;
  std::string msg = error_of([&] { shard_map_input(sm, T(dp, "f32[5,4]"), P({{"dp"}}), x); }, &py);
  CHECK(py == "ValueError");
  CHECK(msg ==
        "shard_map applied to the function 'f' was given argument arrays with axis sizes that "
        "are not evenly divisible by the corresponding mesh axis sizes:\n\n"
        "The mesh given has shape (4, 2) with corresponding axis names ('dp', 'mp').\n\n"
        "args[0] of shape float32[5,4], where args[0] is bound to f's parameter 'x', corresponds "
        "to in_specs[0] of value PartitionSpec('dp',), which maps array axis 0 (of size 5) to "
        "mesh axis 'dp' (of size 4), but 4 does not evenly divide 5\n\n"
        "Array arguments' axis sizes must be evenly divisible by the mesh axis or axes indicated "
        "by the corresponding elements of the argument's in_specs entry. Consider checking that "
        "in_specs are correct, and if so consider changing the mesh axis sizes or else padding "
        "the input and adapting 'f' appropriately.");
  CHECK(error_of([&] { shard_map_input(sm, T(dp, "f32[4,6]"), P({None, {"dp", "mp"}}), x); })
            .find("maps array axis 1 (of size 6) to mesh axes ('dp', 'mp') (of total size 8), "
                  "but 8 does not evenly divide 6") != std::string::npos);
  std::string scalar = error_of([&] { shard_map_input(sm, T(dp, "f32[]"), P({{"dp"}}), x); });
  CHECK(scalar.find("in_specs[0] is PartitionSpec('dp',) which has length 1, but args[0], where "
                    "args[0] is bound to f's parameter 'x', has shape float32[], which has rank "
                    "0 (and 0 < 1)") != std::string::npos);
  CHECK(scalar.find("For scalar values (rank 0), consider using an in_specs entry of `P()`") !=
        std::string::npos);
  CHECK(error_of([&] { shard_map_output(sm, T(shard_map_inner_mesh(sm), "f32[4]"), P({None, {"dp"}})); })
            .find("out_specs[0] is PartitionSpec(None, 'dp') which has length 2, but f(*args)[0] has "
                  "shape float32[4]") != std::string::npos);
  // Outputs: only named dims count (JAX's _check_names), so trailing Nones fit any rank (seed 001
  // In [15]: out_specs=P('data_parallel_dim', None) for a rank-1 result).
  CHECK(shard_map_output(sm, T(shard_map_inner_mesh(sm), "f32[4]"), P({{"dp"}, None})).str_short() == "float32[16@dp]");
  CHECK(error_of([&] { shard_map_input(sm, T(dp, "f32[8]"), P({{"tp"}}), x); })
            .find("refers to mesh axis 'tp' not in the mesh") != std::string::npos);
  ShardMapSpec partial = make_shard_map_spec("f", dp, AxisNames{"dp"}, true);
  CHECK(error_of([&] { shard_map_input(partial, T(dp, "f32[8,4]"), P({None, {"mp"}}), x); })
            .find("not among the shard_map's axis_names ('dp',)") != std::string::npos);
  // partial-manual: 'mp' stays Explicit inside and its sharding stays in the type
  ArrayType lp = shard_map_input(partial, T(dp, "f32[8@dp,4@mp]"), P({{"dp"}}), x);
  CHECK(lp.str_short() == "float32[2,4@mp]{dp}");
  CHECK(shard_map_output(partial, lp, P({{"dp"}})).str_short() == "float32[8@dp,4@mp]");
  // several unmentioned axes, one of them varying
  ArrayType v = T(shard_map_inner_mesh(sm), "f32[4]{mp}");
  CHECK(error_of([&] { shard_map_output(sm, v, P()); })
            .find("out_specs[0] is PartitionSpec() which implies that the corresponding output "
                  "value is replicated across mesh axes {dp,mp}, but could only infer "
                  "replication over {dp}, which is missing the required axes mp") !=
        std::string::npos);
  CHECK(shard_map_output(sm, v, P({{"mp"}})).str_short() == "float32[8@mp]");
  CHECK(error_of([&] { make_shard_map_spec("f", AbstractMesh(), std::nullopt, true); })
            .find("shard_map requires a mesh") != std::string::npos);
}

TEST_CASE("§7 collectives: shapes, errors, VMA", "[sharding][shard_map]") {
  AbstractMesh g4 = mesh({"g"}, {4}, {M}), two = mesh({"a", "b"}, {2, 4}, {M, M});
  AbstractMesh b2 = mesh({"batch_dim"}, {2}, {M});
  auto c = [&](std::string op, const AbstractMesh& m = AbstractMesh()) {
    return ctx(m.empty() ? g4 : m, op);
  };
  run_rows({
      ROW("float32[2,4]", propagate_psum(c("psum"), T(g4, "f32[2,4]{g}"), {"g"})),
      ROW("float32[2,4]", propagate_psum(c("psum"), T(g4, "f32[2,4]"), {"g"})),  // invariant input
      ROW("float32[3]{b}", propagate_psum(c("pmax", two), T(two, "f32[3]{a,b}"), {"a"})),
      ROW("float32[3]", propagate_psum(c("pmean", two), T(two, "f32[3]{a,b}"), {"a", "b"})),
      ROW("float32[4]{g}", propagate_all_gather(c("all_gather"), T(g4, "f32[1]{g}"), {"g"}, 0, true)),
      ROW("float32[4,1]{g}", propagate_all_gather(c("all_gather"), T(g4, "f32[1]{g}"), {"g"}, 0, false)),
      ROW("float32[3,4]{g}", propagate_all_gather(c("all_gather"), T(g4, "f32[3]"), {"g"}, 1, false)),
      ROW("float32[8,6]{a,b}", propagate_all_gather(c("all_gather", two), T(two, "f32[1,6]{a}"), {"a", "b"}, 0, true)),
      ROW("float32[1,1]{g}", propagate_psum_scatter(c("psum_scatter"), T(g4, "f32[1,4]{g}"), {"g"}, 1, true)),
      ROW("float32[1]{g}", propagate_psum_scatter(c("psum_scatter"), T(g4, "f32[1,4]{g}"), {"g"}, 1, false)),
      ERR("ValueError", "reduce_scatter operand scatter dimension size 3 must match shard count 4",
          propagate_psum_scatter(c("psum_scatter"), T(g4, "f32[3]{g}"), {"g"}, 0, false)),
      ERR("ValueError", "tiled reduce_scatter operand scatter dimension size 6 must be divisible "
                        "by shard_count 4",
          propagate_psum_scatter(c("psum_scatter"), T(g4, "f32[6]{g}"), {"g"}, 0, true)),
      ROW("float32[1]{g}", propagate_ppermute(c("ppermute"), T(g4, "f32[1]{g}"), {"g"},
                                              {{0, 1}, {1, 2}, {2, 3}, {3, 0}})),
      ROW("float32[1]{g}", propagate_ppermute(c("ppermute"), T(g4, "f32[1]"), {"g"}, {{0, 1}})),
      ERR("ValueError", "`ppermute` sources and destinations must be unique, got ((0, 1), (0, 2)).",
          propagate_ppermute(c("ppermute"), T(g4, "f32[1]{g}"), {"g"}, {{0, 1}, {0, 2}})),
      ERR("ValueError", "perm indices must be in the range [0, 4)",
          propagate_ppermute(c("ppermute"), T(g4, "f32[1]{g}"), {"g"}, {{0, 4}})),
      ROW("float32[4]{g}", propagate_all_to_all(c("all_to_all"), T(g4, "f32[4]{g}"), {"g"}, 0, 0, true)),
      ROW("float32[2,8]{g}", propagate_all_to_all(c("all_to_all"), T(g4, "f32[8,2]{g}"), {"g"}, 0, 1, true)),
      ROW("float32[3,4]{g}", propagate_all_to_all(c("all_to_all"), T(g4, "f32[4,3]{g}"), {"g"}, 0, 1, false)),
      ROW("float32[4,5]{g}", propagate_all_to_all(c("all_to_all"), T(g4, "f32[4,5]"), {"g"}, 0, 0, false)),
      ERR("ValueError", "all_to_all requires the size of the mapped axis axis_name to equal "
                        "x.shape[split_axis], but they are 4 and 3 respectively.",
          propagate_all_to_all(c("all_to_all"), T(g4, "f32[3,4]{g}"), {"g"}, 0, 1, false)),
      ERR("ValueError", "The size of all_to_all split_axis (6) has to be divisible by the size of "
                        "the named axis ('g',) (4)",
          propagate_all_to_all(c("all_to_all"), T(g4, "f32[6]{g}"), {"g"}, 0, 0, true)),
      ROW("int32[]{g}", propagate_axis_index(c("axis_index"), {"g"})),
      ROW("int32[]{a,b}", propagate_axis_index(c("axis_index", two), {"b", "a"})),
      ROW("float32[3]{batch_dim}", propagate_pvary(c("pvary", b2), T(b2, "f32[3]"), {"batch_dim"})),
      ROW("float32[3]{batch_dim}", propagate_pvary(c("pvary", b2), T(b2, "f32[3]{batch_dim}"), {"batch_dim"})),
      ERR("NameError", "unbound axis name: foo. The following axis names (e.g. defined by "
                       "shard_map) are available to collective operations: ['g']",
          propagate_psum(c("psum"), T(g4, "f32[3]"), {"foo"})),
      ERR("NameError", "unbound axis name: X", propagate_psum(ctx(mXY(), "psum"), T(mXY(), "f32[4@X]"), {"X"})),
      ERR("ValueError", "axis names must be distinct", propagate_psum(c("psum"), T(g4, "f32[3]"), {"g", "g"})),
      // check_vma=False: nothing is varying
      ROW("float32[4]", propagate_all_gather(ctx(g4, "all_gather", false), T(g4, "f32[1]"), {"g"}, 0, true)),
      ROW("int32[]", propagate_axis_index(ctx(g4, "axis_index", false), {"g"})),
  });
  // pvary (seed 001): invariant input made varying, then tiled out
  ShardMapSpec sm = make_shard_map_spec("pvary_example_func", mesh({"batch_dim"}, {2}, {A}), std::nullopt, true);
  ArrayType xu = shard_map_input(sm, T(mesh({"batch_dim"}, {2}, {A}), "f32[3]"), P());
  CHECK(xu.str() == "ShapedArray(float32[3])");
  ArrayType yv = propagate_pvary(ctx(xu.mesh(), "pvary"), xu, {"batch_dim"});
  CHECK(yv.str() == "ShapedArray(float32[3]{batch_dim})");
  CHECK(shard_map_output(sm, yv, P({{"batch_dim"}}), {"", "", ""}).shape() == Shape{6});
  CHECK(shard_map_output(sm, xu, P({{"batch_dim"}}), {"", "", ""}).shape() == Shape{6});  // invariant, tiled
  // implicit pvary for binary ops
  auto axes = implicit_pvary_axes(ctx(two, "add"), {T(two, "f32[3]{b}"), T(two, "f32[3]{a}"), T(two, "f32[]")});
  CHECK(axes == std::vector<AxisNames>{{"a"}, {"b"}, {"a", "b"}});
  CHECK(implicit_pvary_axes(ctx(two, "add", false), {T(two, "f32[3]"), T(two, "f32[3]")}) ==
        std::vector<AxisNames>{{}, {}});
}

TEST_CASE("§7 scan carry check (seed 001 exact)", "[sharding][shard_map]") {
  AbstractMesh b = mesh({"batch_dim"}, {2}, {M});
  ArrayType vary = T(b, "f32[3]{batch_dim}"), inv = T(b, "f32[3]");
  std::string py;
  std::string msg = error_of(
      [&] { check_carry_types("scan body", "carry", {{"[0]", vary, inv}, {"[1]", inv, vary}}); },
      &py);
  CHECK(py == "TypeError");
  CHECK(msg ==
        "scan body function carry input and carry output must have equal types, but they "
        "differ:\n\n"
        "  * the input carry component carry[0] has type float32[3]{batch_dim} but the "
        "corresponding output carry component has type float32[3], so the varying manual axes "
        "do not match;\n"
        "  * the input carry component carry[1] has type float32[3] but the corresponding output "
        "carry component has type float32[3]{batch_dim}, so the varying manual axes do not "
        "match.\n\n"
        "This might be fixed by applying `jax.lax.pvary(..., ('batch_dim',))` to the initial "
        "carry value corresponding to the input carry component carry[1].\n"
        "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more "
        "information.\n\n"
        "Revise the function so that all output types match the corresponding input types.");
  // The fixed version (pvary'd initial carry) passes; weak types do not matter.
  CHECK_NOTHROW(check_carry_types("scan body", "carry", {{"[0]", vary, vary}, {"[1]", vary, vary}}));
  CHECK_NOTHROW(check_carry_types("scan body", "carry", {{"[0]", inv, inv.with_weak_type(true)}}));
  std::string one = error_of([&] {
    check_carry_types("fori_loop body", "", {{"", T(b, "f32[3]"), T(b, "i32[4]")}});
  });
  CHECK(one ==
        "fori_loop body function carry input and carry output must have equal types, but they "
        "differ:\n\n"
        "The input carry has type float32[3] but the corresponding output carry component has "
        "type int32[4], so the dtypes do not match and also the shapes do not match.\n\n"
        "Revise the function so that all output types match the corresponding input types.");
  AbstractMesh xy = mXY();
  CHECK(error_of([&] {
          check_carry_types("while_loop body", "c", {{"['h']", T(xy, "f32[4@X]"), T(xy, "f32[4]")}});
        }).find("The input carry component c['h'] has type float32[4@X] but the corresponding "
                "output carry component has type float32[4], so the shardings do not match.") !=
        std::string::npos);
}
