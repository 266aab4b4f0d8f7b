#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/validation_json.h"
#include "coordinator/ebctl/output/validation_table.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;
using ::testing::Not;

v1::ValidationReport Report(v1::ValidationState state, v1::Verdict verdict_of_c) {
  v1::ValidationReport report;
  report.set_schema_version(1);
  report.set_validation_id("v-1");
  report.set_state(state);
  report.set_start_time_unix_ms(1'800'000'000'000);
  for (const char* name : {"a", "c"}) {
    v1::NodeVerdict& node = *report.add_nodes();
    node.set_node_name(name);
    node.set_verdict(std::string(name) == "c" ? verdict_of_c : v1::VERDICT_HEALTHY);
    node.set_confidence(v1::CONFIDENCE_CONFIRMED);
    if (std::string(name) == "c") node.add_evidence()->set_text("round 2, pair with a: slow");
  }
  report.set_any_bad(verdict_of_c == v1::VERDICT_DEGRADED || verdict_of_c == v1::VERDICT_FAILED);
  v1::ValidationRound& round = *report.add_rounds();
  round.set_number(1);
  round.set_kind(v1::TEST_KIND_INTRA);
  round.set_suite_round(1);
  v1::ValidationTest& test = *round.add_tests();
  test.set_test_id("t-1");
  test.add_node_names("a");
  test.set_outcome(v1::OUTCOME_COMPLETED);
  test.set_busbw_gbps(11.5);
  report.set_summary("2 nodes");
  return report;
}

TEST(ValidationExitCodeTest, HealthyZeroBadSevenUntestableThree) {
  EXPECT_EQ(ExitCodeForValidation(Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_HEALTHY)), 0);
  EXPECT_EQ(ExitCodeForValidation(Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_DEGRADED)), 7);
  EXPECT_EQ(ExitCodeForValidation(Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_UNFIT)), 7);
  EXPECT_EQ(ExitCodeForValidation(Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_UNTESTABLE)), 3);
  // A verdict found before a cancel still says 7.
  EXPECT_EQ(ExitCodeForValidation(Report(v1::VALIDATION_STATE_CANCELLED, v1::VERDICT_FAILED)), 7);
  EXPECT_EQ(ExitCodeForValidation(Report(v1::VALIDATION_STATE_CANCELLED, v1::VERDICT_HEALTHY)),
            130);
  EXPECT_EQ(ExitCodeForValidation(Report(v1::VALIDATION_STATE_TIMED_OUT, v1::VERDICT_HEALTHY)), 4);
  EXPECT_EQ(ExitCodeForValidation(Report(v1::VALIDATION_STATE_FAILED, v1::VERDICT_HEALTHY)), 1);
  EXPECT_EQ(ExitCodeForValidation(Report(v1::VALIDATION_STATE_RUNNING, v1::VERDICT_HEALTHY)), 0);
  // A sentinel probe the scheduler took back: interrupted, not a pass.
  EXPECT_EQ(ExitCodeForValidation(Report(v1::VALIDATION_STATE_PREEMPTED, v1::VERDICT_HEALTHY)),
            130);
}

TEST(ValidationTableTest, PreemptedIsItsOwnWord) {
  EXPECT_THAT(ValidationTable(Report(v1::VALIDATION_STATE_PREEMPTED, v1::VERDICT_HEALTHY)),
              HasSubstr("validation v-1: preempted"));
}

TEST(ValidationTableTest, RowsPerNodeWithEvidenceOfTheBadOnes) {
  const std::string table =
      ValidationTable(Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_DEGRADED));
  EXPECT_THAT(table, HasSubstr("validation v-1: done"));
  EXPECT_THAT(table, HasSubstr("c                     degraded    confirmed"));
  EXPECT_THAT(table, HasSubstr("round 2, pair with a: slow"));
  EXPECT_THAT(RoundLine(Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_HEALTHY).rounds(0)),
              HasSubstr("round 1 (intra round 1): 1 test: a"));
  EXPECT_EQ(TestLine(Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_HEALTHY).rounds(0).tests(0)),
            "  t-1 a: completed, 11.5 GB/s");
  v1::ValidationRound soak;
  soak.set_number(9);
  soak.set_kind(v1::TEST_KIND_PAIR);
  soak.set_suite_round(2);
  soak.set_soak(true);
  v1::ValidationTest& t = *soak.add_tests();
  t.add_node_names("a");
  t.add_node_names("b");
  EXPECT_EQ(RoundLine(soak), "round 9 (soak repeat 2): 1 test: a+b");
  soak.add_tests()->add_node_names("c");
  EXPECT_THAT(RoundLine(soak), HasSubstr(": 2 tests: "));
}

// Issue 30: the nodes the scheduler held are listed as left out, with why.
TEST(ValidationTableTest, NodesTheSchedulerHeldAreListedAsLeftOut) {
  v1::ValidationReport report = Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_HEALTHY);
  EXPECT_THAT(ValidationTable(report), Not(HasSubstr("left out")));
  v1::SkippedNode& skipped = *report.add_skipped();
  skipped.set_node_name("n4");
  skipped.set_reason("slurm: holds a job (allocated)");
  EXPECT_THAT(ValidationTable(report),
              HasSubstr("left out (the scheduler holds them; not tested):\n"
                        "  n4: slurm: holds a job (allocated)\n"));
}

