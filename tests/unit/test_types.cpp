// Sharding types: meshes, partition specs, named shardings, array types. Expected strings
// are the seeds' exact output (seeds/000 Parts 1.A-1.E) or JAX's exact messages.
#include <catch2/catch.hpp>

#include <unordered_set>

#include "types/array_type.hpp"
#include "types/mesh.hpp"
#include "types/named_sharding.hpp"
#include "types/partition_spec.hpp"

using namespace shard::types;
using Entry = PartitionSpec::Entry;

namespace {

constexpr AxisType E = AxisType::Explicit, A = AxisType::Auto, M = AxisType::Manual;

PartitionSpec P(std::vector<Entry> entries, std::vector<std::string> unreduced = {}) {
  return PartitionSpec(std::move(entries), std::move(unreduced));
}
const Entry None{};

Mesh mesh42(AxisType t = E) { return make_mesh({4, 2}, {"dp", "mp"}, std::vector{t, t}); }

// The message of the ShardingError `f` throws; fails the test if it throws nothing.
template <class F>
std::string error_of(F&& f, const std::string& py_type = "ValueError") {
  try {
    f();
  } catch (const ShardingError& e) {
    CHECK(e.py_type() == py_type);
    return e.what();
  }
  FAIL("no ShardingError thrown");
  return "";
}

std::vector<std::pair<int64_t, int64_t>> ranges(const ShardIndex& idx) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto r : idx) out.emplace_back(r.start, r.stop);
  return out;
}

using R = std::vector<std::pair<int64_t, int64_t>>;

}  // namespace

