#pragma once

// gRPC glue for the AgentService (agent -> coordinator): the long-lived
// Session stream of each agent and the rendezvous calls the agents relay for
// their workers. Everything is posted onto the coordinator's executor.

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "common/exec/executor.h"
#include "common/exec/latest_per_key_batch.h"
#include "common/spec/limits.h"
#include "common/time/clock.h"
#include "coordinator/config.h"
#include "coordinator/core/budget/audit_rate_limit.h"
#include "coordinator/core/budget/cut_offs.h"
#include "coordinator/core/budget/rendezvous_budget.h"
#include "coordinator/core/budget/session_budget.h"
#include "coordinator/core/budget/unregistered_sessions.h"
#include "coordinator/core/collective_tests/collective_test_manager.h"
#include "coordinator/core/collective_tests/rendezvous_kv.h"
#include "coordinator/core/nodes/log_requests.h"
#include "coordinator/core/nodes/node_registry.h"
#include "coordinator/core/refusal_counter.h"
#include "coordinator/grpc/audit_log.h"
#include "coordinator/grpc/authz.h"
#include "ebnccl/v1/agent.grpc.pb.h"

namespace eb::coordinator {

class AgentServiceImpl final : public ebnccl::v1::AgentService::CallbackService {
 public:
  // All references must outlive the service; they are used on `executor`.
  // `authz` admits agent certificates only (with TLS); a registration must
  // name a node of the certificate. Registrations are recorded in `audit`.
  // Each session is charged against `budget` (session_budget.h) at `clock`.
  AgentServiceImpl(common::Executor& executor, common::Clock& clock, NodeRegistry& registry,
                   TestManager& tests, RendezvousKv& rendezvous, LogRequests& logs,
                   const CoordinatorConfig& config, const Authorizer& authz, AuditLog& audit,
                   SessionBudgetLimits budget = {});

