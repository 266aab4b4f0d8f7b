#include "coordinator/ebctl/commands/tests_command.h"

#include <iostream>

#include "common/rpc/channel.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/report_json.h"
#include "coordinator/ebctl/output/tests_table.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

int TestsCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  v1::ListTestsRequest request;
  request.set_limit(limit);
  v1::ListTestsReply reply;
  grpc::Status status = stub.ListTests(&context, request, &reply);
  if (!status.ok()) return RpcFailed("listing tests", status, true);
  if (options.json) {
    std::cout << TestListToJson(reply).dump(2) << std::endl;
  } else {
    std::cout << TestListTable(reply) << std::flush;
  }
  return kExitOk;
}

}  // namespace eb::ebctl
