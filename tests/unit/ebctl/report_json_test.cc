#include "coordinator/ebctl/output/report_json.h"

#include <sstream>
#include <string>
#include "absl/strings/str_cat.h"

#include "coordinator/ebctl/output/nodes_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/ebctl/test_reports.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using nlohmann::json;

TEST(ReportToJsonTest, TopLevelFields) {
  const json doc = ReportToJson(testing::TwoRankReport(), "9.9.9");
  EXPECT_EQ(doc["schema"], "ebnccl.test_report");
  EXPECT_EQ(doc["schema_version"], 2);
  // nccl-tests' file format version; ebnccl's own beside it.
  EXPECT_EQ(doc["version"], 3);
  EXPECT_EQ(doc["ebnccl_version"], "9.9.9");
  EXPECT_TRUE(doc["nccl_version"].is_null());  // Gloo nodes: no NCCL library
  EXPECT_EQ(doc["test_id"], "t-20261129-154501-3f2a");
  EXPECT_EQ(doc["state"], "failed");
  EXPECT_EQ(doc["transport"], "gloo");
  EXPECT_EQ(doc["collective"], "all_reduce");
  EXPECT_EQ(doc["start_time"], "2026-11-29T15:45:01.123Z");
  EXPECT_EQ(doc["end_time"], "2026-11-29T15:46:00.000Z");
  EXPECT_EQ(doc["summary"], "rank 1 on host2 was killed by signal 9");
  EXPECT_EQ(doc["exit_code"], 3);    // worker_exited
  EXPECT_EQ(doc["started_by"], "");  // recorded before started_by existed
  // No arrivals were recorded and the test did not split rails.
  EXPECT_TRUE(doc["arrivals"].is_null());
  // Nor schedules: no culprit was decided (a report of an older coordinator).
  EXPECT_TRUE(doc["culprit"].is_null());
  EXPECT_EQ(doc["rails"], json::array());
  // No agent sent evidence (issue 12) and the nodes did not drift.
  EXPECT_EQ(doc["port_counters"], json::array());
  EXPECT_EQ(doc["tcp_counters"], json::array());
  EXPECT_EQ(doc["nccl_warnings"], json::array());
  EXPECT_EQ(doc["nccl_ras"], json::array());
  EXPECT_EQ(doc["nic_use"], json::array());
  EXPECT_EQ(doc["drift_warnings"], json::array());
  EXPECT_EQ(doc["collectives"], json::array());  // no footers in the fixture
  // nccl-tests' args and env (issue 33 item 6): no command line given, no
  // NCCL override in the spec.
  EXPECT_EQ(doc["args"], json::array());
  EXPECT_EQ(doc["env"], json::array());
  EXPECT_EQ(doc["rank_times_finding"], "");  // the ranks' times agree
  EXPECT_EQ(doc.size(), 35u) << doc.dump(2);
}

TEST(ReportToJsonTest, Config) {
  json config = ReportToJson(testing::TwoRankReport())["config"];
  EXPECT_EQ(config["devices"].size(), 2u);  // nccl-tests puts them here (see Devices)
  config.erase("devices");
  EXPECT_EQ(config, json::parse(R"({"nthreads": 1, "ngpus": 1, "aggregated_iterations": 1,
                            "blocking_collectives": false, "per_iter_timing": false,
                            "per_iter_skip": 0, "parallel_init": false, "average": 1,
                            "collectives": ["all_reduce"], "minimum_bytes": 8, "maximum_bytes": 134217728, "step_factor": 2,
                            "warmup_iters": 5, "iterations": 20, "validation": 1, "graph": 0,
                            "datatype": "float", "redop": "sum", "root": -1, "nranks": 2,
                            "nodes": ["host1", "host2"], "workers_per_node": 1,
                            "timeout_ms": 600000, "min_busbw_gbps": 50.0,
                            "split_rails": false})"))
      << config.dump(2);
}

TEST(ReportToJsonTest, ConfigStepBytesRootAndRedopNone) {
  v1::TestReport report = testing::TwoRankReport();
  report.mutable_spec()->set_collective(v1::COLLECTIVE_BROADCAST);
  report.mutable_spec()->set_root_rank(1);
  report.mutable_spec()->set_step_factor(0);
  report.mutable_spec()->set_step_bytes(4096);
  const json doc = ReportToJson(report);
  EXPECT_EQ(doc["config"]["step_bytes"], 4096);
  EXPECT_FALSE(doc["config"].contains("step_factor"));
  EXPECT_EQ(doc["config"]["redop"], "none");
  EXPECT_EQ(doc["config"]["root"], 1);
  EXPECT_EQ(doc["results"][0]["redop"], "none");
  EXPECT_EQ(doc["results"][0]["root"], 1);
}

