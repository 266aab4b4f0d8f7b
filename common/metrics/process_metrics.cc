#include "common/metrics/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/io/bounded_file.h"

namespace eb::common {

namespace {

prometheus::MetricFamily Family(const char* name, const char* help, prometheus::MetricType type,
                                double value) {
  prometheus::MetricFamily family;
  family.name = name;
  family.help = help;
  family.type = type;
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(metric);
  return family;
}

std::optional<std::string> ReadFile(const char* path) {
  absl::StatusOr<std::string> text = ReadBoundedFile(path, FileKind::kProcTable);
  if (!text.ok()) return std::nullopt;
  return *std::move(text);
}

}  // namespace

absl::StatusOr<ProcessStat> ParseProcStat(absl::string_view text, double ticks_per_second,
                                          double page_size) {
  const size_t close = text.rfind(')');
  if (close == absl::string_view::npos || ticks_per_second <= 0) {
    return absl::InvalidArgumentError("proc stat: no ')' after the command name");
  }
  // Field 3 (state) is the first after the name.
  std::vector<absl::string_view> fields =
      absl::StrSplit(text.substr(close + 1), ' ', absl::SkipWhitespace());
  auto field = [&](int number, double* value) {
    const size_t index = static_cast<size_t>(number - 3);
    return index < fields.size() && absl::SimpleAtod(fields[index], value);
  };
  double utime = 0, stime = 0, start = 0, vsize = 0, rss = 0;
  if (!field(14, &utime) || !field(15, &stime) || !field(22, &start) || !field(23, &vsize) ||
      !field(24, &rss)) {
    return absl::InvalidArgumentError("proc stat: fewer than 24 numeric fields");
  }
  ProcessStat stat;
  stat.cpu_seconds = (utime + stime) / ticks_per_second;
  stat.start_seconds_after_boot = start / ticks_per_second;
  stat.virtual_bytes = vsize;
  stat.resident_bytes = rss * page_size;
  return stat;
}

absl::StatusOr<double> ParseBootTime(absl::string_view proc_stat) {
  for (absl::string_view line : absl::StrSplit(proc_stat, '\n')) {
    if (absl::ConsumePrefix(&line, "btime ")) {
      double value = 0;
      if (absl::SimpleAtod(line, &value)) return value;
    }
  }
  return absl::InvalidArgumentError("/proc/stat: no btime line");
}

std::vector<prometheus::MetricFamily> ProcessFamilies(const ProcessStat& stat, double boot_time,
                                                      std::optional<double> open_fds,
                                                      std::optional<double> max_fds) {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> families = {
      Family("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
             MetricType::Counter, stat.cpu_seconds),
      Family("process_resident_memory_bytes", "Resident memory size in bytes.", MetricType::Gauge,
             stat.resident_bytes),
      Family("process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::Gauge,
             stat.virtual_bytes),
      Family("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
             MetricType::Gauge, boot_time + stat.start_seconds_after_boot),
  };
  if (open_fds) {
    families.push_back(Family("process_open_fds", "Number of open file descriptors.",
                              MetricType::Gauge, *open_fds));
  }
  if (max_fds) {
    families.push_back(Family("process_max_fds", "Maximum number of open file descriptors.",
                              MetricType::Gauge, *max_fds));
  }
  return families;
}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  const std::optional<std::string> self = ReadFile("/proc/self/stat");
  const std::optional<std::string> system = ReadFile("/proc/stat");
  if (!self || !system) return {};
  absl::StatusOr<ProcessStat> stat = ParseProcStat(*self, static_cast<double>(sysconf(_SC_CLK_TCK)),
                                                   static_cast<double>(sysconf(_SC_PAGESIZE)));
  absl::StatusOr<double> boot = ParseBootTime(*system);
  if (!stat.ok() || !boot.ok()) return {};
  std::optional<double> open_fds;
  std::error_code error;
  double count = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    ++count;
  }
  if (!error) open_fds = count;
  std::optional<double> max_fds;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    max_fds = static_cast<double>(limit.rlim_cur);
  }
  return ProcessFamilies(*stat, *boot, open_fds, max_fds);
}

}  // namespace eb::common
