#include "coordinator/ebctl/commands/test_commands.h"

#include <cstdio>
#include <iostream>

#include "absl/strings/str_format.h"
#include "common/rpc/channel.h"
#include "common/spec/proto_enums.h"
#include "coordinator/ebctl/output/exit_codes.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/report_json.h"
#include "coordinator/ebctl/output/report_table.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

int JobsCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  v1::ListTestsRequest request;
  request.set_limit(limit);
  v1::ListTestsReply reply;
  grpc::Status status = stub.ListTests(&context, request, &reply);
  if (!status.ok()) return RpcFailed("listing tests", status, true);
  if (options.json) {
    std::cout << TestListToJson(reply).dump(2) << std::endl;
    return kExitOk;
  }
  std::cout << absl::StrFormat("%-26s  %-20s  %-14s  %-10s  %5s  %-24s  %s\n", "TEST", "START",
                               "COLLECTIVE", "STATE", "RANKS", "NODES", "SUMMARY");
  for (const v1::TestReport& report : reply.tests()) {
    std::string nodes;
    for (const std::string& node : TestNodeNames(report))
      nodes += (nodes.empty() ? "" : ",") + node;
    std::cout << absl::StrFormat(
        "%-26s  %-20s  %-14s  %-10s  %5d  %-24s  %s\n", report.test_id(),
        FormatUtcTime(report.start_time_unix_ms()), spec::DisplayName(report.spec().collective()),
        StateName(report.state()), report.ranks_size(), nodes, report.summary());
  }
  return kExitOk;
}

int ShowCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  v1::GetTestRequest request;
  request.set_test_id(test_id);
  v1::GetTestReply reply;
  grpc::Status status = stub.GetTest(&context, request, &reply);
  if (!status.ok()) return RpcFailed("fetching the test", status, true);
  const v1::TestReport& report = reply.report();
  if (options.json) {
    std::cout << ReportToJson(report).dump(2) << std::endl;
  } else {
    std::cout << TableHeader(report);
    for (const v1::SizeResult& row : report.results()) std::cout << TableRow(row, report.spec());
    if (IsTerminal(report.state())) std::cout << TableFooter(report);
    std::cout << std::flush;
  }
  return ExitCodeForReport(report);
}

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
    nlohmann::json out = {{"test_id", test_id},
                          {"rank", rank},
                          {"node", reply.node_name()},
                          {"path", reply.path()},
                          {"truncated", reply.truncated()},
                          {"content", reply.content()}};
    std::cout << out.dump(2) << std::endl;
  } else {
    std::fprintf(stderr, "# %s:%s%s\n", reply.node_name().c_str(), reply.path().c_str(),
                 reply.truncated() ? " (end only)" : "");
    std::cout << reply.content() << std::flush;
  }
  return kExitOk;
}

}  // namespace eb::ebctl
