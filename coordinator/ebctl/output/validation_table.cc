#include "coordinator/ebctl/output/validation_table.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/spec/counted.h"
#include "common/spec/wire_names.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/printable.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

std::string ValidationStateName(v1::ValidationState state) { return spec::WireName(state); }

std::string RoundLine(const v1::ValidationRound& round) {
  std::vector<std::string> tests;
  for (const v1::ValidationTest& t : round.tests())
    tests.push_back(absl::StrJoin(t.node_names(), "+"));
  // A soak repeat: "round 9 (soak repeat 2)".
  const std::string within =
      round.soak()
          ? absl::StrFormat("soak repeat %d", round.suite_round())
          : absl::StrFormat("%s round %d", spec::WireName(round.kind()), round.suite_round());
  return absl::StrFormat("round %d (%s): %s: %s", round.number(), within,
                         spec::Counted(round.tests_size(), "test"), absl::StrJoin(tests, ", "));
}

std::string TestLine(const v1::ValidationTest& test) {
  std::string line =
      absl::StrFormat("  %s %s: %s", test.test_id().empty() ? "-" : test.test_id(),
                      absl::StrJoin(test.node_names(), "+"), spec::WireName(test.outcome()));
  if (test.outcome() == v1::OUTCOME_COMPLETED) {
    absl::StrAppendFormat(&line, ", %.3g GB/s", test.busbw_gbps());
  } else if (!test.message().empty()) {
    absl::StrAppend(&line, " (", test.message(), ")");
  }
  return line;
}

namespace {

// "leaf-r3-00 (0x7cfe...) port 5,6" or "node0007 mlx5_3".
std::string EndText(const v1::LinkEnd& end) {
  if (end.switch_name().empty()) return absl::StrCat(end.node_name(), " ", end.hca());
  std::string out = end.switch_name();
  if (!end.switch_guid().empty()) absl::StrAppend(&out, " (", end.switch_guid(), ")");
  if (!end.ports().empty()) absl::StrAppend(&out, " port ", absl::StrJoin(end.ports(), ","));
  return out;
}

// Bad fabric links (issue 31), one line each, then their evidence.
void AppendLinks(const v1::ValidationReport& report, std::string& out) {
  if (report.links().empty()) return;
  absl::StrAppend(&out, "\nbad links:\n");
  for (const v1::LinkVerdict& l : report.links()) {
    absl::StrAppendFormat(&out, "  %s <-> %s (rail %d): %s (%s), %.0f%% of expected: %s\n",
                          EndText(l.end_a()), EndText(l.end_b()), l.rail(),
                          spec::WireName(l.verdict()), spec::WireName(l.confidence()),
                          100 * l.busbw_ratio(), l.reason());
    if (!l.inseparable_from().empty()) {
      absl::StrAppend(&out, "      or (no pair test can tell them apart): ",
                      absl::StrJoin(l.inseparable_from(), "; "), "\n");
    }
    for (const v1::ValidationEvidence& e : l.evidence()) {
      absl::StrAppend(&out, "      ", e.text(), "\n");
    }
  }
}

}  // namespace

std::string ValidationTable(const v1::ValidationReport& raw) {
  const v1::ValidationReport report = PrintableCopy(raw);
  std::string out = absl::StrFormat("validation %s: %s\n\n", report.validation_id(),
                                    ValidationStateName(report.state()));
  // Each column as wide as its longest word: "CONFIDENCE" and
  // "untestable" are 10 (the header once overran a 9-wide column).
  absl::StrAppendFormat(&out, "%-20s  %-10s  %-10s  %s\n", "NODE", "VERDICT", "CONFIDENCE",
                        "REASON / EVIDENCE");
  for (const v1::NodeVerdict& node : report.nodes()) {
    const bool healthy = node.verdict() == v1::VERDICT_HEALTHY;
    absl::StrAppendFormat(&out, "%-20s  %-10s  %-10s  %s\n", node.node_name(),
                          spec::WireName(node.verdict()),
                          healthy ? "" : spec::WireName(node.confidence()), node.reason());
    if (healthy) continue;
    for (const v1::ValidationEvidence& e : node.evidence()) {
      absl::StrAppendFormat(&out, "%-20s  %-10s  %-10s    %s\n", "", "", "", e.text());
    }
  }
  if (!report.paths().empty()) {
    absl::StrAppend(&out, "\nbad paths:\n");
    for (const v1::PathVerdict& p : report.paths()) {
      absl::StrAppendFormat(&out, "  %s <-> %s: %s (%s): %s\n", p.node_a(), p.node_b(),
                            spec::WireName(p.verdict()), spec::WireName(p.confidence()),
                            p.reason());
    }
  }
  if (!report.rails().empty()) {
    absl::StrAppend(&out, "\nbad rails:\n");
    for (const v1::RailVerdict& r : report.rails()) {
      absl::StrAppendFormat(&out, "  %s rail %d: %s (%s): %s\n", r.node_name(), r.rail(),
                            spec::WireName(r.verdict()), spec::WireName(r.confidence()),
                            r.reason());
    }
  }
  AppendLinks(report, out);
  if (!report.skipped().empty()) {
    absl::StrAppend(&out, "\nleft out (the scheduler holds them; not tested):\n");
    for (const v1::SkippedNode& skipped : report.skipped()) {
      absl::StrAppendFormat(&out, "  %s: %s\n", skipped.node_name(), skipped.reason());
    }
  }
  if (!report.findings().empty()) {
    absl::StrAppend(&out, "\nfindings:\n");
    for (const v1::ValidationFinding& f : report.findings()) {
      absl::StrAppendFormat(&out, "  %s%s: %s\n", f.bad() ? "! " : "", spec::WireName(f.kind()),
                            f.text());
    }
  }
  absl::StrAppendFormat(&out, "\n%s; %s\n", spec::Counted(report.rounds_size(), "round"),
                        report.summary());
  return out;
}

std::string ValidationListTable(const v1::ListValidationsReply& raw) {
  const v1::ListValidationsReply reply = PrintableCopy(raw);
  std::string out = absl::StrFormat("%-26s  %-24s  %-10s  %5s  %6s  %s\n", "VALIDATION", "START",
                                    "STATE", "NODES", "ROUNDS", "SUMMARY");
  for (const v1::ValidationReport& report : reply.validations()) {
    absl::StrAppendFormat(&out, "%-26s  %-24s  %-10s  %5d  %6d  %s\n", report.validation_id(),
                          FormatUtcTime(report.start_time_unix_ms()),
                          ValidationStateName(report.state()), report.nodes_size(),
                          report.rounds_size(), report.summary());
  }
  return out;
}

}  // namespace eb::ebctl
