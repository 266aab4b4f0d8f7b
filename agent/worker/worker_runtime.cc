#include "agent/worker/worker_runtime.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/worker/agent_link.h"
#include "agent/worker/heartbeat_thread.h"
#include "agent/worker/slow_communicator.h"
#include "agent/worker/system_gpu_throttle.h"
#include "agent/worker/worker_communicators.h"
#include "common/rpc/channel.h"
#include "common/spec/proto_enums.h"
#include "common/transport/benchmark_runner.h"
#include "common/transport/collective_layout.h"
#include "common/transport/prefixed_store.h"
#include "spdlog/spdlog.h"

namespace eb::worker {
namespace v1 = ebnccl::v1;

namespace {

// A healthy agent answers registration in milliseconds (it spawned this
// process a moment ago). Past this, the agent is frozen (SIGSTOP) or
// wedged: give up rather than outlive the test (its own registration
// deadline cannot fire while it is frozen).
constexpr absl::Duration kRegisterTimeout = absl::Seconds(10);

[[noreturn]] void HangForever(const char* what) {
  spdlog::warn("fault injection: {}; hanging", what);
  while (true) pause();
}

// Reports `status` as this rank's failure and returns the exit code.
int Fail(AgentLink& link, const absl::Status& status, const std::string& context) {
  const bool timeout = absl::IsDeadlineExceeded(status);
  v1::WorkerEvent event;
  event.set_kind(v1::WORKER_EVENT_KIND_FAILED);
  v1::Failure& failure = *event.mutable_failure();
  failure.set_kind(timeout ? v1::FAILURE_KIND_TIMEOUT : v1::FAILURE_KIND_COMMUNICATION_ERROR);
  failure.set_message(absl::StrCat(context, ": ", status.ToString()));
  spdlog::error("{}", failure.message());
  if (absl::Status sent = link.Report(event); !sent.ok()) {
    spdlog::error("could not report the failure to the agent: {}", sent.ToString());
  }
  return timeout ? kExitTimeout : kExitCommunication;
}

// The benchmark of the registration reply: the spec's collective and
// iterations over exactly the coordinator's list of sizes.
absl::StatusOr<transport::BenchmarkOptions> ToBenchmarkOptions(
    const v1::RegisterWorkerReply& registration) {
  const v1::TestSpec& spec = registration.spec();
  transport::BenchmarkOptions options;
  auto collective = spec::ToTransport(spec.collective());
  if (!collective.ok()) return collective.status();
  auto type = spec::ToTransport(spec.data_type());
  if (!type.ok()) return type.status();
  auto op = spec::ToTransport(spec.reduce_op());
  if (!op.ok()) return op.status();
  options.collective = *collective;
  options.type = *type;
  options.op = *op;
  options.root = spec.root_rank();
  options.sizes.assign(registration.sizes_bytes().begin(), registration.sizes_bytes().end());
  options.max_bytes = spec.max_bytes();
  options.iterations = spec.iterations();
  options.warmup_iterations = spec.warmup_iterations();
  options.check_iterations = spec.check_iterations();
  options.per_iter_timing = spec.per_iter_timing();
  return options;
}

// The collectives of the spec in run order: TestSpec.collectives, or the one
// TestSpec.collective.
absl::StatusOr<std::vector<v1::Collective>> SpecCollectives(const v1::TestSpec& spec) {
  std::vector<v1::Collective> collectives;
  for (int c : spec.collectives()) collectives.push_back(static_cast<v1::Collective>(c));
  if (collectives.empty()) collectives.push_back(spec.collective());
  for (v1::Collective collective : collectives) {
    if (auto converted = spec::ToTransport(collective); !converted.ok()) {
      return converted.status();
    }
  }
  return collectives;
}

void SetGpuThrottle(const transport::GpuThrottleSample& sample, v1::RankTiming& timing) {
  using transport::GpuPolicy;
  const auto us = [&sample](GpuPolicy p) { return sample.violation_us[static_cast<int>(p)]; };
  v1::GpuThrottle& gpu = *timing.mutable_gpu_throttle();
  gpu.set_wall_us(sample.wall_us);
  gpu.set_power_us(us(GpuPolicy::kPower));
  gpu.set_thermal_us(us(GpuPolicy::kThermal));
  gpu.set_sync_boost_us(us(GpuPolicy::kSyncBoost));
  gpu.set_board_limit_us(us(GpuPolicy::kBoardLimit));
  gpu.set_low_utilization_us(us(GpuPolicy::kLowUtilization));
  gpu.set_reliability_us(us(GpuPolicy::kReliability));
  gpu.set_reasons(sample.reasons);
  gpu.set_reasons_read(sample.reasons_read);
}

void SetTiming(const transport::PlacementResult& placement, v1::RankTiming& timing) {
  timing.set_time_us(placement.time_us);
  timing.set_wrong_elements(placement.wrong);
  timing.set_arrival_us(placement.arrival_us);
  timing.set_arrival_samples(placement.arrival_samples);
  for (double us : placement.iteration_us) timing.add_iteration_us(us);
  if (placement.schedule.has_value()) {
    const transport::ScheduleSample& sample = *placement.schedule;
    v1::RankSchedule& schedule = *timing.mutable_schedule();
    schedule.set_wall_us(sample.wall_us);
    schedule.set_stalled_us(sample.stalled_us);
    schedule.set_cpu_us(sample.cpu_us);
    schedule.set_involuntary_switches(sample.involuntary_switches);
    schedule.set_run_delay_us(sample.run_delay_us);
    schedule.set_throttled_us(sample.throttled_us);
  }
  if (placement.gpu_throttle.has_value()) SetGpuThrottle(*placement.gpu_throttle, timing);
}

// A SIZE_DONE event of `measurement`, both placements' timings.
v1::WorkerEvent SizeDoneEvent(const transport::SizeMeasurement& measurement) {
  v1::WorkerEvent event;
  event.set_kind(v1::WORKER_EVENT_KIND_SIZE_DONE);
  v1::RankSizeResult& result = *event.mutable_size_result();
  result.set_size_bytes(measurement.size_bytes);
  result.set_count(measurement.count);
  SetTiming(measurement.out_of_place, *result.mutable_out_of_place());
  SetTiming(measurement.in_place, *result.mutable_in_place());
  return event;
}

// The faults injected before the worker registers: they hang it, so that
// the agent's registration deadline or a stop ends it.
void InjectBeforeRegister(const WorkerOptions& options) {
  if (!options.fault.AppliesTo(options.rank)) return;
  if (options.fault.mode == FaultInjection::Mode::kHangBeforeRegister) {
    HangForever("hang_before_register");
  }
  if (options.fault.mode == FaultInjection::Mode::kSegvBeforeRegister) {
    spdlog::warn("fault injection: segv_before_register");
    // raise() is the thread's own signal, delivered before it returns, as a
    // fault's is; a SIGSEGV sent by another process may land on any thread,
    // and under ThreadSanitizer one that never reaches instrumented code
    // again never runs the handler.
    raise(SIGSEGV);
  }
  if (options.fault.mode == FaultInjection::Mode::kLogFlood) {
    // Bounded, so that a test's log stays small when nobody stops it.
    for (int line = 0; line < 100000; ++line) spdlog::info("fault injection: log_flood {}", line);
    HangForever("log_flood");
  }
}

// One worker's run, phase by phase: register, read the spec, join the
// communicators, run the sweep (and the rail's), report the end. Each phase
// returns kExitOk to go on, or the exit code that ends the run, having
// reported why to the agent where it can. The members go in reverse: the
// communicators (rail first), then the heartbeats, then the link.
class WorkerRun {
 public:
  explicit WorkerRun(const WorkerOptions& options)
      : options_(options),
        link_(common::MakeChannel(options.agent_target), options.test_id, options.rank,
              options.token) {}

