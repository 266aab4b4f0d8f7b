#include "coordinator/scheduler/kubernetes/k8s_objects.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace eb::scheduler::k8s {
namespace {

using Json = nlohmann::json;

// Nesting deeper than this is refused before parsing: the parser recurses.
constexpr int kK8sMaxDepth = 64;

absl::Status K8sBad(absl::string_view request, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("kubernetes: ", request, ": ", what));
}

bool K8sTooDeep(absl::string_view text) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') {
      if (++depth > kK8sMaxDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// The answer's `items`, each an object: all or nothing.
absl::StatusOr<Json> K8sItems(absl::string_view text, absl::string_view request) {
  if (text.size() > kMaxAnswerBytes) return K8sBad(request, "answer over 16 MiB");
  if (K8sTooDeep(text)) return K8sBad(request, "answer nested too deep");
  Json doc = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return K8sBad(request, "answer is not a JSON object");
  auto items = doc.find("items");
  if (items == doc.end() || items->is_null()) return Json::array();
  if (!items->is_array()) return K8sBad(request, "items is not a list");
  if (items->size() > kMaxObjects) return K8sBad(request, "more than 65536 items");
  for (const Json& item : *items) {
    if (!item.is_object()) return K8sBad(request, "an item is not an object");
  }
  return std::move(*items);
}

// The string at `path` of `object`, or "" when absent or not a string.
std::string K8sStr(const Json& object, std::initializer_list<const char*> path) {
  const Json* at = &object;
  for (const char* key : path) {
    if (!at->is_object()) return "";
    auto it = at->find(key);
    if (it == at->end()) return "";
    at = &*it;
  }
  return at->is_string() ? at->get<std::string>() : "";
}

const Json* K8sFind(const Json& object, std::initializer_list<const char*> path) {
  const Json* at = &object;
  for (const char* key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

bool IsOurTaint(const Json& taint) {
  return taint.is_object() && K8sStr(taint, {"key"}) == kTaintKey;
}

// A node's taints, parsed from a node object; an error for a node that is
// not one, or taints that are not a list.
absl::StatusOr<Json> NodeAndTaints(absl::string_view node_json, Json* node) {
  if (node_json.size() > kMaxAnswerBytes || K8sTooDeep(node_json)) {
    return K8sBad("GET node", "answer too large or nested too deep");
  }
  *node = Json::parse(node_json.begin(), node_json.end(), nullptr, false);
  if (node->is_discarded() || !node->is_object()) return K8sBad("GET node", "not a JSON object");
  if (K8sStr(*node, {"metadata", "resourceVersion"}).empty()) {
    return K8sBad("GET node", "no metadata.resourceVersion");
  }
  const Json* taints = K8sFind(*node, {"spec", "taints"});
  if (taints == nullptr || taints->is_null()) return Json::array();
  if (!taints->is_array()) return K8sBad("GET node", "spec.taints is not a list");
  return *taints;
}

std::string WithTaints(Json node, Json taints) {
  node["spec"]["taints"] = std::move(taints);
  return node.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

bool IsValidName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes) return false;
  for (char c : name) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '.' && c != '-') return false;
  }
  return absl::ascii_isalnum(name.front()) && absl::ascii_isalnum(name.back());
}

