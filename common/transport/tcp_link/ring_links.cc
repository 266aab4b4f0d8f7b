#include "common/transport/tcp_link/ring_links.h"

#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/status/status_macros.h"
#include "common/transport/tcp_link/ring_frame.h"

namespace eb::transport {
namespace {

// How long a caller's wait may outlast the op deadline before it gives up
// on the link thread: the thread itself stops at most one kLinkSlice past
// the deadline, so this is only the guard against a bug there.
constexpr std::chrono::milliseconds kWaitGrace{1000};

absl::Time ToAbsl(LinkClock::time_point deadline) {
  return absl::Now() + absl::FromChrono(deadline - LinkClock::now());
}

}  // namespace

// One direction of a ring link: a thread that runs the messages posted to
// it, in order, with blocking calls on its socket (sends to the next rank
// or receives from the previous one). The thread owns the socket's I/O;
// another thread touches the socket only to shut it down, under mu_ and
// while the descriptor is still open (the thread closes it under mu_ too).
class LinkWorker {
 public:
  enum class Direction { kSend, kRecv };

  LinkWorker(Direction direction, LinkSocket socket, int peer,
             std::function<void(const absl::Status&)> on_error)
      : direction_(direction),
        peer_(peer),
        who_(absl::StrCat("ring link ", direction == Direction::kSend ? "to" : "from", " rank ",
                          peer)),
        on_error_(std::move(on_error)),
        socket_(std::move(socket)) {}

  // Joins the thread; Stop and Join must have been called if it started.
  ~LinkWorker() { Join(); }

  // Starts the thread. Separate from the constructor so that both workers
  // of the links exist before either can report an error to the other.
  void Start() {
    thread_ = std::thread([this] { Loop(); });
  }

  void Join() {
    if (thread_.joinable()) thread_.join();
  }

  LinkWorker(const LinkWorker&) = delete;
  LinkWorker& operator=(const LinkWorker&) = delete;

  uint64_t Post(void* data, size_t bytes, LinkClock::time_point deadline) {
    absl::MutexLock lock(&mu_);
    const uint64_t seq = posted_++;
    // After a stop nothing more runs; the ticket's wait returns the error.
    if (!stopping_) jobs_.push_back(Job{static_cast<char*>(data), bytes, deadline, seq});
    return posted_;
  }

  // Returns once message `ticket` is done (OK), or once the worker has
  // stopped and is out of its last call (its error): a caller that frees
  // its buffers after an error never races the thread still writing into
  // or reading from them.
  absl::Status Wait(uint64_t ticket, LinkClock::time_point deadline) {
    absl::MutexLock lock(&mu_);
    auto finished = [this, ticket]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return done_ >= ticket || (stopping_ && !busy_);
    };
    if (!mu_.AwaitWithDeadline(absl::Condition(&finished), ToAbsl(deadline + kWaitGrace))) {
      // The thread checks the deadline itself at least every kLinkSlice,
      // so this only guards against a bug there: stop it, and still wait
      // until it is out of the buffer (shutdown(2) wakes its call).
      StopLocked(absl::DeadlineExceededError(absl::StrCat(who_, ": message ", ticket - 1,
                                                          " did not finish by the deadline")),
                 /*reset=*/true);
      mu_.Await(absl::Condition(&finished));
    }
    if (done_ >= ticket) return absl::OkStatus();
    return error_;
  }

