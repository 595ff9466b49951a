// The transport between processes: Open MPI, the only file that includes <mpi.h>.
//
// shard runs as JAX's multi-controller model: `mpirun -np P shard --devices D prog.shard`
// starts P processes that all run the program; jax.distributed.initialize() joins them into one
// global set of P*D devices (runtime/process_layout.hpp). A collective whose group spans
// processes meets first inside each process (shared memory, as before), then one member per
// process — the group's leader there — runs one MPI operation on a communicator of the
// group's processes.
//
// Faults never hang:
// - before its data moves, every cross-process collective checks that all its processes
//   execute the same collective (a short exchange of its description), so diverged programs
//   fail with both descriptions;
// - waits poll with a deadline (the collective timeout) and watch a control channel on which
//   every process announces that it finished its program or failed; a process waiting for a
//   peer that has announced either fails at once, naming the peer and the collective;
// - a process that dies is noticed by mpirun, which stops the others: they then say, on
//   stderr, which collective they were waiting in.
#pragma once
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/reduce_kind.hpp"
#include "types/dtype.hpp"

namespace shard::runtime::mpi {

// What the launcher tells a process through its environment (Open MPI's OMPI_COMM_WORLD_*).
struct LaunchEnvironment {
  bool under_mpirun = false;
  int rank = 0;
  int size = 1;
};
LaunchEnvironment launch_environment();

// MPI_Init_thread(MPI_THREAD_MULTIPLE); returns the world size and this process's rank.
// Throws std::runtime_error when MPI cannot start or lacks thread support.
std::pair<int, int> initialize();
bool initialized();

// The end of the program in every process: announces `failed` (with `why`) or success to the
// others, waits until every other process has announced its own end, and shuts MPI down.
// Returns true when some other process failed. No-op when MPI never started.
bool finish(bool failed, const std::string& why);

// Tells the other processes at once that this one failed (their waits on it stop), without
// waiting for them; finish() later still completes the shutdown.
void announce_failure(const std::string& why);

// A communicator over a set of processes, created by those processes together the first time
// one of them asks for that device group (so creation order never has to agree globally).
// Operations are issued by one thread per process at a time and wait with a deadline.
class ProcessComm {
 public:
  // `processes`: ascending, distinct, including this one. `group_devices` names the device
  // group (the same list in every process): one communicator per group. `what`: the collective
  // that needs it, for errors.
  static std::shared_ptr<ProcessComm> for_group(const std::vector<int>& group_devices,
                                                const std::vector<int>& processes, const std::string& what);
  ~ProcessComm();
  ProcessComm(const ProcessComm&) = delete;
  ProcessComm& operator=(const ProcessComm&) = delete;

  int size() const { return static_cast<int>(processes_.size()); }
  int my_index() const { return my_index_; }  // position of this process in processes()
  const std::vector<int>& processes() const { return processes_; }

  // Checks that every process executes `what` now (throws CollectiveError naming both sides
  // otherwise). `what` is truncated to a fixed length for the exchange.
  void agree(const std::string& what, std::chrono::milliseconds timeout);

  // out = reduction over processes (in comm order) of in, n elements, with shard's reduction
  // semantics (NaN-propagating max/min, logical bool).
  void allreduce(ir::ReduceKind kind, types::DType dtype, const void* in, void* out, size_t n,
                 const std::string& what, std::chrono::milliseconds timeout);
  // out[q] = in of process q (bytes each, the same in every process); in == nullptr: this
  // process's part is already at out[my_index()].
  void allgather(const void* in, void* out, size_t bytes, const std::string& what,
                 std::chrono::milliseconds timeout);
  // in = [q][counts[q] elements]; process q gets the reduction of every process's part q.
  void reduce_scatter(ir::ReduceKind kind, types::DType dtype, const void* in, void* out,
                      const std::vector<size_t>& counts, const std::string& what,
                      std::chrono::milliseconds timeout);
  // Point to point: each send goes to the process at comm index `peer`, each receive comes
  // from one; all posted at once and waited together. Pairs must match across processes.
  struct Transfer {
    int peer;
    void* data;
    size_t bytes;
  };
  void exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives,
                const std::string& what, std::chrono::milliseconds timeout);

 private:
  struct Impl;
  explicit ProcessComm(std::vector<int> processes);
  std::vector<int> processes_;
  int my_index_ = 0;
  std::unique_ptr<Impl> impl_;
};

// All processes, for the host thread's operations (multihost_utils, start-up checks).
ProcessComm& world();

}  // namespace shard::runtime::mpi
