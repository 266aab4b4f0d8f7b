// RingLinks (tcp_link/ring_links.h) with ranks as threads on 127.0.0.1,
// without Gloo: exact bytes for odd and empty sizes on rings of 2-4 ranks,
// a wrong hello or header refused naming the rank and the field (and never
// written past the buffer), a peer that goes away mid-op failing the
// others promptly, the deadline, Abort, and closing (graceful, no
// descriptor left). Every wait is bounded by a deadline of seconds, and
// every elapsed-time check gives slack, so a loaded machine is slow, not
// flaky; nothing sleeps to wait for another thread.

#include "common/transport/tcp_link/ring_links.h"

#include <dirent.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/transport/ring_ranks.h"

namespace eb::transport {
namespace {

using ::eb::transport::testing::In;
using ::eb::transport::testing::Loopback;
using ::eb::transport::testing::OnRanks;
using ::eb::transport::testing::Ring;
using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Byte i of rank r's message in round `round`.
char Pattern(int rank, size_t i, int round) {
  return static_cast<char>((static_cast<size_t>(rank) * 131 + i * 7 + static_cast<size_t>(round)) &
                           0xff);
}

class RingLinksShiftTest : public ::testing::TestWithParam<int> {};

// Sizes: empty, one byte, odd, not a multiple of a page, and several socket
// buffers. Each receive buffer has a guard after it that must stay intact.
TEST_P(RingLinksShiftTest, MovesExactlyTheBytesOfThePreviousRank) {
  const int n = GetParam();
  constexpr size_t kSizes[] = {0, 1, 7, (size_t{1} << 16) + 3, (size_t{3} << 20) + 1};
  constexpr size_t kGuard = 64;
  std::vector<std::unique_ptr<RingLinks>> links = Ring(n);
  ASSERT_EQ(links.size(), static_cast<size_t>(n));
  std::vector<std::string> failures(static_cast<size_t>(n));
  OnRanks(n, [&](int rank) {
    RingLinks& mine = *links[static_cast<size_t>(rank)];
    const int prev = mine.prev();
    int round = 0;
    for (size_t size : kSizes) {
      for (int repeat = 0; repeat < 2; ++repeat, ++round) {
        std::string send(size, '\0');
        for (size_t i = 0; i < size; ++i) send[i] = Pattern(rank, i, round);
        std::string recv(size + kGuard, '\x5a');
        const absl::Status status = mine.Shift(send.data(), recv.data(), size, In(seconds(10)));
        std::string& failure = failures[static_cast<size_t>(rank)];
        if (!status.ok()) {
          failure = absl::StrCat("size ", size, ": ", status.ToString());
          return;
        }
        for (size_t i = 0; i < size; ++i) {
          if (recv[i] != Pattern(prev, i, round)) {
            failure = absl::StrCat("size ", size, ": byte ", i, " is not rank ", prev, "'s");
            return;
          }
        }
        if (recv.substr(size) != std::string(kGuard, '\x5a')) {
          failure = absl::StrCat("size ", size, ": written past the buffer");
          return;
        }
      }
    }
  });
  for (int rank = 0; rank < n; ++rank) {
    EXPECT_EQ(failures[static_cast<size_t>(rank)], "") << "rank " << rank;
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, RingLinksShiftTest, ::testing::Values(2, 3, 4),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return absl::StrCat("n", param.param);
                         });

// The receive low-water mark (kRecvLowWaterBytes) never exceeds what is
// left of a message: a small message, or the tail of a large one, wakes
// the receiver at once. Were it left waiting for the 100 ms socket timeout
// instead, 100 exchanges would take 10 s or more.
TEST(RingLinksTest, SmallMessagesAndTailsDoNotWaitForTheTimeout) {
  std::vector<std::unique_ptr<RingLinks>> links = Ring(2);
  ASSERT_EQ(links.size(), 2u);
  constexpr int kRounds = 100;
  // 24 bytes, and one that leaves a short tail after a whole low-water mark.
  constexpr size_t kSizes[] = {24, kRecvLowWaterBytes + 5};
  std::vector<LinkClock::duration> took(2);
  std::vector<absl::Status> results(2);
  OnRanks(2, [&](int rank) {
    std::string send(kSizes[1], 's');
    std::string recv(kSizes[1], '\0');
    const auto start = LinkClock::now();
    for (int round = 0; round < kRounds; ++round) {
      const size_t size = kSizes[round % 2];
      results[static_cast<size_t>(rank)] =
          links[static_cast<size_t>(rank)]->Shift(send.data(), recv.data(), size, In(seconds(30)));
      if (!results[static_cast<size_t>(rank)].ok()) return;
    }
    took[static_cast<size_t>(rank)] = LinkClock::now() - start;
  });
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_TRUE(results[static_cast<size_t>(rank)].ok()) << results[static_cast<size_t>(rank)];
    EXPECT_LT(took[static_cast<size_t>(rank)], seconds(5)) << "rank " << rank;
  }
}

TEST(RingLinksTest, PipelinedMessagesArriveInOrder) {
  // Several messages posted before any is waited for (what a pipelined
  // algorithm does), waited for in another order than posted.
  std::vector<std::unique_ptr<RingLinks>> links = Ring(3);
  ASSERT_EQ(links.size(), 3u);
  constexpr int kMessages = 5;
  constexpr size_t kBytes = (size_t{1} << 18) + 11;
  std::vector<std::string> failures(3);
  OnRanks(3, [&](int rank) {
    RingLinks& mine = *links[static_cast<size_t>(rank)];
    std::vector<std::string> send(kMessages, std::string(kBytes, '\0'));
    std::vector<std::string> recv(kMessages, std::string(kBytes, '\0'));
    std::vector<uint64_t> sent;
    std::vector<uint64_t> received;
    for (int m = 0; m < kMessages; ++m) {
      for (size_t i = 0; i < kBytes; ++i) send[m][i] = Pattern(rank, i, m);
      received.push_back(mine.PostRecv(recv[m].data(), kBytes, In(seconds(10))));
      sent.push_back(mine.PostSend(send[m].data(), kBytes, In(seconds(10))));
    }
    for (int m = kMessages - 1; m >= 0; --m) {
      absl::Status status = mine.WaitRecv(received[static_cast<size_t>(m)], In(seconds(10)));
      if (status.ok()) status = mine.WaitSend(sent[static_cast<size_t>(m)], In(seconds(10)));
      if (!status.ok()) {
        failures[static_cast<size_t>(rank)] = status.ToString();
        return;
      }
    }
    for (int m = 0; m < kMessages; ++m) {
      for (size_t i = 0; i < kBytes; ++i) {
        if (recv[m][i] != Pattern(mine.prev(), i, m)) {
          failures[static_cast<size_t>(rank)] = absl::StrCat("message ", m, " byte ", i);
          return;
        }
      }
    }
  });
  for (const std::string& failure : failures) EXPECT_EQ(failure, "");
}

TEST(RingLinksTest, SizeDisagreementIsRefusedNamingTheField) {
  std::vector<std::unique_ptr<RingLinks>> links = Ring(2);
  ASSERT_EQ(links.size(), 2u);
  // Rank 0 sends 100 bytes to rank 1, which expects 64 (its receive buffer
  // is exactly that, plus a guard). Rank 1 sends the 64 that rank 0
  // expects. Only rank 1 sees a header that disagrees; whether rank 0's op
  // finishes first or sees rank 1's links close depends on timing.
  std::string recv(64 + 16, 'g');
  std::string from_rank1(64, '\0');
  absl::Status rank1;
  OnRanks(2, [&](int rank) {
    RingLinks& mine = *links[static_cast<size_t>(rank)];
    if (rank == 0) {
      std::string send(100, 's');
      const uint64_t received = mine.PostRecv(from_rank1.data(), 64, In(seconds(5)));
      const uint64_t sent = mine.PostSend(send.data(), 100, In(seconds(5)));
      mine.WaitRecv(received, In(seconds(5))).IgnoreError();
      mine.WaitSend(sent, In(seconds(5))).IgnoreError();
      return;
    }
    std::string send(64, 's');
    const uint64_t received = mine.PostRecv(recv.data(), 64, In(seconds(5)));
    const uint64_t sent = mine.PostSend(send.data(), 64, In(seconds(5)));
    rank1 = mine.WaitRecv(received, In(seconds(5)));
    mine.WaitSend(sent, In(seconds(5))).IgnoreError();
  });
  EXPECT_EQ(rank1.code(), absl::StatusCode::kInvalidArgument) << rank1;
  EXPECT_THAT(std::string(rank1.message()), AllOf(HasSubstr("ring link from rank 0"),
                                                  HasSubstr("frame bytes: 100, expected 64")));
  // Nothing of the payload was read: the buffer and its guard are intact.
  EXPECT_EQ(recv, std::string(64 + 16, 'g'));
  // The links are dead: later calls return the first error at once.
  char out = 0;
  char in = 0;
  const absl::Status later = links[1]->Shift(&out, &in, 1, In(seconds(5)));
  EXPECT_EQ(later.code(), absl::StatusCode::kInvalidArgument) << later;
}

TEST(RingLinksTest, WrongTokenInTheHelloIsRefused) {
  std::vector<absl::Status> connect;
  // Rank 0 presents a wrong token to rank 1.
  std::vector<std::unique_ptr<RingLinks>> links =
      Ring(2, &connect, [](int rank, uint64_t token) { return rank == 0 ? token ^ 1 : token; });
  ASSERT_EQ(connect.size(), 2u);
  EXPECT_EQ(connect[1].code(), absl::StatusCode::kInvalidArgument) << connect[1];
  EXPECT_THAT(std::string(connect[1].message()),
              AllOf(HasSubstr("ring link from rank 0"), HasSubstr("hello token")));
}

TEST(RingLinksTest, NobodyConnectingExceedsTheDeadline) {
  auto alone = RingLinks::Listen(0, 2, Loopback(0));
  auto other = RingLinks::Listen(1, 2, Loopback(0));
  ASSERT_TRUE(alone.ok() && other.ok());
  // Rank 0 connects to rank 1's listener, but rank 1 never connects back.
  const auto start = LinkClock::now();
  const absl::Status status =
      (*alone)->Connect(Loopback((*other)->port()), (*other)->token(), In(milliseconds(300)));
  const auto took = LinkClock::now() - start;
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("ring link from rank 1"));
  EXPECT_GE(took, milliseconds(290));
  EXPECT_LT(took, seconds(3));
}

