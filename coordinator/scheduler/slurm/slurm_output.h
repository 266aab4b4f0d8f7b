#pragma once

// What Slurm's CLI tools print, read into the scheduler core's words (issue
// 30): `sinfo` lines into SchedulerNode, `squeue` lines into jobs, Slurm's
// hostlists ("n[1-3,7]") into names, `sbatch --parsable` into a job id.
// Pure: the text comes in, nothing is run (coordinator/scheduler_io runs
// the tools). The output is untrusted: every answer is all or nothing (a
// line that cannot be read fails the whole answer, so nothing is decided
// on a partial one), bounded, and each error names the command and the
// line.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "coordinator/scheduler/scheduler_types.h"

namespace eb::scheduler::slurm {

// The sinfo format the backend asks for: one node a line (-N), no header
// (-h), name, extended state and reason, '|'-separated. The reason is last:
// it is free text an operator typed and may itself hold '|'.
inline constexpr char kSinfoFormat[] = "%N|%T|%E";
// squeue: job id, name, state, nodes (a hostlist).
inline constexpr char kSqueueFormat[] = "%i|%j|%T|%N";

// Bounds on an answer: a larger one is refused rather than half read.
inline constexpr size_t kMaxNodes = 65536;
inline constexpr size_t kMaxNodeNameBytes = 64;
inline constexpr size_t kMaxLineBytes = 4096;

// A Slurm node name as ebnccl accepts it: 1 to 64 of [A-Za-z0-9._-],
// starting with a letter or digit (nothing that scontrol's "key=value"
// arguments or a shell could read as more than a name).
bool IsValidNodeName(absl::string_view name);

// Slurm's extended node state (`sinfo %T`: "idle", "drained", "mixed",
// "idle*", "allocated+drain", ...) mapped to the core's NodeState. A
// trailing flag character ('*' not responding, '~' powered off, '#'
// powering up, '!' powering down, '%' rebooting, '$' maintenance, '@'
// reboot pending, '^' rebooting issued, '-' planned) makes a node down or
// unknown: the core leaves those. A state this version does not know is
// kUnknown (left, and decided again when it reads as a known one), never an
// error: a newer Slurm must not blind ebnccl to the whole fleet.
NodeState MapSinfoState(absl::string_view state);

// `sinfo -h -N -o '%N|%T|%E'` output. INVALID_ARGUMENT naming `command`
// and the line for: a line without two '|', an invalid node name, an empty
// state, a node listed twice, more than kMaxNodes lines or a line over
// kMaxLineBytes. The reason "none" (sinfo's word for no reason) is empty.
// An empty output is an empty list (a partition with no node).
absl::StatusOr<std::vector<SchedulerNode>> ParseSinfoNodes(absl::string_view output,
                                                           absl::string_view command);

// Expands a Slurm hostlist: "n1,n[3-5,07],gpu-a[01-02]" -> n1 n3 n4 n5 n07
// gpu-a01 gpu-a02 (zero padding kept as written). At most `max_names`
// names; INVALID_ARGUMENT for unbalanced brackets, a bad range, an invalid
// name or too many names. "" and "(null)" (squeue's word for a pending
// job's nodes) are no names.
absl::StatusOr<std::vector<std::string>> ExpandHostlist(absl::string_view hostlist,
                                                        size_t max_names = kMaxNodes);

struct SlurmJob {
  std::string id;  // digits (an array task's "12_3" is kept as written)
  std::string name;
  std::string state;  // "RUNNING", "PENDING", ...
  std::vector<std::string> nodes;
};

// `squeue -h -o '%i|%j|%T|%N'` output. INVALID_ARGUMENT naming `command`
// and the line for fewer than four fields, an empty id or state, or a bad
// hostlist. The job name is free text (a user's) and may hold '|': it is
// what lies between the first and the last two separators.
absl::StatusOr<std::vector<SlurmJob>> ParseSqueueJobs(absl::string_view output,
                                                      absl::string_view command);

// `sbatch --parsable` output: "<id>" or "<id>;<cluster>". INVALID_ARGUMENT
// naming `command` for anything else.
absl::StatusOr<std::string> ParseSbatchJobId(absl::string_view output, absl::string_view command);

}  // namespace eb::scheduler::slurm
