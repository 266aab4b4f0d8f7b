#include "common/metrics/metrics_http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <list>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/metrics/http_request_head.h"
#include "common/net/address.h"
#include "spdlog/spdlog.h"

namespace eb::common {

namespace {

// Content type of the text exposition format 0.0.4.
constexpr char kContentType[] = "text/plain; version=0.0.4; charset=utf-8";
// After the answer, what the peer still sends is read and dropped (so that
// closing does not reset the connection before the answer arrives), for at
// most this long and this much.
constexpr absl::Duration kDrainTime = absl::Seconds(1);
constexpr size_t kMaxDrainBytes = 64 * 1024;

struct Answer {
  int status = 200;
  std::string content_type = "text/plain";
  std::string allow;  // for 405
  std::string body;
};

std::string StatusText(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Internal Server Error";
  }
}

std::string Serialize(const Answer& answer, bool head_only) {
  std::string out =
      absl::StrCat("HTTP/1.1 ", answer.status, " ", StatusText(answer.status),
                   "\r\nContent-Type: ", answer.content_type,
                   "\r\nContent-Length: ", answer.body.size(), "\r\nConnection: close\r\n");
  if (!answer.allow.empty()) absl::StrAppend(&out, "Allow: ", answer.allow, "\r\n");
  absl::StrAppend(&out, "\r\n");
  if (!head_only) absl::StrAppend(&out, answer.body);
  return out;
}

}  // namespace

// The server thread's own types (named: Impl's members use them).
namespace metrics_http_internal {

// A file descriptor closed with its owner.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// One client: it reads the request head, then writes the whole answer,
// then drains; each phase against one deadline for the whole phase (not
// per read: a peer that sends a byte every second gets no more time).
struct Connection {
  enum class Phase { kReading, kWriting, kDraining };
  Fd fd;
  Phase phase = Phase::kReading;
  absl::Time accepted;
  absl::Time deadline;
  std::string received;
  std::string answer;
  size_t written = 0;
  size_t drained = 0;
};

}  // namespace metrics_http_internal

using metrics_http_internal::Connection;
using metrics_http_internal::Fd;

class MetricsHttpServer::Impl {
 public:
  Impl(const MetricsRegistry& registry, MetricsHttpServerOptions options)
      : registry_(registry), options_(std::move(options)) {}

  ~Impl() { Stop(); }

