// A scripted child for the process-layer tests. Usage: eb_process_test_child MODE [ARG]
//   exit N                  exit with code N
//   sleep MS                sleep, then exit 0
//   echo TEXT               write "TEXT-out" to stdout and "TEXT-err" to stderr
//   ignore-sigterm          ignore SIGTERM, print "ready", sleep 60 s
//   print-env               print "ARG <a>" per argv entry and "ENV <e>" per variable
//   check-fds               exit 1 if any fd above 2 is open, 2 if stdin is not /dev/null
//   spawn-grandchild [MS]   fork a child sleeping MS (default 60000) in a new process
//                           group, print "grandchild <pid>", exit 0 at once (it is orphaned)
//   group-grandchild        fork a child that sleeps 60 s in our process group, print
//                           "grandchild <pid>", wait for it
//   die-with-parent PPID    DieWithParent(PPID, SIGTERM): print "ok" and exit 0, or
//                           print the error and exit 7
//   orphan-pdeathsig        fork a child that calls DieWithParent(us, SIGKILL) and
//                           sleeps 60 s; once it is armed print "grandchild <pid>", exit 0

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "common/process/parent_death.h"

extern char** environ;

namespace {

void SleepMs(long ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

int CheckFds() {
  char stdin_target[256] = {};
  if (readlink("/proc/self/fd/0", stdin_target, sizeof(stdin_target) - 1) < 0 ||
      std::strcmp(stdin_target, "/dev/null") != 0) {
    std::fprintf(stderr, "stdin is %s\n", stdin_target);
    return 2;
  }
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return 3;
  int leaked = 0;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const int fd = std::atoi(entry->d_name);
    if (fd <= 2 || fd == dirfd(dir)) continue;
    char target[256] = {};
    if (readlink((std::string("/proc/self/fd/") + entry->d_name).c_str(), target,
                 sizeof(target) - 1) < 0) {
      target[0] = '?';  // gone meanwhile: the fd number is what matters
    }
    std::fprintf(stderr, "leaked fd %d -> %s\n", fd, target);
    ++leaked;
  }
  closedir(dir);
  return leaked == 0 ? 0 : 1;
}

int SpawnGrandchild(long sleep_ms, bool own_group) {
  const pid_t pid = fork();
  if (pid < 0) return 10;
  if (pid == 0) {
    // Its own group, so the test can kill it without racing its parent.
    if (own_group) setpgid(0, 0);
    SleepMs(sleep_ms);
    _exit(0);
  }
  std::printf("grandchild %d\n", pid);
  std::fflush(stdout);
  if (own_group) return 0;  // Orphans it.
  waitpid(pid, nullptr, 0);
  return 0;
}

int OrphanPdeathsig() {
  const pid_t parent = getpid();
  int armed[2];
  if (pipe(armed) != 0) return 10;
  const pid_t pid = fork();
  if (pid < 0) return 10;
  if (pid == 0) {
    close(armed[0]);
    if (!eb::common::DieWithParent(parent, SIGKILL).ok()) _exit(7);
    if (write(armed[1], "x", 1) != 1) _exit(8);
    SleepMs(60000);
    _exit(0);
  }
  close(armed[1]);
  char byte = 0;
  if (read(armed[0], &byte, 1) != 1) return 11;
  std::printf("grandchild %d\n", pid);
  std::fflush(stdout);
  return 0;  // The grandchild gets SIGKILL now.
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODE [ARG]\n", argv[0]);
    return 64;
  }
  const std::string mode = argv[1];
  const char* arg = argc > 2 ? argv[2] : nullptr;
  if (mode == "exit" && arg) return std::atoi(arg);
  if (mode == "sleep" && arg) {
    SleepMs(std::atol(arg));
    return 0;
  }
  if (mode == "echo" && arg) {
    std::printf("%s-out\n", arg);
    std::fflush(stdout);
    std::fprintf(stderr, "%s-err\n", arg);
    return 0;
  }
  if (mode == "ignore-sigterm") {
    signal(SIGTERM, SIG_IGN);
    std::printf("ready\n");
    std::fflush(stdout);
    SleepMs(60000);
    return 0;
  }
  if (mode == "print-env") {
    for (int i = 0; i < argc; ++i) std::printf("ARG %s\n", argv[i]);
    for (char** env = environ; *env != nullptr; ++env) std::printf("ENV %s\n", *env);
    return 0;
  }
  if (mode == "check-fds") return CheckFds();
  if (mode == "spawn-grandchild") return SpawnGrandchild(arg ? std::atol(arg) : 60000, true);
  if (mode == "group-grandchild") return SpawnGrandchild(60000, false);
  if (mode == "die-with-parent" && arg) {
    const absl::Status status = eb::common::DieWithParent(std::atoi(arg), SIGTERM);
    std::printf("%s\n", status.ok() ? "ok" : status.ToString().c_str());
    return status.ok() ? 0 : 7;
  }
  if (mode == "orphan-pdeathsig") return OrphanPdeathsig();
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 64;
}