  // After a Stop: blocks until the thread is out of its current call.
  void AwaitIdle() {
    absl::MutexLock lock(&mu_);
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ && !busy_; };
    mu_.Await(absl::Condition(&idle));
  }

  // Any thread: records `why` unless an error came first and stops the
  // thread. With `reset` (an abort or a failure) a blocked call wakes at
  // once and the connection closes with a reset; without (the owner closes
  // the links between ops), it closes gracefully: FIN after whatever is
  // still queued for the peer, which may still be reading our last message.
  // True for the call that stopped it.
  bool Stop(const absl::Status& why, bool reset) {
    absl::MutexLock lock(&mu_);
    return StopLocked(why, reset);
  }

 private:
  bool StopLocked(const absl::Status& why, bool reset) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (error_.ok()) error_ = why;
    if (stopping_) return false;
    stopping_ = true;
    reset_ = reset;
    stop_.store(true, std::memory_order_release);
    if (reset || busy_) socket_.Shutdown();
    return true;
  }

  struct Job {
    char* data;
    size_t bytes;
    LinkClock::time_point deadline;
    uint64_t seq;
  };

  void Loop() {
    while (true) {
      Job job{};
      {
        absl::MutexLock lock(&mu_);
        auto ready = [this]()
                         ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !jobs_.empty(); };
        mu_.Await(absl::Condition(&ready));
        if (stopping_) break;
        job = jobs_.front();
        jobs_.pop_front();
        busy_ = true;
      }
      absl::Status status = Run(job);
      {
        absl::MutexLock lock(&mu_);
        busy_ = false;
        if (status.ok()) ++done_;
        if (stopping_) break;
        if (status.ok()) continue;
      }
      // A failure stops both directions (through the links), this one
      // first: the stream is no longer in step with the peer. Only when it
      // is what stopped this worker: a worker stopped from outside does not
      // call back into the links (their destructor may be running).
      if (Stop(status, /*reset=*/true)) on_error_(status);
      break;
    }
    absl::MutexLock lock(&mu_);
    if (reset_) {
      socket_.CloseWithReset();
    } else {
      socket_.Close();
    }
  }

  absl::Status Run(const Job& job) {
    if (direction_ == Direction::kSend) {
      std::array<char, kRingFrameBytes> header = EncodeRingFrame(RingFrame{job.seq, job.bytes});
      iovec iov[2] = {{header.data(), header.size()}, {job.data, job.bytes}};
      return SendAll(socket_, iov, 2, job.deadline, stop_, who_);
    }
    std::array<char, kRingFrameBytes> header{};
    EB_RETURN_IF_ERROR(RecvAll(socket_, header.data(), header.size(), job.deadline, stop_, who_));
    // The header is checked before a payload byte is read: a peer that
    // disagrees on the size can never make us write past `job.data`.
    EB_RETURN_IF_ERROR(CheckRingFrame(absl::string_view(header.data(), header.size()),
                                      RingFrame{job.seq, job.bytes}, peer_));
    return RecvAll(socket_, job.data, job.bytes, job.deadline, stop_, who_);
  }

  const Direction direction_;
  const int peer_;
  const std::string who_;
  const std::function<void(const absl::Status&)> on_error_;
  // Read by the thread's blocking calls between slices; set under mu_.
  std::atomic<bool> stop_{false};

  absl::Mutex mu_;
  // The thread's I/O runs outside mu_; Shutdown and Close run under it.
  LinkSocket socket_;
  std::deque<Job> jobs_ ABSL_GUARDED_BY(mu_);
  uint64_t posted_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t done_ ABSL_GUARDED_BY(mu_) = 0;
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool reset_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

absl::StatusOr<std::unique_ptr<RingLinks>> RingLinks::Listen(int rank, int world_size,
                                                             const sockaddr_storage& host) {
  if (world_size < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("world_size: ring links need at least 2 ranks, got ", world_size));
  }
  if (rank < 0 || rank >= world_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank: ", rank, " is outside [0, ", world_size, ")"));
  }
  uint16_t port = 0;
  EB_ASSIGN_OR_RETURN(LinkSocket listener, ListenOn(host, kSocketBufferBytes, &port));
  // Nonzero, so that "no token" (0) never matches.
  absl::BitGen random;
  const uint64_t token = absl::Uniform<uint64_t>(absl::IntervalClosed, random, 1,
                                                 std::numeric_limits<uint64_t>::max());
  return std::unique_ptr<RingLinks>(
      new RingLinks(rank, world_size, std::move(listener), port, token));
}

RingLinks::RingLinks(int rank, int world_size, LinkSocket listener, uint16_t port, uint64_t token)
    : rank_(rank),
      world_size_(world_size),
      listener_(std::move(listener)),
      port_(port),
      token_(token) {}

RingLinks::~RingLinks() {
  // Both workers stop before either is joined or destroyed: a worker that
  // fails calls Fail, which reaches the other one.
  const absl::Status closed = absl::CancelledError("ring links closed");
  if (sender_) sender_->Stop(closed, /*reset=*/false);
  if (receiver_) receiver_->Stop(closed, /*reset=*/false);
  if (sender_) sender_->Join();
  if (receiver_) receiver_->Join();
}

