#include "common/process/posix_process_launcher.h"

#include <fcntl.h>
#include <features.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "spdlog/spdlog.h"

namespace eb::common {
namespace {

// P_PIDFD (Linux 5.4) is an enumerator, not a macro, so it cannot be
// detected with #ifdef; older glibc headers lack it. The value is ABI.
constexpr idtype_t kPidfdIdType = static_cast<idtype_t>(3);
// epoll_event.data.u64 of the wake-up eventfd; child handle ids start at 1.
constexpr uint64_t kWakeToken = 0;
// How often the reaper looks for orphans when no pidfd fires.
constexpr int kOrphanPollMs = 200;
constexpr int kMaxEvents = 32;

std::string ErrnoText(int err) {
  char buf[256];
  return strerror_r(err, buf, sizeof(buf));  // GNU variant: returns the text.
}

absl::Status ErrnoToStatus(int err, const std::string& what) {
  std::string message = absl::StrCat(what, ": ", ErrnoText(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::InternalError(message);
  }
}

// Pids that some launcher in this process tracks, plus spawns whose pid is
// not known yet. Shared by every launcher so that none of them reaps another
// one's child as an "orphan".
class TrackedPids {
 public:
  static TrackedPids& Get() {
    static auto* tracked = new TrackedPids();  // Never destroyed: used at exit.
    return *tracked;
  }

  void BeginSpawn() {
    absl::MutexLock lock(&mu_);
    ++spawns_in_flight_;
  }
  // Ends a BeginSpawn; `pid` > 0 becomes tracked in the same critical section.
  void EndSpawn(pid_t pid) {
    absl::MutexLock lock(&mu_);
    --spawns_in_flight_;
    if (pid > 0) pids_.insert(pid);
  }
  void Remove(pid_t pid) {
    absl::MutexLock lock(&mu_);
    pids_.erase(pid);
  }

  // Reaps zombie children that no launcher tracks, one at a time.
  //
  // Why a peek first: with PR_SET_CHILD_SUBREAPER, orphaned grandchildren
  // become our children and must be reaped, but waitid(P_ALL) without
  // WNOWAIT would also consume the status of a tracked child before its
  // pidfd path sees it. So we look at the next zombie with WNOWAIT and reap
  // it by pid only if it is nobody's tracked child. A spawn in flight may
  // own a pid not in pids_ yet, so nothing is reaped then. waitid reports
  // one zombie per call, and a tracked zombie hides the ones behind it: we
  // stop there and retry after its pidfd path has reaped it.
  // Returns false when this process has no child at all (ECHILD): then
  // no orphan can appear before the next spawn.
  bool ReapOrphans() {
    while (true) {
      siginfo_t peek{};
      if (waitid(P_ALL, 0, &peek, WEXITED | WNOHANG | WNOWAIT) != 0) return errno != ECHILD;
      if (peek.si_pid == 0) return true;  // Children exist but none has exited.
      absl::MutexLock lock(&mu_);
      if (spawns_in_flight_ > 0 || pids_.contains(peek.si_pid)) return true;
      // The peeked zombie still holds its pid, so the pid cannot have been
      // reused since the peek.
      siginfo_t info{};
      if (waitid(P_PID, static_cast<id_t>(peek.si_pid), &info, WEXITED | WNOHANG) != 0) return true;
      spdlog::debug("reaped orphan pid {} (status {})", peek.si_pid, info.si_status);
    }
  }

 private:
  absl::Mutex mu_;
  absl::flat_hash_set<pid_t> pids_ ABSL_GUARDED_BY(mu_);
  int spawns_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
};

ExitInfo ExitInfoFrom(const siginfo_t& info) {
  ExitInfo exit;
  exit.pid = info.si_pid;
  if (info.si_code == CLD_EXITED) {
    exit.exit_code = info.si_status;
  } else {
    exit.signal = info.si_status;  // CLD_KILLED or CLD_DUMPED.
  }
  return exit;
}

// Kills (with its group, in case it forked already) and reaps a child we
// cannot track; only this exact pid is waited for.
void KillAndReap(pid_t pid) {
  if (kill(-pid, SIGKILL) != 0) kill(pid, SIGKILL);
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED) != 0 && errno == EINTR) {
  }
}

absl::Status FileActionsFor(const std::string& log_path, int log_fd,
                            posix_spawn_file_actions_t* actions) {
  int rc = 0;
  // stdout/stderr first: if log_fd happens to be 0, the /dev/null open on 0
  // below then replaces it only after it was duplicated.
  if (log_fd >= 0) {
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(actions, log_fd, STDOUT_FILENO);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(actions, log_fd, STDERR_FILENO);
  } else {
    rc = posix_spawn_file_actions_addopen(actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(actions, STDOUT_FILENO, STDERR_FILENO);
  }
  if (rc == 0) {
    rc = posix_spawn_file_actions_addopen(actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
#if __GLIBC_PREREQ(2, 34)
  // Our own fds are O_CLOEXEC, but a library (or a test) may have opened
  // one without it; close everything above stderr anyway.
  if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(actions, STDERR_FILENO + 1);
#endif
  if (rc != 0) return ErrnoToStatus(rc, absl::StrCat("file actions for log ", log_path));
  return absl::OkStatus();
}

absl::Status AttributesFor(posix_spawnattr_t* attr) {
  // The agent blocks SIGTERM & co. in all its threads to receive them with
  // sigwaitinfo, and a blocked mask is inherited across exec; reset it, and
  // the actions of the signals a child relies on.
  sigset_t empty;
  sigemptyset(&empty);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGTERM, SIGINT, SIGPIPE, SIGCHLD, SIGHUP}) sigaddset(&defaults, sig);
  int rc = posix_spawnattr_setflags(
      attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  if (rc == 0) rc = posix_spawnattr_setpgroup(attr, 0);  // Own group: pgid == pid.
  if (rc == 0) rc = posix_spawnattr_setsigmask(attr, &empty);
  if (rc == 0) rc = posix_spawnattr_setsigdefault(attr, &defaults);
  if (rc != 0) return ErrnoToStatus(rc, "posix_spawn attributes");
  return absl::OkStatus();
}

std::vector<char*> NullTerminated(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// spec.log_path opened for the child's stdout and stderr. 0600: worker logs
// hold NCCL's view of the fabric and are the agent's user's only
// (SECURITY_FINDINGS case 16); O_NOFOLLOW: never a link.
absl::StatusOr<int> OpenChildLog(const ProcessSpec& spec) {
  const int fd =
      open(spec.log_path.c_str(), O_CREAT | O_APPEND | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return ErrnoToStatus(errno, absl::StrCat("cannot open log file ", spec.log_path, " for ",
                                             spec.executable, " (its directory must exist)"));
  }
  return fd;
}

// A child spawned and not yet in a launcher's epoll set.
struct SpawnedChild {
  pid_t pid = 0;
  int pidfd = -1;
};

// Spawns spec.executable with stdout and stderr on `log_fd` (-1: /dev/null)
// and takes its pidfd. On success the pid is in TrackedPids; on failure no
// child is left (one whose pidfd could not be taken is killed and reaped).
absl::StatusOr<SpawnedChild> SpawnWithPidfd(const ProcessSpec& spec, int log_fd) {
  posix_spawn_file_actions_t actions;
  if (posix_spawn_file_actions_init(&actions) != 0) return absl::InternalError("file actions");
  absl::Cleanup destroy_actions = [&actions] { posix_spawn_file_actions_destroy(&actions); };
  posix_spawnattr_t attr;
  if (posix_spawnattr_init(&attr) != 0) return absl::InternalError("spawn attributes");
  absl::Cleanup destroy_attr = [&attr] { posix_spawnattr_destroy(&attr); };
  EB_RETURN_IF_ERROR(FileActionsFor(spec.log_path, log_fd, &actions));
  EB_RETURN_IF_ERROR(AttributesFor(&attr));
  std::vector<char*> argv = NullTerminated(spec.argv);
  std::vector<char*> envp = NullTerminated(spec.env);

  TrackedPids& tracked = TrackedPids::Get();
  tracked.BeginSpawn();
  pid_t pid = 0;
  // posix_spawn (not posix_spawnp): no PATH search. glibc reports exec
  // failures such as ENOENT through its return value.
  const int rc =
      posix_spawn(&pid, spec.executable.c_str(), &actions, &attr, argv.data(), envp.data());
  if (rc != 0) {
    tracked.EndSpawn(0);
    return ErrnoToStatus(rc, absl::StrCat("cannot spawn ", spec.executable));
  }
  // The pidfd pins the process identity: the pid cannot be reused while we
  // hold an unreaped child, and the pidfd cannot refer to any other process.
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));  // O_CLOEXEC implied.
  if (pidfd < 0) {
    const int err = errno;
    KillAndReap(pid);
    tracked.EndSpawn(0);
    return absl::InternalError(
        absl::StrCat("pidfd_open for ", spec.executable, " pid ", pid, ": ", ErrnoText(err)));
  }
  tracked.EndSpawn(pid);
  return SpawnedChild{pid, pidfd};
}

}  // namespace

absl::StatusOr<std::unique_ptr<PosixProcessLauncher>> PosixProcessLauncher::Create() {
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) return ErrnoToStatus(errno, "epoll_create1");
  const int wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd < 0) {
    const int err = errno;
    close(epoll_fd);
    return ErrnoToStatus(err, "eventfd");
  }
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = kWakeToken;
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &event) != 0) {
    const int err = errno;
    close(wake_fd);
    close(epoll_fd);
    return ErrnoToStatus(err, "epoll_ctl(eventfd)");
  }
  return std::unique_ptr<PosixProcessLauncher>(new PosixProcessLauncher(epoll_fd, wake_fd));
}

