// The Kubernetes backend (issue 30) with the real kubectl against the
// stand-in API server (k8s_standin.py, which checks every request's path,
// verb and body and fails the run on one it does not expect): never a real
// kube-apiserver. Run only through `k8s_standin.py --run` (ctest
// scheduler_io.k8s_standin), which gives the server's address.

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "common/process/posix_process_launcher.h"
#include "coordinator/scheduler_io/kubernetes_backend.h"
#include "coordinator/scheduler_io/reconcile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::scheduler_io {
namespace {

using scheduler::NodeState;
using scheduler::SchedulerNode;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class KubernetesBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* server = getenv("EB_K8S_SERVER");
    ASSERT_NE(server, nullptr) << "run through tests/unit/scheduler_io/k8s_standin.py --run";
    server_ = server;
    char scratch[] = "/tmp/eb-k8s-test-XXXXXX";
    ASSERT_NE(mkdtemp(scratch), nullptr);
    scratch_ = scratch;
    auto launcher = common::PosixProcessLauncher::Create();
    ASSERT_TRUE(launcher.ok()) << launcher.status();
    launcher_ = *std::move(launcher);
    runner_ = std::make_unique<LauncherCommandRunner>(*launcher_);
    KubernetesBackendConfig config;
    config.kubectl = "/usr/bin/kubectl";
    config.server = server_;
    config.scratch_dir = scratch_;
    backend_ = std::make_unique<KubernetesBackend>(*runner_, config);
  }
  void TearDown() override {
    backend_.reset();
    runner_.reset();
    launcher_.reset();
    if (!scratch_.empty()) std::filesystem::remove_all(scratch_);
  }

  std::map<std::string, SchedulerNode> Nodes() {
    absl::StatusOr<std::vector<SchedulerNode>> nodes = backend_->ListNodes();
    EXPECT_TRUE(nodes.ok()) << nodes.status();
    std::map<std::string, SchedulerNode> out;
    if (nodes.ok()) {
      for (const SchedulerNode& node : *nodes) out[node.name] = node;
    }
    return out;
  }

  // A tenant pod preempts ebnccl's placeholder on `node` (the stand-in's
  // control request, through kubectl as the backend's requests go).
  void Preempt(const std::string& node) {
    const std::string body = scratch_ + "/empty.json";
    std::ofstream(body) << "{}";
    absl::StatusOr<CommandResult> result =
        runner_->Run({"/usr/bin/kubectl", "--server=" + server_, "create", "--raw",
                      "/standin/preempt?node=" + node, "-f", body},
                     {"PATH=/usr/bin:/bin", "HOME=" + scratch_}, absl::Seconds(10));
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->exit_code, 0) << result->output;
  }

  std::string server_;
  std::string scratch_;
  std::unique_ptr<common::ProcessLauncher> launcher_;
  std::unique_ptr<CommandRunner> runner_;
  std::unique_ptr<KubernetesBackend> backend_;
};

TEST_F(KubernetesBackendTest, NodesMapToTheCoresStatesOperatorsMarksAreDrainedByThem) {
  std::map<std::string, SchedulerNode> nodes = Nodes();
  ASSERT_EQ(nodes.size(), 5u);
  EXPECT_EQ(nodes["gpu-1"].state, NodeState::kIdle);
  EXPECT_EQ(nodes["gpu-4"].state, NodeState::kDrained);
  EXPECT_EQ(nodes["gpu-4"].reason, "cordoned");
  EXPECT_EQ(nodes["gpu-5"].state, NodeState::kDrained);
  EXPECT_EQ(nodes["gpu-5"].reason, "taint site/maintenance");
}

TEST_F(KubernetesBackendTest, DrainSetsTaintAndConditionAndResumeTakesThemAway) {
  const std::string reason = "ebnccl v-20261207-0600-ab12: rail 3 at 52% of expected";
  ASSERT_TRUE(backend_->Drain("gpu-1", reason).ok());
  SchedulerNode drained = Nodes()["gpu-1"];
  EXPECT_EQ(drained.state, NodeState::kDrained);
  EXPECT_EQ(drained.reason, reason);
  // Twice is once: the stand-in refuses a second taint of ours.
  ASSERT_TRUE(backend_->Drain("gpu-1", reason).ok());
  ASSERT_TRUE(backend_->Resume("gpu-1").ok());
  SchedulerNode resumed = Nodes()["gpu-1"];
  EXPECT_EQ(resumed.state, NodeState::kIdle);
  EXPECT_THAT(resumed.reason, IsEmpty());
}

