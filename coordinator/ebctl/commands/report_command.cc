#include "coordinator/ebctl/commands/report_command.h"

#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/rpc/channel.h"
#include "coordinator/ebctl/commands/report_file.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/report/fabric_data.h"
#include "coordinator/ebctl/report/html_page.h"
#include "coordinator/ebctl/report/page_data.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

namespace {

constexpr absl::Duration kCallTimeout = absl::Seconds(30);

absl::Status WritePage(const std::string& path, Replace replace, const std::string& title,
                       const nlohmann::json& data) {
  const std::string html = report::RenderReportHtml(title, data);
  if (absl::Status written = WriteReportFile(path, html, replace); !written.ok()) return written;
  std::fprintf(stderr, "ebctl: wrote %s (%zu KiB)\n", path.c_str(), (html.size() + 1023) / 1024);
  return absl::OkStatus();
}

int WriteFailed(const absl::Status& status) {
  std::fprintf(stderr, "ebctl: %s\n", std::string(status.message()).c_str());
  return status.code() == absl::StatusCode::kInvalidArgument ? kExitUsage : kExitInternal;
}

}  // namespace

absl::Status WriteValidationReport(v1::Control::Stub& stub, const v1::ValidationReport& report,
                                   const std::string& path, Replace replace) {
  // The node list only adds the repeat-offender column: without it the page
  // still has everything else.
  grpc::ClientContext context;
  common::SetTimeout(context, kCallTimeout);
  v1::ListNodesReply nodes;
  const bool have_nodes = stub.ListNodes(&context, v1::ListNodesRequest(), &nodes).ok();
  nlohmann::json data =
      report::ValidationPageData(report, have_nodes ? &nodes : nullptr, ReportTimeNow());
  // The fabric, when the coordinator has one: the pair matrix grouped by
  // leaf, and the picture of each rail's leaves and spines with the verdicts.
  grpc::ClientContext topology_context;
  common::SetTimeout(topology_context, kCallTimeout);
  v1::GetTopologyReply topology;
  if (stub.GetTopology(&topology_context, v1::GetTopologyRequest(), &topology).ok()) {
    report::AddFabric(data, topology);
  }
  return WritePage(path, replace, absl::StrCat("ebnccl validation ", report.validation_id()), data);
}

int ReportCommand::NodeReport(v1::Control::Stub& stub) {
  v1::ListTestsReply tests;
  {
    grpc::ClientContext context;
    common::SetTimeout(context, kCallTimeout);
    v1::ListTestsRequest request;
    request.set_limit(limit);
    grpc::Status status = stub.ListTests(&context, request, &tests);
    if (!status.ok()) return RpcFailed("listing the tests", status, true);
  }
  v1::ListValidationsReply validations;
  {
    grpc::ClientContext context;
    common::SetTimeout(context, kCallTimeout);
    v1::ListValidationsRequest request;
    request.set_limit(limit);
    grpc::Status status = stub.ListValidations(&context, request, &validations);
    if (!status.ok()) return RpcFailed("listing the validations", status, true);
  }
  const nlohmann::json data = report::NodePageData(node, tests, validations, ReportTimeNow());
  if (data["tests"]["tests"].empty() && data["validations"]["validations"].empty()) {
    // Still written (an empty history is an answer), but a typo should not
    // pass for a quiet node.
    std::fprintf(stderr,
                 "ebctl: no test or validation of node %s among the newest %d of the fleet "
                 "(is the name right? a larger --limit looks further back)\n",
                 node.c_str(), limit);
  }
  absl::Status written = WritePage(output, replace(), absl::StrCat("ebnccl node ", node), data);
  return written.ok() ? kExitOk : WriteFailed(written);
}

int ReportCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& /*options*/) {
  if (absl::Status path = CheckReportPath(output, "-o", replace()); !path.ok())
    return WriteFailed(path);
  if (!node.empty()) return NodeReport(stub);
  grpc::ClientContext context;
  common::SetTimeout(context, kCallTimeout);
  absl::Status written;
  if (absl::StartsWith(id, "v-")) {
    v1::GetValidationRequest request;
    request.set_validation_id(id);
    v1::GetValidationReply reply;
    grpc::Status status = stub.GetValidation(&context, request, &reply);
    if (!status.ok()) return RpcFailed("fetching the validation", status, true);
    written = WriteValidationReport(stub, reply.report(), output, replace());
  } else {
    v1::GetTestRequest request;
    request.set_test_id(id);
    v1::GetTestReply reply;
    grpc::Status status = stub.GetTest(&context, request, &reply);
    if (!status.ok()) return RpcFailed("fetching the test", status, true);
    written = WritePage(output, replace(), absl::StrCat("ebnccl test ", id),
                        report::TestPageData(reply.report(), ReportTimeNow()));
  }
  return written.ok() ? kExitOk : WriteFailed(written);
}

}  // namespace eb::ebctl