// Issue 31: a blamed fabric link, as the coordinator writes it.
v1::ValidationReport WithBadLink() {
  v1::ValidationReport report = Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_HEALTHY);
  v1::LinkVerdict& link = *report.add_links();
  link.mutable_end_a()->set_switch_name("leaf-r3-00");
  link.mutable_end_a()->set_switch_guid("0x7cfe900300a5a2a0");
  link.mutable_end_a()->add_ports(6);
  link.mutable_end_b()->set_switch_name("spine-r3-01");
  link.mutable_end_b()->add_ports(1);
  link.set_rail(3);
  link.set_verdict(v1::VERDICT_DEGRADED);
  link.set_confidence(v1::CONFIDENCE_CONFIRMED);
  link.set_busbw_ratio(0.5);
  link.set_reason("uplink leaf-r3-00 - spine-r3-01 (ports 6-1): slow in 2 pair tests");
  link.add_inseparable_from("uplink leaf-r3-01 - spine-r3-01 (ports 6-2)");
  v1::ValidationEvidence& e = *link.add_evidence();
  e.set_test_id("t-7");
  e.set_rail(3);
  e.set_text("round 1 pair with a, c: slow rails: 3");
  report.set_any_bad(true);  // the core's AnyBad counts links
  return report;
}

TEST(ValidationTableTest, BadLinksShowBothEndsTheRatioAndTheEvidence) {
  const std::string table = ValidationTable(WithBadLink());
  EXPECT_THAT(table, HasSubstr("bad links:\n"));
  EXPECT_THAT(table, HasSubstr("leaf-r3-00 (0x7cfe900300a5a2a0) port 6 <-> spine-r3-01 port 1 "
                               "(rail 3): degraded (confirmed), 50% of expected"));
  EXPECT_THAT(table, HasSubstr("or (no pair test can tell them apart): uplink leaf-r3-01"));
  EXPECT_THAT(table, HasSubstr("round 1 pair with a, c: slow rails: 3"));
  EXPECT_THAT(ValidationTable(Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_HEALTHY)),
              Not(HasSubstr("bad links")));
}

TEST(ValidationJsonTest, LinksCarryTheirEndsRatioAndEvidenceAndExitSeven) {
  const nlohmann::json doc = ValidationToJson(WithBadLink());
  EXPECT_EQ(doc["exit_code"], 7);
  const nlohmann::json& link = doc["links"][0];
  EXPECT_EQ(link["end_a"]["switch_name"], "leaf-r3-00");
  EXPECT_EQ(link["end_a"]["switch_guid"], "0x7cfe900300a5a2a0");
  EXPECT_EQ(link["end_a"]["ports"], nlohmann::json::array({6}));
  EXPECT_EQ(link["end_b"]["switch_name"], "spine-r3-01");
  EXPECT_EQ(link["end_b"]["node_name"], "");
  EXPECT_EQ(link["rail"], 3);
  EXPECT_EQ(link["verdict"], "degraded");
  EXPECT_EQ(link["confidence"], "confirmed");
  EXPECT_EQ(link["busbw_ratio"], 0.5);
  EXPECT_EQ(link["inseparable_from"].size(), 1u);
  EXPECT_EQ(link["evidence"][0]["test_id"], "t-7");
  EXPECT_EQ(ValidationToJson(Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_HEALTHY))["links"],
            nlohmann::json::array());
}

TEST(ValidationJsonTest, SchemaStateWordsAndNumbers) {
  const nlohmann::json doc =
      ValidationToJson(Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_DEGRADED));
  EXPECT_EQ(doc["schema"], "ebnccl.validation_report");
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["state"], "done");
  EXPECT_EQ(doc["exit_code"], 7);
  EXPECT_EQ(doc["start_time_unix_ms"], 1'800'000'000'000);  // a number, not a string
  EXPECT_EQ(doc["nodes"][1]["verdict"], "degraded");
  EXPECT_EQ(doc["rounds"][0]["tests"][0]["busbw_gbps"], 11.5);
  EXPECT_EQ(doc["end_time_unix_ms"], 0);  // zero values are printed

  v1::ListValidationsReply reply;
  *reply.add_validations() = Report(v1::VALIDATION_STATE_CANCELLED, v1::VERDICT_HEALTHY);
  const nlohmann::json list = ValidationListToJson(reply);
  EXPECT_EQ(list["schema"], "ebnccl.validation_list");
  EXPECT_EQ(list["validations"][0]["state"], "cancelled");
  EXPECT_EQ(ValidationListToJson(v1::ListValidationsReply())["validations"],
            nlohmann::json::array());
}

// Issue 33 item 8: the CONFIDENCE header was one character wider than its
// column, so every value and reason sat one left of its header; "1 round".
TEST(ValidationTableTest, EveryColumnStartsUnderItsHeader) {
  v1::ValidationReport report = Report(v1::VALIDATION_STATE_DONE, v1::VERDICT_UNTESTABLE);
  report.mutable_nodes(1)->set_reason("no pair test completed");
  const std::string table = ValidationTable(report);
  const size_t header = table.find("NODE");
  const std::string header_line = table.substr(header, table.find('\n', header) - header);
  const size_t row = table.find("\nc ") + 1;
  const std::string row_line = table.substr(row, table.find('\n', row) - row);
  EXPECT_EQ(row_line.find("untestable"), header_line.find("VERDICT"));
  EXPECT_EQ(row_line.find("confirmed"), header_line.find("CONFIDENCE"));
  EXPECT_EQ(row_line.find("no pair test"), header_line.find("REASON"));
  EXPECT_THAT(table, HasSubstr("\n1 round; 2 nodes"));
}

}  // namespace
}  // namespace eb::ebctl
