#pragma once

// Helpers shared by the process-layer tests: the scripted child's path, an
// ExitCallback recorder to wait on, a temporary directory and /proc probes.

#include <stdlib.h>
#include <sys/types.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/process/process_launcher.h"

namespace eb::testing {

// Generous: these waits only bound a failing test, a passing one is fast.
inline constexpr absl::Duration kWaitTimeout = absl::Seconds(10);

inline constexpr char kChildPath[] = EB_TEST_CHILD_PATH;

// A spec running the scripted child with `args` (mode first).
inline common::ProcessSpec ChildSpec(std::vector<std::string> args, std::string log_path = "",
                                     std::vector<std::string> env = {}) {
  common::ProcessSpec spec;
  spec.executable = kChildPath;
  spec.argv.emplace_back(kChildPath);
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = std::move(env);
  spec.log_path = std::move(log_path);
  return spec;
}

// Collects ExitInfos by pid from any thread; tests wait on it.
class ExitRecorder {
 public:
  // A callback that records into this recorder, which must outlive it.
  common::ExitCallback Callback() {
    return [this](const common::ExitInfo& info) {
      absl::MutexLock lock(&mu_);
      exits_[info.pid].push_back(info);
      ++total_;
    };
  }

  // The first exit of `pid`, or nullopt if none came within `timeout`.
  std::optional<common::ExitInfo> WaitFor(pid_t pid, absl::Duration timeout = kWaitTimeout) {
    absl::MutexLock lock(&mu_);
    auto has_exit = [this, pid]()
                        ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return exits_.count(pid) > 0; };
    if (!mu_.AwaitWithTimeout(absl::Condition(&has_exit), timeout)) return std::nullopt;
    return exits_[pid].front();
  }

  // Whether `n` callbacks in total arrived within `timeout`.
  bool WaitForTotal(int n, absl::Duration timeout = kWaitTimeout) {
    absl::MutexLock lock(&mu_);
    auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return total_ >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  }

  int CountFor(pid_t pid) {
    absl::MutexLock lock(&mu_);
    auto it = exits_.find(pid);
    return it == exits_.end() ? 0 : static_cast<int>(it->second.size());
  }

  int Total() {
    absl::MutexLock lock(&mu_);
    return total_;
  }

 private:
  absl::Mutex mu_;
  std::map<pid_t, std::vector<common::ExitInfo>> exits_ ABSL_GUARDED_BY(mu_);
  int total_ ABSL_GUARDED_BY(mu_) = 0;
};

// A fresh directory, removed with its contents on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = getenv("TMPDIR");
    std::string pattern = std::string(base ? base : "/tmp") + "/eb_process_test.XXXXXX";
    path_ = mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Empty when mkdtemp failed.
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

// Polls `done` every 10 ms until it holds or `timeout` passes.
inline bool PollUntil(const std::function<bool()>& done, absl::Duration timeout = kWaitTimeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!done()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

// Fields of /proc/<pid>/stat after the command name: state, ppid, pgrp...
// Empty when the process does not exist.
inline std::vector<std::string> ProcStat(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t close_paren = stat.rfind(')');
  if (close_paren == std::string::npos) return {};
  std::istringstream fields(stat.substr(close_paren + 1));
  std::vector<std::string> out;
  for (std::string field; fields >> field;) out.push_back(field);
  return out;
}

inline bool ProcessGone(pid_t pid) { return ProcStat(pid).empty(); }

inline bool GoneOrZombie(pid_t pid) {
  const std::vector<std::string> stat = ProcStat(pid);
  return stat.empty() || stat[0] == "Z";
}

inline pid_t ParentOf(pid_t pid) {
  const std::vector<std::string> stat = ProcStat(pid);
  return stat.size() > 1 ? static_cast<pid_t>(std::stol(stat[1])) : -1;
}

// Waits for a line "grandchild <pid>" in `log_path`; -1 on timeout.
inline pid_t WaitForGrandchildPid(const std::string& log_path) {
  pid_t pid = -1;
  PollUntil([&] {
    const std::string log = ReadFile(log_path);
    const size_t at = log.find("grandchild ");
    if (at == std::string::npos || log.find('\n', at) == std::string::npos) return false;
    pid = static_cast<pid_t>(std::stol(log.substr(at + 11)));
    return true;
  });
  return pid;
}

}  // namespace eb::testing
