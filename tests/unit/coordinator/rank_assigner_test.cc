#include "coordinator/core/collective_tests/rank_assigner.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/coordinator_test_util.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using test::IsOk;
using test::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(RankAssignerTest, RanksAreContiguousPerNode) {
  const std::vector<PlacementNode> nodes = {{"node-a", 4}, {"node-b", 4}, {"node-c", 4}};
  const auto ranks = AssignRanks(nodes, /*workers_per_node=*/0, /*uses_devices=*/true);
  ASSERT_THAT(ranks, IsOk());
  ASSERT_EQ(ranks->size(), 12u);
  for (int i = 0; i < 12; ++i) {
    const v1::RankAssignment& rank = (*ranks)[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(rank.rank(), i);
    EXPECT_EQ(rank.world_size(), 12);
    EXPECT_EQ(rank.node_index(), i / 4);
    EXPECT_EQ(rank.node_name(), nodes[i / 4].name);
    EXPECT_EQ(rank.local_rank(), i % 4);
    EXPECT_EQ(rank.rank(), rank.node_index() * 4 + rank.local_rank());
    EXPECT_EQ(rank.device_index(), rank.local_rank());
  }
}

TEST(RankAssignerTest, CpuTransportsGetNoDevice) {
  const auto ranks = AssignRanks({{"node-a", 2}, {"node-b", 2}}, 0, /*uses_devices=*/false);
  ASSERT_THAT(ranks, IsOk());
  ASSERT_EQ(ranks->size(), 4u);
  for (const v1::RankAssignment& rank : *ranks) EXPECT_EQ(rank.device_index(), -1);
}

TEST(RankAssignerTest, WorkersPerNodeAllowsUnequalSlotCounts) {
  const auto ranks = AssignRanks({{"node-a", 8}, {"node-b", 4}}, /*workers_per_node=*/2, true);
  ASSERT_THAT(ranks, IsOk());
  ASSERT_EQ(ranks->size(), 4u);
  const std::vector<std::pair<std::string, int>> expected = {
      {"node-a", 0}, {"node-a", 1}, {"node-b", 0}, {"node-b", 1}};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ((*ranks)[i].rank(), i);
    EXPECT_EQ((*ranks)[i].world_size(), 4);
    EXPECT_EQ((*ranks)[i].node_name(), expected[i].first);
    EXPECT_EQ((*ranks)[i].local_rank(), expected[i].second);
    EXPECT_EQ((*ranks)[i].device_index(), expected[i].second);
  }
}

TEST(RankAssignerTest, UnequalSlotCountsWithoutWorkersPerNodeNameTheNodes) {
  EXPECT_THAT(AssignRanks({{"node-a", 8}, {"node-b", 4}}, 0, true),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(StartsWith("workers_per_node: "), HasSubstr("node-a: 8"),
                             HasSubstr("node-b: 4"))));
}

TEST(RankAssignerTest, TooFewSlotsIsResourceExhaustedNamingTheNode) {
  EXPECT_THAT(AssignRanks({{"node-a", 4}, {"node-b", 2}, {"node-c", 4}}, 3, true),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       AllOf(HasSubstr("workers_per_node: node node-b has 2 worker slots"),
                             HasSubstr("asks for 3 per node"), Not(HasSubstr("node-a")),
                             Not(HasSubstr("node-c")))));
}

TEST(RankAssignerTest, NodesWithoutSlotsAreResourceExhausted) {
  EXPECT_THAT(AssignRanks({{"node-a", 0}, {"node-b", 0}}, 0, false),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("node-a")));
}

TEST(RankAssignerTest, NoNodesIsInvalidArgument) {
  EXPECT_THAT(AssignRanks({}, 0, true),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("node_names: ")));
}

TEST(RankAssignerTest, NegativeWorkersPerNodeIsInvalidArgument) {
  EXPECT_THAT(AssignRanks({{"node-a", 4}}, -1, true),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("workers_per_node: ")));
}

}  // namespace
}  // namespace eb::coordinator
