#pragma once

// The order gRPC's callback API promises between our code and a reactor's
// callbacks, stated to ThreadSanitizer.
//
// gRPC promises that a reactor's constructor (our method handler) happens
// before any of its callbacks, that what ran before a StartRead happens
// before the OnReadDone it brings, and that every callback happens before
// OnDone. Its core keeps those promises through its completion queue, in a
// library that is not built with TSan, so TSan does not see them: it saw a
// SessionChannel built in the session's constructor on one gRPC thread and
// read on the event loop after OnReadDone ran on another, and halted a CI
// run's coordinator on that race that cannot happen. ReactorOrder makes each
// promised edge visible where gRPC makes it, and no other: a read callback
// and a concurrent write or cancel callback stay unordered, so a real race
// between them is still reported. Writes need nothing here: every reactor
// writes through a StreamOutbox, whose mutex TSan sees.
//
// In builds without TSan every member is empty and inline.

#include "absl/base/config.h"

#ifdef ABSL_HAVE_THREAD_SANITIZER
#include <sanitizer/tsan_interface.h>
#endif

namespace eb::common {

class ReactorOrder {
 public:
  // An acquire at a callback's start and a release at its end, for OnDone.
  class [[nodiscard]] Reaction {
   public:
    Reaction(const Reaction&) = delete;
    Reaction& operator=(const Reaction&) = delete;
    ~Reaction() { Release(&order_->reactions_); }

   private:
    friend class ReactorOrder;
    explicit Reaction(ReactorOrder* order) : order_(order) { Acquire(&order_->constructed_); }
    ReactorOrder* order_;
  };

  // The constructor's last step (before a StartRead made in it).
  void Constructed() { Release(&constructed_); }
  // Just before a StartRead made in a callback.
  void BeforeStartRead() { Release(&read_started_); }

  // The first line of OnReadDone.
  Reaction ReadDone() {
    Acquire(&read_started_);
    return Reaction(this);
  }
  // The first line of OnWriteDone and OnCancel.
  Reaction OtherReaction() { return Reaction(this); }
  // The first line of OnDone.
  void Done() {
    Acquire(&constructed_);
    Acquire(&read_started_);
    Acquire(&reactions_);
  }

 private:
  // TSan orders by address: one anchor per kind of edge.
  static void Release(char* anchor) {
#ifdef ABSL_HAVE_THREAD_SANITIZER
    __tsan_release(anchor);
#else
    (void)anchor;
#endif
  }
  static void Acquire(char* anchor) {
#ifdef ABSL_HAVE_THREAD_SANITIZER
    __tsan_acquire(anchor);
#else
    (void)anchor;
#endif
  }

  char constructed_ = 0;
  char read_started_ = 0;
  char reactions_ = 0;
};

}  // namespace eb::common
