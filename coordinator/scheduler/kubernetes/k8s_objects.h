#pragma once

// The Kubernetes API's objects in the scheduler core's words (issue 30):
// the answers of GET /api/v1/nodes and GET /api/v1/pods read into
// SchedulerNode, and the bodies ebnccl sends: the taint and Node condition
// that drain a node (and their removal), and the placeholder pods that
// borrow a node's GPUs at the lowest PriorityClass. Pure: JSON in, JSON
// out, nothing sent (coordinator/scheduler_io/kubernetes_backend.h sends
// them). Every answer is untrusted: all or nothing, bounded, and each error
// names the request.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "coordinator/scheduler/scheduler_types.h"

namespace eb::scheduler::k8s {

// ebnccl's marks on the cluster's objects.
inline constexpr char kTaintKey[] = "ebnccl.io/drained";
inline constexpr char kConditionType[] = "EbncclDrained";
inline constexpr char kBorrowLabel[] = "ebnccl.io/borrow";
inline constexpr char kJobNameLabel[] = "ebnccl.io/job-name";

// Bounds on an answer: a larger one is refused rather than half read.
inline constexpr size_t kMaxObjects = 65536;
inline constexpr size_t kMaxNameBytes = 253;  // a DNS subdomain
inline constexpr size_t kMaxAnswerBytes = 16 << 20;

struct PlaceholderSpec {
  std::string name_space = "ebnccl";
  std::string priority_class = "ebnccl-lowest";
  std::string gpu_resource = "nvidia.com/gpu";
  std::string image = "registry.k8s.io/pause:3.9";
};

// A node name as ebnccl accepts it from the API: a DNS subdomain (1 to 253
// of [a-z0-9.-], starting and ending with a letter or digit).
bool IsValidName(absl::string_view name);

// The nodes (GET /api/v1/nodes) and what runs on them (GET /api/v1/pods,
// every namespace), as the core sees them:
//  - our taint (kTaintKey, NoSchedule): drained by us, the reason our
//    condition's message (the taint's value cannot hold a sentence);
//  - cordoned (spec.unschedulable) or another NoSchedule/NoExecute taint:
//    drained by someone else, the reason says which ("cordoned", "taint
//    <key>"): never touched;
//  - Ready not True: down;
//  - a pod that is not Succeeded or Failed, bound to the node and not a
//    DaemonSet's: a job there (held_by_us when it has kBorrowLabel).
// INVALID_ARGUMENT naming `request` for an answer that is not JSON, not a
// list, over the bounds, or with a node that has no valid name or is listed
// twice. GPUs of each node (status.allocatable[gpu_resource]) go to `gpus`
// when it is not null.
absl::StatusOr<std::vector<SchedulerNode>> ReadNodes(absl::string_view nodes_json,
                                                     absl::string_view pods_json,
                                                     const std::string& gpu_resource,
                                                     absl::string_view request,
                                                     std::map<std::string, int>* gpus = nullptr);

// The node object to PUT back (PUT /api/v1/nodes/NAME) with our taint
// (value "true", effect NoSchedule) added, once, the other taints and
// every other field as read: its metadata.resourceVersion makes the API
// refuse (409) a node changed since it was read, rather than overwrite it.
// INVALID_ARGUMENT for a node that is not an object, has no
// resourceVersion, or taints that are not a list.
absl::StatusOr<std::string> NodeTainted(absl::string_view node_json);
// The same without our taint (the others kept as they are).
absl::StatusOr<std::string> NodeUntainted(absl::string_view node_json);
// The node object to PUT to its status (PUT /api/v1/nodes/NAME/status)
// with our condition (kConditionType) set: True with `reason` as its
// message (drain), or False "resumed by ebnccl" (resume); the other
// conditions as read. `now_rfc3339` dates it.
absl::StatusOr<std::string> NodeConditioned(absl::string_view node_json, bool drained,
                                            const std::string& reason,
                                            const std::string& now_rfc3339);

// The placeholder pod that holds `node`'s `gpus` GPUs for borrow
// `borrow_id` (job name `job_name`) for at most `seconds`: the lowest
// PriorityClass (a tenant pod preempts it), a required node affinity on
// kubernetes.io/hostname (not spec.nodeName, which would bypass the
// scheduler and its preemption), the pause image.
std::string PlaceholderPod(const PlaceholderSpec& spec, const std::string& node, int gpus,
                           const std::string& borrow_id, const std::string& job_name, int seconds);

// One borrow's pods (GET pods?labelSelector=ebnccl.io/borrow=ID): their
// nodes when every one runs; empty while one is pending; NOT_FOUND when
// there is none, or one ended or is being deleted (preempted, evicted).
absl::StatusOr<std::vector<std::string>> BorrowNodes(absl::string_view pods_json,
                                                     absl::string_view request);
// The distinct borrow ids of a pod list (for JobsNamed).
absl::StatusOr<std::vector<std::string>> BorrowIds(absl::string_view pods_json,
                                                   absl::string_view request);

}  // namespace eb::scheduler::k8s
