#include "runtime/mpi_transport.hpp"

#include <fmt/format.h>
// The C API only: Open MPI's deprecated C++ bindings would need another library.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "runtime/collective_kernels.hpp"
#include "runtime/collectives.hpp"
#include "runtime/rendezvous.hpp"

namespace shard::runtime::mpi {

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_initialized{false};
int g_rank = 0, g_size = 1;
MPI_Comm g_control = MPI_COMM_NULL;    // a duplicate of the world: end-of-program announcements
MPI_Comm g_handshake = MPI_COMM_NULL;  // another: "ready to create this group's communicator"
constexpr int kTagFinished = 1, kTagFailed = 2;
constexpr int kTagData = 7;

// ---- what other processes announced on the control channel

enum class PeerEnd { Running, Finished, Failed };
struct PeerEnds {
  std::mutex mu;
  std::vector<PeerEnd> end;
  std::vector<std::string> why;
  bool announced = false;  // this process already announced its end
};
PeerEnds& peer_ends() {
  static PeerEnds p;
  return p;
}

// Receives every pending announcement (matched probes: safe from any thread).
void poll_control() {
  for (;;) {
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, g_control, &flag, &msg, &st);
    if (!flag) return;
    int count = 0;
    MPI_Get_count(&st, MPI_CHAR, &count);
    std::string text(static_cast<size_t>(std::max(count, 0)), '\0');
    MPI_Mrecv(text.data(), count, MPI_CHAR, &msg, MPI_STATUS_IGNORE);
    auto& p = peer_ends();
    std::lock_guard<std::mutex> lock(p.mu);
    p.end[st.MPI_SOURCE] = st.MPI_TAG == kTagFailed ? PeerEnd::Failed : PeerEnd::Finished;
    p.why[st.MPI_SOURCE] = text;
  }
}

std::pair<PeerEnd, std::string> end_of(int process) {
  auto& p = peer_ends();
  std::lock_guard<std::mutex> lock(p.mu);
  return {p.end[process], p.why[process]};
}

void announce(int tag, const std::string& why) {
  {
    auto& p = peer_ends();
    std::lock_guard<std::mutex> lock(p.mu);
    if (p.announced) return;
    p.announced = true;
  }
  // Tiny messages go eagerly: MPI_Send returns without waiting for the receiver.
  for (int q = 0; q < g_size; ++q)
    if (q != g_rank) MPI_Send(why.data(), static_cast<int>(why.size()), MPI_CHAR, q, tag, g_control);
}

// ---- what this process waits for, for the message when mpirun stops it

struct WaitSlot {
  std::atomic<bool> active{false};
  char text[480] = {};
};
std::array<WaitSlot, 64> g_waits;
std::atomic<int> g_next_slot{0};

class WaitNote {
 public:
  WaitNote(const std::string& what, const std::vector<int>& peers) {
    thread_local int slot = g_next_slot.fetch_add(1) % static_cast<int>(g_waits.size());
    slot_ = &g_waits[slot];
    std::string text = fmt::format("shard: process {} was stopped while waiting in collective `{}` for process(es) {}\n",
                                   g_rank, what, fmt::join(peers, ", "));
    const size_t n = std::min(text.size(), sizeof(slot_->text) - 1);
    std::memcpy(slot_->text, text.data(), n);
    slot_->text[n] = '\0';
    slot_->active.store(true, std::memory_order_release);
  }
  ~WaitNote() { slot_->active.store(false, std::memory_order_release); }

 private:
  WaitSlot* slot_;
};

extern "C" void on_terminate(int sig) {
  // Async-signal-safe: write(2) of text prepared before the wait began.
  for (auto& w : g_waits)
    if (w.active.load(std::memory_order_acquire)) {
      ssize_t ignored = write(2, w.text, std::strlen(w.text));
      (void)ignored;
    }
  _exit(128 + sig);
}

// ---- waiting with a deadline while watching the control channel

std::string process_list(const std::vector<int>& ps) { return fmt::format("{}", fmt::join(ps, ", ")); }