PosixProcessLauncher::PosixProcessLauncher(int epoll_fd, int wake_fd)
    : epoll_fd_(epoll_fd), wake_fd_(wake_fd) {
  reaper_ = std::thread([this] { ReaperLoop(); });
  pthread_setname_np(reaper_.native_handle(), "eb-reaper");
}

PosixProcessLauncher::~PosixProcessLauncher() {
  EB_CHECK(std::this_thread::get_id() != reaper_.get_id());
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  WakeReaper();
  reaper_.join();
  absl::MutexLock lock(&mu_);
  for (auto& entry : children_) {
    // Untracked from now on: another launcher (or a later one) reaps it as
    // an orphan once it exits.
    close(entry.second.pidfd);
    TrackedPids::Get().Remove(entry.second.pid);
  }
  children_.clear();
  close(wake_fd_);
  close(epoll_fd_);
}

absl::StatusOr<ChildHandle> PosixProcessLauncher::Spawn(const ProcessSpec& spec,
                                                        ExitCallback on_exit) {
  if (spec.executable.empty()) return absl::InvalidArgumentError("empty executable");
  if (spec.argv.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("empty argv for ", spec.executable));
  }
  int own_log_fd = -1;  // opened here, closed here once the child has its copy
  if (spec.log_fd < 0 && !spec.log_path.empty()) {
    EB_ASSIGN_OR_RETURN(own_log_fd, OpenChildLog(spec));
  }
  absl::Cleanup close_log = [own_log_fd] {
    if (own_log_fd >= 0) close(own_log_fd);
  };
  const int log_fd = spec.log_fd >= 0 ? spec.log_fd : own_log_fd;
  EB_ASSIGN_OR_RETURN(const SpawnedChild spawned, SpawnWithPidfd(spec, log_fd));
  return Track(spec.executable, spawned.pid, spawned.pidfd, std::move(on_exit));
}

