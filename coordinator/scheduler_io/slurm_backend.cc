#include "coordinator/scheduler_io/slurm_backend.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "coordinator/scheduler/drain_reason.h"
#include "coordinator/scheduler/slurm/slurm_output.h"

namespace eb::scheduler_io {
namespace {

namespace slurm = scheduler::slurm;

// The end of a failed command's output quoted in the error.
constexpr size_t kQuotedOutputBytes = 300;

absl::Status CheckNodeName(const std::string& node) {
  if (slurm::IsValidNodeName(node)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "slurm: node name \"", scheduler::OneLine(node, 80), "\" is not a Slurm node name"));
}

}  // namespace

SlurmBackend::SlurmBackend(CommandRunner& runner, SlurmBackendConfig config)
    : runner_(runner), config_(std::move(config)) {}

absl::StatusOr<std::string> SlurmBackend::Tool(const std::string& tool,
                                               const std::vector<std::string>& args,
                                               std::string* command_text) {
  std::vector<std::string> argv = {absl::StrCat(config_.bin_dir, "/", tool)};
  argv.insert(argv.end(), args.begin(), args.end());
  *command_text = absl::StrJoin(argv, " ");
  // The tools need little: where the config is, and a sane locale and PATH
  // (scontrol execs nothing, but some sites wrap the tools in scripts).
  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "LC_ALL=C"};
  if (!config_.slurm_conf.empty()) env.push_back("SLURM_CONF=" + config_.slurm_conf);
  absl::StatusOr<CommandResult> result = runner_.Run(argv, env, config_.command_timeout);
  if (!result.ok()) {
    // The runner names the command too: said once.
    absl::string_view message = result.status().message();
    message = absl::StripLeadingAsciiWhitespace(absl::StripPrefix(message, *command_text));
    return absl::Status(result.status().code(),
                        absl::StrCat("slurm: `", *command_text, "`: ", message));
  }
  if (result->exit_code != 0) {
    std::string tail(absl::StripAsciiWhitespace(result->output));
    if (tail.size() > kQuotedOutputBytes) tail = tail.substr(tail.size() - kQuotedOutputBytes);
    return absl::UnavailableError(absl::StrCat(
        "slurm: `", *command_text, "` ",
        result->exit_code < 0 ? std::string("was killed")
                              : absl::StrCat("exited ", result->exit_code),
        tail.empty() ? std::string()
                     : absl::StrCat(": ", scheduler::OneLine(tail, kQuotedOutputBytes))));
  }
  return std::move(result->output);
}

absl::StatusOr<std::vector<scheduler::SchedulerNode>> SlurmBackend::ListNodes() {
  std::vector<std::string> args = {"-h", "-N", "-o", slurm::kSinfoFormat};
  if (!config_.partition.empty()) args.push_back("--partition=" + config_.partition);
  std::string command;
  absl::StatusOr<std::string> sinfo = Tool("sinfo", args, &command);
  if (!sinfo.ok()) return sinfo.status();
  absl::StatusOr<std::vector<scheduler::SchedulerNode>> nodes =
      slurm::ParseSinfoNodes(*sinfo, command);
  if (!nodes.ok()) return nodes.status();
  // Which nodes our borrow and probe jobs hold.
  absl::StatusOr<std::string> squeue =
      Tool("squeue",
           {"-h", "-o", slurm::kSqueueFormat,
            "--name=" + config_.job_name + "," + config_.probe_job_name},
           &command);
  if (!squeue.ok()) return squeue.status();
  absl::StatusOr<std::vector<slurm::SlurmJob>> jobs = slurm::ParseSqueueJobs(*squeue, command);
  if (!jobs.ok()) return jobs.status();
  for (const slurm::SlurmJob& job : *jobs) {
    if (job.name != config_.job_name && job.name != config_.probe_job_name) continue;
    for (const std::string& held : job.nodes) {
      for (scheduler::SchedulerNode& node : *nodes) {
        if (node.name == held && node.state == scheduler::NodeState::kAllocated) {
          node.held_by_us = true;
        }
      }
    }
  }
  return nodes;
}

absl::Status SlurmBackend::Drain(const std::string& node, const std::string& reason) {
  if (absl::Status name = CheckNodeName(node); !name.ok()) return name;
  // One argv element: scontrol takes the rest of it as the reason, and no
  // shell ever reads it. The reason is already one bounded printable line.
  std::string command;
  return Tool("scontrol",
              {"update", "NodeName=" + node, "State=DRAIN",
               "Reason=" + scheduler::OneLine(reason, scheduler::kMaxReasonBytes)},
              &command)
      .status();
}

