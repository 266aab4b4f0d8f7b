#include "coordinator/ebctl/output/tests_table.h"

#include "absl/strings/str_format.h"
#include "common/spec/names.h"
#include "coordinator/ebctl/output/labels.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

std::string TestListTable(const v1::ListTestsReply& reply) {
  std::string out = absl::StrFormat("%-26s  %-24s  %-14s  %-10s  %5s  %-24s  %s\n", "TEST", "START",
                                    "COLLECTIVE", "STATE", "RANKS", "NODES", "SUMMARY");
  for (const v1::TestReport& report : reply.tests()) {
    std::string nodes;
    for (const std::string& node : TestNodeNames(report)) {
      nodes += (nodes.empty() ? "" : ",") + node;
    }
    absl::StrAppendFormat(&out, "%-26s  %-24s  %-14s  %-10s  %5d  %-24s  %s\n", report.test_id(),
                          FormatUtcTime(report.start_time_unix_ms()),
                          spec::DisplayName(report.spec().collective()), StateName(report.state()),
                          report.ranks_size(), nodes, report.summary());
  }
  return out;
}

}  // namespace eb::ebctl