void wait_all(std::vector<MPI_Request>& reqs, const std::string& what, const std::vector<int>& peers,
              std::chrono::milliseconds timeout) {
  if (reqs.empty()) return;
  WaitNote note(what, peers);
  const auto start = Clock::now();
  const auto deadline = start + timeout;
  // A peer that announced its end (finished, or failed) may have completed its side of this very
  // collective just before: its data can still be in flight. Give it a grace period before
  // blaming it.
  auto grace = Clock::time_point::max();
  int ended_peer = -1;
  for (long iter = 0;; ++iter) {
    int done = 0;
    MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return;
    poll_control();
    const auto now = Clock::now();
    if (ended_peer < 0)
      for (int q : peers)
        if (end_of(q).first != PeerEnd::Running) {
          ended_peer = q;
          grace = now + std::chrono::seconds(3);
          break;
        }
    if (now > grace) {
      auto [end, why] = end_of(ended_peer);
      if (end == PeerEnd::Failed)
        throw CollectiveError(fmt::format("process {} failed while process {} waits for it in collective `{}`: {}",
                                          ended_peer, g_rank, what, why));
      throw CollectiveError(fmt::format(
          "collective mismatch: process {} reached `{}` but process {} finished its program without executing it "
          "(a collective must be executed by every device of its group, in the same order)",
          g_rank, what, ended_peer));
    }
    if (now > deadline)
      throw CollectiveError(fmt::format(
          "collective mismatch: process {} reached `{}` but process(es) {} did not within {:.1f} s "
          "(a collective must be executed by every device of its group, in the same order)",
          g_rank, what, process_list(peers), timeout.count() / 1000.0));
    if (iter < 2000) sched_yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(iter < 20000 ? 20 : 200));
  }
}

// ---- datatypes and reductions

// MPI has no 16-bit float types: float16 and bfloat16 travel as two-byte types of their own
// (made in create_reduce_ops), which shard's reduction ops tell apart.
MPI_Datatype g_float16_type = MPI_DATATYPE_NULL, g_bfloat16_type = MPI_DATATYPE_NULL;

MPI_Datatype mpi_type(types::DType d) {
  switch (d) {
    case types::DType::F16: return g_float16_type;
    case types::DType::BF16: return g_bfloat16_type;
    case types::DType::Bool: return MPI_C_BOOL;
    case types::DType::I32: return MPI_INT32_T;
    case types::DType::I64: return MPI_INT64_T;
    case types::DType::U8: return MPI_UINT8_T;
    case types::DType::U16: return MPI_UINT16_T;
    case types::DType::U32: return MPI_UINT32_T;
    case types::DType::F32: return MPI_FLOAT;
    case types::DType::F64: return MPI_DOUBLE;
    default: break;
  }
  throw CollectiveError(fmt::format("a {} array cannot be reduced across processes", types::dtype_name(d)));
}

types::DType dtype_of(MPI_Datatype t) {
  if (t == MPI_C_BOOL) return types::DType::Bool;
  if (t == MPI_INT32_T) return types::DType::I32;
  if (t == MPI_INT64_T) return types::DType::I64;
  if (t == MPI_UINT8_T) return types::DType::U8;
  if (t == MPI_UINT16_T) return types::DType::U16;
  if (t == MPI_UINT32_T) return types::DType::U32;
  if (t == MPI_DOUBLE) return types::DType::F64;
  if (t == g_float16_type) return types::DType::F16;
  if (t == g_bfloat16_type) return types::DType::BF16;
  return types::DType::F32;
}

// MPI's built-in MAX is unspecified on NaN; shard's reductions (runtime/collective_kernels)
// are used instead, so results across processes equal those inside one.
template <ir::ReduceKind K>
void reduce_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  const void* srcs[2] = {in, inout};
  void* dst = inout;
  reduce_elements(K, dtype_of(*type), srcs, 2, 0, &dst, 1, 0, static_cast<size_t>(*len));
}

std::map<ir::ReduceKind, MPI_Op>& reduce_ops() {
  static std::map<ir::ReduceKind, MPI_Op> ops;
  return ops;
}

void create_reduce_ops() {
  for (MPI_Datatype* t : {&g_float16_type, &g_bfloat16_type}) {
    MPI_Type_contiguous(2, MPI_BYTE, t);
    MPI_Type_commit(t);
  }
  auto& ops = reduce_ops();
#define X(e, n, p) MPI_Op_create(&reduce_op<ir::ReduceKind::e>, 1, &ops[ir::ReduceKind::e]);
  SHARD_REDUCE_KINDS(X)
#undef X
}

int checked_count(size_t n, const std::string& what) {
  if (n > static_cast<size_t>(INT_MAX))
    throw CollectiveError(fmt::format("collective `{}` moves {} elements between processes; at most {} per process "
                                      "are supported",
                                      what, n, INT_MAX));
  return static_cast<int>(n);
}

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw CollectiveError(fmt::format("{} failed: {}", call, std::string(msg, static_cast<size_t>(len))));
}

}  // namespace

