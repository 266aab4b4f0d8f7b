#include "tests/bench/load_generator/sim_agent.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/core/coalesced_waits.h"
#include "agent/core/rendezvous_wait_key.h"
#include "common/rpc/channel.h"
#include "common/rpc/reactor_order.h"
#include "common/spec/rendezvous_wait_reply.h"
#include "common/transport/value_slice.h"

namespace eb::bench {
namespace v1 = ebnccl::v1;

namespace {

// What the real worker stores (common/transport/gloo/mesh_table.h): one table
// per rank under gloo/mesh/<rank>, a 48-byte entry per rank (both lanes).
constexpr int kGlooMeshEntryBytes = 48;
constexpr char kGlooMeshKeyPrefix[] = "gloo/mesh/";
// ncclUniqueId.
constexpr int kNcclUniqueIdBytes = 128;
constexpr char kNcclUniqueIdKey[] = "nccl/unique_id";

template <typename Request, typename Reply>
struct UnaryCall {
  grpc::ClientContext context;
  Request request;
  Reply reply;
};

}  // namespace

// One attempt of the agent's Session stream. Deletes itself when the call
// is over (OnDone), after telling the agent.
class SimAgent::Session final
    : public grpc::ClientBidiReactor<v1::AgentMessage, v1::CoordinatorMessage> {
 public:
  Session(SimAgent& agent, v1::AgentMessage hello) : agent_(agent) {
    agent_.stub_->async()->Session(&context_, this);
    Write(std::move(hello));
    StartRead(&incoming_);
    order_.Constructed();
    StartCall();
  }

  void Write(v1::AgentMessage message) {
    {
      absl::MutexLock lock(&mu_);
      outbox_.push_back(std::move(message));
      if (writing_) return;
      writing_ = true;
      current_ = std::move(outbox_.front());
      outbox_.pop_front();
    }
    StartWrite(&current_);
  }

  void Cancel() { context_.TryCancel(); }

  void OnWriteDone(bool ok) override {
    auto reaction = order_.OtherReaction();
    {
      absl::MutexLock lock(&mu_);
      if (!ok || outbox_.empty()) {
        writing_ = false;
        if (!ok) outbox_.clear();
        return;
      }
      current_ = std::move(outbox_.front());
      outbox_.pop_front();
    }
    StartWrite(&current_);
  }

  void OnReadDone(bool ok) override {
    auto reaction = order_.ReadDone();
    if (!ok) return;
    if (incoming_.has_register_reply()) {
      registered_ = true;
      agent_.OnRegistered();
    } else {
      agent_.OnCommand(incoming_);
    }
    order_.BeforeStartRead();
    StartRead(&incoming_);
  }

  void OnDone(const grpc::Status& status) override {
    order_.Done();
    // Three steps. The agent stops handing messages to this session first
    // (a heartbeat writing into it after its delete locked a freed mutex:
    // "Mutex unlocked when destroyed", concurrent_sessions_test, rarely).
    // It is gone before the agent hears that it is over: Stop() returns on
    // that news, and main then drops the channel; the context holds a
    // reference to it, and its last reference, dropped here on gRPC's
    // thread as the process ends, left gRPC's callback threads unjoined (a
    // TSan thread leak, 1 run in 100 of concurrent_sessions_test's `slow`).
    SimAgent& agent = agent_;
    const bool registered = registered_;
    agent.DetachSession();
    delete this;
    agent.OnSessionDone(status, registered);
  }

 private:
  SimAgent& agent_;
  grpc::ClientContext context_;
  v1::CoordinatorMessage incoming_;
  // Touched by the read callbacks only (one at a time).
  bool registered_ = false;
  absl::Mutex mu_;
  std::deque<v1::AgentMessage> outbox_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  v1::AgentMessage current_;
  common::ReactorOrder order_;
};

SimAgent::SimAgent(std::string name, int index, std::shared_ptr<grpc::Channel> channel,
                   AgentBehaviour behaviour, FleetCounters& counters, Scheduler& scheduler)
    : name_(std::move(name)),
      index_(index),
      scheduler_(scheduler),
      behaviour_(behaviour),
      counters_(counters),
      stub_(v1::AgentService::NewStub(std::move(channel))) {}

SimAgent::~SimAgent() { Stop(); }

void SimAgent::Connect() {
  absl::MutexLock lock(&mu_);
  if (session_ != nullptr || session_closing_ || stopping_) return;
  StartSession();
}

void SimAgent::StartSession() {
  v1::AgentMessage hello;
  v1::RegisterAgent& reg = *hello.mutable_register_();
  reg.set_node_name(name_);
  v1::NodeInventory& inventory = *reg.mutable_inventory();
  inventory.set_hostname(name_);
  inventory.set_worker_slots(behaviour_.ranks_per_agent);
  inventory.add_transports(v1::TRANSPORT_GLOO);
  inventory.add_transports(v1::TRANSPORT_NCCL);
  inventory.set_nccl_version("2.21.5");
  inventory.set_agent_version("load-generator");
  inventory.set_host_id(absl::StrCat("sim-host-", index_));
  for (int gpu = 0; gpu < behaviour_.ranks_per_agent; ++gpu) {
    v1::GpuInfo& info = *inventory.add_gpus();
    info.set_index(gpu);
    info.set_name("Simulated GPU");
    info.set_pci_bus_id(absl::StrFormat("00000000:%02X:00.0", gpu + 1));
    info.set_memory_bytes(int64_t{80} << 30);
  }
  session_ = new Session(*this, std::move(hello));
}

void SimAgent::OnRegistered() {
  {
    absl::MutexLock lock(&mu_);
    registered_ = true;
  }
  absl::MutexLock lock(&counters_.mu);
  ++counters_.registered;
}

void SimAgent::DetachSession() {
  absl::MutexLock lock(&mu_);
  session_ = nullptr;
  session_closing_ = true;
  registered_ = false;
}

void SimAgent::OnSessionDone(const grpc::Status& status, bool registered) {
  absl::MutexLock lock(&mu_);
  session_closing_ = false;
  if (stopping_ || vanished_) return;
  if (!registered) counters_.failed_attempts.fetch_add(1);
  (void)status;
  // As the agent: try again after its reconnect delay.
  scheduler_.PostAfter(behaviour_.reconnect_delay, [this] { Connect(); });
}

void SimAgent::Heartbeat() {
  v1::AgentMessage message;
  absl::MutexLock lock(&mu_);
  if (!registered_ || session_ == nullptr) return;
  message.mutable_heartbeat()->set_sequence(++heartbeat_sequence_);
  for (const auto& [test_id, test] : tests_) {
    if (!test.stopped_sent) message.mutable_heartbeat()->add_running_test_ids(test_id);
  }
  counters_.session_messages.fetch_add(1);
  session_->Write(std::move(message));
}

void SimAgent::Stop() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
  if (session_ != nullptr) session_->Cancel();
  mu_.Await(absl::Condition(
      +[](SimAgent* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
        return self->session_ == nullptr && !self->session_closing_ && self->outstanding_ == 0;
      },
      this));
}

