#pragma once

// A one-connection server on 127.0.0.1:<ephemeral port> that speaks NCCL's
// RAS client protocol as NCCL 2.28.3's src/ras/client_support.cc does:
// "SERVER PROTOCOL 2" to "CLIENT PROTOCOL <n>", "OK" to "TIMEOUT <s>",
// "ERROR: Unknown command ..." to what 2.28.3 does not know (SET FORMAT),
// and to "VERBOSE STATUS" the status text, after which it closes; every
// complete line received is handled, so pipelined commands work. It stands
// in for NCCL's RAS thread in CI, which has no GPU; it is not NCCL.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace eb::testing {

// One-connection server on 127.0.0.1:<ephemeral port>.
class FakeNcclRasServer {
 public:
  // kNccl2283: answers as NCCL 2.28.3 does; kSilent: accepts and never
  // answers (a stopped process); kFlood: answers VERBOSE STATUS with 1 MiB.
  enum class Mode { kNccl2283, kSilent, kFlood };

  FakeNcclRasServer(Mode mode, std::string status) : mode_(mode), status_(std::move(status)) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    socklen_t length = sizeof(address);
    EXPECT_EQ(getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length), 0);
    port_ = ntohs(address.sin_port);
    EXPECT_EQ(listen(listen_fd_, 4), 0);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeNcclRasServer() {
    done_.Notify();
    thread_.join();
    close(listen_fd_);
  }
  int port() const { return port_; }

 private:
  void Serve() {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0) return;
    const int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    std::string buffer;
    bool status = false;
    while (!status) {
      char chunk[256];
      pollfd c{fd, POLLIN, 0};
      if (poll(&c, 1, 5000) <= 0) break;
      const ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) break;
      buffer.append(chunk, static_cast<size_t>(n));
      size_t end;
      // Every complete line is handled, as client_support.cc does.
      while (!status && (end = buffer.find('\n')) != std::string::npos) {
        const std::string command = buffer.substr(0, end);
        buffer.erase(0, end + 1);
        if (mode_ == Mode::kSilent) continue;
        if (absl::StartsWithIgnoreCase(command, "client protocol ")) {
          Send(fd, "SERVER PROTOCOL 2\n");
        } else if (absl::StartsWithIgnoreCase(command, "timeout ")) {
          Send(fd, "OK\n");
        } else if (absl::EqualsIgnoreCase(command, "verbose status")) {
          status = true;
        } else {
          Send(fd, "ERROR: Unknown command " + command + "\n");
        }
      }
    }
    if (status && mode_ == Mode::kNccl2283) Send(fd, status_);
    if (status && mode_ == Mode::kFlood) {
      // Far more than the client reads: it must stop at its limit.
      const std::string line(1023, 'x');
      for (int i = 0; i < 1024 && !done_.HasBeenNotified(); ++i) {
        if (!Send(fd, line + "\n")) break;
      }
    }
    if (mode_ == Mode::kSilent) done_.WaitForNotification();
    close(fd);
  }

  static bool Send(int fd, const std::string& text) {
    return send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  }

  const Mode mode_;
  const std::string status_;
  int listen_fd_ = -1;
  int port_ = 0;
  absl::Notification done_;
  std::thread thread_;
};

}  // namespace eb::testing