TEST(ReportToJsonTest, Devices) {
  const json doc = ReportToJson(testing::TwoRankReport());
  const json devices = doc["config"]["devices"];
  EXPECT_EQ(devices, json::parse(R"([
      {"rank": 0, "group": 0, "node": "host1", "node_index": 0, "local_rank": 0, "device": -1,
       "device_hex": "", "device_info": "", "hostname": "host1.example.com", "pid": null},
      {"rank": 1, "group": 0, "node": "host2", "node_index": 1, "local_rank": 0, "device": -1,
       "device_hex": "", "device_info": "", "hostname": "host2.example.com", "pid": null}])"))
      << devices.dump(2);
  // Also at the top level, where schema 1 had them.
  EXPECT_EQ(doc["devices"], devices);
}

// Issue 33 item 6: nccl-tests' devices[].pid, args and env.
TEST(ReportToJsonTest, PidArgsAndEnvAsNcclTestsWritesThem) {
  v1::TestReport report = testing::TwoRankReport();
  report.mutable_ranks(1)->set_worker_pid(31337);
  auto& env = *report.mutable_spec()->mutable_nccl_env();
  env["NCCL_PROTO"] = "Simple";
  env["NCCL_ALGO"] = "Ring";
  const json doc = ReportToJson(report, "9.9.9", {"ebctl", "run-test", "-J", "a.json"});
  EXPECT_EQ(doc["config"]["devices"][0]["pid"], nullptr);  // never registered
  EXPECT_EQ(doc["config"]["devices"][1]["pid"], 31337);
  EXPECT_EQ(doc["args"], json::parse(R"(["ebctl", "run-test", "-J", "a.json"])"));
  // The workers' overrides, by name (a proto map has no order).
  EXPECT_EQ(doc["env"], json::parse(R"(["NCCL_ALGO=Ring", "NCCL_PROTO=Simple"])"));
  // Without a command line (a caller that has none): an empty list.
  EXPECT_EQ(ReportToJson(report)["args"], json::array());
}

TEST(ReportToJsonTest, GpuDevicesHaveNcclTestsBusIdAndName) {
  v1::TestReport report = testing::TwoRankReport();
  report.mutable_ranks(1)->set_device_index(3);
  report.mutable_ranks(1)->set_gpu_pci_bus_id("0000:4f:00.0");
  v1::GpuInfo* gpu = report.mutable_node_inventories(1)->add_gpus();
  gpu->set_index(3);
  gpu->set_name("NVIDIA H200");
  report.mutable_node_inventories(0)->set_nccl_version("2.28.9");
  const json doc = ReportToJson(report);
  EXPECT_EQ(doc["config"]["devices"][1]["device_hex"], "0000:4f:00");
  EXPECT_EQ(doc["config"]["devices"][1]["device_info"], "NVIDIA H200");
  EXPECT_EQ(doc["nccl_version"], 22809);  // NCCL_VERSION_CODE
}

TEST(ReportToJsonTest, HostnameFallsBackToTheNodeName) {
  v1::TestReport report = testing::TwoRankReport();
  report.clear_node_inventories();
  EXPECT_EQ(ReportToJson(report)["config"]["devices"][1]["hostname"], "host2");
}

