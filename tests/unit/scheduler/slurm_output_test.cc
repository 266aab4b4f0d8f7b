// The pure reading of Slurm's CLI output (coordinator/scheduler/slurm):
// recorded answers of a real Slurm 22.05 (tests/netns/slurm_cluster.sh's
// cluster, 2026-12-06), and hostile ones: garbage, truncated lines, huge
// answers, unknown states, a node listed twice. Every bad answer is refused
// whole, naming slurm, the command and the line.

#include "coordinator/scheduler/slurm/slurm_output.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::scheduler::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kCommand[] = "/usr/bin/sinfo -h -N -o %N|%T|%E";

// `sinfo -h -N -o '%N|%T|%E'` with a borrow job on node0-1, an operator's
// drain on node2 (its reason holds a '|'), a tenant job on node4 that
// ebnccl drained (draining).
constexpr char kRecordedSinfo[] =
    "node0|allocated|none\n"
    "node1|allocated|none\n"
    "node2|drained|operator: bad fan | ticket 42\n"
    "node3|idle|none\n"
    "node4|draining|ebnccl v-1: rail 0 at 10% of expected\n"
    "node5|idle|none\n";
// `squeue -h -o '%i|%j|%T|%N'` of the same moment.
constexpr char kRecordedSqueue[] =
    "1|tenant|RUNNING|node4\n"
    "2|ebnccl-borrow|RUNNING|node[0-1]\n";

TEST(SlurmOutputTest, ReadsRecordedSinfo) {
  auto nodes = ParseSinfoNodes(kRecordedSinfo, kCommand);
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_EQ(nodes->size(), 6u);
  EXPECT_EQ((*nodes)[0].name, "node0");
  EXPECT_EQ((*nodes)[0].state, NodeState::kAllocated);
  EXPECT_EQ((*nodes)[0].reason, "");
  EXPECT_EQ((*nodes)[2].state, NodeState::kDrained);
  EXPECT_EQ((*nodes)[2].reason, "operator: bad fan | ticket 42");
  EXPECT_EQ((*nodes)[3].state, NodeState::kIdle);
  EXPECT_EQ((*nodes)[4].state, NodeState::kDraining);
  EXPECT_EQ((*nodes)[4].reason, "ebnccl v-1: rail 0 at 10% of expected");
}

TEST(SlurmOutputTest, ReadsRecordedSqueue) {
  auto jobs = ParseSqueueJobs(kRecordedSqueue, "squeue");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].id, "1");
  EXPECT_EQ((*jobs)[0].name, "tenant");
  EXPECT_THAT((*jobs)[0].nodes, ElementsAre("node4"));
  EXPECT_EQ((*jobs)[1].name, "ebnccl-borrow");
  EXPECT_EQ((*jobs)[1].state, "RUNNING");
  EXPECT_THAT((*jobs)[1].nodes, ElementsAre("node0", "node1"));
}

TEST(SlurmOutputTest, PendingJobHasNoNodesAndNameMayHoldBars) {
  auto jobs = ParseSqueueJobs("17|a|b|PENDING|\n18|x|RUNNING|(null)\n", "squeue");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ((*jobs)[0].name, "a|b");
  EXPECT_TRUE((*jobs)[0].nodes.empty());
  EXPECT_TRUE((*jobs)[1].nodes.empty());
}

TEST(SlurmOutputTest, MapsStates) {
  EXPECT_EQ(MapSinfoState("idle"), NodeState::kIdle);
  EXPECT_EQ(MapSinfoState("IDLE"), NodeState::kIdle);
  EXPECT_EQ(MapSinfoState("mixed"), NodeState::kAllocated);
  EXPECT_EQ(MapSinfoState("completing"), NodeState::kAllocated);
  EXPECT_EQ(MapSinfoState("allocated+drain"), NodeState::kDraining);
  EXPECT_EQ(MapSinfoState("idle+drain"), NodeState::kDrained);
  EXPECT_EQ(MapSinfoState("drained"), NodeState::kDrained);
  EXPECT_EQ(MapSinfoState("draining"), NodeState::kDraining);
  EXPECT_EQ(MapSinfoState("down"), NodeState::kDown);
  // Not responding, whatever the base state: never acted on.
  EXPECT_EQ(MapSinfoState("idle*"), NodeState::kDown);
  EXPECT_EQ(MapSinfoState("drained*"), NodeState::kDown);
  EXPECT_EQ(MapSinfoState("idle~"), NodeState::kUnknown);
  EXPECT_EQ(MapSinfoState("maint"), NodeState::kUnknown);
  EXPECT_EQ(MapSinfoState("a-state-of-slurm-30"), NodeState::kUnknown);
  EXPECT_EQ(MapSinfoState(""), NodeState::kUnknown);
}

TEST(SlurmOutputTest, UnknownStateIsKeptNotAnError) {
  auto nodes = ParseSinfoNodes("n1|blorped|none\nn2|idle|none\n", kCommand);
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_EQ((*nodes)[0].state, NodeState::kUnknown);
  EXPECT_EQ((*nodes)[1].state, NodeState::kIdle);
}

