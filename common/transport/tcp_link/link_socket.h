#pragma once

// The socket calls of a ring link (ring_links.h): a listener, a connect and
// an accept bounded by a deadline, and blocking sends and receives that
// move a whole buffer in as few system calls as the kernel allows while
// staying bounded by a deadline and interruptible from another thread.
//
// Why blocking calls: a blocking send copies as socket space becomes
// available inside one system call, and a receive sleeps in poll until a
// whole low-water mark (1 MiB, or the rest) is queued, then takes it in one
// call, where a nonblocking socket driven by epoll (Gloo's pairs) pays a
// wake-up and a call per burst.
// Each socket gets SO_SNDTIMEO/SO_RCVTIMEO of a short slice, so a blocked
// call returns at least that often to look at the deadline and at the stop
// flag; another thread that wants it out at once calls Shutdown, which wakes
// the blocked call (shutdown(2) leaves the descriptor open, so the thread
// that owns it never races a reused fd number).

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::transport {

using LinkClock = std::chrono::steady_clock;

// How often a blocked send or receive returns to check its deadline and the
// stop flag (SO_SNDTIMEO / SO_RCVTIMEO). The deadline is overshot by at most
// this much; Shutdown wakes a call at once.
inline constexpr std::chrono::milliseconds kLinkSlice{100};

// SO_RCVLOWAT of a receive: the kernel wakes a receiver blocked in recv only
// once this many bytes (or the rest of the message, if fewer) are queued,
// instead of at every arriving segment. Measured over a veth pair on 2
// cores (docs/BENCHMARKS.md §10, round 3): a 2-rank sendrecv went from
// 0.8-0.9 GB/s (a wake-up per segment) to 1.4-2.1 with 256 KiB and 2.0-2.7
// with 1 MiB; 4 MiB was no better.
inline constexpr int kRecvLowWaterBytes = 1 << 20;

// The low-water mark of a receive with `rest` bytes of its message still
// to come: min(rest, kRecvLowWaterBytes), at least 1. Never more than the
// rest, so that the tail of a message wakes the receiver without waiting
// for the next one.
int RecvLowWater(size_t rest);

// A TCP socket; closes its descriptor when destroyed. Movable.
class LinkSocket {
 public:
  LinkSocket() = default;
  explicit LinkSocket(int fd) : fd_(fd) {}
  LinkSocket(LinkSocket&& other) noexcept : fd_(other.fd_), recv_low_water_(other.recv_low_water_) {
    other.fd_ = -1;
  }
  LinkSocket& operator=(LinkSocket&& other) noexcept;
  LinkSocket(const LinkSocket&) = delete;
  LinkSocket& operator=(const LinkSocket&) = delete;
  ~LinkSocket() { Close(); }

  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

  // Sets SO_RCVLOWAT to `bytes` unless it is already that (the one thread
  // that receives on the socket). INTERNAL naming the option on failure.
  absl::Status SetRecvLowWater(int bytes);

  // Any thread: wakes a send or receive blocked on this socket in another
  // thread (both directions shut down). The descriptor stays open.
  void Shutdown() const;

  // Closes the descriptor with SO_LINGER 0: the peer sees a reset at once
  // (a peer blocked in a send to us fails instead of waiting for space that
  // never comes). Only the thread that owns the socket.
  void CloseWithReset();

  void Close();

 private:
  int fd_ = -1;
  int recv_low_water_ = 1;  // the kernel's default
};

// A TCP listener on `host`'s address and a port the kernel picks
// (CLOEXEC). `host` is AF_INET or AF_INET6; its port is ignored. Returns
// the port (host order) in `port`. When `buffer_bytes` > 0, SO_SNDBUF and
// SO_RCVBUF are set on the listener, so that accepted sockets have them
// from their first segment (the window scale is fixed at the handshake);
// 0 keeps the kernel's autotuning, which grows them up to
// net.ipv4.tcp_wmem/tcp_rmem. INTERNAL naming the call on failure.
absl::StatusOr<LinkSocket> ListenOn(const sockaddr_storage& host, int buffer_bytes, uint16_t* port);

// Connects to `address` (AF_INET or AF_INET6) before `deadline`, with
// `buffer_bytes` as ListenOn. UNAVAILABLE when refused or unreachable,
// DEADLINE_EXCEEDED past the deadline; messages start with `who`.
absl::StatusOr<LinkSocket> ConnectBefore(const sockaddr_storage& address, int buffer_bytes,
                                         LinkClock::time_point deadline, absl::string_view who);

// Accepts one connection on `listener` before `deadline`.
// DEADLINE_EXCEEDED (message starts with `who`) when nobody connects.
absl::StatusOr<LinkSocket> AcceptBefore(const LinkSocket& listener, LinkClock::time_point deadline,
                                        absl::string_view who);

// Sets what a ring link wants of a connected socket: TCP_NODELAY (the tail
// of a message must not wait for the ACK of the one before) and the
// kLinkSlice send and receive timeouts. INTERNAL naming the option.
absl::Status TuneLinkSocket(const LinkSocket& socket);

// Sends every byte of iov[0..count) (the array is consumed: entries are
// advanced as bytes go out). Returns OK, or:
//   ABORTED            `stop` was set (checked whenever a call returns);
//   DEADLINE_EXCEEDED  `deadline` passed with bytes left;
//   UNAVAILABLE        the peer reset or closed the connection.
// Messages start with `who` ("ring link to rank 3") and say how many bytes
// of how many were sent.
absl::Status SendAll(const LinkSocket& socket, iovec* iov, int count,
                     LinkClock::time_point deadline, const std::atomic<bool>& stop,
                     absl::string_view who);

// Receives exactly `bytes` bytes into `data`; never writes past it. Each
// step waits (poll) until RecvLowWater(rest) bytes are queued, then takes
// all that is queued without blocking: a blocking recv(MSG_WAITALL) that
// starts with part of the rest queued sleeps past the point where the rest
// has arrived (the kernel wakes it only once the bytes it has not copied
// reach the mark), until its socket timeout. Errors as SendAll, and
// UNAVAILABLE when the peer closes the connection before the last byte.
absl::Status RecvAll(LinkSocket& socket, void* data, size_t bytes, LinkClock::time_point deadline,
                     const std::atomic<bool>& stop, absl::string_view who);

}  // namespace eb::transport