TEST(ReportToJsonTest, Results) {
  const json results = ReportToJson(testing::TwoRankReport())["results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0], json::parse(R"({
      "size": 8, "count": 2, "type": "float", "redop": "sum", "root": -1,
      "collective": "all_reduce", "actual_iterations": 20, "experiment_name": "",
      "out_of_place": {"time": 10.5, "alg_bw": 0.000762, "bus_bw": 0.000762, "nwrong": 0,
                       "min_time": 10.0, "max_time": 11.0, "slowest_rank": 1,
                       "rank_times": [10.0, 11.0], "rank_arrivals": [], "rank_stalled": [],
                       "rank_gpu_throttle": [],
                       "judged_time": 10.5, "judged_bus_bw": 0.000762},
      "in_place": {"time": 9.87, "alg_bw": 0.00081, "bus_bw": 0.00081, "nwrong": 0,
                   "min_time": 9.84, "max_time": 9.9, "slowest_rank": 0,
                   "rank_times": [9.9, 9.84], "rank_arrivals": [], "rank_stalled": [],
                   "rank_gpu_throttle": [],
                   "judged_time": 9.87, "judged_bus_bw": 0.00081}})"))
      << results[0].dump(2);
  EXPECT_EQ(results[1]["size"], 134217728);
  EXPECT_EQ(results[1]["count"], 33554432);
  EXPECT_EQ(results[1]["in_place"]["nwrong"], 4);
  EXPECT_TRUE(results[1]["root"].is_number_integer());  // nccl-tests: a padded string
}

TEST(ReportToJsonTest, CulpritNamesTheDescheduledRankWithTheSchedule) {
  v1::TestReport report = testing::TwoRankReport();
  v1::SlowestRank& slowest = *report.mutable_slowest_rank();
  slowest.set_rank(1);
  slowest.set_node_name("host2");
  slowest.set_basis("descheduled");
  report.set_culprit(v1::CULPRIT_DESCHEDULED_RANK);
  report.set_culprit_reason("rank 1 (host2 slot 0) was stalled 30.0% of its timed calls");
  v1::ScheduleSummary& schedule = *report.mutable_schedule();
  schedule.set_measurements(4);
  schedule.add_rank_stalled_pct(0.5);
  schedule.add_rank_stalled_pct(30.0);
  schedule.set_flat(false);
  schedule.add_rank_throttled_pct(0.0);
  schedule.add_rank_throttled_pct(2.5);
  EXPECT_EQ(ReportToJson(report)["culprit"], json::parse(R"({
      "kind": "descheduled_rank", "rank": 1, "node": "host2",
      "reason": "rank 1 (host2 slot 0) was stalled 30.0% of its timed calls", "part": null,
      "schedule": {"measurements": 4, "rank_stalled_pct": [0.5, 30.0], "flat": false,
                   "rank_throttled_pct": [0.0, 2.5]},
      "gpu_throttle": null, "counters": []})"));
  report.set_culprit(v1::CULPRIT_UNKNOWN);
  report.clear_schedule();
  const json unknown = ReportToJson(report)["culprit"];
  EXPECT_EQ(unknown["kind"], "unknown");
  EXPECT_TRUE(unknown["rank"].is_null());
  EXPECT_TRUE(unknown["schedule"].is_null());
}

// Issue 29 item 6: a port whose link errors grew is the culprit, named with
// its node and port; every counter that moved is listed; each node's TCP
// counters are in tcp_counters.
TEST(ReportToJsonTest, CulpritNamesThePortAndTheCountersThatMoved) {
  v1::TestReport report = testing::TwoRankReport();
  report.set_culprit(v1::CULPRIT_LINK_ERRORS);
  report.set_culprit_node("host2");
  report.set_culprit_part("mlx5_2 port 1");
  report.set_culprit_reason("host2 mlx5_2 port 1 counted 1,204 symbol_error during the test");
  v1::CounterFinding& link = *report.add_culprit_counters();
  link.set_node_name("host2");
  link.set_part("mlx5_2 port 1");
  link.set_what("counted 1,204 symbol_error");
  link.set_link_errors(true);
  v1::CounterFinding& tcp = *report.add_culprit_counters();
  tcp.set_node_name("host1");
  tcp.set_part("TCP");
  tcp.set_what("retransmitted 2.9% of its 41,200 TCP segments");
  tcp.set_retransmit_pct(2.9);
  v1::TcpEvidence& counters = *report.add_tcp_counters();
  counters.set_node_name("host1");
  v1::PortCounter& out = *counters.add_counters();
  out.set_name("Tcp:OutSegs");
  out.set_before(10);
  out.set_after(40010);
  out.set_delta(40000);
  const json doc = ReportToJson(report);
  EXPECT_EQ(doc["culprit"]["kind"], "link_errors");
  EXPECT_EQ(doc["culprit"]["node"], "host2");
  EXPECT_EQ(doc["culprit"]["part"], "mlx5_2 port 1");
  EXPECT_TRUE(doc["culprit"]["rank"].is_null());
  EXPECT_EQ(doc["culprit"]["counters"], json::parse(R"([
      {"node": "host2", "part": "mlx5_2 port 1", "what": "counted 1,204 symbol_error",
       "link_errors": true},
      {"node": "host1", "part": "TCP", "what": "retransmitted 2.9% of its 41,200 TCP segments",
       "link_errors": false, "retransmit_pct": 2.9}])"));
  EXPECT_EQ(doc["tcp_counters"], json::parse(R"([{"node": "host1", "error": null, "counters":
      {"Tcp:OutSegs": {"before": 10, "after": 40010, "delta": 40000, "reset": false}}}])"));
}

