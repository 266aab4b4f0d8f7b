// Golden tests of the claim in docs/JSON_SCHEMA.md that `ebctl run-test
// --json` (and -J FILE) is a superset of nccl-tests' -J file (format version
// 3, nccl-tests 2.19.6 src/util.cu): every key of an nccl-tests document is
// in ours, at the same place and with the same JSON type, except the
// differences that page lists; and the reading that nccl-tests'
// tools/analyze_perf_json.py does (re-implemented here from its documented
// format: overview, per-size statistics, straggler and per-node tables)
// finds every table filled on our output.

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "coordinator/ebctl/output/report_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/ebctl/test_reports.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using nlohmann::json;

// An nccl-tests -J document for `all_reduce_perf -b 8 -e 16 -f 2 -I 1 -n 3`
// over 2 MPI processes of 1 GPU, written by hand from util.cu's writers
// (jsonOutputInit, writeDeviceReport, writeResultHeader,
// writeBenchmarkLinePreamble/Body/Terminator, writePerIterReport,
// writeResultFooter, writeErrors, jsonOutputFinalize). Values are made up;
// the keys, their nesting and their JSON types are what matters.
const char kNcclTestsDocument[] = R"({
  "version": 3,
  "start_time": "2026-12-01 10:00:00",
  "args": ["./all_reduce_perf", "-b", "8"],
  "env": ["PATH=/usr/bin"],
  "nccl_version": 22809,
  "config": {
    "nthreads": 1, "ngpus": 1, "minimum_bytes": 8, "maximum_bytes": 16, "step_factor": 2,
    "warmup_iters": 1, "iterations": 3, "aggregated_iterations": 1, "validation": 1,
    "graph": 0, "blocking_collectives": "false", "per_iter_timing": "true",
    "per_iter_skip": 0, "parallel_init": "false",
    "devices": [
      {"rank": 0, "group": 0, "pid": 100, "hostname": "a", "device": 0,
       "device_hex": "0000:0a:00", "device_info": "NVIDIA H200"},
      {"rank": 1, "group": 0, "pid": 200, "hostname": "b", "device": 0,
       "device_hex": "0000:0a:00", "device_info": "NVIDIA H200"}]
  },
  "results": [
    {"size": 8, "count": 2, "type": "float", "redop": "sum", "root": "    -1",
     "out_of_place": {"time": 10.0, "alg_bw": 0.0, "bus_bw": 0.0, "nwrong": 0.0},
     "out_of_place_per_iter": {"skipped_iterations": 0, "min_us": 9.0, "max_us": 11.0,
       "avg_us": 10.0, "p50_us": 10.0, "p95_us": 11.0, "p99_us": 11.0, "stdev_us": 0.8,
       "cv_pct": 8.1, "times_us": [9.0, 10.0, 11.0],
       "per_process_max_times_us": [[9.0, 10.0, 11.0], [8.0, 9.0, 10.0]]},
     "in_place": {"time": 10.0, "alg_bw": 0.0, "bus_bw": 0.0, "nwrong": 0.0},
     "in_place_per_iter": {"skipped_iterations": 0, "min_us": 9.0, "max_us": 11.0,
       "avg_us": 10.0, "p50_us": 10.0, "p95_us": 11.0, "p99_us": 11.0, "stdev_us": 0.8,
       "cv_pct": 8.1, "times_us": [9.0, 10.0, 11.0],
       "per_process_max_times_us": [[9.0, 10.0, 11.0], [8.0, 9.0, 10.0]]},
     "actual_iterations": 3, "experiment_name": ""}
  ],
  "out_of_bounds": {"count": 0, "okay": "true"},
  "average_bus_bandwidth": {"bandwidth": 0.0, "okay": "unchecked"},
  "errors": [],
  "end_time": "2026-12-01 10:00:01"
})";

