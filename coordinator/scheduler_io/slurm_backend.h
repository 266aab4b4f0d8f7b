#pragma once

// The Slurm backend (issue 30): Slurm's own CLI tools (sinfo, squeue,
// scontrol, sbatch, scancel) run through a CommandRunner with a deadline
// and bounded output, their answers read by the pure parser
// (coordinator/scheduler/slurm/slurm_output.h). Why the CLI and not
// slurmrestd: docs/DESIGN.md, "Scheduler integration: the Slurm backend".
// Every error names "slurm" and the command. Blocking: call it off the
// event loop.

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/scheduler/scheduler_backend.h"
#include "coordinator/scheduler_io/command_runner.h"

namespace eb::scheduler_io {

struct SlurmBackendConfig {
  // Where sinfo, squeue, scontrol, sbatch and scancel are.
  std::string bin_dir = "/usr/bin";
  // SLURM_CONF for every command ("" = Slurm's default, /etc/slurm/slurm.conf).
  std::string slurm_conf;
  // The partition whose nodes ebnccl judges and borrows ("" = every node).
  std::string partition;
  // The name of ebnccl's borrow jobs: a job of this name holds its nodes
  // for us (SchedulerNode::held_by_us).
  std::string job_name = "ebnccl-borrow";
  // The name of the sentinel's probe jobs (issue 30, part 3): they hold
  // their nodes for us too, and are submitted with the partition and QOS
  // below ("" = partition's, Slurm's default QOS): a QOS the site lets
  // tenant jobs preempt (PreemptType=preempt/qos), so that a probe yields.
  std::string probe_job_name = "ebnccl-probe";
  std::string probe_partition;
  std::string probe_qos;
  // Deadline of each command.
  absl::Duration command_timeout = absl::Seconds(10);
};

class SlurmBackend final : public scheduler::SchedulerBackend {
 public:
  // `runner` must outlive the backend.
  SlurmBackend(CommandRunner& runner, SlurmBackendConfig config);

  std::string Name() const override { return "slurm"; }
  absl::StatusOr<std::vector<scheduler::SchedulerNode>> ListNodes() override;
  absl::Status Drain(const std::string& node, const std::string& reason) override;
  absl::Status Resume(const std::string& node) override;
  absl::StatusOr<std::string> Borrow(const std::vector<std::string>& nodes,
                                     const std::string& job_name, int seconds) override;
  absl::StatusOr<std::vector<std::string>> JobNodes(const std::string& job_id) override;
  absl::Status EndJob(const std::string& job_id) override;
  absl::StatusOr<std::vector<std::string>> JobsNamed(const std::string& job_name) override;

 private:
  // Runs bin_dir/<tool> with `args`: its output when it exits 0, else an
  // error naming slurm, the command, the exit and the end of its output.
  absl::StatusOr<std::string> Tool(const std::string& tool, const std::vector<std::string>& args,
                                   std::string* command_text);

  CommandRunner& runner_;
  const SlurmBackendConfig config_;
};

}  // namespace eb::scheduler_io
