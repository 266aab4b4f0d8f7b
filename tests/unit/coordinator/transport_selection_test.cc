#include "coordinator/core/collective_tests/transport_selection.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/coordinator_test_util.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using test::IsOk;
using test::SmallSweepSpec;
using test::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

v1::NodeInventory Inventory(int gpus, const std::vector<v1::Transport>& transports,
                            const std::string& nccl_version = "") {
  v1::NodeInventory inventory;
  inventory.set_worker_slots(gpus > 0 ? gpus : 4);
  for (int i = 0; i < gpus; ++i) inventory.add_gpus()->set_index(i);
  for (v1::Transport transport : transports) inventory.add_transports(transport);
  inventory.set_nccl_version(nccl_version);
  return inventory;
}

v1::NodeInventory GpuNode(const std::string& nccl_version = "2.28.9") {
  return Inventory(8, {v1::TRANSPORT_GLOO, v1::TRANSPORT_NCCL}, nccl_version);
}

v1::NodeInventory CpuNode() { return Inventory(0, {v1::TRANSPORT_GLOO}); }

const std::vector<std::string> kThreeNodes = {"node-a", "node-b", "node-c"};

TEST(TransportSelectionTest, AutoPicksNcclWhenEveryNodeOffersItAndHasGpus) {
  EXPECT_EQ(SelectTransport(v1::TRANSPORT_AUTO, kThreeNodes, {GpuNode(), GpuNode(), GpuNode()})
                .value_or(v1::TRANSPORT_UNSPECIFIED),
            v1::TRANSPORT_NCCL);
}

TEST(TransportSelectionTest, UnspecifiedActsLikeAuto) {
  EXPECT_EQ(
      SelectTransport(v1::TRANSPORT_UNSPECIFIED, kThreeNodes, {GpuNode(), GpuNode(), GpuNode()})
          .value_or(v1::TRANSPORT_UNSPECIFIED),
      v1::TRANSPORT_NCCL);
  EXPECT_EQ(
      SelectTransport(v1::TRANSPORT_UNSPECIFIED, kThreeNodes, {GpuNode(), CpuNode(), GpuNode()})
          .value_or(v1::TRANSPORT_UNSPECIFIED),
      v1::TRANSPORT_GLOO);
}

TEST(TransportSelectionTest, AutoFallsBackToGlooWhenANodeLacksNccl) {
  EXPECT_EQ(SelectTransport(v1::TRANSPORT_AUTO, kThreeNodes, {GpuNode(), CpuNode(), GpuNode()})
                .value_or(v1::TRANSPORT_UNSPECIFIED),
            v1::TRANSPORT_GLOO);
}

TEST(TransportSelectionTest, AutoFallsBackToGlooWhenANodeOffersNcclWithoutGpus) {
  const v1::NodeInventory no_gpus =
      Inventory(0, {v1::TRANSPORT_GLOO, v1::TRANSPORT_NCCL}, "2.28.9");
  EXPECT_EQ(SelectTransport(v1::TRANSPORT_AUTO, kThreeNodes, {GpuNode(), GpuNode(), no_gpus})
                .value_or(v1::TRANSPORT_UNSPECIFIED),
            v1::TRANSPORT_GLOO);
}

TEST(TransportSelectionTest, ExplicitGlooMissingOnANodeNamesIt) {
  const v1::NodeInventory nccl_only = Inventory(8, {v1::TRANSPORT_NCCL}, "2.28.9");
  EXPECT_THAT(SelectTransport(v1::TRANSPORT_GLOO, kThreeNodes, {GpuNode(), nccl_only, CpuNode()}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(StartsWith("transport: "), HasSubstr("node node-b"), HasSubstr("gloo"),
                             Not(HasSubstr("node-a")), Not(HasSubstr("node-c")))));
}

TEST(TransportSelectionTest, ExplicitNcclMissingOnANodeNamesIt) {
  EXPECT_THAT(SelectTransport(v1::TRANSPORT_NCCL, kThreeNodes, {GpuNode(), GpuNode(), CpuNode()}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(StartsWith("transport: "), HasSubstr("node node-c"), HasSubstr("nccl"),
                             Not(HasSubstr("node-a")), Not(HasSubstr("node-b")))));
}