  grpc::ServerBidiReactor<ebnccl::v1::AgentMessage, ebnccl::v1::CoordinatorMessage>* Session(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* RendezvousSet(grpc::CallbackServerContext* context,
                                          const ebnccl::v1::RendezvousSetRequest* request,
                                          ebnccl::v1::RendezvousSetReply* reply) override;
  grpc::ServerUnaryReactor* RendezvousWait(grpc::CallbackServerContext* context,
                                           const ebnccl::v1::RendezvousWaitRequest* request,
                                           ebnccl::v1::RendezvousWaitReply* reply) override;

  // Handles one message of session `session_id`, opened by `caller`, on the
  // executor. Public for the session reactor.
  void HandleMessage(uint64_t session_id, const ebnccl::v1::AgentMessage& message,
                     const std::shared_ptr<AgentChannel>& channel, const Caller& caller);
  // The session's stream ended (the agent closed it, or the connection
  // broke, or a message could not be parsed). On the executor.
  void HandleClosed(uint64_t session_id, const std::shared_ptr<AgentChannel>& channel,
                    const Caller& caller);
  // The session went over its budget (`exceeded`, RESOURCE_EXHAUSTED): it is
  // ended with that status and audited naming its node and peer; its node
  // is lost with that reason, so its running tests fail naming it (an
  // infrastructure failure, FAILURE_KIND_NODE_LOST), and the others go on.
  // The reactor reads nothing more of it. On the executor.
  void CutOff(uint64_t session_id, const absl::Status& exceeded,
              const std::shared_ptr<AgentChannel>& channel, const Caller& caller);

  // A heartbeat of a session, handled (as HandleMessage) with the others
  // that arrive within 1/20 of the heartbeat period: one turn of the
  // executor for all of them instead of one each (1,024 agents send ~500 a
  // second). The delay is at most 5 % of the period the agents keep, so it
  // cannot make a node miss its heartbeats; a session's heartbeats carry
  // nothing that other messages depend on. Thread-safe.
  struct PendingHeartbeat {
    ebnccl::v1::AgentMessage message;
    std::shared_ptr<AgentChannel> channel;
    std::shared_ptr<const Caller> caller;
  };
  void AddHeartbeat(uint64_t session_id, PendingHeartbeat heartbeat);

  common::Executor& executor() { return executor_; }
  common::Clock& clock() { return clock_; }
  const SessionBudgetLimits& budget() const { return budget_; }

  // A session must register within the time a registered node may stay
  // silent (heartbeat period x miss limit): otherwise it is ended with
  // DEADLINE_EXCEEDED and audited (P2-4f3: 10,000 sessions that never
  // registered stayed open, +140 MB). Called by the reactor when the
  // session opens; on the executor.
  void AwaitRegister(uint64_t session_id, std::shared_ptr<AgentChannel> channel,
                     std::shared_ptr<const Caller> caller);

 private:
  // With TLS, rendezvous data of a test is for the agents of its nodes only
  // (PERMISSION_DENIED otherwise): the caller's node, whose quota the call
  // counts in; "" without TLS (no caller can be named). On the executor.
  absl::StatusOr<std::string> RendezvousNodeOf(const Caller& caller,
                                               const std::string& test_id) const;
  // After a refused rendezvous call: a node that went over its quota in the
  // test (RendezvousKv::NodeOverQuota) is audited and cut off, as a node
  // over its call budget is. On the executor.
  void CutOffOverQuota(const Caller& caller, const char* method, const std::string& test_id,
                       const std::string& node, const absl::Status& refused);
  // A refused rendezvous call: audited at powers of two per caller and
  // method (P2-6.2: refused rendezvous calls left no audit row). On the
  // executor.
  void AuditRefusal(const Caller& caller, const char* method, const std::string& test_id,
                    const absl::Status& refused);

  // Charges a rendezvous call of `caller` to its node (with TLS; without,
  // callers cannot be told apart and nothing is charged). Over the budget:
  // RESOURCE_EXHAUSTED, and at the 1st, 2nd, 4th... refusal of that node an
  // audit row and its session cut off (CutOff) if it has one. On gRPC's
  // threads, before anything is posted: a flood costs the loop O(log n).
  absl::Status ChargeRendezvous(const Caller& caller, const char* method);
  // Cuts off the live session of the node `caller`'s certificate names, if
  // any. On the executor.
  void CutOffNodeOf(const Caller& caller, const absl::Status& exceeded);

  // The session registered, or ended, before its register deadline. On the
  // executor.
  void StopAwaitingRegister(uint64_t session_id);

  common::Executor& executor_;
  common::Clock& clock_;
  NodeRegistry& registry_;
  TestManager& tests_;
  RendezvousKv& rendezvous_;
  LogRequests& logs_;
  const CoordinatorConfig config_;
  const Authorizer& authz_;
  AuditLog& audit_;
  RefusalCounter refusals_;  // on the executor
  const SessionBudgetLimits budget_;
  CutOffs cut_offs_;  // on the executor
  // Sessions that ended before a valid register, audited at most once a
  // minute per peer host. On the executor.
  AuditRateLimit unregistered_ends_;
  // Sessions ended at their register deadline (no register at all): the
  // same, once a minute per peer host. On the executor.
  AuditRateLimit silent_ends_;
  // Warnings about a node's session messages that are not taken, once per
  // node and reason every 10 s (session_messages.h). On the executor.
  AuditRateLimit refused_messages_log_{absl::Seconds(10)};
  // Rendezvous calls per node and their refusals, on gRPC's threads.
  absl::Mutex rendezvous_mu_;
  RendezvousBudget rendezvous_budget_ ABSL_GUARDED_BY(rendezvous_mu_);
  RefusalCounter rendezvous_refusals_ ABSL_GUARDED_BY(rendezvous_mu_);
  common::LatestPerKeyBatch<uint64_t, PendingHeartbeat> heartbeats_;
  std::atomic<uint64_t> next_session_id_{1};
  // Sessions open and not registered: counted on gRPC's threads when a
  // session opens (beyond spec::kMaxUnregisteredSessions a new one is
  // refused RESOURCE_EXHAUSTED), released on the executor.
  UnregisteredSessions unregistered_sessions_{spec::kMaxUnregisteredSessions,
                                              spec::kMaxUnregisteredSessionsPerHost};
  // Their register deadlines (timers on the executor). On the executor.
  struct RegisterDeadline {
    common::TimerId timer = 0;
    std::string host;  // its place in unregistered_sessions_
  };
  absl::flat_hash_map<uint64_t, RegisterDeadline> register_deadlines_;
};

}  // namespace eb::coordinator