absl::Status RingLinks::Connect(const sockaddr_storage& next_address, uint64_t next_token,
                                LinkClock::time_point deadline) {
  if (!listener_.valid()) {
    return absl::FailedPreconditionError("ring links: Connect called twice");
  }
  // Nothing here waits for a peer to act first: the connect completes in
  // the next rank's backlog whether or not it has reached its accept yet.
  const std::string to_next = absl::StrCat("ring link to rank ", next());
  EB_ASSIGN_OR_RETURN(LinkSocket out,
                      ConnectBefore(next_address, kSocketBufferBytes, deadline, to_next));
  EB_RETURN_IF_ERROR(TuneLinkSocket(out));
  const std::atomic<bool> never_stop{false};
  std::array<char, kRingHelloBytes> hello =
      EncodeRingHello(RingHello{rank_, next(), world_size_, next_token});
  iovec iov{hello.data(), hello.size()};
  EB_RETURN_IF_ERROR(SendAll(out, &iov, 1, deadline, never_stop, to_next));

  const std::string from_prev = absl::StrCat("ring link from rank ", prev());
  EB_ASSIGN_OR_RETURN(LinkSocket in, AcceptBefore(listener_, deadline, from_prev));
  EB_RETURN_IF_ERROR(TuneLinkSocket(in));
  std::array<char, kRingHelloBytes> theirs{};
  EB_RETURN_IF_ERROR(RecvAll(in, theirs.data(), theirs.size(), deadline, never_stop, from_prev));
  EB_RETURN_IF_ERROR(CheckRingHello(absl::string_view(theirs.data(), theirs.size()),
                                    RingHello{prev(), rank_, world_size_, token_}));
  listener_.Close();
  port_ = 0;

  auto fail = [this](const absl::Status& error) { Fail(error); };
  sender_ =
      std::make_unique<LinkWorker>(LinkWorker::Direction::kSend, std::move(out), next(), fail);
  receiver_ =
      std::make_unique<LinkWorker>(LinkWorker::Direction::kRecv, std::move(in), prev(), fail);
  sender_->Start();
  receiver_->Start();
  return absl::OkStatus();
}

uint64_t RingLinks::PostSend(const void* data, size_t bytes, LinkClock::time_point deadline) {
  // The sender only reads through the pointer.
  return sender_ ? sender_->Post(const_cast<void*>(data), bytes, deadline) : 0;
}

uint64_t RingLinks::PostRecv(void* data, size_t bytes, LinkClock::time_point deadline) {
  return receiver_ ? receiver_->Post(data, bytes, deadline) : 0;
}

absl::Status RingLinks::WaitSend(uint64_t ticket, LinkClock::time_point deadline) {
  if (!sender_) return absl::FailedPreconditionError("ring links: not connected");
  absl::Status status = sender_->Wait(ticket, deadline);
  if (!status.ok()) FailAndQuiesce(status);
  return status;
}

absl::Status RingLinks::WaitRecv(uint64_t ticket, LinkClock::time_point deadline) {
  if (!receiver_) return absl::FailedPreconditionError("ring links: not connected");
  absl::Status status = receiver_->Wait(ticket, deadline);
  if (!status.ok()) FailAndQuiesce(status);
  return status;
}

void RingLinks::FailAndQuiesce(const absl::Status& error) {
  Fail(error);
  // The other direction may still be inside a call on a posted buffer,
  // which the caller frees once we return.
  sender_->AwaitIdle();
  receiver_->AwaitIdle();
}

absl::Status RingLinks::Shift(const void* send, void* recv, size_t bytes,
                              LinkClock::time_point deadline) {
  if (!sender_ || !receiver_) return absl::FailedPreconditionError("ring links: not connected");
  const uint64_t received = PostRecv(recv, bytes, deadline);
  const uint64_t sent = PostSend(send, bytes, deadline);
  // Either failure stops both directions (Fail), so the other wait returns
  // at once with the first error.
  absl::Status status = WaitRecv(received, deadline);
  absl::Status send_status = WaitSend(sent, deadline);
  return status.ok() ? send_status : status;
}

void RingLinks::Abort(absl::string_view reason) {
  Fail(absl::AbortedError(absl::StrCat("ring links aborted: ", reason)));
}

void RingLinks::Fail(const absl::Status& error) {
  if (sender_) sender_->Stop(error, /*reset=*/true);
  if (receiver_) receiver_->Stop(error, /*reset=*/true);
}

}  // namespace eb::transport
