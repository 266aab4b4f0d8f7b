#pragma once

// One simulated eb-agent with its simulated workers, speaking the real
// AgentService protocol over its own channel, as agent/ and agent/worker do:
// the Session stream (RegisterAgent with an inventory, heartbeats, worker
// events, WorkersStopped), and the rendezvous calls the agent relays for
// its workers (NCCL: rank 0 sets the unique id, the others wait for it;
// Gloo: every rank sets its address table and reads its own entry of every
// peer's in one sliced wait, as common/transport/gloo/gloo_mesh.cc does), with
// the agent's coalescing (a phase's events of all its ranks in one batch, the
// identical NCCL waits of its ranks in one call) unless told otherwise. The workers
// finish their sweep at once (no data moves), or with a size_time each size
// lasts that long while every rank reports its calls (PROGRESS) at the
// worker's heartbeat cadence, as a real agent forwards them (issue 29 item
// 2): what is measured is the coordinator.
//
// Everything runs on gRPC's callback threads; an agent's state is guarded
// by its own mutex, so thousands of agents share a few threads.

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ebnccl/v1/agent.grpc.pb.h"
#include "grpcpp/channel.h"
#include "tests/bench/load_generator/scheduler.h"

namespace eb::bench {

// Counters shared by every agent of a run.
struct FleetCounters {
  absl::Mutex mu;
  int registered ABSL_GUARDED_BY(mu) = 0;
  // Session attempts that ended before the RegisterReply (connect timeouts,
  // refusals): each is an abandoned handshake that the agent retries.
  std::atomic<int64_t> failed_attempts{0};
  std::atomic<int64_t> rendezvous_calls{0};
  std::atomic<int64_t> rendezvous_errors{0};
  std::atomic<int64_t> session_messages{0};
  // WORKER_EVENT_KIND_PROGRESS events sent (each rank's, counted one by one).
  std::atomic<int64_t> progress_events{0};
};

struct AgentBehaviour {
  int ranks_per_agent = 8;
  // Delay before acting on a LaunchTest (a slow agent).
  absl::Duration launch_delay = absl::ZeroDuration();
  // Ends its session once its ranks reached the rendezvous, and never comes
  // back: a host that vanishes mid-rendezvous.
  bool vanish = false;
  // Waits between session attempts, as the agent's reconnect_initial.
  absl::Duration reconnect_delay = absl::Milliseconds(100);
  // As the agent since issue 15: a phase's events of all ranks in one
  // WorkerEventBatch, identical NCCL waits as one call. false: one message
  // and one call per rank (the agent before).
  bool batching = true;
  // NCCL: each rank waits for the unique id with what is left of its own
  // deadline after its own start-up, as real workers do: its timeout_ms
  // is the init timeout less a start-up drawn from [0, wait_jitter) per
  // rank. With batching, the waits go through the agent's own merge
  // (RendezvousWaitKey, CoalescedWaits); issue 32 item 11.
  absl::Duration wait_jitter = absl::Milliseconds(500);
  // How long each size of the sweep lasts once the ranks joined; zero: the
  // whole sweep is reported at once (the benchmark before issue 29).
  absl::Duration size_time = absl::ZeroDuration();
  // While a size lasts, each rank reports PROGRESS this often, as the
  // worker's heartbeat thread does (agent_core_config.h
  // worker_heartbeat_period, 250 ms shipped), each rank at its own phase;
  // zero: no PROGRESS (the benchmark before issue 29). progress_together:
  // a node's reports of one period go as one batch, as the agent's session
  // sends them (it holds PROGRESS up to a worker heartbeat period,
  // coordinator_session.h); false: one message a report, as the agent did
  // before (its 2 ms linger seldom found another rank's report).
  absl::Duration progress_period = absl::Milliseconds(250);
  bool progress_together = true;
};

class SimAgent {
 public:
  SimAgent(std::string name, int index, std::shared_ptr<grpc::Channel> channel,
           AgentBehaviour behaviour, FleetCounters& counters, Scheduler& scheduler);
  ~SimAgent();

  SimAgent(const SimAgent&) = delete;
  SimAgent& operator=(const SimAgent&) = delete;

  const std::string& name() const { return name_; }
  // Opens the session (and retries until registered or Stop).
  void Connect();
  // Sends one heartbeat when registered.
  void Heartbeat();
  // Ends the session and waits until the call and every rendezvous call
  // are over.
  void Stop();