void SimAgent::Send(v1::AgentMessage message) {
  absl::MutexLock lock(&mu_);
  if (session_ == nullptr || vanished_) return;
  counters_.session_messages.fetch_add(1);
  session_->Write(std::move(message));
}

void SimAgent::SendEvents(const std::string& test_id, const std::vector<int>& ranks,
                          v1::WorkerEventKind kind,
                          const std::function<void(v1::WorkerEvent&)>& fill) {
  // As the agent's session writer (agent/core/event_batching.h): the events
  // of ranks that reach a phase together go as one batch; with batching off
  // (--agent-batching=false, the agent before issue 15), one message each.
  auto make = [&](int rank, v1::WorkerEvent& event) {
    event.set_test_id(test_id);
    event.set_rank(rank);
    event.set_kind(kind);
    if (fill) fill(event);
  };
  if (!behaviour_.batching || ranks.size() == 1) {
    for (int rank : ranks) {
      v1::AgentMessage message;
      make(rank, *message.mutable_worker_event());
      Send(std::move(message));
    }
    return;
  }
  v1::AgentMessage message;
  for (int rank : ranks) make(rank, *message.mutable_worker_events()->add_events());
  Send(std::move(message));
}

void SimAgent::OnCommand(const v1::CoordinatorMessage& command) {
  if (command.has_launch()) {
    if (behaviour_.launch_delay > absl::ZeroDuration()) {
      scheduler_.PostAfter(behaviour_.launch_delay,
                           [this, launch = command.launch()] { Launch(launch); });
    } else {
      Launch(command.launch());
    }
  } else if (command.has_stop()) {
    // A vanishing host is hung already: it answers nothing before it goes.
    if (!behaviour_.vanish) SendStopped(command.stop().test_id());
  }
  // FetchLog is not simulated (ebctl logs is not part of the benchmark).
}

