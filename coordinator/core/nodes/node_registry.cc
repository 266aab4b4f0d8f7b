#include "coordinator/core/nodes/node_registry.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/spec/identifiers.h"
#include "common/spec/limits.h"
#include "common/status/status_macros.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;
namespace {

// "ipv4:10.0.0.5:41234" -> "ipv4:10.0.0.5"; "" for no peer (tests).
std::string PeerHost(const std::string& peer) {
  const size_t colon = peer.rfind(':');
  return colon == std::string::npos ? peer : peer.substr(0, colon);
}

}  // namespace

NodeRegistry::NodeRegistry(common::Clock& clock, common::Executor& executor,
                           const CoordinatorConfig& config, LostCallback on_lost)
    : clock_(clock),
      executor_(executor),
      config_(config),
      on_lost_(std::move(on_lost)),
      liveness_check_(common::LateCheck::ForPeriod(config.heartbeat_period)) {}

NodeRegistry::~NodeRegistry() {
  if (started_) executor_.Cancel(liveness_timer_);
}

void NodeRegistry::Start() {
  started_ = true;
  ArmLivenessCheck(config_.heartbeat_period);
}

void NodeRegistry::ArmLivenessCheck(absl::Duration delay) {
  liveness_check_.Arm(clock_.Now() + delay);
  liveness_timer_ = executor_.PostAfter(delay, [this] { CheckLiveness(); });
}

absl::Status NodeRegistry::Register(uint64_t session_id, const v1::RegisterAgent& request,
                                    std::shared_ptr<AgentChannel> channel) {
  const std::string& name = request.node_name();
  if (name.empty()) return absl::InvalidArgumentError("node_name: must not be empty");
  EB_RETURN_IF_ERROR(spec::CheckNodeName(name, "node_name"));
  if (request.inventory().worker_slots() < 0) {
    return absl::InvalidArgumentError(absl::StrCat("inventory.worker_slots: must be >= 0, got ",
                                                   request.inventory().worker_slots()));
  }
  if (request.inventory().worker_slots() > spec::kMaxWorkerSlots) {
    return absl::InvalidArgumentError(absl::StrCat("inventory.worker_slots: at most ",
                                                   spec::kMaxWorkerSlots, ", got ",
                                                   request.inventory().worker_slots()));
  }
  if (const size_t size = request.inventory().ByteSizeLong(); size > kMaxInventoryBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("inventory: ", size, " bytes, at most ", kMaxInventoryBytes));
  }
  auto it = nodes_.find(name);
  if (it != nodes_.end() && it->second.state != v1::NODE_STATE_LOST &&
      it->second.session_id != session_id) {
    return absl::AlreadyExistsError(absl::StrCat(
        "node name '", name, "' is already registered by a live agent at ", it->second.peer));
  }
  if (it != nodes_.end() && it->second.state != v1::NODE_STATE_LOST &&
      it->second.session_id == session_id) {
    // A repeated register on a live session refreshes the inventory only: a
    // busy node must stay busy with its test.
    it->second.inventory = request.inventory();
    return absl::OkStatus();
  }
  const std::string peer = channel ? channel->Peer() : "";
  if (it == nodes_.end()) {
    EB_RETURN_IF_ERROR(MakeRoom());
  }
  const std::string host = PeerHost(peer);
  if (it == nodes_.end() || it->second.state == v1::NODE_STATE_LOST) {
    const int from_host = host.empty() ? 0 : live_per_host_[host];
    if (from_host >= kMaxAgentsPerHost) {
      return absl::ResourceExhaustedError(absl::StrCat("node_name: ", from_host,
                                                       " agents are already registered from ", host,
                                                       ", at most ", kMaxAgentsPerHost));
    }
  }
  if (!host.empty()) ++live_per_host_[host];
  NodeRecord& node = nodes_[name];
  node.name = name;
  node.inventory = request.inventory();
  node.peer = peer;
  node.channel = std::move(channel);
  node.session_id = session_id;
  node.state = v1::NODE_STATE_IDLE;
  live_by_session_[{session_id, name}] = &node;
  node.current_test_id.clear();
  node.last_heartbeat = clock_.Now();
  spdlog::info("node={} registered from {}: {} worker slots, {} GPUs, transports {}", name,
               node.peer, node.inventory.worker_slots(), node.inventory.gpus_size(),
               node.inventory.transports_size());
  return absl::OkStatus();
}

absl::Status NodeRegistry::Heartbeat(uint64_t session_id) {
  NodeRecord* node = FindBySession(session_id);
  if (node == nullptr) return absl::NotFoundError("heartbeat from an unregistered session");
  node->last_heartbeat = clock_.Now();
  return absl::OkStatus();
}

void NodeRegistry::SessionClosed(uint64_t session_id, const std::string& reason) {
  NodeRecord* node = FindBySession(session_id);
  if (node != nullptr) MarkLost(*node, reason);
}

NodeRecord* NodeRegistry::FindBySession(uint64_t session_id) {
  auto it = live_by_session_.lower_bound({session_id, std::string()});
  if (it == live_by_session_.end() || it->first.first != session_id) return nullptr;
  return it->second;
}

