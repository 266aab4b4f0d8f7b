#pragma once

// Serves a MetricsRegistry over HTTP for Prometheus: GET /metrics answers
// 200 with the text exposition format; every other path answers 404. Built
// on cpp-httplib (Debian's libcpp-httplib), hidden behind this header.
//
// The server runs on its own threads (one acceptor, a small pool for
// requests); it never touches daemon state except through the optional
// refresh hook, which the daemon points at its own executor (see
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
  // Called on a request thread before each scrape is rendered, e.g. to
  // refresh gauges computed from executor-owned state. May be null. Must
  // return within a bounded time (RefreshOnExecutor waits with a timeout).
  std::function<void()> refresh;
  // Request threads (scrapes are rare and cheap).
  int threads = 2;
  // Per-connection read/write timeout.
  absl::Duration io_timeout = absl::Seconds(5);
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
  // Stops accepting, finishes requests in flight (bounded by io_timeout
  // plus the refresh hook), joins the threads. Idempotent. Call from any
  // thread except a request thread.
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