void SimAgent::Launch(const v1::LaunchTest& launch) {
  const std::string& test_id = launch.test_id();
  {
    absl::MutexLock lock(&mu_);
    TestState& test = tests_[test_id];
    test.launch = launch;
    test.unfinished = launch.ranks_size();
  }
  // Each worker starts and registers with the agent, then reaches the
  // rendezvous (agent/worker/worker_runtime.cc).
  std::vector<int> ranks;
  for (const v1::RankAssignment& rank : launch.ranks()) ranks.push_back(rank.rank());
  SendEvents(test_id, ranks, v1::WORKER_EVENT_KIND_REGISTERED);
  SendEvents(test_id, ranks, v1::WORKER_EVENT_KIND_JOINING);
  if (behaviour_.vanish) {
    // The host goes away while its ranks wait at the rendezvous: the
    // session's connection breaks and nothing more comes from it.
    scheduler_.PostAfter(absl::Milliseconds(200), [this] {
      absl::MutexLock lock(&mu_);
      vanished_ = true;
      if (session_ != nullptr) session_->Cancel();
    });
    return;
  }
  const int64_t timeout_ms = launch.init_timeout_ms();
  if (launch.spec().transport() == v1::TRANSPORT_GLOO) {
    for (const v1::RankAssignment& rank : launch.ranks()) {
      auto state = std::make_shared<RankState>();
      state->rank = rank.rank();
      state->world = rank.world_size();
      RendezvousGloo(test_id, state, timeout_ms);
    }
    return;
  }
  // NCCL: rank 0 sets the unique id; every other rank waits for it, each
  // with its own timeout (what is left of its deadline after its CUDA
  // start-up). The agent relays the waits that ask the same thing as one
  // call while their deadlines allow (agent/core/rendezvous_wait_key.h,
  // coalesced_waits.h): the same code decides here which waits share a
  // call. Without batching, one call per rank.
  absl::BitGen jitter;
  const absl::Time now = absl::Now();
  agent::CoalescedWaits<int> merged;
  std::map<uint64_t, std::pair<int64_t, std::vector<int>>> calls;  // call: timeout, ranks
  for (int rank : ranks) {
    if (rank == 0) {
      RendezvousNccl(test_id, {0}, timeout_ms);
      continue;
    }
    const int64_t startup_ms =
        behaviour_.wait_jitter > absl::ZeroDuration()
            ? absl::Uniform<int64_t>(jitter, 0, absl::ToInt64Milliseconds(behaviour_.wait_jitter))
            : 0;
    const int64_t left_ms = std::max<int64_t>(timeout_ms - startup_ms, 1);
    if (!behaviour_.batching) {
      RendezvousNccl(test_id, {rank}, left_ms);
      continue;
    }
    v1::RendezvousWaitRequest wait;
    wait.set_test_id(test_id);
    wait.add_keys(kNcclUniqueIdKey);
    wait.set_timeout_ms(left_ms);
    const auto joined =
        merged.Join(agent::RendezvousWaitKey(wait), now + absl::Milliseconds(left_ms), rank);
    auto& call = calls[joined.call];
    if (joined.start) call.first = left_ms;
    call.second.push_back(rank);
  }
  for (const auto& [id, call] : calls) RendezvousNccl(test_id, call.second, call.first);
}

void SimAgent::CallDone() {
  absl::MutexLock lock(&mu_);
  --outstanding_;
}

