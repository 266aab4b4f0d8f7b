#pragma once

// The WorkerControl server on a Unix socket in the run directory, open only
// while this node has workers to serve.
//
// Why not always open: gRPC's callback API keeps clamp(cores / 2, 2, 16)
// "nexting" threads, each waking every second, for as long as any callback
// server or channel that used it exists. Those wake-ups were the largest
// part of an idle agent's CPU (issue 15). Closed, the agent wakes for its
// heartbeats only, and no socket accepts anything between tests.
//
// Each opening gets a new socket path (agent-<n>.sock): gRPC unlinks a Unix
// socket when its server shuts down, and a closing server may still be
// draining on its own thread when the next test opens a new one.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/core/worker_supervisor.h"
#include "common/exec/executor.h"
#include "common/rpc/server.h"
#include "common/rpc/tls.h"

namespace eb::agent {

class WorkerControlService;

class WorkerEndpoint {
 public:
  struct Options {
    // Where the sockets go; it exists.
    std::string run_dir;
    // The coordinator, for the relayed rendezvous calls (a channel per
    // opening, so that closing releases gRPC's callback threads).
    std::string coordinator_address;
    common::TlsFiles coordinator_tls;
  };

  // `executor` and `supervisor` must outlive this object.
  WorkerEndpoint(Options options, common::Executor& executor, WorkerSupervisor& supervisor);
  // Closes (grace zero) and waits for every close. Not on the executor's
  // thread while calls may be in flight (they finish there).
  ~WorkerEndpoint();

  WorkerEndpoint(const WorkerEndpoint&) = delete;
  WorkerEndpoint& operator=(const WorkerEndpoint&) = delete;

  // Removes sockets of earlier agents (agent*.sock) from the run directory.
  // Once, before the first Open.
  void RemoveStaleSockets() const;

  // Returns the gRPC target of the open server, opening one first when none
  // is. UNAVAILABLE (naming the socket) when it cannot listen. Executor
  // thread.
  absl::StatusOr<std::string> Open();
  // Executor thread.
  bool is_open() const { return open_ != nullptr; }
  // Starts closing the open server, if any, on a thread of its own: relayed
  // calls are cancelled, new calls refused, calls in flight get `grace`.
  // Returns at once. Executor thread.
  void Close(absl::Duration grace);
  // Waits until every close started so far has ended. Not on the executor's
  // thread (calls in flight finish there), and only once the executor will
  // call Open and Close no more (the agent's shutdown makes sure of that).
  void WaitClosed();

 private:
  struct Served;
  struct Closing {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  // Joins the closes that have ended (executor thread).
  void ReapClosings();

  const Options options_;
  common::Executor& executor_;
  WorkerSupervisor& supervisor_;
  uint64_t openings_ = 0;          // executor thread
  std::unique_ptr<Served> open_;   // executor thread
  std::vector<Closing> closings_;  // executor thread, then WaitClosed's
};

}  // namespace eb::agent
