#pragma once

// Registry of agents: their inventory, their session, and their liveness
// judged from heartbeats with a period and a miss limit (STYLE.md rule 10).
// Owned by the coordinator's executor: every method runs on it.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/exec/executor.h"
#include "common/time/clock.h"
#include "common/time/late_check.h"
#include "coordinator/config.h"
#include "coordinator/core/nodes/agent_channel.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

struct NodeRecord {
  std::string name;
  ebnccl::v1::NodeInventory inventory;
  std::shared_ptr<AgentChannel> channel;  // null once lost
  uint64_t session_id = 0;
  ebnccl::v1::NodeState state = ebnccl::v1::NODE_STATE_IDLE;
  absl::Time last_heartbeat;
  std::string current_test_id;
  std::string peer;
  absl::Time lost_at;  // when state became LOST
};

// Bounds on what registers (docs/SECURITY.md, "Limits").
// Nodes known at once, lost ones included: beyond it the longest-lost node
// is forgotten to make room, and without one the registration is refused.
inline constexpr int kMaxKnownNodes = 20000;
// Live agents registered from one host (the peer address without its port):
// several agents may split a host's GPUs, not thousands.
inline constexpr int kMaxAgentsPerHost = 64;
// A registration's inventory, serialized.
inline constexpr size_t kMaxInventoryBytes = 256 * 1024;

class NodeRegistry {
 public:
  // Called on the executor when a registered node is lost, with a reason
  // ("agent disconnected", "missed 3 heartbeats (last 6.1s ago)").
  using LostCallback = std::function<void(const std::string& node, const std::string& reason)>;

  NodeRegistry(common::Clock& clock, common::Executor& executor, const CoordinatorConfig& config,
               LostCallback on_lost);
  ~NodeRegistry();

  // Replaces the lost-node callback (for wiring components that need each
  // other). Call before Start.
  void set_on_lost(LostCallback on_lost) { on_lost_ = std::move(on_lost); }

  // Starts the periodic liveness check.
  void Start();

  // Registers the agent behind `session_id`. INVALID_ARGUMENT for a node
  // name that is no identifier (spec::CheckNodeName), worker_slots outside
  // [0, kMaxWorkerSlots] or an inventory over kMaxInventoryBytes;
  // RESOURCE_EXHAUSTED beyond kMaxAgentsPerHost live agents from one host or
  // kMaxKnownNodes nodes; ALREADY_EXISTS when a live agent of that name is
  // registered from another session (a lost one is replaced).
  absl::Status Register(uint64_t session_id, const ebnccl::v1::RegisterAgent& request,
                        std::shared_ptr<AgentChannel> channel);
  // Records a heartbeat. NOT_FOUND when the session is not registered.
  absl::Status Heartbeat(uint64_t session_id);
  // The session's stream ended: its node (if any) is lost, with `reason`
  // (what its tests' failures say).
  void SessionClosed(uint64_t session_id, const std::string& reason = "agent disconnected");

  // Node registered by `session_id`, or null.
  NodeRecord* FindBySession(uint64_t session_id);
  // Node by name, or null.
  NodeRecord* Find(const std::string& name);
  // Every node, sorted by name.
  std::vector<const NodeRecord*> All() const;

  // Marks the node busy with a test, or idle again (no-op for lost nodes).
  void SetBusy(const std::string& name, const std::string& test_id);
  void SetIdle(const std::string& name, const std::string& test_id);

  // Status for ListNodes.
  ebnccl::v1::NodeStatus ToStatus(const NodeRecord& node) const;

 private:
  void CheckLiveness();
  void ArmLivenessCheck(absl::Duration delay);
  void MarkLost(NodeRecord& node, const std::string& reason);
  // Forgets nodes lost longer than config_.lost_node_retention.
  void ForgetLongLost();
  // Forgets the longest-lost node when kMaxKnownNodes are known;
  // RESOURCE_EXHAUSTED when none is lost.
  absl::Status MakeRoom();

  common::Clock& clock_;
  common::Executor& executor_;
  const CoordinatorConfig config_;
  LostCallback on_lost_;
  std::map<std::string, NodeRecord> nodes_;
  // Live nodes by (session, name): FindBySession on every session message
  // without a scan of all nodes. A session registers one name in practice;
  // the name in the key keeps the answer of the former scan (the first
  // live node by name) if one ever registered two. std::map's nodes do not
  // move, so the pointers stay valid until the node is erased, and only
  // lost nodes (never indexed) are erased.
  std::map<std::pair<uint64_t, std::string>, NodeRecord*> live_by_session_;
  // Live (not lost) nodes per peer host, for kMaxAgentsPerHost.
  std::map<std::string, int> live_per_host_;
  common::TimerId liveness_timer_ = 0;
  // A liveness check that runs late judges no node (common/time/late_check.h).
  common::LateCheck liveness_check_;
  bool started_ = false;
};

}  // namespace eb::coordinator
