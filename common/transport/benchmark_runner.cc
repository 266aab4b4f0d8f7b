#include "common/transport/benchmark_runner.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "common/transport/collective_layout.h"
#include "common/transport/types.h"

namespace eb::transport {
namespace {

// nccl-tests fills the buffers with seed 99 before timing so that the timed
// loop moves real data (BenchTime: initData(..., 99, ...)).
constexpr uint32_t kTimedSeed = 99;

absl::Status WithContext(const absl::Status& status, absl::string_view context) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

absl::Status Validate(const BenchmarkOptions& o, int world_size) {
  EB_RETURN_IF_ERROR(CheckSweepSizes(o.sizes, o.max_bytes, "sizes"));
  if (o.iterations < 1) {
    return absl::InvalidArgumentError(absl::StrCat("iterations: must be >= 1, got ", o.iterations));
  }
  if (o.warmup_iterations < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("warmup_iterations: must be >= 0, got ", o.warmup_iterations));
  }
  if (o.check_iterations < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("check_iterations: must be >= 0, got ", o.check_iterations));
  }
  if (IsRooted(o.collective) && (o.root < 0 || o.root >= world_size)) {
    return absl::InvalidArgumentError(
        absl::StrCat("root: ", o.root, " is outside [0, ", world_size, ")"));
  }
  return absl::OkStatus();
}

// The call nccl-tests issues for `layout` (startColl): out of place from the
// send buffer into the receive buffer; in place both inside the receive
// buffer at the rank's in-place offsets; iteration i of a batch moved by
// (i % steps) times the printed size, steps = how many fit in the buffers
// (both of `capacity` bytes, as nccl-tests allocates maxbytes for each).
CollectiveCall MakeCall(const BenchmarkOptions& o, const CollectiveLayout& layout, bool in_place,
                        int rank, Buffer& send, Buffer& recv, size_t capacity) {
  CollectiveCall call;
  call.collective = o.collective;
  call.type = o.type;
  call.op = o.op;
  call.root = o.root;
  call.count = static_cast<size_t>(layout.param_count);
  auto* recv_base = static_cast<uint8_t*>(recv.data());
  if (in_place) {
    call.send = recv_base + layout.send_inplace_offset * rank * layout.element_size;
    call.recv = recv_base + layout.recv_inplace_offset * rank * layout.element_size;
  } else {
    call.send = send.data();
    call.recv = recv_base;
  }
  const auto stride = static_cast<size_t>(layout.printed_size_bytes());
  if (stride > 0 && capacity / stride > 1) {
    call.rotation_stride_bytes = stride;
    call.rotation_steps = static_cast<int>(std::min<size_t>(capacity / stride, 1 << 30));
  }
  return call;
}

}  // namespace

BenchmarkRunner::BenchmarkRunner(Communicator& comm, const BenchmarkOptions& options)
    : comm_(comm), options_(options) {}

absl::Status BenchmarkRunner::Measure(const CollectiveCall& call, PlacementResult& result) {
  const int world_size = comm_.WorldSize();
  // Checks are one call on the bytes they filled: no rotation.
  CollectiveCall checked = call;
  checked.rotation_steps = 1;
  // Untimed first call and barrier, so that the timed batch starts together
  // on all ranks with connections and caches warm (BenchTime's "Sync").
  WaitOnPeers(false);
  EB_RETURN_IF_ERROR(comm_.FillInput(DataPattern{checked, world_size, kTimedSeed}));
  WaitOnPeers(true);  // until the checks: the call, the barriers, the batch
  EB_RETURN_IF_ERROR(comm_.Run(call, 1).status());
  CallDone(false, {});
  // The GPU's counters are read before the barrier: NVML's calls take a
  // rank's own time, which between the barrier and the batch would make
  // it late to the calls.
  std::optional<GpuThrottleProbe::Mark> gpu_begin;
  if (options_.gpu_throttle != nullptr) gpu_begin = options_.gpu_throttle->Begin();
  EB_RETURN_IF_ERROR(comm_.Barrier());
  // The barrier's release is the instant every rank shares: arrivals are
  // measured from it on each rank's own steady clock.
  std::vector<std::chrono::steady_clock::time_point> arrivals;
  arrivals.reserve(static_cast<size_t>(options_.iterations));
  std::vector<absl::Duration> iteration_times;
  CollectiveCall timed = call;
  timed.arrivals = &arrivals;
  if (options_.per_iter_timing) {
    iteration_times.reserve(static_cast<size_t>(options_.iterations));
    timed.iteration_times = &iteration_times;
  }
  const auto released = std::chrono::steady_clock::now();
  progress_.timed_calls = 0;
  progress_.timed_elapsed = absl::ZeroDuration();
  const int calls_before = progress_.calls_done;
  const std::function<void()> timed_call_done = [&] { CallDone(true, released); };
  if (on_progress_ != nullptr) timed.on_call_done = &timed_call_done;

  std::optional<ScheduleProbe::Mark> schedule_begin;
  if (options_.schedule != nullptr) schedule_begin = options_.schedule->Begin();
  EB_ASSIGN_OR_RETURN(absl::Duration batch, comm_.RunTimedBatch(timed, options_.iterations));
  result.schedule.reset();
  if (schedule_begin.has_value()) result.schedule = options_.schedule->End(*schedule_begin);
  result.gpu_throttle.reset();
  if (gpu_begin.has_value()) result.gpu_throttle = options_.gpu_throttle->End(*gpu_begin);
  // A backend that completes the batch as a whole told nothing so far.
  progress_.calls_done = calls_before + options_.iterations;
  result.time_us = absl::ToDoubleMicroseconds(batch) / options_.iterations;
  result.arrival_us = 0;
  result.arrival_samples = static_cast<int>(arrivals.size());
  for (const auto& arrival : arrivals) {
    result.arrival_us += absl::ToDoubleMicroseconds(absl::FromChrono(arrival - released));
  }
  if (!arrivals.empty()) result.arrival_us /= static_cast<double>(arrivals.size());
  result.iteration_us.clear();
  for (const absl::Duration& d : iteration_times) {
    result.iteration_us.push_back(absl::ToDoubleMicroseconds(d));
  }
  EB_RETURN_IF_ERROR(comm_.Barrier());

  // Checks run after timing with a fresh seed each, so a buffer left over
  // from an earlier call never passes.
  result.wrong = 0;
  for (int c = 0; c < options_.check_iterations; ++c) {
    uint32_t seed = next_check_seed_++;
    if (seed == kTimedSeed) seed = next_check_seed_++;
    const DataPattern pattern{checked, world_size, seed};
    WaitOnPeers(false);
    EB_RETURN_IF_ERROR(comm_.FillInput(pattern));
    WaitOnPeers(true);
    EB_RETURN_IF_ERROR(comm_.Run(checked, 1).status());
    CallDone(false, {});
    WaitOnPeers(false);
    EB_ASSIGN_OR_RETURN(int64_t wrong, comm_.CountWrong(pattern));
    result.wrong += wrong;
  }
  return absl::OkStatus();
}

