#include "coordinator/validation/report_proto.h"

#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/spec/counted.h"

namespace eb::validation {

namespace v1 = ebnccl::v1;

namespace {

void FillEnd(const LinkEnd& end, v1::LinkEnd& out) {
  out.set_switch_name(end.switch_name);
  out.set_switch_guid(end.switch_guid);
  for (int port : end.ports) out.add_ports(port);
  out.set_node_name(end.node);
  out.set_hca(end.hca);
}

void FillEvidence(const Evidence& e, const TestIdOf& test_id_of, v1::ValidationEvidence& out) {
  if (e.test_id > 0) out.set_test_id(test_id_of(e.test_id));
  out.set_round(e.round);
  out.set_kind(ToWire(e.kind));
  for (const std::string& partner : e.partners) out.add_partners(partner);
  out.set_rail(e.rail.value_or(-1));
  out.set_outcome(ToWire(e.outcome));
  out.set_measured_busbw_gbps(e.measured_gbps);
  out.set_threshold_busbw_gbps(e.threshold_gbps);
  out.set_expected_busbw_gbps(e.expected_gbps.value_or(0));
  out.set_fleet_median_busbw_gbps(e.fleet_median_gbps.value_or(0));
  out.set_grade(ToWire(e.grade));
  out.set_text(e.text);
}

}  // namespace

std::string ValidationSummary(const ValidationReport& report) {
  // Verdicts in the order of Verdict, with the nodes of each bad one.
  std::map<Verdict, std::vector<std::string>> by_verdict;
  for (const NodeVerdict& node : report.nodes) by_verdict[node.verdict].push_back(node.node);
  std::vector<std::string> parts;
  for (const auto& [verdict, nodes] : by_verdict) {
    std::string part = absl::StrCat(nodes.size(), " ", VerdictName(verdict));
    if (verdict != Verdict::kHealthy) absl::StrAppend(&part, " (", absl::StrJoin(nodes, ", "), ")");
    parts.push_back(std::move(part));
  }
  std::string summary =
      absl::StrCat(spec::Counted(static_cast<int64_t>(report.nodes.size()), "node"), ": ",
                   absl::StrJoin(parts, ", "));
  if (!report.paths.empty()) {
    absl::StrAppend(&summary, "; ",
                    spec::Counted(static_cast<int64_t>(report.paths.size()), "bad path"));
  }
  if (!report.rails.empty()) {
    absl::StrAppend(&summary, "; ",
                    spec::Counted(static_cast<int64_t>(report.rails.size()), "bad rail"));
  }
  if (!report.links.empty()) {
    absl::StrAppend(&summary, "; ",
                    spec::Counted(static_cast<int64_t>(report.links.size()), "bad link"));
  }
  return summary;
}

void FillVerdicts(const ValidationReport& report, const TestIdOf& test_id_of,
                  v1::ValidationReport& out) {
  out.clear_nodes();
  out.clear_paths();
  out.clear_rails();
  out.clear_links();
  out.clear_findings();
  for (const NodeVerdict& node : report.nodes) {
    v1::NodeVerdict& n = *out.add_nodes();
    n.set_node_name(node.node);
    n.set_verdict(ToWire(node.verdict));
    n.set_confidence(ToWire(node.confidence));
    n.set_reason(node.reason);
    for (int rail : node.bad_rails) n.add_bad_rails(rail);
    n.set_network_judged(node.network_judged);
    for (int rail : node.judged_rails) n.add_judged_rails(rail);
    for (const Evidence& e : node.evidence) FillEvidence(e, test_id_of, *n.add_evidence());
  }
  for (const PathVerdict& path : report.paths) {
    v1::PathVerdict& p = *out.add_paths();
    p.set_node_a(path.a);
    p.set_node_b(path.b);
    p.set_verdict(ToWire(path.verdict));
    p.set_confidence(ToWire(path.confidence));
    p.set_reason(path.reason);
    for (int rail : path.rails) p.add_rails(rail);
    p.set_routing_collision(path.routing_collision);
    for (const Evidence& e : path.evidence) FillEvidence(e, test_id_of, *p.add_evidence());
  }
  for (const RailVerdict& rail : report.rails) {
    v1::RailVerdict& r = *out.add_rails();
    r.set_node_name(rail.node);
    r.set_rail(rail.rail);
    r.set_verdict(ToWire(rail.verdict));
    r.set_confidence(ToWire(rail.confidence));
    r.set_reason(rail.reason);
  }
  for (const LinkVerdict& link : report.links) {
    v1::LinkVerdict& l = *out.add_links();
    FillEnd(link.a, *l.mutable_end_a());
    FillEnd(link.b, *l.mutable_end_b());
    l.set_rail(link.rail);
    l.set_verdict(ToWire(link.verdict));
    l.set_confidence(ToWire(link.confidence));
    l.set_reason(link.reason);
    l.set_busbw_ratio(link.ratio);
    for (const std::string& other : link.inseparable_from) l.add_inseparable_from(other);
    for (const Evidence& e : link.evidence) FillEvidence(e, test_id_of, *l.add_evidence());
  }
  for (const Finding& finding : report.findings) {
    v1::ValidationFinding& f = *out.add_findings();
    f.set_kind(ToWire(finding.kind));
    f.set_bad(finding.bad);
    f.set_text(finding.text);
  }
  out.set_summary(ValidationSummary(report));
  out.set_any_bad(report.AnyBad());
}

void FillBaselines(const BaselineTable& table, const std::string& origin, const std::string& error,
                   v1::ValidationReport& out) {
  out.set_baselines_origin(error.empty() ? origin : "");
  out.set_baselines_error(error);
  out.clear_baselines();
  for (const IntraBaseline& b : table.intra) {
    v1::BaselineUsed& row = *out.add_baselines();
    row.set_suite(v1::SUITE_INTRA);
    row.set_gpu_model(b.gpu_model);
    row.set_gpu_count(b.gpu_count);
    row.set_busbw_gbps(b.busbw_gbps);
    row.set_source(b.source);
    row.set_collective(b.at.collective);
    row.set_size_bytes(b.at.size_bytes);
  }
  for (const PairBaseline& b : table.pairs) {
    v1::BaselineUsed& row = *out.add_baselines();
    row.set_suite(v1::SUITE_PAIRS);
    row.set_hca_rate_gbps(b.hca_rate_gbps);
    row.set_hca_count(b.hca_count);
    row.set_busbw_gbps(b.busbw_gbps);
    row.set_source(b.source);
    row.set_collective(b.at.collective);
    row.set_size_bytes(b.at.size_bytes);
  }
  for (const GlooPairBaseline& b : table.gloo_pairs) {
    v1::BaselineUsed& row = *out.add_baselines();
    row.set_suite(v1::SUITE_PAIRS);
    row.set_gloo(true);
    row.set_link_mbps(b.link_mbps);
    row.set_busbw_gbps(b.busbw_gbps);
    row.set_source(b.source);
    row.set_collective(b.at.collective);
    row.set_size_bytes(b.at.size_bytes);
  }
}

}  // namespace eb::validation
