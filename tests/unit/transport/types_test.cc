#include "common/transport/types.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::transport {
namespace {

using ::testing::HasSubstr;

TEST(TypesTest, NamesRoundTrip) {
  for (Collective c : kAllCollectives) {
    auto parsed = ParseCollective(Name(c), "collective");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, c);
  }
  for (DataType t : kAllDataTypes) {
    auto parsed = ParseDataType(Name(t), "data_type");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, t);
  }
  for (ReduceOp op : kAllReduceOps) {
    auto parsed = ParseReduceOp(Name(op), "op");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, op);
  }
}

TEST(TypesTest, NcclTestsNames) {
  EXPECT_STREQ(Name(Collective::kAllReduce), "all_reduce");
  EXPECT_STREQ(Name(Collective::kAllGather), "all_gather");
  EXPECT_STREQ(Name(Collective::kReduceScatter), "reduce_scatter");
  EXPECT_STREQ(Name(Collective::kBroadcast), "broadcast");
  EXPECT_STREQ(Name(Collective::kReduce), "reduce");
  EXPECT_STREQ(Name(Collective::kAllToAll), "alltoall");
  EXPECT_STREQ(Name(Collective::kSendRecv), "sendrecv");
  EXPECT_STREQ(Name(DataType::kHalf), "half");
  EXPECT_STREQ(Name(DataType::kBfloat16), "bfloat16");
  EXPECT_STREQ(Name(DataType::kFp8E4M3), "f8e4m3");
  EXPECT_STREQ(Name(DataType::kFp8E5M2), "f8e5m2");
  EXPECT_STREQ(Name(ReduceOp::kProd), "prod");
  EXPECT_STREQ(Name(ReduceOp::kAvg), "avg");
}

TEST(TypesTest, Aliases) {
  EXPECT_EQ(*ParseCollective("allreduce", "f"), Collective::kAllReduce);
  EXPECT_EQ(*ParseCollective("all_to_all", "f"), Collective::kAllToAll);
  EXPECT_EQ(*ParseCollective("alltoall", "f"), Collective::kAllToAll);
  EXPECT_EQ(*ParseCollective("send_recv", "f"), Collective::kSendRecv);
  EXPECT_EQ(*ParseCollective(" All_Gather ", "f"), Collective::kAllGather);
  EXPECT_EQ(*ParseDataType("fp32", "f"), DataType::kFloat);
  EXPECT_EQ(*ParseDataType("float32", "f"), DataType::kFloat);
  EXPECT_EQ(*ParseDataType("int", "f"), DataType::kInt32);
  EXPECT_EQ(*ParseDataType("fp16", "f"), DataType::kHalf);
  EXPECT_EQ(*ParseDataType("bf16", "f"), DataType::kBfloat16);
  EXPECT_EQ(*ParseDataType("fp64", "f"), DataType::kDouble);
  EXPECT_EQ(*ParseReduceOp("SUM", "f"), ReduceOp::kSum);
}

TEST(TypesTest, UnknownNamesAreInvalidArgumentListingChoices) {
  auto c = ParseCollective("foo", "collective");
  ASSERT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(c.status().message()),
            "collective: unknown collective 'foo' (expected one of: all_reduce, all_gather, "
            "reduce_scatter, broadcast, reduce, alltoall, sendrecv)");

  auto t = ParseDataType("fp128", "spec.data_type");
  ASSERT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("spec.data_type: unknown data type 'fp128' (expected one of: int8, "
                        "uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, "
                        "f8e4m3, f8e5m2)"));

  auto op = ParseReduceOp("", "op");
  ASSERT_EQ(op.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(op.status().message()), HasSubstr("sum, prod, max, min, avg"));
}

TEST(TypesTest, Predicates) {
  EXPECT_TRUE(IsReducing(Collective::kAllReduce));
  EXPECT_TRUE(IsReducing(Collective::kReduce));
  EXPECT_TRUE(IsReducing(Collective::kReduceScatter));
  EXPECT_FALSE(IsReducing(Collective::kAllGather));
  EXPECT_FALSE(IsReducing(Collective::kBroadcast));
  EXPECT_FALSE(IsReducing(Collective::kAllToAll));
  EXPECT_FALSE(IsReducing(Collective::kSendRecv));
  EXPECT_TRUE(IsRooted(Collective::kBroadcast));
  EXPECT_TRUE(IsRooted(Collective::kReduce));
  EXPECT_FALSE(IsRooted(Collective::kAllReduce));
  EXPECT_FALSE(IsRooted(Collective::kSendRecv));
}

TEST(TypesTest, DataTypeSizes) {
  EXPECT_EQ(DataTypeSize(DataType::kInt8), 1u);
  EXPECT_EQ(DataTypeSize(DataType::kFp8E5M2), 1u);
  EXPECT_EQ(DataTypeSize(DataType::kBfloat16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kFloat), 4u);
  EXPECT_EQ(DataTypeSize(DataType::kUint64), 8u);
}

}  // namespace
}  // namespace eb::transport
