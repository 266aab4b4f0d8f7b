#include "common/spec/names.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;

TEST(NamesTest, EveryValueRoundTrips) {
  for (int i = v1::Collective_MIN + 1; i <= v1::Collective_MAX; ++i) {
    const auto value = static_cast<v1::Collective>(i);
    auto parsed = ParseCollective(DisplayName(value), "collective");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, value);
  }
  for (int i = v1::DataType_MIN + 1; i <= v1::DataType_MAX; ++i) {
    const auto value = static_cast<v1::DataType>(i);
    auto parsed = ParseDataType(DisplayName(value), "data_type");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, value);
  }
  for (int i = v1::ReduceOp_MIN + 1; i <= v1::ReduceOp_MAX; ++i) {
    const auto value = static_cast<v1::ReduceOp>(i);
    auto parsed = ParseReduceOp(DisplayName(value), "reduce_op");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, value);
  }
}

TEST(NamesTest, NcclTestsNames) {
  EXPECT_STREQ(DisplayName(v1::COLLECTIVE_ALL_REDUCE), "all_reduce");
  EXPECT_STREQ(DisplayName(v1::COLLECTIVE_ALL_TO_ALL), "alltoall");
  EXPECT_STREQ(DisplayName(v1::COLLECTIVE_SEND_RECV), "sendrecv");
  EXPECT_STREQ(DisplayName(v1::DATA_TYPE_FLOAT), "float");
  EXPECT_STREQ(DisplayName(v1::DATA_TYPE_FP8_E4M3), "f8e4m3");
  EXPECT_STREQ(DisplayName(v1::REDUCE_OP_AVG), "avg");
  EXPECT_STREQ(DisplayName(v1::TRANSPORT_AUTO), "auto");
  EXPECT_STREQ(DisplayName(v1::TRANSPORT_GLOO), "gloo");
  EXPECT_STREQ(DisplayName(v1::TRANSPORT_NCCL), "nccl");
}

TEST(NamesTest, UnspecifiedAndUnknownValues) {
  EXPECT_STREQ(DisplayName(v1::COLLECTIVE_UNSPECIFIED), "unspecified");
  EXPECT_STREQ(DisplayName(v1::DATA_TYPE_UNSPECIFIED), "unspecified");
  EXPECT_STREQ(DisplayName(v1::REDUCE_OP_UNSPECIFIED), "unspecified");
  EXPECT_STREQ(DisplayName(v1::TRANSPORT_UNSPECIFIED), "unspecified");
  EXPECT_STREQ(DisplayName(static_cast<v1::Collective>(99)), "unspecified");
}

TEST(NamesTest, Aliases) {
  EXPECT_EQ(*ParseCollective("allreduce", "f"), v1::COLLECTIVE_ALL_REDUCE);
  EXPECT_EQ(*ParseCollective("all_to_all", "f"), v1::COLLECTIVE_ALL_TO_ALL);
  EXPECT_EQ(*ParseCollective(" All_Gather ", "f"), v1::COLLECTIVE_ALL_GATHER);
  EXPECT_EQ(*ParseDataType("fp32", "f"), v1::DATA_TYPE_FLOAT);
  EXPECT_EQ(*ParseDataType("int", "f"), v1::DATA_TYPE_INT32);
  EXPECT_EQ(*ParseDataType("bf16", "f"), v1::DATA_TYPE_BFLOAT16);
  EXPECT_EQ(*ParseReduceOp("SUM", "f"), v1::REDUCE_OP_SUM);
  EXPECT_EQ(*ParseReduceOp("mean", "f"), v1::REDUCE_OP_AVG);
}

TEST(NamesTest, UnknownNameIsAnInvalidArgumentNamingTheFieldAndTheChoices) {
  auto collective = ParseCollective("all_party", "--collective");
  EXPECT_EQ(collective.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(collective.status().message(),
            "--collective: unknown collective 'all_party' (expected one of: all_reduce, "
            "all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv)");
  EXPECT_THAT(std::string(ParseDataType("float128", "-d").status().message()),
              HasSubstr("-d: unknown data type 'float128'"));
  EXPECT_THAT(std::string(ParseReduceOp("xor", "-o").status().message()),
              HasSubstr("-o: unknown reduction op 'xor'"));
  EXPECT_FALSE(ParseCollective("unspecified", "f").ok());
  EXPECT_FALSE(ParseCollective("", "f").ok());
}

TEST(NamesTest, ReducingAndRootedCollectives) {
  EXPECT_TRUE(IsReducing(v1::COLLECTIVE_ALL_REDUCE));
  EXPECT_TRUE(IsReducing(v1::COLLECTIVE_REDUCE));
  EXPECT_TRUE(IsReducing(v1::COLLECTIVE_REDUCE_SCATTER));
  EXPECT_FALSE(IsReducing(v1::COLLECTIVE_ALL_GATHER));
  EXPECT_FALSE(IsReducing(v1::COLLECTIVE_UNSPECIFIED));
  EXPECT_TRUE(IsRooted(v1::COLLECTIVE_BROADCAST));
  EXPECT_TRUE(IsRooted(v1::COLLECTIVE_REDUCE));
  EXPECT_FALSE(IsRooted(v1::COLLECTIVE_ALL_REDUCE));
  EXPECT_FALSE(IsRooted(v1::COLLECTIVE_UNSPECIFIED));
}

}  // namespace
}  // namespace eb::spec