// Issue 29 item 6: a GPU held below its clocks is named with its rank,
// node and GPU; the summary says every rank's share, policy and reasons
// (null for a rank that read none), and each row every rank's counters.
TEST(ReportToJsonTest, CulpritNamesTheThrottledGpuWithTheSummary) {
  v1::TestReport report = testing::TwoRankReport();
  v1::SlowestRank& slowest = *report.mutable_slowest_rank();
  slowest.set_rank(1);
  slowest.set_node_name("host2");
  slowest.set_basis("gpu_throttled");
  report.set_culprit(v1::CULPRIT_GPU_THROTTLED);
  report.set_culprit_node("host2");
  report.set_culprit_part("GPU 3");
  report.set_culprit_reason(
      "rank 1 (host2 slot 0, GPU 3): its GPU was held below its clocks 41.2% of the timed calls "
      "(thermal), the other GPUs at most 0.0%");
  v1::GpuThrottleSummary& gpu = *report.mutable_gpu_throttle();
  gpu.set_measurements(4);
  gpu.add_rank_throttled_pct(-1);
  gpu.add_rank_throttled_pct(41.2);
  gpu.add_rank_policy("");
  gpu.add_rank_policy("thermal");
  gpu.add_rank_reasons(0);
  gpu.add_rank_reasons(0x40);
  gpu.set_flat(false);
  v1::VariantResult& row = *report.mutable_results(0)->mutable_out_of_place();
  row.add_rank_gpu_throttle();  // rank 0 read none
  v1::GpuThrottle& held = *row.add_rank_gpu_throttle();
  held.set_wall_us(1000);
  held.set_thermal_us(412);
  held.set_reasons(0x40);
  held.set_reasons_read(true);
  const json doc = ReportToJson(report);
  EXPECT_EQ(doc["culprit"]["kind"], "gpu_throttled");
  EXPECT_EQ(doc["culprit"]["rank"], 1);
  EXPECT_EQ(doc["culprit"]["node"], "host2");
  EXPECT_EQ(doc["culprit"]["part"], "GPU 3");
  EXPECT_EQ(doc["culprit"]["gpu_throttle"], json::parse(R"({"measurements": 4,
      "rank_throttled_pct": [null, 41.2], "rank_policy": ["", "thermal"],
      "rank_reasons": [0, 64], "flat": false})"));
  EXPECT_EQ(doc["results"][0]["out_of_place"]["rank_gpu_throttle"], json::parse(R"([null,
      {"wall_us": 1000, "power_us": 0, "thermal_us": 412, "sync_boost_us": 0,
       "board_limit_us": 0, "low_utilization_us": 0, "reliability_us": 0, "reasons": 64}])"));
}

// A failed test's culprit names the failed rank (from failures[0]) and its
// node, not slowest_rank (which keeps the arrivals' pick).
TEST(ReportToJsonTest, CulpritOfAFailureNamesTheFailedRank) {
  v1::TestReport report = testing::TwoRankReport();
  report.mutable_slowest_rank()->set_rank(0);
  report.clear_failures();
  v1::Failure& failure = *report.add_failures();
  failure.set_kind(v1::FAILURE_KIND_WORKER_HUNG);
  failure.set_rank(1);
  failure.set_node_name("host2");
  report.set_culprit(v1::CULPRIT_FAILURE);
  report.set_culprit_node("host2");
  report.set_culprit_reason("the test failed at rank 1 (host2 slot 0)");
  const json culprit = ReportToJson(report)["culprit"];
  EXPECT_EQ(culprit["kind"], "failure");
  EXPECT_EQ(culprit["rank"], 1);
  EXPECT_EQ(culprit["node"], "host2");
  // A lost node: no rank.
  failure.set_kind(v1::FAILURE_KIND_NODE_LOST);
  failure.set_rank(-1);
  EXPECT_TRUE(ReportToJson(report)["culprit"]["rank"].is_null());
}

TEST(ReportToJsonTest, NwrongIsNullWithoutCheckIterations) {
  v1::TestReport report = testing::TwoRankReport();
  report.mutable_spec()->set_check_iterations(0);
  const json doc = ReportToJson(report);
  EXPECT_TRUE(doc["results"][1]["in_place"]["nwrong"].is_null());
  EXPECT_EQ(doc["config"]["validation"], 0);
}

TEST(ReportToJsonTest, Verdicts) {
  v1::TestReport report = testing::TwoRankReport();
  json doc = ReportToJson(report);
  EXPECT_EQ(doc["out_of_bounds"], json::parse(R"({"count": 4, "okay": false})"));
  // A report stored before the judged figures: judged is the shown one.
  EXPECT_EQ(doc["average_bus_bandwidth"],
            json::parse(R"({"bandwidth": 52.99, "judged": 52.99, "okay": true})"));
  // P2-4d: okay is the judged figure's, which no node's ranks can raise.
  v1::TestReport lied = report;
  lied.mutable_spec()->set_min_busbw_gbps(50);
  lied.set_judged_avg_busbw_gbps(5.299);
  lied.set_rank_times_finding("node a's ranks reported times 10.0x shorter than node b's");
  doc = ReportToJson(lied);
  EXPECT_EQ(doc["average_bus_bandwidth"],
            json::parse(R"({"bandwidth": 52.99, "judged": 5.299, "okay": false})"));
  EXPECT_EQ(doc["rank_times_finding"], lied.rank_times_finding());

  report.mutable_spec()->set_min_busbw_gbps(60);
  report.set_wrong_elements(0);
  doc = ReportToJson(report);
  EXPECT_EQ(doc["out_of_bounds"]["okay"], true);
  EXPECT_EQ(doc["average_bus_bandwidth"]["okay"], false);

  report.mutable_spec()->set_min_busbw_gbps(0);
  EXPECT_EQ(ReportToJson(report)["average_bus_bandwidth"]["okay"], "unchecked");
}

