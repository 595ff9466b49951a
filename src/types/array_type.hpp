// ArrayType: the abstract value of an array (JAX's ShapedArray) — dtype, shape, the sharding
// as a type sees it (an AbstractMesh and a spec over its Explicit axes only), the varying
// manual axes (vma) inside shard_map, and weak_type. Immutable value; equality and hash
// cover every field (it keys the compile cache).
#pragma once
#include <string>
#include <vector>

#include "types/dtype.hpp"
#include "types/named_sharding.hpp"

namespace shard::types {

class ArrayType {
 public:
  ArrayType() : ArrayType(DType::F32, {}) {}
  // Normalises the spec: checks it names only axes of `mesh`, each once; drops Auto and
  // Manual axes (inside tuples too, which may mix axis types here), pads it with None to the rank; a longer spec is an error unless
  // the extra entries are None. Checks divisibility of the sharded dims and that vma axes of
  // the mesh are Manual. Errors are ShardingError(ValueError), with JAX's messages.
  ArrayType(DType dtype, Shape shape, AbstractMesh mesh = {}, PartitionSpec spec = {},
            std::vector<std::string> vma = {}, bool weak_type = false);
  // The type of an array with this (concrete or abstract) sharding.
  static ArrayType from_sharding(DType dtype, Shape shape, const NamedSharding& sharding,
                                 std::vector<std::string> vma = {}, bool weak_type = false);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  int64_t num_elements() const { return shape_product(shape_); }
  const AbstractMesh& mesh() const { return mesh_; }
  const PartitionSpec& spec() const { return spec_; }  // rank entries, Explicit axes only
  // The sharding in the type: NamedSharding(AbstractMesh, spec), no memory kind.
  NamedSharding sharding() const { return NamedSharding(mesh_, spec_); }
  const std::vector<std::string>& vma() const { return vma_; }  // mesh order
  bool weak_type() const { return weak_type_; }
  bool is_sharded() const { return !spec_.all_none(); }

  ArrayType with_dtype(DType d) const;
  ArrayType with_shape(Shape s, PartitionSpec spec) const;  // new shape needs a new spec
  ArrayType with_spec(PartitionSpec spec) const;
  ArrayType with_mesh(AbstractMesh mesh, PartitionSpec spec) const;
  ArrayType with_vma(std::vector<std::string> vma) const;
  ArrayType with_weak_type(bool w) const;

  // float32[8@dp,4@mp], float32[8@(dp,mp)], float32[], float32[3]{batch_dim},
  // float32[4,4]{U:X} (unreduced, stretch), float32[4]{R:X} (reduced).
  std::string str_short() const;
  // ShapedArray(float32[8@dp,4@mp]) (+ ", weak_type=True"); str() prints the same.
  std::string repr() const;
  std::string str() const { return repr(); }

  size_t hash() const { return hash_; }
  bool operator==(const ArrayType& o) const;
  bool operator!=(const ArrayType& o) const { return !(*this == o); }

 private:
  void compute_hash();
  DType dtype_;
  Shape shape_;
  AbstractMesh mesh_;
  PartitionSpec spec_;
  std::vector<std::string> vma_;
  bool weak_type_ = false;
  size_t hash_ = 0;
};

// The spec with every Auto / Manual axis of `mesh` removed (None when an entry empties).
PartitionSpec explicit_only_spec(const PartitionSpec& spec, const AbstractMesh& mesh);

// t with a new unsharded leading dim of size n (n values of type t stacked: scan ys, a vmap
// batch), and t without its leading dim (one of them).
ArrayType stacked_type(const ArrayType& t, int64_t n);
ArrayType unstacked_type(const ArrayType& t);

}  // namespace shard::types

template <>
struct std::hash<shard::types::ArrayType> {
  size_t operator()(const shard::types::ArrayType& t) const { return t.hash(); }
};
