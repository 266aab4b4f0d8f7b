#include "coordinator/ebctl/commands/run_test_command.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/rpc/channel.h"
#include "common/spec/proto_enums.h"
#include "common/transport/types.h"
#include "coordinator/ebctl/output/exit_codes.h"
#include "coordinator/ebctl/output/report_json.h"
#include "coordinator/ebctl/output/report_table.h"
#include "coordinator/ebctl/output/size_parse.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

namespace {

// "90" (seconds), "90s", "500ms", "2m"; "" is 0 (the coordinator's default).
absl::StatusOr<int64_t> ParseTimeoutMs(const std::string& text, const char* flag) {
  if (text.empty()) return 0;
  double seconds = 0;
  if (absl::SimpleAtod(text, &seconds)) {
    if (seconds <= 0) return absl::InvalidArgumentError(absl::StrCat(flag, ": must be > 0"));
    return static_cast<int64_t>(seconds * 1000);
  }
  absl::Duration duration;
  if (!absl::ParseDuration(text, &duration) || duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": '", text, "' is not a positive duration (e.g. 90, 90s, 500ms, 2m)"));
  }
  return absl::ToInt64Milliseconds(duration);
}

v1::Transport ToTransportEnum(const std::string& name) {
  if (name == "gloo") return v1::TRANSPORT_GLOO;
  if (name == "nccl") return v1::TRANSPORT_NCCL;
  return v1::TRANSPORT_AUTO;
}

// Cancels the call on SIGINT/SIGTERM (blocked in every thread by main), so
// that the coordinator stops the test's workers. The thread waits on a
// signalfd and an eventfd together, so that it ends the moment the call is
// over: a timed sigwait loop would add up to its period to every run-test.
class InterruptWatcher {
 public:
  explicit InterruptWatcher(grpc::ClientContext& context) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    signal_fd_ = signalfd(-1, &set, SFD_CLOEXEC);
    wake_fd_ = eventfd(0, EFD_CLOEXEC);
    if (signal_fd_ < 0 || wake_fd_ < 0) {
      // Without them Ctrl-C would go unnoticed (main blocks it): say so.
      std::fprintf(stderr, "ebctl: cannot watch for Ctrl-C (%s); it will not cancel the test\n",
                   std::strerror(errno));
      return;
    }
    thread_ = std::thread([this, &context] {
      pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      while (true) {
        if (poll(fds, 2, -1) < 0) {
          if (errno == EINTR) continue;
          return;
        }
        if (fds[1].revents != 0) return;
        if (fds[0].revents != 0) {
          signalfd_siginfo info;
          if (read(signal_fd_, &info, sizeof(info)) != static_cast<ssize_t>(sizeof(info))) continue;
          if (!interrupted_.exchange(true)) {
            std::fprintf(stderr, "\nebctl: interrupted; cancelling the test\n");
          }
          context.TryCancel();
        }
      }
    });
  }
  ~InterruptWatcher() {
    if (thread_.joinable()) {
      const uint64_t one = 1;
      (void)!write(wake_fd_, &one, sizeof(one));
      thread_.join();
    }
    if (signal_fd_ >= 0) close(signal_fd_);
    if (wake_fd_ >= 0) close(wake_fd_);
  }
  bool interrupted() const { return interrupted_.load(); }

 private:
  int signal_fd_ = -1;
  int wake_fd_ = -1;
  std::atomic<bool> interrupted_{false};
  std::thread thread_;
};

const char* StateWord(v1::TestState state) {
  switch (state) {
    case v1::TEST_STATE_LAUNCHING:
      return "launching workers";
    case v1::TEST_STATE_INITIALIZING:
      return "ranks joining the communicator";
    case v1::TEST_STATE_RUNNING:
      return "running the sweep";
    case v1::TEST_STATE_STOPPING:
      return "stopping workers";
    default:
      return "";
  }
}

}  // namespace

