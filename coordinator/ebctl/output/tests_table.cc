#include "coordinator/ebctl/output/tests_table.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/printable.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

std::string TestListTable(const v1::ListTestsReply& raw) {
  const v1::ListTestsReply reply = PrintableCopy(raw);
  // The COLLECTIVE column is as wide as its longest entry: a test of several
  // collectives lists them all ("all_reduce,broadcast").
  std::vector<std::string> collectives;
  int collective_width = 14;
  for (const v1::TestReport& report : reply.tests()) {
    collectives.push_back(CollectivesLabel(report.spec()));
    collective_width = std::max(collective_width, static_cast<int>(collectives.back().size()));
  }
  std::string out =
      absl::StrFormat("%-26s  %-24s  %-*s  %-10s  %5s  %-24s  %s\n", "TEST", "START",
                      collective_width, "COLLECTIVE", "STATE", "RANKS", "NODES", "SUMMARY");
  for (int i = 0; i < reply.tests_size(); ++i) {
    const v1::TestReport& report = reply.tests(i);
    absl::StrAppendFormat(&out, "%-26s  %-24s  %-*s  %-10s  %5d  %-24s  %s\n", report.test_id(),
                          FormatUtcTime(report.start_time_unix_ms()), collective_width,
                          collectives[i], StateName(report.state()), report.ranks_size(),
                          absl::StrJoin(TestNodeNames(report), ","), report.summary());
  }
  return out;
}

}  // namespace eb::ebctl
