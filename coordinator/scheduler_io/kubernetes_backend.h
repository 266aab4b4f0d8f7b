#pragma once

// The Kubernetes backend (issue 30): the API server through `kubectl`'s
// raw requests (get/create/replace/delete --raw), run through a
// CommandRunner with a deadline and bounded output, the answers read by the
// pure coordinator/scheduler/kubernetes/k8s_objects.h. Why kubectl and not
// an HTTP client of our own: docs/DESIGN.md, "The Kubernetes backend".
// Tested against a stand-in API server only (tests/unit/scheduler_io/
// k8s_standin.py), never a real kube-apiserver. Every error names
// "kubernetes" and the request. Blocking: call it off the event loop.

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/scheduler/kubernetes/k8s_objects.h"
#include "coordinator/scheduler/scheduler_backend.h"
#include "coordinator/scheduler_io/command_runner.h"

namespace eb::scheduler_io {

struct KubernetesBackendConfig {
  std::string kubectl = "/usr/bin/kubectl";
  // --kubeconfig ("" = none given: kubectl's in-cluster or default
  // config) and --server ("" = the kubeconfig's).
  std::string kubeconfig;
  std::string server;
  // kubectl's HOME (its discovery cache) and where request bodies are
  // written (one file per request, removed after): a directory of ours.
  std::string scratch_dir;
  scheduler::k8s::PlaceholderSpec placeholder;
  absl::Duration command_timeout = absl::Seconds(10);
};

class KubernetesBackend final : public scheduler::SchedulerBackend {
 public:
  // `runner` must outlive the backend.
  KubernetesBackend(CommandRunner& runner, KubernetesBackendConfig config);

  std::string Name() const override { return "kubernetes"; }
  absl::StatusOr<std::vector<scheduler::SchedulerNode>> ListNodes() override;
  // Our condition (with the reason) first, then our NoSchedule taint: a
  // taint without its reason is never left behind by a failure between.
  absl::Status Drain(const std::string& node, const std::string& reason) override;
  // Our taint removed first, then the condition set False.
  absl::Status Resume(const std::string& node) override;
  // One placeholder pod per node, each asking all of the node's GPUs at
  // the lowest PriorityClass; the id is the pods' borrow label.
  absl::StatusOr<std::string> Borrow(const std::vector<std::string>& nodes,
                                     const std::string& job_name, int seconds) override;
  absl::StatusOr<std::vector<std::string>> JobNodes(const std::string& job_id) override;
  absl::Status EndJob(const std::string& job_id) override;
  absl::StatusOr<std::vector<std::string>> JobsNamed(const std::string& job_name) override;

 private:
  // kubectl <verb> --raw <path> [-f <body file>]: its output when it exits
  // 0, else an error naming kubernetes, the verb and the path.
  absl::StatusOr<std::string> Raw(const std::string& verb, const std::string& path,
                                  const std::string& body = "");
  absl::Status SetCondition(const std::string& node, bool drained, const std::string& reason);
  absl::Status SetTaint(const std::string& node, bool drained);
  std::string PodsPath(const std::string& label, const std::string& value) const;

  CommandRunner& runner_;
  const KubernetesBackendConfig config_;
  int next_body_ = 0;
};

}  // namespace eb::scheduler_io
