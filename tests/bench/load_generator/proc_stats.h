#pragma once

// CPU time and memory of a process, read from /proc (the coordinator's, by
// pid) and of this process (getrusage).

#include <cstdint>
#include <optional>

namespace eb::bench {

struct ProcSample {
  double cpu_s = 0;    // user + system
  int64_t rss_kb = 0;  // VmRSS
  int64_t hwm_kb = 0;  // VmHWM: the peak RSS
};

// nullopt when /proc/PID cannot be read (the process is gone).
std::optional<ProcSample> SampleProcess(int pid);
// This process's user + system CPU seconds.
double SelfCpuSeconds();

}  // namespace eb::bench
