#include "tests/bench/load_generator/compromised_agent.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/rpc/channel.h"
#include "common/rpc/reactor_order.h"
#include "common/spec/limits.h"
#include "common/spec/rendezvous_bounds.h"
#include "coordinator/core/budget/rendezvous_budget.h"
#include "coordinator/core/budget/session_budget.h"
#include "tests/bench/load_generator/budget_pacer.h"

namespace eb::bench {
namespace v1 = ebnccl::v1;

namespace {

constexpr int kBatch = spec::kMaxWorkerEventsPerBatch;
// Below gRPC's 16 MiB message limit with room for the rest of the message.
constexpr size_t kHugeText = (size_t{15} << 20);
constexpr size_t kEvidenceText = (size_t{8} << 20);
constexpr size_t kInventoryPadding = 250 * 1024;

std::string FloodCodeName(const grpc::Status& status) {
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code()));
}

// A key of the longest length the store takes, distinct per `i`.
std::string FloodKey(const std::string& prefix, int64_t i) {
  std::string key = absl::StrCat(prefix, i, "/");
  key.resize(spec::kMaxRendezvousKeyLength, 'k');
  return key;
}

template <typename Request, typename Reply>
struct FloodCall {
  grpc::ClientContext context;
  Request request;
  Reply reply;
};

}  // namespace

// The session: writes one message at a time and blocks the writer until
// gRPC took it (so that the generator never queues a flood in its own
// memory); reads the register reply and the side test's launch.
class CompromisedAgent::Stream final
    : public grpc::ClientBidiReactor<v1::AgentMessage, v1::CoordinatorMessage> {
 public:
  Stream(CompromisedAgent& agent, v1::AgentService::Stub& stub, v1::AgentMessage hello)
      : agent_(agent), current_(std::move(hello)) {
    stub.async()->Session(&context_, this);
    writing_ = true;
    StartWrite(&current_);
    StartRead(&incoming_);
    order_.Constructed();
    StartCall();
  }

  // False once the call is over.
  bool WriteAndWait(v1::AgentMessage message) {
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](Stream* self)
               ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) { return !self->writing_ || self->done_; },
          this));
      if (done_ || failed_) return false;
      current_ = std::move(message);
      writing_ = true;
    }
    StartWrite(&current_);
    return true;
  }

  void OnWriteDone(bool ok) override {
    auto reaction = order_.OtherReaction();
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!ok) failed_ = true;
  }

  void OnReadDone(bool ok) override {
    auto reaction = order_.ReadDone();
    if (!ok) return;
    if (incoming_.has_register_reply()) {
      absl::MutexLock lock(&agent_.mu_);
      agent_.registered_ = true;
    } else if (incoming_.has_launch()) {
      agent_.OnLaunch(incoming_.launch());
    }
    order_.BeforeStartRead();
    StartRead(&incoming_);
  }

  void OnDone(const grpc::Status& status) override {
    order_.Done();
    absl::MutexLock lock(&mu_);
    status_ = status;
    done_ = true;
  }

  void Cancel() { context_.TryCancel(); }

  // Waits for the end of the call (at most `timeout`); its status, or
  // nullopt when it is still open.
  std::optional<grpc::Status> AwaitDone(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    if (!mu_.AwaitWithTimeout(absl::Condition(&done_), timeout)) return std::nullopt;
    return status_;
  }

 private:
  CompromisedAgent& agent_;
  grpc::ClientContext context_;
  v1::CoordinatorMessage incoming_;
  v1::AgentMessage current_;
  absl::Mutex mu_;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool failed_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
  common::ReactorOrder order_;
};

// A session that never registers: it waits for the coordinator to end it.
class CompromisedAgent::SilentSession final
    : public grpc::ClientBidiReactor<v1::AgentMessage, v1::CoordinatorMessage> {
 public:
  SilentSession(CompromisedAgent& agent, v1::AgentService::Stub& stub) : agent_(agent) {
    stub.async()->Session(&context_, this);
    StartRead(&incoming_);
    order_.Constructed();
    StartCall();
  }
  void OnReadDone(bool /*ok*/) override { auto reaction = order_.ReadDone(); }
  void OnDone(const grpc::Status& status) override {
    order_.Done();
    CompromisedAgent& agent = agent_;
    delete this;
    agent.SilentSessionDone(status);
  }

 private:
  CompromisedAgent& agent_;
  grpc::ClientContext context_;
  v1::CoordinatorMessage incoming_;
  common::ReactorOrder order_;
};