  // Binds and listens here (a port in use is the caller's error), then
  // serves on a thread of its own.
  absl::StatusOr<int> Start(const HostPort& address) {
    absl::StatusOr<Fd> listener = Listen(address);
    if (!listener.ok()) return listener.status();
    listener_ = *std::move(listener);
    wake_ = Fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (wake_.get() < 0) {
      return absl::UnavailableError(absl::StrCat("metrics: eventfd: ", std::strerror(errno)));
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof(bound);
    if (::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
      return absl::UnavailableError(absl::StrCat("metrics: getsockname: ", std::strerror(errno)));
    }
    const int port = bound.ss_family == AF_INET6
                         ? ntohs(reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port)
                         : ntohs(reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
    thread_ = std::thread([this] { Serve(); });
    pthread_setname_np(thread_.native_handle(), "eb-metrics-http");
    return port;
  }

  void Stop() {
    if (stopped_.exchange(true)) return;
    if (wake_.get() >= 0) {
      const uint64_t one = 1;
      [[maybe_unused]] ssize_t n = ::write(wake_.get(), &one, sizeof(one));
    }
    if (thread_.joinable()) thread_.join();
    connections_.clear();
    listener_.Reset();
  }

 private:
  absl::StatusOr<Fd> Listen(const HostPort& address) const {
    const std::string where = address.ToString();
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(address.port);
    if (::getaddrinfo(address.host.empty() ? nullptr : address.host.c_str(), port.c_str(), &hints,
                      &found) != 0) {
      return absl::UnavailableError(
          absl::StrCat("metrics: cannot listen on ", where, " (no such address)"));
    }
    std::string why = "no address";
    for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
      Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
      if (fd.get() < 0) continue;
      // Rebind after a restart despite TIME_WAIT; not SO_REUSEPORT, which
      // would let a second daemon bind the port and split the scrapes.
      const int yes = 1;
      ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
      if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd.get(), SOMAXCONN) == 0) {
        ::freeaddrinfo(found);
        return fd;
      }
      why = std::strerror(errno);
    }
    ::freeaddrinfo(found);
    return absl::UnavailableError(absl::StrCat("metrics: cannot listen on ", where, " (", why,
                                               ": address in use or not local)"));
  }

  void Serve() {
    // No SIGPIPE from a scraper that hangs up (MSG_NOSIGNAL below too).
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    std::vector<pollfd> polled;
    while (true) {
      const absl::Time now = absl::Now();
      ExpireDeadlines(now);
      polled.clear();
      polled.push_back({wake_.get(), POLLIN, 0});
      polled.push_back({listener_.get(), POLLIN, 0});
      absl::Time next = now + absl::Seconds(1);
      for (const Connection& c : connections_) {
        polled.push_back(
            {c.fd.get(),
             static_cast<short>(c.phase == Connection::Phase::kWriting ? POLLOUT : POLLIN), 0});
        next = std::min(next, c.deadline);
      }
      const int wait_ms =
          static_cast<int>(std::clamp<int64_t>(absl::ToInt64Milliseconds(next - now) + 1, 0, 1000));
      if (::poll(polled.data(), polled.size(), wait_ms) < 0 && errno != EINTR) {
        spdlog::warn("metrics: poll failed: {}", std::strerror(errno));
        return;
      }
      if (polled[0].revents != 0) return;  // Stop()
      // The connections first (their pollfds are in list order), then the
      // new ones, so that indices stay valid.
      size_t index = 2;
      for (auto it = connections_.begin(); it != connections_.end(); ++index) {
        const short events = polled[index].revents;
        it = events == 0 ? std::next(it) : Advance(it, events);
      }
      if ((polled[1].revents & POLLIN) != 0) AcceptAll();
    }
  }

  void AcceptAll() {
    while (true) {
      Fd fd(::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
      if (fd.get() < 0) return;  // EAGAIN: none left (or a transient error)
      if (connections_.size() >= static_cast<size_t>(std::max(1, options_.max_connections))) {
        EvictOldestReader();
      }
      Connection c;
      c.fd = std::move(fd);
      c.accepted = absl::Now();
      c.deadline = c.accepted + options_.io_timeout;
      connections_.push_back(std::move(c));
    }
  }

  // At the cap, the connection that has waited longest without sending its
  // request goes: idle connections cannot lock a scraper out, however many
  // there are (a scraper sends its request as soon as it connects).
  void EvictOldestReader() {
    auto oldest = connections_.end();
    for (auto it = connections_.begin(); it != connections_.end(); ++it) {
      if (it->phase != Connection::Phase::kReading) continue;
      if (oldest == connections_.end() || it->accepted < oldest->accepted) oldest = it;
    }
    if (oldest == connections_.end()) oldest = connections_.begin();
    connections_.erase(oldest);
  }

  void ExpireDeadlines(absl::Time now) {
    connections_.remove_if([now](const Connection& c) { return now >= c.deadline; });
  }

  using Iterator = std::list<Connection>::iterator;

  // Moves one connection on; returns the next one.
  Iterator Advance(Iterator it, short events) {
    Connection& c = *it;
    if (c.phase == Connection::Phase::kWriting) {
      if ((events & (POLLERR | POLLHUP)) != 0 && (events & POLLOUT) == 0) {
        return connections_.erase(it);
      }
      const ssize_t sent = ::send(c.fd.get(), c.answer.data() + c.written,
                                  c.answer.size() - c.written, MSG_NOSIGNAL);
      if (sent < 0) {
        return errno == EAGAIN || errno == EINTR ? std::next(it) : connections_.erase(it);
      }
      c.written += static_cast<size_t>(sent);
      if (c.written < c.answer.size()) return std::next(it);
      ::shutdown(c.fd.get(), SHUT_WR);
      c.phase = Connection::Phase::kDraining;
      c.deadline = absl::Now() + kDrainTime;
      return std::next(it);
    }
    char buffer[4096];
    const ssize_t got = ::recv(c.fd.get(), buffer, sizeof(buffer), 0);
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) return connections_.erase(it);
    if (got < 0) return std::next(it);
    if (c.phase == Connection::Phase::kDraining) {
      c.drained += static_cast<size_t>(got);
      return c.drained > kMaxDrainBytes ? connections_.erase(it) : std::next(it);
    }
    c.received.append(buffer, static_cast<size_t>(got));
    const HttpRequestHead head = ParseHttpRequestHead(c.received);
    if (head.progress == HttpRequestHead::Progress::kIncomplete) return std::next(it);
    c.answer = head.progress == HttpRequestHead::Progress::kBad
                   ? Serialize({head.status, "text/plain", "", head.reason + "\n"}, false)
                   : Serialize(SafeRoute(head), head.method == "HEAD");
    c.received.clear();
    c.received.shrink_to_fit();
    c.phase = Connection::Phase::kWriting;
    c.deadline = absl::Now() + options_.io_timeout;
    return std::next(it);
  }

  // No exception may leave the server's thread (STYLE.md rule 1): the
  // refresh hook and the registry are the daemon's code.
  Answer SafeRoute(const HttpRequestHead& head) {
    try {
      return Route(head);
    } catch (const std::exception& e) {
      spdlog::warn("metrics: a scrape failed: {}", e.what());
    } catch (...) {
      spdlog::warn("metrics: a scrape failed");
    }
    return {500, "text/plain", "", "internal error\n"};
  }

  Answer Route(const HttpRequestHead& head) {
    if (head.path != "/metrics") return {404, "text/plain", "", "not found; try /metrics\n"};
    // A scrape is a GET; anything else on /metrics is a client mistake
    // worth naming (405 with Allow, as RFC 9110 asks).
    if (head.method != "GET" && head.method != "HEAD") {
      return {405, "text/plain", "GET, HEAD", "method not allowed; GET /metrics\n"};
    }
    if (options_.refresh) options_.refresh();
    return {200, kContentType, "", registry_.Render()};
  }

  const MetricsRegistry& registry_;
  const MetricsHttpServerOptions options_;
  Fd listener_;
  Fd wake_;
  std::list<Connection> connections_;  // the server thread's only
  std::thread thread_;
  std::atomic<bool> stopped_{false};
};

MetricsHttpServer::MetricsHttpServer(std::unique_ptr<Impl> impl, int port)
    : impl_(std::move(impl)), port_(port) {}

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const MetricsRegistry& registry, MetricsHttpServerOptions options) {
  absl::StatusOr<HostPort> address =
      ParseHostPort(options.listen_address, 0, "metrics listen address", true);
  if (!address.ok()) return address.status();
  if (options.io_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("metrics: io_timeout must be positive");
  }
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