TEST(TransportSelectionTest, AutoFallbackToGlooStillNeedsGlooEverywhere) {
  const v1::NodeInventory nccl_only = Inventory(8, {v1::TRANSPORT_NCCL}, "2.28.9");
  EXPECT_THAT(SelectTransport(v1::TRANSPORT_AUTO, kThreeNodes, {nccl_only, CpuNode(), CpuNode()}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("node node-a")));
}

TEST(TransportSelectionTest, DifferentNcclVersionsNameBothNodes) {
  EXPECT_THAT(SelectTransport(v1::TRANSPORT_AUTO, kThreeNodes,
                              {GpuNode("2.28.9"), GpuNode("2.28.9"), GpuNode("2.27.3")}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(StartsWith("transport: "), HasSubstr("node node-a has 2.28.9"),
                             HasSubstr("node node-c has 2.27.3"))));
}

TEST(TransportSelectionTest, DifferentNcclVersionsDoNotMatterForGloo) {
  EXPECT_EQ(SelectTransport(v1::TRANSPORT_GLOO, kThreeNodes,
                            {GpuNode("2.28.9"), GpuNode("2.27.3"), GpuNode("2.26.0")})
                .value_or(v1::TRANSPORT_UNSPECIFIED),
            v1::TRANSPORT_GLOO);
}

class CheckSupportedOnGlooTest : public ::testing::TestWithParam<v1::DataType> {};

TEST_P(CheckSupportedOnGlooTest, RefusesTypesGlooCannotRun) {
  v1::TestSpec spec = SmallSweepSpec();
  spec.set_data_type(GetParam());
  spec.set_reduce_op(v1::REDUCE_OP_SUM);
  EXPECT_THAT(CheckSupported(v1::TRANSPORT_GLOO, spec),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(StartsWith("data_type: "), HasSubstr("gloo"))));
  EXPECT_THAT(CheckSupported(v1::TRANSPORT_NCCL, spec), IsOk());
}

INSTANTIATE_TEST_SUITE_P(LowPrecision, CheckSupportedOnGlooTest,
                         ::testing::Values(v1::DATA_TYPE_HALF, v1::DATA_TYPE_BFLOAT16,
                                           v1::DATA_TYPE_FP8_E4M3, v1::DATA_TYPE_FP8_E5M2));

TEST(CheckSupportedTest, GlooRefusesAvg) {
  v1::TestSpec spec = SmallSweepSpec();
  spec.set_data_type(v1::DATA_TYPE_FLOAT);
  spec.set_reduce_op(v1::REDUCE_OP_AVG);
  EXPECT_THAT(CheckSupported(v1::TRANSPORT_GLOO, spec),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("reduce_op: ")));
  EXPECT_THAT(CheckSupported(v1::TRANSPORT_NCCL, spec), IsOk());
}

TEST(CheckSupportedTest, GlooRunsFullPrecisionTypesAndOtherOps) {
  v1::TestSpec spec = SmallSweepSpec();
  for (v1::DataType type :
       {v1::DATA_TYPE_INT8, v1::DATA_TYPE_UINT8, v1::DATA_TYPE_INT32, v1::DATA_TYPE_UINT32,
        v1::DATA_TYPE_INT64, v1::DATA_TYPE_UINT64, v1::DATA_TYPE_FLOAT, v1::DATA_TYPE_DOUBLE}) {
    for (v1::ReduceOp op :
         {v1::REDUCE_OP_SUM, v1::REDUCE_OP_PROD, v1::REDUCE_OP_MAX, v1::REDUCE_OP_MIN}) {
      spec.set_data_type(type);
      spec.set_reduce_op(op);
      EXPECT_THAT(CheckSupported(v1::TRANSPORT_GLOO, spec), IsOk())
          << v1::DataType_Name(type) << " " << v1::ReduceOp_Name(op);
    }
  }
}

}  // namespace
}  // namespace eb::coordinator
