#pragma once

// The production ProcessLauncher (STYLE.md rule 13): posix_spawn with an
// explicit argv/env, a pidfd taken right after the spawn, and one reaper
// thread that waits on every pidfd with epoll and reaps through
// waitid(P_PIDFD). The same thread also reaps orphans re-parented to this
// process when it is a child subreaper (see Subreaper::Enable).

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/process/process_launcher.h"

namespace eb::common {

// Once a launcher exists it is the process's only reaper: besides its own
// children it reaps every child of the process that no launcher tracks
// (orphans handed over by PR_SET_CHILD_SUBREAPER). So nothing else in the
// process may spawn and wait for children of its own (no system(), popen(),
// waitpid()). Several launchers in one process are safe: they share the set
// of tracked pids and never reap each other's children.
class PosixProcessLauncher final : public ProcessLauncher {
 public:
  // Creates the epoll set and the wake-up eventfd, and starts the reaper
  // thread. INTERNAL when a kernel resource cannot be created (the message
  // carries errno).
  static absl::StatusOr<std::unique_ptr<PosixProcessLauncher>> Create();

  // Stops and joins the reaper thread. Children still running are left
  // alone (they are not signalled) and their ExitCallbacks never run, so the
  // owner must stop its children and wait for their exits first. Must not be
  // called from an ExitCallback (that runs on the reaper thread).
  ~PosixProcessLauncher() override;

  PosixProcessLauncher(const PosixProcessLauncher&) = delete;
  PosixProcessLauncher& operator=(const PosixProcessLauncher&) = delete;

  // See ProcessLauncher::Spawn. In detail: stdin is /dev/null; stdout and
  // stderr go to spec.log_fd, or else spec.log_path, opened
  // O_APPEND|O_CREAT|O_NOFOLLOW with mode 0600 (its directory must exist:
  // NOT_FOUND otherwise, PERMISSION_DENIED when it cannot be written, both
  // naming the path); every fd above 2 is closed;
  // the signal mask is empty and SIGTERM, SIGINT, SIGPIPE, SIGCHLD and
  // SIGHUP have their default action. Spawn failures map ENOENT to
  // NOT_FOUND, EACCES to PERMISSION_DENIED and anything else to INTERNAL.
  // INTERNAL too when pidfd_open fails (the child is then killed and
  // reaped). `on_exit` runs exactly once on the reaper thread, unless the
  // launcher is destroyed first. Thread-safe; never blocks on children.
  absl::StatusOr<ChildHandle> Spawn(const ProcessSpec& spec, ExitCallback on_exit) override;

  // See ProcessLauncher::SignalGroup: kill(-pid, signal) while the child is
  // not reaped, falling back to pidfd_send_signal on the leader when the
  // group is gone. OK (nothing sent) once the child has been reaped.
  // NOT_FOUND for a handle this launcher never returned, INVALID_ARGUMENT
  // for a bad signal number, PERMISSION_DENIED / INTERNAL when the kernel
  // refuses. Thread-safe; holds the lock the reaper takes to reap, so the
  // pid cannot be reaped (and reused) while it is being signalled.
  absl::Status SignalGroup(const ChildHandle& child, int signal) override;

 private:
  struct Child {
    pid_t pid = 0;
    int pidfd = -1;
    ExitCallback on_exit;
  };

  PosixProcessLauncher(int epoll_fd, int wake_fd);

  // Adds a child just spawned (SpawnWithPidfd) to children_ and to the
  // epoll set, and wakes the reaper. INTERNAL when epoll refuses the pidfd
  // (the child is then killed, reaped and untracked).
  absl::StatusOr<ChildHandle> Track(const std::string& executable, pid_t pid, int pidfd,
                                    ExitCallback on_exit);
  // Ends the reaper's epoll_wait at once (the wake-up eventfd).
  void WakeReaper();

  void ReaperLoop();
  // Reaps child `id` if its pidfd says it exited, then runs its callback.
  void ReapTracked(uint64_t id);

  const int epoll_fd_;
  const int wake_fd_;
  absl::Mutex mu_;
  // Children spawned and not yet reaped, by handle id. Reaped children are
  // erased; ids below next_id_ that are absent here have been reaped.
  absl::flat_hash_map<uint64_t, Child> children_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread reaper_;
};

}  // namespace eb::common