void BenchmarkRunner::WaitOnPeers(bool waiting) {
  if (on_progress_ == nullptr || progress_.waiting_on_peers == waiting) return;
  progress_.waiting_on_peers = waiting;
  (*on_progress_)(progress_);
}

void BenchmarkRunner::CallDone(bool timed, std::chrono::steady_clock::time_point timed_start) {
  if (on_progress_ == nullptr) return;
  ++progress_.calls_done;
  if (timed) {
    ++progress_.timed_calls;
    progress_.timed_elapsed = absl::FromChrono(std::chrono::steady_clock::now() - timed_start);
  }
  (*on_progress_)(progress_);
}

absl::Status BenchmarkRunner::Run(const SizeCallback& on_size,
                                  const ProgressCallback& on_progress) {
  on_progress_ = on_progress ? &on_progress : nullptr;
  const int rank = comm_.Rank();
  const int world_size = comm_.WorldSize();
  EB_RETURN_IF_ERROR(Validate(options_, world_size));
  const size_t element_size = DataTypeSize(options_.type);

  // Layouts grow with the size, so max_bytes bounds every call, warm-up
  // included. The receive buffer also holds the in-place send region.
  EB_ASSIGN_OR_RETURN(
      CollectiveLayout largest,
      ComputeLayout(options_.collective, options_.max_bytes, element_size, world_size));
  // Both of the largest printed size, as nccl-tests allocates maxbytes for
  // each: room for the per-iteration rotation (MakeCall) of every smaller
  // size.
  const auto capacity = static_cast<size_t>(largest.printed_size_bytes());
  EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> send, comm_.Allocate(capacity));
  EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> recv, comm_.Allocate(capacity));

  if (options_.warmup_iterations > 0) {
    for (int64_t size : WarmupSizes(options_.sizes.front(), options_.max_bytes)) {
      EB_ASSIGN_OR_RETURN(CollectiveLayout layout,
                          ComputeLayout(options_.collective, size, element_size, world_size));
      const CollectiveCall call = MakeCall(options_, layout, false, rank, *send, *recv, capacity);
      EB_RETURN_IF_ERROR(WithContext(comm_.Run(call, options_.warmup_iterations).status(),
                                     absl::StrCat("warm-up size ", size)));
    }
  }

  for (int64_t size : options_.sizes) {
    EB_ASSIGN_OR_RETURN(CollectiveLayout layout,
                        ComputeLayout(options_.collective, size, element_size, world_size));
    progress_ = SizeProgress{};
    progress_.calls_planned = 2 * (1 + options_.iterations + options_.check_iterations);
    SizeMeasurement m;
    m.size_bytes = layout.printed_size_bytes();
    m.count = layout.param_count;
    for (const bool in_place : {false, true}) {
      const CollectiveCall call =
          MakeCall(options_, layout, in_place, rank, *send, *recv, capacity);
      EB_RETURN_IF_ERROR(
          WithContext(Measure(call, in_place ? m.in_place : m.out_of_place),
                      absl::StrCat("size ", size, in_place ? " in-place" : " out-of-place")));
    }
    EB_RETURN_IF_ERROR(on_size(m));
  }
  return absl::OkStatus();
}

}  // namespace eb::transport
