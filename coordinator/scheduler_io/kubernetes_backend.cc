#include "coordinator/scheduler_io/kubernetes_backend.h"

#include <unistd.h>

#include <fstream>
#include <random>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "coordinator/scheduler/drain_reason.h"

namespace eb::scheduler_io {
namespace {

namespace k8s = scheduler::k8s;

constexpr size_t kKubectlQuotedBytes = 300;

absl::Status CheckK8sName(const std::string& name, const char* what) {
  if (k8s::IsValidName(name)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "kubernetes: ", what, " \"", scheduler::OneLine(name, 80), "\" is not a Kubernetes name"));
}

// A label value: 1 to 63 of [a-z0-9.-] (IsValidName, shorter).
absl::Status CheckK8sLabel(const std::string& value, const char* what) {
  if (value.size() <= 63) return CheckK8sName(value, what);
  return absl::InvalidArgumentError(absl::StrCat("kubernetes: ", what, " is over 63 bytes"));
}

std::string NewK8sBorrowId() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device random;
  std::string id = "b-";
  for (int i = 0; i < 12; ++i) id.push_back(kHex[random() % 16]);
  return id;
}

}  // namespace

KubernetesBackend::KubernetesBackend(CommandRunner& runner, KubernetesBackendConfig config)
    : runner_(runner), config_(std::move(config)) {}

absl::StatusOr<std::string> KubernetesBackend::Raw(const std::string& verb, const std::string& path,
                                                   const std::string& body) {
  std::vector<std::string> argv = {config_.kubectl};
  if (!config_.kubeconfig.empty()) argv.push_back("--kubeconfig=" + config_.kubeconfig);
  if (!config_.server.empty()) argv.push_back("--server=" + config_.server);
  argv.push_back(
      absl::StrCat("--request-timeout=", absl::ToInt64Seconds(config_.command_timeout) + 1, "s"));
  argv.insert(argv.end(), {verb, "--raw", path});
  const std::string request = absl::StrCat(verb, " --raw ", path);
  std::string file;
  if (!body.empty()) {
    // kubectl reads a body from a file (the runner gives no stdin).
    file = absl::StrCat(config_.scratch_dir, "/body-", getpid(), "-", next_body_++, ".json");
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << body;
    out.close();
    if (!out) {
      return absl::UnavailableError(
          absl::StrCat("kubernetes: `", request, "`: the body cannot be written to ", file));
    }
    argv.insert(argv.end(), {"-f", file});
  }
  const std::vector<std::string> env = {"PATH=/usr/bin:/bin", "LC_ALL=C",
                                        "HOME=" + config_.scratch_dir};
  absl::StatusOr<CommandResult> result = runner_.Run(argv, env, config_.command_timeout);
  if (!file.empty()) unlink(file.c_str());
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        absl::StrCat("kubernetes: `", request, "`: ", result.status().message()));
  }
  if (result->exit_code != 0) {
    std::string tail(absl::StripAsciiWhitespace(result->output));
    if (tail.size() > kKubectlQuotedBytes) tail = tail.substr(tail.size() - kKubectlQuotedBytes);
    // kubectl says "(NotFound)" for a 404: the callers tell it apart.
    const bool not_found = absl::StrContains(tail, "(NotFound)");
    return absl::Status(
        not_found ? absl::StatusCode::kNotFound : absl::StatusCode::kUnavailable,
        absl::StrCat("kubernetes: `", request, "` ",
                     result->exit_code < 0 ? std::string("was killed")
                                           : absl::StrCat("exited ", result->exit_code),
                     tail.empty()
                         ? std::string()
                         : absl::StrCat(": ", scheduler::OneLine(tail, kKubectlQuotedBytes))));
  }
  return std::move(result->output);
}

absl::StatusOr<std::vector<scheduler::SchedulerNode>> KubernetesBackend::ListNodes() {
  absl::StatusOr<std::string> nodes = Raw("get", "/api/v1/nodes");
  if (!nodes.ok()) return nodes.status();
  // Pods that still hold their node (not Succeeded, not Failed).
  absl::StatusOr<std::string> pods = Raw(
      "get", "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed");
  if (!pods.ok()) return pods.status();
  return k8s::ReadNodes(*nodes, *pods, config_.placeholder.gpu_resource,
                        "get --raw /api/v1/nodes, /api/v1/pods");
}

absl::Status KubernetesBackend::SetCondition(const std::string& node, bool drained,
                                             const std::string& reason) {
  const std::string path = "/api/v1/nodes/" + node;
  absl::StatusOr<std::string> read = Raw("get", path);
  if (!read.ok()) return read.status();
  absl::StatusOr<std::string> body =
      k8s::NodeConditioned(*read, drained, reason,
                           absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone()));
  if (!body.ok()) return body.status();
  return Raw("replace", path + "/status", *body).status();
}

