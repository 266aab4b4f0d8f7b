#pragma once

// A compromised node for the scale benchmark (issue 32, "Tests"): a member
// agent with a valid registration (and, with TLS, its own valid
// certificate) that sends the worst the coordinator's limits allow while
// honest agents run a test. docs/SECURITY.md "Limits" and "Per-node budget"
// list the limits; each kind of message below is one of them at its edge:
//
//  session (paced at `share` of the per-node session budget, items and bytes):
//   - events for ranks it does not own (the honest test's), batches of 1,024
//     with failure texts (FAILED, SIZE_DONE, PROGRESS, JOINED, FINISHED)
//   - events of its own ranks, batches of 1,024 (PROGRESS, REGISTERED with
//     out-of-range pids, JOINING)
//   - events for a test that does not exist (a 128-character id)
//   - one FAILED of a foreign rank with a failure text of ~15 MiB
//   - LogContent nobody asked for: 1 MiB pages with 64 KiB errors
//   - WorkersStopped for the honest test with ~8 MiB of evidence
//   - heartbeats naming 1,000 tests of 128 characters
//   - a repeated register with a ~250 KiB inventory
//   - an empty message (no kind)
//  rendezvous (paced at `share` of the per-node rendezvous budget):
//   - waits of its own test with the most keys a wait may have (twice the
//     ranks plus 64, 256 characters each), absent, at most its share of the
//     test's pending waits (spec::RendezvousBoundsFor), re-issued as they
//     time out
//   - sets of the largest values its test allows under new keys, all but
//     one of its share of keys
//   - sliced waits at the slice's edge over its own values
//   - with TLS: sets and waits into the honest test (refused: not a member)
//  sessions that never register: `silent_sessions` kept open from its
//  address, each re-opened when the coordinator ends it.
//
// Its own test (the "side test", of the compromised nodes only) stays in
// its rendezvous while this runs, so that the node is a member of a running
// test. At the end, OverTheEdge() fails one own rank with a ~15 MiB failure
// text and then floods until the coordinator cuts the session off, which
// the docs say it must (RESOURCE_EXHAUSTED, audited, the node lost).

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "ebnccl/v1/agent.grpc.pb.h"
#include "grpcpp/channel.h"
#include "nlohmann/json.hpp"

namespace eb::bench {

struct CompromisedBehaviour {
  int ranks_per_agent = 8;
  // Fraction of each coordinator budget spent (below 1: never cut off).
  double share = 0.9;
  // Sessions kept open without a register (the coordinator admits 4,096
  // such sessions from everyone together).
  int silent_sessions = 1024;
  // Calls into a test it is not part of (refused with TLS only: without TLS
  // the coordinator cannot tell who calls, docs/SECURITY.md).
  bool foreign_rendezvous = false;
  // Only these kinds (the names in the report: "log_content_unasked",
  // "absent_keys_wait", "silent_sessions", ...); empty: every kind. To find
  // which kind costs the coordinator what.
  std::set<std::string> only_kinds;
  bool Enabled(const std::string& kind) const {
    return only_kinds.empty() || only_kinds.contains(kind);
  }
};

class CompromisedAgent {
 public:
  CompromisedAgent(std::string name, int index, std::shared_ptr<grpc::Channel> channel,
                   std::shared_ptr<grpc::Channel> silent_channel, CompromisedBehaviour behaviour);
  ~CompromisedAgent();
  CompromisedAgent(const CompromisedAgent&) = delete;
  CompromisedAgent& operator=(const CompromisedAgent&) = delete;

  const std::string& name() const { return name_; }
  // Opens the session and registers; true once registered (within `timeout`).
  bool Register(absl::Duration timeout);
  // Waits for the side test's LaunchTest; then its ranks reach the
  // rendezvous (REGISTERED, JOINING) and never join.
  bool AwaitLaunch(absl::Duration timeout);
  // Starts the flood (session, rendezvous and silent sessions).
  void StartAttack();
  // The honest test's id and ranks, once known: the target of the events
  // for ranks it does not own.
  void SetTarget(const std::string& test_id, int world_size);
  // Ends the paced flood, fails an own rank with a ~15 MiB text, then
  // floods beyond the budget until the coordinator ends the session (or
  // `timeout`): the session's final status.
  grpc::Status OverTheEdge(absl::Duration timeout);
  // Ends everything and waits for every call.
  void Stop();
  // What it sent and what the coordinator answered.
  nlohmann::json Report();

 private:
  class Stream;
  class SilentSession;

  // Paced flood of session messages / rendezvous calls / silent sessions.
  void SessionLane();
  void RendezvousLane();
  void OpenSilentSession();
  void SilentSessionDone(const grpc::Status& status);
  void OnLaunch(const ebnccl::v1::LaunchTest& launch);
  // Counts one message of `kind` and writes it; false once the session is over.
  bool Send(const char* kind, ebnccl::v1::AgentMessage message);
  void CountCall(const std::string& what, const grpc::Status& status);
  void RendezvousWait(const std::string& test_id, std::vector<std::string> keys,
                      int64_t slice_offset, int64_t slice_length, const char* what);
  void RendezvousSet(const std::string& test_id, const std::string& key, std::string value,
                     const char* what);
  ebnccl::v1::AgentMessage MakeRegister() const;
  ebnccl::v1::AgentMessage EventBatch(const std::string& test_id, int first_rank, int world,
                                      bool own);

  const std::string name_;
  const int index_;
  const CompromisedBehaviour behaviour_;
  std::unique_ptr<ebnccl::v1::AgentService::Stub> stub_;
  std::unique_ptr<ebnccl::v1::AgentService::Stub> silent_stub_;
  std::unique_ptr<Stream> stream_;

  std::atomic<bool> attacking_{false};
  std::atomic<bool> silent_open_{false};
  std::thread session_lane_;
  std::thread rendezvous_lane_;

  absl::Mutex mu_;
  bool registered_ ABSL_GUARDED_BY(mu_) = false;
  bool launched_ ABSL_GUARDED_BY(mu_) = false;
  std::string side_test_ ABSL_GUARDED_BY(mu_);
  std::vector<int> own_ranks_ ABSL_GUARDED_BY(mu_);
  int side_world_ ABSL_GUARDED_BY(mu_) = 0;
  std::string target_test_ ABSL_GUARDED_BY(mu_);
  int target_world_ ABSL_GUARDED_BY(mu_) = 1;
  int calls_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  int pending_waits_ ABSL_GUARDED_BY(mu_) = 0;
  int silent_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  // Per kind: messages, items (events) and bytes sent.
  std::map<std::string, std::array<int64_t, 3>> sent_ ABSL_GUARDED_BY(mu_);
  // Per call kind and answer (gRPC code name): how many.
  std::map<std::string, std::map<std::string, int64_t>> answers_ ABSL_GUARDED_BY(mu_);
  int64_t silent_opened_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int64_t> silent_ends_ ABSL_GUARDED_BY(mu_);
};

}  // namespace eb::bench
