#include "coordinator/ebctl/commands/logs_command.h"

#include <cstdio>
#include <iostream>

#include "common/rpc/channel.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/report_json.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

int LogsCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(20));
  v1::GetLogRequest request;
  request.set_test_id(test_id);
  request.set_rank(rank);
  request.set_max_bytes(max_bytes);
  v1::GetLogReply reply;
  grpc::Status status = stub.GetLog(&context, request, &reply);
  if (!status.ok()) return RpcFailed("fetching the log", status, true);
  if (options.json) {
    std::cout << LogToJson(test_id, rank, reply).dump(2) << std::endl;
  } else {
    std::fprintf(stderr, "# %s:%s%s\n", reply.node_name().c_str(), reply.path().c_str(),
                 reply.truncated() ? " (end only)" : "");
    std::cout << reply.content() << std::flush;
  }
  return kExitOk;
}

}  // namespace eb::ebctl