TEST(ReportToJsonTest, FailuresAndErrors) {
  const json doc = ReportToJson(testing::TwoRankReport());
  EXPECT_EQ(doc["failures"], json::parse(R"([
      {"kind": "worker_exited", "rank": 1, "node": "host2", "local_rank": 0, "device": -1,
       "message": "rank 1 on host2 slot 0 was killed by signal 9", "exit_code": -1,
       "signal": 9, "measured_busbw_gbps": 0, "nccl_warnings": []}])"))
      << doc["failures"].dump(2);
  EXPECT_EQ(doc["errors"], json::parse(R"(["rank 1 on host2 slot 0 was killed by signal 9"])"));
}

TEST(ReportToJsonTest, NcclRasStatusPerNode) {
  v1::TestReport report = testing::TwoRankReport();
  v1::NcclRasStatus& answered = *report.add_nccl_ras();
  answered.set_node_name("host1");
  answered.set_port(28100);
  answered.set_text("Errors\n======\nINCOMPLETE\n");
  v1::NcclRasStatus& silent = *report.add_nccl_ras();
  silent.set_node_name("host2");
  silent.set_port(28200);
  silent.set_error("RAS accepted the connection but did not answer within 3s");
  EXPECT_EQ(ReportToJson(report)["nccl_ras"], json::parse(R"([
      {"node": "host1", "port": 28100, "text": "Errors\n======\nINCOMPLETE\n",
       "truncated": false, "error": null},
      {"node": "host2", "port": 28200, "text": "", "truncated": false,
       "error": "RAS accepted the connection but did not answer within 3s"}])"));
}

TEST(ReportToJsonTest, WhatNcclUsedPerRank) {
  // Issue 29, item 4: unknown values are null.
  v1::TestReport report = testing::TwoRankReport();
  v1::RankNicUse& use = *report.add_nic_use();
  use.set_rank(1);
  use.set_node_name("host2");
  use.add_nics("mlx5_100");
  use.set_info_level(true);
  use.set_net_transport("IB");
  use.add_net_devices("mlx5_100");
  v1::NcclChannelPath& channel = *use.add_channels();
  channel.set_channel(2);
  channel.set_peer_rank(0);
  channel.set_path("NET/IB/0/GDRDMA");
  channel.set_nic("mlx5_100");
  channel.set_send(true);
  use.set_coll_channels(4);
  use.set_gdr(true);
  use.add_intra_transports("P2P/CUMEM");
  use.add_nccl_env("NCCL_IB_RESILIENCY_PORT_FAILOVER=0");
  use.add_findings("used mlx5_100 for rail 1 (expected mlx5_101)");
  v1::RankNicUse& unknown = *report.add_nic_use();
  unknown.set_rank(0);
  unknown.set_node_name("host1");
  unknown.set_unknown_reason("no INFO lines");
  EXPECT_EQ(ReportToJson(report)["nic_use"], json::parse(R"json([
      {"rank": 1, "node": "host2", "nics": ["mlx5_100"], "expected_hca": null,
       "unexpected": false, "info_level": true, "nccl_version": null, "net_transport": "IB",
       "net_devices": ["mlx5_100"],
       "channels": [{"channel": 2, "peer_rank": 0, "path": "NET/IB/0/GDRDMA",
                     "nic": "mlx5_100", "send": true}], "channels_dropped": 0,
       "coll_channels": 4, "gdr": true, "intra_transports": ["P2P/CUMEM"],
       "nccl_env": ["NCCL_IB_RESILIENCY_PORT_FAILOVER=0"],
       "findings": ["used mlx5_100 for rail 1 (expected mlx5_101)"], "unknown_reason": null
},
      {"rank": 0, "node": "host1", "nics": [], "expected_hca": null, "unexpected": false,
       "info_level": false, "nccl_version": null, "net_transport": null, "net_devices": [],
       "channels": [], "channels_dropped": 0, "coll_channels": null, "gdr": null, "intra_transports": [],
       "nccl_env": [], "findings": [], "unknown_reason": "no INFO lines"}])json"));
}

