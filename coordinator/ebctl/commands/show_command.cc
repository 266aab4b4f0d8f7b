#include "coordinator/ebctl/commands/show_command.h"

#include <iostream>

#include "absl/strings/match.h"
#include "common/rpc/channel.h"
#include "common/spec/terminal_text.h"
#include "coordinator/ebctl/commands/interrupt_watcher.h"
#include "coordinator/ebctl/commands/validation_follow.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/report_json.h"
#include "coordinator/ebctl/output/report_table.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

int ShowCommand::ShowValidation(v1::Control::Stub& stub, const GlobalOptions& options) {
  grpc::ClientContext context;
  if (!follow) {
    common::SetTimeout(context, absl::Seconds(10));
    v1::GetValidationRequest request;
    request.set_validation_id(test_id);
    v1::GetValidationReply reply;
    grpc::Status status = stub.GetValidation(&context, request, &reply);
    if (!status.ok()) return RpcFailed("fetching the validation", status, true);
    return PrintValidation(reply.report(), options.json);
  }
  // Following only watches: Ctrl-C stops watching, the validation goes on.
  InterruptWatcher interrupts(context, "stopped following (the validation goes on)");
  v1::WatchValidationRequest request;
  request.set_validation_id(test_id);
  auto reader = stub.WatchValidation(&context, request);
  FollowResult result = FollowValidation(*reader, ProgressStyleOfStderr(progress),
                                         [](const v1::ValidationReport&) { return true; });
  const grpc::Status status = reader->Finish();
  if (result.finished) return PrintValidation(result.report, options.json);
  if (interrupts.interrupted()) return kExitInterrupted;
  return RpcFailed("following the validation", status, result.connected);
}

int ShowCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  if (absl::StartsWith(test_id, "v-")) return ShowValidation(stub, options);
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  v1::GetTestRequest request;
  request.set_test_id(test_id);
  v1::GetTestReply reply;
  grpc::Status status = stub.GetTest(&context, request, &reply);
  if (!status.ok()) return RpcFailed("fetching the test", status, true);
  const v1::TestReport& report = reply.report();
  if (options.json) {
    std::cout << ReportToJson(report, kVersion, options.args).dump(2) << std::endl;
  } else {
    if (!report.started_by().empty())
      std::cout << "# started by " << spec::Printable(report.started_by()) << "\n";
    std::cout << TableHeader(report);
    TablePrinter table(report.spec());
    for (const v1::SizeResult& row : report.results()) std::cout << table.Row(row);
    if (IsTerminal(report.state())) std::cout << table.Finish(report);
    std::cout << std::flush;
  }
  return ExitCodeForReport(report);
}

}  // namespace eb::ebctl