 private:
  class Session;
  void OnRegistered();
  void OnCommand(const ebnccl::v1::CoordinatorMessage& command);
  // The session's call is over: first DetachSession (no one may use it
  // once it is deleted), then it deletes itself, then OnSessionDone.
  void DetachSession();
  void OnSessionDone(const grpc::Status& status, bool registered);
  struct RankState {
    int rank = 0;
    int world = 1;
    bool table_set = false;  // Gloo: its address table is stored
  };
  struct TestState {
    ebnccl::v1::LaunchTest launch;
    int unfinished = 0;
    bool stopped_sent = false;
  };
  // The sweep of the ranks that joined together (one rendezvous call's),
  // with a size_time: shared by the timers of its size.
  struct Sweep {
    std::string test_id;
    std::vector<int> ranks;
    std::vector<int64_t> sizes;
    int iterations = 1;
    int check_iterations = 0;
    int step = 0;  // the size being measured
    absl::Time size_started;
    // Per rank (as `ranks`): the calls of its last PROGRESS; a worker
    // reports only what is new (progress_board.h).
    std::vector<int> reported_calls;
  };

  void StartSession();
  void Launch(const ebnccl::v1::LaunchTest& launch);
  void Send(ebnccl::v1::AgentMessage message);
  // The event `kind` of each of `ranks` (filled by `fill` when given).
  void SendEvents(const std::string& test_id, const std::vector<int>& ranks,
                  ebnccl::v1::WorkerEventKind kind,
                  const std::function<void(ebnccl::v1::WorkerEvent&)>& fill = nullptr);
  // NCCL: {0} sets the unique id; other ranks wait for it in one call.
  void RendezvousNccl(const std::string& test_id, const std::vector<int>& ranks,
                      int64_t timeout_ms);
  void RendezvousGloo(const std::string& test_id, const std::shared_ptr<RankState>& state,
                      int64_t timeout_ms);
  // The ranks joined: they report JOINED, their sizes and FINISHED.
  void Joined(const std::string& test_id, const std::vector<int>& ranks);
  // The sizes of the ranks that joined, from the sizes of the launch.
  std::shared_ptr<Sweep> MakeSweep(const std::string& test_id, const std::vector<int>& ranks);
  // The ranks' SIZE_DONE of size `bytes`.
  void SendSizeDone(const Sweep& sweep, const std::vector<int>& ranks, int64_t bytes);
  // With a size_time (sim_sweep.cc): the sweep's size `sweep->step` starts
  // now; it ends (the ranks' SIZE_DONE, then the next size or FINISHED)
  // size_time later, and until then its ranks report PROGRESS every
  // progress_period, each at its own phase (or all at one with
  // progress_together).
  void StartSize(const std::shared_ptr<Sweep>& sweep);
  void EndSize(const std::shared_ptr<Sweep>& sweep, int step);
  // The PROGRESS of `members` (indices into sweep->ranks) in size `step`,
  // what is new of it; then again a period later while the size lasts.
  void ReportProgress(const std::shared_ptr<Sweep>& sweep, int step, std::vector<size_t> members);
  // The test was stopped or is gone: its ranks report nothing more.
  bool TestOver(const std::string& test_id);
  void FinishSweep(const Sweep& sweep);
  void RanksFailed(const std::string& test_id, const std::vector<int>& ranks,
                   const grpc::Status& status);
  // One rank of the test is done (finished or failed); the last one sends
  // WorkersStopped.
  void RankDone(const std::string& test_id);
  void SendStopped(const std::string& test_id);
  void CallDone();

  const std::string name_;
  const int index_;
  Scheduler& scheduler_;
  const AgentBehaviour behaviour_;
  FleetCounters& counters_;
  std::unique_ptr<ebnccl::v1::AgentService::Stub> stub_;

  absl::Mutex mu_;
  Session* session_ ABSL_GUARDED_BY(mu_) = nullptr;
  // Between DetachSession and OnSessionDone: the session is being deleted,
  // and Stop waits for it.
  bool session_closing_ ABSL_GUARDED_BY(mu_) = false;
  bool registered_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool vanished_ ABSL_GUARDED_BY(mu_) = false;
  int64_t heartbeat_sequence_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, TestState> tests_ ABSL_GUARDED_BY(mu_);
  // Rendezvous calls in flight (Stop waits for them).
  int outstanding_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace eb::bench
