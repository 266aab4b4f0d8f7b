// The wire enums convert to the data plane's and back through the one
// table per vocabulary (common/transport/collectives.h, data_types.h,
// reduce_ops.h): every wire value has exactly one row, whose name matches
// the wire value's, and both sides print every value the same way. Only the
// wire side parses text.

#include "common/spec/proto_enums.h"

#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
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

// "COLLECTIVE_ALL_TO_ALL" and "all_to_all" both read "alltoall".
std::string Folded(std::string text) {
  return absl::AsciiStrToLower(absl::StrReplaceAll(text, {{"_", ""}}));
}

// A wire value added to common.proto without a row (or a row whose wire
// number is another value's) fails here, naming it.
template <typename Value, size_t N>
void ExpectOneRowPerWireValue(const google::protobuf::EnumDescriptor* wire_enum,
                              const Value (&values)[N], const std::string& prefix) {
  std::set<int> rows;
  for (Value value : values) {
    const auto row = transport::Row(value);
    EXPECT_TRUE(rows.insert(row.wire).second) << row.name << ": wire " << row.wire << " twice";
    const google::protobuf::EnumValueDescriptor* wire = wire_enum->FindValueByNumber(row.wire);
    ASSERT_NE(wire, nullptr) << row.name << ": no wire value " << row.wire;
    std::set<std::string> spellings = {Folded(row.name)};
    for (absl::string_view alias : absl::StrSplit(row.aliases, ',', absl::SkipEmpty())) {
      spellings.insert(Folded(std::string(alias)));
    }
    EXPECT_TRUE(spellings.count(Folded(wire->name().substr(prefix.size()))) > 0)
        << row.name << " is wire " << wire->name();
  }
  for (int i = 0; i < wire_enum->value_count(); ++i) {
    const google::protobuf::EnumValueDescriptor* wire = wire_enum->value(i);
    if (wire->number() == 0) continue;
    EXPECT_TRUE(rows.count(wire->number()) > 0) << wire->name() << " has no row";
  }
}

TEST(ProtoEnumsTest, EveryWireValueHasExactlyOneRow) {
  ExpectOneRowPerWireValue(v1::Collective_descriptor(), transport::kAllCollectives, "COLLECTIVE_");
  ExpectOneRowPerWireValue(v1::DataType_descriptor(), transport::kAllDataTypes, "DATA_TYPE_");
  ExpectOneRowPerWireValue(v1::ReduceOp_descriptor(), transport::kAllReduceOps, "REDUCE_OP_");
}

}  // namespace
}  // namespace eb::spec