CompromisedAgent::CompromisedAgent(std::string name, int index,
                                   std::shared_ptr<grpc::Channel> channel,
                                   std::shared_ptr<grpc::Channel> silent_channel,
                                   CompromisedBehaviour behaviour)
    : name_(std::move(name)),
      index_(index),
      behaviour_(std::move(behaviour)),
      stub_(v1::AgentService::NewStub(std::move(channel))),
      silent_stub_(v1::AgentService::NewStub(std::move(silent_channel))) {}

CompromisedAgent::~CompromisedAgent() { Stop(); }

v1::AgentMessage CompromisedAgent::MakeRegister() const {
  v1::AgentMessage hello;
  v1::RegisterAgent& reg = *hello.mutable_register_();
  reg.set_node_name(name_);
  v1::NodeInventory& inventory = *reg.mutable_inventory();
  inventory.set_hostname(name_);
  inventory.set_worker_slots(behaviour_.ranks_per_agent);
  inventory.add_transports(v1::TRANSPORT_GLOO);
  inventory.add_transports(v1::TRANSPORT_NCCL);
  inventory.set_agent_version("load-generator (compromised)");
  inventory.set_host_id(absl::StrCat("bad-host-", index_));
  for (int gpu = 0; gpu < behaviour_.ranks_per_agent; ++gpu) {
    v1::GpuInfo& info = *inventory.add_gpus();
    info.set_index(gpu);
    // The inventory near its 256 KiB bound.
    info.set_name(std::string(kInventoryPadding / behaviour_.ranks_per_agent, 'G'));
    info.set_pci_bus_id(absl::StrFormat("00000000:%02X:00.0", gpu + 1));
  }
  return hello;
}

bool CompromisedAgent::Register(absl::Duration timeout) {
  v1::AgentMessage hello = MakeRegister();
  // Registered first with a small inventory; the large one comes repeated.
  for (v1::GpuInfo& gpu : *hello.mutable_register_()->mutable_inventory()->mutable_gpus()) {
    gpu.set_name("Simulated GPU");
  }
  stream_ = std::make_unique<Stream>(*this, *stub_, std::move(hello));
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&registered_), timeout);
}

void CompromisedAgent::OnLaunch(const v1::LaunchTest& launch) {
  absl::MutexLock lock(&mu_);
  if (launched_) return;
  side_test_ = launch.test_id();
  for (const v1::RankAssignment& rank : launch.ranks()) {
    own_ranks_.push_back(rank.rank());
    side_world_ = rank.world_size();
  }
  launched_ = true;
}

bool CompromisedAgent::AwaitLaunch(absl::Duration timeout) {
  {
    absl::MutexLock lock(&mu_);
    if (!mu_.AwaitWithTimeout(absl::Condition(&launched_), timeout)) return false;
  }
  // Its ranks reach the rendezvous and stay there: the side test keeps
  // running (INIT) for as long as the flood goes on.
  for (const v1::WorkerEventKind kind :
       {v1::WORKER_EVENT_KIND_REGISTERED, v1::WORKER_EVENT_KIND_JOINING}) {
    v1::AgentMessage message;
    std::vector<int> ranks;
    std::string test;
    {
      absl::MutexLock lock(&mu_);
      ranks = own_ranks_;
      test = side_test_;
    }
    for (int rank : ranks) {
      v1::WorkerEvent& event = *message.mutable_worker_events()->add_events();
      event.set_test_id(test);
      event.set_rank(rank);
      event.set_kind(kind);
    }
    Send("own_phase_events", std::move(message));
  }
  return true;
}