// The differences docs/JSON_SCHEMA.md lists ("Differences from nccl-tests
// -J"), as key paths ("[]" = every element): keys nccl-tests writes that
// ours lacks (none since issue 33 item 6 added args, env and devices[].pid),
// and keys whose JSON type differs.
const std::set<std::string> kAbsent = {};
const std::set<std::string> kRetyped = {
    "/results[]/root",                 // integer, not a padded string
    "/results[]/out_of_place/nwrong",  // integer, not a double
    "/results[]/in_place/nwrong",      //
    "/config/blocking_collectives",    // booleans, not "true"/"false"
    "/config/per_iter_timing",         //
    "/config/parallel_init",           //
    "/out_of_bounds/okay",             //
    "/average_bus_bandwidth/okay",     // boolean (or "unchecked")
};

// "number" covers integers and doubles: JSON does not tell them apart (our
// 10.0 may print as 10).
std::string TypeOf(const json& value) {
  if (value.is_number()) return "number";
  return value.type_name();
}

// Every key path of `reference` must be in `ours` with the same type,
// unless listed above; arrays are compared through their first element.
void ExpectSuperset(const json& reference, const json& ours, const std::string& path,
                    std::vector<std::string>& problems) {
  if (reference.is_object()) {
    for (const auto& [key, value] : reference.items()) {
      const std::string child = path + "/" + key;
      if (kAbsent.contains(child)) continue;
      if (!ours.is_object() || !ours.contains(key)) {
        problems.push_back("missing " + child);
        continue;
      }
      ExpectSuperset(value, ours[key], child, problems);
    }
    return;
  }
  if (kRetyped.contains(path)) return;
  if (TypeOf(reference) != TypeOf(ours)) {
    problems.push_back(path + ": " + TypeOf(ours) + " where nccl-tests has " + TypeOf(reference));
    return;
  }
  if (reference.is_array() && !reference.empty()) {
    if (ours.empty()) {
      problems.push_back("empty " + path);
      return;
    }
    ExpectSuperset(reference[0], ours[0], path + "[]", problems);
  }
}

const std::vector<std::string> kArgs = {"ebctl", "run-test", "-b", "8", "-J", "out.json"};

void SetIterations(v1::VariantResult& variant, const std::vector<std::vector<double>>& ranks) {
  for (const std::vector<double>& times : ranks) {
    v1::IterationTimes& row = *variant.add_rank_iterations();
    for (double t : times) row.add_time_us(t);
  }
}

// Four ranks on two nodes, -I 1 with 3 iterations, two sizes; rank 3 (on
// host2) is the straggler of the second iteration.
v1::TestReport PerIterReport() {
  v1::TestReport report = testing::TwoRankReport();
  report.set_state(v1::TEST_STATE_PASSED);
  report.clear_failures();
  report.mutable_node_inventories(0)->set_nccl_version("2.28.9");
  report.mutable_spec()->set_per_iter_timing(true);
  report.mutable_spec()->set_iterations(3);
  report.mutable_spec()->set_workers_per_node(2);
  report.clear_ranks();
  for (int rank = 0; rank < 4; ++rank) {
    v1::RankAssignment& a = *report.add_ranks();
    a.set_rank(rank);
    a.set_world_size(4);
    a.set_node_index(rank / 2);
    a.set_node_name(rank < 2 ? "host1" : "host2");
    a.set_local_rank(rank % 2);
    a.set_device_index(rank % 2);
    a.set_gpu_pci_bus_id(rank % 2 == 0 ? "0000:0a:00.0" : "0000:4f:00.0");
    a.set_worker_pid(1000 + rank);
  }
  (*report.mutable_spec()->mutable_nccl_env())["NCCL_ALGO"] = "Ring";
  for (v1::SizeResult& row : *report.mutable_results()) {
    for (v1::VariantResult* variant : {row.mutable_out_of_place(), row.mutable_in_place()}) {
      SetIterations(*variant, {{10, 11, 12}, {10, 11, 12}, {10, 11, 12}, {10, 40, 12}});
    }
  }
  return report;
}

