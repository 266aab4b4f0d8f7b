// `ebctl report` pages opened in headless Chromium (issue 13): a single test
// over Gloo, a validation of a small fleet and a node's history (the real
// coordinator, agents, workers and ebctl on loopback), then validations of
// 16 nodes (hostile names among them) and 1,000 nodes built in memory
// (html_report_test_fleet.h) and rendered by the same library ebctl uses,
// and the fabric picture of validations over a topology (issue 31).
// Each page must draw without a JavaScript error or console message, with
// the charts, points and heatmap cells its data calls for. With
// EB_REPORT_SCREENSHOT_DIR set, it also leaves a screenshot of each there
// (docs/images is made that way); without, none is taken: each is one more
// Chromium start, a third of the test's time, and the DOM checks above are
// what decides.
//
// Skipped when Chromium is not installed (Debian: apt-get install chromium;
// EB_CHROMIUM names another binary).

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/process/posix_process_launcher.h"
#include "common/spec/wire_names.h"
#include "coordinator/ebctl/report/fabric_data.h"
#include "coordinator/ebctl/report/html_page.h"
#include "coordinator/ebctl/report/page_data.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/html_report_test_fleet.h"
#include "tests/testutil/cli_json.h"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

namespace v1 = ebnccl::v1;

std::string ChromiumPath() {
  const char* env = std::getenv("EB_CHROMIUM");
  const std::string path = env != nullptr && *env != '\0' ? env : "/usr/bin/chromium";
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

#define SKIP_WITHOUT_CHROMIUM()                                                               \
  if (ChromiumPath().empty()) {                                                               \
    GTEST_SKIP() << "chromium not installed (apt-get install chromium, or set EB_CHROMIUM): " \
                    "the HTML reports are not opened in a browser";                           \
  }

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// What the page wrote on #eb-status once it had drawn itself.
struct PageStatus {
  std::map<std::string, std::string> attributes;  // data-* without the prefix
  nlohmann::json detail;    // {errors: [...], charts: [{id, series, points, legend: [...]}]}
  std::string dom;          // the DOM as the scripts left it (--dump-dom)
  std::string browser_log;  // Chromium's stderr (console messages)
  absl::Duration wall;      // Chromium's start to exit
  int Int(const std::string& key) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? -1 : std::atoi(it->second.c_str());
  }
  // The legend's entries of the chart `id`.
  std::vector<std::string> Legend(const std::string& id) const {
    for (const nlohmann::json& chart : detail.value("charts", nlohmann::json::array())) {
      if (chart.value("id", "") == id) {
        return chart.value("legend", std::vector<std::string>());
      }
    }
    return {};
  }
  // {series, points} of the chart `id`, or {-1, -1}.
  std::pair<int, int> Chart(const std::string& id) const {
    for (const nlohmann::json& chart : detail.value("charts", nlohmann::json::array())) {
      if (chart.value("id", "") == id)
        return {chart.value("series", -1), chart.value("points", -1)};
    }
    return {-1, -1};
  }
};

class Browser {
 public:
  explicit Browser(std::string work_dir) : work_dir_(std::move(work_dir)) {
    auto launcher = common::PosixProcessLauncher::Create();
    EXPECT_TRUE(launcher.ok()) << launcher.status();
    if (launcher.ok()) launcher_ = *std::move(launcher);
  }

  // Runs headless Chromium on `page` with `args` and returns its stdout and
  // stderr (one file) and how long it took; kills it after 120 s.
  std::string Run(const std::string& page, std::vector<std::string> args, absl::Duration* wall,
                  const std::string& fragment = "") {
    const std::string log = absl::StrCat(work_dir_, "/chromium-", ++runs_, ".log");
    common::ProcessSpec spec;
    spec.executable = ChromiumPath();
    spec.argv = {spec.executable,
                 "--headless",
                 "--disable-gpu",
                 "--no-sandbox",
                 "--hide-scrollbars",
                 "--enable-logging=stderr",
                 "--v=0",
                 absl::StrCat("--user-data-dir=", work_dir_, "/chromium-profile")};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.argv.push_back("file://" + page + fragment);
    spec.env = {"HOME=" + work_dir_, "PATH=/usr/bin:/bin", "LANG=C.UTF-8"};
    spec.log_path = log;
    auto done = std::make_shared<absl::Notification>();
    const absl::Time start = absl::Now();
    auto child = launcher_->Spawn(spec, [done](const common::ExitInfo&) { done->Notify(); });
    EXPECT_TRUE(child.ok()) << child.status();
    if (!child.ok()) return "";
    if (!done->WaitForNotificationWithTimeout(absl::Seconds(120))) {
      ADD_FAILURE() << "chromium did not finish within 120 s on " << page;
      (void)launcher_->SignalGroup(*child, SIGKILL);
      done->WaitForNotification();
    }
    if (wall != nullptr) *wall = absl::Now() - start;
    return ReadFile(log);
  }

