#include "coordinator/ebctl/commands/topology_command.h"

#include <iostream>

#include "common/rpc/channel.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/topology_output.h"

namespace eb::ebctl {

int TopologyCommand::Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  ebnccl::v1::GetTopologyReply reply;
  grpc::Status status = stub.GetTopology(&context, {}, &reply);
  if (!status.ok()) return RpcFailed("reading the topology", status, true);
  if (options.json) {
    std::cout << TopologyToJson(reply).dump(2) << std::endl;
  } else {
    std::cout << TopologyText(reply) << std::flush;
  }
  // A disagreement is a check that failed, as a bad validation finding.
  return TopologyMismatches(reply) ? kExitCheckFailed : kExitOk;
}

}  // namespace eb::ebctl