namespace {

// Which nodes hold a pod that is a job (bound, not ended, not a
// DaemonSet's), and whether every such pod there is ours.
std::map<std::string, bool> JobsByNode(const Json& pods) {
  std::map<std::string, bool> jobs;
  for (const Json& pod : pods) {
    const std::string phase = K8sStr(pod, {"status", "phase"});
    if (phase == "Succeeded" || phase == "Failed") continue;
    const std::string node = K8sStr(pod, {"spec", "nodeName"});
    if (node.empty()) continue;  // not bound: holds nothing yet
    bool daemon = false;
    if (const Json* owners = K8sFind(pod, {"metadata", "ownerReferences"});
        owners != nullptr && owners->is_array()) {
      for (const Json& owner : *owners) daemon = daemon || K8sStr(owner, {"kind"}) == "DaemonSet";
    }
    if (daemon) continue;  // on every node; not a tenant's job
    const bool ours = !K8sStr(pod, {"metadata", "labels", kBorrowLabel}).empty();
    auto [it, inserted] = jobs.emplace(node, ours);
    if (!inserted) it->second = it->second && ours;
  }
  return jobs;
}

// Whose drain the node's taints and cordon say: `ours` for our taint, the
// first other mark in `other` ("" when none).
void Marks(const Json& item, bool* ours, std::string* other) {
  if (const Json* taints = K8sFind(item, {"spec", "taints"});
      taints != nullptr && taints->is_array()) {
    for (const Json& taint : *taints) {
      if (IsOurTaint(taint)) {
        *ours = true;
      } else if (const std::string effect = K8sStr(taint, {"effect"});
                 other->empty() && (effect == "NoSchedule" || effect == "NoExecute")) {
        *other = absl::StrCat("taint ", K8sStr(taint, {"key"}).substr(0, 253));
      }
    }
  }
  const Json* unschedulable = K8sFind(item, {"spec", "unschedulable"});
  if (other->empty() && unschedulable != nullptr && unschedulable->is_boolean() &&
      unschedulable->get<bool>()) {
    *other = "cordoned";
  }
}

// One node of the list; `jobs` from JobsByNode.
absl::StatusOr<SchedulerNode> ReadNode(const Json& item, const std::map<std::string, bool>& jobs,
                                       absl::string_view request) {
  SchedulerNode node;
  node.name = K8sStr(item, {"metadata", "name"});
  if (!IsValidName(node.name)) {
    return K8sBad(request,
                  absl::StrCat("a node with no valid name (\"", node.name.substr(0, 64), "\")"));
  }
  bool ours = false;
  std::string other;
  Marks(item, &ours, &other);
  bool ready = false;
  std::string our_message;
  if (const Json* conditions = K8sFind(item, {"status", "conditions"});
      conditions != nullptr && conditions->is_array()) {
    for (const Json& condition : *conditions) {
      const std::string type = K8sStr(condition, {"type"});
      if (type == "Ready") ready = K8sStr(condition, {"status"}) == "True";
      if (type == kConditionType && K8sStr(condition, {"status"}) == "True") {
        our_message = K8sStr(condition, {"message"});
      }
    }
  }
  auto job = jobs.find(node.name);
  const bool has_job = job != jobs.end();
  node.held_by_us = has_job && job->second;
  // An operator's mark wins: the node is never touched while it stands.
  if (!other.empty()) {
    node.reason = other;
  } else if (ours) {
    node.reason = our_message.empty() ? std::string("ebnccl (no condition)") : our_message;
  }
  const bool drained = ours || !other.empty();
  if (!ready) {
    node.state = NodeState::kDown;
  } else if (drained) {
    node.state = has_job ? NodeState::kDraining : NodeState::kDrained;
  } else {
    node.state = has_job ? NodeState::kAllocated : NodeState::kIdle;
  }
  return node;
}

}  // namespace

absl::StatusOr<std::vector<SchedulerNode>> ReadNodes(absl::string_view nodes_json,
                                                     absl::string_view pods_json,
                                                     const std::string& gpu_resource,
                                                     absl::string_view request,
                                                     std::map<std::string, int>* gpus) {
  const std::string nodes_request = absl::StrCat(request, " (nodes)");
  absl::StatusOr<Json> nodes = K8sItems(nodes_json, nodes_request);
  if (!nodes.ok()) return nodes.status();
  absl::StatusOr<Json> pods = K8sItems(pods_json, absl::StrCat(request, " (pods)"));
  if (!pods.ok()) return pods.status();
  const std::map<std::string, bool> jobs = JobsByNode(*pods);
  std::vector<SchedulerNode> out;
  std::set<std::string> seen;
  for (const Json& item : *nodes) {
    absl::StatusOr<SchedulerNode> node = ReadNode(item, jobs, nodes_request);
    if (!node.ok()) return node.status();
    if (!seen.insert(node->name).second) {
      return K8sBad(nodes_request, absl::StrCat("node ", node->name, " listed twice"));
    }
    if (gpus != nullptr) {
      int count = 0;
      if (const Json* value = K8sFind(item, {"status", "allocatable", gpu_resource.c_str()});
          value != nullptr &&
          (!value->is_string() || !absl::SimpleAtoi(value->get<std::string>(), &count) ||
           count < 0 || count > 1024)) {
        return K8sBad(nodes_request, absl::StrCat("node ", node->name, ": allocatable ",
                                                  gpu_resource, " is not a count"));
      }
      (*gpus)[node->name] = count;
    }
    out.push_back(*std::move(node));
  }
  return out;
}

namespace {

// The node as read with its taints replaced by the others' (ours left out),
// and ours added again when `ours`.
absl::StatusOr<std::string> WithOurTaint(absl::string_view node_json, bool ours) {
  Json node;
  absl::StatusOr<Json> taints = NodeAndTaints(node_json, &node);
  if (!taints.ok()) return taints.status();
  Json out = Json::array();
  for (const Json& taint : *taints) {
    if (!IsOurTaint(taint)) out.push_back(taint);
  }
  if (ours) out.push_back({{"key", kTaintKey}, {"value", "true"}, {"effect", "NoSchedule"}});
  return WithTaints(std::move(node), std::move(out));
}

}  // namespace

