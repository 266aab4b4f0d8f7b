// The sentinel's loop (issue 30, part 3) over fake ports, a manual executor
// and a fake clock: a tick borrows the planned pair with a probe job, runs a
// validation on exactly that pair and ends the job however it ends; a job
// the scheduler takes back (gone, or requeued) preempts the probe at the
// next watch (within 1 s here; the 5 s bound), never as a hardware
// verdict; a scheduler that cannot be read borrows nothing and stops a
// running probe; at most max_probes run at once.

#include "coordinator/sentinel/sentinel.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"

namespace eb::sentinel {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Keeps every request; the test answers them (on the executor, as the
// service posts its answers there).
class FakeProbeScheduler final : public ProbeScheduler {
 public:
  void ReadNodes(NodesDone done) override { reads.push_back(std::move(done)); }
  void BorrowProbe(std::vector<std::string> nodes, int seconds, BorrowDone done) override {
    borrows.push_back({std::move(nodes), seconds, std::move(done)});
  }
  void ReadJob(std::string job_id, JobDone done) override {
    job_reads.push_back({std::move(job_id), std::move(done)});
  }
  void GiveBack(std::string job_id, std::string why) override {
    given_back.push_back(job_id + ": " + why);
  }

  struct BorrowCall {
    std::vector<std::string> nodes;
    int seconds;
    BorrowDone done;
  };
  struct JobCall {
    std::string job_id;
    JobDone done;
  };
  std::vector<NodesDone> reads;
  std::vector<BorrowCall> borrows;
  std::vector<JobCall> job_reads;
  std::vector<std::string> given_back;
};

class FakeProbeRunner final : public ProbeRunner {
 public:
  absl::StatusOr<std::string> Start(const std::vector<std::string>& nodes) override {
    if (!refuse.ok()) return refuse;
    started.push_back(nodes);
    return "v-" + std::to_string(started.size());
  }
  absl::Status Preempt(const std::string& id, const std::string& reason) override {
    preempted.push_back(id + ": " + reason);
    return absl::OkStatus();
  }
  absl::Status Cancel(const std::string& id, const std::string& reason) override {
    cancelled.push_back(id + ": " + reason);
    return absl::OkStatus();
  }

  absl::Status refuse = absl::OkStatus();
  std::vector<std::vector<std::string>> started;
  std::vector<std::string> preempted;
  std::vector<std::string> cancelled;
};

scheduler::SchedulerNode Idle(const std::string& name) {
  scheduler::SchedulerNode node;
  node.name = name;
  node.state = scheduler::NodeState::kIdle;
  return node;
}

class SentinelTest : public ::testing::Test {
 protected:
  void Make(int max_probes, double share, std::vector<std::string> fleet) {
    fleet_ = std::move(fleet);
    SentinelSettings settings;
    settings.max_probes = max_probes;
    settings.policy.max_idle_share = share;
    settings.policy.probe_duration = absl::Seconds(60);
    settings.watch_period = absl::Seconds(1);
    sentinel_ = std::make_unique<Sentinel>(
        executor_, clock_, scheduler_, runner_,
        [this] {
          FleetFacts facts;
          facts.ebnccl_nodes = fleet_;
          facts.verdicts = verdicts_;
          return facts;
        },
        settings);
    sentinel_->Start();
    // The first tick waits min_tick (5 s) for the agents to register.
    executor_.AdvanceTime(absl::Seconds(4));
    EXPECT_THAT(scheduler_.reads, IsEmpty());
    executor_.AdvanceTime(absl::Seconds(1));
    EXPECT_EQ(scheduler_.reads.size(), 1u);
  }
  std::vector<scheduler::SchedulerNode> AllIdle() const {
    std::vector<scheduler::SchedulerNode> nodes;
    for (const std::string& name : fleet_) nodes.push_back(Idle(name));
    return nodes;
  }
  // Answers the pending read of the nodes.
  void AnswerRead(absl::StatusOr<std::vector<scheduler::SchedulerNode>> nodes) {
    ASSERT_FALSE(scheduler_.reads.empty());
    auto done = std::move(scheduler_.reads.front());
    scheduler_.reads.erase(scheduler_.reads.begin());
    executor_.Post(
        [done = std::move(done), nodes = std::move(nodes)]() mutable { done(std::move(nodes)); });
    executor_.RunUntilIdle();
  }
  void AnswerBorrow(size_t i, absl::StatusOr<ProbeJob> job) {
    ASSERT_LT(i, scheduler_.borrows.size());
    auto done = std::move(scheduler_.borrows[i].done);
    executor_.Post(
        [done = std::move(done), job = std::move(job)]() mutable { done(std::move(job)); });
    executor_.RunUntilIdle();
  }
  void AnswerJob(absl::StatusOr<std::vector<std::string>> nodes) {
    ASSERT_FALSE(scheduler_.job_reads.empty());
    auto done = std::move(scheduler_.job_reads.front().done);
    scheduler_.job_reads.erase(scheduler_.job_reads.begin());
    executor_.Post(
        [done = std::move(done), nodes = std::move(nodes)]() mutable { done(std::move(nodes)); });
    executor_.RunUntilIdle();
  }
  // One pair borrowed as job 42 and its validation v-1 started.
  void StartOneProbe() {
    Make(4, 0.5, {"a", "b", "c", "d"});
    AnswerRead(AllIdle());
    ASSERT_EQ(scheduler_.borrows.size(), 1u);
    AnswerBorrow(0, ProbeJob{"42", scheduler_.borrows[0].nodes});
    ASSERT_EQ(runner_.started.size(), 1u);
  }

  eb::testing::FakeClock clock_;
  eb::testing::ManualExecutor executor_{clock_};
  FakeProbeScheduler scheduler_;
  FakeProbeRunner runner_;
  std::vector<std::string> fleet_;
  std::vector<scheduler::NodeVerdictRecord> verdicts_;
  std::unique_ptr<Sentinel> sentinel_;
};

TEST_F(SentinelTest, TickBorrowsThePlannedPairRunsItAndEndsTheJob) {
  StartOneProbe();
  // 4 idle nodes, half of them at most: one pair, the first two by name
  // (never judged, both due), for the probe's duration plus slack.
  EXPECT_THAT(scheduler_.borrows[0].nodes, ElementsAre("a", "b"));
  EXPECT_EQ(scheduler_.borrows[0].seconds, 60 + 120);
  EXPECT_THAT(runner_.started[0], ElementsAre("a", "b"));
  EXPECT_EQ(sentinel_->in_flight(), 1);
  // The job is watched every second while it runs.
  executor_.AdvanceTime(absl::Seconds(1));
  ASSERT_EQ(scheduler_.job_reads.size(), 1u);
  EXPECT_EQ(scheduler_.job_reads[0].job_id, "42");
  AnswerJob(std::vector<std::string>{"a", "b"});
  executor_.AdvanceTime(absl::Seconds(1));
  EXPECT_EQ(scheduler_.job_reads.size(), 1u);
  AnswerJob(std::vector<std::string>{"a", "b"});
  EXPECT_THAT(runner_.preempted, IsEmpty());
  // It ends: the job is given back, the watch stops.
  sentinel_->OnValidationFinished("v-1", "done");
  EXPECT_THAT(scheduler_.given_back, ElementsAre("42: probe v-1 done"));
  EXPECT_EQ(sentinel_->in_flight(), 0);
  executor_.AdvanceTime(absl::Seconds(2));
  EXPECT_THAT(scheduler_.job_reads, IsEmpty());
  // Another validation's end is not a probe's.
  sentinel_->OnValidationFinished("v-9", "done");
  EXPECT_EQ(scheduler_.given_back.size(), 1u);
  EXPECT_EQ(sentinel_->stats().ended, 1);
  EXPECT_EQ(sentinel_->stats().preempted, 0);
}

TEST_F(SentinelTest, JobGoneIsPreemptionWithinTheWatchPeriodAndTheJobIsEnded) {
  StartOneProbe();
  const absl::Time started = clock_.Now();
  // The tenant's job took the pair: the next watch finds the probe job gone.
  executor_.AdvanceTime(absl::Seconds(1));
  AnswerJob(absl::NotFoundError("slurm: job 42 is not running or pending"));
  ASSERT_EQ(runner_.preempted.size(), 1u);
  EXPECT_THAT(runner_.preempted[0], HasSubstr("v-1: the scheduler took the nodes back"));
  EXPECT_THAT(runner_.preempted[0], HasSubstr("job 42 is gone"));
  EXPECT_LE(clock_.Now() - started, absl::Seconds(5));
  EXPECT_THAT(runner_.cancelled, IsEmpty());
  // No more watching once it stops; its end (preempted) ends the job.
  executor_.AdvanceTime(absl::Seconds(3));
  EXPECT_THAT(scheduler_.job_reads, IsEmpty());
  sentinel_->OnValidationFinished("v-1", "preempted");
  EXPECT_THAT(scheduler_.given_back, ElementsAre("42: probe v-1 preempted"));
  EXPECT_EQ(sentinel_->stats().preempted, 1);
  EXPECT_EQ(sentinel_->in_flight(), 0);
}

TEST_F(SentinelTest, RequeuedJobIsPreemptionToo) {
  StartOneProbe();
  executor_.AdvanceTime(absl::Seconds(1));
  // PreemptMode=REQUEUE: the job is pending again, its nodes the tenant's.
  AnswerJob(std::vector<std::string>{});
  ASSERT_EQ(runner_.preempted.size(), 1u);
  EXPECT_THAT(runner_.preempted[0], HasSubstr("job 42 was requeued"));
  // Its end still cancels the requeued job: it must not come back later.
  sentinel_->OnValidationFinished("v-1", "preempted");
  EXPECT_THAT(scheduler_.given_back, ElementsAre("42: probe v-1 preempted"));
}

TEST_F(SentinelTest, UnreadableJobStopsTheProbeAsCancelledNotPreempted) {
  StartOneProbe();
  for (int i = 0; i < 3; ++i) {
    executor_.AdvanceTime(absl::Seconds(1));
    AnswerJob(absl::UnavailableError("slurm: `squeue` timed out"));
  }
  EXPECT_THAT(runner_.preempted, IsEmpty());
  ASSERT_EQ(runner_.cancelled.size(), 1u);
  EXPECT_THAT(runner_.cancelled[0], HasSubstr("could not be read 3 times"));
  EXPECT_THAT(runner_.cancelled[0], HasSubstr("squeue"));
}

TEST_F(SentinelTest, UnreadableSchedulerBorrowsNothingAndRetries) {
  Make(4, 0.5, {"a", "b", "c", "d"});
  AnswerRead(absl::UnavailableError("slurm: `sinfo` exited 1"));
  EXPECT_THAT(scheduler_.borrows, IsEmpty());
  EXPECT_THAT(scheduler_.reads, IsEmpty());
  // retry_after (1 min) later, it reads again.
  executor_.AdvanceTime(absl::Minutes(1));
  ASSERT_EQ(scheduler_.reads.size(), 1u);
  AnswerRead(AllIdle());
  EXPECT_EQ(scheduler_.borrows.size(), 1u);
}

TEST_F(SentinelTest, FailedBorrowStartsNothingAndTheNodesStayDue) {
  Make(4, 0.5, {"a", "b", "c", "d"});
  AnswerRead(AllIdle());
  AnswerBorrow(0, absl::DeadlineExceededError("slurm: probe job 7 was not allocated"));
  EXPECT_THAT(runner_.started, IsEmpty());
  EXPECT_EQ(sentinel_->in_flight(), 0);
  EXPECT_EQ(sentinel_->stats().borrow_failed, 1);
  executor_.AdvanceTime(absl::Minutes(1));
  AnswerRead(AllIdle());
  ASSERT_EQ(scheduler_.borrows.size(), 2u);
  EXPECT_THAT(scheduler_.borrows[1].nodes, ElementsAre("a", "b"));
}

TEST_F(SentinelTest, ProbeThatCannotStartGivesItsJobBack) {
  Make(4, 0.5, {"a", "b", "c", "d"});
  runner_.refuse = absl::ResourceExhaustedError("node a is busy with a test");
  AnswerRead(AllIdle());
  AnswerBorrow(0, ProbeJob{"43", {"a", "b"}});
  EXPECT_THAT(scheduler_.given_back,
              ElementsAre("43: probe not started: node a is busy with a test"));
  EXPECT_EQ(sentinel_->in_flight(), 0);
}

TEST_F(SentinelTest, AtMostMaxProbesAndInFlightNodesAreNotTakenTwice) {
  Make(1, 1.0, {"a", "b", "c", "d", "e", "f"});
  AnswerRead(AllIdle());
  // The share would allow three pairs; max_probes allows one.
  ASSERT_EQ(scheduler_.borrows.size(), 1u);
  EXPECT_THAT(scheduler_.borrows[0].nodes, ElementsAre("a", "b"));
  // A later tick, the job still pending (its nodes read idle): nothing more.
  executor_.AdvanceTime(absl::Minutes(1));
  AnswerRead(AllIdle());
  EXPECT_EQ(scheduler_.borrows.size(), 1u);
  AnswerBorrow(0, ProbeJob{"44", {"a", "b"}});
  sentinel_->OnValidationFinished("v-1", "done");
  // Its end frees the slot; a and b stay due (no verdict given here) but the
  // next tick may take any due pair: the bound is what is checked.
  executor_.AdvanceTime(absl::Seconds(5));
  AnswerRead(AllIdle());
  EXPECT_EQ(scheduler_.borrows.size(), 2u);
  EXPECT_EQ(sentinel_->in_flight(), 1);
}

TEST_F(SentinelTest, ANodeThatRegistersLaterIsSeenWithinMaxTick) {
  Make(4, 1.0, {});
  AnswerRead(std::vector<scheduler::SchedulerNode>{Idle("a"), Idle("b")});
  // No agent yet: nothing to probe, and the planner would wait a period.
  EXPECT_THAT(scheduler_.borrows, IsEmpty());
  fleet_ = {"a", "b"};
  executor_.AdvanceTime(absl::Minutes(1));
  ASSERT_EQ(scheduler_.reads.size(), 1u);
  AnswerRead(AllIdle());
  ASSERT_EQ(scheduler_.borrows.size(), 1u);
  EXPECT_THAT(scheduler_.borrows[0].nodes, ElementsAre("a", "b"));
}

TEST_F(SentinelTest, ANodeHoldingAJobIsNeverBorrowed) {
  Make(4, 1.0, {"a", "b", "c", "d"});
  std::vector<scheduler::SchedulerNode> nodes = AllIdle();
  nodes[0].state = scheduler::NodeState::kAllocated;  // a tenant's job on a
  AnswerRead(nodes);
  for (const FakeProbeScheduler::BorrowCall& call : scheduler_.borrows) {
    EXPECT_THAT(call.nodes, ::testing::Not(::testing::Contains("a")));
  }
  EXPECT_FALSE(scheduler_.borrows.empty());
}

}  // namespace
}  // namespace eb::sentinel
