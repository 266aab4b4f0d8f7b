#pragma once

// What makes two workers' rendezvous waits the same wait, for the agent to
// relay them as one call (agent/core/coalesced_waits.h): the test, the keys
// and the slice, everything the wait asks for, but not its timeout. Each
// worker computes timeout_ms as what is left of its own deadline when it
// asks (common/transport/nccl/nccl_unique_id.cc), after its own CUDA
// start-up, so no two real workers send the same number: with the timeout
// in the key, 8 ranks per node made 8 calls (issue 32 item 11). Their
// deadlines are what may differ; CoalescedWaits joins a waiter to a call
// only when the call's deadline does not cut it short by more than its
// join window.

#include <string>

#include "ebnccl/v1/agent.pb.h"

namespace eb::agent {

std::string RendezvousWaitKey(const ebnccl::v1::RendezvousWaitRequest& request);

}  // namespace eb::agent