void CompromisedAgent::SetTarget(const std::string& test_id, int world_size) {
  absl::MutexLock lock(&mu_);
  target_test_ = test_id;
  target_world_ = std::max(world_size, 1);
}

bool CompromisedAgent::Send(const char* kind, v1::AgentMessage message) {
  const int64_t items =
      message.has_worker_events() ? std::max(message.worker_events().events_size(), 1) : 1;
  const int64_t bytes = static_cast<int64_t>(message.ByteSizeLong());
  {
    absl::MutexLock lock(&mu_);
    auto& counts = sent_[kind];
    counts[0] += 1;
    counts[1] += items;
    counts[2] += bytes;
  }
  return stream_ != nullptr && stream_->WriteAndWait(std::move(message));
}

void CompromisedAgent::StartAttack() {
  attacking_ = true;
  silent_open_ = true;
  if (behaviour_.Enabled("silent_sessions")) {
    for (int i = 0; i < behaviour_.silent_sessions; ++i) OpenSilentSession();
  }
  session_lane_ = std::thread([this] { SessionLane(); });
  rendezvous_lane_ = std::thread([this] { RendezvousLane(); });
}

void CompromisedAgent::OpenSilentSession() {
  {
    absl::MutexLock lock(&mu_);
    ++silent_in_flight_;
    ++silent_opened_;
  }
  new SilentSession(*this, *silent_stub_);
}

void CompromisedAgent::SilentSessionDone(const grpc::Status& status) {
  {
    absl::MutexLock lock(&mu_);
    --silent_in_flight_;
    ++silent_ends_[absl::StrCat(FloodCodeName(status), ": ", status.error_message().substr(0, 60))];
  }
  // Re-opened at once when the coordinator ended it at its register
  // deadline, while the flood goes on: `silent_sessions` stay open. One
  // refused at the coordinator's cap is not retried (no spin).
  if (silent_open_ && status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    OpenSilentSession();
  }
}

v1::AgentMessage CompromisedAgent::EventBatch(const std::string& test_id, int first_rank, int world,
                                              bool own) {
  static const v1::WorkerEventKind kForeign[] = {
      v1::WORKER_EVENT_KIND_FAILED, v1::WORKER_EVENT_KIND_SIZE_DONE, v1::WORKER_EVENT_KIND_PROGRESS,
      v1::WORKER_EVENT_KIND_JOINED, v1::WORKER_EVENT_KIND_FINISHED};
  static const v1::WorkerEventKind kOwn[] = {v1::WORKER_EVENT_KIND_PROGRESS,
                                             v1::WORKER_EVENT_KIND_REGISTERED,
                                             v1::WORKER_EVENT_KIND_JOINING};
  std::vector<int> ranks;
  if (own) {
    absl::MutexLock lock(&mu_);
    ranks = own_ranks_;
  }
  v1::AgentMessage message;
  for (int i = 0; i < kBatch; ++i) {
    v1::WorkerEvent& event = *message.mutable_worker_events()->add_events();
    event.set_test_id(test_id);
    if (own && !ranks.empty()) {
      event.set_rank(ranks[i % ranks.size()]);
      event.set_kind(kOwn[i % 3]);
      event.set_pid(i % 2 == 0 ? -1 : spec::kMaxWorkerPid + 1);
      event.mutable_progress()->set_step(i);
      event.mutable_progress()->set_calls_done(i);
      event.mutable_progress()->set_calls_planned(1);
      continue;
    }
    event.set_rank((first_rank + i) % world);
    event.set_kind(kForeign[i % 5]);
    if (event.kind() == v1::WORKER_EVENT_KIND_FAILED) {
      event.mutable_failure()->set_kind(v1::FAILURE_KIND_INTERNAL);
      event.mutable_failure()->set_message(std::string(2048, 'F'));
    } else if (event.kind() == v1::WORKER_EVENT_KIND_SIZE_DONE) {
      event.mutable_size_result()->set_size_bytes(8);
      event.mutable_size_result()->mutable_out_of_place()->set_time_us(1e-9);
    }
  }
  return message;
}

