// The Kubernetes API's objects read into the core's words and the bodies
// ebnccl sends (issue 30): taints and conditions decide whose drain a node
// is, pods say which node holds a job, an answer that cannot be read whole
// is refused, and the drain/resume patches keep other taints and carry the
// resourceVersion.

#include "coordinator/scheduler/kubernetes/k8s_objects.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace eb::scheduler::k8s {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kNodes[] = R"({"kind":"NodeList","items":[
 {"metadata":{"name":"gpu-1"},"spec":{},
  "status":{"allocatable":{"nvidia.com/gpu":"8"},
            "conditions":[{"type":"Ready","status":"True"}]}},
 {"metadata":{"name":"gpu-2"},"spec":{"taints":[{"key":"ebnccl.io/drained","value":"true","effect":"NoSchedule"}]},
  "status":{"conditions":[{"type":"Ready","status":"True"},
   {"type":"EbncclDrained","status":"True","message":"ebnccl v-1: rail 3 at 52% of expected"}]}},
 {"metadata":{"name":"gpu-3"},"spec":{"unschedulable":true},
  "status":{"conditions":[{"type":"Ready","status":"True"}]}},
 {"metadata":{"name":"gpu-4"},"spec":{},
  "status":{"conditions":[{"type":"Ready","status":"False"}]}},
 {"metadata":{"name":"gpu-5"},"spec":{},
  "status":{"conditions":[{"type":"Ready","status":"True"}]}},
 {"metadata":{"name":"gpu-6"},"spec":{},
  "status":{"conditions":[{"type":"Ready","status":"True"}]}}]})";

constexpr char kPods[] = R"({"kind":"PodList","items":[
 {"metadata":{"name":"train-0"},"spec":{"nodeName":"gpu-5"},"status":{"phase":"Running"}},
 {"metadata":{"name":"ebnccl-borrow-x","labels":{"ebnccl.io/borrow":"b-1"}},
  "spec":{"nodeName":"gpu-6"},"status":{"phase":"Running"}},
 {"metadata":{"name":"exporter","ownerReferences":[{"kind":"DaemonSet","name":"dcgm"}]},
  "spec":{"nodeName":"gpu-1"},"status":{"phase":"Running"}},
 {"metadata":{"name":"done"},"spec":{"nodeName":"gpu-1"},"status":{"phase":"Succeeded"}}]})";

TEST(K8sReadNodesTest, TaintsConditionsAndPodsMapToTheCoresStates) {
  std::map<std::string, int> gpus;
  absl::StatusOr<std::vector<SchedulerNode>> nodes =
      ReadNodes(kNodes, kPods, "nvidia.com/gpu", "GET /api/v1/nodes", &gpus);
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_EQ(nodes->size(), 6u);
  // A DaemonSet's pod and an ended pod are no job.
  EXPECT_EQ((*nodes)[0].state, NodeState::kIdle);
  EXPECT_EQ(gpus["gpu-1"], 8);
  EXPECT_EQ((*nodes)[1].state, NodeState::kDrained);
  EXPECT_EQ((*nodes)[1].reason, "ebnccl v-1: rail 3 at 52% of expected");
  // Cordoned by someone else: drained, and the reason is not ours.
  EXPECT_EQ((*nodes)[2].state, NodeState::kDrained);
  EXPECT_EQ((*nodes)[2].reason, "cordoned");
  EXPECT_EQ((*nodes)[3].state, NodeState::kDown);
  EXPECT_EQ((*nodes)[4].state, NodeState::kAllocated);
  EXPECT_FALSE((*nodes)[4].held_by_us);
  EXPECT_EQ((*nodes)[5].state, NodeState::kAllocated);
  EXPECT_TRUE((*nodes)[5].held_by_us);
}

TEST(K8sReadNodesTest, AnswersThatCannotBeReadWholeAreRefusedNamingTheRequest) {
  for (const char* bad : {"not json", "[]", R"({"items":{}})", R"({"items":[1]})",
                          R"({"items":[{"metadata":{"name":"Bad_Name"}}]})",
                          R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a"}}]})"}) {
    absl::StatusOr<std::vector<SchedulerNode>> nodes =
        ReadNodes(bad, R"({"items":[]})", "nvidia.com/gpu", "GET /api/v1/nodes");
    ASSERT_FALSE(nodes.ok()) << bad;
    EXPECT_THAT(nodes.status().message(), HasSubstr("kubernetes: GET /api/v1/nodes (nodes)"));
  }
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  EXPECT_FALSE(ReadNodes(R"({"items":[]})", deep, "nvidia.com/gpu", "GET").ok());
}

