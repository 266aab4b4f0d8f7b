#include "common/transport/tcp_link/link_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace eb::transport {
namespace {

std::string ErrnoText(int err) { return strerrordesc_np(err) ? strerrordesc_np(err) : "?"; }

absl::Status ErrnoError(absl::string_view who, absl::string_view call, int err) {
  return absl::InternalError(absl::StrCat(who, ": ", call, ": ", ErrnoText(err)));
}

socklen_t LengthOf(const sockaddr_storage& address) {
  return address.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
}

// Milliseconds left until `deadline`, at least 0, at most a slice (so that
// a poll never outlives the slice that bounds every wait here).
int PollMillis(LinkClock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - LinkClock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, kLinkSlice.count()));
}

// Errors of a send or receive that mean the peer is gone.
bool PeerGone(int err) {
  return err == ECONNRESET || err == EPIPE || err == ENOTCONN || err == ETIMEDOUT ||
         err == EHOSTUNREACH || err == ENETUNREACH || err == ECONNABORTED;
}

// The status for a send or receive that returned with an error or EOF,
// after `done` of `total` bytes.
absl::Status IoFailure(absl::string_view who, absl::string_view call, int err, size_t done,
                       size_t total, const std::atomic<bool>& stop) {
  // Shutdown makes a blocked call return EOF or EPIPE: that is the stop.
  if (stop.load(std::memory_order_acquire)) {
    return absl::AbortedError(absl::StrCat(who, ": stopped after ", done, " of ", total, " bytes"));
  }
  if (err == 0) {
    return absl::UnavailableError(absl::StrCat(who, ": the peer closed the connection after ", done,
                                               " of ", total, " bytes"));
  }
  const std::string text =
      absl::StrCat(who, ": ", call, ": ", ErrnoText(err), " after ", done, " of ", total, " bytes");
  return PeerGone(err) ? absl::UnavailableError(text) : absl::InternalError(text);
}

absl::Status Expired(absl::string_view who, absl::string_view what, size_t done, size_t total) {
  return absl::DeadlineExceededError(
      absl::StrCat(who, ": ", what, " timed out after ", done, " of ", total, " bytes"));
}

absl::Status SetBuffers(int fd, int buffer_bytes, absl::string_view who) {
  if (buffer_bytes <= 0) return absl::OkStatus();
  if (::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer_bytes, sizeof(buffer_bytes)) != 0) {
    return ErrnoError(who, "setsockopt(SO_SNDBUF)", errno);
  }
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof(buffer_bytes)) != 0) {
    return ErrnoError(who, "setsockopt(SO_RCVBUF)", errno);
  }
  return absl::OkStatus();
}

}  // namespace

LinkSocket& LinkSocket::operator=(LinkSocket&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = other.fd_;
    recv_low_water_ = other.recv_low_water_;
    other.fd_ = -1;
  }
  return *this;
}

int RecvLowWater(size_t rest) {
  return static_cast<int>(
      std::max<size_t>(1, std::min<size_t>(rest, static_cast<size_t>(kRecvLowWaterBytes))));
}

absl::Status LinkSocket::SetRecvLowWater(int bytes) {
  if (bytes == recv_low_water_) return absl::OkStatus();
  if (::setsockopt(fd_, SOL_SOCKET, SO_RCVLOWAT, &bytes, sizeof(bytes)) != 0) {
    return ErrnoError("ring link socket", "setsockopt(SO_RCVLOWAT)", errno);
  }
  recv_low_water_ = bytes;
  return absl::OkStatus();
}