// ---- process lifetime

LaunchEnvironment launch_environment() {
  LaunchEnvironment env;
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (size && rank) {
    env.under_mpirun = true;
    env.size = std::atoi(size);
    env.rank = std::atoi(rank);
  }
  return env;
}

std::pair<int, int> initialize() {
  if (g_initialized) return {g_size, g_rank};
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Init_thread failed");
  if (provided < MPI_THREAD_MULTIPLE)
    throw std::runtime_error("this Open MPI does not support MPI_THREAD_MULTIPLE, which shard's device threads need");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_control);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_handshake);
  {
    auto& p = peer_ends();
    std::lock_guard<std::mutex> lock(p.mu);
    p.end.assign(static_cast<size_t>(g_size), PeerEnd::Running);
    p.why.assign(static_cast<size_t>(g_size), "");
  }
  create_reduce_ops();
  std::signal(SIGTERM, on_terminate);
  g_initialized = true;
  return {g_size, g_rank};
}

bool initialized() { return g_initialized; }

void announce_failure(const std::string& why) {
  if (g_initialized) announce(kTagFailed, why);
}

bool finish(bool failed, const std::string& why) {
  if (!g_initialized) return false;
  announce(failed ? kTagFailed : kTagFinished, why);
  // Every other process ends too (it finishes, or fails when it next needs this one).
  bool other_failed = false;
  for (long iter = 0;; ++iter) {
    poll_control();
    bool all = true;
    for (int q = 0; q < g_size; ++q) {
      if (q == g_rank) continue;
      auto [end, text] = end_of(q);
      all &= end != PeerEnd::Running;
      other_failed |= end == PeerEnd::Failed;
    }
    if (all) break;
    std::this_thread::sleep_for(std::chrono::microseconds(iter < 100 ? 50 : 1000));
  }
  g_initialized = false;
  MPI_Finalize();
  return other_failed;
}

// ---- communicators over device groups

struct ProcessComm::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
};

ProcessComm::ProcessComm(std::vector<int> processes) : processes_(std::move(processes)), impl_(std::make_unique<Impl>()) {
  my_index_ = static_cast<int>(std::find(processes_.begin(), processes_.end(), g_rank) - processes_.begin());
}

ProcessComm::~ProcessComm() = default;  // communicators live until MPI_Finalize

std::shared_ptr<ProcessComm> ProcessComm::for_group(const std::vector<int>& group_devices,
                                                    const std::vector<int>& processes, const std::string& what) {
  if (!g_initialized) throw CollectiveError("internal error: a collective spans processes but MPI is not running");
  static std::mutex mu;
  static std::map<std::vector<int>, std::shared_ptr<ProcessComm>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(group_devices);
    if (it != cache.end()) return it->second;
  }
  // Created by the group's leader thread in each process of `processes` (collective over them
  // only). The tag tells apart creations of different groups running at the same time.
  uint32_t h = 2166136261u;
  for (int d : group_devices) h = (h ^ static_cast<uint32_t>(d)) * 16777619u;
  const int tag = static_cast<int>(h % 30000u) + 100;
  std::shared_ptr<ProcessComm> pc(new ProcessComm(processes));
  // Creating the communicator blocks until every process of the group takes part, with no
  // deadline; a handshake first (which has one, and watches the control channel) makes sure
  // they all are there, so a process that diverged or failed is reported instead of hanging.
  {
    std::vector<int> hello(processes.size(), 0);
    std::vector<MPI_Request> reqs;
    std::vector<int> peers;
    for (size_t i = 0; i < processes.size(); ++i) {
      if (processes[i] == g_rank) continue;
      reqs.emplace_back();
      MPI_Irecv(&hello[i], 1, MPI_INT, processes[i], tag, g_handshake, &reqs.back());
      reqs.emplace_back();
      MPI_Isend(&tag, 1, MPI_INT, processes[i], tag, g_handshake, &reqs.back());
      peers.push_back(processes[i]);
    }
    wait_all(reqs, what, peers, collective_timeout());
  }
  MPI_Group world, sub;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, static_cast<int>(processes.size()), processes.data(), &sub);
  check_mpi(MPI_Comm_create_group(MPI_COMM_WORLD, sub, tag, &pc->impl_->comm), "MPI_Comm_create_group");
  MPI_Group_free(&sub);
  MPI_Group_free(&world);
  MPI_Comm_set_errhandler(pc->impl_->comm, MPI_ERRORS_RETURN);
  std::lock_guard<std::mutex> lock(mu);
  cache.emplace(group_devices, pc);
  return pc;
}

