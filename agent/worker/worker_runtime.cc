#include "agent/worker/worker_runtime.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "agent/worker/agent_link.h"
#include "agent/worker/slow_communicator.h"
#include "common/rpc/channel.h"
#include "common/spec/proto_enums.h"
#include "common/transport/benchmark_runner.h"
#include "common/transport/collective_layout.h"
#include "common/transport/gloo/gloo_communicator.h"
#include "common/transport/prefixed_store.h"
#ifdef EB_HAVE_NCCL
#include "common/transport/nccl/nccl_communicator.h"
#endif
#include "spdlog/spdlog.h"

namespace eb::worker {
namespace v1 = ebnccl::v1;

namespace {

// A healthy agent answers registration in milliseconds (it spawned this
// process a moment ago). Past this, the agent is frozen (SIGSTOP) or
// wedged: give up rather than outlive the test (its own registration
// deadline cannot fire while it is frozen).
constexpr absl::Duration kRegisterTimeout = absl::Seconds(10);

// Heartbeats to the agent on its own thread while the worker runs; exits
// the process when the agent says stop or is gone (a worker must never
// outlive its agent or its test). "Gone" includes frozen: the agent's
// process exists (no parent-death signal) but has not answered a heartbeat
// for AgentSilenceLimit(period); each call has a short deadline, so this
// does not depend on the agent's replies.
class HeartbeatThread {
 public:
  HeartbeatThread(AgentLink& link, absl::Duration period) : link_(link), period_(period) {
    thread_ = std::thread([this] { Run(); });
  }
  ~HeartbeatThread() {
    done_.Notify();
    thread_.join();
  }

 private:
  void Run() {
    const absl::Duration limit = AgentSilenceLimit(period_);
    absl::Time last_reply = absl::Now();
    while (!done_.WaitForNotificationWithTimeout(period_)) {
      // Never wait past the limit for one reply.
      const absl::Duration left = last_reply + limit - absl::Now();
      const absl::Duration deadline =
          std::clamp(left, absl::Milliseconds(100), std::max(period_, absl::Seconds(1)));
      absl::StatusOr<bool> stop = link_.Heartbeat(deadline);
      if (stop.ok()) {
        if (*stop) {
          spdlog::warn("the agent asked this worker to stop");
          spdlog::default_logger()->flush();
          std::_Exit(kExitStopped);
        }
        last_reply = absl::Now();
        continue;
      }
      const absl::Duration silence = absl::Now() - last_reply;
      if (silence >= limit) {
        spdlog::error(
            "lost the agent: no heartbeat reply for {} (limit {}; the agent is gone, frozen or "
            "wedged), last error: {}; exiting",
            absl::FormatDuration(silence), absl::FormatDuration(limit), stop.status().ToString());
        spdlog::default_logger()->flush();
        std::_Exit(kExitStopped);
      }
    }
  }