  int Run() {
    int exit = Register();
    if (exit == kExitOk) exit = InjectBeforeJoin();
    if (exit == kExitOk) exit = ReadSpec();
    if (exit == kExitOk) exit = Join();
    if (exit == kExitOk) exit = Sweep();
    if (exit == kExitOk) exit = SweepRail();
    if (exit == kExitOk) exit = ReportFinished();
    return exit;
  }

 private:
  using Mode = FaultInjection::Mode;

  bool Faulty(Mode mode) const {
    return options_.fault.AppliesTo(options_.rank) && options_.fault.mode == mode;
  }
  const v1::RankAssignment& assignment() const { return registration_.assignment(); }
  const v1::TestSpec& spec() const { return registration_.spec(); }

  int Register();
  int InjectBeforeJoin();
  int ReadSpec();
  int Join();
  // Joins rail local_rank's communicator after the full one.
  int JoinRail();
  int Sweep();
  int SweepRail();
  int ReportFinished();
  // Reports one size of `collective` of the sweep on the full communicator.
  absl::Status ReportSize(v1::Collective collective, const transport::SizeMeasurement& measurement);

  const WorkerOptions& options_;
  AgentLink link_;
  v1::RegisterWorkerReply registration_;
  // Before heartbeats_, which reads it until it is destroyed.
  ProgressBoard progress_;
  std::unique_ptr<HeartbeatThread> heartbeats_;
  transport::BenchmarkOptions benchmark_;
  // Samples every timed batch (benchmark_.schedule points here); its ticker
  // runs for the whole run, so a stall that began before a batch is seen.
  transport::ProcessScheduleProbe schedule_probe_;
  // NCCL ranks: the GPU's own throttle counters around every timed batch
  // (benchmark_.gpu_throttle points here); null without NVML.
  std::unique_ptr<transport::GpuThrottleProbe> gpu_throttle_probe_;
  std::vector<v1::Collective> collectives_;
  std::unique_ptr<transport::Communicator> communicator_;
  std::unique_ptr<transport::Communicator> rail_;
  // Counts sizes across the collectives (fault injection names a step of
  // the whole run).
  int size_index_ = 0;
  // Sizes reported (SIZE_DONE), the rail's included: the step a progress
  // report is about, as the coordinator counts them.
  int sizes_reported_ = 0;
  // Publishes the size's progress for the heartbeat thread.
  const transport::ProgressCallback on_progress_ = [this](const transport::SizeProgress& p) {
    progress_.Publish(sizes_reported_, p);
  };
};

int WorkerRun::Register() {
  absl::StatusOr<v1::RegisterWorkerReply> registration = link_.Register(kRegisterTimeout);
  if (!registration.ok()) {
    spdlog::error("test={} rank={}: cannot register with the agent at {}: {}", options_.test_id,
                  options_.rank, options_.agent_target, registration.status().ToString());
    return kExitInternal;
  }
  registration_ = *std::move(registration);
  if (absl::Status usable = CheckRegistration(registration_); !usable.ok()) {
    return Fail(link_,
                absl::Status(usable.code(), absl::StrCat(usable.message(),
                                                         " (are this eb-worker and its agent the "
                                                         "same ebnccl version?)")),
                "the agent's registration reply");
  }
  spdlog::info(
      "test={} rank={}/{} node={} slot={}: registered; {} over {}, {} sizes, init_timeout={}ms "
      "op_timeout={}ms bootstrap_interface={} bootstrap_address={} cuda_device={} gpu_bus_id={}",
      options_.test_id, assignment().rank(), assignment().world_size(), assignment().node_name(),
      assignment().local_rank(), spec::DisplayName(spec().collective()),
      spec::DisplayName(spec().transport()), registration_.sizes_bytes_size(),
      registration_.init_timeout_ms(), registration_.op_timeout_ms(),
      registration_.bootstrap_interface(), registration_.bootstrap_address(),
      assignment().device_index(), assignment().gpu_pci_bus_id());
  heartbeats_ = std::make_unique<HeartbeatThread>(
      link_, absl::Milliseconds(registration_.heartbeat_period_ms()), progress_);
  return kExitOk;
}

int WorkerRun::InjectBeforeJoin() {
  if (Faulty(Mode::kHangBeforeJoin)) {
    // A line through stdio, as NCCL writes its warnings: the stop that ends
    // this hang leaves with std::_Exit, and the line must be in the log then
    // (main.cc makes stdout line-buffered; fault_injection_test checks it).
    std::printf("fault injection: hang_before_join, written with stdio\n");
    HangForever("hang_before_join");
  }
  if (Faulty(Mode::kExitBeforeJoin)) {
    spdlog::warn("fault injection: exit_before_join");
    return kExitInternal;
  }
  return kExitOk;
}

int WorkerRun::ReadSpec() {
  absl::StatusOr<transport::BenchmarkOptions> benchmark = ToBenchmarkOptions(registration_);
  if (!benchmark.ok()) return Fail(link_, benchmark.status(), "bad test spec");
  benchmark_ = *std::move(benchmark);
  benchmark_.schedule = &schedule_probe_;
  if (spec().transport() == v1::TRANSPORT_NCCL) {
    gpu_throttle_probe_ =
        OpenGpuThrottleProbe(LoadSystemNvmlThrottle(), assignment().gpu_pci_bus_id());
    benchmark_.gpu_throttle = gpu_throttle_probe_.get();
  }
  absl::StatusOr<std::vector<v1::Collective>> collectives = SpecCollectives(spec());
  if (!collectives.ok()) return Fail(link_, collectives.status(), "bad test spec");
  collectives_ = *std::move(collectives);
  return kExitOk;
}

int WorkerRun::Join() {
  v1::WorkerEvent joining;
  joining.set_kind(v1::WORKER_EVENT_KIND_JOINING);
  if (absl::Status sent = link_.Report(joining); !sent.ok()) {
    return Fail(link_, sent, "reporting to the agent");
  }
  const absl::Time init_start = absl::Now();
  absl::StatusOr<std::unique_ptr<transport::Communicator>> communicator = CreateCommunicator(
      Membership{assignment().rank(), assignment().world_size(), options_.test_id}, registration_,
      link_);
  if (!communicator.ok()) return Fail(link_, communicator.status(), "joining the communicator");
  communicator_ = *std::move(communicator);
  // Every rail's communicator is made at once, after the full one, so that
  // the rails' sweeps later run at the same time.
  if (spec().split_rails()) {
    if (const int exit = JoinRail(); exit != kExitOk) return exit;
  }
  if (Faulty(Mode::kSlow)) {
    spdlog::warn("fault injection: slow={}", options_.fault.slow_ms);
    communicator_ =
        WithSlowdown(std::move(communicator_), absl::Milliseconds(options_.fault.slow_ms));
    if (rail_ != nullptr) {
      rail_ = WithSlowdown(std::move(rail_), absl::Milliseconds(options_.fault.slow_ms));
    }
  }
  spdlog::info("test={} rank={}: joined the {} communicator{} in {}", options_.test_id,
               assignment().rank(), communicator_->TransportName(),
               rail_ != nullptr ? absl::StrCat(" and rail ", assignment().local_rank(), "'s") : "",
               absl::FormatDuration(absl::Now() - init_start));
  v1::WorkerEvent joined;
  joined.set_kind(v1::WORKER_EVENT_KIND_JOINED);
  if (absl::Status sent = link_.Report(joined); !sent.ok()) {
    return Fail(link_, sent, "reporting to the agent");
  }
  return kExitOk;
}

int WorkerRun::JoinRail() {
  absl::StatusOr<Membership> member = RailMembership(registration_, options_.test_id);
  if (!member.ok()) return Fail(link_, member.status(), "splitting the rails");
  transport::PrefixedStore rail_store(link_, RailKeyPrefix(assignment().local_rank()));
  absl::StatusOr<std::unique_ptr<transport::Communicator>> made =
      CreateCommunicator(*member, registration_, rail_store);
  if (!made.ok()) {
    communicator_->Abort(made.status().message());
    return Fail(link_, made.status(),
                absl::StrCat("joining the communicator of rail ", assignment().local_rank()));
  }
  rail_ = *std::move(made);
  return kExitOk;
}

int WorkerRun::Sweep() {
  // The collectives one after the other on the one communicator, each over
  // the coordinator's sizes.
  absl::Status swept;
  std::string sweep_context = "running the sweep";
  for (const v1::Collective collective : collectives_) {
    if (collectives_.size() > 1) {
      sweep_context = absl::StrCat("running the sweep of ", spec::DisplayName(collective));
    }
    transport::BenchmarkOptions per_collective = benchmark_;
    per_collective.collective = *spec::ToTransport(collective);
    transport::BenchmarkRunner runner(*communicator_, per_collective);
    swept = runner.Run(
        [&](const transport::SizeMeasurement& measurement) {
          return ReportSize(collective, measurement);
        },
        on_progress_);
    if (!swept.ok()) break;
  }
  if (!swept.ok()) {
    communicator_->Abort(swept.message());
    if (rail_ != nullptr) rail_->Abort(swept.message());
    return Fail(link_, swept, sweep_context);
  }
  return kExitOk;
}

absl::Status WorkerRun::ReportSize(v1::Collective collective,
                                   const transport::SizeMeasurement& measurement) {
  if (Faulty(Mode::kCrashAtSize) && size_index_ == options_.fault.size_index) {
    spdlog::warn("fault injection: crash_at_size={}", size_index_);
    std::abort();
  }
  v1::WorkerEvent event = SizeDoneEvent(measurement);
  v1::RankSizeResult& result = *event.mutable_size_result();
  result.set_collective(collective);
  if (Faulty(Mode::kCorruptAtSize) && size_index_ == options_.fault.size_index) {
    spdlog::warn("fault injection: corrupt_at_size={}", size_index_);
    result.mutable_out_of_place()->set_wrong_elements(measurement.out_of_place.wrong + 1);
  }
  ++size_index_;
  ++sizes_reported_;
  return link_.Report(event);
}

int WorkerRun::SweepRail() {
  if (rail_ == nullptr) return kExitOk;
  // The same sweep on the rail; every rail runs it at the same time.
  transport::BenchmarkRunner rail_runner(*rail_, benchmark_);
  const absl::Status swept = rail_runner.Run(
      [&](const transport::SizeMeasurement& measurement) {
        v1::WorkerEvent event = SizeDoneEvent(measurement);
        event.mutable_size_result()->set_rail(true);
        ++sizes_reported_;
        return link_.Report(event);
      },
      on_progress_);
  if (!swept.ok()) {
    rail_->Abort(swept.message());
    communicator_->Abort(swept.message());
    return Fail(link_, swept,
                absl::StrCat("running the sweep on rail ", assignment().local_rank()));
  }
  return kExitOk;
}

int WorkerRun::ReportFinished() {
  v1::WorkerEvent finished;
  finished.set_kind(v1::WORKER_EVENT_KIND_FINISHED);
  if (absl::Status sent = link_.Report(finished); !sent.ok()) {
    spdlog::error("could not report the end of the sweep: {}", sent.ToString());
    return kExitInternal;
  }
  spdlog::info("test={} rank={}: finished {} sizes", options_.test_id, assignment().rank(),
               size_index_);
  return kExitOk;
}

}  // namespace

absl::Duration AgentSilenceLimit(absl::Duration heartbeat_period) {
  return std::max(4 * heartbeat_period, absl::Seconds(5));
}

absl::Status CheckRegistration(const v1::RegisterWorkerReply& reply) {
  for (const auto& [field, value] :
       {std::pair<const char*, int64_t>{"heartbeat_period_ms", reply.heartbeat_period_ms()},
        {"init_timeout_ms", reply.init_timeout_ms()},
        {"op_timeout_ms", reply.op_timeout_ms()}}) {
    if (value <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": must be > 0, got ", value));
    }
  }
  return transport::CheckSweepSizes(reply.sizes_bytes(), reply.spec().max_bytes(), "sizes_bytes");
}

int RunWorker(const WorkerOptions& options) {
  // Before the link to the agent exists, as a worker that never gets as far.
  InjectBeforeRegister(options);
  WorkerRun run(options);
  return run.Run();
}

}  // namespace eb::worker
