#pragma once

// The `slow=MS` fault (EB_WORKER_FAULT, fault_injection.h): a communicator
// that sleeps MS ms before each call of a timed batch, so that the rank,
// and through it its node, looks like a slow GPU or NIC to every test it
// is in. Its peers wait for it inside the collective, so every rank's time
// grows by about MS per call, whichever rank the coordinator averages.
// Everything else is passed through.

#include <memory>

#include "absl/time/time.h"
#include "common/transport/communicator.h"

namespace eb::worker {

std::unique_ptr<transport::Communicator> WithSlowdown(
    std::unique_ptr<transport::Communicator> inner, absl::Duration delay_per_call);

}  // namespace eb::worker