TEST(RingLinksTest, SilentPeerExceedsTheOpDeadlineNamingIt) {
  std::vector<std::unique_ptr<RingLinks>> links = Ring(2);
  ASSERT_EQ(links.size(), 2u);
  std::string send(1024, 's');
  std::string recv(1024, '\0');
  const auto start = LinkClock::now();
  // Rank 1 never takes part.
  const absl::Status status =
      links[0]->Shift(send.data(), recv.data(), send.size(), In(milliseconds(300)));
  const auto took = LinkClock::now() - start;
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("ring link from rank 1"), HasSubstr("timed out after 0 of 24")));
  EXPECT_GE(took, milliseconds(290));
  EXPECT_LT(took, seconds(3));
}

struct RingGoneCase {
  int ranks;
  int victim;
};

class RingLinksPeerGoneTest : public ::testing::TestWithParam<RingGoneCase> {};

// The victim's links are aborted (its connections reset, as when its
// process dies) while the others are inside a Shift of messages far larger
// than the sockets' buffers. The victim's two neighbours move bytes to or
// from it, so each of them fails, with UNAVAILABLE naming the neighbour whose
// connection broke first for it: the victim, or a neighbour that failed (and
// reset its links) before the victim's reset reached this rank. A rank whose
// own transfers never touch the victim (rank 0 of 4 when rank 2 goes: it
// receives from 3 and sends to 1) may finish its op before either neighbour
// fails and resets: it succeeds or fails the same way, whichever comes first
// is the machine's timing, not the product's. Every rank returns within a few
// seconds of the victim going, against an op deadline of 60 s.
TEST_P(RingLinksPeerGoneTest, OthersFailPromptlyNamingTheRank) {
  const RingGoneCase c = GetParam();
  std::vector<std::unique_ptr<RingLinks>> links = Ring(c.ranks);
  ASSERT_EQ(links.size(), static_cast<size_t>(c.ranks));
  constexpr size_t kBytes = size_t{16} << 20;
  std::vector<absl::Status> results(static_cast<size_t>(c.ranks));
  std::vector<LinkClock::time_point> failed_at(static_cast<size_t>(c.ranks));
  LinkClock::time_point gone_at;
  absl::BlockingCounter others_in(c.ranks - 1);
  OnRanks(c.ranks, [&](int rank) {
    RingLinks& mine = *links[static_cast<size_t>(rank)];
    if (rank == c.victim) {
      // The victim takes no part; it goes once the others are in their op.
      others_in.Wait();
      gone_at = LinkClock::now();
      mine.Abort("rank gone");
      return;
    }
    std::string send(kBytes, 's');
    std::string recv(kBytes, '\0');
    const uint64_t received = mine.PostRecv(recv.data(), kBytes, In(seconds(60)));
    const uint64_t sent = mine.PostSend(send.data(), kBytes, In(seconds(60)));
    others_in.DecrementCount();
    absl::Status status = mine.WaitRecv(received, In(seconds(60)));
    const absl::Status send_status = mine.WaitSend(sent, In(seconds(60)));
    if (status.ok()) status = send_status;
    // A failure stops the links; the next rank learns of it by its reset,
    // as it would from a failed communicator.
    mine.Abort("failed");
    results[static_cast<size_t>(rank)] = status;
    failed_at[static_cast<size_t>(rank)] = LinkClock::now();
  });
  int naming_the_victim = 0;
  for (int rank = 0; rank < c.ranks; ++rank) {
    if (rank == c.victim) continue;
    const absl::Status& status = results[static_cast<size_t>(rank)];
    const std::string message(status.message());
    EXPECT_LT(failed_at[static_cast<size_t>(rank)] - gone_at, seconds(5)) << "rank " << rank;
    const bool touches_victim =
        (rank + 1) % c.ranks == c.victim || (c.victim + 1) % c.ranks == rank;
    if (!touches_victim && status.ok()) continue;
    EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << "rank " << rank << ": " << status;
    // Each names the neighbour whose connection broke first for it.
    const std::string from_prev = absl::StrCat("from rank ", (rank + c.ranks - 1) % c.ranks);
    const std::string to_next = absl::StrCat("to rank ", (rank + 1) % c.ranks);
    EXPECT_THAT(message, ::testing::AnyOf(HasSubstr(from_prev), HasSubstr(to_next)))
        << "rank " << rank;
    if (message.find(absl::StrCat("rank ", c.victim, ":")) != std::string::npos) {
      ++naming_the_victim;
    }
  }
  // The first rank to fail can only have seen the victim's connections
  // break: at least one names it.
  EXPECT_GE(naming_the_victim, 1);
}

