#include "coordinator/ebctl/output/audit_output.h"

#include "absl/strings/str_format.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/printable.h"

namespace eb::ebctl {

std::string AuditTable(const ebnccl::v1::ListAuditReply& raw) {
  const ebnccl::v1::ListAuditReply reply = PrintableCopy(raw);
  std::string out = absl::StrFormat("%-24s  %-20s  %-8s  %-16s  %-40s  %s\n", "TIME", "WHO", "ROLE",
                                    "METHOD", "TARGET", "OUTCOME");
  for (const ebnccl::v1::AuditEntry& entry : reply.entries()) {
    std::string outcome = entry.outcome();
    if (!entry.message().empty() && entry.outcome() != "OK") outcome += ": " + entry.message();
    absl::StrAppendFormat(&out, "%-24s  %-20s  %-8s  %-16s  %-40s  %s\n",
                          FormatUtcTime(entry.time_unix_ms()), entry.identity(), entry.role(),
                          entry.method(), entry.target(), outcome);
  }
  return out;
}

nlohmann::json AuditToJson(const ebnccl::v1::ListAuditReply& reply) {
  nlohmann::json entries = nlohmann::json::array();
  for (const ebnccl::v1::AuditEntry& entry : reply.entries()) {
    entries.push_back({{"time", FormatUtcTime(entry.time_unix_ms())},
                       {"time_unix_ms", entry.time_unix_ms()},
                       {"identity", entry.identity()},
                       {"role", entry.role()},
                       {"method", entry.method()},
                       {"target", entry.target()},
                       {"outcome", entry.outcome()},
                       {"message", entry.message()},
                       {"peer", entry.peer()}});
  }
  return {{"schema", kAuditListSchema}, {"schema_version", 1}, {"entries", std::move(entries)}};
}

}  // namespace eb::ebctl
