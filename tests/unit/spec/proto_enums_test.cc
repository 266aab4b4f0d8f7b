// The wire enums convert to the data plane's and back, and the two
// vocabularies (common/spec/names.cc for the wire, common/transport/types.cc
// for the data plane) spell every value the same way.

#include "common/spec/proto_enums.h"

#include <string>

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

// Both parsers accept `word` for the same value, or reject it with the same
// message.
template <typename Wire, typename Data>
void ExpectParsersAgree(const std::string& word, const absl::StatusOr<Wire>& wire,
                        const absl::StatusOr<Data>& data) {
  ASSERT_EQ(wire.ok(), data.ok()) << "'" << word << "'";
  if (wire.ok()) {
    EXPECT_EQ(*wire, ToProto(*data)) << word;
  } else {
    EXPECT_EQ(wire.status(), data.status());
  }
}

// Every spelling either table knows, plus some that neither does. Add a word
// here when adding an alias.
TEST(ProtoEnumsTest, WireAndDataPlaneParsersAgree) {
  for (const char* word : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                           "alltoall", "sendrecv", "allreduce", "allgather", "reducescatter",
                           "bcast", "all_to_all", "send_recv", " ALLREDUCE ", "all_party", ""}) {
    ExpectParsersAgree(word, ParseCollective(word, "f"), transport::ParseCollective(word, "f"));
  }
  for (const char* word :
       {"int8",  "uint8",    "int32",    "uint32",   "int64",   "uint64",   "half",
        "float", "double",   "bfloat16", "f8e4m3",   "f8e5m2",  "char",     "int",
        "uint",  "fp16",     "float16",  "fp32",     "float32", "fp64",     "float64",
        "bf16",  "fp8_e4m3", "e4m3",     "fp8_e5m2", "e5m2",    "float128", "Float"}) {
    ExpectParsersAgree(word, ParseDataType(word, "f"), transport::ParseDataType(word, "f"));
  }
  for (const char* word : {"sum", "prod", "max", "min", "avg", "product", "mean", "xor"}) {
    ExpectParsersAgree(word, ParseReduceOp(word, "f"), transport::ParseReduceOp(word, "f"));
  }
}

}  // namespace
}  // namespace eb::spec