INSTANTIATE_TEST_SUITE_P(Cases, RingLinksPeerGoneTest,
                         ::testing::Values(RingGoneCase{2, 0}, RingGoneCase{2, 1},
                                           RingGoneCase{3, 1}, RingGoneCase{4, 2}),
                         [](const ::testing::TestParamInfo<RingGoneCase>& param) {
                           return absl::StrCat("n", param.param.ranks, "_rank", param.param.victim,
                                               "_gone");
                         });

TEST(RingLinksTest, AbortReleasesABlockedShiftWithItsReason) {
  std::vector<std::unique_ptr<RingLinks>> links = Ring(2);
  ASSERT_EQ(links.size(), 2u);
  std::string send(1024, 's');
  std::string recv(1024, '\0');
  absl::Status status;
  LinkClock::time_point returned;
  // Rank 1 never takes part, so rank 0's Shift blocks until the abort
  // (whether the abort comes before or during the Shift, it is ABORTED).
  std::thread blocked([&] {
    status = links[0]->Shift(send.data(), recv.data(), send.size(), In(seconds(60)));
    returned = LinkClock::now();
  });
  const auto aborted_at = LinkClock::now();
  links[0]->Abort("cancelled by the test");
  links[0]->Abort("second reason");
  blocked.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("cancelled by the test"));
  EXPECT_LT(returned - aborted_at, seconds(2));
  // Later calls fail at once with the first reason.
  const absl::Status later = links[0]->Shift(send.data(), recv.data(), 1, In(seconds(60)));
  EXPECT_EQ(later.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(std::string(later.message()), ::testing::Not(HasSubstr("second")));
}

