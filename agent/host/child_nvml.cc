#include "agent/host/child_nvml.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/core/gpu_details_text.h"
#include "agent/host/child_probe.h"
#include "agent/host/system_nvml.h"

namespace eb::agent {

int PrintGpuDetails() {
  const std::string text = FormatNvmlReport(SystemNvml().Query());
  std::fwrite(text.data(), 1, text.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

ChildProcessNvml::ChildProcessNvml(common::ProcessLauncher& launcher, std::string agent_binary,
                                   std::vector<std::string> env, absl::Duration timeout)
    : launcher_(launcher),
      agent_binary_(std::move(agent_binary)),
      env_(std::move(env)),
      timeout_(timeout) {}

absl::StatusOr<NvmlReport> ChildProcessNvml::Query() {
  if (agent_binary_.empty()) {
    return absl::UnavailableError("the agent's own executable is unknown (/proc/self/exe)");
  }
  common::ProcessSpec spec;
  spec.executable = agent_binary_;
  spec.argv = {agent_binary_, kPrintGpuDetailsFlag};
  spec.env = env_;
  absl::StatusOr<std::string> text = RunChildProbe(launcher_, std::move(spec), timeout_);
  if (!text.ok()) return text.status();
  absl::StatusOr<NvmlReport> report = ParseNvmlReportText(*text);
  if (!report.ok() && report.status().code() == absl::StatusCode::kInvalidArgument) {
    return absl::UnavailableError(
        absl::StrCat(agent_binary_, " ", kPrintGpuDetailsFlag, ": ", report.status().message()));
  }
  return report;
}

}  // namespace eb::agent
