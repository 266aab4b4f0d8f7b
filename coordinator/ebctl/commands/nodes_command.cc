#include "coordinator/ebctl/commands/nodes_command.h"

#include <cstdio>
#include <iostream>

#include "common/rpc/channel.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/nodes_json.h"
#include "coordinator/ebctl/output/nodes_table.h"

namespace eb::ebctl {

int NodesCommand::Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  ebnccl::v1::ListNodesReply reply;
  grpc::Status status = stub.ListNodes(&context, {}, &reply);
  if (!status.ok()) return RpcFailed("listing nodes", status, true);
  if (options.json) {
    WriteNodesJson(reply, std::cout);
    std::cout << std::endl;
  } else {
    if (reply.insecure()) std::cout << "coordinator: INSECURE (plaintext)\n";
    std::cout << NodesTable(reply);
    if (gpus) std::cout << GpusTable(reply);
    std::cout << std::flush;
  }
  if (reply.omitted() > 0) {
    // The coordinator lists at most spec::kMaxListedNodes (docs/SECURITY.md).
    std::fprintf(stderr, "ebctl: %d more nodes are not listed (a listing holds at most %d)\n",
                 reply.omitted(), reply.nodes_size());
  }
  return kExitOk;
}

}  // namespace eb::ebctl