TEST(NcclTestsJsonTest, OursIsASupersetOfNcclTestsDocument) {
  const json reference = json::parse(kNcclTestsDocument);
  const json ours = ReportToJson(PerIterReport(), kVersion, kArgs);
  std::vector<std::string> problems;
  ExpectSuperset(reference, ours, "", problems);
  EXPECT_THAT(problems, ::testing::IsEmpty()) << ours.dump(2);
}

TEST(NcclTestsJsonTest, WithoutPerIterTimingOnlyThePerIterObjectsAreMissing) {
  json reference = json::parse(kNcclTestsDocument);
  for (json& row : reference["results"]) {
    row.erase("out_of_place_per_iter");
    row.erase("in_place_per_iter");
  }
  v1::TestReport report = testing::TwoRankReport();
  report.mutable_node_inventories(1)->set_nccl_version("2.28.9");
  report.mutable_ranks(0)->set_worker_pid(100);
  report.mutable_ranks(1)->set_worker_pid(200);
  (*report.mutable_spec()->mutable_nccl_env())["NCCL_PROTO"] = "Simple";
  std::vector<std::string> problems;
  ExpectSuperset(reference, ReportToJson(report, kVersion, kArgs), "", problems);
  EXPECT_THAT(problems, ::testing::IsEmpty());
}

// --- analyze_perf_json.py's reading, re-implemented ----------------------

struct StatsRow {
  int64_t size;
  double avg, min, max, p99, cv, spike;
};

// print_stats_table: one row per result that has the placement's per-iter
// object (a result without one is skipped, which is what left the tables
// empty on schema-1 output).
std::vector<StatsRow> StatsTable(const json& doc, const std::string& placement) {
  std::vector<StatsRow> rows;
  for (const json& r : doc.value("results", json::array())) {
    const json per_iter = r.value(placement, json::object());
    if (per_iter.empty()) continue;
    const double avg = per_iter["avg_us"].get<double>();
    rows.push_back({r["size"].get<int64_t>(), avg, per_iter["min_us"].get<double>(),
                    per_iter["max_us"].get<double>(), per_iter["p99_us"].get<double>(),
                    per_iter["cv_pct"].get<double>(),
                    avg > 0 ? per_iter["max_us"].get<double>() / avg : 0.0});
  }
  return rows;
}

// print_straggler: per size, the process with the largest mean time over
// per_process_max_times_us, and how often each process was the slowest.
std::map<int, int> StragglerCounts(const json& doc, const std::string& placement) {
  std::map<int, int> slowest;
  for (const json& r : doc.value("results", json::array())) {
    const json times = r.value(placement, json::object()).value("per_process_max_times_us", json());
    if (!times.is_array() || times.empty()) continue;
    int worst = 0;
    double worst_mean = -1;
    for (size_t p = 0; p < times.size(); ++p) {
      double sum = 0;
      for (const json& t : times[p]) sum += t.get<double>();
      const double mean = sum / static_cast<double>(times[p].size());
      if (mean > worst_mean) {
        worst_mean = mean;
        worst = static_cast<int>(p);
      }
    }
    ++slowest[worst];
  }
  return slowest;
}

// node_groups: consecutive processes share a node when config.devices
// names the same hostname.
std::map<std::string, std::vector<int>> NodeGroups(const json& doc) {
  std::map<std::string, std::vector<int>> groups;
  const json devices = doc.value("config", json::object()).value("devices", json::array());
  for (size_t i = 0; i < devices.size(); ++i) {
    groups[devices[i].value("hostname", std::string("?"))].push_back(static_cast<int>(i));
  }
  return groups;
}

