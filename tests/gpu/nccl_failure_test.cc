// The failure paths of NcclCommunicator (STYLE.md section 6, layer 5):
// init against a deadline when a peer never joins (one GPU is enough: the
// missing rank is simply never started), a collective that a peer withholds
// (two GPUs), and Abort from another thread releasing a stuck collective.
// Each asserts the status code, the message and how long detection took.

#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/transport/communicator.h"
#include "common/transport/nccl/nccl_communicator.h"
#include "common/transport/nccl/nccl_unique_id.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/in_memory_rendezvous_store.h"
#include "tests/gpu/gpu_test_util.h"

namespace eb::transport {
namespace {

using ::eb::transport::testing::RunNcclRanks;
using ::eb::transport::testing::TestOptions;
using ::testing::HasSubstr;

// Detection may overrun its timeout by this much: NCCL's abort joins its
// init thread, which notices the abort flag within its socket poll.
constexpr absl::Duration kMargin = absl::Seconds(5);

// The communicator's own deadline. NCCL does not say which peer is missing,
// so the message can only name this rank (its own identity, asserted below);
// naming the missing rank is the coordinator's job, which
// NcclMissingRankTest in nccl_cluster_test.cc checks end to end.
TEST(NcclFailureTest, InitTimesOutWhenAPeerNeverJoins) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  NcclOptions options = TestOptions(0, 2, 0);  // rank 1 is never started
  options.init_timeout = absl::Seconds(3);
  const absl::Time start = absl::Now();
  const absl::Status status = CreateNcclCommunicator(options, store).status();
  const absl::Duration took = absl::Now() - start;
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("init timed out after 3s"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("rank 0 of 2, cuda device 0"));
  EXPECT_GE(took, options.init_timeout);
  EXPECT_LT(took, options.init_timeout + kMargin);
  EXPECT_TRUE(store.Contains(kNcclUniqueIdKey));  // rank 0's Set went through
}

TEST(NcclFailureTest, RankWaitsForTheIdUntilItsDeadline) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  NcclOptions options = TestOptions(1, 2, 0);  // rank 0 is never started
  options.init_timeout = absl::Seconds(2);
  const absl::Time start = absl::Now();
  const absl::Status status = CreateNcclCommunicator(options, store).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("rank 1 of 2 waiting for the NCCL unique id from rank 0"));
  EXPECT_LT(absl::Now() - start, options.init_timeout + kMargin);
}

TEST(NcclFailureTest, CollectiveTimesOutWhenAPeerWithholdsIt) {
  EB_SKIP_UNLESS_GPUS(2);
  constexpr absl::Duration kOpTimeout = absl::Seconds(2);
  absl::Notification rank0_done;
  absl::Duration took;
  absl::Status first, second;
  const std::vector<absl::Status> results = RunNcclRanks(
      2,
      [&](Communicator& comm) -> absl::Status {
        if (comm.Rank() == 1) {  // withholds its all_reduce
          rank0_done.WaitForNotification();
          return absl::OkStatus();
        }
        EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> buffer, comm.Allocate(4096));
        CollectiveCall call;
        call.count = 1024;
        call.send = call.recv = buffer->data();
        const absl::Time start = absl::Now();
        first = comm.Run(call, 1).status();
        took = absl::Now() - start;
        second = comm.Run(call, 1).status();
        rank0_done.Notify();
        return absl::OkStatus();
      },
      [&](NcclOptions& options) { options.op_timeout = kOpTimeout; });
  for (const absl::Status& s : results) EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(first.code(), absl::StatusCode::kDeadlineExceeded) << first;
  EXPECT_THAT(std::string(first.message()),
              HasSubstr("collective all_reduce of 4096 bytes did not complete within 2s"));
  EXPECT_GE(took, kOpTimeout);
  EXPECT_LT(took, kOpTimeout + kMargin);
  EXPECT_EQ(second.code(), absl::StatusCode::kAborted) << second;
  EXPECT_THAT(std::string(second.message()), HasSubstr("did not complete within 2s"));
}

TEST(NcclFailureTest, AbortFromAnotherThreadReleasesAStuckCollective) {
  EB_SKIP_UNLESS_GPUS(2);
  absl::Notification rank0_done;
  absl::Duration took;
  absl::Status stuck;
  const std::vector<absl::Status> results = RunNcclRanks(
      2,
      [&](Communicator& comm) -> absl::Status {
        if (comm.Rank() == 1) {
          rank0_done.WaitForNotification();
          return absl::OkStatus();
        }
        EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> buffer, comm.Allocate(4096));
        CollectiveCall call;
        call.count = 1024;
        call.send = call.recv = buffer->data();
        std::thread canceller([&comm] {
          absl::SleepFor(absl::Seconds(1));
          comm.Abort("cancelled by the operator");
        });
        const absl::Time start = absl::Now();
        stuck = comm.Run(call, 1).status();  // op_timeout is 60s
        took = absl::Now() - start;
        canceller.join();
        rank0_done.Notify();
        return absl::OkStatus();
      },
      [](NcclOptions& options) { options.op_timeout = absl::Seconds(60); });
  for (const absl::Status& s : results) EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(stuck.code(), absl::StatusCode::kAborted) << stuck;
  EXPECT_THAT(std::string(stuck.message()), HasSubstr("cancelled by the operator"));
  EXPECT_LT(took, absl::Seconds(1) + kMargin);
}

}  // namespace
}  // namespace eb::transport
