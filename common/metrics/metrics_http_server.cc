#include "common/metrics/metrics_http_server.h"

#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

#include <httplib.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/net/address.h"
#include "spdlog/spdlog.h"

namespace eb::common {

namespace {

// Content type of the text exposition format 0.0.4.
constexpr char kContentType[] = "text/plain; version=0.0.4; charset=utf-8";
constexpr absl::Duration kStartTimeout = absl::Seconds(5);

std::chrono::microseconds ToChrono(absl::Duration d) {
  return std::chrono::microseconds(absl::ToInt64Microseconds(d));
}

}  // namespace

class MetricsHttpServer::Impl {
 public:
  Impl(const MetricsRegistry& registry, MetricsHttpServerOptions options)
      : registry_(registry), options_(std::move(options)) {
    const int threads = options_.threads > 0 ? options_.threads : 1;
    server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server_.set_read_timeout(ToChrono(options_.io_timeout));
    server_.set_write_timeout(ToChrono(options_.io_timeout));
    server_.set_keep_alive_timeout(absl::ToInt64Seconds(options_.io_timeout));
    server_.set_payload_max_length(64 * 1024);
    // httplib's default sets SO_REUSEPORT, which lets a second daemon bind
    // the same port and silently split the scrapes between the two. Only
    // SO_REUSEADDR (rebind after a restart despite TIME_WAIT): a port in use
    // is an error.
    server_.set_socket_options([](int sock) {
      const int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
      if (options_.refresh) options_.refresh();
      response.set_content(registry_.Render(), kContentType);
    });
    // A scrape is a GET; anything else on /metrics is a client mistake
    // worth naming (405 with Allow, as RFC 9110 asks).
    auto method_not_allowed = [](const httplib::Request&, httplib::Response& response) {
      response.status = 405;
      response.set_header("Allow", "GET, HEAD");
      response.set_content("method not allowed; GET /metrics\n", "text/plain");
    };
    server_.Post("/metrics", method_not_allowed);
    server_.Put("/metrics", method_not_allowed);
    server_.Patch("/metrics", method_not_allowed);
    server_.Delete("/metrics", method_not_allowed);
    // httplib answers unknown paths with 404 itself; this gives them a body.
    server_.set_error_handler([](const httplib::Request&, httplib::Response& response) {
      if (response.status == 404) response.set_content("not found; try /metrics\n", "text/plain");
    });
    server_.set_exception_handler(
        [](const httplib::Request&, httplib::Response& response, const std::exception_ptr&) {
          // No exception may escape into httplib's threads (STYLE.md rule 1).
          response.status = 500;
          response.set_content("internal error\n", "text/plain");
        });
  }

  // Binds, starts the acceptor thread and waits until it is accepting.
  absl::StatusOr<int> Start(const HostPort& address) {
    int port = 0;
    if (address.port == 0) {
      port = server_.bind_to_any_port(address.host);
    } else if (server_.bind_to_port(address.host, address.port)) {
      port = address.port;
    } else {
      port = -1;
    }
    if (port <= 0) {
      return absl::UnavailableError(absl::StrCat("metrics: cannot listen on ", address.ToString(),
                                                 " (address in use or not local)"));
    }
    thread_ = std::thread([this] {
      // cpp-httplib sends without MSG_NOSIGNAL: a scraper that hangs up
      // mid-response would raise SIGPIPE. Block it on the acceptor thread;
      // the request pool, created from this thread, inherits the mask (the
      // daemons also ignore SIGPIPE process-wide).
      sigset_t pipe;
      sigemptyset(&pipe);
      sigaddset(&pipe, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
      if (!server_.listen_after_bind()) {
        spdlog::warn("metrics: the HTTP server stopped with an error");
      }
      listen_returned_ = true;
    });
    pthread_setname_np(thread_.native_handle(), "eb-metrics-http");
    // httplib's stop() is a no-op until listen has begun (it would then
    // run forever), so do not return before it has.
    const absl::Time deadline = absl::Now() + kStartTimeout;
    while (!server_.is_running()) {
      if (listen_returned_ || absl::Now() > deadline) {
        server_.stop();
        thread_.join();
        return absl::UnavailableError(
            absl::StrCat("metrics: the HTTP server on ", address.ToString(), " did not start"));
      }
      absl::SleepFor(absl::Milliseconds(1));
    }
    return port;
  }

  void Stop() {
    if (stopped_.exchange(true)) return;
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  const MetricsRegistry& registry_;
  const MetricsHttpServerOptions options_;
  httplib::Server server_;
  std::thread thread_;
  std::atomic<bool> listen_returned_{false};
  std::atomic<bool> stopped_{false};
};

MetricsHttpServer::MetricsHttpServer(std::unique_ptr<Impl> impl, int port)
    : impl_(std::move(impl)), port_(port) {}

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const MetricsRegistry& registry, MetricsHttpServerOptions options) {
  absl::StatusOr<HostPort> address =
      ParseHostPort(options.listen_address, 0, "metrics listen address", true);
  if (!address.ok()) return address.status();
  auto impl = std::make_unique<Impl>(registry, std::move(options));
  absl::StatusOr<int> port = impl->Start(*address);
  if (!port.ok()) return port.status();
  return std::unique_ptr<MetricsHttpServer>(new MetricsHttpServer(std::move(impl), *port));
}

MetricsHttpServer::~MetricsHttpServer() { Stop(); }

void MetricsHttpServer::Stop() {
  if (impl_) impl_->Stop();
}

std::function<void()> RefreshOnExecutor(Executor& executor, std::function<void()> update,
                                        absl::Duration timeout) {
  auto shared_update = std::make_shared<std::function<void()>>(std::move(update));
  return [&executor, shared_update, timeout] {
    // Shared with the posted callback, which may outlive this scrape.
    auto done = std::make_shared<absl::Notification>();
    executor.Post([shared_update, done] {
      (*shared_update)();
      done->Notify();
    });
    if (!done->WaitForNotificationWithTimeout(timeout)) {
      spdlog::warn(
          "metrics: the event loop did not refresh the metrics within {} ms; serving "
          "the previous values",
          absl::ToInt64Milliseconds(timeout));
    }
  };
}

}  // namespace eb::common
