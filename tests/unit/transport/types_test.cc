#include "common/transport/types.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace eb::transport {
namespace {

// Every value has its own name (text is parsed on the wire side only:
// common/spec/names.h).
TEST(TypesTest, EveryValueHasADistinctName) {
  std::set<std::string> collectives;
  for (Collective c : kAllCollectives) {
    EXPECT_STRNE(Name(c), "unknown");
    EXPECT_TRUE(collectives.insert(Name(c)).second) << Name(c);
  }
  std::set<std::string> types;
  for (DataType t : kAllDataTypes) {
    EXPECT_STRNE(Name(t), "unknown");
    EXPECT_TRUE(types.insert(Name(t)).second) << Name(t);
  }
  std::set<std::string> ops;
  for (ReduceOp op : kAllReduceOps) {
    EXPECT_STRNE(Name(op), "unknown");
    EXPECT_TRUE(ops.insert(Name(op)).second) << Name(op);
  }
}

TEST(TypesTest, ValueOutsideTheEnumIsUnknown) {
  EXPECT_STREQ(Name(static_cast<Collective>(99)), "unknown");
  EXPECT_STREQ(Name(static_cast<DataType>(99)), "unknown");
  EXPECT_STREQ(Name(static_cast<ReduceOp>(99)), "unknown");
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
