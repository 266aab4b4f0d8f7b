#pragma once

// The worker's sweep loop over a Communicator, with nccl-tests semantics
// (src/common.cu TimeTest and BenchTime): warm-up over doubling sizes, then
// per size an out-of-place and an in-place measurement, each a filled
// untimed call + barrier, a timed batch, and separate data checks.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "common/transport/communicator.h"
#include "common/transport/gpu_throttle_probe.h"
#include "common/transport/schedule_probe.h"
#include "common/transport/types.h"

namespace eb::transport {

struct BenchmarkOptions {
  Collective collective = Collective::kAllReduce;
  DataType type = DataType::kFloat;
  ReduceOp op = ReduceOp::kSum;  // ignored by non-reducing collectives
  int root = 0;                  // used by broadcast and reduce only
  // The sizes to run, in this order, exactly as given: the coordinator
  // computes the sweep once (SweepSizes) and every rank runs that list
  // (CheckSweepSizes: 1 to kMaxSweepSizes sizes, non-decreasing, >= 0).
  std::vector<int64_t> sizes = {32 << 20};
  // nccl-tests' -e (>= every size): both buffers are sized for it and the
  // warm-up doubles up to it, as nccl-tests does even when the sweep's last
  // size is smaller (-e 3M -f 2 ends at 2M).
  int64_t max_bytes = 32 << 20;
  int iterations = 20;        // -n: timed calls per measurement (>= 1)
  int warmup_iterations = 1;  // -w: calls per warm-up size (>= 0)
  int check_iterations = 1;   // -c: data checks per measurement (>= 0)
  // -I: also record each timed call's own time (PlacementResult.iteration_us).
  bool per_iter_timing = false;
  // Sampled around each timed batch (PlacementResult.schedule) when set;
  // not owned, outlives the runner.
  ScheduleProbe* schedule = nullptr;
  // Likewise the GPU's own throttle counters (PlacementResult.gpu_throttle),
  // from just before the barrier that starts the batch (so that reading
  // them never delays this rank's calls) to its end.
  GpuThrottleProbe* gpu_throttle = nullptr;
};

// How far the size being measured got: what the hang detector needs to
// tell a slow size from a stuck one (issue 29).
struct SizeProgress {
  int calls_done = 0;     // untimed, timed and check calls of both variants
  int calls_planned = 0;  // 2 x (1 + iterations + check_iterations)
  // Timed calls completed in the variant being timed and their time so far;
  // 0 while the backend cannot tell the calls of a batch apart (NCCL).
  int timed_calls = 0;
  absl::Duration timed_elapsed;
  // Inside a call or a barrier (waiting on the peers), not in this rank's
  // own work between calls (filling or checking buffers).
  bool waiting_on_peers = false;
};

// Called on the communicator's thread after each call of a size completes
// (between timed calls: it must be cheap, e.g. store and return).
using ProgressCallback = std::function<void(const SizeProgress&)>;

// One placement's result on this rank.
struct PlacementResult {
  double time_us = 0;  // this rank's time per call (batch time / iterations)
  int64_t wrong = 0;   // wrong elements on this rank, summed over the checks
  // When this rank entered the timed calls: the mean, over the calls whose
  // arrival the backend recorded (arrival_samples of them), of the time from
  // its leaving the barrier before the batch to its issuing the call. Every
  // rank leaves that barrier at about the same instant, so this needs no
  // clock shared between hosts (docs/DESIGN.md, "Straggler attribution").
  double arrival_us = 0;
  int arrival_samples = 0;
  // With per_iter_timing: each timed call's time in call order, us (empty
  // when the backend could not time calls one by one).
  std::vector<double> iteration_us;
  // With BenchmarkOptions.schedule: what ran this process during the batch.
  std::optional<ScheduleSample> schedule;
  // With BenchmarkOptions.gpu_throttle: how long the GPU held itself below
  // its clocks during the batch (nullopt when it could not be read).
  std::optional<GpuThrottleSample> gpu_throttle;
};

// One row of the nccl-tests table, as seen by this rank. The coordinator
// averages times and sums wrong counts over ranks.
struct SizeMeasurement {
  int64_t size_bytes = 0;  // the printed size: max(send bytes, recv bytes)
  int64_t count = 0;       // the printed count (elements per call)
  PlacementResult out_of_place;
  PlacementResult in_place;
};

// Called after each size; a non-OK status stops the sweep and is returned
// unchanged from Run.
using SizeCallback = std::function<absl::Status(const SizeMeasurement&)>;

class BenchmarkRunner {
 public:
  // `comm` must outlive the runner. Every rank runs the same options.
  BenchmarkRunner(Communicator& comm, const BenchmarkOptions& options);

  // Runs the whole sweep on the calling thread (the communicator's thread),
  // calling `on_size` after each size of `sizes`. Buffers for max_bytes are allocated
  // once. Timing covers only the timed batch (no filling or checking). A
  // rank never skips a check iteration on its own: every rank must issue the
  // same calls, or its peers would hang.
  // Returns INVALID_ARGUMENT for bad options (naming the field), the
  // callback's status, or the communicator's error with context, e.g.
  // "size 1048576 out-of-place: ..." or "warm-up size 8: ..." (codes as
  // Communicator: DEADLINE_EXCEEDED, UNAVAILABLE, ABORTED, UNIMPLEMENTED,
  // RESOURCE_EXHAUSTED).
  // `on_progress`, when set, is told of each call completed inside a size.
  absl::Status Run(const SizeCallback& on_size, const ProgressCallback& on_progress = nullptr);

 private:
  absl::Status Measure(const CollectiveCall& call, PlacementResult& result);
  // One more call of the current size done (timed: of the timed batch,
  // which started at `timed_start`).
  void CallDone(bool timed, std::chrono::steady_clock::time_point timed_start);
  // The rank starts (true) or ends (false) waiting on its peers: told to
  // on_progress when it changes (never inside the timed batch).
  void WaitOnPeers(bool waiting);

  Communicator& comm_;
  const BenchmarkOptions options_;
  // Seeds of the check rounds; advanced identically on every rank.
  uint32_t next_check_seed_ = 1;
  const ProgressCallback* on_progress_ = nullptr;
  SizeProgress progress_;
};

}  // namespace eb::transport