absl::Status KubernetesBackend::SetTaint(const std::string& node, bool drained) {
  const std::string path = "/api/v1/nodes/" + node;
  absl::StatusOr<std::string> read = Raw("get", path);
  if (!read.ok()) return read.status();
  absl::StatusOr<std::string> body = drained ? k8s::NodeTainted(*read) : k8s::NodeUntainted(*read);
  if (!body.ok()) return body.status();
  return Raw("replace", path, *body).status();
}

absl::Status KubernetesBackend::Drain(const std::string& node, const std::string& reason) {
  if (absl::Status name = CheckK8sName(node, "node name"); !name.ok()) return name;
  if (absl::Status condition = SetCondition(node, true, reason); !condition.ok()) return condition;
  return SetTaint(node, true);
}

absl::Status KubernetesBackend::Resume(const std::string& node) {
  if (absl::Status name = CheckK8sName(node, "node name"); !name.ok()) return name;
  if (absl::Status taint = SetTaint(node, false); !taint.ok()) return taint;
  return SetCondition(node, false, "");
}

std::string KubernetesBackend::PodsPath(const std::string& label, const std::string& value) const {
  // label=value, escaped for the query ('/' and '=').
  std::string selector = absl::StrCat(label, "=", value);
  std::string escaped;
  for (char c : selector) {
    if (c == '/') {
      escaped += "%2F";
    } else if (c == '=') {
      escaped += "%3D";
    } else {
      escaped.push_back(c);
    }
  }
  return absl::StrCat("/api/v1/namespaces/", config_.placeholder.name_space,
                      "/pods?labelSelector=", escaped);
}

absl::StatusOr<std::string> KubernetesBackend::Borrow(const std::vector<std::string>& nodes,
                                                      const std::string& job_name, int seconds) {
  if (nodes.empty()) return absl::InvalidArgumentError("kubernetes: borrow: no node");
  if (absl::Status label = CheckK8sLabel(job_name, "job name"); !label.ok()) return label;
  for (const std::string& node : nodes) {
    if (absl::Status name = CheckK8sName(node, "node name"); !name.ok()) return name;
  }
  // Each node's GPUs: the placeholder asks all of them.
  absl::StatusOr<std::string> listed = Raw("get", "/api/v1/nodes");
  if (!listed.ok()) return listed.status();
  std::map<std::string, int> gpus;
  absl::StatusOr<std::vector<scheduler::SchedulerNode>> read =
      k8s::ReadNodes(*listed, R"({"items":[]})", config_.placeholder.gpu_resource,
                     "get --raw /api/v1/nodes", &gpus);
  if (!read.ok()) return read.status();
  const std::string id = NewK8sBorrowId();
  const std::string create =
      absl::StrCat("/api/v1/namespaces/", config_.placeholder.name_space, "/pods");
  for (const std::string& node : nodes) {
    auto count = gpus.find(node);
    if (count == gpus.end()) {
      (void)EndJob(id);
      return absl::NotFoundError(
          absl::StrCat("kubernetes: borrow: node ", node, " is not in get --raw /api/v1/nodes"));
    }
    absl::StatusOr<std::string> created =
        Raw("create", create,
            k8s::PlaceholderPod(config_.placeholder, node, count->second, id, job_name, seconds));
    if (!created.ok()) {
      // None of the borrow is left behind: all or nothing.
      (void)EndJob(id);
      return created.status();
    }
  }
  return id;
}

absl::StatusOr<std::vector<std::string>> KubernetesBackend::JobNodes(const std::string& job_id) {
  if (absl::Status label = CheckK8sLabel(job_id, "borrow id"); !label.ok()) return label;
  const std::string path = PodsPath(k8s::kBorrowLabel, job_id);
  absl::StatusOr<std::string> pods = Raw("get", path);
  if (!pods.ok()) return pods.status();
  return k8s::BorrowNodes(*pods, "get --raw " + path);
}

absl::Status KubernetesBackend::EndJob(const std::string& job_id) {
  if (absl::Status label = CheckK8sLabel(job_id, "borrow id"); !label.ok()) return label;
  absl::Status deleted = Raw("delete", PodsPath(k8s::kBorrowLabel, job_id)).status();
  return absl::IsNotFound(deleted) ? absl::OkStatus() : deleted;
}

absl::StatusOr<std::vector<std::string>> KubernetesBackend::JobsNamed(const std::string& job_name) {
  if (absl::Status label = CheckK8sLabel(job_name, "job name"); !label.ok()) return label;
  const std::string path = PodsPath(k8s::kJobNameLabel, job_name);
  absl::StatusOr<std::string> pods = Raw("get", path);
  if (!pods.ok()) return pods.status();
  return k8s::BorrowIds(*pods, "get --raw " + path);
}

}  // namespace eb::scheduler_io