TEST(NcclTestsJsonTest, AnalyzePerfJsonReadingFindsEveryTableFilled) {
  const json doc = json::parse(ReportToJson(PerIterReport()).dump());
  // Overview.
  EXPECT_EQ(doc["version"], 3);
  EXPECT_EQ(doc["config"]["iterations"], 3);
  EXPECT_EQ(doc["config"].value("aggregated_iterations", 0), 1);
  EXPECT_EQ(doc["config"].value("per_iter_skip", -1), 0);
  // Statistics: the per-iteration maximum over ranks is 10, 40, 12.
  for (const std::string placement : {"out_of_place_per_iter", "in_place_per_iter"}) {
    const std::vector<StatsRow> rows = StatsTable(doc, placement);
    ASSERT_EQ(rows.size(), 2u) << placement;
    EXPECT_EQ(rows[0].size, 8);
    EXPECT_EQ(rows[1].size, 134217728);
    EXPECT_DOUBLE_EQ(rows[0].min, 10);
    EXPECT_DOUBLE_EQ(rows[0].max, 40);
    EXPECT_DOUBLE_EQ(rows[0].avg, 62.0 / 3);
    EXPECT_DOUBLE_EQ(rows[0].p99, 40);
    EXPECT_GT(rows[0].cv, 5);  // flagged "***" by the tool
    EXPECT_NEAR(rows[0].spike, 40 / (62.0 / 3), 1e-9);
  }
  EXPECT_EQ(doc["results"][0]["out_of_place_per_iter"]["times_us"], json::parse("[10, 40, 12]"));
  // Straggler: process 3 in both sizes.
  EXPECT_EQ(StragglerCounts(doc, "out_of_place_per_iter"), (std::map<int, int>{{3, 2}}));
  // Nodes: two per host, from config.devices.
  EXPECT_EQ(NodeGroups(doc), (std::map<std::string, std::vector<int>>{
                                 {"host1.example.com", {0, 1}}, {"host2.example.com", {2, 3}}}));
}

TEST(NcclTestsJsonTest, SeveralCollectivesTagEveryRowAndFooter) {
  v1::TestReport report = testing::TwoRankReport();
  report.mutable_spec()->add_collectives(v1::COLLECTIVE_ALL_REDUCE);
  report.mutable_spec()->add_collectives(v1::COLLECTIVE_BROADCAST);
  report.mutable_results(0)->set_collective(v1::COLLECTIVE_ALL_REDUCE);
  report.mutable_results(1)->set_collective(v1::COLLECTIVE_BROADCAST);
  for (v1::Collective c : {v1::COLLECTIVE_ALL_REDUCE, v1::COLLECTIVE_BROADCAST}) {
    v1::CollectiveSummary& footer = *report.add_collective_summaries();
    footer.set_collective(c);
    footer.set_sizes(1);
    footer.set_avg_busbw_gbps(c == v1::COLLECTIVE_BROADCAST ? 40 : 60);
  }
  const json doc = ReportToJson(report);
  EXPECT_EQ(doc["config"]["collectives"], json::parse(R"(["all_reduce", "broadcast"])"));
  EXPECT_EQ(doc["results"][0]["collective"], "all_reduce");
  EXPECT_EQ(doc["results"][1]["collective"], "broadcast");
  // broadcast neither reduces nor roots at -1.
  EXPECT_EQ(doc["results"][1]["redop"], "none");
  EXPECT_EQ(doc["results"][1]["root"], 0);
  EXPECT_EQ(doc["collectives"], json::parse(R"([
      {"collective": "all_reduce", "sizes": 1,
       "out_of_bounds": {"count": 0, "okay": true},
       "average_bus_bandwidth": {"bandwidth": 60.0, "judged": 60.0, "okay": true}},
      {"collective": "broadcast", "sizes": 1,
       "out_of_bounds": {"count": 0, "okay": true},
       "average_bus_bandwidth": {"bandwidth": 40.0, "judged": 40.0, "okay": false}}])"))
      << doc["collectives"].dump(2);
}

}  // namespace
}  // namespace eb::ebctl