void CompromisedAgent::SessionLane() {
  const coordinator::SessionBudgetLimits limits;
  const double share = behaviour_.share;
  BudgetPacer items(limits.items_per_second * share, limits.item_burst * share);
  BudgetPacer bytes(static_cast<double>(limits.bytes_per_second) * share,
                    static_cast<double>(limits.byte_burst) * share);
  const std::string unknown_test = std::string(spec::kMaxTestIdLength, 'u');
  int64_t cycle = 0;
  // Each kind: its name, its size in bytes (an estimate before it is built,
  // so that a heavy one is skipped while the bytes are spent), and how to
  // build it.
  struct Kind {
    const char* name;
    double bytes;
    std::function<v1::AgentMessage()> make;
  };
  auto target = [this] {
    absl::MutexLock lock(&mu_);
    return std::make_pair(target_test_.empty() ? std::string("t-not-yet-known") : target_test_,
                          target_world_);
  };
  auto side = [this] {
    absl::MutexLock lock(&mu_);
    return side_test_;
  };
  const std::vector<Kind> kinds = {
      {"foreign_rank_events", 0.5e6,
       [&] {
         auto [test, world] = target();
         return EventBatch(test, static_cast<int>(cycle * kBatch % world), world, false);
       }},
      {"own_rank_events", 0.1e6, [&] { return EventBatch(side(), 0, 1, true); }},
      {"unknown_test_events", 0.2e6, [&] { return EventBatch(unknown_test, 0, 1 << 20, false); }},
      {"heartbeat_1000_tests", 0.13e6,
       [&] {
         v1::AgentMessage message;
         message.mutable_heartbeat()->set_sequence(cycle);
         for (int i = 0; i < 1000; ++i) {
           std::string id = absl::StrCat("t-", i, "-");
           id.resize(spec::kMaxTestIdLength, 'h');
           message.mutable_heartbeat()->add_running_test_ids(id);
         }
         return message;
       }},
      {"empty_message", 0, [] { return v1::AgentMessage(); }},
      {"repeated_register", 0.26e6, [&] { return MakeRegister(); }},
      {"log_content_unasked", 1.1e6,
       [&] {
         v1::AgentMessage message;
         v1::LogContent& log = *message.mutable_log_content();
         log.set_request_id(static_cast<uint64_t>(cycle) * 7919 + 1);
         log.set_content(std::string(spec::kMaxLogPageBytes, 'L'));
         log.set_error(std::string(64 * 1024, 'E'));
         log.set_path(std::string(4096, 'P'));
         return message;
       }},
      {"foreign_workers_stopped_8mib_evidence", 8.4e6,
       [&] {
         v1::AgentMessage message;
         message.mutable_workers_stopped()->set_test_id(target().first);
         v1::RankNcclWarnings& warnings =
             *message.mutable_workers_stopped()->mutable_evidence()->add_nccl_warnings();
         warnings.set_node_name(name_);
         for (int i = 0; i < 1024; ++i) warnings.add_lines(std::string(kEvidenceText / 1024, 'W'));
         return message;
       }},
      {"foreign_failed_15mib_text", 15.8e6,
       [&] {
         v1::AgentMessage message;
         v1::WorkerEvent& event = *message.mutable_worker_event();
         event.set_test_id(target().first);
         event.set_rank(0);
         event.set_kind(v1::WORKER_EVENT_KIND_FAILED);
         event.mutable_failure()->set_message(std::string(kHugeText, 'X'));
         return message;
       }},
  };
  while (attacking_) {
    for (const Kind& kind : kinds) {
      if (!attacking_) return;
      if (!behaviour_.Enabled(kind.name)) continue;
      const bool heavy = kind.bytes > 1e6;
      if (heavy && !bytes.TryTake(kind.bytes)) continue;
      v1::AgentMessage message = kind.make();
      const int64_t cost =
          message.has_worker_events() ? std::max(message.worker_events().events_size(), 1) : 1;
      items.Take(static_cast<double>(cost));
      if (!heavy) bytes.Take(static_cast<double>(message.ByteSizeLong()));
      if (!Send(kind.name, std::move(message))) return;
    }
    ++cycle;
  }
}

