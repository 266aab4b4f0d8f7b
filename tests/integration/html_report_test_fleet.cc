#include "tests/integration/html_report_test_fleet.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/spec/wire_names.h"

namespace eb::testing {
namespace v1 = ebnccl::v1;

namespace {

constexpr int kRails = 8;
constexpr double kPairExpected = 365;  // GB/s, 8 x 400G (deploy/config/baselines.toml)
constexpr double kIntraExpected = 480;
constexpr double kRailExpected = kPairExpected / kRails;
constexpr int64_t kStartMs = 1'800'000'000'000;
constexpr int64_t kRoundMs = 40'000;

bool Slow(int i) { return i % 97 == 13; }
bool BadRail(int i) { return i % 211 == 5; }

class Fleet {
 public:
  Fleet(const std::vector<std::string>& names, uint64_t seed) : names_(names), rng_(seed) {}

  double Noise() { return std::normal_distribution<double>(1, 0.015)(rng_); }
  double NodeFactor(int i) const {
    if (Slow(i)) return 0.6;
    if (BadRail(i)) return (kRails - 0.5) / kRails;  // one rail of eight at half speed
    return 1;
  }
  double PathFactor(int a, int b) const {
    return std::min(a, b) == 1 && std::max(a, b) == 2 ? 0.5 : 1;
  }
  std::mt19937_64& rng() { return rng_; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  const std::vector<std::string>& names_;
  std::mt19937_64 rng_;
};

v1::ValidationEvidence& AddEvidence(v1::NodeVerdict& node, const v1::ValidationTest& test,
                                    int round, int rail, double measured, double expected) {
  v1::ValidationEvidence& e = *node.add_evidence();
  e.set_test_id(test.test_id());
  e.set_round(round);
  e.set_kind(test.kind());
  for (const std::string& other : test.node_names()) {
    if (other != node.node_name()) e.add_partners(other);
  }
  e.set_rail(rail);
  e.set_outcome(test.outcome());
  e.set_measured_busbw_gbps(measured);
  e.set_threshold_busbw_gbps(0.9 * expected);
  e.set_expected_busbw_gbps(expected);
  e.set_fleet_median_busbw_gbps(expected);
  const bool slow = measured < 0.9 * expected;
  e.set_grade(slow ? v1::GRADE_SLOW : v1::GRADE_FINE);
  e.set_text(absl::StrFormat("round %d, %s%s: %.1f GB/s %s threshold %.1f", round,
                             eb::spec::WireName(test.kind()),
                             rail >= 0 ? absl::StrCat(" rail ", rail) : std::string(), measured,
                             slow ? "<" : ">=", 0.9 * expected));
  return e;
}

}  // namespace

std::vector<std::string> FleetNames(int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(absl::StrFormat("node-%04d", i));
  return names;
}

v1::ValidationReport SyntheticValidation(const std::vector<std::string>& names, int pair_rounds,
                                         uint64_t seed) {
  const int n = static_cast<int>(names.size());
  Fleet fleet(names, seed);
  v1::ValidationReport report;
  report.set_schema_version(1);
  report.set_validation_id(absl::StrCat("v-20261202-000000-", n));
  report.set_state(v1::VALIDATION_STATE_DONE);
  report.set_started_by("local");
  report.set_baselines_origin("/etc/ebnccl/baselines.toml");
  v1::ValidationSpec& spec = *report.mutable_spec();
  for (const std::string& name : names) spec.add_node_names(name);
  for (v1::Suite suite : {v1::SUITE_PREFLIGHT, v1::SUITE_INTRA, v1::SUITE_PAIRS}) {
    spec.add_suites(suite);
  }
  spec.set_strategy("adaptive");
  spec.set_tolerance(0.1);
  std::vector<v1::NodeVerdict*> nodes;
  for (const std::string& name : names) {
    v1::NodeVerdict* node = report.add_nodes();
    node->set_node_name(name);
    nodes.push_back(node);
  }
  for (const auto& [suite, busbw] :
       {std::pair<v1::Suite, double>{v1::SUITE_INTRA, kIntraExpected},
        std::pair<v1::Suite, double>{v1::SUITE_PAIRS, kPairExpected}}) {
    v1::BaselineUsed& b = *report.add_baselines();
    b.set_suite(suite);
    b.set_gpu_model("NVIDIA H100 80GB HBM3");
    b.set_gpu_count(8);
    b.set_hca_rate_gbps(400);
    b.set_hca_count(8);
    b.set_busbw_gbps(busbw);
    b.set_source("synthetic");
  }

  int64_t next_test = 0;
  int64_t now = kStartMs;
  auto add_round = [&](v1::TestKind kind, int suite_round) -> v1::ValidationRound& {
    v1::ValidationRound& round = *report.add_rounds();
    round.set_number(report.rounds_size());
    round.set_kind(kind);
    round.set_suite_round(suite_round);
    round.set_start_time_unix_ms(now);
    now += kRoundMs / 2 + static_cast<int64_t>(fleet.rng()() % kRoundMs);
    round.set_end_time_unix_ms(now);
    now += 500;
    return round;
  };
  auto add_test = [&](v1::ValidationRound& round, std::vector<int> members) -> v1::ValidationTest& {
    v1::ValidationTest& test = *round.add_tests();
    test.set_planned_id(++next_test);
    test.set_test_id(absl::StrFormat("t-20261202-%06d-%04x", next_test, next_test * 7919 % 65536));
    for (int m : members) test.add_node_names(names[m]);
    test.set_kind(round.kind());
    test.set_outcome(v1::OUTCOME_COMPLETED);
    test.set_start_time_unix_ms(round.start_time_unix_ms());
    test.set_end_time_unix_ms(round.end_time_unix_ms() -
                              static_cast<int64_t>(fleet.rng()() % 5000));
    return test;
  };

  v1::ValidationRound& intra = add_round(v1::TEST_KIND_INTRA, 1);
  for (int i = 0; i < n; ++i) {
    v1::ValidationTest& test = add_test(intra, {i});
    test.set_purpose("intra-node bandwidth");
    test.set_busbw_gbps(kIntraExpected * (Slow(i) ? 0.6 : 1) * fleet.Noise());
    AddEvidence(*nodes[i], test, intra.number(), -1, test.busbw_gbps(), kIntraExpected);
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  for (int r = 1; r <= pair_rounds && n >= 2; ++r) {
    v1::ValidationRound& round = add_round(v1::TEST_KIND_PAIR, r);
    if (r == 1) {
      std::rotate(order.begin(), order.begin() + 1, order.end());  // 1-2, 3-4, ..., 0 last
    } else {
      std::shuffle(order.begin(), order.end(), fleet.rng());
    }
    for (int k = 0; k + 1 < n; k += 2) {
      const int a = order[k], b = order[k + 1];
      v1::ValidationTest& test = add_test(round, {a, b});
      test.set_purpose(r == 1 ? "pair every node" : "confirm against a trusted partner");
      if (r == 2 && k == 0) {  // one test the infrastructure lost
        test.set_outcome(v1::OUTCOME_INFRA_FAILURE);
        test.set_message("rank 1 on " + names[b] + ": worker exited with code 1");
        continue;
      }
      const double factor =
          std::min(fleet.NodeFactor(a), fleet.NodeFactor(b)) * fleet.PathFactor(a, b);
      test.set_busbw_gbps(kPairExpected * factor * fleet.Noise());
      for (int end : {a, b}) {
        AddEvidence(*nodes[end], test, round.number(), -1, test.busbw_gbps(), kPairExpected);
        if (!BadRail(end)) continue;
        for (int rail = 0; rail < kRails; ++rail) {
          AddEvidence(*nodes[end], test, round.number(), rail,
                      kRailExpected * (rail == 3 ? 0.5 : 1) * fleet.Noise(), kRailExpected);
        }
      }
    }
  }

  int healthy = 0, degraded = 0;
  std::string degraded_names;
  for (int i = 0; i < n; ++i) {
    v1::NodeVerdict& node = *nodes[i];
    node.set_network_judged(pair_rounds > 0 && n >= 2);
    node.set_confidence(v1::CONFIDENCE_CONFIRMED);
    if (Slow(i)) {
      node.set_verdict(v1::VERDICT_DEGRADED);
      node.set_reason("intra: slow (60% of expected); slow in every pair test");
    } else if (BadRail(i)) {
      node.set_verdict(v1::VERDICT_DEGRADED);
      node.set_reason("rail 3 slow in every pair test (50% of expected)");
      node.add_bad_rails(3);
      v1::RailVerdict& rail = *report.add_rails();
      rail.set_node_name(names[i]);
      rail.set_rail(3);
      rail.set_verdict(v1::VERDICT_DEGRADED);
      rail.set_confidence(v1::CONFIDENCE_CONFIRMED);
      rail.set_reason("rail 3 at 50% of expected in every pair test");
    } else {
      node.set_verdict(v1::VERDICT_HEALTHY);
      node.set_reason("intra and pairs did well");
      ++healthy;
      continue;
    }
    ++degraded;
    absl::StrAppend(&degraded_names, degraded_names.empty() ? "" : ", ", names[i]);
  }
  if (n > 2 && pair_rounds > 0) {
    v1::PathVerdict& path = *report.add_paths();
    path.set_node_a(names[1]);
    path.set_node_b(names[2]);
    path.set_verdict(v1::VERDICT_DEGRADED);
    path.set_confidence(v1::CONFIDENCE_SUSPECT);
    path.set_reason("pair 1-2 at 50% of expected; both ends fine with other partners");
  }
  report.set_summary(absl::StrCat(n, " nodes: ", healthy, " healthy, ", degraded, " degraded (",
                                  degraded_names, ")"));
  report.set_any_bad(degraded > 0 || report.paths_size() > 0);
  report.set_start_time_unix_ms(kStartMs);
  report.set_end_time_unix_ms(now);
  return report;
}

int TestedPairs(const v1::ValidationReport& report) {
  std::set<std::pair<std::string, std::string>> pairs;
  for (const v1::ValidationRound& round : report.rounds()) {
    for (const v1::ValidationTest& test : round.tests()) {
      if (test.node_names_size() != 2 || test.kind() == v1::TEST_KIND_INTRA ||
          test.outcome() == v1::OUTCOME_UNSPECIFIED)
        continue;
      pairs.insert(std::minmax(test.node_names(0), test.node_names(1)));
    }
  }
  return static_cast<int>(pairs.size());
}

int FilledRailCells(const v1::ValidationReport& report) {
  // No per-rail result at all: the page draws no rail matrix.
  bool any_rail = report.rails_size() > 0;
  for (const v1::NodeVerdict& node : report.nodes()) {
    any_rail = any_rail || node.bad_rails_size() > 0;
    for (const v1::ValidationEvidence& e : node.evidence()) any_rail = any_rail || e.rail() >= 0;
  }
  if (!any_rail) return 0;
  int cells = 0;
  for (const v1::NodeVerdict& node : report.nodes()) {
    bool per_rail = false;
    for (const v1::ValidationEvidence& e : node.evidence()) per_rail = per_rail || e.rail() >= 0;
    if (per_rail || (node.network_judged() && node.verdict() == v1::VERDICT_HEALTHY))
      cells += kRails;
  }
  return cells;
}

v1::GetTopologyReply RailOptimizedFabric(const std::vector<std::string>& names, int rails,
                                         int nodes_per_leaf, int spines) {
  v1::GetTopologyReply topology;
  topology.set_loaded(true);
  topology.set_format("toml");
  const int leaves = (static_cast<int>(names.size()) + nodes_per_leaf - 1) / nodes_per_leaf;
  for (int rail = 0; rail < rails; ++rail) {
    for (size_t i = 0; i < names.size(); ++i) {
      v1::TopologyCable& cable = *topology.add_cables();
      cable.set_node(names[i]);
      cable.set_hca(absl::StrCat("mlx5_", rail));
      cable.set_rail(rail);
      cable.set_leaf(absl::StrFormat("leaf-r%d-%02d", rail, static_cast<int>(i) / nodes_per_leaf));
      cable.set_leaf_port(static_cast<int>(i) % nodes_per_leaf + 1);
    }
    for (int leaf = 0; leaf < leaves; ++leaf) {
      for (int spine = 0; spine < spines; ++spine) {
        v1::TopologyUplink& uplink = *topology.add_uplinks();
        uplink.set_leaf(absl::StrFormat("leaf-r%d-%02d", rail, leaf));
        uplink.set_leaf_port(nodes_per_leaf + spine + 1);
        uplink.set_spine(absl::StrCat("spine-r", rail, "-", spine));
        uplink.set_spine_port(leaf + 1);
      }
    }
  }
  return topology;
}

v1::LinkVerdict& AddLinkVerdict(v1::ValidationReport& report, const std::string& leaf,
                                const std::string& spine, int rail, bool confirmed) {
  v1::LinkVerdict& link = *report.add_links();
  link.mutable_end_a()->set_switch_name(leaf);
  link.mutable_end_a()->add_ports(17);
  link.mutable_end_b()->set_switch_name(spine);
  link.mutable_end_b()->add_ports(4);
  link.set_rail(rail);
  link.set_verdict(v1::VERDICT_DEGRADED);
  link.set_confidence(confirmed ? v1::CONFIDENCE_CONFIRMED : v1::CONFIDENCE_SUSPECT);
  link.set_busbw_ratio(0.5);
  link.set_reason(
      absl::StrCat("uplink ", leaf, " - ", spine, ": slow in 2 pair tests crossing it"));
  report.set_any_bad(true);
  return link;
}

}  // namespace eb::testing
