#pragma once

// RingLinks: our own point-to-point data path between ring neighbours for
// the CPU transport (issue 16). One TCP connection to the next rank, which
// this rank only writes, and one from the previous rank, which it only
// reads; each is served by a thread of its own that makes blocking sends or
// receives straight from and into the caller's buffers (no staging copy).
// Gloo's pairs do all the socket I/O of a device from one epoll loop thread
// with nonblocking calls and a mutex per pair; a blocking stream per
// direction moved ~1.5x as much on the same cores (docs/BENCHMARKS.md
// §10), as two iperf3 processes do.
//
// Every message carries a header (ring_frame.h: sequence number and byte
// count) that the receiver checks against what it expects before it reads
// the payload. Every blocking call is bounded by the op's deadline (socket
// timeouts of kLinkSlice, link_socket.h), Abort wakes blocked calls at once
// (shutdown(2)), and a peer that dies (EOF, reset) fails the op with
// UNAVAILABLE naming its rank. Any error is fatal to the links: the stream
// can no longer be trusted to be in step, so both directions stop and every
// later call fails with the first error.
//
// Set-up, through the caller's rendezvous (gloo_mesh.h carries the port and
// token in the Gloo address table):
//   1. Listen: a listener on this host's address, and a random token that
//      the previous rank must present;
//   2. publish port() and token() to the previous rank, learn the next
//      rank's;
//   3. Connect: connect to the next rank (sending its token in a hello),
//      accept the previous rank's connection (checking its hello), close
//      the listener, start the two threads.
//
// Threads: Listen/Connect/Shift/Post*/Wait* and the destructor from one
// owner thread at a time; Abort from any thread once Connect has returned.
// The destructor (between ops) stops both threads, joins them and closes
// every descriptor, gracefully: a peer still reading our last message gets
// it whole.

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/transport/tcp_link/link_socket.h"

namespace eb::transport {

class LinkWorker;

class RingLinks {
 public:
  // SO_SNDBUF/SO_RCVBUF of both connections; 0 keeps the kernel's
  // autotuning (measured in docs/BENCHMARKS.md §10, round 3).
  static constexpr int kSocketBufferBytes = 0;

  // Step 1: a listener on `host` (AF_INET or AF_INET6; its port is
  // ignored) for rank `rank` of `world_size` >= 2. INVALID_ARGUMENT for a
  // bad rank or size, INTERNAL when the socket calls fail.
  static absl::StatusOr<std::unique_ptr<RingLinks>> Listen(int rank, int world_size,
                                                           const sockaddr_storage& host);

  ~RingLinks();
  RingLinks(const RingLinks&) = delete;
  RingLinks& operator=(const RingLinks&) = delete;

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  int next() const { return (rank_ + 1) % world_size_; }
  int prev() const { return (rank_ + world_size_ - 1) % world_size_; }
  // The listener's port (host order) and the token the previous rank must
  // send; both go to the previous rank through the rendezvous. 0 after
  // Connect.
  uint16_t port() const { return port_; }
  uint64_t token() const { return token_; }

  // Step 3: connects to the next rank at `next_address` (its port()),
  // presenting `next_token` (its token()), and accepts the previous rank's
  // connection, all before `deadline`. Returns:
  //   DEADLINE_EXCEEDED  a connect, the accept or a hello did not finish;
  //   UNAVAILABLE        the next rank refused or dropped the connection;
  //   INVALID_ARGUMENT   the connection accepted is not the previous rank's
  //                      (its hello names the field that differs);
  //   FAILED_PRECONDITION called twice.
  // On any error the links are unusable (destroy them).
  absl::Status Connect(const sockaddr_storage& next_address, uint64_t next_token,
                       LinkClock::time_point deadline);

  // Sends `bytes` bytes of `send` to the next rank and receives `bytes`
  // bytes from the previous rank into `recv`, both before `deadline`.
  // `send` and `recv` must not overlap: the receive may land before the
  // send has read its data (the caller stages an in-place call).
  // Returns OK, or the first error of either direction:
  //   UNAVAILABLE        a neighbour closed or reset its connection (names
  //                      its rank);
  //   DEADLINE_EXCEEDED  the deadline passed (names the rank and the bytes
  //                      moved);
  //   INVALID_ARGUMENT   the previous rank's header disagrees (another size
  //                      or sequence number: names the rank and the field);
  //   ABORTED            Abort was called (its reason);
  //   FAILED_PRECONDITION before Connect.
  absl::Status Shift(const void* send, void* recv, size_t bytes, LinkClock::time_point deadline);

  // The pieces of Shift, for pipelined algorithms: queue one message to
  // the next rank (sent in the order posted) or one receive from the
  // previous rank (received in the order posted), each finished before
  // `deadline`; the returned ticket is waited for with WaitSend/WaitRecv,
  // in any order. The buffer must stay valid and untouched (send) or
  // unread (recv) until its ticket is waited for. Waits return OK once
  // that message is done, else the links' first error (codes as Shift);
  // after an error neither thread touches any posted buffer any more, so
  // the caller may free them all.
  uint64_t PostSend(const void* data, size_t bytes, LinkClock::time_point deadline);
  uint64_t PostRecv(void* data, size_t bytes, LinkClock::time_point deadline);
  absl::Status WaitSend(uint64_t ticket, LinkClock::time_point deadline);
  absl::Status WaitRecv(uint64_t ticket, LinkClock::time_point deadline);

  // Any thread: stops both directions at once (a blocked send or receive
  // returns ABORTED naming `reason`; the peers see their connections reset).
  // Idempotent: the first reason stays.
  void Abort(absl::string_view reason);

 private:
  RingLinks(int rank, int world_size, LinkSocket listener, uint16_t port, uint64_t token);
  // Makes `error` the links' error and stops both directions.
  void Fail(const absl::Status& error);
  // Fail, then waits until neither thread is inside a send or receive, so
  // that no posted buffer is touched any more.
  void FailAndQuiesce(const absl::Status& error);

  const int rank_;
  const int world_size_;
  LinkSocket listener_;
  uint16_t port_;
  uint64_t token_;
  std::unique_ptr<LinkWorker> sender_;    // to next()
  std::unique_ptr<LinkWorker> receiver_;  // from prev()
};

}  // namespace eb::transport
