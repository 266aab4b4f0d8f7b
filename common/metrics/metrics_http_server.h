#pragma once

// Serves a MetricsRegistry over HTTP for Prometheus: GET /metrics answers
// 200 with the text exposition format; other paths 404, other methods 405.
//
// One thread polls every connection (SECURITY.md, "Listeners"): each has
// one deadline for its whole request head and one for its whole answer, not
// a timeout per read, so a peer that trickles a byte a second is closed
// like one that sends nothing; at most `max_connections` are open, and at
// the cap the one that has waited longest without a request is closed. Idle
// or slow peers, however many, never stop a scrape from being answered. The
// answer closes the connection (no keep-alive: a scrape every 15 s gains
// nothing from it). It never touches daemon state except through the
// optional refresh hook, which the daemon points at its own executor (see
// RefreshOnExecutor).

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/exec/executor.h"
#include "common/metrics/metrics_registry.h"

namespace eb::common {

struct MetricsHttpServerOptions {
  // "host:port" to listen on; port 0 = any free port (see port()). IPv6 as
  // "[::]:29471".
  std::string listen_address;
  // Called on the server's thread before each scrape is rendered, e.g. to
  // refresh gauges computed from executor-owned state. May be null. Must
  // return within a bounded time (RefreshOnExecutor waits with a timeout).
  std::function<void()> refresh;
  // Deadline for a connection's whole request head, and again for writing
  // its whole answer.
  absl::Duration io_timeout = absl::Seconds(5);
  // Open connections at most; at the cap the oldest that has not sent its
  // request is closed for the new one.
  int max_connections = 64;
};

class MetricsHttpServer {
 public:
  // Binds `options.listen_address` and starts serving `registry`, which is
  // not owned and must outlive the server. Returns once the server accepts
  // connections. INVALID_ARGUMENT for a malformed address; UNAVAILABLE
  // when it cannot be bound (in use, no such address) or the server does
  // not come up within 5 s.
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(const MetricsRegistry& registry,
                                                                  MetricsHttpServerOptions options);
  // Stop().
  ~MetricsHttpServer();

  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  // TCP port actually bound.
  int port() const { return port_; }
  // Stops serving (a scrape being answered is finished first, bounded by
  // the refresh hook), closes every connection and the port, joins the
  // thread. Idempotent. Call from any thread except the server's (the
  // refresh hook's).
  void Stop();

 private:
  class Impl;
  MetricsHttpServer(std::unique_ptr<Impl> impl, int port);

  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

// A refresh hook that runs `update` on `executor` (the thread that owns the
// state it reads, STYLE.md rule 11) and waits up to `timeout` for it, so that
// a scrape reflects the state at scrape time. When the executor does not
// answer in time (wedged, or stopped and dropping callbacks) the scrape is
// served with the previous values; the late update may still run afterwards
// on the executor, so whatever `update` captures must live as long as the
// executor runs callbacks, and the executor must outlive the hook (stop the
// MetricsHttpServer before the executor).
std::function<void()> RefreshOnExecutor(Executor& executor, std::function<void()> update,
                                        absl::Duration timeout = absl::Seconds(1));

}  // namespace eb::common