NodeRecord* NodeRegistry::Find(const std::string& name) {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}

std::vector<const NodeRecord*> NodeRegistry::All() const {
  std::vector<const NodeRecord*> result;
  for (const auto& [name, node] : nodes_) result.push_back(&node);
  return result;
}

void NodeRegistry::SetBusy(const std::string& name, const std::string& test_id) {
  NodeRecord* node = Find(name);
  if (node == nullptr || node->state == v1::NODE_STATE_LOST) return;
  node->state = v1::NODE_STATE_BUSY;
  node->current_test_id = test_id;
}

void NodeRegistry::SetIdle(const std::string& name, const std::string& test_id) {
  NodeRecord* node = Find(name);
  if (node == nullptr || node->current_test_id != test_id) return;
  node->current_test_id.clear();
  if (node->state == v1::NODE_STATE_BUSY) node->state = v1::NODE_STATE_IDLE;
}

v1::NodeStatus NodeRegistry::ToStatus(const NodeRecord& node) const {
  v1::NodeStatus status;
  status.set_node_name(node.name);
  status.set_peer_address(node.peer);
  status.set_state(node.state);
  *status.mutable_inventory() = node.inventory;
  status.set_heartbeat_age_ms(absl::ToInt64Milliseconds(clock_.Now() - node.last_heartbeat));
  status.set_current_test_id(node.current_test_id);
  return status;
}

void NodeRegistry::CheckLiveness() {
  const absl::Duration limit = config_.heartbeat_period * config_.heartbeat_miss_limit;
  const absl::Time now = clock_.Now();
  // A check more than a period late: the silence is the coordinator's own
  // stall, and the nodes' heartbeats of that time may still be queued
  // behind this timer (common/time/late_check.h). Judging it called two
  // healthy agents lost in the same millisecond on a loaded CI machine.
  const absl::Duration lateness = liveness_check_.Lateness(now);
  if (std::optional<absl::Duration> again = liveness_check_.Defer(now)) {
    spdlog::warn(
        "the node liveness check ran {} late (the coordinator was not running): no node "
        "is judged on that silence until the next check",
        absl::FormatDuration(lateness));
    liveness_timer_ = executor_.PostAfter(*again, [this] { CheckLiveness(); });
    return;
  }
  for (auto& [name, node] : nodes_) {
    if (node.state == v1::NODE_STATE_LOST) continue;
    const absl::Duration age = now - node.last_heartbeat;
    if (age > limit) {
      MarkLost(node, absl::StrFormat("missed %d heartbeats (last one %.1fs ago)",
                                     config_.heartbeat_miss_limit, absl::ToDoubleSeconds(age)));
    }
  }
  ForgetLongLost();
  ArmLivenessCheck(config_.heartbeat_period);
}

void NodeRegistry::ForgetLongLost() {
  const absl::Time now = clock_.Now();
  for (auto it = nodes_.begin(); it != nodes_.end();) {
    if (it->second.state == v1::NODE_STATE_LOST &&
        now - it->second.lost_at >= config_.lost_node_retention) {
      spdlog::info("node={} forgotten: lost for {}", it->first,
                   absl::FormatDuration(now - it->second.lost_at));
      it = nodes_.erase(it);
    } else {
      ++it;
    }
  }
}

absl::Status NodeRegistry::MakeRoom() {
  if (nodes_.size() < static_cast<size_t>(kMaxKnownNodes)) return absl::OkStatus();
  auto oldest = nodes_.end();
  for (auto it = nodes_.begin(); it != nodes_.end(); ++it) {
    if (it->second.state != v1::NODE_STATE_LOST) continue;
    if (oldest == nodes_.end() || it->second.lost_at < oldest->second.lost_at) oldest = it;
  }
  if (oldest == nodes_.end()) {
    return absl::ResourceExhaustedError(absl::StrCat("node_name: the coordinator knows ",
                                                     nodes_.size(), " live nodes, at most ",
                                                     kMaxKnownNodes));
  }
  spdlog::info("node={} forgotten to make room for a new node", oldest->first);
  nodes_.erase(oldest);
  return absl::OkStatus();
}

void NodeRegistry::MarkLost(NodeRecord& node, const std::string& reason) {
  if (node.state == v1::NODE_STATE_LOST) return;
  spdlog::warn("node={} lost: {}", node.name, reason);
  node.state = v1::NODE_STATE_LOST;
  node.lost_at = clock_.Now();
  live_by_session_.erase({node.session_id, node.name});
  if (auto host = live_per_host_.find(PeerHost(node.peer)); host != live_per_host_.end()) {
    if (--host->second <= 0) live_per_host_.erase(host);
  }
  if (node.channel) {
    node.channel->Close(absl::UnavailableError("node declared lost: " + reason));
    node.channel.reset();
  }
  // The test bookkeeping learns of the loss before the node is usable again.
  if (on_lost_) on_lost_(node.name, reason);
  node.current_test_id.clear();
}

}  // namespace eb::coordinator
