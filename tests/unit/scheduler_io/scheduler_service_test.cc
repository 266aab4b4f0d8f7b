// Borrowing a validation's nodes through a scheduler job (issue 30), over
// the Slurm backend and a fake command runner: the job id is on record
// before the nodes are handed out, a job never allocated (or allocated
// elsewhere) is ended with an error naming slurm and sbatch, a released
// validation ends its job, and a restart ends the jobs a previous run left.

#include "coordinator/scheduler_io/scheduler_service.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "coordinator/scheduler_io/slurm_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/unit/scheduler_io/fake_command_runner.h"

namespace eb::scheduler_io {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class BorrowAudit : public ActionAudit {
 public:
  absl::Status Record(const std::string& method, const std::string& target,
                      const absl::Status& outcome, const std::string& message) override {
    absl::MutexLock lock(&mu_);
    entries_.push_back(method + " " + target + " " + absl::StatusCodeToString(outcome.code()) +
                       " " + message);
    return absl::OkStatus();
  }
  std::vector<std::string> entries() const {
    absl::MutexLock lock(&mu_);
    return entries_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> entries_;
};

class BorrowTest : public ::testing::Test {
 protected:
  BorrowTest() {
    SlurmBackendConfig config;
    config.bin_dir = "/opt/slurm/bin";
    config.partition = "gpu";
    service_ = std::make_unique<SchedulerService>(owner_, clock_,
                                                  std::make_unique<SlurmBackend>(runner_, config),
                                                  audit_, scheduler::SchedulerPolicy());
    service_->set_poll_interval(absl::ZeroDuration());
  }
  ~BorrowTest() override {
    service_.reset();
    owner_.Stop();
  }

  // Borrows `nodes` and waits (bounded) for the answer on the owner loop.
  absl::StatusOr<SchedulerService::Borrowed> BorrowNodes(std::vector<std::string> nodes) {
    absl::Notification answered;
    std::optional<absl::StatusOr<SchedulerService::Borrowed>> result;
    service_->Borrow(std::move(nodes), 600,
                     [&](absl::StatusOr<SchedulerService::Borrowed> borrowed) {
                       result = std::move(borrowed);
                       answered.Notify();
                     });
    EXPECT_TRUE(answered.WaitForNotificationWithTimeout(absl::Seconds(30)));
    service_->Flush();
    if (!result.has_value()) return absl::InternalError("no answer");
    return *std::move(result);
  }

  common::EventLoop owner_{"test-owner"};
  eb::testing::FakeClock clock_;
  testing::FakeCommandRunner runner_;
  BorrowAudit audit_;
  std::unique_ptr<SchedulerService> service_;
};

TEST_F(BorrowTest, BorrowsRecordsTheJobAndGivesItBackWhenReleased) {
  runner_.Answer("sbatch", "42\n");
  runner_.Answer("squeue", "42|ebnccl-borrow|PENDING|\n");
  runner_.Answer("squeue", "42|ebnccl-borrow|RUNNING|node[1-2]\n");
  absl::StatusOr<SchedulerService::Borrowed> borrowed = BorrowNodes({"node2", "node1"});
  ASSERT_TRUE(borrowed.ok()) << borrowed.status();
  EXPECT_EQ(borrowed->job_id, "42");
  EXPECT_THAT(borrowed->nodes, ElementsAre("node1", "node2"));
  ASSERT_GE(runner_.commands.size(), 3u);
  EXPECT_THAT(runner_.commands[0], HasSubstr("/opt/slurm/bin/sbatch --parsable --exclusive"));
  EXPECT_THAT(runner_.commands[0], HasSubstr("--nodelist=node2,node1"));
  EXPECT_THAT(runner_.commands[0], HasSubstr("--partition=gpu"));
  // The intent, then the job id: both before the nodes are handed out.
  EXPECT_THAT(audit_.entries(), ElementsAre(HasSubstr("scheduler.borrow.intent node2,node1 OK"),
                                            "scheduler.borrow node2,node1 OK job 42"));

  service_->Hold("v-1", "42");
  service_->Release("v-1", "done");
  service_->Release("v-1", "done");  // once only
  service_->Flush();
  EXPECT_EQ(runner_.commands.back(), "/opt/slurm/bin/scancel 42");
  EXPECT_THAT(audit_.entries(), Contains("scheduler.give_back job 42 OK validation v-1 done"));
  EXPECT_EQ(
      std::count(runner_.commands.begin(), runner_.commands.end(), "/opt/slurm/bin/scancel 42"), 1);
}

TEST_F(BorrowTest, JobNeverAllocatedIsEndedAndNamesSlurmAndSbatch) {
  service_->set_allocation_timeout(absl::ZeroDuration());
  runner_.Answer("sbatch", "43\n");
  runner_.Answer("squeue", "43|ebnccl-borrow|PENDING|\n");
  absl::StatusOr<SchedulerService::Borrowed> borrowed = BorrowNodes({"node1"});
  ASSERT_FALSE(borrowed.ok());
  EXPECT_EQ(borrowed.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(borrowed.status().message(), HasSubstr("slurm: borrow job 43 (sbatch"));
  EXPECT_THAT(borrowed.status().message(), HasSubstr("nothing tested"));
  EXPECT_EQ(runner_.commands.back(), "/opt/slurm/bin/scancel 43");
}

TEST_F(BorrowTest, JobOnOtherNodesIsEnded) {
  runner_.Answer("sbatch", "44\n");
  runner_.Answer("squeue", "44|ebnccl-borrow|RUNNING|node9\n");
  absl::StatusOr<SchedulerService::Borrowed> borrowed = BorrowNodes({"node1"});
  ASSERT_FALSE(borrowed.ok());
  EXPECT_THAT(borrowed.status().message(), HasSubstr("runs on node9, not on the nodes asked for"));
  EXPECT_EQ(runner_.commands.back(), "/opt/slurm/bin/scancel 44");
}

TEST_F(BorrowTest, RefusedSubmissionIsAnErrorAndAudited) {
  runner_.Answer("sbatch", "sbatch: error: Invalid partition name specified\n", 1);
  absl::StatusOr<SchedulerService::Borrowed> borrowed = BorrowNodes({"node1"});
  ASSERT_FALSE(borrowed.ok());
  EXPECT_THAT(borrowed.status().message(), HasSubstr("slurm: `/opt/slurm/bin/sbatch"));
  EXPECT_THAT(audit_.entries(), Contains(HasSubstr("scheduler.borrow node1 UNAVAILABLE")));
  for (const std::string& command : runner_.commands) {
    EXPECT_THAT(command, ::testing::Not(HasSubstr("scancel")));
  }
}

TEST_F(BorrowTest, RestartEndsThePreviousRunsJobs) {
  runner_.Answer("squeue", "7|ebnccl-borrow|RUNNING|node1\n8|ebnccl-borrow|PENDING|\n");
  runner_.Answer("squeue", "9|ebnccl-probe|RUNNING|node[3-4]\n");  // the sentinel's
  service_->GiveBackStale();
  service_->Flush();
  EXPECT_THAT(runner_.commands,
              ElementsAre("/opt/slurm/bin/squeue -h -o %i|%j|%T|%N --name=ebnccl-borrow",
                          "/opt/slurm/bin/scancel 7", "/opt/slurm/bin/scancel 8",
                          "/opt/slurm/bin/squeue -h -o %i|%j|%T|%N --name=ebnccl-probe",
                          "/opt/slurm/bin/scancel 9"));
  EXPECT_THAT(audit_.entries(), Contains("scheduler.give_back job 8 OK held by a previous run"));
}

}  // namespace
}  // namespace eb::scheduler_io