TEST_F(KubernetesBackendTest, BadNamesAndUnknownNodesAreErrorsNamingKubernetes) {
  absl::Status bad = backend_->Drain("gpu-1; rm -rf /", "ebnccl x");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("kubernetes: node name"));
  absl::Status unknown = backend_->Drain("gpu-9", "ebnccl x");
  EXPECT_EQ(unknown.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.message(), HasSubstr("kubernetes: `get --raw /api/v1/nodes/gpu-9`"));
}

TEST_F(KubernetesBackendTest, BorrowHoldsThePairAndAPreemptedPlaceholderIsGone) {
  absl::StatusOr<std::string> id = backend_->Borrow({"gpu-2", "gpu-3"}, "ebnccl-probe", 180);
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<std::vector<std::string>> running = backend_->JobNodes(*id);
  ASSERT_TRUE(running.ok()) << running.status();
  EXPECT_THAT(*running, ElementsAre("gpu-2", "gpu-3"));
  std::map<std::string, SchedulerNode> nodes = Nodes();
  EXPECT_EQ(nodes["gpu-2"].state, NodeState::kAllocated);
  EXPECT_TRUE(nodes["gpu-2"].held_by_us);
  EXPECT_THAT(*backend_->JobsNamed("ebnccl-probe"), ElementsAre(*id));
  // A tenant pod takes gpu-3: the borrow is gone (the sentinel preempts).
  Preempt("gpu-3");
  EXPECT_EQ(backend_->JobNodes(*id).status().code(), absl::StatusCode::kNotFound);
  nodes = Nodes();
  EXPECT_EQ(nodes["gpu-3"].state, NodeState::kAllocated);
  EXPECT_FALSE(nodes["gpu-3"].held_by_us);
  ASSERT_TRUE(backend_->EndJob(*id).ok());
  EXPECT_EQ(backend_->JobNodes(*id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(*backend_->JobsNamed("ebnccl-probe"), IsEmpty());
  EXPECT_TRUE(backend_->EndJob(*id).ok());  // already gone: OK
}

class ListAudit final : public ActionAudit {
 public:
  absl::Status Record(const std::string& method, const std::string& target,
                      const absl::Status& /*outcome*/, const std::string& /*message*/) override {
    entries.push_back(method + " " + target);
    return absl::OkStatus();
  }
  std::vector<std::string> entries;
};

scheduler::NodeVerdictRecord Verdict(const std::string& node, validation::Verdict verdict,
                                     const std::string& id, absl::Time time) {
  scheduler::NodeVerdictRecord record;
  record.node = node;
  record.verdict = verdict;
  record.validation_id = id;
  record.evidence = "rail 3 at 52% of expected";
  record.time = time;
  return record;
}

// The decision core's decisions, carried out on "Kubernetes": a confirmed
// degraded node gets our taint and condition, a cordoned one (an
// operator's) is never touched, and a pass resumes ours.
TEST_F(KubernetesBackendTest, TheDecisionsGiveTaintsAndConditionsAndLeaveTheOperatorsMarks) {
  const absl::Time now = absl::Now();
  ReconcileInput input;
  input.ebnccl_nodes = {"gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5"};
  input.verdicts = {Verdict("gpu-1", validation::Verdict::kDegraded, "v-1", now),
                    Verdict("gpu-4", validation::Verdict::kFailed, "v-1", now)};
  input.trigger = "validation v-1";
  scheduler::SchedulerPolicy policy;
  policy.max_drained_share = 0.5;
  ListAudit audit;
  absl::StatusOr<ReconcileOutcome> drained = Reconcile(*backend_, audit, input, policy, now);
  ASSERT_TRUE(drained.ok()) << drained.status();
  EXPECT_EQ(drained->drained, 1);
  std::map<std::string, SchedulerNode> nodes = Nodes();
  EXPECT_EQ(nodes["gpu-1"].state, NodeState::kDrained);
  EXPECT_THAT(nodes["gpu-1"].reason, ::testing::StartsWith("ebnccl v-1: "));
  EXPECT_THAT(nodes["gpu-1"].reason, HasSubstr("rail 3 at 52% of expected"));
  EXPECT_EQ(nodes["gpu-4"].reason, "cordoned");
  // A passing validation later: ours resumed, the operator's still theirs.
  input.verdicts.push_back(
      Verdict("gpu-1", validation::Verdict::kHealthy, "v-2", now + absl::Minutes(5)));
  absl::StatusOr<ReconcileOutcome> resumed =
      Reconcile(*backend_, audit, input, policy, now + absl::Minutes(6));
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->resumed, 1);
  nodes = Nodes();
  EXPECT_EQ(nodes["gpu-1"].state, NodeState::kIdle);
  EXPECT_EQ(nodes["gpu-4"].reason, "cordoned");
}

}  // namespace
}  // namespace eb::scheduler_io
