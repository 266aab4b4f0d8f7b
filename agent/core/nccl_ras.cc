#include "agent/core/nccl_ras.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/spec/identifiers.h"

namespace eb::agent {
namespace {

// The first line of `text` (without its '\n') and what follows it; the
// whole text when it has no '\n' (`complete_line` false).
struct Line {
  absl::string_view line;
  absl::string_view rest;
  bool complete_line = false;
};

Line SplitFirstLine(absl::string_view text) {
  const size_t end = text.find('\n');
  if (end == absl::string_view::npos) return {text, absl::string_view(), false};
  absl::string_view line = text.substr(0, end);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return {line, text.substr(end + 1), true};
}

}  // namespace

std::string NcclRasRequest(const NcclRasLimits& limits) {
  return absl::StrCat("CLIENT PROTOCOL ", kNcclRasClientProtocol, "\nTIMEOUT ",
                      limits.collective_timeout_s, "\nVERBOSE STATUS\n");
}

ebnccl::v1::NcclRasStatus SummarizeNcclRas(const std::string& node_name, int port,
                                           const NcclRasExchange& exchange,
                                           const NcclRasLimits& limits) {
  ebnccl::v1::NcclRasStatus status;
  status.set_node_name(node_name);
  status.set_port(port);
  if (!exchange.connect_error.empty()) {
    status.set_error(absl::StrCat("RAS not reachable on port ", port, ": ",
                                  exchange.connect_error.substr(0, 200)));
    return status;
  }
  const std::string deadline = absl::FormatDuration(limits.deadline);
  Line handshake = SplitFirstLine(exchange.received);
  if (!handshake.complete_line) {
    status.set_error(
        exchange.received.empty() && !exchange.closed
            ? absl::StrCat("RAS accepted the connection but did not answer within ", deadline)
            : absl::StrCat("RAS closed or stalled before its handshake: ",
                           spec::Quote(exchange.received)));
    return status;
  }
  if (!absl::StartsWithIgnoreCase(handshake.line, "SERVER PROTOCOL ")) {
    status.set_error(absl::StrCat("not an NCCL RAS reply on port ", port,
                                  " (first line: ", spec::Quote(handshake.line), ")"));
    return status;
  }
  absl::string_view text = handshake.rest;
  std::string notes;
  // The answer to TIMEOUT: "OK", or "ERROR: ..." from a RAS that refused it
  // (then NCCL's default timeout applied); the status follows either way.
  Line timeout = SplitFirstLine(text);
  if (timeout.complete_line) {
    if (absl::EqualsIgnoreCase(timeout.line, "OK")) {
      text = timeout.rest;
    } else if (absl::StartsWithIgnoreCase(timeout.line, "ERROR")) {
      notes = absl::StrCat("RAS refused TIMEOUT ", limits.collective_timeout_s, ": ",
                           spec::Quote(timeout.line));
      text = timeout.rest;
    }
  }
  bool truncated = exchange.cut;
  if (text.size() > limits.max_text_bytes) {
    truncated = true;
    text = text.substr(0, limits.max_text_bytes);
  }
  if (truncated) {
    // Keep whole lines: a line cut in the middle reads as something else.
    const size_t last = text.rfind('\n');
    if (last != absl::string_view::npos) text = text.substr(0, last + 1);
  }
  std::string kept(text);
  if (truncated) {
    absl::StrAppend(&kept, "[... RAS status cut after ", kept.size(), " bytes (",
                    exchange.cut ? "more was sent and not read" : "the rest was dropped", ")]\n");
  }
  status.set_text(std::move(kept));
  status.set_truncated(truncated);
  if (!exchange.closed && !exchange.cut) {
    absl::StrAppend(&notes, notes.empty() ? "" : "; ",
                    exchange.timed_out
                        ? absl::StrCat("RAS reply incomplete: no end within ", deadline)
                        : std::string("RAS reply incomplete"));
  }
  status.set_error(notes);
  return status;
}

int PickNcclRasPort(int base, int count, const std::set<int>& in_use) {
  if (base <= 0) return 0;
  for (int port = base; port < base + count && port <= 65535; ++port) {
    if (!in_use.contains(port)) return port;
  }
  return 0;
}

std::string NcclRasAddress(int port) { return absl::StrCat("127.0.0.1:", port); }

}  // namespace eb::agent