void CompromisedAgent::CountCall(const std::string& what, const grpc::Status& status) {
  absl::MutexLock lock(&mu_);
  ++answers_[what][FloodCodeName(status)];
  --calls_in_flight_;
}

void CompromisedAgent::RendezvousWait(const std::string& test_id, std::vector<std::string> keys,
                                      int64_t slice_offset, int64_t slice_length,
                                      const char* what) {
  auto* call = new FloodCall<v1::RendezvousWaitRequest, v1::RendezvousWaitReply>;
  call->request.set_test_id(test_id);
  for (std::string& key : keys) call->request.add_keys(std::move(key));
  if (slice_length > 0) {
    call->request.mutable_slice()->set_offset(slice_offset);
    call->request.mutable_slice()->set_length(slice_length);
    call->request.mutable_slice()->set_concatenated(true);
  }
  call->request.set_timeout_ms(100);
  common::SetTimeout(call->context, absl::Seconds(10));
  {
    absl::MutexLock lock(&mu_);
    ++calls_in_flight_;
    ++pending_waits_;
  }
  stub_->async()->RendezvousWait(&call->context, &call->request, &call->reply,
                                 [this, call, what](const grpc::Status& status) {
                                   delete call;
                                   {
                                     absl::MutexLock lock(&mu_);
                                     --pending_waits_;
                                   }
                                   CountCall(what, status);
                                 });
}

void CompromisedAgent::RendezvousSet(const std::string& test_id, const std::string& key,
                                     std::string value, const char* what) {
  auto* call = new FloodCall<v1::RendezvousSetRequest, v1::RendezvousSetReply>;
  call->request.set_test_id(test_id);
  call->request.set_key(key);
  call->request.set_value(std::move(value));
  common::SetTimeout(call->context, absl::Seconds(10));
  {
    absl::MutexLock lock(&mu_);
    ++calls_in_flight_;
  }
  stub_->async()->RendezvousSet(&call->context, &call->request, &call->reply,
                                [this, call, what](const grpc::Status& status) {
                                  delete call;
                                  CountCall(what, status);
                                });
}

void CompromisedAgent::RendezvousLane() {
  const coordinator::RendezvousBudgetLimits limits;
  BudgetPacer calls(limits.calls_per_second * behaviour_.share,
                    limits.call_burst * behaviour_.share);
  std::string side_test;
  int world = 1;
  {
    absl::MutexLock lock(&mu_);
    side_test = side_test_;
    world = std::max(side_world_, 1);
  }
  // Its share of its own test's rendezvous (spec::RendezvousBoundsFor, the
  // coordinator's bounds per node): the most keys a wait may ask, the
  // largest values, all but one of its keys and pending waits (one more
  // would cut it off before the end).
  const spec::RendezvousBounds share =
      spec::RendezvousBoundsFor(world, std::max(behaviour_.ranks_per_agent, 1));
  const int wait_keys = share.wait_keys;
  const int max_pending = share.waiters - 1;
  const int max_sets = share.keys - 1;
  const std::string value(static_cast<size_t>(share.value_bytes), 'V');
  int64_t sets = 0;
  for (int64_t i = 0; attacking_; ++i) {
    calls.Take(1);
    int in_flight = 0, pending = 0;
    {
      absl::MutexLock lock(&mu_);
      in_flight = calls_in_flight_;
      pending = pending_waits_;
    }
    if (in_flight > 2048) {
      absl::SleepFor(absl::Milliseconds(1));
      continue;
    }
    std::string target;
    {
      absl::MutexLock lock(&mu_);
      target = target_test_;
    }
    if (behaviour_.foreign_rendezvous && !target.empty() && i % 8 == 7 &&
        behaviour_.Enabled("foreign_rendezvous")) {
      if (i % 16 == 7) {
        RendezvousSet(target, "nccl/unique_id", std::string(128, 'Z'), "foreign_set");
      } else {
        RendezvousWait(target, {"nccl/unique_id"}, 0, 0, "foreign_wait");
      }
      continue;
    }
    const int64_t phase = i % 4;
    if (phase <= 1 && pending < max_pending && behaviour_.Enabled("absent_keys_wait")) {
      std::vector<std::string> keys;
      keys.reserve(wait_keys);
      for (int k = 0; k < wait_keys; ++k) keys.push_back(FloodKey(absl::StrCat("absent/", i), k));
      RendezvousWait(side_test, std::move(keys), 0, 0, "absent_keys_wait");
    } else if (phase == 3 && sets > 0 && pending < max_pending &&
               behaviour_.Enabled("sliced_wait_at_edge")) {
      // Its own values, each up to the largest wait.
      const int count = static_cast<int>(std::min<int64_t>(sets, wait_keys));
      std::vector<std::string> keys;
      keys.reserve(count);
      for (int k = 0; k < count; ++k) keys.push_back(FloodKey("set/", k));
      RendezvousWait(side_test, std::move(keys), share.value_bytes - spec::kMaxRendezvousSliceBytes,
                     spec::kMaxRendezvousSliceBytes, "sliced_wait_at_edge");
    } else if (in_flight < 64 && sets < max_sets && behaviour_.Enabled("set_largest_values")) {
      RendezvousSet(side_test, FloodKey("set/", sets++), value, "set_largest_values");
    }
  }
}

