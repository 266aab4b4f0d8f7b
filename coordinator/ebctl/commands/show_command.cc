#include "coordinator/ebctl/commands/show_command.h"

#include <iostream>

#include "common/rpc/channel.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/report_json.h"
#include "coordinator/ebctl/output/report_table.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

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

}  // namespace eb::ebctl