ProcessComm& world() {
  static std::shared_ptr<ProcessComm> w;
  if (!w) {
    std::vector<int> all(static_cast<size_t>(g_size));
    for (int q = 0; q < g_size; ++q) all[static_cast<size_t>(q)] = q;
    w = ProcessComm::for_group({-1}, all, "the first operation between all processes");  // no device group has id -1
  }
  return *w;
}

namespace {
std::vector<int> others(const std::vector<int>& ps, int me) {
  std::vector<int> v;
  for (int q : ps)
    if (q != me) v.push_back(q);
  return v;
}
}  // namespace

void ProcessComm::agree(const std::string& what, std::chrono::milliseconds timeout) {
  constexpr size_t kLen = 240;
  std::vector<char> mine(kLen, '\0'), all(kLen * processes_.size());
  std::memcpy(mine.data(), what.data(), std::min(what.size(), kLen - 1));
  MPI_Request req;
  check_mpi(MPI_Iallgather(mine.data(), kLen, MPI_CHAR, all.data(), kLen, MPI_CHAR, impl_->comm, &req), "MPI_Iallgather");
  std::vector<MPI_Request> reqs{req};
  wait_all(reqs, what, others(processes_, g_rank), timeout);
  for (size_t q = 0; q < processes_.size(); ++q) {
    const char* theirs = all.data() + q * kLen;
    if (std::strncmp(theirs, mine.data(), kLen) != 0)
      throw CollectiveError(fmt::format("collective mismatch: process {} executes `{}` while process {} executes `{}`",
                                        g_rank, mine.data(), processes_[q], std::string(theirs)));
  }
}

void ProcessComm::allreduce(ir::ReduceKind kind, types::DType dtype, const void* in, void* out, size_t n,
                            const std::string& what, std::chrono::milliseconds timeout) {
  MPI_Request req;
  check_mpi(MPI_Iallreduce(in == out ? MPI_IN_PLACE : in, out, checked_count(n, what), mpi_type(dtype),
                           reduce_ops().at(kind), impl_->comm, &req),
            "MPI_Iallreduce");
  std::vector<MPI_Request> reqs{req};
  wait_all(reqs, what, others(processes_, g_rank), timeout);
}

void ProcessComm::allgather(const void* in, void* out, size_t bytes, const std::string& what,
                            std::chrono::milliseconds timeout) {
  MPI_Request req;
  const int count = checked_count(bytes, what);
  check_mpi(MPI_Iallgather(in ? in : MPI_IN_PLACE, count, MPI_BYTE, out, count, MPI_BYTE, impl_->comm, &req),
            "MPI_Iallgather");
  std::vector<MPI_Request> reqs{req};
  wait_all(reqs, what, others(processes_, g_rank), timeout);
}

void ProcessComm::reduce_scatter(ir::ReduceKind kind, types::DType dtype, const void* in, void* out,
                                 const std::vector<size_t>& counts, const std::string& what,
                                 std::chrono::milliseconds timeout) {
  std::vector<int> c;
  for (size_t n : counts) c.push_back(checked_count(n, what));
  MPI_Request req;
  check_mpi(MPI_Ireduce_scatter(in, out, c.data(), mpi_type(dtype), reduce_ops().at(kind), impl_->comm, &req),
            "MPI_Ireduce_scatter");
  std::vector<MPI_Request> reqs{req};
  wait_all(reqs, what, others(processes_, g_rank), timeout);
}

void ProcessComm::exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives,
                           const std::string& what, std::chrono::milliseconds timeout) {
  std::vector<MPI_Request> reqs;
  std::vector<int> peers;
  for (const auto& r : receives) {
    reqs.emplace_back();
    check_mpi(MPI_Irecv(r.data, checked_count(r.bytes, what), MPI_BYTE, r.peer, kTagData, impl_->comm, &reqs.back()),
              "MPI_Irecv");
    peers.push_back(processes_[r.peer]);
  }
  for (const auto& s : sends) {
    reqs.emplace_back();
    check_mpi(MPI_Isend(s.data, checked_count(s.bytes, what), MPI_BYTE, s.peer, kTagData, impl_->comm, &reqs.back()),
              "MPI_Isend");
    peers.push_back(processes_[s.peer]);
  }
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  wait_all(reqs, what, peers, timeout);
}

}  // namespace shard::runtime::mpi