TEST_CASE("mesh printing and properties", "[types][mesh]") {
  Mesh m = mesh42();
  CHECK(m.repr() == "Mesh('dp': 4, 'mp': 2, axis_types=(Explicit, Explicit))");
  CHECK(mesh42(A).repr() == "Mesh('dp': 4, 'mp': 2, axis_types=(Auto, Auto))");
  CHECK(make_mesh({4, 2}, {"dp", "mp"}).repr() ==
        "Mesh('dp': 4, 'mp': 2, axis_types=(Auto, Auto))");  // Auto is the default
  CHECK(make_mesh({8}, {"x"}, std::vector{E}).repr() == "Mesh('x': 8, axis_types=(Explicit,))");
  CHECK(m.size() == 8);
  CHECK(m.axis_names() == AxisNames{"dp", "mp"});
  CHECK(axis_types_repr(m.axis_types()) == "(Explicit, Explicit)");
  CHECK(m.shape() == std::vector<std::pair<std::string, int64_t>>{{"dp", 4}, {"mp", 2}});
  CHECK(m.device_ids() == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(m.axis_size("mp") == 2);

  AbstractMesh am(AxisNames{"dp", "mp"}, {4, 2}, std::vector{A, E});
  CHECK(am.repr() == "AbstractMesh('dp': 4, 'mp': 2, axis_types=(Auto, Explicit))");
  CHECK(m.abstract_mesh().repr() == "AbstractMesh('dp': 4, 'mp': 2, axis_types=(Explicit, Explicit))");
  CHECK(AbstractMesh().repr() == "AbstractMesh((), axis_types=())");
  CHECK(AbstractMesh().empty());
  CHECK(AbstractMesh().size() == 0);
  CHECK(am.explicit_axes() == AxisNames{"mp"});
  CHECK(am.auto_axes() == AxisNames{"dp"});
  CHECK(!am.all_axes_are(E));
  CHECK(m.abstract_mesh().all_axes_are(E));
}

TEST_CASE("mesh equality, hashing and axis type changes", "[types][mesh]") {
  CHECK(mesh42() == mesh42());
  CHECK(mesh42() != mesh42(A));
  CHECK(mesh42().hash() == mesh42().hash());
  CHECK(mesh42() != Mesh({7, 6, 5, 4, 3, 2, 1, 0}, {4, 2}, {"dp", "mp"}, std::vector{E, E}));
  CHECK(mesh42().abstract_mesh() ==
        Mesh({7, 6, 5, 4, 3, 2, 1, 0}, {4, 2}, {"dp", "mp"}, std::vector{E, E}).abstract_mesh());

  Mesh mixed = mesh42().with_axis_types(AxisNames{"dp"}, A);
  CHECK(mixed.repr() == "Mesh('dp': 4, 'mp': 2, axis_types=(Auto, Explicit))");
  CHECK(mixed.device_ids() == mesh42().device_ids());
  AbstractMesh manual = mesh42().abstract_mesh().with_axis_types(AxisNames{"dp", "mp"}, M);
  CHECK(manual.repr() == "AbstractMesh('dp': 4, 'mp': 2, axis_types=(Manual, Manual))");
  CHECK(manual.manual_axes() == AxisNames{"dp", "mp"});
  CHECK(manual.order_wrt_mesh({"mp", "dp", "zz"}) == AxisNames{"dp", "mp"});

  std::unordered_set<AbstractMesh> set{mesh42().abstract_mesh(), mesh42().abstract_mesh(), manual};
  CHECK(set.size() == 2);
}

TEST_CASE("mesh construction checks", "[types][mesh]") {
  CHECK(error_of([] { make_mesh({2, 2}, {"x", "x"}); }) ==
        "Mesh axis names must be unique, but got axis_names=('x', 'x')");
  CHECK(error_of([] { Mesh({0, 1, 2}, {2, 2}, {"x", "y"}); }) ==
        "Mesh of shape (2, 2) needs 4 devices, but got 3 device ids");
  CHECK(error_of([] { make_mesh({4, 2}, {"dp", "mp"}, std::vector{E}); }) ==
        "Number of axis names should match the number of axis_types. Got "
        "axis_names=('dp', 'mp') and axis_types=(Explicit,)");
  CHECK(error_of([] { make_mesh({4, 2}, {"dp"}); }) ==
        "Mesh requires the ndim of its first argument (`devices`) to equal the length of its "
        "second argument (`axis_names`), but got devices.ndim == 2 and len(axis_names) == 1.");
  CHECK(error_of([] { make_mesh({4, 4}, {"dp", "mp"}, std::nullopt, 8); }) ==
        "Number of devices 8 must be >= the product of mesh_shape (4, 4)");
  CHECK(error_of([] { Mesh({0, 0}, {2}, {"x"}); }) ==
        "Mesh device ids must be unique, but device 0 appears more than once");
  CHECK(error_of([] { make_mesh({0}, {"x"}); }) ==
        "Mesh axis sizes must be positive, but got axis_sizes=(0,)");
  CHECK_NOTHROW(make_mesh({2, 2}, {"x", "y"}, std::nullopt, 8));  // takes the first 4
  CHECK_THROWS_AS(make_mesh({1 << 20, 1 << 20}, {"x", "y"}), ShardingError);
}

TEST_CASE("device coordinates, axis indices and collective groups", "[types][mesh]") {
  Mesh m = mesh42();
  CHECK(m.device_coords(5) == std::vector<int64_t>{2, 1});
  CHECK(m.axis_index(5, {"dp"}) == 2);
  CHECK(m.axis_index(5, {"mp"}) == 1);
  CHECK(m.axis_index(5, {"dp", "mp"}) == 5);
  CHECK(m.axis_index(5, {"mp", "dp"}) == 6);  // row-major over the tuple as given
  CHECK(m.axis_index(5, {}) == 0);

  using G = std::vector<std::vector<int>>;
  CHECK(m.collective_groups({"dp"}) == G{{0, 2, 4, 6}, {1, 3, 5, 7}});
  CHECK(m.collective_groups({"mp"}) == G{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(m.collective_groups({"dp", "mp"}) == G{{0, 1, 2, 3, 4, 5, 6, 7}});
  CHECK(m.collective_groups({"mp", "dp"}) == G{{0, 2, 4, 6, 1, 3, 5, 7}});
  CHECK(m.collective_groups({}) == G{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}});
  CHECK(m.collective_group_of(5, {"dp"}) == std::vector<int>{1, 3, 5, 7});

  Mesh m24 = make_mesh({2, 4}, {"x", "y"}, std::vector{E, E});
  CHECK(m24.collective_groups({"x"}) == G{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(m24.collective_groups({"y"}) == G{{0, 1, 2, 3}, {4, 5, 6, 7}});

  Mesh m222 = make_mesh({2, 2, 2}, {"x", "y", "z"}, std::vector{E, E, E});
  CHECK(m222.device_coords(6) == std::vector<int64_t>{1, 1, 0});
  CHECK(m222.collective_groups({"x", "z"}) == G{{0, 1, 4, 5}, {2, 3, 6, 7}});
  CHECK(m222.collective_groups({"y"}) == G{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  CHECK(m222.axis_index(7, {"z", "x"}) == 3);

  // A mesh over a permuted device array: coordinates follow the ids' positions.
  Mesh perm({3, 2, 1, 0}, {2, 2}, {"a", "b"}, std::vector{E, E});
  CHECK(perm.device_coords(3) == std::vector<int64_t>{0, 0});
  CHECK(perm.device_coords(1) == std::vector<int64_t>{1, 0});
  CHECK(perm.collective_groups({"a"}) == G{{3, 1}, {2, 0}});

  CHECK(error_of([&] { m.device_coords(9); }).find("Device 9 is not part of the mesh") == 0);
  CHECK(error_of([&] { m.collective_groups({"zz"}); }) ==
        "Resource axis: zz is not found in mesh: ('dp', 'mp').");
  CHECK_THROWS_AS(m.collective_groups({"dp", "dp"}), ShardingError);
}

TEST_CASE("partition spec printing and equality", "[types][spec]") {
  CHECK(P({{"dp"}, {"mp"}}).repr() == "PartitionSpec('dp', 'mp')");
  CHECK(P({None}).repr() == "PartitionSpec(None,)");
  CHECK(P({{"dp", "mp"}}).repr() == "PartitionSpec(('dp', 'mp'),)");
  CHECK(PartitionSpec().repr() == "PartitionSpec()");
  CHECK(P({{"dp"}, None}).repr() == "PartitionSpec('dp', None)");
  CHECK(P({None, None}).repr() == "PartitionSpec(None, None)");
  CHECK(P({None, {"mp"}}).repr() == "PartitionSpec(None, 'mp')");
  CHECK(P({{"dp"}}).repr() == "PartitionSpec('dp',)");
  CHECK(P({{"mp"}, {"dp"}, None, None}).repr() == "PartitionSpec('mp', 'dp', None, None)");
  CHECK(P({None, None}, {"X"}).repr() == "PartitionSpec(None, None, unreduced={'X'})");
  CHECK(P({{"dp"}}, {"X"}).repr() == "PartitionSpec('dp', unreduced={'X'})");
  CHECK(P({}, {"Y", "X"}).repr() == "PartitionSpec(unreduced={'X', 'Y'})");
  CHECK(PartitionSpec::entry_tuple_repr({"X"}) == "('X',)");

  CHECK(P({{"dp"}}) != P({{"dp"}, None}));  // trailing None is not ignored
  CHECK(P({{"dp"}}).normalized(2) == P({{"dp"}, None}));
  CHECK(P({{"dp"}, None}).normalized(1) == P({{"dp"}, None}));  // never truncates
  CHECK(PartitionSpec::replicated(2) == P({None, None}));
  CHECK(P({{"dp"}}).hash() == P({{"dp"}}).hash());
  CHECK(P({{"a", "b"}, {"c"}, {"a"}}).duplicate_axes() == std::vector<std::string>{"a"});
  CHECK(P({None, None}).all_none());
  CHECK(error_of([] { P({{"X"}, None}, {"X"}); }) ==
        "partitions cannot overlap with unreduced axes passed to PartitionSpec. Got "
        "partitions: ('X', None) and unreduced axes: frozenset({'X'})");
}

TEST_CASE("named sharding printing (seed 000, 1.B/1.C)", "[types][sharding]") {
  NamedSharding s(mesh42(), P({{"dp"}, {"mp"}}));
  CHECK(s.repr() ==
        "NamedSharding(mesh=Mesh('dp': 4, 'mp': 2, axis_types=(Explicit, Explicit)), "
        "spec=PartitionSpec('dp', 'mp'), memory_kind=unpinned_host)");
  CHECK(NamedSharding(mesh42(A), P({{"dp"}, {"mp"}})).repr() ==
        "NamedSharding(mesh=Mesh('dp': 4, 'mp': 2, axis_types=(Auto, Auto)), "
        "spec=PartitionSpec('dp', 'mp'), memory_kind=unpinned_host)");
  CHECK(NamedSharding(mesh42(), P({{"dp"}, None})).repr() ==
        "NamedSharding(mesh=Mesh('dp': 4, 'mp': 2, axis_types=(Explicit, Explicit)), "
        "spec=PartitionSpec('dp', None), memory_kind=unpinned_host)");
  CHECK(NamedSharding(mesh42(), PartitionSpec()).repr() ==
        "NamedSharding(mesh=Mesh('dp': 4, 'mp': 2, axis_types=(Explicit, Explicit)), "
        "spec=PartitionSpec(), memory_kind=unpinned_host)");
  NamedSharding abs(mesh42().abstract_mesh(), P({{"dp"}, {"mp"}}));
  CHECK(abs.repr() ==
        "NamedSharding(mesh=AbstractMesh('dp': 4, 'mp': 2, axis_types=(Explicit, Explicit)), "
        "spec=PartitionSpec('dp', 'mp'))");
  CHECK(!abs.is_concrete());
  CHECK_THROWS_AS(abs.mesh(), ShardingError);

  CHECK(s == NamedSharding(mesh42(), P({{"dp"}, {"mp"}})));
  CHECK(s.hash() == NamedSharding(mesh42(), P({{"dp"}, {"mp"}})).hash());
  CHECK(s != NamedSharding(mesh42(), P({{"dp"}, None})));
  CHECK(s != NamedSharding(mesh42(), P({{"dp"}, {"mp"}}), std::nullopt));
  CHECK(s != abs);
  CHECK(s.with_spec(P({{"dp"}, None})) == NamedSharding(mesh42(), P({{"dp"}, None})));
}

TEST_CASE("named sharding checks and messages", "[types][sharding]") {
  Mesh m = mesh42();
  CHECK(error_of([&] { NamedSharding(m, P({{"dp"}, {"dp"}})); }) ==
        "A single NamedSharding spec specification can map every mesh axis to at most one "
        "positional dimension, but PartitionSpec('dp', 'dp') has duplicate entries for `dp`");
  CHECK(error_of([&] { NamedSharding(m, P({{"dp", "mp"}, {"mp", "dp"}})); }) ==
        "A single NamedSharding spec specification can map every mesh axis to at most one "
        "positional dimension, but PartitionSpec(('dp', 'mp'), ('mp', 'dp')) has duplicate "
        "entries for `dp`, `mp`");
  CHECK(error_of([&] { NamedSharding(m, P({{"x"}})); }) ==
        "Resource axis: x of PartitionSpec('x',) is not found in mesh: ('dp', 'mp').");
  CHECK(error_of([&] { NamedSharding(AbstractMesh(), P({{"x"}})); }) ==
        "Resource axis: x of PartitionSpec('x',) is not found in mesh: ().");
  Mesh mixed = make_mesh({2, 2, 2}, {"a", "b", "c"}, std::vector{E, E, A});
  CHECK(error_of([&] { NamedSharding(mixed, P({{"a", "c"}})); }) ==
        "AxisTypes should be the same in a tuple subset of PartitionSpec: "
        "PartitionSpec(('a', 'c'),). Got subset ('a', 'c') with axis types: "
        "(AxisType.Explicit, AxisType.Auto)");
  CHECK(error_of([&] { NamedSharding(m, P({None}, {"zz"})); }) ==
        "Unreduced axes zz is not found in mesh.axis_names=('dp', 'mp'). Got "
        "pspec=PartitionSpec(None, unreduced={'zz'})");
  CHECK(error_of([&] { NamedSharding(mesh42(A), P({None}, {"dp"})); }) ==
        "Unreduced axes can only refer to mesh axes that is of type `Explicit`. Got unreduced "
        "axes: frozenset({'dp'}) and mesh: Mesh('dp': 4, 'mp': 2, axis_types=(Auto, Auto))");

  Mesh mx = make_mesh({2}, {"X"}, std::vector{E});
  NamedSharding sx(mx, P({{"X"}}));
  CHECK(error_of([&] { sx.check_shape({5}); }) ==
        "Sharding spec ('X',) implies that array axis 0 is partitioned 2 times, but does not "
        "evenly divide the dimension size 5. Got shape: (5,)");
  CHECK(error_of([&] { NamedSharding(m, P({None, {"dp", "mp"}})).check_shape({4, 4}); }) ==
        "Sharding spec ('dp', 'mp') implies that array axis 1 is partitioned 8 times, but does "
        "not evenly divide the dimension size 4. Got shape: (4, 4)");
  CHECK(error_of([&] { NamedSharding(m, P({{"dp"}, None})).check_shape({8}); }) ==
        "Sharding NamedSharding(mesh=Mesh('dp': 4, 'mp': 2, axis_types=(Explicit, Explicit)), "
        "spec=PartitionSpec('dp', None), memory_kind=unpinned_host) is only valid for values "
        "of rank at least 2, but was applied to a value of rank 1.");
  CHECK(error_of([&] { NamedSharding(m, P({None})).check_shape({}); })
            .find("rank 0. For scalars the PartitionSpec should be P()") != std::string::npos);
  CHECK_NOTHROW(NamedSharding(m, P({{"dp"}})).check_shape({8, 3}));
  CHECK_NOTHROW(NamedSharding(m, PartitionSpec()).check_shape({}));
}

TEST_CASE("shard geometry on a (4,2) mesh", "[types][geometry]") {
  Mesh m = mesh42();
  Shape shape{8, 4};
  NamedSharding both(m, P({{"dp"}, {"mp"}}));
  CHECK(both.shard_shape(shape) == Shape{2, 2});
  CHECK(both.dim_partitions(2) == std::vector<int64_t>{4, 2});
  CHECK(ranges(both.device_index(5, shape)) == R{{4, 6}, {2, 4}});
  CHECK(ranges(both.device_index(0, shape)) == R{{0, 2}, {0, 2}});
  CHECK(both.blocks(shape).size() == 8);
  CHECK(!both.is_fully_replicated());

  NamedSharding rows(m, P({{"dp"}, None}));
  CHECK(rows.shard_shape(shape) == Shape{2, 4});
  CHECK(ranges(rows.device_index(5, shape)) == R{{4, 6}, {0, 4}});
  auto rb = rows.blocks(shape);
  REQUIRE(rb.size() == 4);
  CHECK(ranges(rb[2].index) == R{{4, 6}, {0, 4}});
  CHECK(rb[2].devices == std::vector<int>{4, 5});

  NamedSharding cols(m, P({None, {"mp"}}));
  auto cb = cols.blocks(shape);
  REQUIRE(cb.size() == 2);
  CHECK(ranges(cb[0].index) == R{{0, 8}, {0, 2}});
  CHECK(cb[0].devices == std::vector<int>{0, 2, 4, 6});
  CHECK(cb[1].devices == std::vector<int>{1, 3, 5, 7});

  NamedSharding flat(m, P({{"dp", "mp"}}));
  CHECK(flat.shard_shape({16}) == Shape{2});
  for (int d = 0; d < 8; ++d) CHECK(ranges(flat.device_index(d, {16})) == R{{2 * d, 2 * d + 2}});
  NamedSharding flat_rev(m, P({{"mp", "dp"}}));  // mp major: device 5 (dp 2, mp 1) -> piece 6
  CHECK(ranges(flat_rev.device_index(5, {16})) == R{{12, 14}});

  NamedSharding repl(m, PartitionSpec());
  CHECK(repl.is_fully_replicated());
  auto all = repl.blocks(shape);
  REQUIRE(all.size() == 1);
  CHECK(ranges(all[0].index) == R{{0, 8}, {0, 4}});
  CHECK(all[0].devices == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(repl.shard_shape({}) == Shape{});

  auto di = rows.device_indices(shape);
  REQUIRE(di.size() == 8);
  CHECK(di[3].first == 3);
  CHECK(ranges(di[3].second) == R{{2, 4}, {0, 4}});
}

TEST_CASE("shard geometry on (2,4), (8,) and (2,2,2) meshes", "[types][geometry]") {
  Mesh m24 = make_mesh({2, 4}, {"x", "y"}, std::vector{E, E});
  NamedSharding s24(m24, P({{"x"}, {"y"}}));
  CHECK(ranges(s24.device_index(6, {4, 8})) == R{{2, 4}, {4, 6}});
  NamedSharding s24t(m24, P({{"y"}, {"x"}}));
  CHECK(s24t.shard_shape({8, 4}) == Shape{2, 2});
  CHECK(ranges(s24t.device_index(6, {8, 4})) == R{{4, 6}, {2, 4}});
  auto b = NamedSharding(m24, P({{"y"}})).blocks({8});
  REQUIRE(b.size() == 4);
  CHECK(b[1].devices == std::vector<int>{1, 5});

  Mesh m8 = make_mesh({8}, {"x"}, std::vector{E});
  NamedSharding s8(m8, P({{"x"}}));
  CHECK(ranges(s8.device_index(3, {16})) == R{{6, 8}});
  CHECK(NamedSharding(m8, P({None})).blocks({16}).size() == 1);
  CHECK(ranges(NamedSharding(m8, P({None, {"x"}})).device_index(7, {2, 8})) == R{{0, 2}, {7, 8}});

  Mesh m222 = make_mesh({2, 2, 2}, {"x", "y", "z"}, std::vector{E, E, E});
  NamedSharding s3(m222, P({{"x"}, {"y"}, {"z"}}));
  CHECK(ranges(s3.device_index(7, {2, 4, 6})) == R{{1, 2}, {2, 4}, {3, 6}});
  NamedSharding sxz(m222, P({{"x", "z"}, {"y"}}));
  CHECK(ranges(sxz.device_index(5, {8, 4})) == R{{6, 8}, {0, 2}});  // x 1, y 0, z 1
  auto bz = NamedSharding(m222, P({{"z"}})).blocks({4});
  REQUIRE(bz.size() == 2);
  CHECK(bz[0].devices == std::vector<int>{0, 2, 4, 6});

  // Abstract meshes answer by position.
  NamedSharding abs(m24.abstract_mesh(), P({{"x"}, {"y"}}));
  CHECK(ranges(abs.position_index(6, {4, 8})) == R{{2, 4}, {4, 6}});
  CHECK(abs.shard_shape({4, 8}) == Shape{2, 2});
  CHECK_THROWS_AS(abs.device_index(0, {4, 8}), ShardingError);
}

TEST_CASE("array type printing (seed 000)", "[types][array_type]") {
  AbstractMesh am = mesh42().abstract_mesh();
  ArrayType t(DType::F32, {8, 4}, am, P({{"dp"}, {"mp"}}));
  CHECK(t.str_short() == "float32[8@dp,4@mp]");
  CHECK(t.repr() == "ShapedArray(float32[8@dp,4@mp])");
  CHECK(t.str() == "ShapedArray(float32[8@dp,4@mp])");
  CHECK(t.spec().repr() == "PartitionSpec('dp', 'mp')");
  CHECK(ArrayType(DType::F32, {4, 5}, am, P({{"mp"}, None})).str_short() == "float32[4@mp,5]");
  CHECK(ArrayType(DType::F32, {8, 5}, am, P({{"dp"}})).str_short() == "float32[8@dp,5]");
  CHECK(ArrayType(DType::F32, {8}, am, P({{"dp", "mp"}})).str_short() == "float32[8@(dp,mp)]");
  CHECK(ArrayType(DType::F32, {8, 4}, am, P({None, None})).repr() == "ShapedArray(float32[8,4])");
  CHECK(ArrayType(DType::F32, {}).str_short() == "float32[]");
  CHECK(ArrayType(DType::I32, {3}).str_short() == "int32[3]");
  CHECK(ArrayType(DType::F32, {}, {}, {}, {}, true).repr() == "ShapedArray(float32[], weak_type=True)");

  // Auto axes never show: the seeds' arr_sharded_auto prints float32[8,4].
  auto auto_t = ArrayType::from_sharding(DType::F32, {8, 4}, NamedSharding(mesh42(A), P({{"dp"}, {"mp"}})));
  CHECK(auto_t.repr() == "ShapedArray(float32[8,4])");
  CHECK(auto_t.spec() == P({None, None}));
  CHECK(auto_t.sharding().repr() ==
        "NamedSharding(mesh=AbstractMesh('dp': 4, 'mp': 2, axis_types=(Auto, Auto)), "
        "spec=PartitionSpec(None, None))");
  // Inside auto_axes('dp'): float32[4,4@mp].
  AbstractMesh dp_auto = am.with_axis_types(AxisNames{"dp"}, A);
  CHECK(ArrayType(DType::F32, {4, 4}, dp_auto, P({{"dp"}, {"mp"}})).str_short() == "float32[4,4@mp]");
  // With c Auto, (a, b, c) becomes (a, b); a tuple left with one axis prints bare.
  AbstractMesh abc(AxisNames{"a", "b", "c"}, {2, 2, 2}, std::vector{E, E, A});
  CHECK(ArrayType(DType::F32, {8}, abc, P({{"a", "b", "c"}})).str_short() == "float32[8@(a,b)]");
  AbstractMesh ab_c(AxisNames{"a", "b", "c"}, {2, 2, 2}, std::vector{E, A, A});
  auto one = ArrayType(DType::F32, {8}, ab_c, P({{"a", "b"}}));
  CHECK(one.str_short() == "float32[8@a]");
  CHECK(one.spec() == P({{"a"}}));
}

TEST_CASE("array type vma, normalisation and checks", "[types][array_type]") {
  AbstractMesh manual(AxisNames{"batch_dim"}, {4}, std::vector{M});
  ArrayType v(DType::F32, {3}, manual, P({None}), {"batch_dim"});
  CHECK(v.str_short() == "float32[3]{batch_dim}");
  CHECK(v.repr() == "ShapedArray(float32[3]{batch_dim})");
  CHECK(v != v.with_vma({}));
  CHECK(v.with_vma({}).str_short() == "float32[3]");
  // Several varying axes print in mesh order (the seeds' JAX 0.6 printed set order: {mp,dp}).
  AbstractMesh mm = mesh42().abstract_mesh().with_axis_types(AxisNames{"dp", "mp"}, M);
  CHECK(ArrayType(DType::F32, {2, 3}, mm, {}, {"mp", "dp"}).str_short() == "float32[2,3]{dp,mp}");
  CHECK(error_of([&] { ArrayType(DType::F32, {3}, mesh42().abstract_mesh(), {}, {"dp"}); }) ==
        "Axes mentioned in `vma` field of ShapedArray should be of type `Manual`. Got axis: dp "
        "of type AxisType.Explicit");

  AbstractMesh am = mesh42().abstract_mesh();
  ArrayType padded(DType::F32, {8, 4}, am, P({{"dp"}}));
  CHECK(padded.spec() == P({{"dp"}, None}));
  CHECK(padded == ArrayType(DType::F32, {8, 4}, am, P({{"dp"}, None})));
  CHECK(padded.hash() == ArrayType(DType::F32, {8, 4}, am, P({{"dp"}, None})).hash());
  CHECK(padded != ArrayType(DType::F32, {8, 4}, am, P({None, {"mp"}})));
  CHECK(padded != padded.with_dtype(DType::I32));
  CHECK(padded != padded.with_weak_type(true));
  CHECK(padded != ArrayType(DType::F32, {8, 4}, mesh42(A).abstract_mesh(), P({{"dp"}})));
  CHECK(ArrayType(DType::F32, {8}, AbstractMesh(), P({None, None})).spec() == P({None}));
  std::unordered_set<ArrayType> cache{padded, ArrayType(DType::F32, {8, 4}, am, P({{"dp"}}))};
  CHECK(cache.size() == 1);

  AbstractMesh mx(AxisNames{"X"}, {2}, std::vector{E});
  CHECK(error_of([&] { ArrayType(DType::F32, {5}, mx, P({{"X"}})); }) ==
        "Sharding spec ('X',) implies that array axis 0 is partitioned 2 times, but does not "
        "evenly divide the dimension size 5. Got shape: (5,)");
  CHECK(error_of([&] { ArrayType(DType::F32, {4}, mx, P({None, {"X"}})); }) ==
        "Length of sharding.spec (2) must be equal to aval's ndim (1). Got sharding.spec "
        "PartitionSpec(None, 'X'), aval.ndim 1 and sharding NamedSharding(mesh=AbstractMesh("
        "'X': 2, axis_types=(Explicit,)), spec=PartitionSpec(None, 'X'))");
  CHECK(error_of([&] { ArrayType(DType::F32, {4, 4}, am, P({{"dp"}, {"dp"}})); })
            .find("has duplicate entries for `dp`") != std::string::npos);
  CHECK(error_of([&] { ArrayType(DType::F32, {4}, am, P({{"x"}})); }) ==
        "Resource axis: x of PartitionSpec('x',) is not found in mesh: ('dp', 'mp').");
  // Auto axes are not checked for divisibility in the type (only device_put checks them).
  CHECK_NOTHROW(ArrayType(DType::F32, {5}, mx.with_axis_types(AxisNames{"X"}, A), P({{"X"}})));
}

TEST_CASE("array type unreduced (stretch)", "[types][array_type]") {
  AbstractMesh mx(AxisNames{"X", "Y"}, {2, 2}, std::vector{E, E});
  CHECK(ArrayType(DType::F32, {4, 4}, mx, P({None, None}, {"X"})).str_short() == "float32[4,4]{U:X}");
  CHECK(ArrayType(DType::F32, {4}, mx, P({None}, {"Y", "X"})).str_short() == "float32[4]{U:(X,Y)}");
}

TEST_CASE("partition spec reduced axes", "[types][partition_spec]") {
  using R = std::vector<std::string>;
  CHECK(PartitionSpec({}, {}, R{"X"}).repr() == "PartitionSpec(reduced={'X'})");
  CHECK(PartitionSpec({None}, R{"Y"}, R{"X"}).repr() == "PartitionSpec(None, unreduced={'Y'}, reduced={'X'})");
  CHECK(PartitionSpec({{"dp"}}, {}, R{"X"}).repr() == "PartitionSpec('dp', reduced={'X'})");
  CHECK(PartitionSpec({None}, {}, R{"X"}) != PartitionSpec({None}));
  CHECK(PartitionSpec({None}, {}, R{"X"}).hash() != PartitionSpec({None}, R{"X"}).hash());
  // The cotangent's spec swaps the sets (JAX's to_ct_spec).
  CHECK(PartitionSpec({None}, R{"Y"}, R{"X"}).cotangent_spec() == PartitionSpec({None}, R{"X"}, R{"Y"}));
  CHECK(PartitionSpec({None}, {}, R{"X"}).with_entries({{"Y"}}).reduced() == R{"X"});
  CHECK(error_of([] { PartitionSpec({{"X"}}, {}, R{"X"}); }) ==
        "partitions cannot overlap with reduced axes passed to PartitionSpec. Got partitions: "
        "('X',) and reduced axes: frozenset({'X'})");
  CHECK(error_of([] { PartitionSpec({}, R{"X"}, R{"X"}); }) ==
        "`unreduced` and `reduced` argument to PartitionSpec cannot overlap. Got unreduced: "
        "frozenset({'X'}) and reduced: frozenset({'X'})");
  CHECK(error_of([&] { NamedSharding(mesh42(A), PartitionSpec({None}, {}, R{"dp"})); }) ==
        "Reduced axes can only refer to mesh axes that is of type `Explicit`. Got reduced "
        "axes: frozenset({'dp'}) and mesh: Mesh('dp': 4, 'mp': 2, axis_types=(Auto, Auto))");
  AbstractMesh mx(AxisNames{"X", "Y"}, {2, 2}, std::vector{E, E});
  CHECK(ArrayType(DType::F32, {4, 2}, mx, PartitionSpec({}, {}, R{"X"})).str_short() == "float32[4,2]{R:X}");
  CHECK(ArrayType(DType::F32, {4}, mx, PartitionSpec({}, R{"Y"}, R{"X"})).str_short() == "float32[4]{U:Y, R:X}");
  // Reduced axes that are not Explicit leave the type, as unreduced ones do.
  AbstractMesh mixed(AxisNames{"X", "A"}, {2, 2}, std::vector{E, A});
  CHECK(ArrayType(DType::F32, {4}, mixed, PartitionSpec({}, {}, R{"X", "A"})).spec().reduced() == R{"X"});
}