TEST(SlurmOutputTest, EmptyAnswerIsNoNodes) {
  auto nodes = ParseSinfoNodes("", kCommand);
  ASSERT_TRUE(nodes.ok());
  EXPECT_TRUE(nodes->empty());
}

void ExpectRefused(const std::string& output, const std::string& what) {
  auto nodes = ParseSinfoNodes(output, kCommand);
  ASSERT_FALSE(nodes.ok()) << "accepted: " << output.substr(0, 200);
  EXPECT_EQ(nodes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(nodes.status().message(), HasSubstr("slurm: `/usr/bin/sinfo"));
  EXPECT_THAT(nodes.status().message(), HasSubstr(what));
}

TEST(SlurmOutputTest, RefusesGarbageWholeNamingTheLine) {
  ExpectRefused("n1|idle|none\nsinfo: error: Unable to contact slurm controller\n",
                "line 2: expected NAME|STATE|REASON");
  ExpectRefused("<html><body>502 Bad Gateway</body></html>\n", "line 1");
  ExpectRefused("\x01\x02\xff|idle|none\n", "not a valid node name");
  ExpectRefused("n1|idle|none\nn2|idle|none\nn1|drained|x\n", "node n1 is listed twice");
  ExpectRefused("n1||none\n", "no state");
  ExpectRefused("n1;rm -rf|idle|none\n", "not a valid node name");
  ExpectRefused("NodeName=n1 State=IDLE\n", "expected NAME|STATE|REASON");
}

TEST(SlurmOutputTest, RefusesTruncatedAnswer) {
  // Cut in the middle of the last line: refused whole (nothing decided on
  // the nodes before it).
  ExpectRefused("n1|idle|none\nn2|idle|none\nn3|id", "line 3");
}

TEST(SlurmOutputTest, RefusesHugeAnswers) {
  ExpectRefused(absl::StrCat("n1|idle|", std::string(kMaxLineBytes + 1, 'x'), "\n"), "longer than");
  std::string many;
  for (size_t i = 0; i <= kMaxNodes; ++i) absl::StrAppend(&many, "n", i, "|idle|none\n");
  ExpectRefused(many, "more than 65536 lines");
}

TEST(SlurmOutputTest, ExpandsHostlists) {
  auto names = ExpandHostlist("n1,gpu[01-03,7],x[9-10]y");
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(*names, ElementsAre("n1", "gpu01", "gpu02", "gpu03", "gpu7", "x9y", "x10y"));
  EXPECT_TRUE(ExpandHostlist("").ok());
  EXPECT_TRUE(ExpandHostlist("(null)")->empty());
}

TEST(SlurmOutputTest, RefusesBadHostlists) {
  for (const char* bad : {"n[1-3", "n1-3]", "n[3-1]", "n[a-b]", "n[1-2][3-4]", "n[[1]]", "n[-1]",
                          "bad name", "n[1-99999999]"}) {
    EXPECT_FALSE(ExpandHostlist(bad).ok()) << bad;
  }
  EXPECT_FALSE(ExpandHostlist("n[1-100]", 10).ok());
  auto jobs = ParseSqueueJobs("5|j|RUNNING|n[1-\n", "squeue -h");
  ASSERT_FALSE(jobs.ok());
  EXPECT_THAT(jobs.status().message(), HasSubstr("slurm: `squeue -h` line 1"));
}

TEST(SlurmOutputTest, RefusesBadJobLines) {
  EXPECT_FALSE(ParseSqueueJobs("x|j|RUNNING|n1\n", "squeue").ok());
  EXPECT_FALSE(ParseSqueueJobs("5|RUNNING\n", "squeue").ok());
  EXPECT_FALSE(ParseSqueueJobs("5|j||n1\n", "squeue").ok());
}

TEST(SlurmOutputTest, ReadsSbatchJobId) {
  EXPECT_EQ(*ParseSbatchJobId("42\n", "sbatch"), "42");
  EXPECT_EQ(*ParseSbatchJobId("42;cluster\n", "sbatch"), "42");
  EXPECT_FALSE(ParseSbatchJobId("", "sbatch").ok());
  EXPECT_FALSE(ParseSbatchJobId("Submitted batch job 42\n", "sbatch").ok());
}

TEST(SlurmOutputTest, ValidNodeNames) {
  EXPECT_TRUE(IsValidNodeName("gpu-a01.rack3_x"));
  EXPECT_FALSE(IsValidNodeName(""));
  EXPECT_FALSE(IsValidNodeName("-n1"));
  EXPECT_FALSE(IsValidNodeName("n1 State=DOWN"));
  EXPECT_FALSE(IsValidNodeName("n=1"));
  EXPECT_FALSE(IsValidNodeName(std::string(65, 'n')));
}

}  // namespace
}  // namespace eb::scheduler::slurm
