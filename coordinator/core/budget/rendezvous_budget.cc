#include "coordinator/core/budget/rendezvous_budget.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace eb::coordinator {

std::string RendezvousCaller(bool tls, const std::string& identity, const std::string& peer) {
  if (tls) return absl::StrCat("node ", identity);
  absl::string_view host = peer;
  for (absl::string_view scheme : {"ipv4:", "ipv6:"}) {
    if (!absl::ConsumePrefix(&host, scheme)) continue;
    // The port follows the last colon ("[::1]:5" keeps its brackets).
    if (const size_t colon = host.rfind(':'); colon != absl::string_view::npos) {
      host = host.substr(0, colon);
    }
    break;
  }
  return absl::StrCat("address ", host);
}

absl::Status RendezvousBudget::Charge(const std::string& caller, absl::Time now) {
  auto it = buckets_.find(caller);
  if (it == buckets_.end()) {
    static const std::string kOther = "(other)";
    const std::string& kept = buckets_.size() < kMaxNodes ? caller : kOther;
    it = buckets_
             .try_emplace(kept, static_cast<double>(limits_.calls_per_second),
                          static_cast<double>(limits_.call_burst), now)
             .first;
  }
  if (it->second.Take(1, now)) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("rendezvous budget: ", caller, " made more than ", limits_.call_burst,
                   " rendezvous calls at once, or ", limits_.calls_per_second, " a second"));
}

}  // namespace eb::coordinator
