#include "coordinator/ebctl/commands/tests_command.h"

#include <cstdio>
#include <iostream>

#include "absl/time/clock.h"
#include "common/rpc/channel.h"
#include "common/spec/limits.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/report_json.h"
#include "coordinator/ebctl/output/tests_filter.h"
#include "coordinator/ebctl/output/tests_table.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

int TestsCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  absl::StatusOr<TestsFilter> filter = ParseTestsFilter(nodes, states, since, absl::Now());
  if (!filter.ok()) {
    std::fprintf(stderr, "ebctl: %s\n", std::string(filter.status().message()).c_str());
    return kExitUsage;
  }
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  v1::ListTestsRequest request;
  // A filter looks further back than --limit: the newest tests the
  // coordinator will list, of which the first --limit matches are shown.
  request.set_limit(filter->empty() ? limit : spec::kMaxListedTests);
  v1::ListTestsReply reply;
  grpc::Status status = stub.ListTests(&context, request, &reply);
  if (!status.ok()) return RpcFailed("listing tests", status, true);
  if (!filter->empty()) reply = FilterTests(reply, *filter, limit);
  if (options.json) {
    std::cout << TestListToJson(reply).dump(2) << std::endl;
  } else {
    std::cout << TestListTable(reply) << std::flush;
  }
  return kExitOk;
}

}  // namespace eb::ebctl
