#include "agent/host/proc_net.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/io/bounded_file.h"

namespace eb::agent {

TcpSnapshot ReadTcpSnapshot(absl::string_view proc_net) {
  const std::string snmp_file = absl::StrCat(proc_net, "/snmp");
  const std::string netstat_file = absl::StrCat(proc_net, "/netstat");
  absl::StatusOr<std::string> snmp =
      common::ReadBoundedFile(snmp_file, common::FileKind::kProcTable);
  if (!snmp.ok()) {
    TcpSnapshot failed;
    failed.error = std::string(snmp.status().message());
    return failed;
  }
  absl::StatusOr<std::string> netstat =
      common::ReadBoundedFile(netstat_file, common::FileKind::kProcTable);
  // TcpExt is a help, not the evidence: without it, Tcp's counters alone.
  return ParseTcpSnapshot(*snmp, snmp_file, netstat.ok() ? *netstat : std::string(), netstat_file);
}

}  // namespace eb::agent
