// The receive of a ring link socket (tcp_link/link_socket.h) on 127.0.0.1:
// the low-water rule, and a receive that starts with part of its message
// already queued (issue 33 item 17). Nothing sleeps: the test waits for
// the receiving thread to be asleep in the kernel (/proc), and every wait
// is bounded.

#include "common/transport/tcp_link/link_socket.h"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <fstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/unit/transport/ring_ranks.h"

namespace eb::transport {
namespace {

using std::chrono::seconds;
using testing::In;
using testing::Loopback;

TEST(LinkSocketTest, LowWaterIsTheRestUpToTheMarkAndAtLeastOne) {
  EXPECT_EQ(RecvLowWater(0), 1);
  EXPECT_EQ(RecvLowWater(24), 24);
  EXPECT_EQ(RecvLowWater(static_cast<size_t>(kRecvLowWaterBytes) - 1), kRecvLowWaterBytes - 1);
  EXPECT_EQ(RecvLowWater(static_cast<size_t>(kRecvLowWaterBytes)), kRecvLowWaterBytes);
  EXPECT_EQ(RecvLowWater(static_cast<size_t>(kRecvLowWaterBytes) + 5), kRecvLowWaterBytes);
  EXPECT_EQ(RecvLowWater(size_t{1} << 40), kRecvLowWaterBytes);
}

// True once thread `tid` of this process sleeps in a system call that
// waits for a socket (poll, ppoll, recvfrom).
bool AsleepOnTheSocket(pid_t tid) {
  std::ifstream stat(absl::StrCat("/proc/self/task/", tid, "/stat"));
  std::string line;
  std::getline(stat, line);
  const size_t name_end = line.rfind(')');
  if (name_end == std::string::npos || name_end + 2 >= line.size()) return false;
  if (line[name_end + 2] != 'S') return false;
  std::ifstream syscall_file(absl::StrCat("/proc/self/task/", tid, "/syscall"));
  long number = -1;
  if (!(syscall_file >> number)) return false;
#ifdef SYS_poll
  if (number == SYS_poll) return true;
#endif
  return number == SYS_ppoll || number == SYS_recvfrom;
}

// A message of `bytes`, of which the first `head` are queued at the
// receiver before its receive starts.
struct Split {
  size_t bytes;
  size_t head;
};

std::string SplitName(const ::testing::TestParamInfo<Split>& info) {
  return absl::StrCat(info.param.bytes, "_head", info.param.head);
}

class LinkSocketSplitTest : public ::testing::TestWithParam<Split> {};

// The stall of issue 33 item 17: a receive that finds part of its message
// queued must end once the rest has arrived. A blocking recv(MSG_WAITALL)
// copied the head and slept for the rest, which (less than the low-water
// mark still to come) never woke it: the link waited for its 100 ms socket
// timeout, and this socket, which has none, would wait forever (the test
// then fails after 30 s and shuts the socket to free the thread). It
// bites whenever less than the mark is left once the head is copied: a
// message shorter than the mark, exactly the mark, and a tail shorter than
// the mark after a head of more than one mark or of several. A rest longer
// than the mark (1.5 MiB after a 32 KiB head) woke the old receive too; it
// stays as the case of a receive that takes more than one mark.
TEST_P(LinkSocketSplitTest, AReceiveThatFindsTheHeadQueuedEndsWhenTheRestArrives) {
  // Buffers larger than the message, so that it all fits the window at
  // once and nothing but the low-water mark decides when the receiver
  // wakes.
  constexpr int kBuffer = 4 << 20;
  uint16_t port = 0;
  absl::StatusOr<LinkSocket> listener = ListenOn(Loopback(0), kBuffer, &port);
  ASSERT_TRUE(listener.ok()) << listener.status();
  absl::StatusOr<LinkSocket> out = ConnectBefore(Loopback(port), kBuffer, In(seconds(10)), "test");
  ASSERT_TRUE(out.ok()) << out.status();
  absl::StatusOr<LinkSocket> in = AcceptBefore(*listener, In(seconds(10)), "test");
  ASSERT_TRUE(in.ok()) << in.status();

  const size_t bytes = GetParam().bytes;
  const size_t head_bytes = GetParam().head;
  ASSERT_LT(head_bytes, bytes);
  // The kernel doubles SO_RCVBUF and offers about half of it as window.
  ASSERT_LE(bytes, size_t{kBuffer}) << "the message must fit the window at once";
  std::string message(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) message[i] = static_cast<char>('a' + i % 23);
  const std::atomic<bool> never_stop{false};

  // The head, queued in full at the receiver before the receive starts.
  iovec head{message.data(), head_bytes};
  ASSERT_TRUE(SendAll(*out, &head, 1, In(seconds(10)), never_stop, "test").ok());
  ASSERT_TRUE(in->SetRecvLowWater(static_cast<int>(head_bytes)).ok());
  pollfd queued{in->fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&queued, 1, 10'000), 1) << "the head did not arrive";

  std::string received(bytes, '\0');
  std::atomic<pid_t> receiver{0};
  absl::Status result;
  absl::Notification done;
  std::thread thread([&] {
    receiver.store(static_cast<pid_t>(::syscall(SYS_gettid)));
    result = RecvAll(*in, received.data(), bytes, In(seconds(60)), never_stop, "test");
    done.Notify();
  });
  // The rest goes out only once the receiver sleeps on the socket (with the
  // head copied, before the fix), so that it arrives during that sleep.
  const auto give_up = LinkClock::now() + seconds(30);
  while ((receiver.load() == 0 || !AsleepOnTheSocket(receiver.load())) && !done.HasBeenNotified() &&
         LinkClock::now() < give_up) {
    std::this_thread::yield();
  }
  iovec rest{message.data() + head_bytes, bytes - head_bytes};
  EXPECT_TRUE(SendAll(*out, &rest, 1, In(seconds(10)), never_stop, "test").ok());
  const bool ended = done.WaitForNotificationWithTimeout(absl::Seconds(30));
  if (!ended) in->Shutdown();
  thread.join();
  ASSERT_TRUE(ended) << "the receive did not end with the whole message queued";
  ASSERT_TRUE(result.ok()) << result;
  EXPECT_TRUE(received == message);
}

constexpr size_t kMark = static_cast<size_t>(kRecvLowWaterBytes);
INSTANTIATE_TEST_SUITE_P(AroundTheMark, LinkSocketSplitTest,
                         ::testing::Values(Split{kMark / 4, 32 << 10}, Split{kMark, 32 << 10},
                                           Split{kMark, kMark - 1},
                                           Split{kMark + kMark / 2, 32 << 10},
                                           Split{kMark + kMark / 2, kMark + 1},
                                           Split{3 * kMark + 7, 2 * kMark + 8}),
                         SplitName);

}  // namespace
}  // namespace eb::transport
