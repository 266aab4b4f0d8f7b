// The wire enums convert to the data plane's and back, and the two
// vocabularies (common/spec/names.cc for the wire, common/transport/types.cc
// for the data plane) print every value the same way. Only the wire side
// parses text.

#include "common/spec/proto_enums.h"

#include "gtest/gtest.h"

namespace eb::spec {
namespace {

namespace v1 = ebnccl::v1;

TEST(ProtoEnumsTest, EveryTransportValueRoundTrips) {
  for (transport::Collective c : transport::kAllCollectives) EXPECT_EQ(*ToTransport(ToProto(c)), c);
  for (transport::DataType t : transport::kAllDataTypes) EXPECT_EQ(*ToTransport(ToProto(t)), t);
  for (transport::ReduceOp op : transport::kAllReduceOps) {
    EXPECT_EQ(*ToTransport(ToProto(op)), op);
  }
}

TEST(ProtoEnumsTest, UnspecifiedHasNoTransportValue) {
  EXPECT_EQ(ToTransport(v1::COLLECTIVE_UNSPECIFIED).status().message(), "collective: must be set");
  EXPECT_EQ(ToTransport(static_cast<v1::DataType>(99), "spec.data_type").status().message(),
            "spec.data_type: unknown enum value 99");
}

TEST(ProtoEnumsTest, WireAndDataPlaneNamesAgree) {
  for (transport::Collective c : transport::kAllCollectives) {
    EXPECT_STREQ(DisplayName(ToProto(c)), transport::Name(c));
    EXPECT_EQ(IsReducing(ToProto(c)), transport::IsReducing(c)) << transport::Name(c);
    EXPECT_EQ(IsRooted(ToProto(c)), transport::IsRooted(c)) << transport::Name(c);
  }
  for (transport::DataType t : transport::kAllDataTypes) {
    EXPECT_STREQ(DisplayName(ToProto(t)), transport::Name(t));
  }
  for (transport::ReduceOp op : transport::kAllReduceOps) {
    EXPECT_STREQ(DisplayName(ToProto(op)), transport::Name(op));
  }
}

// The wire parser reads every data-plane name as the matching wire value, so
// a name printed by a worker (transport::Name) is one ebctl accepts.
TEST(ProtoEnumsTest, WireParserReadsDataPlaneNames) {
  for (transport::Collective c : transport::kAllCollectives) {
    auto parsed = ParseCollective(transport::Name(c), "f");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, ToProto(c)) << transport::Name(c);
  }
  for (transport::DataType t : transport::kAllDataTypes) {
    auto parsed = ParseDataType(transport::Name(t), "f");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, ToProto(t)) << transport::Name(t);
  }
  for (transport::ReduceOp op : transport::kAllReduceOps) {
    auto parsed = ParseReduceOp(transport::Name(op), "f");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, ToProto(op)) << transport::Name(op);
  }
}

}  // namespace
}  // namespace eb::spec
