#pragma once

// Identical rendezvous waits of one node's workers share one call to the
// coordinator (issue 15). In an NCCL test every rank but rank 0 waits for
// the same key (the unique id): 8 ranks per node made 8 identical
// RendezvousWait calls per node; now the first starts the call and the
// others join it, and all get its answer (values or error). A 1,024-node
// test then costs the coordinator ~1,024 waits instead of ~8,192.
//
// A waiter joins a call in flight only when that call ends no more than
// kJoinWindow before the waiter's own deadline would (a later waiter of the
// same timeout joins a call started less than kJoinWindow earlier), so a
// join never shortens anyone's wait by more than that; otherwise it starts
// a call of its own. Pure bookkeeping on one thread (the agent's
// executor); `Waiter` is what the caller needs to answer one worker.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace eb::agent {

template <typename Waiter>
class CoalescedWaits {
 public:
  static constexpr absl::Duration kJoinWindow = absl::Seconds(1);

  struct Joined {
    uint64_t call = 0;   // the call this waiter is answered by
    bool start = false;  // true: the caller starts that call now
  };

  // Adds `waiter` for the wait identified by `key` (everything of the
  // request: namespace, keys, slice, timeout), whose own deadline is
  // `deadline`.
  Joined Join(const std::string& key, absl::Time deadline, Waiter waiter) {
    auto latest = latest_.find(key);
    if (latest != latest_.end()) {
      Call& call = calls_.at(latest->second);
      if (call.deadline >= deadline - kJoinWindow) {
        call.waiters.push_back(std::move(waiter));
        return {latest->second, false};
      }
    }
    const uint64_t id = next_id_++;
    Call& call = calls_[id];
    call.key = key;
    call.deadline = deadline;
    call.waiters.push_back(std::move(waiter));
    latest_[key] = id;
    return {id, true};
  }

  // The call ended: returns its waiters (to answer each), and forgets it.
  // Empty for an unknown call.
  std::vector<Waiter> Finish(uint64_t id) {
    auto it = calls_.find(id);
    if (it == calls_.end()) return {};
    std::vector<Waiter> waiters = std::move(it->second.waiters);
    auto latest = latest_.find(it->second.key);
    if (latest != latest_.end() && latest->second == id) latest_.erase(latest);
    calls_.erase(it);
    return waiters;
  }

  // Calls in flight.
  size_t calls() const { return calls_.size(); }

 private:
  struct Call {
    std::string key;
    absl::Time deadline;
    std::vector<Waiter> waiters;
  };
  std::map<uint64_t, Call> calls_;
  // The newest call of each key: the only one a new waiter may join.
  std::map<std::string, uint64_t> latest_;
  uint64_t next_id_ = 1;
};

}  // namespace eb::agent