absl::StatusOr<v1::TestSpec> BuildSpec(const RunTestFlags& flags) {
  v1::TestSpec spec;
  auto collective = transport::ParseCollective(flags.collective, "--collective");
  if (!collective.ok()) return collective.status();
  spec.set_collective(spec::ToProto(*collective));
  auto type = transport::ParseDataType(flags.data_type, "-d/--datatype");
  if (!type.ok()) return type.status();
  spec.set_data_type(spec::ToProto(*type));
  auto op = transport::ParseReduceOp(flags.reduce_op, "-o/--op");
  if (!op.ok()) return op.status();
  spec.set_reduce_op(spec::ToProto(*op));
  auto min_bytes = ParseSize(flags.min_bytes, "-b/--minbytes");
  if (!min_bytes.ok()) return min_bytes.status();
  auto max_bytes = ParseSize(flags.max_bytes, "-e/--maxbytes");
  if (!max_bytes.ok()) return max_bytes.status();
  auto step_bytes = ParseSize(flags.step_bytes, "-i/--stepbytes");
  if (!step_bytes.ok()) return step_bytes.status();
  if (*max_bytes < *min_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-e/--maxbytes: ", flags.max_bytes, " is smaller than -b/--minbytes ", flags.min_bytes));
  }
  if (flags.step_factor < 0) {
    return absl::InvalidArgumentError("-f/--stepfactor: must be >= 2 (or 0 to use -i)");
  }
  if (flags.iterations < 1) return absl::InvalidArgumentError("-n/--iters: must be >= 1");
  if (flags.warmup_iterations < 0)
    return absl::InvalidArgumentError("-w/--warmup_iters: must be >= 0");
  if (flags.check_iterations < 0) return absl::InvalidArgumentError("-c/--check: must be >= 0");
  if (flags.root < 0) return absl::InvalidArgumentError("-r/--root: must be >= 0");
  if (flags.workers_per_node < 0) {
    return absl::InvalidArgumentError("--workers-per-node: must be >= 0");
  }
  if (flags.min_busbw_gbps < 0) return absl::InvalidArgumentError("--min-busbw: must be >= 0");
  spec.set_min_bytes(*min_bytes);
  spec.set_max_bytes(*max_bytes);
  spec.set_step_factor(flags.step_factor);
  spec.set_step_bytes(*step_bytes);
  spec.set_iterations(flags.iterations);
  spec.set_warmup_iterations(flags.warmup_iterations);
  spec.set_check_iterations(flags.check_iterations);
  spec.set_root_rank(flags.root);
  spec.set_transport(ToTransportEnum(flags.transport));
  spec.set_workers_per_node(flags.workers_per_node);
  spec.set_min_busbw_gbps(flags.min_busbw_gbps);
  for (absl::string_view node : absl::StrSplit(flags.nodes, ',', absl::SkipWhitespace())) {
    spec.add_node_names(std::string(node));
  }
  const std::pair<const std::string*, const char*> timeouts[] = {
      {&flags.timeout, "--timeout"},
      {&flags.launch_timeout, "--launch-timeout"},
      {&flags.init_timeout, "--init-timeout"},
      {&flags.step_timeout, "--step-timeout"}};
  int64_t values[4] = {};
  for (int i = 0; i < 4; ++i) {
    auto ms = ParseTimeoutMs(*timeouts[i].first, timeouts[i].second);
    if (!ms.ok()) return ms.status();
    values[i] = *ms;
  }
  for (const std::string& entry : flags.nccl_env) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(absl::StrCat("--nccl-env: '", entry, "' is not KEY=VALUE"));
    }
    (*spec.mutable_nccl_env())[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  if (flags.cuda_graph < 0) return absl::InvalidArgumentError("-G/--cudagraph: must be >= 0");
  spec.set_cuda_graph_launches(flags.cuda_graph);
  spec.set_timeout_ms(values[0]);
  spec.set_launch_timeout_ms(values[1]);
  spec.set_init_timeout_ms(values[2]);
  spec.set_step_timeout_ms(values[3]);
  return spec;
}

int RunTestCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  absl::StatusOr<v1::TestSpec> spec = BuildSpec(flags);
  if (!spec.ok()) {
    std::fprintf(stderr, "ebctl: %s\n", std::string(spec.status().message()).c_str());
    return kExitUsage;
  }
  const bool progress = isatty(STDERR_FILENO) != 0;
  grpc::ClientContext context;
  // The test has its own deadlines; this one only guards the call itself.
  const int64_t test_ms = spec->timeout_ms() > 0 ? spec->timeout_ms() : 3'600'000;
  common::SetTimeout(context, absl::Milliseconds(test_ms) + absl::Minutes(2));
  v1::RunTestRequest request;
  *request.mutable_spec() = *spec;

  InterruptWatcher interrupts(context);
  auto reader = stub.RunTest(&context, request);
  v1::RunTestEvent event;
  v1::TestReport accepted;
  v1::TestReport finished;
  bool connected = false;
  bool done = false;
  while (reader->Read(&event)) {
    connected = true;
    switch (event.event_case()) {
      case v1::RunTestEvent::kAccepted:
        accepted = event.accepted();
        if (progress) {
          std::fprintf(stderr, "ebctl: test %s accepted: %d ranks over %s\n",
                       accepted.test_id().c_str(), accepted.ranks_size(),
                       spec::DisplayName(accepted.transport()));
        }
        if (!options.json) std::cout << TableHeader(accepted) << std::flush;
        break;
      case v1::RunTestEvent::kStateChanged:
        if (progress && StateWord(event.state_changed())[0] != '\0') {
          std::fprintf(stderr, "ebctl: %s...\n", StateWord(event.state_changed()));
        }
        break;
      case v1::RunTestEvent::kSizeResult:
        if (!options.json)
          std::cout << TableRow(event.size_result(), accepted.spec()) << std::flush;
        break;
      case v1::RunTestEvent::kFinished:
        finished = event.finished();
        done = true;
        break;
      default:
        break;
    }
  }
  const grpc::Status status = reader->Finish();
  if (!done) {
    if (interrupts.interrupted()) return kExitInterrupted;
    return RpcFailed(connected ? "the test stream broke" : "the coordinator refused the test",
                     status, connected);
  }
  if (options.json) {
    std::cout << ReportToJson(finished).dump(2) << std::endl;
  } else {
    std::cout << TableFooter(finished) << std::flush;
  }
  return ExitCodeForReport(finished);
}

}  // namespace eb::ebctl
