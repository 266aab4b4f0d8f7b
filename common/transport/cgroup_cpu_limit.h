#pragma once

// The third signal of culprit attribution (docs/RELIABILITY.md, "CPU
// limits"): how long the kernel held a worker's threads back because its
// cgroup (or one above it) used up a CPU limit (a Kubernetes pod's
// `resources.limits.cpu`, a systemd `CPUQuota=`, `docker --cpus`). The
// ticker of schedule_probe.h sees such a rank as stalled, but so is any rank
// of a loaded host, and a stall under the 15 % floor is not named; the
// throttled time is the kernel's own word that *this* limit, not the load,
// stopped it, so a smaller share is evidence.
//
// cgroup v1 (`cpu` controller, cpu.stat `throttled_time`, ns) and v2
// (cpu.stat `throttled_usec`), found from /proc/self/mountinfo and the
// calling thread's /proc/thread-self/cgroup. The pure parts take texts and
// are unit-tested; the reader reads at most a few small files per mark.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::transport {

// A mount of a cgroup hierarchy that accounts CPU limits.
struct CpuCgroupMount {
  std::string root;         // the hierarchy's path mounted there ("/" mostly)
  std::string mount_point;  // where ("/sys/fs/cgroup/cpu,cpuacct")
  bool v2 = false;          // cgroup2 (throttled_usec) or v1 `cpu` (throttled_time)
};

// The cgroup v1 mounts whose options name the `cpu` controller and every
// cgroup2 mount, from /proc/self/mountinfo's text. Lines that are not
// mountinfo are skipped (a mountinfo that cannot be read gives no mounts:
// no limit is measured, which is what a host without cgroups has).
std::vector<CpuCgroupMount> ParseCpuCgroupMounts(absl::string_view mountinfo);

// Where one level's throttled time is read.
struct CpuStatFile {
  std::string path;  // ".../cpu.stat"
  bool v2 = false;
};

// At most this many levels (the cgroup and those above it) per hierarchy:
// a Kubernetes container sits 4-5 deep; the bound keeps a strange
// /proc/thread-self/cgroup from making a mark read hundreds of files.
inline constexpr int kMaxCgroupLevels = 8;

// The cpu.stat files of the calling thread's cgroups for `mounts`, from
// /proc/thread-self/cgroup's text ("ID:controllers:path" lines; v1's line
// whose controllers include `cpu`, v2's "0::path"), the cgroup first and
// then each one above it up to the mount's root (a limit set on a pod
// throttles its containers in the pod's cpu.stat). A path outside a
// mount's root (another cgroup namespace) or with ".." is skipped.
std::vector<CpuStatFile> CpuStatFilesOf(absl::string_view thread_cgroup,
                                        const std::vector<CpuCgroupMount>& mounts);

// The throttled time in a cpu.stat's text, microseconds: v1's
// `throttled_time <ns>`, v2's `throttled_usec <us>`. 0 when the line is
// absent (no limit ever set: a v2 cgroup without the cpu controller, the
// root). INVALID_ARGUMENT naming the file's line when it is not a whole
// number.
absl::StatusOr<double> ParseThrottledUs(absl::string_view cpu_stat, bool v2);

// One reading of every level's throttled time.
struct CpuLimitMark {
  std::vector<CpuStatFile> files;
  std::vector<double> throttled_us;  // per file; negative where it could not be read
};

// Reads the calling thread's cgroups' throttled time. Any thread (the
// mounts are read once by the constructor; the thread's cgroup at each
// mark, since a worker can be moved into a limited cgroup while it runs).
class CpuLimitReader {
 public:
  // `mounts` and where to read the thread's membership; tests point both
  // at fake trees.
  CpuLimitReader(std::vector<CpuCgroupMount> mounts, std::string thread_cgroup_file);
  // /proc/self/mountinfo and /proc/thread-self/cgroup.
  static CpuLimitReader ForThisProcess();

  CpuLimitMark Mark() const;
  // The same files as `begin`, read again.
  CpuLimitMark MarkAgain(const CpuLimitMark& begin) const;

 private:
  static CpuLimitMark Read(std::vector<CpuStatFile> files);

  std::vector<CpuCgroupMount> mounts_;
  std::string thread_cgroup_file_;
};

// How long the limit held the threads back between two marks of the same
// files, microseconds: the most any one level grew (a pod's and its
// container's limits each count their own throttling; the larger is the
// lower bound on the time lost). Levels unread in either mark, or whose
// counter went back (a cgroup recreated), count nothing.
double ThrottledBetween(const CpuLimitMark& begin, const CpuLimitMark& end);

}  // namespace eb::transport
