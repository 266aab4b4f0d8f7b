#pragma once

// Shutdown signals (SIGTERM, SIGINT, SIGHUP) are a request to stop, not a
// crash (STYLE.md rule 5): they are blocked in every thread and read from a
// signalfd by ordinary code, never handled in a signal handler. The failure
// handler (common/logging) is left with the real crash signals only.

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace eb::common {

// Blocks SIGTERM, SIGINT and SIGHUP for this thread and the threads it
// creates later; SIGPIPE is ignored (writes to closed sockets return EPIPE).
// Call first thing in main, before any thread exists: a thread created
// earlier keeps them unblocked and would take the default action (die).
void BlockShutdownSignals();

// Waits, on the calling thread, until one of the blocked signals arrives
// (read from a signalfd) and returns its number. Requires
// BlockShutdownSignals() first.
int WaitForShutdownSignal();

// Reads the blocked shutdown signals on a thread of its own and calls
// `on_signal(signal_number)` there, in ordinary code (it may log, lock and
// exit), once per signal until destroyed. For a process whose main thread
// is busy (eb-worker inside a collective). Requires BlockShutdownSignals()
// first. The destructor stops and joins the thread; `on_signal` must not
// destroy the watcher.
class ShutdownSignalWatcher {
 public:
  explicit ShutdownSignalWatcher(std::function<void(int signal_number)> on_signal);
  ~ShutdownSignalWatcher();

  ShutdownSignalWatcher(const ShutdownSignalWatcher&) = delete;
  ShutdownSignalWatcher& operator=(const ShutdownSignalWatcher&) = delete;

 private:
  void Run();

  std::function<void(int)> on_signal_;
  int signal_fd_ = -1;
  // Written by the destructor to wake the thread.
  int wake_fd_ = -1;
  std::thread thread_;
};

// While it lives, a shutdown signal ends the process at once: a daemon
// blocks the shutdown signals first thing in main (above), but nothing reads
// them until its server runs, so without this a daemon stuck in its start
// (a config on a hung file system, a worker probe that does not answer)
// could be stopped only with SIGKILL. On a signal it writes
// "PROGRAM: received SIGTERM while PHASE; stopping before start-up
// completed" to stderr and exits 0, the daemon's code for a requested stop
// (a stop is not a failure, issue 16; nothing was started that needs
// stopping: what was opened is the kernel's to close).
// Destroy it just before the main thread waits for the signal itself
// (WaitForShutdownSignal): a signal arriving in between stays pending and is
// read there.
class StartupStopGuard {
 public:
  explicit StartupStopGuard(std::string program);
  // What the daemon is doing now, for the message; `phase` must outlive the
  // guard (a string literal).
  void SetPhase(const char* phase) { phase_.store(phase); }

 private:
  std::string program_;
  std::atomic<const char*> phase_{"starting"};
  // Last: its thread may call back into the members above.
  ShutdownSignalWatcher watcher_;
};

}  // namespace eb::common
