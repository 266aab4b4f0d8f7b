#pragma once

// The executor that owns a component's state (STYLE.md rule 11): every
// callback posted to one executor runs on one thread, in order, so state
// touched only from posted callbacks needs no lock.

#include <cstdint>
#include <functional>

#include "absl/time/time.h"

namespace eb::common {

using TimerId = uint64_t;

class Executor {
 public:
  virtual ~Executor() = default;

  // Runs `fn` soon on the executor's thread. Thread-safe; never blocks on
  // the executor's work. Callbacks posted after Stop() are dropped.
  virtual void Post(std::function<void()> fn) = 0;

  // Runs `fn` on the executor's thread once `delay` has passed on the
  // executor's clock. Thread-safe. Returns an id for Cancel.
  virtual TimerId PostAfter(absl::Duration delay, std::function<void()> fn) = 0;

  // Cancels a timer that has not fired yet; a no-op otherwise. Thread-safe.
  virtual void Cancel(TimerId id) = 0;

  // True when called from the executor's own thread.
  virtual bool IsCurrent() const = 0;
};

}  // namespace eb::common