TEST(RingLinksTest, ClosingAfterTheLastSendStillDeliversIt) {
  std::vector<std::unique_ptr<RingLinks>> links = Ring(2);
  ASSERT_EQ(links.size(), 2u);
  // 64 KiB fits in the sockets' buffers: rank 0's send completes before
  // rank 1 reads a byte, and rank 0 closes its links right away.
  constexpr size_t kBytes = size_t{64} << 10;
  std::string send(kBytes, '\0');
  for (size_t i = 0; i < kBytes; ++i) send[i] = Pattern(0, i, 0);
  ASSERT_TRUE(
      links[0]
          ->WaitSend(links[0]->PostSend(send.data(), kBytes, In(seconds(5))), In(seconds(5)))
          .ok());
  links[0].reset();
  std::string recv(kBytes, '\0');
  ASSERT_TRUE(
      links[1]
          ->WaitRecv(links[1]->PostRecv(recv.data(), kBytes, In(seconds(5))), In(seconds(5)))
          .ok());
  EXPECT_EQ(recv, send);
  // The next receive finds the connection closed, naming rank 0.
  const absl::Status next =
      links[1]->WaitRecv(links[1]->PostRecv(recv.data(), 1, In(seconds(5))), In(seconds(5)));
  EXPECT_EQ(next.code(), absl::StatusCode::kUnavailable) << next;
  EXPECT_THAT(std::string(next.message()),
              AllOf(HasSubstr("ring link from rank 0"), HasSubstr("closed the connection")));
}

