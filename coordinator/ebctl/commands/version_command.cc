#include "coordinator/ebctl/commands/version_command.h"

#include <iostream>

#include "common/rpc/channel.h"
#include "common/spec/terminal_text.h"
#include "common/version/version.h"
#include "coordinator/ebctl/exit_codes.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

int VersionCommand::Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  ebnccl::v1::ListNodesReply reply;
  grpc::Status status = stub.ListNodes(&context, {}, &reply);
  if (!status.ok()) {
    std::cout << "ebctl " << kVersion << std::endl;
    return RpcFailed("asking the coordinator its version", status, true);
  }
  const std::string coordinator =
      reply.coordinator_version().empty() ? "unknown" : reply.coordinator_version();
  if (options.json) {
    nlohmann::json out = {
        {"schema", "ebnccl.version"},
        {"schema_version", 1},
        {"ebctl", kVersion},
        {"coordinator", reply.coordinator_version().empty() ? nlohmann::json(nullptr)
                                                            : nlohmann::json(coordinator)}};
    std::cout << out.dump(2) << std::endl;
  } else {
    std::cout << "ebctl " << kVersion << "\ncoordinator " << spec::Printable(coordinator) << " ("
              << options.coordinator << ")" << std::endl;
  }
  return kExitOk;
}

}  // namespace eb::ebctl
