#include "codegen/transpose_tile.hpp"

#include <stdexcept>

namespace shard::codegen {

// Round k swaps the off-diagonal k x k blocks of every 2k x 2k block: element (r, c) with bit
// k of r different from bit k of c moves to (r ^ k, c ^ k). After the rounds for every bit,
// each element has had the bits of its row and column index exchanged: (r, c) -> (c, r).
std::vector<llvm::Value*> transpose_square(llvm::IRBuilder<>& b, std::vector<llvm::Value*> rows) {
  const unsigned n = static_cast<unsigned>(rows.size());
  if (n == 0 || (n & (n - 1)) != 0) throw std::logic_error("internal error: transpose tile of a non-power-of-two size");
  for (unsigned k = 1; k < n; k <<= 1) {
    std::vector<int> low(n), high(n);  // masks over (row r, row r | k): lanes 0..n-1, n..2n-1
    for (unsigned c = 0; c < n; ++c) {
      // row r (bit k clear) takes, in its columns with bit k set, row r|k's column c ^ k;
      // row r|k takes, in its columns with bit k clear, row r's column c | k.
      low[c] = static_cast<int>((c & k) ? n + (c ^ k) : c);
      high[c] = static_cast<int>((c & k) ? n + c : (c | k));
    }
    for (unsigned r = 0; r < n; ++r) {
      if (r & k) continue;
      llvm::Value* a = rows[r];
      llvm::Value* p = rows[r | k];
      rows[r] = b.CreateShuffleVector(a, p, low);
      rows[r | k] = b.CreateShuffleVector(a, p, high);
    }
  }
  return rows;
}

}  // namespace shard::codegen