void LinkSocket::Shutdown() const {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

void LinkSocket::CloseWithReset() {
  if (fd_ < 0) return;
  linger reset{};
  reset.l_onoff = 1;
  reset.l_linger = 0;
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
  Close();
}

void LinkSocket::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

absl::StatusOr<LinkSocket> ListenOn(const sockaddr_storage& host, int buffer_bytes,
                                    uint16_t* port) {
  constexpr absl::string_view kWho = "ring link listener";
  if (host.ss_family != AF_INET && host.ss_family != AF_INET6) {
    return absl::InternalError(
        absl::StrCat(kWho, ": address family ", host.ss_family, " is not IPv4 or IPv6"));
  }
  LinkSocket socket(::socket(host.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!socket.valid()) return ErrnoError(kWho, "socket", errno);
  if (absl::Status buffers = SetBuffers(socket.fd(), buffer_bytes, kWho); !buffers.ok()) {
    return buffers;
  }
  sockaddr_storage bind_to = host;
  if (bind_to.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&bind_to)->sin_port = 0;
  } else {
    reinterpret_cast<sockaddr_in6*>(&bind_to)->sin6_port = 0;
  }
  if (::bind(socket.fd(), reinterpret_cast<const sockaddr*>(&bind_to), LengthOf(bind_to)) != 0) {
    return ErrnoError(kWho, "bind", errno);
  }
  // One connection is expected (from the previous rank); a few more in the
  // backlog cost nothing.
  if (::listen(socket.fd(), 8) != 0) return ErrnoError(kWho, "listen", errno);
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  if (::getsockname(socket.fd(), reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
    return ErrnoError(kWho, "getsockname", errno);
  }
  *port = ntohs(bound.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&bound)->sin_port
                                           : reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  return socket;
}

absl::StatusOr<LinkSocket> ConnectBefore(const sockaddr_storage& address, int buffer_bytes,
                                         LinkClock::time_point deadline, absl::string_view who) {
  LinkSocket socket(::socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!socket.valid()) return ErrnoError(who, "socket", errno);
  if (absl::Status buffers = SetBuffers(socket.fd(), buffer_bytes, who); !buffers.ok()) {
    return buffers;
  }
  if (::connect(socket.fd(), reinterpret_cast<const sockaddr*>(&address), LengthOf(address)) != 0 &&
      errno != EINPROGRESS) {
    return absl::UnavailableError(absl::StrCat(who, ": connect: ", ErrnoText(errno)));
  }
  while (true) {
    pollfd p{socket.fd(), POLLOUT, 0};
    const int ready = ::poll(&p, 1, PollMillis(deadline));
    if (ready < 0 && errno != EINTR) return ErrnoError(who, "poll", errno);
    if (ready > 0) break;
    if (LinkClock::now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(who, ": connect timed out"));
    }
  }
  int err = 0;
  socklen_t length = sizeof(err);
  if (::getsockopt(socket.fd(), SOL_SOCKET, SO_ERROR, &err, &length) != 0) {
    return ErrnoError(who, "getsockopt(SO_ERROR)", errno);
  }
  if (err != 0) return absl::UnavailableError(absl::StrCat(who, ": connect: ", ErrnoText(err)));
  // Blocking from here on: every call is bounded by the socket timeouts.
  if (::fcntl(socket.fd(), F_SETFL, 0) != 0) return ErrnoError(who, "fcntl", errno);
  return socket;
}

absl::StatusOr<LinkSocket> AcceptBefore(const LinkSocket& listener, LinkClock::time_point deadline,
                                        absl::string_view who) {
  while (true) {
    pollfd p{listener.fd(), POLLIN, 0};
    const int ready = ::poll(&p, 1, PollMillis(deadline));
    if (ready < 0 && errno != EINTR) return ErrnoError(who, "poll", errno);
    if (ready > 0) break;
    if (LinkClock::now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(who, ": nobody connected in time"));
    }
  }
  LinkSocket socket(::accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!socket.valid())
    return absl::UnavailableError(absl::StrCat(who, ": accept: ", ErrnoText(errno)));
  return socket;
}

absl::Status TuneLinkSocket(const LinkSocket& socket) {
  constexpr absl::string_view kWho = "ring link socket";
  const int one = 1;
  if (::setsockopt(socket.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0) {
    return ErrnoError(kWho, "setsockopt(TCP_NODELAY)", errno);
  }
  timeval slice{};
  slice.tv_usec = static_cast<suseconds_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(kLinkSlice).count());
  if (::setsockopt(socket.fd(), SOL_SOCKET, SO_SNDTIMEO, &slice, sizeof(slice)) != 0) {
    return ErrnoError(kWho, "setsockopt(SO_SNDTIMEO)", errno);
  }
  if (::setsockopt(socket.fd(), SOL_SOCKET, SO_RCVTIMEO, &slice, sizeof(slice)) != 0) {
    return ErrnoError(kWho, "setsockopt(SO_RCVTIMEO)", errno);
  }
  return absl::OkStatus();
}