absl::StatusOr<ChildHandle> PosixProcessLauncher::Track(const std::string& executable, pid_t pid,
                                                        int pidfd, ExitCallback on_exit) {
  absl::MutexLock lock(&mu_);
  const uint64_t id = next_id_++;
  children_[id] = Child{pid, pidfd, std::move(on_exit)};
  // Adding while the reaper sits in epoll_wait is fine: a pidfd that is
  // already readable is reported right away. It is added under the lock, so
  // the reaper finds the child in children_ when it fires.
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = id;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, pidfd, &event) != 0) {
    const int err = errno;
    children_.erase(id);
    KillAndReap(pid);
    close(pidfd);
    TrackedPids::Get().Remove(pid);
    return absl::InternalError(
        absl::StrCat("epoll_ctl for ", executable, " pid ", pid, ": ", ErrnoText(err)));
  }
  // A reaper asleep for want of children polls for orphans again from now.
  WakeReaper();
  spdlog::debug("spawned {} pid {} (child {})", executable, pid, id);
  return ChildHandle{id, pid};
}

void PosixProcessLauncher::WakeReaper() {
  const uint64_t one = 1;
  if (write(wake_fd_, &one, sizeof(one)) < 0) {
    // Cannot fail with a valid eventfd short of overflow.
  }
}

