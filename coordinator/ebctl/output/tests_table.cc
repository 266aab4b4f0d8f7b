#include "coordinator/ebctl/output/tests_table.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "coordinator/ebctl/output/labels.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

std::string TestListTable(const v1::ListTestsReply& reply) {
  // The COLLECTIVE column is as wide as its longest entry: a test of several
  // collectives lists them all ("all_reduce,broadcast").
  int collective_width = 14;
  for (const v1::TestReport& report : reply.tests()) {
    collective_width =
        std::max(collective_width, static_cast<int>(CollectivesLabel(report.spec()).size()));
  }
  std::string out =
      absl::StrFormat("%-26s  %-24s  %-*s  %-10s  %5s  %-24s  %s\n", "TEST", "START",
                      collective_width, "COLLECTIVE", "STATE", "RANKS", "NODES", "SUMMARY");
  for (const v1::TestReport& report : reply.tests()) {
    std::string nodes;
    for (const std::string& node : TestNodeNames(report)) {
      nodes += (nodes.empty() ? "" : ",") + node;
    }
    absl::StrAppendFormat(&out, "%-26s  %-24s  %-*s  %-10s  %5d  %-24s  %s\n", report.test_id(),
                          FormatUtcTime(report.start_time_unix_ms()), collective_width,
                          CollectivesLabel(report.spec()), StateName(report.state()),
                          report.ranks_size(), nodes, report.summary());
  }
  return out;
}

}  // namespace eb::ebctl
