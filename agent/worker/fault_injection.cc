#include "agent/worker/fault_injection.h"

#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace eb::worker {

absl::StatusOr<FaultInjection> ParseFaultInjection(absl::string_view text) {
  FaultInjection fault;
  if (text.empty()) return fault;
  auto error = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("EB_WORKER_FAULT: '", text, "': ", why));
  };
  std::pair<absl::string_view, absl::string_view> parts =
      absl::StrSplit(text, absl::MaxSplits(':', 1));
  if (parts.second.empty() && parts.first.size() != text.size()) {
    return error("':' must be followed by 'rank=N'");
  }
  if (!parts.second.empty()) {
    absl::string_view rank = parts.second;
    if (!absl::ConsumePrefix(&rank, "rank=") || !absl::SimpleAtoi(rank, &fault.rank) ||
        fault.rank < 0) {
      return error("expected ':rank=N' after the mode");
    }
  }
  std::pair<absl::string_view, absl::string_view> mode =
      absl::StrSplit(parts.first, absl::MaxSplits('=', 1));
  if (mode.second.empty() && mode.first.size() != parts.first.size()) {
    return error("'=' must be followed by a value");
  }
  static const std::map<std::string, FaultInjection::Mode, std::less<>> kModes = {
      {"hang_before_register", FaultInjection::Mode::kHangBeforeRegister},
      {"hang_before_join", FaultInjection::Mode::kHangBeforeJoin},
      {"exit_before_join", FaultInjection::Mode::kExitBeforeJoin},
      {"crash_at_size", FaultInjection::Mode::kCrashAtSize},
      {"corrupt_at_size", FaultInjection::Mode::kCorruptAtSize},
      {"slow", FaultInjection::Mode::kSlow},
      {"log_flood", FaultInjection::Mode::kLogFlood},
      {"segv_before_register", FaultInjection::Mode::kSegvBeforeRegister},
  };
  auto it = kModes.find(mode.first);
  if (it == kModes.end()) return error("unknown mode");
  fault.mode = it->second;
  if (fault.mode == FaultInjection::Mode::kSlow) {
    if (!absl::SimpleAtoi(mode.second, &fault.slow_ms) || fault.slow_ms <= 0) {
      return error("slow needs '=MS', a positive number of milliseconds");
    }
    return fault;
  }
  const bool needs_size = fault.mode == FaultInjection::Mode::kCrashAtSize ||
                          fault.mode == FaultInjection::Mode::kCorruptAtSize;
  if (needs_size != !mode.second.empty()) {
    return error(needs_size ? "this mode needs '=SIZE_INDEX'" : "this mode takes no value");
  }
  if (needs_size && (!absl::SimpleAtoi(mode.second, &fault.size_index) || fault.size_index < 0)) {
    return error("SIZE_INDEX must be a non-negative integer");
  }
  return fault;
}

}  // namespace eb::worker
