// The HTML reports' pure parts (coordinator/ebctl/report): hostile data stays
// data, the page embeds exactly the `--json` documents, and the node history
// keeps the node's tests and validations only.

#include <regex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "coordinator/ebctl/output/nodes_json.h"
#include "coordinator/ebctl/output/report_json.h"
#include "coordinator/ebctl/output/validation_json.h"
#include "coordinator/ebctl/report/assets.h"
#include "coordinator/ebctl/report/fabric_data.h"
#include "coordinator/ebctl/report/html_page.h"
#include "coordinator/ebctl/report/page_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/ebctl/test_reports.h"

namespace eb::ebctl::report {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;
using ::testing::Not;

// Names an agent could register: markup, quotes, a comment opener, JS line
// terminators, non-Latin text, and bytes that are not UTF-8.
const std::vector<std::string> kHostile = {
    "</script><script>document.body.setAttribute('data-pwned','1')</script>",
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">",
    "node\"'`&amp;<!--",
    "line\xe2\x80\xa8sep\xe2\x80\xa9para",
    "n\xc5\x93ud-\xe2\x98\x83-\xe8\x8a\x82\xe7\x82\xb9",
    "bad-\xff\xfe-utf8",
};

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// The text of the page's data block.
std::string DataBlock(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"eb-data\">";
  const size_t start = page.find(open);
  EXPECT_NE(start, std::string::npos);
  const size_t end = page.find("</script>", start);
  return page.substr(start + open.size(), end - start - open.size());
}

v1::TestReport HostileTest() {
  v1::TestReport report = testing::TwoRankReport();
  report.set_test_id("t-<b>x</b>");
  report.mutable_ranks(0)->set_node_name(kHostile[0]);
  report.mutable_ranks(1)->set_node_name(kHostile[1]);
  report.mutable_failures(0)->set_message(kHostile[2] + kHostile[3]);
  report.set_summary(kHostile[4] + kHostile[5]);
  v1::NodeInventory& inventory = *report.mutable_node_inventories(0);
  inventory.set_hostname(kHostile[0]);
  inventory.add_gpus()->set_name(kHostile[1]);
  inventory.set_nccl_version("2.28.9");
  return report;
}

// Without the bytes that are not UTF-8: gRPC refuses those in a proto3
// string, so no validation report carries them.
v1::ValidationReport HostileValidation() {
  v1::ValidationReport report;
  report.set_validation_id("v-1");
  report.set_state(v1::VALIDATION_STATE_DONE);
  for (const std::string& name : std::vector<std::string>(kHostile.begin(), kHostile.end() - 1)) {
    v1::NodeVerdict& node = *report.add_nodes();
    node.set_node_name(name);
    node.set_verdict(v1::VERDICT_HEALTHY);
    node.set_reason(name);
    report.mutable_spec()->add_node_names(name);
  }
  v1::ValidationTest& test = *report.add_rounds()->add_tests();
  test.set_test_id("t-1");
  test.add_node_names(kHostile[0]);
  test.add_node_names(kHostile[1]);
  test.set_kind(v1::TEST_KIND_PAIR);
  test.set_outcome(v1::OUTCOME_COMPLETED);
  test.set_busbw_gbps(42);
  return report;
}

// Every <script> of the page is one the page opened: the data block, Chart.js
// and the page script; hostile data neither closes one nor opens another.
void ExpectOnlyThePagesScripts(const std::string& page) {
  const std::string lower = absl::AsciiStrToLower(page);
  EXPECT_EQ(Count(lower, "<script"), 3u);
  EXPECT_EQ(Count(lower, "</script"), 3u);
  EXPECT_EQ(Count(lower, "<!--"), 0u);
  EXPECT_EQ(Count(lower, "<img"), 0u);
  EXPECT_THAT(page, Not(HasSubstr("\xe2\x80\xa8")));
  EXPECT_THAT(page, Not(HasSubstr("\xe2\x80\xa9")));
}

TEST(EscapeJsonForScriptTest, EscapesWhatCouldEndTheBlockAndParsesBackTheSame) {
  const nlohmann::json value = {{"names", kHostile}, {"n", 1.5}, {"ok", true}};
  const std::string json = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string escaped = EscapeJsonForScript(json);
  EXPECT_THAT(escaped, Not(HasSubstr("<")));
  EXPECT_THAT(escaped, Not(HasSubstr(">")));
  EXPECT_THAT(escaped, Not(HasSubstr("&")));
  EXPECT_THAT(escaped, HasSubstr("\\u003c/script\\u003e"));
  EXPECT_THAT(escaped, HasSubstr("line\\u2028sep\\u2029para"));
  // Same value back (JSON.parse does what nlohmann's parse does here).
  EXPECT_EQ(nlohmann::json::parse(escaped), nlohmann::json::parse(json));
  // Non-Latin text is kept as UTF-8, not mangled.
  EXPECT_THAT(escaped, HasSubstr(kHostile[4]));
}

TEST(EscapeHtmlTest, EscapesMarkupAndQuotes) {
  EXPECT_EQ(EscapeHtml("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(EscapeHtml("plain n\xc5\x93ud"), "plain n\xc5\x93ud");
}

TEST(RenderReportHtmlTest, HostileTestReportStaysData) {
  const v1::TestReport report = HostileTest();
  const nlohmann::json data = TestPageData(report, "2026-12-02T00:00:00Z", "1.2.3");
  const std::string page = RenderReportHtml("ebnccl test " + report.test_id(), data);
  ExpectOnlyThePagesScripts(page);
  EXPECT_THAT(page, HasSubstr("<title>ebnccl test t-&lt;b&gt;x&lt;/b&gt;</title>"));
  // The block parses back to the page data, invalid UTF-8 replaced.
  const nlohmann::json back = nlohmann::json::parse(DataBlock(page));
  EXPECT_EQ(back["kind"], "test");
  EXPECT_EQ(back["report"]["devices"][0]["node"], kHostile[0]);
  EXPECT_EQ(back["report"]["devices"][1]["node"], kHostile[1]);
  EXPECT_EQ(back["report"]["summary"], kHostile[4] + "bad-\xef\xbf\xbd\xef\xbf\xbd-utf8");
  EXPECT_EQ(back["inventories"][0]["hostname"], kHostile[0]);
}

TEST(RenderReportHtmlTest, HostileValidationStaysData) {
  const nlohmann::json data =
      ValidationPageData(HostileValidation(), nullptr, "2026-12-02T00:00:00Z", "1.2.3");
  const std::string page = RenderReportHtml("ebnccl validation </title><script>", data);
  ExpectOnlyThePagesScripts(page);
  EXPECT_THAT(page, HasSubstr("<title>ebnccl validation &lt;/title&gt;&lt;script&gt;</title>"));
  const nlohmann::json back = nlohmann::json::parse(DataBlock(page));
  ASSERT_EQ(back["report"]["nodes"].size(), kHostile.size() - 1);
  for (size_t i = 0; i + 1 < kHostile.size(); ++i) {
    EXPECT_EQ(back["report"]["nodes"][i]["node_name"], kHostile[i]);
  }
}

// Issue 31: a blamed link is the page's data (a hostile switch name stays
// text), and the validation page draws it in its own table.
TEST(RenderReportHtmlTest, BlamedLinkIsDataWithItsOwnTable) {
  v1::ValidationReport report = HostileValidation();
  v1::LinkVerdict& link = *report.add_links();
  link.mutable_end_a()->set_switch_name("leaf</script><b>");
  link.mutable_end_a()->add_ports(6);
  link.mutable_end_b()->set_switch_name("spine-r3-01");
  link.set_busbw_ratio(0.5);
  const nlohmann::json data = ValidationPageData(report, nullptr, "2026-12-02T00:00:00Z", "1.2.3");
  const std::string page = RenderReportHtml("ebnccl validation", data);
  ExpectOnlyThePagesScripts(page);
  const nlohmann::json back = nlohmann::json::parse(DataBlock(page));
  EXPECT_EQ(back["report"]["links"][0]["end_a"]["switch_name"], "leaf</script><b>");
  EXPECT_EQ(back["report"]["links"][0]["busbw_ratio"], 0.5);
  EXPECT_THAT(std::string(ReportJs()), HasSubstr("section(main, 'Bad links', 'links')"));
}

TEST(RenderReportHtmlTest, InlinesChartJsAndThePagesScriptAndStyles) {
  const std::string page = RenderReportHtml("t", TestPageData(HostileTest(), "now", "1"));
  EXPECT_THAT(std::string(ChartJs()), HasSubstr("Chart.js v3"));
  EXPECT_GT(ChartJs().size(), 100'000u);
  EXPECT_THAT(page, HasSubstr(std::string(ChartJs())));
  EXPECT_THAT(page, HasSubstr(std::string(ReportJs())));
  EXPECT_THAT(page, HasSubstr(std::string(ReportCss())));
  // Nothing leaves the file: the policy forbids any fetch.
  EXPECT_THAT(page, HasSubstr("default-src 'none'"));
  // Inlined in <script>: our own script must not close it either.
  EXPECT_THAT(absl::AsciiStrToLower(std::string(ReportJs())), Not(HasSubstr("</script")));
  EXPECT_THAT(absl::AsciiStrToLower(std::string(ReportJs())), Not(HasSubstr("<script")));
  EXPECT_THAT(std::string(ReportJs()), Not(HasSubstr("<!--")));
}

TEST(PageDataTest, EmbedsExactlyTheJsonDocuments) {
  const v1::TestReport test = HostileTest();
  const nlohmann::json test_page = TestPageData(test, "now", "1.2.3");
  EXPECT_EQ(test_page["schema"], kReportPageSchema);
  EXPECT_EQ(test_page["report"], ReportToJson(test, "1.2.3"));
  EXPECT_EQ(test_page["inventories"][0]["nccl_version"], "2.28.9");

  const v1::ValidationReport validation = HostileValidation();
  v1::ListNodesReply nodes;
  nodes.add_nodes()->set_node_name("a");
  const nlohmann::json validation_page = ValidationPageData(validation, &nodes, "now", "1.2.3");
  EXPECT_EQ(validation_page["kind"], "validation");
  EXPECT_EQ(validation_page["report"], ValidationToJson(validation));
  EXPECT_EQ(validation_page["node_list"], NodesToJson(nodes));
  EXPECT_TRUE(ValidationPageData(validation, nullptr, "now")["node_list"].is_null());
}

// Issue 31: the pair matrix groups nodes by the leaf of their lowest-rail
// cable in the coordinator's topology; nothing without one loaded.
TEST(PageDataTest, FabricLeavesAreEachNodesLowestRailLeaf) {
  v1::GetTopologyReply topology;
  nlohmann::json page = ValidationPageData(HostileValidation(), nullptr, "now", "1.2.3");
  AddFabric(page, topology);
  EXPECT_FALSE(page.contains("leaf_of"));
  EXPECT_FALSE(page.contains("fabric"));
  topology.set_loaded(true);
  for (const auto& [node, rail, leaf] : std::vector<std::tuple<std::string, int, std::string>>{
           {"n1", 1, "leaf-r1-a"}, {"n1", 0, "leaf-r0-a"}, {"n2", 0, "leaf-r0-b"}}) {
    v1::TopologyCable& cable = *topology.add_cables();
    cable.set_node(node);
    cable.set_rail(rail);
    cable.set_leaf(leaf);
  }
  AddFabric(page, topology);
  EXPECT_EQ(page["leaf_of"], (nlohmann::json{{"n1", "leaf-r0-a"}, {"n2", "leaf-r0-b"}}));
}

// Issue 31: the fabric picture's data, per rail: its leaves with their
// nodes, the spines they reach, each leaf-spine link once (parallel cables
// counted) by index; a spine no leaf of the rail reaches is not on it.
TEST(PageDataTest, FabricIsEachRailsLeavesSpinesAndUplinks) {
  v1::GetTopologyReply topology;
  topology.set_loaded(true);
  for (const auto& [node, rail, leaf] :
       std::vector<std::tuple<std::string, int, std::string>>{{"n2", 0, "leaf-r0-a"},
                                                              {"n1", 0, "leaf-r0-a"},
                                                              {"n3", 0, "leaf-r0-b"},
                                                              {"n1", 1, "leaf-r1-a"}}) {
    v1::TopologyCable& cable = *topology.add_cables();
    cable.set_node(node);
    cable.set_rail(rail);
    cable.set_leaf(leaf);
  }
  for (const auto& [leaf, spine] :
       std::vector<std::pair<std::string, std::string>>{{"leaf-r0-a", "spine-1"},
                                                        {"leaf-r0-a", "spine-1"},
                                                        {"leaf-r0-a", "spine-0"},
                                                        {"leaf-r0-b", "spine-0"},
                                                        {"leaf-r1-a", "spine-r1"}}) {
    v1::TopologyUplink& uplink = *topology.add_uplinks();
    uplink.set_leaf(leaf);
    uplink.set_spine(spine);
  }
  v1::TopologySwitch& named = *topology.add_switches();
  named.set_name("spine-0");
  named.set_guid("0x7cfe900300a5a2a0");
  nlohmann::json page = ValidationPageData(HostileValidation(), nullptr, "now", "1.2.3");
  AddFabric(page, topology);
  const nlohmann::json& rails = page["fabric"]["rails"];
  ASSERT_EQ(rails.size(), 2u);
  EXPECT_EQ(rails[0], nlohmann::json::parse(R"({"rail": 0,
    "leaves": [{"name": "leaf-r0-a", "guid": "", "nodes": ["n1", "n2"]},
               {"name": "leaf-r0-b", "guid": "", "nodes": ["n3"]}],
    "spines": [{"name": "spine-0", "guid": "0x7cfe900300a5a2a0"}, {"name": "spine-1", "guid": ""}],
    "uplinks": [[0, 0, 1], [0, 1, 2], [1, 0, 1]]})"));
  EXPECT_EQ(rails[1]["spines"], nlohmann::json::parse(R"([{"name": "spine-r1", "guid": ""}])"));
  EXPECT_EQ(rails[1]["uplinks"], nlohmann::json::parse("[[0, 0, 1]]"));
}

TEST(PageDataTest, NodeHistoryKeepsTheNodesTestsAndValidationsOnly) {
  v1::ListTestsReply tests;
  v1::TestReport on_node = testing::TwoRankReport();  // ranks on host1, host2
  on_node.set_test_id("t-on");
  v1::TestReport elsewhere = on_node;
  elsewhere.set_test_id("t-elsewhere");
  for (v1::RankAssignment& rank : *elsewhere.mutable_ranks()) rank.set_node_name("other");
  elsewhere.mutable_spec()->clear_node_names();
  v1::TestReport queued;  // no rank map yet: the spec names the nodes
  queued.set_test_id("t-spec");
  queued.mutable_spec()->add_node_names(on_node.ranks(0).node_name());
  *tests.add_tests() = on_node;
  *tests.add_tests() = elsewhere;
  *tests.add_tests() = queued;

  v1::ListValidationsReply validations;
  v1::ValidationReport judged;
  judged.set_validation_id("v-judged");
  judged.add_nodes()->set_node_name(on_node.ranks(0).node_name());
  v1::ValidationReport other;
  other.set_validation_id("v-other");
  other.add_nodes()->set_node_name("other");
  *validations.add_validations() = judged;
  *validations.add_validations() = other;

  const std::string node = on_node.ranks(0).node_name();
  const nlohmann::json page = NodePageData(node, tests, validations, "now", "1.2.3");
  EXPECT_EQ(page["node"], node);
  ASSERT_EQ(page["tests"]["tests"].size(), 2u);
  EXPECT_EQ(page["tests"]["tests"][0]["test_id"], "t-on");
  EXPECT_EQ(page["tests"]["tests"][1]["test_id"], "t-spec");
  ASSERT_EQ(page["validations"]["validations"].size(), 1u);
  EXPECT_EQ(page["validations"]["validations"][0]["validation_id"], "v-judged");
  EXPECT_EQ(page["history"]["tests_listed"], 3);
  EXPECT_EQ(page["history"]["validations_listed"], 2);
  EXPECT_EQ(page["history"]["filtered_by"], "client");
}

// Issue 33 item 16: the node page names every collective of a test and
// puts each on its own busbw line; what it reads for that is in the page's
// data: config.collectives and each collective's own footer average.
TEST(PageDataTest, NodeHistoryCarriesEveryCollectiveWithItsOwnAverage) {
  v1::TestReport two = testing::TwoRankReport();
  two.mutable_spec()->set_collective(v1::COLLECTIVE_ALL_REDUCE);
  two.mutable_spec()->add_collectives(v1::COLLECTIVE_ALL_REDUCE);
  two.mutable_spec()->add_collectives(v1::COLLECTIVE_BROADCAST);
  two.set_avg_busbw_gbps(15);  // over both collectives' rows
  for (v1::Collective c : {v1::COLLECTIVE_ALL_REDUCE, v1::COLLECTIVE_BROADCAST}) {
    v1::CollectiveSummary& footer = *two.add_collective_summaries();
    footer.set_collective(c);
    footer.set_avg_busbw_gbps(c == v1::COLLECTIVE_ALL_REDUCE ? 10 : 20);
  }
  v1::ListTestsReply tests;
  *tests.add_tests() = two;
  const nlohmann::json page =
      NodePageData(two.ranks(0).node_name(), tests, v1::ListValidationsReply(), "now", "1.2.3");
  const nlohmann::json& test = page["tests"]["tests"][0];
  EXPECT_EQ(test["collective"], "all_reduce");  // nccl-tests' one: the first
  EXPECT_EQ(test["config"]["collectives"], nlohmann::json({"all_reduce", "broadcast"}));
  ASSERT_EQ(test["collectives"].size(), 2u);
  EXPECT_EQ(test["collectives"][1]["collective"], "broadcast");
  EXPECT_EQ(test["collectives"][1]["average_bus_bandwidth"]["bandwidth"], 20.0);
  // The page's helpers that read them.
  const std::string js(ReportJs());
  EXPECT_THAT(js, HasSubstr("function collectiveBandwidths(t)"));
  EXPECT_THAT(js, HasSubstr("collectiveNames(t).join(', ')"));
}

// Issue 33 item 8: "1 pairs tested of 6". Every count the page prints with
// its noun goes through R.counted (plural by the count): no script appends a
// plural noun to a length.
TEST(ReportJsTest, CountsGoThroughOnePluralHelper) {
  const std::string js(report::ReportJs());
  EXPECT_THAT(js, ::testing::HasSubstr("function counted(n, singular, plural)"));
  const std::regex plural_after_length(R"(length \+ ' [a-z]+s\b)");
  std::smatch match;
  EXPECT_FALSE(std::regex_search(js, match, plural_after_length)) << match.str();
  EXPECT_THAT(js, ::testing::HasSubstr("R.counted(keys.length, 'pair') + ' tested of '"));
}

}  // namespace
}  // namespace eb::ebctl::report