absl::StatusOr<std::string> NodeTainted(absl::string_view node_json) {
  return WithOurTaint(node_json, /*ours=*/true);
}

absl::StatusOr<std::string> NodeUntainted(absl::string_view node_json) {
  return WithOurTaint(node_json, /*ours=*/false);
}

absl::StatusOr<std::string> NodeConditioned(absl::string_view node_json, bool drained,
                                            const std::string& reason,
                                            const std::string& now_rfc3339) {
  Json node;
  absl::StatusOr<Json> taints = NodeAndTaints(node_json, &node);
  if (!taints.ok()) return taints.status();
  Json conditions = Json::array();
  if (const Json* read = K8sFind(node, {"status", "conditions"}); read != nullptr) {
    if (!read->is_array() && !read->is_null()) {
      return K8sBad("GET node", "status.conditions is not a list");
    }
    if (read->is_array()) {
      for (const Json& condition : *read) {
        if (K8sStr(condition, {"type"}) != kConditionType) conditions.push_back(condition);
      }
    }
  }
  conditions.push_back({{"type", kConditionType},
                        {"status", drained ? "True" : "False"},
                        {"reason", drained ? "DrainedByEbnccl" : "ResumedByEbnccl"},
                        {"message", drained ? reason : std::string("resumed by ebnccl")},
                        {"lastTransitionTime", now_rfc3339},
                        {"lastHeartbeatTime", now_rfc3339}});
  node["status"]["conditions"] = std::move(conditions);
  // Invalid UTF-8 in a reason (it quotes agents) is replaced, not thrown on.
  return node.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string PlaceholderPod(const PlaceholderSpec& spec, const std::string& node, int gpus,
                           const std::string& borrow_id, const std::string& job_name, int seconds) {
  Json requests = Json::object();
  if (gpus > 0) requests[spec.gpu_resource] = std::to_string(gpus);
  Json term = {{"matchExpressions", Json::array({{{"key", "kubernetes.io/hostname"},
                                                  {"operator", "In"},
                                                  {"values", Json::array({node})}}})}};
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"generateName", absl::StrCat(job_name, "-")},
                {"namespace", spec.name_space},
                {"labels", {{kBorrowLabel, borrow_id}, {kJobNameLabel, job_name}}}}},
              {"spec",
               {{"priorityClassName", spec.priority_class},
                {"restartPolicy", "Never"},
                {"activeDeadlineSeconds", seconds},
                {"terminationGracePeriodSeconds", 1},
                {"affinity",
                 {{"nodeAffinity",
                   {{"requiredDuringSchedulingIgnoredDuringExecution",
                     {{"nodeSelectorTerms", Json::array({term})}}}}}}},
                {"containers",
                 Json::array({{{"name", "hold"},
                               {"image", spec.image},
                               {"resources", {{"requests", requests}, {"limits", requests}}}}})}}}};
  return pod.dump();
}

absl::StatusOr<std::vector<std::string>> BorrowNodes(absl::string_view pods_json,
                                                     absl::string_view request) {
  absl::StatusOr<Json> pods = K8sItems(pods_json, request);
  if (!pods.ok()) return pods.status();
  if (pods->empty()) return absl::NotFoundError(absl::StrCat("kubernetes: ", request, ": no pod"));
  std::vector<std::string> nodes;
  bool pending = false;
  for (const Json& pod : *pods) {
    const std::string phase = K8sStr(pod, {"status", "phase"});
    if (phase == "Succeeded" || phase == "Failed" ||
        K8sFind(pod, {"metadata", "deletionTimestamp"}) != nullptr) {
      return absl::NotFoundError(absl::StrCat("kubernetes: ", request, ": pod ",
                                              K8sStr(pod, {"metadata", "name"}).substr(0, 253),
                                              " ended or is being deleted"));
    }
    if (phase != "Running") {
      pending = true;
      continue;
    }
    const std::string node = K8sStr(pod, {"spec", "nodeName"});
    if (!IsValidName(node)) return K8sBad(request, "a running pod with no valid nodeName");
    nodes.push_back(node);
  }
  if (pending) return std::vector<std::string>();
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

absl::StatusOr<std::vector<std::string>> BorrowIds(absl::string_view pods_json,
                                                   absl::string_view request) {
  absl::StatusOr<Json> pods = K8sItems(pods_json, request);
  if (!pods.ok()) return pods.status();
  std::set<std::string> ids;
  for (const Json& pod : *pods) {
    const std::string id = K8sStr(pod, {"metadata", "labels", kBorrowLabel});
    if (!IsValidName(id)) return K8sBad(request, "a pod with no valid borrow label");
    ids.insert(id);
  }
  return std::vector<std::string>(ids.begin(), ids.end());
}

}  // namespace eb::scheduler::k8s
