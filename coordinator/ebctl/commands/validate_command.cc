#include "coordinator/ebctl/commands/validate_command.h"

#include <cstdio>
#include <iostream>
#include <string>

#include "common/io/bounded_file.h"
#include "common/rpc/channel.h"
#include "common/spec/terminal_text.h"
#include "coordinator/ebctl/commands/interrupt_watcher.h"
#include "coordinator/ebctl/commands/report_command.h"
#include "coordinator/ebctl/commands/report_file.h"
#include "coordinator/ebctl/commands/validation_follow.h"
#include "coordinator/ebctl/exit_codes.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

namespace {

// Ctrl-C cancels the validation itself: the stream is only a view of it.
void CancelValidation(v1::Control::Stub& stub, const std::string& id) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  v1::CancelValidationRequest request;
  request.set_validation_id(id);
  v1::CancelValidationReply reply;
  const grpc::Status status = stub.CancelValidation(&context, request, &reply);
  if (status.ok()) {
    std::fprintf(stderr, "ebctl: validation %s cancelled\n", id.c_str());
  } else {
    std::fprintf(stderr, "ebctl: cannot cancel validation %s: %s\n", id.c_str(),
                 status.error_message().c_str());
  }
}

}  // namespace

absl::Status ValidateCommand::CheckUsage() const {
  if (!report_path.empty()) {
    if (flags.detach) {
      return absl::InvalidArgumentError(
          "--report: not with --detach (write it later: ebctl report v-... -o FILE)");
    }
    if (absl::Status path = CheckReportPath(report_path, "--report", Replacing()); !path.ok()) {
      return path;
    }
  }
  // The baselines file is read later; the flags are checked now.
  return BuildValidationSpec(flags, "").status();
}

int ValidateCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  // CheckUsage has checked the flags and --report's path.
  std::string baselines;
  if (!flags.baselines.empty()) {
    absl::StatusOr<std::string> text =
        common::ReadBoundedFile(flags.baselines, common::FileKind::kBaselines);
    if (!text.ok()) {
      std::fprintf(stderr, "ebctl: --baselines: %s\n",
                   std::string(text.status().message()).c_str());
      return kExitUsage;
    }
    baselines = *std::move(text);
  }
  absl::StatusOr<v1::ValidationSpec> spec = BuildValidationSpec(flags, baselines);
  if (!spec.ok()) {
    std::fprintf(stderr, "ebctl: %s\n", std::string(spec.status().message()).c_str());
    return kExitUsage;
  }
  grpc::ClientContext context;
  // The validation has its own deadline; this one only guards the call.
  const int64_t validation_ms = spec->timeout_ms() > 0 ? spec->timeout_ms() : 6 * 3'600'000;
  common::SetTimeout(context, absl::Milliseconds(validation_ms) + absl::Minutes(5));
  v1::RunValidationRequest request;
  *request.mutable_spec() = *spec;

  InterruptWatcher interrupts(context, "cancelling the validation");
  auto reader = stub.RunValidation(&context, request);
  // --detach prints only the id (a script reads it).
  const ProgressStyle style = flags.detach ? ProgressStyle::kNone : ProgressStyleOfStderr(progress);
  FollowResult result = FollowValidation(*reader, style, [&](const v1::ValidationReport& r) {
    if (!flags.detach) return true;
    std::cout << spec::Printable(r.validation_id()) << std::endl;
    return false;
  });
  if (flags.detach && result.connected) {
    context.TryCancel();  // ends the view only; the validation goes on
    (void)reader->Finish();
    return kExitOk;
  }
  const grpc::Status status = reader->Finish();
  if (result.finished) {
    const int exit_code = PrintValidation(result.report, options.json);
    if (report_path.empty()) return exit_code;
    absl::Status written = WriteValidationReport(stub, result.report, report_path, Replacing());
    if (written.ok()) return exit_code;
    std::fprintf(stderr, "ebctl: --report: %s\n", std::string(written.message()).c_str());
    // The verdicts stand; a missing page fails only an otherwise clean run.
    return exit_code == kExitOk ? kExitInternal : exit_code;
  }
  if (interrupts.interrupted()) {
    if (!result.validation_id.empty()) CancelValidation(stub, result.validation_id);
    return kExitInterrupted;
  }
  return RpcFailed(
      result.connected ? "the validation stream broke" : "the coordinator refused the validation",
      status, result.connected);
}

}  // namespace eb::ebctl