absl::Status PosixProcessLauncher::SignalGroup(const ChildHandle& child, int signal) {
  if (signal < 0 || signal >= NSIG) {
    return absl::InvalidArgumentError(absl::StrCat("bad signal number ", signal));
  }
  absl::MutexLock lock(&mu_);
  auto it = children_.find(child.id);
  if (it == children_.end()) {
    if (child.id != 0 && child.id < next_id_) return absl::OkStatus();  // Already reaped.
    return absl::NotFoundError(absl::StrCat("unknown child ", child.id, " (pid ", child.pid, ")"));
  }
  // Not reaped yet, and the reaper needs mu_ to reap: the pid (== pgid)
  // still names our child's group.
  const pid_t pid = it->second.pid;
  if (kill(-pid, signal) == 0) return absl::OkStatus();
  int err = errno;
  if (err == ESRCH) {
    // The group is gone (the leader moved itself to another group or
    // session); the pidfd still reaches the leader itself.
    if (syscall(SYS_pidfd_send_signal, it->second.pidfd, signal, nullptr, 0) == 0) {
      return absl::OkStatus();
    }
    err = errno;
    if (err == ESRCH) return absl::OkStatus();  // Exited; its reap is pending.
  }
  return ErrnoToStatus(err, absl::StrCat("signal ", signal, " to process group ", pid));
}

void PosixProcessLauncher::ReaperLoop() {
  epoll_event events[kMaxEvents];
  // Orphans (re-parented to us as a subreaper) have no pidfd here, so they
  // are polled for, but only while this process has children at all: an
  // idle agent sleeps until the next spawn's wake-up (issue 15: it woke 5
  // times a second).
  int timeout_ms = kOrphanPollMs;
  while (true) {
    const int n = epoll_wait(epoll_fd_, events, kMaxEvents, timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      spdlog::critical("reaper epoll_wait: {}", ErrnoText(errno));
      EB_CHECK(n >= 0);  // Only EBADF/EFAULT/EINVAL remain: our own bug.
    }
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == kWakeToken) {
        uint64_t count = 0;
        if (read(wake_fd_, &count, sizeof(count)) < 0) {
          // EAGAIN: already drained. Nothing else can fail here.
        }
      } else {
        ReapTracked(events[i].data.u64);
      }
    }
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
    }
    timeout_ms = TrackedPids::Get().ReapOrphans() ? kOrphanPollMs : -1;
  }
}

void PosixProcessLauncher::ReapTracked(uint64_t id) {
  ExitInfo exit;
  ExitCallback on_exit;
  {
    absl::MutexLock lock(&mu_);
    auto it = children_.find(id);
    if (it == children_.end()) return;
    Child& child = it->second;
    siginfo_t info{};
    if (waitid(kPidfdIdType, static_cast<id_t>(child.pidfd), &info, WEXITED | WNOHANG) != 0) {
      // ECHILD: something else reaped our child (a waitpid(-1) somewhere,
      // against rule 13). The status is lost, but the callback still runs once.
      spdlog::error("waitid for pid {}: {}; exit status lost", child.pid, ErrnoText(errno));
      exit.pid = child.pid;
    } else if (info.si_pid == 0) {
      // Not waitable yet (a tracer still holds the zombie). The pidfd stays
      // readable, so level-triggered epoll brings us back.
      return;
    } else {
      exit = ExitInfoFrom(info);
    }
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, child.pidfd, nullptr);
    close(child.pidfd);
    // Untracked only after the reap: until then the orphan path must not
    // touch this pid.
    TrackedPids::Get().Remove(child.pid);
    on_exit = std::move(child.on_exit);
    children_.erase(it);
  }
  spdlog::debug("child {} pid {}: {}", id, exit.pid, exit.Describe());
  if (on_exit) on_exit(exit);  // Outside the lock: it may call Spawn or SignalGroup.
}

}  // namespace eb::common