absl::Status SendAll(const LinkSocket& socket, iovec* iov, int count,
                     LinkClock::time_point deadline, const std::atomic<bool>& stop,
                     absl::string_view who) {
  size_t total = 0;
  for (int i = 0; i < count; ++i) total += iov[i].iov_len;
  size_t done = 0;
  while (count > 0 && iov[0].iov_len == 0) {
    ++iov;
    --count;
  }
  while (count > 0) {
    if (stop.load(std::memory_order_acquire)) return IoFailure(who, "send", 0, done, total, stop);
    msghdr message{};
    message.msg_iov = iov;
    message.msg_iovlen = static_cast<size_t>(count);
    const ssize_t sent = ::sendmsg(socket.fd(), &message, MSG_NOSIGNAL);
    if (sent < 0) {
      const int err = errno;
      if (err != EAGAIN && err != EWOULDBLOCK && err != EINTR) {
        return IoFailure(who, "send", err, done, total, stop);
      }
    } else {
      done += static_cast<size_t>(sent);
      auto left = static_cast<size_t>(sent);
      while (count > 0 && left >= iov[0].iov_len) {
        left -= iov[0].iov_len;
        ++iov;
        --count;
      }
      if (count > 0) {
        iov[0].iov_base = static_cast<char*>(iov[0].iov_base) + left;
        iov[0].iov_len -= left;
      }
    }
    if (count > 0 && LinkClock::now() >= deadline) return Expired(who, "send", done, total);
  }
  return absl::OkStatus();
}

absl::Status RecvAll(LinkSocket& socket, void* data, size_t bytes, LinkClock::time_point deadline,
                     const std::atomic<bool>& stop, absl::string_view who) {
  auto* out = static_cast<char*>(data);
  size_t done = 0;
  while (done < bytes) {
    if (stop.load(std::memory_order_acquire)) return IoFailure(who, "recv", 0, done, bytes, stop);
    // Without a low-water mark the kernel wakes this thread for every
    // segment that arrives, and those wake-ups, not the copies, were what
    // two directions on 2 cores ran out of.
    EB_RETURN_IF_ERROR(socket.SetRecvLowWater(RecvLowWater(bytes - done)));
    // Wait for the mark first, then read without waiting. A blocking recv
    // that finds fewer bytes queued copies them and sleeps for the rest,
    // but the kernel wakes a sleeping reader only once the bytes *not yet
    // copied* reach SO_RCVLOWAT: when less than the mark is still to come
    // (the rest of a message shorter than the mark, or the tail of a longer
    // one), that never happens, and the call slept to the end of its 100 ms
    // slice with the whole rest queued (issue 33 item 17: the mid-size
    // stalls). poll counts every queued byte against the mark, and the
    // mark never exceeds the rest, so it returns once the mark is queued.
    pollfd p{socket.fd(), POLLIN, 0};
    const int ready = ::poll(&p, 1, PollMillis(deadline));
    if (ready < 0 && errno != EINTR) return IoFailure(who, "poll", errno, done, bytes, stop);
    if (ready > 0) {
      // Takes everything queued (at least the mark), up to the rest.
      const ssize_t got = ::recv(socket.fd(), out + done, bytes - done, MSG_DONTWAIT);
      if (got == 0) return IoFailure(who, "recv", 0, done, bytes, stop);
      if (got < 0) {
        const int err = errno;
        if (err != EAGAIN && err != EWOULDBLOCK && err != EINTR) {
          return IoFailure(who, "recv", err, done, bytes, stop);
        }
      } else {
        done += static_cast<size_t>(got);
      }
    }
    if (done < bytes && LinkClock::now() >= deadline) return Expired(who, "receive", done, bytes);
  }
  return absl::OkStatus();
}

}  // namespace eb::transport