void SimAgent::RendezvousNccl(const std::string& test_id, const std::vector<int>& ranks,
                              int64_t timeout_ms) {
  {
    absl::MutexLock lock(&mu_);
    ++outstanding_;
  }
  counters_.rendezvous_calls.fetch_add(1);
  if (ranks == std::vector<int>{0}) {
    auto* call = new UnaryCall<v1::RendezvousSetRequest, v1::RendezvousSetReply>;
    call->request.set_test_id(test_id);
    call->request.set_key(kNcclUniqueIdKey);
    call->request.set_value(std::string(kNcclUniqueIdBytes, '\x5a'));
    common::SetTimeout(call->context, absl::Milliseconds(timeout_ms) + absl::Seconds(5));
    stub_->async()->RendezvousSet(&call->context, &call->request, &call->reply,
                                  [this, call, test_id, ranks](const grpc::Status& status) {
                                    delete call;
                                    if (status.ok()) {
                                      Joined(test_id, ranks);
                                    } else {
                                      RanksFailed(test_id, ranks, status);
                                    }
                                    CallDone();
                                  });
    return;
  }
  auto* call = new UnaryCall<v1::RendezvousWaitRequest, v1::RendezvousWaitReply>;
  call->request.set_test_id(test_id);
  call->request.add_keys(kNcclUniqueIdKey);
  call->request.set_timeout_ms(timeout_ms);
  common::SetTimeout(call->context, absl::Milliseconds(timeout_ms) + absl::Seconds(5));
  stub_->async()->RendezvousWait(&call->context, &call->request, &call->reply,
                                 [this, call, test_id, ranks](const grpc::Status& status) {
                                   absl::StatusOr<std::vector<std::string>> id =
                                       spec::WaitReplyValues(call->reply, 1, nullptr);
                                   const bool ok = status.ok() && id.ok() &&
                                                   id->front().size() ==
                                                       static_cast<size_t>(kNcclUniqueIdBytes);
                                   delete call;
                                   if (ok) {
                                     Joined(test_id, ranks);
                                   } else {
                                     RanksFailed(test_id, ranks, status);
                                   }
                                   CallDone();
                                 });
}

void SimAgent::RendezvousGloo(const std::string& test_id, const std::shared_ptr<RankState>& state,
                              int64_t timeout_ms) {
  {
    absl::MutexLock lock(&mu_);
    ++outstanding_;
  }
  counters_.rendezvous_calls.fetch_add(1);
  if (!state->table_set) {
    // First: this rank's address table, one entry per rank, under one key.
    auto* call = new UnaryCall<v1::RendezvousSetRequest, v1::RendezvousSetReply>;
    call->request.set_test_id(test_id);
    call->request.set_key(absl::StrCat(kGlooMeshKeyPrefix, state->rank));
    call->request.set_value(
        std::string(static_cast<size_t>(kGlooMeshEntryBytes) * state->world, '\x04'));
    common::SetTimeout(call->context, absl::Milliseconds(timeout_ms) + absl::Seconds(5));
    stub_->async()->RendezvousSet(
        &call->context, &call->request, &call->reply,
        [this, call, test_id, state, timeout_ms](const grpc::Status& status) {
          delete call;
          if (!status.ok()) {
            RanksFailed(test_id, {state->rank}, status);
          } else if (state->world == 1) {
            Joined(test_id, {state->rank});
          } else {
            state->table_set = true;
            RendezvousGloo(test_id, state, timeout_ms);
          }
          CallDone();
        });
    return;
  }
  // Then one wait for every peer's table, cut to this rank's entry.
  auto* call = new UnaryCall<v1::RendezvousWaitRequest, v1::RendezvousWaitReply>;
  call->request.set_test_id(test_id);
  for (int peer = 0; peer < state->world; ++peer) {
    if (peer != state->rank) call->request.add_keys(absl::StrCat(kGlooMeshKeyPrefix, peer));
  }
  const transport::ValueSlice slice{int64_t{state->rank} * kGlooMeshEntryBytes,
                                    kGlooMeshEntryBytes};
  spec::SetWaitSlice(slice, &call->request);
  call->request.set_timeout_ms(timeout_ms);
  common::SetTimeout(call->context, absl::Milliseconds(timeout_ms) + absl::Seconds(5));
  stub_->async()->RendezvousWait(
      &call->context, &call->request, &call->reply,
      [this, call, test_id, state, slice](grpc::Status status) {
        // Read as the real worker reads it (AgentLink::WaitSlice): either
        // form of the reply, every peer's entry whole.
        if (status.ok()) {
          absl::StatusOr<std::vector<std::string>> entries =
              spec::WaitReplyValues(call->reply, static_cast<size_t>(state->world - 1), &slice);
          if (!entries.ok()) {
            status = grpc::Status(grpc::StatusCode::INTERNAL,
                                  absl::StrCat("bad slices: ", entries.status().message()));
          }
        }
        delete call;
        if (status.ok()) {
          Joined(test_id, {state->rank});
        } else {
          RanksFailed(test_id, {state->rank}, status);
        }
        CallDone();
      });
}