int OpenDescriptors() {
  int count = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  while (readdir(dir) != nullptr) ++count;
  closedir(dir);
  return count;
}

TEST(RingLinksTest, DestroyWhileIdleJoinsAndClosesEverything) {
  const int before = OpenDescriptors();
  ASSERT_GT(before, 0);
  {
    std::vector<std::unique_ptr<RingLinks>> links = Ring(3);
    ASSERT_EQ(links.size(), 3u);
    EXPECT_EQ(OpenDescriptors(), before + 6);  // one connection each way per rank
    OnRanks(3, [&](int rank) {
      char send = static_cast<char>(rank);
      char recv = 0;
      EXPECT_TRUE(links[static_cast<size_t>(rank)]->Shift(&send, &recv, 1, In(seconds(5))).ok());
    });
    // Unconnected links (a listener only) close too.
    auto listening = RingLinks::Listen(0, 2, Loopback(0));
    ASSERT_TRUE(listening.ok());
  }
  EXPECT_EQ(OpenDescriptors(), before);
}

TEST(RingLinksTest, BadArgumentsAreRefused) {
  EXPECT_EQ(RingLinks::Listen(0, 1, Loopback(0)).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto bad_rank = RingLinks::Listen(2, 2, Loopback(0));
  EXPECT_EQ(bad_rank.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_rank.status().message()), HasSubstr("rank: 2"));
  auto links = RingLinks::Listen(0, 2, Loopback(0));
  ASSERT_TRUE(links.ok());
  char byte = 0;
  EXPECT_EQ((*links)->Shift(&byte, &byte, 1, In(seconds(1))).code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace eb::transport