  // Opens `page`, dumps its DOM after the scripts ran, and reads #eb-status.
  // `self_test`: a validation page also works its own controls (sort,
  // filter, evidence, jump to a test, zoom; report_main.js) and says how
  // that went in data-selftest.
  PageStatus Open(const std::string& page, bool self_test = false) {
    PageStatus status;
    const std::string out =
        Run(page, {"--dump-dom"}, &status.wall, self_test ? "#eb-selftest" : "");
    status.dom = out;
    const size_t at = out.find("<div id=\"eb-status\"");
    EXPECT_NE(at, std::string::npos) << "no status element in the DOM of " << page;
    if (at == std::string::npos) return status;
    const size_t tag_end = out.find('>', at);
    const std::string tag = out.substr(at, tag_end - at);
    for (size_t p = tag.find(" data-"); p != std::string::npos; p = tag.find(" data-", p + 1)) {
      const size_t eq = tag.find("=\"", p);
      const size_t close = tag.find('"', eq + 2);
      status.attributes[tag.substr(p + 6, eq - p - 6)] = tag.substr(eq + 2, close - eq - 2);
    }
    std::string text = out.substr(tag_end + 1, out.find("</div>", tag_end) - tag_end - 1);
    text = absl::StrReplaceAll(text, {{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}});
    status.detail = nlohmann::json::parse(text, nullptr, false);
    // The <body> as the scripts left it: hostile data must not have run.
    const size_t body = out.find("<body");
    status.attributes["body-tag"] = out.substr(body, out.find('>', body) - body);
    // Console messages are logged as "...:CONSOLE(line)] ..." (--enable-logging).
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      if (absl::StrContains(line, ":CONSOLE(") || absl::StrContains(line, "Uncaught") ||
          absl::StrContains(line, "Content Security Policy")) {
        status.browser_log += line + "\n";
      }
    }
    return status;
  }

  // Saves a screenshot of the page's first `height` pixels as `name`.png.
  // Does nothing unless EB_REPORT_SCREENSHOT_DIR names the directory.
  // `fragment` "#eb-section-<id>": that section only (report_main.js).
  void Screenshot(const std::string& page, const std::string& name, int height,
                  const std::string& fragment = "") {
    const char* env = std::getenv("EB_REPORT_SCREENSHOT_DIR");
    if (env == nullptr || *env == '\0') return;
    const std::string dir = env;
    const std::string png = absl::StrCat(dir, "/", name, ".png");
    Run(page, {absl::StrCat("--window-size=1200,", height), "--screenshot=" + png}, nullptr,
        fragment);
    struct stat info {};
    EXPECT_EQ(stat(png.c_str(), &info), 0) << "no screenshot " << png;
    std::printf("html_report_test: screenshot %s (%lld KiB)\n", png.c_str(),
                static_cast<long long>(info.st_size / 1024));
  }

 private:
  std::string work_dir_;
  std::unique_ptr<common::PosixProcessLauncher> launcher_;
  int runs_ = 0;
};

// The checks every page must pass: drawn, no script error, no console
// message, nothing injected.
void ExpectDrawnCleanly(const PageStatus& status, const std::string& page) {
  EXPECT_EQ(status.attributes.count("state") ? status.attributes.at("state") : "", "ok")
      << page << ": " << status.detail.dump();
  EXPECT_EQ(status.Int("errors"), 0) << page << ": " << status.detail.dump();
  EXPECT_EQ(status.browser_log, "") << page;
  EXPECT_FALSE(absl::StrContains(status.attributes.at("body-tag"), "pwned")) << page;
  const size_t bytes = ReadFile(page).size();
  std::printf(
      "html_report_test: %s: %zu KiB, drawn in %d ms (script), JS heap %d KiB, browser start "
      "to exit %.1f s\n",
      page.c_str(), bytes / 1024, status.Int("render-ms"), status.Int("js-heap-kib"),
      absl::ToDoubleSeconds(status.wall));
}

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

std::string MakeTempDir() {
  char pattern[] = "/tmp/ebnccl-report-XXXXXX";
  const char* dir = mkdtemp(pattern);
  EXPECT_NE(dir, nullptr);
  return dir != nullptr ? dir : "/tmp";
}

