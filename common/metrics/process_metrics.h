#pragma once

// The standard process metrics of Prometheus' client libraries
// (https://prometheus.io/docs/instrumenting/writing_clientlibs/#process-metrics),
// which prometheus-cpp 1.0.1 does not provide, read from /proc/self at
// scrape time:
//
//   process_cpu_seconds_total          counter  user + system CPU time
//   process_resident_memory_bytes      gauge
//   process_virtual_memory_bytes       gauge
//   process_start_time_seconds         gauge    unix time
//   process_open_fds                   gauge
//   process_max_fds                    gauge    the soft RLIMIT_NOFILE
//
// The parsing is pure (ParseProcStat); ProcessCollector does the I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace eb::common {

struct ProcessStat {
  double cpu_seconds = 0;
  double resident_bytes = 0;
  double virtual_bytes = 0;
  // Seconds after boot.
  double start_seconds_after_boot = 0;
};

// Parses /proc/<pid>/stat (proc(5)): utime and stime (fields 14, 15) and
// starttime (22) in clock ticks, vsize (23) in bytes and rss (24) in
// pages. The command name (field 2) may hold spaces and parentheses: the
// fields after it are counted from its last ')'. INVALID_ARGUMENT when the
// text is not such a line.
absl::StatusOr<ProcessStat> ParseProcStat(absl::string_view text, double ticks_per_second,
                                          double page_size);

// The "btime" line of /proc/stat: boot time in unix seconds.
absl::StatusOr<double> ParseBootTime(absl::string_view proc_stat);

// The families above, from a stat, a boot time, and fd counts. Pure.
std::vector<prometheus::MetricFamily> ProcessFamilies(const ProcessStat& stat, double boot_time,
                                                      std::optional<double> open_fds,
                                                      std::optional<double> max_fds);

// Reads /proc/self/stat, /proc/stat, /proc/self/fd and RLIMIT_NOFILE on
// every Collect(); a file that cannot be read leaves its families out.
class ProcessCollector final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace eb::common