TEST(K8sNodeTest, TaintAddsOursOnceKeepsOthersAndTheResourceVersion) {
  constexpr char kNode[] = R"({"metadata":{"name":"gpu-1","resourceVersion":"77"},
    "spec":{"podCIDR":"10.0.0.0/24",
            "taints":[{"key":"site/maintenance","effect":"PreferNoSchedule"},
                      {"key":"ebnccl.io/drained","value":"true","effect":"NoSchedule"}]},
    "status":{"conditions":[{"type":"Ready","status":"True"}]}})";
  absl::StatusOr<std::string> tainted = NodeTainted(kNode);
  ASSERT_TRUE(tainted.ok()) << tainted.status();
  const nlohmann::json node = nlohmann::json::parse(*tainted);
  EXPECT_EQ(node["metadata"]["resourceVersion"], "77");
  EXPECT_EQ(node["spec"]["podCIDR"], "10.0.0.0/24");  // every other field as read
  ASSERT_EQ(node["spec"]["taints"].size(), 2u);
  EXPECT_EQ(node["spec"]["taints"][0]["key"], "site/maintenance");
  EXPECT_EQ(node["spec"]["taints"][1]["key"], "ebnccl.io/drained");
  EXPECT_EQ(node["spec"]["taints"][1]["effect"], "NoSchedule");
  absl::StatusOr<std::string> untainted = NodeUntainted(kNode);
  ASSERT_TRUE(untainted.ok());
  const nlohmann::json undone = nlohmann::json::parse(*untainted);
  ASSERT_EQ(undone["spec"]["taints"].size(), 1u);
  EXPECT_EQ(undone["spec"]["taints"][0]["key"], "site/maintenance");
  EXPECT_FALSE(NodeTainted(R"({"metadata":{"name":"x"}})").ok());  // no resourceVersion
  EXPECT_FALSE(NodeTainted(R"({"metadata":{"resourceVersion":"1"},"spec":{"taints":{}}})").ok());

  absl::StatusOr<std::string> conditioned =
      NodeConditioned(kNode, true, "ebnccl v-2: failed", "2026-12-07T06:00:00Z");
  ASSERT_TRUE(conditioned.ok()) << conditioned.status();
  const nlohmann::json on = nlohmann::json::parse(*conditioned);
  ASSERT_EQ(on["status"]["conditions"].size(), 2u);
  EXPECT_EQ(on["status"]["conditions"][0]["type"], "Ready");
  EXPECT_EQ(on["status"]["conditions"][1]["type"], "EbncclDrained");
  EXPECT_EQ(on["status"]["conditions"][1]["status"], "True");
  EXPECT_EQ(on["status"]["conditions"][1]["message"], "ebnccl v-2: failed");
  const nlohmann::json off =
      nlohmann::json::parse(*NodeConditioned(on.dump(), false, "", "2026-12-07T07:00:00Z"));
  ASSERT_EQ(off["status"]["conditions"].size(), 2u);  // replaced, not added
  EXPECT_EQ(off["status"]["conditions"][1]["status"], "False");
}

TEST(K8sPodTest, PlaceholderIsLowestPriorityAndAsksTheNodesGpus) {
  const nlohmann::json pod = nlohmann::json::parse(
      PlaceholderPod(PlaceholderSpec(), "gpu-1", 8, "b-1", "ebnccl-probe", 180));
  EXPECT_EQ(pod["spec"]["priorityClassName"], "ebnccl-lowest");
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"], "8");
  EXPECT_EQ(pod["spec"]["activeDeadlineSeconds"], 180);
  EXPECT_FALSE(pod["spec"].contains("nodeName"));  // the scheduler places it: it can preempt
  EXPECT_EQ(
      pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
         ["nodeSelectorTerms"][0]["matchExpressions"][0]["values"][0],
      "gpu-1");
  EXPECT_EQ(pod["metadata"]["labels"]["ebnccl.io/borrow"], "b-1");
}

TEST(K8sBorrowTest, RunningPendingAndPreemptedPods) {
  EXPECT_THAT(*BorrowNodes(R"({"items":[
    {"metadata":{"name":"p1"},"spec":{"nodeName":"gpu-2"},"status":{"phase":"Running"}},
    {"metadata":{"name":"p2"},"spec":{"nodeName":"gpu-1"},"status":{"phase":"Running"}}]})",
                           "GET pods"),
              ElementsAre("gpu-1", "gpu-2"));
  EXPECT_TRUE(BorrowNodes(R"({"items":[{"metadata":{"name":"p1"},"status":{"phase":"Pending"}}]})",
                          "GET pods")
                  ->empty());
  // A preempted placeholder is being deleted, or failed: gone.
  EXPECT_EQ(BorrowNodes(R"({"items":[{"metadata":{"name":"p1","deletionTimestamp":"x"},
    "spec":{"nodeName":"gpu-1"},"status":{"phase":"Running"}}]})",
                        "GET pods")
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(BorrowNodes(R"({"items":[]})", "GET pods").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_THAT(*BorrowIds(R"({"items":[{"metadata":{"labels":{"ebnccl.io/borrow":"b-2"}}},
    {"metadata":{"labels":{"ebnccl.io/borrow":"b-1"}}},{"metadata":{"labels":{"ebnccl.io/borrow":"b-2"}}}]})",
                         "GET pods"),
              ElementsAre("b-1", "b-2"));
}

}  // namespace
}  // namespace eb::scheduler::k8s
