#include "coordinator/ebctl/commands/audit_command.h"

#include <iostream>

#include "common/rpc/channel.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/audit_output.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

int AuditCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  v1::ListAuditRequest request;
  request.set_limit(limit);
  v1::ListAuditReply reply;
  grpc::Status status = stub.ListAudit(&context, request, &reply);
  if (!status.ok()) return RpcFailed("reading the audit log", status, true);
  if (options.json) {
    std::cout << AuditToJson(reply).dump(2) << std::endl;
  } else {
    std::cout << AuditTable(reply) << std::flush;
  }
  return kExitOk;
}

}  // namespace eb::ebctl
