// The workers' NCCL version as `eb-worker --print-nccl-version` reports it:
// the output parser, the probe against a scripted launcher (exit, failure,
// hang, spawn error), and the real launcher with /bin/sh standing in for
// eb-worker (output captured, a hang killed).

#include "agent/core/nccl_library.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <optional>
#include <vector>

#include "absl/time/clock.h"
#include "agent/host/nccl_probe.h"
#include "common/process/posix_process_launcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(ParseNcclVersionOutputTest, VersionOrNone) {
  EXPECT_EQ(*ParseNcclVersionOutput("2.28.9\n"), "2.28.9");
  EXPECT_EQ(*ParseNcclVersionOutput("  2.21\n"), "2.21");
  EXPECT_EQ(*ParseNcclVersionOutput("none\n"), "");
  // Something a library logged first is skipped: the last line counts.
  EXPECT_EQ(*ParseNcclVersionOutput("NCCL INFO something\n2.28.3\n\n"), "2.28.3");
}

TEST(ParseNcclVersionOutputTest, AnythingElseIsInternal) {
  for (const char* output :
       {"", "\n", "2", "2.x.9", "v2.28.9", "2.28.9.1", "2.28.9 beta", "2.28.9\ngarbage"}) {
    EXPECT_EQ(ParseNcclVersionOutput(output).status().code(), absl::StatusCode::kInternal)
        << output;
  }
}

// Starts nothing: on Spawn it writes `output` to the spec's log descriptor
// (the probe's in-memory file) and, when `exit` is set, exits at once;
// SIGKILL makes a running child exit.
class ScriptedLauncher final : public common::ProcessLauncher {
 public:
  absl::StatusOr<common::ChildHandle> Spawn(const common::ProcessSpec& spec,
                                            common::ExitCallback on_exit) override {
    specs.push_back(spec);
    if (!spawn_error.ok()) return spawn_error;
    EXPECT_GE(spec.log_fd, 0);
    EXPECT_EQ(spec.log_path, "");
    if (spec.log_fd >= 0) {
      EXPECT_EQ(write(spec.log_fd, output.data(), output.size()),
                static_cast<ssize_t>(output.size()));
    }
    on_exit_ = std::move(on_exit);
    if (exit.has_value()) on_exit_(*exit);
    return common::ChildHandle{1, 4200000};
  }
  absl::Status SignalGroup(const common::ChildHandle&, int signal) override {
    signals.push_back(signal);
    if (signal == SIGKILL && !exit.has_value()) {
      common::ExitInfo killed;
      killed.signal = SIGKILL;
      on_exit_(killed);
    }
    return absl::OkStatus();
  }

  std::string output;
  std::optional<common::ExitInfo> exit;
  absl::Status spawn_error;
  std::vector<common::ProcessSpec> specs;
  std::vector<int> signals;

 private:
  common::ExitCallback on_exit_;
};

common::ExitInfo Code(int code) {
  common::ExitInfo info;
  info.exit_code = code;
  return info;
}

common::ProcessSpec WorkerProbe() {
  common::ProcessSpec spec;
  spec.executable = "/opt/eb/bin/eb-worker";
  spec.argv = {spec.executable, "--print-nccl-version"};
  spec.env = {"LD_LIBRARY_PATH=/opt/nccl/lib", "CUDA_DEVICE_ORDER=PCI_BUS_ID"};
  return spec;
}

TEST(ProbeWorkerNcclVersionTest, ReportsTheWorkersVersionAndRunsTheGivenSpec) {
  ScriptedLauncher launcher;
  launcher.output = "2.28.9\n";
  launcher.exit = Code(0);
  EXPECT_EQ(*ProbeWorkerNcclVersion(launcher, WorkerProbe()), "2.28.9");
  ASSERT_EQ(launcher.specs.size(), 1u);
  EXPECT_EQ(launcher.specs[0].argv, WorkerProbe().argv);
  EXPECT_EQ(launcher.specs[0].env, WorkerProbe().env);
  EXPECT_GE(launcher.specs[0].log_fd, 0);  // the in-memory file, by descriptor
  EXPECT_TRUE(launcher.signals.empty());
}

TEST(ProbeWorkerNcclVersionTest, WorkerWithoutNcclIsEmpty) {
  ScriptedLauncher launcher;
  launcher.output = "none\n";
  launcher.exit = Code(0);
  EXPECT_EQ(*ProbeWorkerNcclVersion(launcher, WorkerProbe()), "");
}

TEST(ProbeWorkerNcclVersionTest, LoaderFailureIsUnavailableQuotingTheOutput) {
  ScriptedLauncher launcher;
  launcher.output =
      "eb-worker: error while loading shared libraries: libnccl.so.2: cannot open shared "
      "object file: No such file or directory\n";
  launcher.exit = Code(127);
  const absl::Status status = ProbeWorkerNcclVersion(launcher, WorkerProbe()).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("eb-worker --print-nccl-version"), HasSubstr("exit code 127"),
                    HasSubstr("libnccl.so.2: cannot open shared object file")));
}

TEST(ProbeWorkerNcclVersionTest, HangIsKilledAndDeadlineExceeded) {
  ScriptedLauncher launcher;  // never exits by itself
  const absl::Status status =
      ProbeWorkerNcclVersion(launcher, WorkerProbe(), absl::Milliseconds(1)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(status.message()), HasSubstr("did not exit within 1ms; killed"));
  EXPECT_EQ(launcher.signals, std::vector<int>{SIGKILL});
}

TEST(ProbeWorkerNcclVersionTest, SpawnErrorIsPassedOn) {
  ScriptedLauncher launcher;
  launcher.spawn_error = absl::NotFoundError("cannot spawn /opt/eb/bin/eb-worker: No such file");
  EXPECT_EQ(ProbeWorkerNcclVersion(launcher, WorkerProbe()).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(ProbeWorkerNcclVersionTest, GarbageIsInternal) {
  ScriptedLauncher launcher;
  launcher.output = "Usage: eb-worker [OPTIONS]\n";
  launcher.exit = Code(0);
  EXPECT_EQ(ProbeWorkerNcclVersion(launcher, WorkerProbe()).status().code(),
            absl::StatusCode::kInternal);
}

// The real launcher: posix_spawn, the in-memory output file handed over by
// descriptor, the reaper's exit callback.
common::ProcessSpec Shell(const std::string& script) {
  common::ProcessSpec spec;
  spec.executable = "/bin/sh";
  spec.argv = {"/bin/sh", "-c", script};
  return spec;
}

TEST(ProbeWorkerNcclVersionRealTest, CapturesTheChildsOutput) {
  auto launcher = common::PosixProcessLauncher::Create();
  ASSERT_TRUE(launcher.ok()) << launcher.status();
  EXPECT_EQ(*ProbeWorkerNcclVersion(**launcher, Shell("echo 2.28.9")), "2.28.9");
  const absl::Status failed =
      ProbeWorkerNcclVersion(**launcher, Shell("echo 'libnccl.so.2: not found' >&2; exit 127"))
          .status();
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(failed.message()), HasSubstr("libnccl.so.2: not found"));
}

TEST(ProbeWorkerNcclVersionRealTest, AHangingChildIsKilledWithinTheTimeout) {
  auto launcher = common::PosixProcessLauncher::Create();
  ASSERT_TRUE(launcher.ok()) << launcher.status();
  const absl::Time start = absl::Now();
  const absl::Status status =
      ProbeWorkerNcclVersion(**launcher, Shell("exec sleep 30"), absl::Milliseconds(100)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  // The timeout plus the reap: far below the child's 30 s.
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

}  // namespace
}  // namespace eb::agent