grpc::Status CompromisedAgent::OverTheEdge(absl::Duration timeout) {
  attacking_ = false;
  silent_open_ = false;
  if (session_lane_.joinable()) session_lane_.join();
  if (rendezvous_lane_.joinable()) rendezvous_lane_.join();
  std::string side_test;
  int first_rank = 0;
  {
    absl::MutexLock lock(&mu_);
    side_test = side_test_;
    if (!own_ranks_.empty()) first_rank = own_ranks_.front();
  }
  // A failure text as large as a message may carry, of a rank it owns: the
  // one free text the coordinator takes from it into a report.
  v1::AgentMessage failed;
  v1::WorkerEvent& event = *failed.mutable_worker_event();
  event.set_test_id(side_test);
  event.set_rank(first_rank);
  event.set_kind(v1::WORKER_EVENT_KIND_FAILED);
  event.mutable_failure()->set_kind(v1::FAILURE_KIND_INTERNAL);
  event.mutable_failure()->set_message(std::string(kHugeText, 'X'));
  Send("own_failed_15mib_text", std::move(failed));
  // Then more events than the budget's burst, unpaced.
  const absl::Time end = absl::Now() + timeout;
  while (absl::Now() < end) {
    if (!Send("over_the_budget_events", EventBatch(side_test, 0, 1, true))) break;
  }
  std::optional<grpc::Status> status =
      stream_->AwaitDone(std::max(end - absl::Now(), absl::Seconds(1)));
  return status.value_or(
      grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "the coordinator did not end the session"));
}

void CompromisedAgent::Stop() {
  attacking_ = false;
  silent_open_ = false;
  if (session_lane_.joinable()) session_lane_.join();
  if (rendezvous_lane_.joinable()) rendezvous_lane_.join();
  if (stream_ != nullptr) {
    stream_->Cancel();
    (void)stream_->AwaitDone(absl::Seconds(30));
  }
  absl::MutexLock lock(&mu_);
  // The silent sessions end at the coordinator's register deadline (6 s).
  mu_.AwaitWithTimeout(absl::Condition(
                           +[](CompromisedAgent* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
                             return self->calls_in_flight_ == 0 && self->silent_in_flight_ == 0;
                           },
                           this),
                       absl::Seconds(30));
}

nlohmann::json CompromisedAgent::Report() {
  absl::MutexLock lock(&mu_);
  nlohmann::json out;
  out["name"] = name_;
  for (const auto& [kind, counts] : sent_) {
    out["sent"][kind] = {{"messages", counts[0]}, {"items", counts[1]}, {"bytes", counts[2]}};
  }
  out["rendezvous"] = answers_;
  out["silent_sessions_opened"] = silent_opened_;
  out["silent_session_ends"] = silent_ends_;
  return out;
}

}  // namespace eb::bench
