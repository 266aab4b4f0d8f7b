#include "common/transport/gloo/gloo_communicator.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/status/status_macros.h"
#include "common/transport/cpu_pattern.h"
#include "common/transport/gloo/gloo_collectives.h"
#include "common/transport/gloo/gloo_errors.h"
#include "common/transport/gloo/gloo_mesh.h"
#include "common/transport/host_memory.h"
#include "common/transport/prefixed_store.h"
#include "gloo/rendezvous/context.h"
#include "gloo/transport/tcp/attr.h"
#include "gloo/transport/tcp/device.h"
#include "spdlog/spdlog.h"

namespace eb::transport {
namespace {

std::chrono::milliseconds ToMillis(absl::Duration d) {
  return std::chrono::milliseconds(absl::ToInt64Milliseconds(d));
}

class HostBuffer final : public Buffer {
 public:
  explicit HostBuffer(HostMemory memory) : memory_(std::move(memory)) {}
  void* data() override { return memory_.data(); }
  size_t size_bytes() const override { return memory_.size(); }

 private:
  HostMemory memory_;
};

class GlooCommunicator final : public Communicator {
 public:
  GlooCommunicator(const GlooOptions& options, std::shared_ptr<MeshContext> mesh,
                   std::unique_ptr<RingLinks> ring)
      : rank_(options.rank),
        world_size_(options.world_size),
        op_timeout_(ToMillis(options.op_timeout)),
        ring_(std::move(ring)),
        lanes_{std::move(mesh), ring_.get()} {}

  int Rank() const override { return rank_; }
  int WorldSize() const override { return world_size_; }
  const char* TransportName() const override { return "gloo"; }

  absl::StatusOr<std::unique_ptr<Buffer>> Allocate(size_t bytes) override {
    EB_ASSIGN_OR_RETURN(HostMemory memory, HostMemory::Allocate(bytes == 0 ? 1 : bytes));
    return std::unique_ptr<Buffer>(new HostBuffer(std::move(memory)));
  }

  absl::Status FillInput(const DataPattern& pattern) override {
    EB_RETURN_IF_ERROR(CheckWorld(pattern));
    return CpuFillInput(pattern, rank_);
  }

  absl::StatusOr<int64_t> CountWrong(const DataPattern& pattern) override {
    EB_RETURN_IF_ERROR(CheckWorld(pattern));
    return CpuCountWrong(pattern, rank_);
  }

  absl::StatusOr<absl::Duration> Run(const CollectiveCall& call, int iterations) override {
    if (iterations < 1) {
      return absl::InvalidArgumentError(absl::StrCat("iterations: must be >= 1, got ", iterations));
    }
    EB_RETURN_IF_ERROR(CheckGlooCall(call, world_size_));
    EB_ASSIGN_OR_RETURN(uint8_t * scratch,
                        scratch_.Reserve(GlooScratchBytes(call, rank_, world_size_)));
    absl::Duration elapsed;
    EB_RETURN_IF_ERROR(Guarded([&]() -> absl::Status {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < iterations; ++i) {
        // Lets Abort from another thread stop a long batch between calls;
        // Guarded turns the early return into ABORTED.
        if (abort_requested_.load(std::memory_order_relaxed)) return absl::OkStatus();
        RecordArrival(call);
        const auto call_start = std::chrono::steady_clock::now();
        EB_RETURN_IF_ERROR(RunGlooCollective(lanes_, AtIteration(call, i), op_timeout_, scratch));
        if (call.iteration_times != nullptr) {
          call.iteration_times->push_back(
              absl::FromChrono(std::chrono::steady_clock::now() - call_start));
        }
        if (call.on_call_done != nullptr) (*call.on_call_done)();
      }
      elapsed = absl::FromChrono(std::chrono::steady_clock::now() - start);
      return absl::OkStatus();
    }));
    return elapsed;
  }

  absl::Status Barrier() override {
    return Guarded([&] { return RunGlooBarrier(lanes_.mesh, op_timeout_); });
  }

  void Abort(absl::string_view reason) override {
    bool close_now = false;
    {
      absl::MutexLock lock(&mu_);
      if (aborted_) return;
      aborted_ = true;
      abort_reason_ = std::string(reason);
      abort_requested_.store(true, std::memory_order_relaxed);
      // An op in flight on the benchmark thread still uses the pairs; that
      // thread closes them when the op returns (see Guarded).
      close_now = !in_flight_ && !closed_;
      if (close_now) closed_ = true;
    }
    spdlog::warn("gloo communicator rank={} aborted: {}", rank_, std::string(reason));
    // Unlike Gloo's pairs, the ring links may be aborted under a running
    // op: a sendrecv blocked on them returns at once.
    if (ring_) ring_->Abort(reason);
    if (close_now) CloseConnections();
  }

 private:
  absl::Status CheckWorld(const DataPattern& pattern) const {
    if (pattern.world_size != world_size_) {
      return absl::InvalidArgumentError(absl::StrCat("world_size: pattern has ", pattern.world_size,
                                                     ", communicator ", world_size_));
    }
    return absl::OkStatus();
  }

  absl::Status AbortedError() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return absl::AbortedError(absl::StrCat("gloo communicator aborted: ", abort_reason_));
  }

