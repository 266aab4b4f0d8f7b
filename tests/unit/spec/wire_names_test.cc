// One rule names every value of every wire enum (common/spec/wire_names.h),
// and reads the names back; and messages stored when some of those fields
// were words read back as the enums (common/spec/wire_upgrade.h).

#include "common/spec/wire_names.h"

#include "common/spec/verdicts.h"
#include "common/spec/wire_upgrade.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/control.pb.h"
#include "gmock/gmock.h"
#include "google/protobuf/unknown_field_set.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;

TEST(WireNameTest, LowerCaseWithoutTheEnumsPrefix) {
  EXPECT_EQ(WireName(v1::VERDICT_HEALTHY), "healthy");
  EXPECT_EQ(WireName(v1::TEST_STATE_TIMED_OUT), "timed_out");
  EXPECT_EQ(WireName(v1::FINDING_KIND_NO_TRUSTED_NODE), "no_trusted_node");
  EXPECT_EQ(WireName(v1::OUTCOME_INFRA_FAILURE), "infra_failure");
  EXPECT_EQ(WireName(v1::WORKER_EVENT_KIND_SIZE_DONE), "size_done");
  EXPECT_EQ(WireName(v1::TRANSPORT_GLOO), "gloo");
}

TEST(WireNameTest, TheDataPlanesWordsAreNcclTestsFromTheirRows) {
  EXPECT_EQ(WireName(v1::COLLECTIVE_ALL_TO_ALL), "alltoall");
  EXPECT_EQ(WireName(v1::COLLECTIVE_SEND_RECV), "sendrecv");
  EXPECT_EQ(WireName(v1::DATA_TYPE_FP8_E4M3), "f8e4m3");
  EXPECT_EQ(WireName(v1::REDUCE_OP_AVG), "avg");
}

TEST(WireNameTest, UnsetAndUnknownValuesSaySo) {
  EXPECT_EQ(WireName(v1::VERDICT_UNSPECIFIED), "unspecified");
  EXPECT_EQ(WireName(static_cast<v1::Verdict>(42)), "unknown(42)");
}

TEST(WireNameTest, EveryValueOfEveryEnumReadsBackAsItself) {
  for (const google::protobuf::EnumDescriptor* type :
       {v1::Verdict_descriptor(), v1::Confidence_descriptor(), v1::TestKind_descriptor(),
        v1::Outcome_descriptor(), v1::Grade_descriptor(), v1::FindingKind_descriptor(),
        v1::Suite_descriptor(), v1::TestState_descriptor(), v1::FailureKind_descriptor(),
        v1::NodeState_descriptor(), v1::ValidationState_descriptor(), v1::Collective_descriptor(),
        v1::DataType_descriptor(), v1::ReduceOp_descriptor(), v1::Transport_descriptor(),
        v1::WorkerEventKind_descriptor()}) {
    for (int i = 0; i < type->value_count(); ++i) {
      const int number = type->value(i)->number();
      if (number == 0) continue;
      absl::StatusOr<int> parsed = ParseWireName(*type, WireName(*type, number), "f");
      ASSERT_TRUE(parsed.ok()) << type->name() << " " << number << ": " << parsed.status();
      EXPECT_EQ(*parsed, number) << type->value(i)->name();
    }
  }
}

TEST(ParseWireNameTest, ForgivesCaseSpacesAndHyphensAndNamesTheField) {
  EXPECT_EQ(*ParseWireName<v1::Outcome>(" Infra-Failure ", "f"), v1::OUTCOME_INFRA_FAILURE);
  const absl::StatusOr<v1::Suite> bad = ParseWireName<v1::Suite>("pair", "--suite");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("--suite: unknown value 'pair' (expected one of: preflight, intra, pairs, "
                        "fleet)"));
  EXPECT_FALSE(ParseWireName<v1::Verdict>("unspecified", "f").ok());
}

TEST(VerdictsTest, OnlyDegradedAndFailedAreBad) {
  for (int v = 0; v <= v1::Verdict_MAX; ++v) {
    const auto verdict = static_cast<v1::Verdict>(v);
    EXPECT_EQ(IsBadVerdict(verdict),
              verdict == v1::VERDICT_DEGRADED || verdict == v1::VERDICT_FAILED)
        << WireName(verdict);
  }
}

// A message as a writer of the time wrote it: the word under the field's
// number, where the field is an enum today.
template <typename Message>
Message WithWord(int field_number, const std::string& word) {
  Message message;
  message.GetReflection()->MutableUnknownFields(&message)->AddLengthDelimited(field_number, word);
  Message parsed;
  EXPECT_TRUE(parsed.ParseFromString(message.SerializeAsString()));
  return parsed;
}

TEST(UpgradeStringEnumsTest, ASingularWordBecomesItsValue) {
  v1::NodeVerdict node = WithWord<v1::NodeVerdict>(2, "degraded");
  EXPECT_EQ(node.verdict(), v1::VERDICT_UNSPECIFIED);  // protobuf could not read it
  UpgradeStringEnums(node);
  EXPECT_EQ(node.verdict(), v1::VERDICT_DEGRADED);
  EXPECT_EQ(node.GetReflection()->GetUnknownFields(node).field_count(), 0);
}

TEST(UpgradeStringEnumsTest, TheOldOutcomePhraseAndNestedMessagesToo) {
  v1::ValidationReport report;
  *report.add_rounds()->add_tests() = WithWord<v1::ValidationTest>(6, "infrastructure failure");
  *report.add_nodes()->add_evidence() = WithWord<v1::ValidationEvidence>(11, "borderline");
  UpgradeStringEnums(report);
  EXPECT_EQ(report.rounds(0).tests(0).outcome(), v1::OUTCOME_INFRA_FAILURE);
  EXPECT_EQ(report.nodes(0).evidence(0).grade(), v1::GRADE_BORDERLINE);
}

TEST(UpgradeStringEnumsTest, AWordThatNamesNothingIsDropped) {
  v1::RailVerdict rail = WithWord<v1::RailVerdict>(3, "splendid");
  UpgradeStringEnums(rail);
  EXPECT_EQ(rail.verdict(), v1::VERDICT_UNSPECIFIED);
  EXPECT_EQ(rail.GetReflection()->GetUnknownFields(rail).field_count(), 0);
}

TEST(UpgradeStringEnumsTest, ALegacyListFillsItsEnumListOnce) {
  v1::ValidationSpec spec;
  const google::protobuf::FieldDescriptor* legacy =
      spec.GetDescriptor()->FindFieldByName("legacy_suites");
  ASSERT_NE(legacy, nullptr);
  for (const char* word : {"preflight", "pairs", "bogus"}) {
    spec.GetReflection()->AddString(&spec, legacy, word);
  }
  UpgradeStringEnums(spec);
  EXPECT_THAT(spec.suites(), ::testing::ElementsAre(v1::SUITE_PREFLIGHT, v1::SUITE_PAIRS));
  EXPECT_EQ(spec.GetReflection()->FieldSize(spec, legacy), 0);
  // A message that has the enum list already keeps it.
  spec.GetReflection()->AddString(&spec, legacy, "intra");
  UpgradeStringEnums(spec);
  EXPECT_THAT(spec.suites(), ::testing::ElementsAre(v1::SUITE_PREFLIGHT, v1::SUITE_PAIRS));
}

}  // namespace
}  // namespace eb::spec
