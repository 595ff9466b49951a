// Partitioning of the linalg primitives and fft (see partitioner.hpp): LAPACK factors whole
// matrices and FFTW transforms whole signals, so each device holds whole matrices (the last
// two dims; for fft the transformed dims) of its part of the batch.
#include "spmd/partitioner.hpp"

namespace shard::spmd {

using types::DType;

void Partitioner::partition_linalg(const ir::Op& op) {
  const auto& first = gtype(op.operands[0]);
  const size_t whole = op.kind == ir::OpKind::Fft ? op.attr<ir::attr::Fft>().fft_lengths.size() : 2;
  const size_t nbatch = first.rank() - whole;
  std::vector<Entry> batch = normalized(map_[op.operands[0]].layout, first.rank()).entries();
  batch.resize(nbatch);
  auto layout_of_rank = [&](size_t rank) {
    auto e = batch;
    e.resize(rank);
    return PartitionSpec(e);
  };
  std::vector<ir::ValueId> ins;
  for (auto v : op.operands) ins.push_back(in_layout(op, v, layout_of_rank(gtype(v).rank())));
  std::vector<std::pair<DType, types::Shape>> results;
  for (auto r : op.results) results.emplace_back(gtype(r).dtype(), b_.local_shape(gtype(r).shape(), layout_of_rank(gtype(r).rank())));
  auto locals = b_.emit_multi(op.kind, ins, results, op.attrs, {});
  for (size_t k = 0; k < op.results.size(); ++k) {
    const auto& t = gtype(op.results[k]);
    const PartitionSpec have = layout_of_rank(t.rank());
    PartitionSpec want = result_layout(t, &have);
    ir::ValueId local = locals[k];
    if (!(normalized(have, t.rank()) == want)) local = b_.reshard(local, t.dtype(), t.shape(), have, want, why(op));
    define(op.results[k], local, want);
  }
}

}  // namespace shard::spmd