TEST(ReportToJsonTest, SlowestRank) {
  const json slowest = ReportToJson(testing::TwoRankReport())["slowest_rank"];
  EXPECT_EQ(slowest["rank"], 1);
  EXPECT_EQ(slowest["node"], "host2");
  EXPECT_EQ(slowest["local_rank"], 0);
  EXPECT_EQ(slowest["slowest_count"], 3);
  EXPECT_EQ(slowest["measurements"], 4);
  // (11/10.5 - 1), (1269.12/1234.56 - 1), (1430/1300 - 1), averaged, in percent.
  const double expected = (11.0 / 10.5 + 1269.12 / 1234.56 + 1430.0 / 1300.0 - 3.0) / 3.0 * 100.0;
  EXPECT_NEAR(slowest["mean_excess_pct"].get<double>(), expected, 1e-9);
}

TEST(ReportToJsonTest, ArrivalsStragglerAndRails) {
  v1::TestReport report = testing::TwoRankReport();
  report.mutable_results(0)->mutable_out_of_place()->add_rank_arrival_us(3.5);
  report.mutable_results(0)->mutable_out_of_place()->add_rank_arrival_us(30003.5);
  report.mutable_slowest_rank()->set_basis("arrival");
  report.mutable_slowest_rank()->set_mean_lag_us(30000);
  report.mutable_arrivals()->set_measurements(4);
  report.mutable_arrivals()->set_late_measurements(4);
  report.mutable_arrivals()->set_max_lag_us(30100);
  v1::RailResult& rail = *report.add_rails();
  rail.set_rail(0);
  v1::RailMember& member = *rail.add_members();
  member.set_rank(1);
  member.set_node_name("host2");
  member.set_device_index(3);
  member.set_gpu_pci_bus_id("0000:4f:00.0");
  member.set_hca("mlx5_103");
  *rail.add_results() = report.results(0);
  rail.set_avg_busbw_gbps(9);
  rail.set_busbw_ratio(0.5);
  rail.set_slow(true);
  rail.mutable_straggler()->set_rank(1);
  rail.mutable_straggler()->set_node_name("host2");
  rail.mutable_straggler()->set_slowest_count(2);
  rail.mutable_straggler()->set_measurements(2);
  rail.mutable_straggler()->set_mean_lag_us(700);
  const json doc = ReportToJson(report);
  EXPECT_EQ(doc["results"][0]["out_of_place"]["rank_arrivals"], json::parse("[3.5, 30003.5]"));
  EXPECT_EQ(doc["slowest_rank"]["basis"], "arrival");
  EXPECT_EQ(doc["slowest_rank"]["mean_lag_us"], 30000.0);
  EXPECT_EQ(doc["arrivals"], json::parse(R"({"measurements": 4, "late_measurements": 4,
                                             "max_lag_us": 30100.0, "flat": false})"));
  ASSERT_EQ(doc["rails"].size(), 1u);
  const json& r = doc["rails"][0];
  EXPECT_EQ(r["rail"], 0);
  EXPECT_EQ(r["members"], json::parse(R"([{"rank": 1, "node": "host2", "device": 3,
                                          "gpu_pci_bus_id": "0000:4f:00.0", "hca": "mlx5_103"}])"));
  EXPECT_EQ(r["results"][0], doc["results"][0]);
  EXPECT_EQ(r["avg_busbw"], 9.0);
  EXPECT_EQ(r["busbw_ratio"], 0.5);
  EXPECT_EQ(r["slow"], true);
  EXPECT_EQ(r["straggler"], json::parse(R"({"rank": 1, "node": "host2", "late_count": 2,
                                            "measurements": 2, "mean_lag_us": 700.0})"));
}

TEST(ReportToJsonTest, SlowestRankOutsideTheRankMapHasNoNode) {
  v1::TestReport report = testing::TwoRankReport();
  report.mutable_slowest_rank()->set_rank(7);
  report.mutable_slowest_rank()->clear_node_name();
  report.mutable_slowest_rank()->set_local_rank(-1);
  const json slowest = ReportToJson(report)["slowest_rank"];
  EXPECT_EQ(slowest["rank"], 7);
  EXPECT_TRUE(slowest["node"].is_null());
  EXPECT_TRUE(slowest["local_rank"].is_null());
  EXPECT_EQ(slowest["slowest_count"], 3);
}

TEST(ReportToJsonTest, AcceptedReportHasNullsWhereNothingIsKnownYet) {
  v1::TestReport report = testing::TwoRankReport();
  report.set_state(v1::TEST_STATE_LAUNCHING);
  report.set_start_time_unix_ms(0);
  report.set_end_time_unix_ms(0);
  report.clear_results();
  report.clear_failures();
  report.clear_summary();
  report.clear_slowest_rank();  // set only when the test finishes
  report.set_wrong_elements(0);
  const json doc = ReportToJson(report);
  EXPECT_EQ(doc["state"], "launching");
  EXPECT_TRUE(doc["start_time"].is_null());
  EXPECT_TRUE(doc["end_time"].is_null());
  EXPECT_TRUE(doc["slowest_rank"].is_null());
  EXPECT_EQ(doc["results"], json::array());
  EXPECT_EQ(doc["failures"], json::array());
  EXPECT_EQ(doc["errors"], json::array());
  EXPECT_EQ(doc["exit_code"], 0);
}

