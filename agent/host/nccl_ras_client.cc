#include "agent/host/nccl_ras_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"

namespace eb::agent {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Milliseconds left until `end`, at least 0.
int MillisLeft(SteadyClock::time_point end) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(end - SteadyClock::now()).count();
  return static_cast<int>(std::max<int64_t>(0, left));
}

// poll(2) on one descriptor until `events`, the end, or an error; true when
// ready. EINTR is retried with the time left.
bool WaitFor(int fd, short events, SteadyClock::time_point end) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int ready = poll(&p, 1, MillisLeft(end));
    if (ready > 0) return true;
    if (ready == 0) return false;
    if (errno != EINTR) return false;
  }
}

}  // namespace

NcclRasExchange ExchangeWithNcclRas(int port, const NcclRasLimits& limits) {
  NcclRasExchange exchange;
  const SteadyClock::time_point end =
      SteadyClock::now() + std::chrono::milliseconds(absl::ToInt64Milliseconds(limits.deadline));
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    exchange.connect_error = absl::StrCat("socket: ", strerror(errno));
    return exchange;
  }
  absl::Cleanup close_fd = [fd] { close(fd); };
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    if (errno != EINPROGRESS) {
      exchange.connect_error = strerror(errno);
      return exchange;
    }
    if (!WaitFor(fd, POLLOUT, end)) {
      exchange.connect_error = "no connection within the deadline";
      exchange.timed_out = true;
      return exchange;
    }
    int error = 0;
    socklen_t length = sizeof(error);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
    if (error != 0) {
      exchange.connect_error = strerror(error);
      return exchange;
    }
  }
  const std::string request = NcclRasRequest(limits);
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!WaitFor(fd, POLLOUT, end)) {
        exchange.timed_out = true;
        return exchange;
      }
    } else {
      // The peer went away: what it sent before is still read below.
      break;
    }
  }
  const size_t max_bytes = limits.max_text_bytes + kNcclRasReadSlack;
  char buffer[4096];
  while (exchange.received.size() < max_bytes) {
    if (!WaitFor(fd, POLLIN, end)) {
      exchange.timed_out = MillisLeft(end) == 0;
      return exchange;
    }
    const size_t want = std::min(sizeof(buffer), max_bytes - exchange.received.size());
    const ssize_t n = recv(fd, buffer, want, 0);
    if (n > 0) {
      exchange.received.append(buffer, static_cast<size_t>(n));
    } else if (n == 0) {
      exchange.closed = true;
      return exchange;
    } else if (errno != EAGAIN && errno != EINTR) {
      // A reset after the reply counts as its end.
      exchange.closed = true;
      return exchange;
    }
  }
  exchange.cut = true;
  return exchange;
}

NcclRasClient::~NcclRasClient() {
  std::vector<Running> running;
  {
    absl::MutexLock lock(&mu_);
    running.swap(running_);
  }
  for (Running& query : running) query.thread.join();
}

void NcclRasClient::Query(int port, std::function<void(NcclRasExchange)> done) {
  absl::MutexLock lock(&mu_);
  // Threads that finished are joined here (at once: they have ended), so
  // the list holds only the queries in flight and the last ones done.
  std::erase_if(running_, [](Running& query) {
    if (!query.finished->load()) return false;
    query.thread.join();
    return true;
  });
  auto finished = std::make_shared<std::atomic<bool>>(false);
  std::thread thread([port, limits = limits_, done = std::move(done), finished] {
    done(ExchangeWithNcclRas(port, limits));
    finished->store(true);
  });
  running_.push_back(Running{std::move(thread), std::move(finished)});
}

}  // namespace eb::agent
