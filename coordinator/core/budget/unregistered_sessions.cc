#include "coordinator/core/budget/unregistered_sessions.h"

#include "absl/strings/str_cat.h"

namespace eb::coordinator {

absl::Status UnregisteredSessions::Admit(const std::string& host) {
  absl::MutexLock lock(&mu_);
  if (total_ >= max_total_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("more than ", max_total_,
                     " agent sessions are open without having registered; try again later"));
  }
  int& from_host = per_host_[host];
  if (from_host >= max_per_host_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        from_host, " agent sessions from ", host, " are open without having registered, at most ",
        max_per_host_, " from one host; register on one of them, or try again later"));
  }
  ++from_host;
  ++total_;
  return absl::OkStatus();
}

void UnregisteredSessions::Release(const std::string& host) {
  absl::MutexLock lock(&mu_);
  auto it = per_host_.find(host);
  if (it == per_host_.end()) return;
  --total_;
  if (--it->second <= 0) per_host_.erase(it);
}

int UnregisteredSessions::open() const {
  absl::MutexLock lock(&mu_);
  return total_;
}

std::string PeerHostOf(const std::string& peer) {
  const size_t colon = peer.rfind(':');
  return colon == std::string::npos ? peer : peer.substr(0, colon);
}

}  // namespace eb::coordinator
