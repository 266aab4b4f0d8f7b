#pragma once

// The communicators a worker joins: the test's full one and, with
// TestSpec.split_rails, its rail's, each of the test's transport and joined
// through the relayed rendezvous.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/transport/communicator.h"
#include "common/transport/rendezvous_store.h"
#include "ebnccl/v1/worker.pb.h"

namespace eb::worker {

// A rank's place in one communicator: the test's rank and world size for
// the full communicator, the rail's for a rail (RailMembership).
struct Membership {
  int rank = 0;
  int world_size = 1;
  std::string comm_name;  // NCCL's commName, in its logs
};

// The communicator of the registration's transport for `member`, joined
// through `store` within the registration's init timeout. NCCL takes the
// rank's GPU from the assignment; an NCCL init that fails where the agent
// forced NCCL's IB transport says what to check. UNIMPLEMENTED for NCCL in
// a build without it (-DEB_WITH_NCCL=OFF); INVALID_ARGUMENT for a transport
// that cannot run; otherwise the transport's own errors.
absl::StatusOr<std::unique_ptr<transport::Communicator>> CreateCommunicator(
    const Membership& member, const ebnccl::v1::RegisterWorkerReply& registration,
    transport::RendezvousStore& store);

// This rank's place on its rail (TestSpec.split_rails): rail = local rank,
// one member per node, ranked by node. Ranks are contiguous per node with
// the same count on every node (the coordinator's placement), so the rail's
// world is the node count. INVALID_ARGUMENT naming split_rails when the
// assignment does not fit that.
absl::StatusOr<Membership> RailMembership(const ebnccl::v1::RegisterWorkerReply& registration,
                                          const std::string& test_id);

// The rendezvous keys of rail `rail`'s communicator (PrefixedStore).
std::string RailKeyPrefix(int rail);

}  // namespace eb::worker
