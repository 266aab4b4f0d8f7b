#pragma once

// A ProcessLauncher that starts nothing (STYLE.md section 6): it records each
// Spawn's ProcessSpec and each SignalGroup call, hands out pids above
// PID_MAX_LIMIT (so a stray kill() can never reach a real process), fails
// the next Spawn on request, and lets the test decide when and how a child
// exits. Single-threaded: use it from the test thread (e.g. with a
// ManualExecutor); it starts no threads and takes no locks.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/process/process_launcher.h"

namespace eb::testing {

class FakeProcessLauncher final : public common::ProcessLauncher {
 public:
  // Linux's PID_MAX_LIMIT (1 << 22); real pids are always below it.
  static constexpr pid_t kPidMaxLimit = 4194304;
  static constexpr pid_t kFirstPid = kPidMaxLimit + 1000;

  struct SignalCall {
    common::ChildHandle child;
    int signal = 0;
  };

  // Records `spec` (even when failing). Fails with the status given to
  // FailNextSpawn, once; else returns a handle with a fresh id and fake pid
  // and keeps `on_exit` for Exit().
  absl::StatusOr<common::ChildHandle> Spawn(const common::ProcessSpec& spec,
                                            common::ExitCallback on_exit) override {
    specs_.push_back(spec);
    if (next_spawn_error_.has_value()) {
      absl::Status error = std::move(*next_spawn_error_);
      next_spawn_error_.reset();
      return error;
    }
    const common::ChildHandle handle{next_id_++, next_pid_++};
    children_[handle.id] = Child{handle, std::move(on_exit), true};
    return handle;
  }

  // Records the call. OK for running and exited children (like the real
  // launcher after reaping); NOT_FOUND for an id never handed out.
  absl::Status SignalGroup(const common::ChildHandle& child, int signal) override {
    signals_.push_back(SignalCall{child, signal});
    if (children_.find(child.id) == children_.end()) {
      return absl::NotFoundError(absl::StrCat("unknown child ", child.id));
    }
    return absl::OkStatus();
  }

  // The next Spawn fails with `status` (which must not be OK).
  void FailNextSpawn(absl::Status status) { next_spawn_error_ = std::move(status); }

  // Makes a running child exit: runs its ExitCallback synchronously with
  // `info` (info.pid is filled in). NOT_FOUND for an unknown child,
  // FAILED_PRECONDITION when it has already exited.
  absl::Status Exit(const common::ChildHandle& child, common::ExitInfo info) {
    auto it = children_.find(child.id);
    if (it == children_.end()) return absl::NotFoundError(absl::StrCat("unknown child ", child.id));
    if (!it->second.running) {
      return absl::FailedPreconditionError(absl::StrCat("child ", child.id, " already exited"));
    }
    it->second.running = false;
    info.pid = it->second.handle.pid;
    // Moved out first: the callback may Spawn, which changes children_.
    common::ExitCallback on_exit = std::move(it->second.on_exit);
    if (on_exit) on_exit(info);
    return absl::OkStatus();
  }
  // Same as Exit, for the child with fake pid `pid`.
  absl::Status ExitPid(pid_t pid, common::ExitInfo info) {
    for (const auto& [id, child] : children_) {
      if (child.handle.pid == pid) return Exit(child.handle, info);
    }
    return absl::NotFoundError(absl::StrCat("unknown pid ", pid));
  }

  // ExitInfo for a normal exit with `code`, and for death by `signal`.
  static common::ExitInfo Code(int code) {
    common::ExitInfo info;
    info.exit_code = code;
    return info;
  }
  static common::ExitInfo Signaled(int signal) {
    common::ExitInfo info;
    info.signal = signal;
    return info;
  }

  // Every ProcessSpec passed to Spawn, in order, failed spawns included.
  const std::vector<common::ProcessSpec>& specs() const { return specs_; }
  // Every SignalGroup call, in order.
  const std::vector<SignalCall>& signals() const { return signals_; }
  // Handles of the children that have not exited, in spawn order.
  std::vector<common::ChildHandle> Running() const {
    std::vector<common::ChildHandle> running;
    for (const auto& [id, child] : children_) {
      if (child.running) running.push_back(child.handle);
    }
    return running;
  }
  bool IsRunning(const common::ChildHandle& child) const {
    auto it = children_.find(child.id);
    return it != children_.end() && it->second.running;
  }

 private:
  struct Child {
    common::ChildHandle handle;
    common::ExitCallback on_exit;
    bool running = false;
  };

  std::vector<common::ProcessSpec> specs_;
  std::vector<SignalCall> signals_;
  std::optional<absl::Status> next_spawn_error_;
  std::map<uint64_t, Child> children_;  // Ordered by id: spawn order.
  uint64_t next_id_ = 1;
  pid_t next_pid_ = kFirstPid;
};

}  // namespace eb::testing