std::shared_ptr<SimAgent::Sweep> SimAgent::MakeSweep(const std::string& test_id,
                                                     const std::vector<int>& ranks) {
  absl::MutexLock lock(&mu_);
  auto it = tests_.find(test_id);
  if (it == tests_.end()) return nullptr;
  const v1::LaunchTest& launch = it->second.launch;
  auto sweep = std::make_shared<Sweep>();
  sweep->test_id = test_id;
  sweep->ranks = ranks;
  sweep->sizes.assign(launch.sizes_bytes().begin(), launch.sizes_bytes().end());
  sweep->iterations = launch.spec().iterations();
  sweep->check_iterations = launch.spec().check_iterations();
  return sweep;
}

void SimAgent::Joined(const std::string& test_id, const std::vector<int>& ranks) {
  std::shared_ptr<Sweep> sweep = MakeSweep(test_id, ranks);
  if (sweep == nullptr) return;
  SendEvents(test_id, ranks, v1::WORKER_EVENT_KIND_JOINED);
  if (behaviour_.size_time > absl::ZeroDuration()) {
    // The sizes take time: on the scheduler's thread, which then owns the
    // sweep (sim_sweep.cc).
    scheduler_.PostAfter(absl::ZeroDuration(), [this, sweep] { StartSize(sweep); });
    return;
  }
  for (const int64_t bytes : sweep->sizes) SendSizeDone(*sweep, ranks, bytes);
  FinishSweep(*sweep);
}

void SimAgent::SendSizeDone(const Sweep& sweep, const std::vector<int>& ranks, int64_t bytes) {
  // all_reduce of floats (the generator's tests): count = bytes / 4.
  SendEvents(sweep.test_id, ranks, v1::WORKER_EVENT_KIND_SIZE_DONE,
             [bytes](v1::WorkerEvent& event) {
               v1::RankSizeResult& result = *event.mutable_size_result();
               result.set_count(bytes / 4);
               result.set_size_bytes(bytes / 4 * 4);
               result.mutable_out_of_place()->set_time_us(10.0);
               result.mutable_in_place()->set_time_us(10.0);
             });
}

void SimAgent::RanksFailed(const std::string& test_id, const std::vector<int>& ranks,
                           const grpc::Status& status) {
  SendEvents(test_id, ranks, v1::WORKER_EVENT_KIND_FAILED, [&status](v1::WorkerEvent& event) {
    event.mutable_failure()->set_kind(status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED
                                          ? v1::FAILURE_KIND_TIMEOUT
                                          : v1::FAILURE_KIND_INTERNAL);
    event.mutable_failure()->set_message(
        absl::StrCat("simulated rendezvous failed: ", status.error_message()));
  });
  for (size_t i = 0; i < ranks.size(); ++i) RankDone(test_id);
}

void SimAgent::RankDone(const std::string& test_id) {
  bool last = false;
  {
    absl::MutexLock lock(&mu_);
    auto it = tests_.find(test_id);
    if (it == tests_.end()) return;
    last = --it->second.unfinished == 0;
  }
  // Every worker exited: the agent reaped them all.
  if (last) SendStopped(test_id);
}

void SimAgent::SendStopped(const std::string& test_id) {
  {
    absl::MutexLock lock(&mu_);
    auto it = tests_.find(test_id);
    if (it != tests_.end()) {
      if (it->second.stopped_sent) return;
      it->second.stopped_sent = true;
    }
  }
  v1::AgentMessage message;
  message.mutable_workers_stopped()->set_test_id(test_id);
  Send(std::move(message));
}

}  // namespace eb::bench
