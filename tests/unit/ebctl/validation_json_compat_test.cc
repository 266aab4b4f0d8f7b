// The validation's words became enums (issue 28): the JSON documents and the
// stored history must not change. The golden files were written by the code
// before that change (commit 990b367) for a report that sets every field of
// ValidationReport and every value of each word (golden/README.md says how
// they were written):
//   golden/validation_report_before_enums.json  what `--json` printed
//   golden/validation_report_before_enums.hex   the bytes the history stored
// This test reads the stored bytes with today's code, and builds the same
// report with today's enums, and compares both with the golden document.
// The differences are deliberate, and listed in kDeliberateChanges.

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "common/spec/wire_upgrade.h"
#include "coordinator/ebctl/output/validation_json.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;

std::string ReadGolden(const std::string& name) {
  std::ifstream in(std::string(EB_GOLDEN_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// JSON pointer -> the value today's document has where the golden one has
// another. Each is a fix, not a drift:
//  - the spec's collective and transport were printed as protoc's names
//    ("COLLECTIVE_ALL_REDUCE"); every enum is now its display name (issue 33
//    item 2);
//  - a test's outcome was written "infrastructure failure" (the text's
//    phrase) where JSON_SCHEMA.md documents "infra_failure", the value's
//    one name now;
//  - each baseline says where its figure holds (issue 29, item 3): a
//    report stored before has neither, printed as the unknown "" and 0;
//    the spec's soak_ms and each round's soak flag are new (0, false);
//  - the nodes a scheduler holds, left out (issue 30): `skipped`, empty;
//  - why the coordinator's baselines file was not read (issue 33 item 16):
//    `baselines_error`, "";
//  - a site's Gloo figure (issue 30): each baseline's `gloo` and
//    `link_mbps` (false, 0), and the rails each node verdict covered,
//    `judged_rails` (empty: every rail when its network was judged).
nlohmann::json Expected() {
  nlohmann::json expected =
      nlohmann::json::parse(ReadGolden("validation_report_before_enums.json"));
  expected["spec"]["collective"] = "all_reduce";
  expected["spec"]["transport"] = "auto";
  expected["spec"]["soak_ms"] = 0;
  expected["skipped"] = nlohmann::json::array();
  expected["baselines_error"] = "";
  // Issue 31: fabric links, and whether a bad path is a routing collision.
  expected["links"] = nlohmann::json::array();
  for (auto& path : expected["paths"]) path["routing_collision"] = false;
  for (auto& round : expected["rounds"]) round["soak"] = false;
  for (auto& baseline : expected["baselines"]) {
    baseline["collective"] = "";
    baseline["size_bytes"] = 0;
    baseline["gloo"] = false;
    baseline["link_mbps"] = 0;
  }
  for (auto& node : expected["nodes"]) node["judged_rails"] = nlohmann::json::array();
  for (auto& node : expected["nodes"]) {
    for (auto& e : node["evidence"]) {
      if (e["outcome"] == "infrastructure failure") e["outcome"] = "infra_failure";
      if (e["outcome"] == "hardware failure") e["outcome"] = "hardware_failure";
    }
  }
  for (auto& round : expected["rounds"]) {
    for (auto& test : round["tests"]) {
      if (test["outcome"] == "infrastructure failure") test["outcome"] = "infra_failure";
      if (test["outcome"] == "hardware failure") test["outcome"] = "hardware_failure";
    }
  }
  return expected;
}

v1::ValidationReport StoredBeforeEnums() {
  const std::string hex(
      absl::StripAsciiWhitespace(ReadGolden("validation_report_before_enums.hex")));
  const std::string bytes = absl::HexStringToBytes(hex);
  v1::ValidationReport report;
  EXPECT_TRUE(report.ParseFromString(bytes));
  spec::UpgradeStringEnums(report);
  return report;
}

// The golden report, written with today's enums (the words of the program
// that wrote the golden files, one for one).
v1::ValidationReport BuiltWithEnums() {
  v1::ValidationReport r;
  r.set_schema_version(1);
  r.set_validation_id("v-20261206-120000-ab12");
  v1::ValidationSpec& spec = *r.mutable_spec();
  for (const char* node : {"a", "b", "c"}) spec.add_node_names(node);
  for (v1::Suite suite : {v1::SUITE_PREFLIGHT, v1::SUITE_INTRA, v1::SUITE_PAIRS, v1::SUITE_FLEET}) {
    spec.add_suites(suite);
  }
  spec.set_strategy("adaptive");
  spec.set_tolerance(0.1);
  spec.set_collective(v1::COLLECTIVE_ALL_REDUCE);
  spec.set_min_bytes(1048576);
  spec.set_max_bytes(33554432);
  spec.set_step_factor(2);
  spec.set_iterations(20);
  spec.set_warmup_iterations(5);
  spec.set_transport(v1::TRANSPORT_AUTO);
  spec.set_test_timeout_ms(600000);
  spec.set_launch_timeout_ms(30000);
  spec.set_init_timeout_ms(60000);
  spec.set_step_timeout_ms(120000);
  spec.set_timeout_ms(21600000);
  spec.set_baselines_toml("[x]");
  spec.set_check_iterations(1);
  r.set_state(v1::VALIDATION_STATE_DONE);
  const v1::TestKind kinds[] = {v1::TEST_KIND_INTRA, v1::TEST_KIND_PAIR, v1::TEST_KIND_FLEET};
  const v1::Outcome outcomes[] = {v1::OUTCOME_COMPLETED, v1::OUTCOME_INFRA_FAILURE,
                                  v1::OUTCOME_HARDWARE_FAILURE};
  const v1::Grade grades[] = {v1::GRADE_FINE, v1::GRADE_BORDERLINE, v1::GRADE_SLOW,
                              v1::GRADE_UNJUDGED};
  const v1::Verdict verdicts[] = {v1::VERDICT_HEALTHY, v1::VERDICT_DEGRADED, v1::VERDICT_FAILED,
                                  v1::VERDICT_UNFIT, v1::VERDICT_UNTESTABLE};
  for (int i = 0; i < 5; ++i) {
    v1::NodeVerdict& n = *r.add_nodes();
    n.set_node_name(std::string("n") + static_cast<char>('a' + i));
    n.set_verdict(verdicts[i]);
    n.set_confidence(i % 2 ? v1::CONFIDENCE_SUSPECT : v1::CONFIDENCE_CONFIRMED);
    n.set_reason("reason " + std::to_string(i));
    n.add_bad_rails(i);
    n.set_network_judged(i % 2 == 0);
    v1::ValidationEvidence& e = *n.add_evidence();
    e.set_test_id("t-" + std::to_string(i));
    e.set_round(i);
    e.set_kind(kinds[i % 3]);
    e.add_partners("b");
    e.set_rail(i - 1);
    e.set_outcome(outcomes[i % 3]);
    e.set_measured_busbw_gbps(10.5 * i);
    e.set_threshold_busbw_gbps(9);
    e.set_expected_busbw_gbps(12);
    e.set_fleet_median_busbw_gbps(11.25);
    e.set_grade(grades[i % 4]);
    e.set_text("evidence " + std::to_string(i));
  }
  v1::PathVerdict& p = *r.add_paths();
  p.set_node_a("a");
  p.set_node_b("b");
  p.set_verdict(v1::VERDICT_DEGRADED);
  p.set_confidence(v1::CONFIDENCE_SUSPECT);
  p.set_reason("slow together");
  p.add_rails(3);
  v1::ValidationEvidence& pe = *p.add_evidence();
  pe.set_kind(v1::TEST_KIND_PAIR);
  pe.set_outcome(v1::OUTCOME_COMPLETED);
  pe.set_grade(v1::GRADE_SLOW);
  v1::RailVerdict& rail = *r.add_rails();
  rail.set_node_name("c");
  rail.set_rail(3);
  rail.set_verdict(v1::VERDICT_FAILED);
  rail.set_confidence(v1::CONFIDENCE_CONFIRMED);
  rail.set_reason("rail 3");
  // The kinds the golden files were written with (tests_unjudged came later).
  for (int i = 1; i <= v1::FINDING_KIND_TOO_FEW_NODES; ++i) {
    v1::ValidationFinding& f = *r.add_findings();
    f.set_kind(static_cast<v1::FindingKind>(i));
    f.set_bad((i - 1) % 2);
    f.set_text("finding");
  }
  for (int k = 0; k < 3; ++k) {
    v1::ValidationRound& round = *r.add_rounds();
    round.set_number(k + 1);
    round.set_kind(kinds[k]);
    round.set_suite_round(1);
    round.set_start_time_unix_ms(1800000000000 + k);
    round.set_end_time_unix_ms(1800000001000 + k);
    for (int j = 0; j < 3; ++j) {
      v1::ValidationTest& t = *round.add_tests();
      t.set_test_id("t-" + std::to_string(k * 3 + j));
      t.set_planned_id(k * 3 + j + 1);
      t.add_node_names("a");
      t.add_node_names("b");
      t.set_kind(kinds[k]);
      t.set_purpose("purpose");
      if (j < 2 || k < 2) t.set_outcome(outcomes[j]);
      t.set_busbw_gbps(1.5 * j);
      t.set_message("msg");
      t.set_start_time_unix_ms(1800000000000);
      t.set_end_time_unix_ms(j == 2 ? 0 : 1800000000500);
    }
  }
  v1::BaselineUsed& b1 = *r.add_baselines();
  b1.set_suite(v1::SUITE_INTRA);
  b1.set_gpu_model("NVIDIA H200");
  b1.set_gpu_count(8);
  b1.set_busbw_gbps(370);
  b1.set_source("nccl-tests #212");
  v1::BaselineUsed& b2 = *r.add_baselines();
  b2.set_suite(v1::SUITE_PAIRS);
  b2.set_hca_rate_gbps(400);
  b2.set_busbw_gbps(46);
  b2.set_source("nccl-tests #290");
  b2.set_hca_count(1);
  r.set_baselines_origin("/etc/ebnccl/baselines.toml");
  r.set_summary(
      "5 nodes: 1 healthy, 1 degraded (nb), 1 failed (nc), 1 unfit (nd), 1 untestable (ne)");
  r.set_any_bad(true);
  r.set_start_time_unix_ms(1800000000000);
  r.set_end_time_unix_ms(1800000009000);
  r.set_started_by("alice");
  return r;
}

TEST(ValidationJsonCompatTest, AReportStoredBeforeTheEnumsPrintsAsItDidThen) {
  EXPECT_EQ(ValidationToJson(StoredBeforeEnums()).dump(2), Expected().dump(2));
}

TEST(ValidationJsonCompatTest, TheSameReportWrittenTodayPrintsTheSame) {
  EXPECT_EQ(ValidationToJson(BuiltWithEnums()).dump(2), Expected().dump(2));
}

TEST(ValidationJsonCompatTest, ReadingTheOldBytesGivesTheReportWrittenToday) {
  std::string differences;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&differences);
  EXPECT_TRUE(differ.Compare(StoredBeforeEnums(), BuiltWithEnums())) << differences;
}

}  // namespace
}  // namespace eb::ebctl