TEST(ReportToJsonTest, SerializesToValidJson) {
  const std::string text = ReportToJson(testing::TwoRankReport()).dump();
  EXPECT_EQ(json::parse(text), ReportToJson(testing::TwoRankReport()));
}

// A GPU node with every field of NodeStatus and its inventory set.
void SetEveryField(v1::NodeStatus* node) {
  node->set_node_name("gpu-01");
  node->set_peer_address("ipv4:10.0.0.1:50000");
  node->set_state(v1::NODE_STATE_BUSY);
  node->set_heartbeat_age_ms(420);
  node->set_current_test_id("t-1");
  v1::NodeInventory* inventory = node->mutable_inventory();
  inventory->set_hostname("gpu-01.example.com");
  inventory->set_host_id("boot_id:5f2a7c1e");
  inventory->set_worker_slots(8);
  v1::GpuInfo* gpu = inventory->add_gpus();
  gpu->set_index(0);
  gpu->set_name("NVIDIA H200");
  gpu->set_pci_bus_id("0000:0a:00.0");
  gpu->set_memory_bytes(int64_t{141} << 30);
  gpu->set_nearest_hca("mlx5_0");
  gpu->set_numa_node(0);
  gpu->set_hca_affinity("same PCIe switch");
  v1::HcaInfo* hca = inventory->add_hcas();
  hca->set_name("mlx5_0");
  hca->set_port(1);
  hca->set_state("ACTIVE");
  hca->set_phys_state("LinkUp");
  hca->set_fw_ver("28.39.1002");
  hca->set_pci_bus_id("0000:0b:00.0");
  hca->set_numa_node(0);
  hca->set_link_layer("InfiniBand");
  hca->set_rate_gbps(400);
  v1::HcaInfo* missing = inventory->add_hcas();
  missing->set_name("mlx5_7");
  missing->set_port(1);
  missing->set_error("HCA mlx5_7 does not exist (/sys/class/infiniband lists mlx5_0)");
  v1::NetworkInterface* iface = inventory->add_interfaces();
  iface->set_name("eth0");
  iface->add_addresses("10.0.0.1");
  iface->set_up(true);
  iface->set_mtu_bytes(9000);
  iface->set_speed_mbps(100000);
  inventory->set_bootstrap_interface("eth0");
  inventory->add_transports(v1::TRANSPORT_GLOO);
  inventory->add_transports(v1::TRANSPORT_NCCL);
  inventory->set_nccl_version("2.28.9");
  inventory->set_driver_version("580.65");
  inventory->set_agent_version("0.1.0");
}

TEST(NodesToJsonTest, EveryField) {
  v1::ListNodesReply reply;
  SetEveryField(reply.add_nodes());
  reply.add_nodes()->set_node_name("cpu-01");

  const json doc = NodesToJson(reply);
  EXPECT_EQ(doc["schema"], "ebnccl.node_list");
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_EQ(doc["nodes"].size(), 2u);
  EXPECT_EQ(doc["nodes"][0], json::parse(R"json({
      "name": "gpu-01", "address": "ipv4:10.0.0.1:50000", "state": "busy",
      "heartbeat_age_ms": 420, "current_test": "t-1", "hostname": "gpu-01.example.com",
      "host_id": "boot_id:5f2a7c1e", "slots": 8,
      "gpus": [{"index": 0, "name": "NVIDIA H200", "pci_bus_id": "0000:0a:00.0",
                "memory_bytes": 151397597184, "numa_node": 0, "nearest_hca": "mlx5_0",
                "hca_affinity": "same PCIe switch"}],
      "hcas": [{"name": "mlx5_0", "port": 1, "state": "ACTIVE", "link_layer": "InfiniBand",
                "rate_gbps": 400, "error": "", "phys_state": "LinkUp", "fw_ver": "28.39.1002",
                "pci_bus_id": "0000:0b:00.0", "numa_node": 0},
               {"name": "mlx5_7", "port": 1, "state": "", "link_layer": "", "rate_gbps": 0,
                "error": "HCA mlx5_7 does not exist (/sys/class/infiniband lists mlx5_0)",
                "phys_state": "", "fw_ver": "", "pci_bus_id": "", "numa_node": null}],
      "interfaces": [{"name": "eth0", "addresses": ["10.0.0.1"], "up": true, "mtu_bytes": 9000,
                      "speed_mbps": 100000}],
      "bootstrap_interface": "eth0", "transports": ["gloo", "nccl"], "nccl_version": "2.28.9",
      "driver_version": "580.65", "agent_version": "0.1.0"})json"))
      << doc["nodes"][0].dump(2);
  EXPECT_EQ(doc["nodes"][1]["state"], "unspecified");
  EXPECT_TRUE(doc["nodes"][1]["current_test"].is_null());
  EXPECT_EQ(doc["nodes"][1]["gpus"], json::array());
}

