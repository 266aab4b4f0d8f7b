#pragma once

// Nodes cut off for exceeding their session budget (issue 32, item 1). A
// node that comes back gets a fresh budget, but a node cut off
// kMaxCutOffs times within kCutOffWindow is refused registration until the
// oldest of those cut-offs leaves the window: a compromised node that
// reconnects at once after each cut-off would otherwise get a fresh burst
// every few seconds. Pure: the caller passes the time; one thread (the
// coordinator's executor).

#include <cstddef>
#include <deque>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace eb::coordinator {

class CutOffs {
 public:
  static constexpr int kMaxCutOffs = 3;
  static constexpr absl::Duration kCutOffWindow = absl::Minutes(10);
  // Nodes remembered; beyond, the one whose last cut-off is oldest is
  // forgotten (a node name is a certificate's name, so this bounds what
  // many compromised nodes can make the coordinator hold).
  static constexpr size_t kMaxNodes = 4096;

  // Records that `node` was cut off at `now`.
  void Record(const std::string& node, absl::Time now);

  // OK, or RESOURCE_EXHAUSTED naming node_name, how often it was cut off
  // and when it may register again.
  absl::Status CheckRegister(const std::string& node, absl::Time now);

  size_t nodes() const { return times_.size(); }

 private:
  // Drops the cut-offs of `times` older than the window before `now`.
  static void Expire(std::deque<absl::Time>& times, absl::Time now);

  std::map<std::string, std::deque<absl::Time>> times_;
};

}  // namespace eb::coordinator