  AgentLink& link_;
  const absl::Duration period_;
  absl::Notification done_;
  std::thread thread_;
};

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

#ifdef EB_HAVE_NCCL
// Where the agent forced NCCL's IB transport (its HCAs are configured; see
// agent/core/worker_spec.h), a failed init may be NCCL unable to use them:
// it is not allowed to fall back to TCP sockets, so say what to check. Not
// for deadlines and aborts, which a missing peer explains.
absl::Status WithIbTransportHint(absl::Status status) {
  const char* net = std::getenv("NCCL_NET");
  const char* hcas = std::getenv("NCCL_IB_HCA");
  if (status.ok() || net == nullptr || hcas == nullptr || !absl::EqualsIgnoreCase(net, "IB") ||
      status.code() == absl::StatusCode::kDeadlineExceeded ||
      status.code() == absl::StatusCode::kAborted) {
    return status;
  }
  return absl::Status(
      status.code(),
      absl::StrCat(status.message(), " (NCCL_NET=IB, NCCL_IB_HCA=", hcas,
                   ": this node's HCAs are configured, so NCCL may not fall back to TCP sockets; "
                   "if it could not use them, check rdma-core (libibverbs), "
                   "/dev/infiniband/uverbs* for this process, and the ports' state)"));
}
#endif

// The communicator of the test's transport, joined through the relayed
// rendezvous. `options` serves only the NCCL path (a build without NCCL,
// -DEB_WITH_NCCL=OFF, has Gloo alone).
// `member` is this rank's place in it: the test's rank and world size for
// the full communicator, the rail's for a rail (RailMembership).
struct Membership {
  int rank = 0;
  int world_size = 1;
  std::string comm_name;  // NCCL's commName, in its logs
};

absl::StatusOr<std::unique_ptr<transport::Communicator>> CreateCommunicator(
    const Membership& member, const v1::RegisterWorkerReply& registration,
    transport::RendezvousStore& store) {
  const v1::TestSpec& spec = registration.spec();
  const absl::Duration init_timeout = absl::Milliseconds(registration.init_timeout_ms());
  const absl::Duration op_timeout = absl::Milliseconds(registration.op_timeout_ms());
  if (spec.transport() == v1::TRANSPORT_NCCL) {
#ifdef EB_HAVE_NCCL
    const v1::RankAssignment& assignment = registration.assignment();
    transport::NcclOptions nccl;
    nccl.rank = member.rank;
    nccl.world_size = member.world_size;
    nccl.cuda_device = assignment.device_index();
    nccl.gpu_pci_bus_id = assignment.gpu_pci_bus_id();
    nccl.comm_name = member.comm_name;
    nccl.init_timeout = init_timeout;
    nccl.op_timeout = op_timeout;
    nccl.cuda_graph_launches = spec.cuda_graph_launches();
    absl::StatusOr<std::unique_ptr<transport::Communicator>> comm =
        transport::CreateNcclCommunicator(nccl, store);
    if (!comm.ok()) return WithIbTransportHint(comm.status());
    return comm;
#else
    return absl::UnimplementedError("this eb-worker was built without NCCL");
#endif
  }
  if (spec.transport() != v1::TRANSPORT_GLOO) {
    return absl::InvalidArgumentError(
        absl::StrCat("transport: ", spec::DisplayName(spec.transport()), " is not runnable"));
  }
  transport::GlooOptions gloo;
  gloo.rank = member.rank;
  gloo.world_size = member.world_size;
  gloo.interface_name = registration.bootstrap_interface();
  gloo.hostname = registration.bootstrap_address();
  if (gloo.interface_name.empty() && gloo.hostname.empty()) {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    gloo.hostname = host;
  }
  gloo.connect_timeout = init_timeout;
  gloo.op_timeout = op_timeout;
  return transport::CreateGlooCommunicator(gloo, store);
}

// This rank's place on its rail (TestSpec.split_rails): rail = local rank,
// one member per node, ranked by node. Ranks are contiguous per node with
// the same count on every node (the coordinator's placement), so the rail's
// world is the node count. INVALID_ARGUMENT naming split_rails when the
// assignment does not fit that.
absl::StatusOr<Membership> RailMembership(const v1::RegisterWorkerReply& registration,
                                          const std::string& test_id) {
  const v1::RankAssignment& a = registration.assignment();
  const v1::TestSpec& spec = registration.spec();
  // The node count is the world over the ranks per node: the coordinator
  // sends the spec without its node list (one list per node made launching
  // N nodes cost N^2 names, issue 15).
  const int per_node = spec.workers_per_node();
  const int nodes = per_node > 0 ? a.world_size() / per_node : 0;
  if (nodes < 1 || per_node < 1 || nodes * per_node != a.world_size() || a.node_index() < 0 ||
      a.node_index() >= nodes || a.local_rank() < 0 || a.local_rank() >= per_node) {
    return absl::InvalidArgumentError(absl::StrCat(
        "split_rails: rank ", a.rank(), " (node index ", a.node_index(), ", slot ", a.local_rank(),
        ") does not fit ", nodes, " node(s) x ", per_node, " worker(s) = world ", a.world_size()));
  }
  return Membership{a.node_index(), nodes, absl::StrCat(test_id, "/rail", a.local_rank())};
}

// The rendezvous keys of rail `rail`'s communicator (PrefixedStore).
std::string RailKeyPrefix(int rail) { return absl::StrCat("rail", rail, "/"); }

void SetTiming(const transport::PlacementResult& placement, v1::RankTiming& timing) {
  timing.set_time_us(placement.time_us);
  timing.set_wrong_elements(placement.wrong);
  timing.set_arrival_us(placement.arrival_us);
  timing.set_arrival_samples(placement.arrival_samples);
  for (double us : placement.iteration_us) timing.add_iteration_us(us);
}

}  // namespace

absl::Duration AgentSilenceLimit(absl::Duration heartbeat_period) {
  return std::max(4 * heartbeat_period, absl::Seconds(3));
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
  const bool faulty = options.fault.AppliesTo(options.rank);
  using Mode = FaultInjection::Mode;
  if (faulty && options.fault.mode == Mode::kHangBeforeRegister)
    HangForever("hang_before_register");
  if (faulty && options.fault.mode == Mode::kLogFlood) {
    // Bounded, so that a test's log stays small when nobody stops it.
    for (int line = 0; line < 100000; ++line) spdlog::info("fault injection: log_flood {}", line);
    HangForever("log_flood");
  }

  AgentLink link(common::MakeChannel(options.agent_target), options.test_id, options.rank,
                 options.token);
  absl::StatusOr<v1::RegisterWorkerReply> registration = link.Register(kRegisterTimeout);
  if (!registration.ok()) {
    spdlog::error("test={} rank={}: cannot register with the agent at {}: {}", options.test_id,
                  options.rank, options.agent_target, registration.status().ToString());
    return kExitInternal;
  }
  const v1::RankAssignment& assignment = registration->assignment();
  const v1::TestSpec& spec = registration->spec();
  if (absl::Status usable = CheckRegistration(*registration); !usable.ok()) {
    return Fail(link,
                absl::Status(usable.code(), absl::StrCat(usable.message(),
                                                         " (are this eb-worker and its agent the "
                                                         "same ebnccl version?)")),
                "the agent's registration reply");
  }
  spdlog::info(
      "test={} rank={}/{} node={} slot={}: registered; {} over {}, {} sizes, init_timeout={}ms "
      "op_timeout={}ms bootstrap_interface={} bootstrap_address={} cuda_device={} gpu_bus_id={}",
      options.test_id, assignment.rank(), assignment.world_size(), assignment.node_name(),
      assignment.local_rank(), spec::DisplayName(spec.collective()),
      spec::DisplayName(spec.transport()), registration->sizes_bytes_size(),
      registration->init_timeout_ms(), registration->op_timeout_ms(),
      registration->bootstrap_interface(), registration->bootstrap_address(),
      assignment.device_index(), assignment.gpu_pci_bus_id());
  HeartbeatThread heartbeats(link, absl::Milliseconds(registration->heartbeat_period_ms()));

  if (faulty && options.fault.mode == Mode::kHangBeforeJoin) {
    // A line through stdio, as NCCL writes its warnings: the stop that ends
    // this hang leaves with std::_Exit, and the line must be in the log then
    // (main.cc makes stdout line-buffered; fault_injection_test checks it).
    std::printf("fault injection: hang_before_join, written with stdio\n");
    HangForever("hang_before_join");
  }
  if (faulty && options.fault.mode == Mode::kExitBeforeJoin) {
    spdlog::warn("fault injection: exit_before_join");
    return kExitInternal;
  }

  absl::StatusOr<transport::BenchmarkOptions> benchmark = ToBenchmarkOptions(*registration);
  if (!benchmark.ok()) return Fail(link, benchmark.status(), "bad test spec");
  absl::StatusOr<std::vector<v1::Collective>> collectives = SpecCollectives(registration->spec());
  if (!collectives.ok()) return Fail(link, collectives.status(), "bad test spec");
  v1::WorkerEvent joining;
  joining.set_kind(v1::WORKER_EVENT_KIND_JOINING);
  if (absl::Status sent = link.Report(joining); !sent.ok()) {
    return Fail(link, sent, "reporting to the agent");
  }
  const absl::Time init_start = absl::Now();
  absl::StatusOr<std::unique_ptr<transport::Communicator>> communicator = CreateCommunicator(
      Membership{assignment.rank(), assignment.world_size(), options.test_id}, *registration, link);
  if (!communicator.ok()) return Fail(link, communicator.status(), "joining the communicator");
  // Every rail's communicator is made at once, after the full one, so that
  // the rails' sweeps later run at the same time.
  std::unique_ptr<transport::Communicator> rail;
  if (spec.split_rails()) {
    absl::StatusOr<Membership> member = RailMembership(*registration, options.test_id);
    if (!member.ok()) return Fail(link, member.status(), "splitting the rails");
    transport::PrefixedStore rail_store(link, RailKeyPrefix(assignment.local_rank()));
    absl::StatusOr<std::unique_ptr<transport::Communicator>> made =
        CreateCommunicator(*member, *registration, rail_store);
    if (!made.ok()) {
      (*communicator)->Abort(made.status().message());
      return Fail(link, made.status(),
                  absl::StrCat("joining the communicator of rail ", assignment.local_rank()));
    }
    rail = *std::move(made);
  }
  if (faulty && options.fault.mode == Mode::kSlow) {
    spdlog::warn("fault injection: slow={}", options.fault.slow_ms);
    communicator =
        WithSlowdown(*std::move(communicator), absl::Milliseconds(options.fault.slow_ms));
    if (rail != nullptr) {
      rail = WithSlowdown(std::move(rail), absl::Milliseconds(options.fault.slow_ms));
    }
  }
  spdlog::info("test={} rank={}: joined the {} communicator{} in {}", options.test_id,
               assignment.rank(), (*communicator)->TransportName(),
               rail != nullptr ? absl::StrCat(" and rail ", assignment.local_rank(), "'s") : "",
               absl::FormatDuration(absl::Now() - init_start));

  v1::WorkerEvent joined;
  joined.set_kind(v1::WORKER_EVENT_KIND_JOINED);
  if (absl::Status sent = link.Report(joined); !sent.ok()) {
    return Fail(link, sent, "reporting to the agent");
  }

  // The collectives one after the other on the one communicator, each over
  // the coordinator's sizes; size_index counts across them (fault injection
  // names a step of the whole run).
  int size_index = 0;
  absl::Status swept;
  std::string sweep_context = "running the sweep";
  for (const v1::Collective collective : *collectives) {
    if (collectives->size() > 1) {
      sweep_context = absl::StrCat("running the sweep of ", spec::DisplayName(collective));
    }
    transport::BenchmarkOptions per_collective = *benchmark;
    per_collective.collective = *spec::ToTransport(collective);
    transport::BenchmarkRunner runner(**communicator, per_collective);
    swept = runner.Run([&](const transport::SizeMeasurement& measurement) {
      if (faulty && options.fault.mode == Mode::kCrashAtSize &&
          size_index == options.fault.size_index) {
        spdlog::warn("fault injection: crash_at_size={}", size_index);
        std::abort();
      }
      v1::WorkerEvent event;
      event.set_kind(v1::WORKER_EVENT_KIND_SIZE_DONE);
      v1::RankSizeResult& result = *event.mutable_size_result();
      result.set_size_bytes(measurement.size_bytes);
      result.set_count(measurement.count);
      result.set_collective(collective);
      SetTiming(measurement.out_of_place, *result.mutable_out_of_place());
      SetTiming(measurement.in_place, *result.mutable_in_place());
      if (faulty && options.fault.mode == Mode::kCorruptAtSize &&
          size_index == options.fault.size_index) {
        spdlog::warn("fault injection: corrupt_at_size={}", size_index);
        result.mutable_out_of_place()->set_wrong_elements(measurement.out_of_place.wrong + 1);
      }
      ++size_index;
      return link.Report(event);
    });
    if (!swept.ok()) break;
  }
  if (!swept.ok()) {
    (*communicator)->Abort(swept.message());
    if (rail != nullptr) rail->Abort(swept.message());
    return Fail(link, swept, sweep_context);
  }
  if (rail != nullptr) {
    // The same sweep on the rail; every rail runs it at the same time.
    transport::BenchmarkRunner rail_runner(*rail, *benchmark);
    swept = rail_runner.Run([&](const transport::SizeMeasurement& measurement) {
      v1::WorkerEvent event;
      event.set_kind(v1::WORKER_EVENT_KIND_SIZE_DONE);
      v1::RankSizeResult& result = *event.mutable_size_result();
      result.set_size_bytes(measurement.size_bytes);
      result.set_count(measurement.count);
      result.set_rail(true);
      SetTiming(measurement.out_of_place, *result.mutable_out_of_place());
      SetTiming(measurement.in_place, *result.mutable_in_place());
      return link.Report(event);
    });
    if (!swept.ok()) {
      rail->Abort(swept.message());
      (*communicator)->Abort(swept.message());
      return Fail(link, swept, absl::StrCat("running the sweep on rail ", assignment.local_rank()));
    }
  }
  v1::WorkerEvent finished;
  finished.set_kind(v1::WORKER_EVENT_KIND_FINISHED);
  if (absl::Status sent = link.Report(finished); !sent.ok()) {
    spdlog::error("could not report the end of the sweep: {}", sent.ToString());
    return kExitInternal;
  }
  spdlog::info("test={} rank={}: finished {} sizes", options.test_id, assignment.rank(),
               size_index);
  return kExitOk;
}

}  // namespace eb::worker
