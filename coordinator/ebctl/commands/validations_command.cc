#include "coordinator/ebctl/commands/validations_command.h"

#include <iostream>

#include "common/rpc/channel.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/validation_json.h"
#include "coordinator/ebctl/output/validation_table.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

int ValidationsCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  v1::ListValidationsRequest request;
  request.set_limit(limit);
  v1::ListValidationsReply reply;
  grpc::Status status = stub.ListValidations(&context, request, &reply);
  if (!status.ok()) return RpcFailed("listing validations", status, true);
  if (options.json) {
    std::cout << ValidationListToJson(reply).dump(2) << std::endl;
  } else {
    std::cout << ValidationListTable(reply) << std::flush;
  }
  return kExitOk;
}

}  // namespace eb::ebctl
