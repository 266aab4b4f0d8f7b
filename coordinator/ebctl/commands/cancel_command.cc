#include "coordinator/ebctl/commands/cancel_command.h"

#include <cstdio>

#include "common/rpc/channel.h"
#include "coordinator/ebctl/exit_codes.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

int CancelCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& /*options*/) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  v1::CancelTestRequest request;
  request.set_test_id(test_id);
  v1::CancelTestReply reply;
  grpc::Status status = stub.CancelTest(&context, request, &reply);
  if (!status.ok()) return RpcFailed("cancelling the test", status, true);
  std::fprintf(stderr, "ebctl: asked the coordinator to cancel %s\n", test_id.c_str());
  return kExitOk;
}

}  // namespace eb::ebctl
