#include "coordinator/ebctl/commands/logs_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "common/rpc/channel.h"
#include "common/spec/limits.h"
#include "common/spec/terminal_text.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/log_json.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

namespace {

// One page: the coordinator answers at most spec::kMaxLogPageBytes.
grpc::Status FetchPage(v1::Control::Stub& stub, const std::string& test_id, int rank,
                       int64_t offset, int64_t max_bytes, v1::GetLogReply* reply) {
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(20));
  v1::GetLogRequest request;
  request.set_test_id(test_id);
  request.set_rank(rank);
  request.set_max_bytes(max_bytes);
  if (offset >= 0) request.set_offset(offset);
  return stub.GetLog(&context, request, reply);
}

}  // namespace

int LogsCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  // The end of the log comes first, in one page at most; a larger
  // --max-bytes is then read forward page by page from where it starts, up
  // to the size the first page saw, so that no message is ever larger than
  // a page (a 6 MB read in one message ended the agent's session,
  // SECURITY_FINDINGS case 7). The pages are written out as they come.
  const int64_t page = spec::kMaxLogPageBytes;
  v1::GetLogReply last;
  grpc::Status status = FetchPage(stub, test_id, rank, -1, std::min(max_bytes, page), &last);
  if (!status.ok()) return RpcFailed("fetching the log", status, true);
  // An older coordinator sends no size: it can give only the one answer.
  const bool paged = max_bytes > page && last.offset() > 0 && last.size() > 0;
  const int64_t end = last.size();
  const int64_t start = paged ? std::max<int64_t>(0, end - max_bytes) : last.offset();
  const bool truncated = paged ? start > 0 : last.truncated();
  std::string collected;  // for --json only
  if (!options.json) {
    std::fprintf(stderr, "# %s:%s%s\n", spec::Printable(last.node_name()).c_str(),
                 spec::Printable(last.path()).c_str(), truncated ? " (end only)" : "");
  }
  auto emit = [&](const std::string& content) {
    if (options.json) {
      collected += content;
    } else {
      // Log text is a node's: lines kept, every other control escaped.
      std::cout << spec::PrintableLines(content) << std::flush;
    }
  };
  if (!paged) {
    emit(last.content());
  } else {
    for (int64_t offset = start; offset < end;) {
      v1::GetLogReply reply;
      status = FetchPage(stub, test_id, rank, offset, std::min(page, end - offset), &reply);
      if (!status.ok()) return RpcFailed("fetching the log", status, true);
      if (reply.content().empty() || reply.next_offset() <= offset) break;  // it shrank
      emit(reply.content());
      offset = reply.next_offset();
    }
  }
  if (options.json) {
    last.set_content(std::move(collected));
    last.set_truncated(truncated);
    std::cout << LogToJson(test_id, rank, last).dump(2) << std::endl;
  }
  return kExitOk;
}

}  // namespace eb::ebctl