  // Runs a Gloo operation with the abort bookkeeping: refuses to start after
  // Abort, reports ABORTED when Abort came during the op, and treats any
  // Gloo error as fatal to the communicator. A Gloo timeout or peer error
  // leaves the context's pairs closed (Gloo signals every pair), so later
  // calls would fail with misleading errors; instead they get ABORTED
  // naming the first error, and closing our connections makes the peers
  // fail fast (UNAVAILABLE) instead of waiting for their own timeout.
  absl::Status Guarded(absl::FunctionRef<absl::Status()> op) {
    {
      absl::MutexLock lock(&mu_);
      if (aborted_) return AbortedError();
      in_flight_ = true;
    }
    absl::Status status = op();
    bool close_now = false;
    {
      absl::MutexLock lock(&mu_);
      in_flight_ = false;
      if (aborted_) {
        status = AbortedError();
      } else if (!status.ok()) {
        aborted_ = true;
        abort_reason_ = status.ToString();
        abort_requested_.store(true, std::memory_order_relaxed);
        spdlog::warn("gloo communicator rank={} failed: {}", rank_, abort_reason_);
      }
      close_now = aborted_ && !closed_;
      if (close_now) closed_ = true;
    }
    if (close_now) CloseConnections();
    return status;
  }

  // Resets every TCP connection of both lanes (SO_LINGER 0), so that peers
  // blocked in a collective see the reset at once, whichever lane they wait
  // on. Called at most once, never while an op is in flight (Gloo's pairs
  // are not safe to close under a running collective on another thread).
  void CloseConnections() {
    if (ring_) ring_->Abort("the communicator failed or was aborted");
    absl::Status status =
        CallGloo("gloo close connections", [&] { lanes_.mesh->closeConnections(); });
    if (!status.ok()) spdlog::warn("gloo communicator rank={}: {}", rank_, status.ToString());
  }

  const int rank_;
  const int world_size_;
  const std::chrono::milliseconds op_timeout_;
  // Lane 1, declared before lanes_, which points at it.
  const std::unique_ptr<RingLinks> ring_;
  // Lane 0's context holds its device and its connected pairs.
  const GlooLanes lanes_;
  GlooScratch scratch_;  // benchmark thread only

  std::atomic<bool> abort_requested_{false};  // mirrors aborted_ for the hot loop
  absl::Mutex mu_;
  bool aborted_ ABSL_GUARDED_BY(mu_) = false;
  std::string abort_reason_ ABSL_GUARDED_BY(mu_);
  bool in_flight_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

// Gloo's TCP pairs write with writev(2) and no MSG_NOSIGNAL, so a write to
// a peer that reset its connection raises SIGPIPE, whose default action
// kills the whole worker instead of letting us report UNAVAILABLE. Gloo
// leaves ignoring it to the program (gloo commit a123247); we do it once,
// and only where nobody installed a handler.
void IgnoreSigpipeOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current {};
    if (sigaction(SIGPIPE, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) return;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    if (sigaction(SIGPIPE, &ignore, nullptr) != 0) {
      spdlog::warn("gloo: cannot ignore SIGPIPE; a peer reset may kill this process");
    }
  });
}

absl::Status ValidateOptions(const GlooOptions& o) {
  if (o.world_size < 1) {
    return absl::InvalidArgumentError(absl::StrCat("world_size: must be >= 1, got ", o.world_size));
  }
  if (o.rank < 0 || o.rank >= o.world_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank: ", o.rank, " is outside [0, ", o.world_size, ")"));
  }
  if (o.connect_timeout < absl::Milliseconds(1)) {
    return absl::InvalidArgumentError(absl::StrCat("connect_timeout: must be at least 1ms, got ",
                                                   absl::FormatDuration(o.connect_timeout)));
  }
  if (o.op_timeout < absl::Milliseconds(1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("op_timeout: must be at least 1ms, got ", absl::FormatDuration(o.op_timeout)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Communicator>> CreateGlooCommunicator(const GlooOptions& options,
                                                                     RendezvousStore& store) {
  EB_RETURN_IF_ERROR(ValidateOptions(options));
  IgnoreSigpipeOnce();

  gloo::transport::tcp::attr attr;
  if (!options.interface_name.empty()) {
    attr.iface = options.interface_name;
  } else {
    attr.hostname = options.hostname;
  }
  // Lane 0's device; the ring links (lane 1) bind the same address.
  std::shared_ptr<gloo::transport::Device> device;
  absl::Status status =
      CallGloo("gloo tcp device", [&] { device = gloo::transport::tcp::CreateDevice(attr); });
  if (!status.ok()) {
    // Device creation only resolves the interface or host name to an
    // address, so a failure means the configured name is wrong.
    const bool by_iface = !options.interface_name.empty();
    return absl::InvalidArgumentError(absl::StrCat(
        by_iface ? "interface_name" : "hostname", ": cannot bind a gloo tcp device to '",
        by_iface ? options.interface_name : options.hostname, "': ", status.message()));
  }

  std::shared_ptr<MeshContext> mesh;
  std::unique_ptr<RingLinks> ring;
  PrefixedStore prefixed(store, options.key_prefix);
  const absl::Time deadline = absl::Now() + options.connect_timeout;
  const std::string what =
      absl::StrCat("gloo rendezvous (rank ", options.rank, " of ", options.world_size, ")");
  absl::Status lanes = absl::OkStatus();
  status = CallGloo(what, [&] {
    mesh = std::make_shared<MeshContext>(options.rank, options.world_size);
    // Gloo uses the context timeout for its TCP connects.
    mesh->setTimeout(ToMillis(options.connect_timeout));
    lanes = ConnectLanes(prefixed, *mesh, device, &ring, deadline);
    // From here on it is only a default: every op passes op_timeout itself.
    mesh->setTimeout(ToMillis(options.op_timeout));
  });
  if (!status.ok()) return status;
  if (!lanes.ok()) {
    // The store's own status keeps its code (DEADLINE_EXCEEDED, ABORTED,
    // UNAVAILABLE).
    return absl::Status(lanes.code(), absl::StrCat(what, ": ", lanes.message()));
  }
  return std::unique_ptr<Communicator>(
      new GlooCommunicator(options, std::move(mesh), std::move(ring)));
}

}  // namespace eb::transport
