#pragma once

// AbortGate: the abort protocol between a communicator's owner thread, whose
// library calls can block, and any thread that aborts the communicator. The
// NCCL backend uses it (nccl_communicator_impl.h); it has no CUDA or NCCL
// dependency, so its logic is unit-tested on any machine.
//
// Why it exists: a launch on NCCL's blocking communicator can block on the
// host (NCCL spins inside the call while its work FIFO is full, e.g. after a
// peer died), and only ncclCommAbort releases it: the abort sets NCCL's abort
// flag first, which the blocked launch and the kernels poll. A mutex held
// across such a call, so that the abort never races it, would make the abort
// wait for the very call it has to break. So no lock is held across a call:
//   - the owner brackets each library call with Enter and Leave (one
//     uncontended lock each; the call itself runs outside the lock);
//   - BeginAbort marks the gate aborted at once, so that no call starts any
//     more, hands the owner's handles over under the lock, and waits at
//     most `grace` for a call in progress to leave. Every call that is not
//     stuck returns within microseconds, so in practice the abort never runs
//     under a live call, which NCCL's thread-safety rules ask for;
//   - past the grace the aborting thread goes ahead while the call is still
//     inside (that is what releases a stuck call), and the cleanup that
//     needs the owner out (for NCCL: destroying the CUDA graphs, which
//     ncclCommAbort waits for) becomes the owner's: Leave tells it so.
//
// Threads: Enter and Leave on the owner thread only, never nested;
// BeginAbort, EndAbort, aborted() and reason() from any thread;
// AwaitAbortDone from the owner (its destructor). No method blocks on a lock
// held across a library call; BeginAbort blocks at most `grace`.

#include <atomic>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace eb::transport {

class AbortGate {
 public:
  // Long enough for any call that is not stuck (a kernel launch, a status
  // query: microseconds), short next to an op timeout (seconds).
  static constexpr absl::Duration kDefaultGrace = absl::Milliseconds(200);

  // What BeginAbort found.
  struct Begun {
    // This call won: it recorded its reason and must finish with EndAbort.
    // False when an abort had already begun (its reason stays).
    bool first = false;
    // No call was in progress within the grace, and none can start: the
    // aborting thread may clean up what the owner uses. False: the owner is
    // still inside a call, and its Leave will return true.
    bool owner_out = false;
  };

  explicit AbortGate(absl::Duration grace = kDefaultGrace) : grace_(grace) {}
  AbortGate(const AbortGate&) = delete;
  AbortGate& operator=(const AbortGate&) = delete;

  // Owner thread: enters a call, unless an abort has begun (false; nothing
  // entered, `under_lock` not run). `under_lock` runs under the gate's lock
  // after the check: there the owner reads or publishes the handles that
  // BeginAbort's `take` hands over, so the two never interleave.
  bool Enter(absl::FunctionRef<void()> under_lock) ABSL_LOCKS_EXCLUDED(mu_);
  bool Enter() {
    return Enter([] {});
  }

  // Owner thread: leaves the call the last successful Enter began. True
  // exactly once after an abort that gave up waiting for this call: the
  // cleanup the aborting thread left (Begun::owner_out false) is now the
  // owner's.
  bool Leave() ABSL_LOCKS_EXCLUDED(mu_);

  // Any thread: begins the abort. Only the first call across all threads
  // gets first = true: it records `reason`, marks the gate aborted, runs
  // `take` under the lock (to take the handles out of the owner's reach),
  // then waits up to the grace for a call in progress to leave. A later call
  // returns at once with first = false.
  Begun BeginAbort(absl::string_view reason, absl::FunctionRef<void()> take)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Ends the abort a first BeginAbort began (its library teardown done).
  void EndAbort() ABSL_LOCKS_EXCLUDED(mu_);

  // Blocks until no abort is between BeginAbort and EndAbort.
  void AwaitAbortDone() ABSL_LOCKS_EXCLUDED(mu_);

  // Any thread, lock-free: whether an abort has begun.
  bool aborted() const { return aborted_.load(std::memory_order_acquire); }

  // The first abort's reason ("" before any).
  std::string reason() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const absl::Duration grace_;
  // Written under mu_, read without it by aborted().
  std::atomic<bool> aborted_{false};
  mutable absl::Mutex mu_;
  std::string reason_ ABSL_GUARDED_BY(mu_);
  // The owner is between Enter and Leave.
  bool in_call_ ABSL_GUARDED_BY(mu_) = false;
  // Between a first BeginAbort and its EndAbort.
  bool abort_running_ ABSL_GUARDED_BY(mu_) = false;
  // The abort gave up waiting for the owner's call; the next Leave reports
  // the cleanup as the owner's (once).
  bool owner_cleans_up_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace eb::transport