// What WriteNodesJson writes.
std::string WrittenNodesJson(const v1::ListNodesReply& reply) {
  std::ostringstream out;
  WriteNodesJson(reply, out);
  return out.str();
}

TEST(WriteNodesJsonTest, WritesTheTreesIndentedDump) {
  v1::ListNodesReply reply;
  EXPECT_EQ(WrittenNodesJson(reply), NodesToJson(reply).dump(2));
  reply.set_insecure(true);
  for (int i = 0; i < 3; ++i) {
    v1::NodeStatus* node = reply.add_nodes();
    node->set_node_name(absl::StrCat("node-", i, "\n\"quoted\""));
    node->mutable_inventory()->add_gpus()->set_name("NVIDIA H200");
    node->mutable_inventory()->add_interfaces()->add_addresses("10.0.0.1");
    if (i == 1) node->set_last_verdict(v1::VERDICT_DEGRADED);
  }
  EXPECT_EQ(WrittenNodesJson(reply), NodesToJson(reply).dump(2));
  EXPECT_EQ(json::parse(WrittenNodesJson(reply)), NodesToJson(reply));
  // Every field, nulls and none, strings JSON must escape, UTF-8, and a
  // judged node's last_validation: byte for byte what nlohmann writes.
  v1::NodeStatus* rich = reply.add_nodes();
  SetEveryField(rich);
  rich->set_node_name("gpu-\"01\"\\\t\x01\x7f\u00e9\u4e2d");
  rich->set_heartbeat_age_ms(-420);
  rich->set_last_verdict(v1::VERDICT_FAILED);
  rich->set_last_validation_id("v-9");
  rich->set_last_verdict_time_unix_ms(1764000000123);
  rich->set_bad_verdict_count(2);
  rich->mutable_inventory()->add_gpus()->set_index(1);  // no NUMA node, no HCA
  rich->mutable_inventory()->mutable_hcas(1)->set_error("HCA mlx5_7 does not exist\n");
  rich->mutable_inventory()->mutable_interfaces(0)->add_addresses("fe80::1%eth0");
  rich->mutable_inventory()->add_interfaces()->set_name("ib0");
  reply.add_nodes();  // every field unset
  EXPECT_EQ(WrittenNodesJson(reply), NodesToJson(reply).dump(2));

  // More nodes than one chunk of output holds (256 KiB).
  for (int i = 0; i < 300; ++i) {
    v1::NodeStatus* node = reply.add_nodes();
    node->set_node_name(absl::StrCat("node-", i));
    for (int g = 0; g < 8; ++g) node->mutable_inventory()->add_gpus()->set_index(g);
  }
  const std::string written = WrittenNodesJson(reply);
  EXPECT_GT(written.size(), size_t{512} << 10);
  EXPECT_EQ(written, NodesToJson(reply).dump(2));
}

TEST(NodesToJsonTest, Empty) {
  EXPECT_EQ(NodesToJson(v1::ListNodesReply()),
            json::parse(R"({"schema": "ebnccl.node_list", "schema_version": 1, "insecure": false,
                             "nodes": []})"));
  v1::ListNodesReply insecure;
  insecure.set_insecure(true);
  EXPECT_EQ(NodesToJson(insecure)["insecure"], true);
}

TEST(TestListToJsonTest, WrapsEachReportInOrder) {
  v1::ListTestsReply reply;
  *reply.add_tests() = testing::TwoRankReport();
  reply.mutable_tests(0)->clear_results();
  reply.add_tests()->set_test_id("t-older");
  const json doc = TestListToJson(reply, "9.9.9");
  EXPECT_EQ(doc["schema"], "ebnccl.test_list");
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_EQ(doc["tests"].size(), 2u);
  // Without args: the list's command line is not the tests'.
  json expected = ReportToJson(reply.tests(0), "9.9.9");
  expected.erase("args");
  EXPECT_EQ(doc["tests"][0], expected);
  EXPECT_FALSE(doc["tests"][1].contains("args"));
  EXPECT_EQ(doc["tests"][1]["test_id"], "t-older");
  EXPECT_EQ(doc.size(), 3u) << doc.dump(2);
}

TEST(TestListToJsonTest, Empty) {
  EXPECT_EQ(TestListToJson(v1::ListTestsReply()),
            json::parse(R"({"schema": "ebnccl.test_list", "schema_version": 1, "tests": []})"));
}

}  // namespace
}  // namespace eb::ebctl