// One cluster for the three real pages: a test, a validation, a node.
TEST(HtmlReportTest, TestValidationAndNodePagesOfAGlooCluster) {
  SKIP_WITHOUT_CHROMIUM();
  LocalCluster cluster;
  ASSERT_TRUE(cluster.StartCoordinator().ok());
  // As validate_cli_test: every worker sleeps before each timed call, host2's
  // ten times longer, so that the validation's verdicts (3 healthy, host2
  // degraded) do not depend on the load of the machine: the screenshot shows
  // what a reader expects. The page's checks hold whatever the verdicts.
  for (const char* node : {"host0", "host1", "host2", "host3"}) {
    std::vector<std::string> flags = LocalCluster::FastAgentFlags();
    flags.push_back(absl::StrCat("--worker-env=EB_WORKER_FAULT=slow=",
                                 std::string(node) == "host2" ? 2000 : 200));
    ASSERT_TRUE(cluster.StartAgent(node, 2, flags).ok()) << node;
  }
  ASSERT_TRUE(cluster.WaitForIdleNodes(4).ok());
  Browser browser(cluster.work_dir());

  // One test on two nodes, with rails.
  CliResult run =
      cluster.Ebctl({"run-test", "--json", "--nodes", "host0,host1", "-b", "1K", "-e", "1M", "-f",
                     "4", "-n", "3", "-w", "1", "--split-rails", "--min-busbw", "0.0001"},
                    absl::Minutes(2));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const nlohmann::json test = ParseJsonOut(run);
  // Each worker's pid came from its agent to the report (issue 33 item 6).
  for (const nlohmann::json& device : test["devices"]) {
    EXPECT_TRUE(device["pid"].is_number_integer() && device["pid"].get<int>() > 0) << device;
  }
  // And to the table's nccl-tests device lines, which wait for the workers
  // to register (the accepted report has no pid).
  CliResult table =
      cluster.Ebctl({"run-test", "--nodes", "host1", "-b", "1K", "-e", "1K", "-n", "1", "-w", "1"},
                    absl::Minutes(2));
  ASSERT_EQ(table.exit_code, 0) << table.out << table.err;
  EXPECT_TRUE(std::regex_search(
      table.out, std::regex(R"(\n#  Rank  1 Group  0 Pid +[1-9][0-9]* on +host1 device -1 \[-\] )"
                            R"(cpu slot 1\n)")))
      << table.out;
  const std::string test_page = cluster.work_dir() + "/test.html";
  CliResult report = cluster.Ebctl({"report", test["test_id"].get<std::string>(), "-o", test_page});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  PageStatus status = browser.Open(test_page);
  ExpectDrawnCleanly(status, test_page);
  const int sizes = static_cast<int>(test["results"].size());
  ASSERT_EQ(sizes, 6);
  // busbw and algbw, in- and out-of-place, one point per size; the
  // threshold line (--min-busbw) has two.
  EXPECT_EQ(status.Chart("bandwidth"), std::make_pair(5, 4 * sizes + 2));
  EXPECT_EQ(status.Chart("time"), std::make_pair(2, 2 * sizes));
  // The two largest sizes, both variants, one bar per rank (4 ranks).
  EXPECT_EQ(status.Chart("rank-times"), std::make_pair(4, 4 * 4));
  // Two rails (two GPUs slots per node), one point per size each.
  EXPECT_EQ(status.Chart("rails"), std::make_pair(2, 2 * sizes));
  browser.Screenshot(test_page, "report-test", 1500);

  // Two collectives in one test (--collective all_reduce,broadcast): the
  // page draws each collective's busbw (both variants) and a table each.
  CliResult two = cluster.Ebctl(
      {"run-test", "--json", "--nodes", "host0,host1", "--collective", "all_reduce,broadcast", "-b",
       "1K", "-e", "4K", "-f", "4", "-n", "3", "-w", "1"},
      absl::Minutes(2));
  ASSERT_EQ(two.exit_code, 0) << two.out << two.err;
  const nlohmann::json two_json = ParseJsonOut(two);
  ASSERT_EQ(two_json["results"].size(), 4u);
  const std::string two_page = cluster.work_dir() + "/two.html";
  ASSERT_EQ(
      cluster.Ebctl({"report", two_json["test_id"].get<std::string>(), "-o", two_page}).exit_code,
      0);
  status = browser.Open(two_page);
  ExpectDrawnCleanly(status, two_page);
  EXPECT_EQ(status.Chart("bandwidth"), std::make_pair(4, 2 * 4));
  // Times too: one line per collective and placement (issue 33 item 16).
  EXPECT_EQ(status.Chart("time"), std::make_pair(4, 2 * 4));

  // A validation of the four nodes, its page written by validate --report.
  const std::string fleet_page = cluster.work_dir() + "/fleet.html";
  CliResult validate =
      cluster.Ebctl({"validate", "--json", "-b", "4K", "-e", "4K", "-n", "2", "-w", "1", "-c", "1",
                     "--allow-small-sizes", "--report", fleet_page},
                    absl::Minutes(4));
  const nlohmann::json validation = ParseJsonOut(validate);
  ASSERT_TRUE(validation.contains("rounds")) << validate.out << validate.err;
  EXPECT_TRUE(absl::StrContains(validate.err, "wrote " + fleet_page)) << validate.err;
  v1::ValidationReport proto;  // the pairs the page must colour, counted here
  for (const nlohmann::json& round : validation["rounds"]) {
    v1::ValidationRound& r = *proto.add_rounds();
    for (const nlohmann::json& t : round["tests"]) {
      v1::ValidationTest& test_of_round = *r.add_tests();
      // The JSON's words back to the wire enums (empty: still running).
      const std::string outcome = t["outcome"].get<std::string>();
      test_of_round.set_kind(
          spec::ParseWireName<v1::TestKind>(t["kind"].get<std::string>(), "kind").value());
      if (!outcome.empty()) {
        test_of_round.set_outcome(spec::ParseWireName<v1::Outcome>(outcome, "outcome").value());
      }
      for (const nlohmann::json& name : t["node_names"]) {
        test_of_round.add_node_names(name.get<std::string>());
      }
    }
  }
  status = browser.Open(fleet_page, /*self_test=*/true);
  ExpectDrawnCleanly(status, fleet_page);
  EXPECT_EQ(status.attributes["selftest"], "ok") << fleet_page;
  EXPECT_GT(TestedPairs(proto), 0) << validate.out;
  EXPECT_EQ(status.Int("heatmap-cells"), TestedPairs(proto));
  EXPECT_EQ(status.Chart("rounds"),
            std::make_pair(1, static_cast<int>(validation["rounds"].size())));
  browser.Screenshot(fleet_page, "report-validation-4", 1400);

  // The same validation through `ebctl report v-...`.
  const std::string again = cluster.work_dir() + "/fleet-again.html";
  report = cluster.Ebctl({"report", validation["validation_id"].get<std::string>(), "-o", again});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(browser.Open(again).Int("heatmap-cells"), TestedPairs(proto));

  // host0's history: the test and the validation's tests, one verdict.
  const std::string node_page = cluster.work_dir() + "/node.html";
  report = cluster.Ebctl({"report", "--node", "host0", "-o", node_page});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  status = browser.Open(node_page);
  ExpectDrawnCleanly(status, node_page);
  EXPECT_EQ(status.Chart("verdicts"), std::make_pair(1, 1));
  EXPECT_GE(status.Chart("trend").first, 2);  // the 2-node test, the 1-node intra test(s)
  browser.Screenshot(node_page, "report-node", 1000);

  // A node with no history still gets its (empty) page, and a warning.
  // node.html exists: kept without --force (issue 33 item 8), replaced with it.
  report = cluster.Ebctl({"report", "--node", "no-such-node", "-o", node_page});
  EXPECT_EQ(report.exit_code, 2) << report.err;
  EXPECT_TRUE(absl::StrContains(report.err, "exists; --force replaces it")) << report.err;
  report = cluster.Ebctl({"report", "--node", "no-such-node", "-o", node_page, "--force"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(absl::StrContains(report.err, "no test or validation of node no-such-node"))
      << report.err;
  ExpectDrawnCleanly(browser.Open(node_page), node_page);

  // Usage errors are refused before anything runs.
  EXPECT_EQ(cluster.Ebctl({"report", "-o", node_page}).exit_code, 2);
  EXPECT_EQ(cluster.Ebctl({"report", "t-x", "--node", "host0", "-o", node_page}).exit_code, 2);
  EXPECT_EQ(cluster.Ebctl({"report", "t-x", "-o", "/nonexistent-dir/x.html"}).exit_code, 2);
}

// Pages built in memory: 2 nodes, 16 nodes with hostile names, and 1,000
// nodes.
TEST(HtmlReportTest, SimulatedValidationsOf2And16And1000Nodes) {
  SKIP_WITHOUT_CHROMIUM();
  const std::string dir = MakeTempDir();
  Browser browser(dir);
  for (const int n : {2, 16, 1000}) {
    std::vector<std::string> names = FleetNames(n);
    if (n == 16) {
      names[3] = "</script><script>document.body.setAttribute('data-pwned','1')</script>";
      names[7] = "<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">";
      names[9] = "quote\"'`-&amp;-<!--";
      names[14] = "n\xc5\x93ud-\xe2\x98\x83-\xe8\x8a\x82\xe7\x82\xb9-\xe2\x80\xa8";
    }
    const v1::ValidationReport report =
        SyntheticValidation(names, n == 2 ? 1 : (n == 16 ? 4 : 6), /*seed=*/n);
    const std::string page = absl::StrCat(dir, "/fleet-", n, ".html");
    // The 16-node fleet on 4 leaves of the coordinator's topology (issue 31):
    // the pair matrix is grouped by leaf, a line between each two.
    v1::GetTopologyReply topology;
    topology.set_loaded(n == 16);
    for (int i = 0; i < n && n == 16; ++i) {
      v1::TopologyCable& cable = *topology.add_cables();
      cable.set_node(names[i]);
      cable.set_leaf(absl::StrCat("leaf-", i % 4));
    }
    {
      nlohmann::json data =
          ebctl::report::ValidationPageData(report, nullptr, "2026-12-02T00:00:00Z", "test");
      ebctl::report::AddFabric(data, topology);
      std::ofstream out(page, std::ios::binary);
      out << ebctl::report::RenderReportHtml(
          absl::StrCat("ebnccl validation ", report.validation_id()), data);
    }
    PageStatus status = browser.Open(page, /*self_test=*/true);
    ExpectDrawnCleanly(status, page);
    EXPECT_TRUE(absl::StrContains(
        status.dom, n == 16 ? "data-leaf-boundaries=\"3\"" : "data-leaf-boundaries=\"0\""))
        << page;
    EXPECT_EQ(status.attributes["selftest"], "ok") << page;
    EXPECT_EQ(status.Int("heatmap-cells"), TestedPairs(report)) << page;
    EXPECT_EQ(status.Int("rail-cells"), FilledRailCells(report)) << page;
    EXPECT_EQ(status.Chart("rounds"), std::make_pair(1, report.rounds_size())) << page;
    if (n > 2) {
      browser.Screenshot(page, absl::StrCat("report-validation-", n), n == 16 ? 1900 : 2100);
    }
  }
  // Kept when something failed, to look at; screenshots meant to stay go to
  // EB_REPORT_SCREENSHOT_DIR.
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

void WriteValidationPage(const std::string& path, const v1::ValidationReport& report,
                         const v1::GetTopologyReply& topology) {
  nlohmann::json data =
      ebctl::report::ValidationPageData(report, nullptr, "2026-12-07T00:00:00Z", "test");
  ebctl::report::AddFabric(data, topology);
  std::ofstream out(path, std::ios::binary);
  out << ebctl::report::RenderReportHtml("ebnccl validation", data);
}

// Issue 31: the fabric picture of 16 nodes on 2 rails of 4 leaves and 2
// spines, built in memory. Healthy: every leaf-spine link grey, none drawn
// bad. Blamed: the uplink in red with both its ends named, a set of two that
// no pair test separates in orange (one leaf's name hostile: text, never
// markup), a routing collision's pair named and said in words.
TEST(HtmlReportTest, FabricPictureDrawsTheBlamedLinksAndNoneOnAHealthyFabric) {
  SKIP_WITHOUT_CHROMIUM();
  const std::string dir = MakeTempDir();
  Browser browser(dir);
  const std::vector<std::string> names = FleetNames(16);
  const v1::GetTopologyReply topology = RailOptimizedFabric(names, 2, 4, 2);
  // Its verdicts: node-0013 slow, node-0005's rail 3 (not on this 2-rail
  // fabric: said so), the path node-0001 x node-0002. No link.
  const v1::ValidationReport healthy = SyntheticValidation(names, 2, /*seed=*/16);
  const std::string healthy_page = dir + "/healthy.html";
  WriteValidationPage(healthy_page, healthy, topology);
  PageStatus status = browser.Open(healthy_page);
  ExpectDrawnCleanly(status, healthy_page);
  EXPECT_EQ(Count(status.dom, "<svg class=\"fabric\""), 2u);
  EXPECT_EQ(Count(status.dom, "data-healthy-links=\"8\""), 2u);  // 4 leaves x 2 spines
  EXPECT_EQ(Count(status.dom, "<line class=\"fabric-link\""), 0u);
  EXPECT_TRUE(absl::StrContains(status.dom, "data-bad-links=\"0\" data-candidate-links=\"0\""));
  EXPECT_TRUE(absl::StrContains(status.dom, "data-undrawn=\"1\""));

  // Blamed: an uplink of rail 0; on rail 1 a set of two that no pair test
  // separates, one of whose leaves has a name with markup, quotes and
  // control characters; a routing collision on rail 1.
  const std::string hostile =
      "leaf</script><script>document.body.setAttribute('data-pwned','3')</script>\"'\x01\x1b[31m";
  v1::GetTopologyReply renamed = topology;
  for (v1::TopologyCable& cable : *renamed.mutable_cables()) {
    if (cable.leaf() == "leaf-r1-00") cable.set_leaf(hostile);
  }
  for (v1::TopologyUplink& uplink : *renamed.mutable_uplinks()) {
    if (uplink.leaf() == "leaf-r1-00") uplink.set_leaf(hostile);
  }
  v1::ValidationReport blamed = healthy;
  AddLinkVerdict(blamed, "leaf-r0-01", "spine-r0-1", 0, /*confirmed=*/true);
  for (const auto& [leaf, other] : std::vector<std::pair<std::string, std::string>>{
           {hostile, "leaf-r1-01"}, {"leaf-r1-01", "leaf-r1-00"}}) {
    AddLinkVerdict(blamed, leaf, "spine-r1-0", 1, /*confirmed=*/false)
        .add_inseparable_from(absl::StrCat("uplink ", other, " - spine-r1-0 (ports 17-4)"));
  }
  v1::PathVerdict& collision = *blamed.add_paths();
  collision.set_node_a(names[4]);
  collision.set_node_b(names[9]);
  collision.add_rails(1);
  collision.set_verdict(v1::VERDICT_DEGRADED);
  collision.set_confidence(v1::CONFIDENCE_CONFIRMED);
  collision.set_routing_collision(true);
  const std::string blamed_page = dir + "/blamed.html";
  WriteValidationPage(blamed_page, blamed, renamed);
  status = browser.Open(blamed_page, /*self_test=*/true);
  ExpectDrawnCleanly(status, blamed_page);  // and the script in the name did not run
  EXPECT_EQ(status.attributes["selftest"], "ok");
  EXPECT_TRUE(std::regex_search(
      status.dom, std::regex(R"(<line class="fabric-link" data-verdict="bad" data-a="leaf-r0-01" )"
                             R"(data-b="spine-r0-1"[^>]* stroke="#c62828")")))
      << blamed_page;
  for (const char* end : {"leaf-r0-01", "spine-r0-1"}) {  // both boxes outlined in red
    EXPECT_TRUE(std::regex_search(
        status.dom,
        std::regex(absl::StrCat("data-name=\"", end,
                                "\"><title>[^<]*</title><rect [^>]*stroke=\"#c62828\""))))
        << end;
  }
  EXPECT_TRUE(
      absl::StrContains(status.dom,
                        "leaf-r0-01 port 17 \u2014 spine-r0-1 port 4: named bad, confirmed, "
                        "50% of expected (rail 0)"));
  EXPECT_EQ(Count(status.dom, "<line class=\"fabric-link\" data-verdict=\"candidate\""), 2u);
  EXPECT_TRUE(absl::StrContains(status.dom,
                                "leaf-r1-01 port 17 \u2014 spine-r1-0 port 4: one of 2 "
                                "links that no pair test of this fleet can tell apart, "
                                "one of them bad (or: uplink leaf-r1-00"));
  EXPECT_TRUE(absl::StrContains(status.dom,
                                "Routing collision on rail 1: node-0004 (on leaf-r1-01) and "
                                "node-0009 (on leaf-r1-02) were slow only together"));
  EXPECT_TRUE(absl::StrContains(status.dom,
                                "data-bad-links=\"1\" data-candidate-links=\"2\" "
                                "data-named-nodes=\"2\" data-collisions=\"1\""));
  // The hostile name: text (escaped by the DOM's serializer), never markup.
  EXPECT_FALSE(absl::StrContains(status.dom, "<script>document.body"));
  EXPECT_TRUE(absl::StrContains(
      status.dom,
      "leaf&lt;/script&gt;&lt;script&gt;document.body.setAttribute('data-pwned','3')&lt;/"
      "script&gt;\"'\x01\x1b[31m port 17 \u2014 spine-r1-0 port 4: one of 2 links"))
      << status.dom.substr(status.dom.find("<section id=\"fabric\""), 6000);
  browser.Screenshot(blamed_page, "report-fabric", 1100, "#eb-section-fabric");

  // 1,024 nodes on 8 rails of 32 leaves of 32 nodes and 16 spines, an
  // uplink of rail 5 blamed. Drawn: rail 5 and rail 3 (the synthetic
  // fleet's bad rails, i % 211 == 5), a box per switch and none per node,
  // none of each rail's 512 healthy leaf-spine links; the other rails only
  // when opened.
  const std::vector<std::string> fleet = FleetNames(1024);
  v1::ValidationReport large = SyntheticValidation(fleet, 1, /*seed=*/1024);
  AddLinkVerdict(large, "leaf-r5-07", "spine-r5-11", 5, /*confirmed=*/true);
  const std::string large_page = dir + "/large.html";
  WriteValidationPage(large_page, large, RailOptimizedFabric(fleet, 8, 32, 16));
  status = browser.Open(large_page);
  ExpectDrawnCleanly(status, large_page);
  EXPECT_EQ(Count(status.dom, "<svg class=\"fabric\""), 2u);
  EXPECT_EQ(Count(status.dom, "<g class=\"fabric-switch\""), 2u * (32 + 16));
  EXPECT_EQ(Count(status.dom, "data-healthy-links=\"0\" data-healthy-links-left-out="), 2u);
  EXPECT_TRUE(absl::StrContains(status.dom, "data-bad-links=\"1\" data-candidate-links=\"0\""));
  EXPECT_TRUE(std::regex_search(
      status.dom, std::regex(R"(<line class="fabric-link" data-verdict="bad" data-a="leaf-r5-07" )"
                             R"(data-b="spine-r5-11"[^>]* stroke="#c62828")")));
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// A test of four collectives with -I 1, built in memory (issue 33 item 16):
// 3 sizes each, 2 ranks, every variant timed per iteration.
v1::TestReport FourCollectivesPerIteration() {
  const v1::Collective kCollectives[] = {v1::COLLECTIVE_ALL_REDUCE, v1::COLLECTIVE_ALL_GATHER,
                                         v1::COLLECTIVE_BROADCAST, v1::COLLECTIVE_REDUCE_SCATTER};
  v1::TestReport report;
  report.set_test_id("t-20261207-000000-four");
  report.set_state(v1::TEST_STATE_PASSED);
  report.set_transport(v1::TRANSPORT_GLOO);
  report.set_summary("all_reduce, all_gather, broadcast, reduce_scatter over 2 ranks");
  v1::TestSpec& spec = *report.mutable_spec();
  spec.set_collective(kCollectives[0]);
  for (v1::Collective c : kCollectives) spec.add_collectives(c);
  spec.set_min_bytes(1024);
  spec.set_max_bytes(16384);
  spec.set_step_factor(4);
  spec.set_iterations(4);
  spec.set_per_iter_timing(true);
  spec.set_data_type(v1::DATA_TYPE_FLOAT);
  for (int rank = 0; rank < 2; ++rank) {
    v1::RankAssignment& a = *report.add_ranks();
    a.set_rank(rank);
    a.set_world_size(2);
    a.set_node_name(absl::StrCat("host", rank));
    a.set_node_index(rank);
    a.set_device_index(-1);
    a.set_worker_pid(1000 + rank);
  }
  int k = 0;
  for (v1::Collective c : kCollectives) {
    v1::CollectiveSummary& footer = *report.add_collective_summaries();
    footer.set_collective(c);
    footer.set_sizes(3);
    footer.set_avg_busbw_gbps(1 + k);
    for (int64_t size = 1024; size <= 16384; size *= 4) {
      v1::SizeResult& row = *report.add_results();
      row.set_collective(c);
      row.set_size_bytes(size);
      row.set_count(size / 4);
      for (v1::VariantResult* v : {row.mutable_out_of_place(), row.mutable_in_place()}) {
        v->set_time_us(10.0 + static_cast<double>(size) / 1024 + k);
        v->set_algbw_gbps(static_cast<double>(size) / v->time_us() / 1e3);
        v->set_busbw_gbps(v->algbw_gbps());
        for (int rank = 0; rank < 2; ++rank) {
          v->add_rank_time_us(v->time_us() + rank);
          v1::IterationTimes& times = *v->add_rank_iterations();
          for (int i = 0; i < 4; ++i) times.add_time_us(v->time_us() + i + rank);
        }
      }
    }
    ++k;
  }
  return report;
}

TEST(HtmlReportTest, SeveralCollectivesAreEachNamedDrawnAndTimedPerIteration) {
  SKIP_WITHOUT_CHROMIUM();
  const std::string dir = MakeTempDir();
  Browser browser(dir);
  const v1::TestReport report = FourCollectivesPerIteration();
  const std::string page = dir + "/four.html";
  {
    std::ofstream out(page, std::ios::binary);
    out << ebctl::report::RenderReportHtml(
        "ebnccl test", ebctl::report::TestPageData(report, "2026-12-07T00:00:00Z", "test"));
  }
  const PageStatus status = browser.Open(page);
  ExpectDrawnCleanly(status, page);
  // Every collective named in the summary, not only the first.
  EXPECT_TRUE(absl::StrContains(
      status.dom,
      "<th>Collectives</th><td>all_reduce, all_gather, broadcast, reduce_scatter over gloo</td>"))
      << status.dom.substr(0, 4000);
  // One series per collective and placement (4 x 2), each point of its own
  // 3 sizes, and a legend entry for each series, naming its collective.
  const std::vector<std::string> kCollectives = {"all_reduce", "all_gather", "broadcast",
                                                 "reduce_scatter"};
  for (const char* chart : {"bandwidth", "time", "per-iter"}) {
    EXPECT_EQ(status.Chart(chart), std::make_pair(8, 8 * 3)) << chart;
    const std::vector<std::string> legend = status.Legend(chart);
    ASSERT_EQ(legend.size(), 8u) << chart;
    for (size_t i = 0; i < legend.size(); ++i) {
      EXPECT_TRUE(absl::StartsWith(legend[i], kCollectives[i / 2] + " "))
          << chart << " " << legend[i];
      EXPECT_TRUE(absl::EndsWith(legend[i], i % 2 == 0 ? "out-of-place" : "in-place")) << legend[i];
    }
  }
  // Each collective's largest size, both placements.
  EXPECT_EQ(status.Chart("rank-times"), std::make_pair(8, 8 * 2));
  // -I 1's statistics: a row per size, collective and placement.
  EXPECT_TRUE(absl::StrContains(status.dom, "<h2>Per-iteration times (-I 1)</h2>"));
  EXPECT_TRUE(absl::StrContains(status.dom, "<th class=\"num\">i_p99 (us)</th>"));
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// A node's history with a test of four collectives and a test of one: each
// collective's own average is a point on that collective's line (the
// four-collective test gave one line named after its first collective, at
// the average of all four), and the list names every collective.
TEST(HtmlReportTest, NodeHistoryDrawsEachCollectiveOfATestOnItsOwnLine) {
  SKIP_WITHOUT_CHROMIUM();
  const std::string dir = MakeTempDir();
  Browser browser(dir);
  v1::ListTestsReply tests;
  v1::TestReport& four = *tests.add_tests() = FourCollectivesPerIteration();
  four.set_start_time_unix_ms(1'796'000'100'000);
  four.set_avg_busbw_gbps(2.5);  // the four's mixed average: on no line
  v1::TestReport& one = *tests.add_tests() = FourCollectivesPerIteration();
  one.set_test_id("t-20261207-000000-one");
  one.set_summary("all_reduce over 2 ranks");
  one.mutable_spec()->clear_collectives();
  one.clear_collective_summaries();
  one.set_start_time_unix_ms(1'796'000'000'000);
  one.set_avg_busbw_gbps(7);
  const std::string page = dir + "/node.html";
  {
    std::ofstream out(page, std::ios::binary);
    out << ebctl::report::RenderReportHtml(
        "ebnccl node", ebctl::report::NodePageData("host0", tests, v1::ListValidationsReply(),
                                                   "2026-12-07T00:00:00Z", "test"));
  }
  const PageStatus status = browser.Open(page);
  ExpectDrawnCleanly(status, page);
  // all_reduce: the one test's average and the four's all_reduce footer.
  EXPECT_EQ(status.Chart("trend"), std::make_pair(4, 5));
  EXPECT_EQ(
      status.Legend("trend"),
      (std::vector<std::string>{
          "all_gather \u00b7 2 nodes \u00b7 gloo", "all_reduce \u00b7 2 nodes \u00b7 gloo",
          "broadcast \u00b7 2 nodes \u00b7 gloo", "reduce_scatter \u00b7 2 nodes \u00b7 gloo"}));
  EXPECT_TRUE(absl::StrContains(
      status.dom, "<td class=\"\">all_reduce, all_gather, broadcast, reduce_scatter/gloo</td>"))
      << status.dom.substr(0, 4000);
  EXPECT_TRUE(absl::StrContains(status.dom, "<td class=\"\">all_reduce/gloo</td>"));
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// Without -I 1 no per-iteration section; a validation whose coordinator
// could not read its baselines file does not name it as used.
TEST(HtmlReportTest, NoPerIterationSectionWithoutItAndUnreadBaselinesAreNotUsed) {
  SKIP_WITHOUT_CHROMIUM();
  const std::string dir = MakeTempDir();
  Browser browser(dir);
  v1::TestReport report = FourCollectivesPerIteration();
  report.mutable_spec()->set_per_iter_timing(false);
  for (v1::SizeResult& row : *report.mutable_results()) {
    row.mutable_out_of_place()->clear_rank_iterations();
    row.mutable_in_place()->clear_rank_iterations();
  }
  const std::string test_page = dir + "/plain.html";
  {
    std::ofstream out(test_page, std::ios::binary);
    out << ebctl::report::RenderReportHtml(
        "ebnccl test", ebctl::report::TestPageData(report, "2026-12-07T00:00:00Z", "test"));
  }
  PageStatus status = browser.Open(test_page);
  ExpectDrawnCleanly(status, test_page);
  EXPECT_EQ(status.Chart("per-iter"), std::make_pair(-1, -1));
  // (The page's script, also in the DOM, holds the words: look for the
  // element.)
  EXPECT_FALSE(absl::StrContains(status.dom, "<section id=\"per-iter\">"));

  v1::ValidationReport validation = SyntheticValidation(FleetNames(2), 1, /*seed=*/7);
  ASSERT_GT(validation.baselines_size(), 0);  // what a read file would have given
  validation.clear_baselines();
  validation.set_baselines_origin("");
  validation.set_baselines_error("/etc/ebnccl/baselines.toml: No such file or directory");
  const std::string fleet_page = dir + "/unread.html";
  {
    std::ofstream out(fleet_page, std::ios::binary);
    out << ebctl::report::RenderReportHtml(
        "ebnccl validation",
        ebctl::report::ValidationPageData(validation, nullptr, "2026-12-07T00:00:00Z", "test"));
  }
  status = browser.Open(fleet_page);
  ExpectDrawnCleanly(status, fleet_page);
  EXPECT_TRUE(absl::StrContains(status.dom,
                                "<th>Baselines</th><td>none used: /etc/ebnccl/baselines.toml: No "
                                "such file or directory (judged against the fleet median)</td>"))
      << status.dom.substr(0, 4000);
  EXPECT_FALSE(absl::StrContains(status.dom, "<summary>Baselines used"));
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// Issue 30: a site's Gloo figure ([[gloo_pairs]]) is listed as what it is,
// a pair figure for Gloo hosts keyed by their link's speed ("any" without
// one), not as an HCA row of zeros.
TEST(HtmlReportTest, ASiteGlooFigureIsListedWithItsLinkSpeed) {
  SKIP_WITHOUT_CHROMIUM();
  const std::string dir = MakeTempDir();
  Browser browser(dir);
  v1::ValidationReport validation = SyntheticValidation(FleetNames(2), 1, /*seed=*/7);
  for (const int64_t link_mbps : {int64_t{10000}, int64_t{0}}) {
    v1::BaselineUsed& gloo = *validation.add_baselines();
    gloo.set_suite(v1::SUITE_PAIRS);
    gloo.set_gloo(true);
    gloo.set_link_mbps(link_mbps);
    gloo.set_busbw_gbps(0.06);
    gloo.set_source("site measurement");
  }
  const std::string page = dir + "/gloo.html";
  {
    std::ofstream out(page, std::ios::binary);
    out << ebctl::report::RenderReportHtml(
        "ebnccl validation",
        ebctl::report::ValidationPageData(validation, nullptr, "2026-12-07T00:00:00Z", "test"));
  }
  const PageStatus status = browser.Open(page);
  ExpectDrawnCleanly(status, page);
  EXPECT_TRUE(absl::StrContains(status.dom, ">link (Mb/s)</th>")) << status.dom.substr(0, 4000);
  EXPECT_TRUE(absl::StrContains(status.dom, ">pairs (Gloo)</td>"));
  EXPECT_TRUE(absl::StrContains(status.dom, ">10000</td>"));
  EXPECT_TRUE(absl::StrContains(status.dom, ">any</td>"));
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace eb::testing
