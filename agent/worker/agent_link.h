#pragma once

// The worker's connection to its own agent (WorkerControl over a Unix
// socket): registration, heartbeats, events, and the rendezvous store that
// the agent relays to the coordinator. Every call has a deadline (STYLE.md
// rule 9). Thread-safe (gRPC stubs are).

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/transport/rendezvous_store.h"
#include "ebnccl/v1/worker.grpc.pb.h"
#include "grpcpp/channel.h"

namespace eb::worker {

class AgentLink final : public transport::RendezvousStore {
 public:
  // The deadline of a call that sets none.
  static constexpr absl::Duration kCallTimeout = absl::Seconds(30);

  AgentLink(std::shared_ptr<grpc::Channel> channel, std::string test_id, int rank,
            std::string token);

  // Registers this process. PERMISSION_DENIED for a wrong token; UNAVAILABLE
  // when the agent cannot be reached within `timeout`.
  absl::StatusOr<ebnccl::v1::RegisterWorkerReply> Register(absl::Duration timeout);
  // Returns true when the agent wants the worker to stop.
  absl::StatusOr<bool> Heartbeat(absl::Duration timeout);
  // Sends an event (kind JOINED, SIZE_DONE, FINISHED or FAILED); test id and
  // rank are filled in. `timeout`: the call's deadline (the heartbeat thread
  // gives its own short one, so that a slow reply never delays a heartbeat).
  absl::Status Report(ebnccl::v1::WorkerEvent event, absl::Duration timeout = kCallTimeout);

  // RendezvousStore, relayed through the agent to the coordinator.
  absl::Status Set(const std::string& key, const std::string& value) override;
  absl::StatusOr<std::vector<std::string>> Wait(const std::vector<std::string>& keys,
                                                absl::Duration timeout) override;
  // The coordinator cuts the values (RendezvousWaitRequest.slice).
  absl::StatusOr<std::vector<std::string>> WaitSlice(const std::vector<std::string>& keys,
                                                     transport::ValueSlice slice,
                                                     absl::Duration timeout) override;

 private:
  absl::StatusOr<std::vector<std::string>> WaitFor(const std::vector<std::string>& keys,
                                                   const transport::ValueSlice* slice,
                                                   absl::Duration timeout);

  std::unique_ptr<ebnccl::v1::WorkerControl::Stub> stub_;
  const std::string test_id_;
  const int rank_;
  const std::string token_;
};

}  // namespace eb::worker