absl::Status SlurmBackend::Resume(const std::string& node) {
  if (absl::Status name = CheckNodeName(node); !name.ok()) return name;
  std::string command;
  return Tool("scontrol", {"update", "NodeName=" + node, "State=RESUME"}, &command).status();
}

absl::StatusOr<std::string> SlurmBackend::Borrow(const std::vector<std::string>& nodes,
                                                 const std::string& job_name, int seconds) {
  if (nodes.empty()) return absl::InvalidArgumentError("slurm: borrow: no node named");
  for (const std::string& node : nodes) {
    if (absl::Status name = CheckNodeName(node); !name.ok()) return name;
  }
  if (!slurm::IsValidNodeName(job_name)) {
    return absl::InvalidArgumentError("slurm: borrow: the job name must be a plain word");
  }
  const int minutes = std::max(1, (seconds + 59) / 60);
  std::vector<std::string> args = {"--parsable",
                                   "--exclusive",
                                   "--job-name=" + job_name,
                                   absl::StrCat("--nodes=", nodes.size()),
                                   "--nodelist=" + absl::StrJoin(nodes, ","),
                                   absl::StrCat("--time=", minutes),
                                   "--output=/dev/null",
                                   absl::StrCat("--wrap=sleep ", minutes * 60)};
  // A probe job: its own partition and QOS (the preemptible one).
  const bool probe = job_name == config_.probe_job_name;
  const std::string& partition =
      probe && !config_.probe_partition.empty() ? config_.probe_partition : config_.partition;
  if (!partition.empty()) args.push_back("--partition=" + partition);
  if (probe && !config_.probe_qos.empty()) args.push_back("--qos=" + config_.probe_qos);
  std::string command;
  absl::StatusOr<std::string> sbatch = Tool("sbatch", args, &command);
  if (!sbatch.ok()) return sbatch.status();
  return slurm::ParseSbatchJobId(*sbatch, command);
}

absl::StatusOr<std::vector<std::string>> SlurmBackend::JobNodes(const std::string& job_id) {
  if (job_id.empty() || job_id.size() > 20 ||
      job_id.find_first_not_of("0123456789") != std::string::npos) {
    return absl::InvalidArgumentError("slurm: job nodes: not a job id");
  }
  std::string command;
  absl::StatusOr<std::string> squeue =
      Tool("squeue", {"-h", "-o", slurm::kSqueueFormat, "--jobs=" + job_id}, &command);
  // squeue exits 1 ("Invalid job id specified") for a job that has left
  // the controller's memory.
  if (!squeue.ok()) return squeue.status();
  absl::StatusOr<std::vector<slurm::SlurmJob>> jobs = slurm::ParseSqueueJobs(*squeue, command);
  if (!jobs.ok()) return jobs.status();
  for (const slurm::SlurmJob& job : *jobs) {
    if (job.id != job_id) continue;
    if (job.state == "RUNNING") return job.nodes;
    if (job.state == "PENDING" || job.state == "CONFIGURING") return std::vector<std::string>();
  }
  return absl::NotFoundError(absl::StrCat("slurm: job ", job_id, " is not running or pending"));
}

absl::Status SlurmBackend::EndJob(const std::string& job_id) {
  if (job_id.empty() || job_id.find_first_not_of("0123456789") != std::string::npos) {
    return absl::InvalidArgumentError("slurm: end job: not a job id");
  }
  std::string command;
  return Tool("scancel", {job_id}, &command).status();
}

absl::StatusOr<std::vector<std::string>> SlurmBackend::JobsNamed(const std::string& job_name) {
  if (!slurm::IsValidNodeName(job_name)) {
    return absl::InvalidArgumentError("slurm: jobs named: the job name must be a plain word");
  }
  std::string command;
  absl::StatusOr<std::string> squeue =
      Tool("squeue", {"-h", "-o", slurm::kSqueueFormat, "--name=" + job_name}, &command);
  if (!squeue.ok()) return squeue.status();
  absl::StatusOr<std::vector<slurm::SlurmJob>> jobs = slurm::ParseSqueueJobs(*squeue, command);
  if (!jobs.ok()) return jobs.status();
  std::vector<std::string> ids;
  for (const slurm::SlurmJob& job : *jobs) {
    // squeue filters by name already; a job of another name is not ours.
    if (job.name == job_name) ids.push_back(job.id);
  }
  return ids;
}

}  // namespace eb::scheduler_io
