#pragma once

// A timer thread for the load generator: runs functions at a time (the
// agents' reconnect delays, heartbeats, a slow agent's delay). One thread
// for the whole fleet; functions must be short.

#include <functional>
#include <map>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace eb::bench {

class Scheduler {
 public:
  Scheduler();
  ~Scheduler() { Stop(); }
  // Drops what is pending and joins the thread; what is posted later is
  // dropped too. Call it before destroying what the functions use.
  void Stop();
  void PostAfter(absl::Duration delay, std::function<void()> fn);

 private:
  void Loop();

  absl::Mutex mu_;
  std::multimap<absl::Time, std::function<void()>> due_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Set by PostAfter: wakes the loop for a function due before its wait.
  bool posted_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace eb::bench
