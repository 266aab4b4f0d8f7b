// One pass of scheduler integration over a fake backend and a fake audit:
// the intent is on record before the action, a dry run acts on nothing,
// an unreadable scheduler decides nothing, an unrecorded intent is not
// carried out, an operator's drain is never touched; the start-up pass
// carries out what a killed run decided, once.

#include "coordinator/scheduler_io/reconcile.h"

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/scheduler/scheduler_fixture.h"

namespace eb::scheduler_io {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace sch = scheduler;
using sch::testing::Bad;
using sch::testing::Good;
using sch::testing::kNow;
using sch::testing::Node;

// Records every call, in one log shared with the audit, so the order of
// intents and actions can be checked.
class FakeBackend : public sch::SchedulerBackend {
 public:
  explicit FakeBackend(std::vector<std::string>* log) : log_(log) {}
  std::string Name() const override { return "fake"; }
  absl::StatusOr<std::vector<sch::SchedulerNode>> ListNodes() override { return nodes; }
  absl::Status Drain(const std::string& node, const std::string& reason) override {
    log_->push_back("drain " + node + ": " + reason);
    return refuse;
  }
  absl::Status Resume(const std::string& node) override {
    log_->push_back("resume " + node);
    return refuse;
  }
  absl::StatusOr<std::string> Borrow(const std::vector<std::string>&, const std::string&,
                                     int) override {
    return absl::UnimplementedError("borrow");
  }
  absl::StatusOr<std::vector<std::string>> JobNodes(const std::string&) override {
    return absl::UnimplementedError("job nodes");
  }
  absl::Status EndJob(const std::string&) override { return absl::OkStatus(); }
  absl::StatusOr<std::vector<std::string>> JobsNamed(const std::string&) override {
    return std::vector<std::string>();
  }

  absl::StatusOr<std::vector<sch::SchedulerNode>> nodes;
  absl::Status refuse;

 private:
  std::vector<std::string>* log_;
};

class FakeAudit : public ActionAudit {
 public:
  explicit FakeAudit(std::vector<std::string>* log) : log_(log) {}
  absl::Status Record(const std::string& method, const std::string& target,
                      const absl::Status& outcome, const std::string&) override {
    log_->push_back(method + " " + target + " " + absl::StatusCodeToString(outcome.code()));
    return method.ends_with(".intent") ? refuse_intents : absl::OkStatus();
  }
  absl::Status refuse_intents;

 private:
  std::vector<std::string>* log_;
};

class ReconcileTest : public ::testing::Test {
 protected:
  ReconcileInput Input(std::vector<sch::NodeVerdictRecord> verdicts) {
    ReconcileInput input;
    input.ebnccl_nodes = {"n1", "n2", "n3", "n4", "n5", "n6"};
    input.verdicts = std::move(verdicts);
    input.trigger = "validation v-2";
    input.validation_id = "v-2";
    return input;
  }
  std::vector<std::string> log_;
  FakeBackend backend_{&log_};
  FakeAudit audit_{&log_};
};

TEST_F(ReconcileTest, IntentIsRecordedBeforeTheDrainAndTheResultAfter) {
  backend_.nodes = std::vector<sch::SchedulerNode>{
      Node("n1"), Node("n2"),
      Node("n3"), Node("n4"),
      Node("n5"), Node("n6", sch::NodeState::kDrained, "ebnccl v-0: rail 1 at 40% of expected")};
  // Room for two drains: n6's, in place, and n3's.
  sch::SchedulerPolicy policy;
  policy.max_drained_share = 0.5;
  policy.max_drained_share_per_group = 0.5;
  auto outcome = Reconcile(
      backend_, audit_,
      Input({Bad("n3", "v-2", 0.1), Good("n6", "v-2", 0.1), Bad("n6", "v-0", 30)}), policy, kNow);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->drained, 1);
  EXPECT_EQ(outcome->resumed, 1);
  ASSERT_EQ(log_.size(), 6u);
  EXPECT_EQ(log_[0], "scheduler.drain.intent n3 OK");
  EXPECT_THAT(log_[1], HasSubstr("drain n3: ebnccl v-2: rail 3 at 52% of expected"));
  EXPECT_EQ(log_[2], "scheduler.drain n3 OK");
  EXPECT_EQ(log_[3], "scheduler.resume.intent n6 OK");
  EXPECT_EQ(log_[4], "resume n6");
  EXPECT_EQ(log_[5], "scheduler.resume n6 OK");
}

TEST_F(ReconcileTest, OperatorDrainIsNeverTouched) {
  backend_.nodes = std::vector<sch::SchedulerNode>{
      Node("n1"), Node("n2", sch::NodeState::kDrained, "operator: bad fan"),
      Node("n3"), Node("n4"),
      Node("n5"), Node("n6")};
  auto outcome =
      Reconcile(backend_, audit_, Input({Bad("n2", "v-2", 0.1), Good("n2", "v-3", 0.05)}),
                sch::SchedulerPolicy(), kNow);
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(log_.empty()) << log_[0];
}

TEST_F(ReconcileTest, DryRunRecordsAndCarriesOutNothing) {
  backend_.nodes = std::vector<sch::SchedulerNode>{Node("n1"), Node("n2"), Node("n3"),
                                                   Node("n4"), Node("n5"), Node("n6")};
  sch::SchedulerPolicy policy;
  policy.dry_run = true;
  auto outcome = Reconcile(backend_, audit_, Input({Bad("n3", "v-2", 0.1)}), policy, kNow);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->drained, 0);
  EXPECT_THAT(log_, ElementsAre("scheduler.drain.dry_run n3 OK"));
}

TEST_F(ReconcileTest, UnreadableSchedulerDecidesNothing) {
  backend_.nodes = absl::UnavailableError("slurm: `sinfo -h -N` exited 1: cannot contact");
  auto outcome =
      Reconcile(backend_, audit_, Input({Bad("n3", "v-2", 0.1)}), sch::SchedulerPolicy(), kNow);
  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.status().message(), HasSubstr("sinfo"));
  EXPECT_THAT(log_, ElementsAre("scheduler.read fleet UNAVAILABLE"));
}

TEST_F(ReconcileTest, UnrecordedIntentIsNotCarriedOut) {
  backend_.nodes = std::vector<sch::SchedulerNode>{Node("n1"), Node("n2"), Node("n3"),
                                                   Node("n4"), Node("n5"), Node("n6")};
  audit_.refuse_intents = absl::DeadlineExceededError("audit slow");
  auto outcome =
      Reconcile(backend_, audit_, Input({Bad("n3", "v-2", 0.1)}), sch::SchedulerPolicy(), kNow);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->failed, 1);
  EXPECT_THAT(log_, ElementsAre("scheduler.drain.intent n3 OK"));
}

TEST_F(ReconcileTest, RefusedDrainIsAuditedAsFailed) {
  backend_.nodes = std::vector<sch::SchedulerNode>{Node("n1"), Node("n2"), Node("n3"),
                                                   Node("n4"), Node("n5"), Node("n6")};
  backend_.refuse = absl::UnavailableError("slurm: scontrol exited 1");
  auto outcome =
      Reconcile(backend_, audit_, Input({Bad("n3", "v-2", 0.1)}), sch::SchedulerPolicy(), kNow);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->failed, 1);
  EXPECT_EQ(log_.back(), "scheduler.drain n3 UNAVAILABLE");
}

// A coordinator killed between n3's drain intent and the drain, after n5's
// drain: at start-up (no agent registered yet) the pass drains n3, leaves
// n5 as it is, and reports none of the nodes the history does not name as
// unknown; a second start-up pass finds nothing left to do.
TEST_F(ReconcileTest, StartUpPassCarriesOutWhatARestartLeftUndoneOnce) {
  backend_.nodes = std::vector<sch::SchedulerNode>{
      Node("n1"),
      Node("n2"),
      Node("n3"),
      Node("n4"),
      Node("n5", sch::NodeState::kDrained, "ebnccl v-1: rail 3 at 52% of expected"),
      Node("n6")};
  sch::SchedulerPolicy policy;
  policy.max_drained_share = 0.5;
  policy.max_drained_share_per_group = 0.5;
  const std::vector<sch::NodeVerdictRecord> recorded = {
      Bad("n3", "v-2", 0.1), Good("n1", "v-2", 0.1), Bad("n5", "v-1", 0.5)};
  const ReconcileInput input = StartUpInput(recorded, {});
  EXPECT_THAT(input.ebnccl_nodes, ElementsAre("n1", "n3", "n5"));
  EXPECT_FALSE(input.fleet_known);
  auto outcome = Reconcile(backend_, audit_, input, policy, kNow);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->drained, 1);
  ASSERT_EQ(log_.size(), 3u);
  EXPECT_EQ(log_[0], "scheduler.drain.intent n3 OK");
  EXPECT_THAT(log_[1], HasSubstr("drain n3: ebnccl v-2: "));
  EXPECT_EQ(log_[2], "scheduler.drain n3 OK");

  log_.clear();
  (*backend_.nodes)[2] = Node("n3", sch::NodeState::kDrained, "ebnccl v-2: rail 3 at 52%");
  outcome = Reconcile(backend_, audit_, StartUpInput(recorded, {"n1", "n2"}), policy, kNow);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->drained, 0);
  EXPECT_TRUE(log_.empty()) << log_[0];
}

// A fleet below its expected figure in v-2 is one audited finding, by
// v-2's own pass; the passes after later validations read the same
// verdicts and record it no more (they were each auditing it again).
TEST_F(ReconcileTest, AFleetFindingIsAuditedOnceByItsOwnValidationsPass) {
  backend_.nodes = std::vector<sch::SchedulerNode>{Node("n1"), Node("n2"), Node("n3"),
                                                   Node("n4"), Node("n5"), Node("n6")};
  std::vector<sch::NodeVerdictRecord> verdicts;
  for (const char* node : {"n1", "n2", "n3", "n4", "n5", "n6"}) {
    sch::NodeVerdictRecord record = Good(node, "v-2", 1);
    record.fleet_below_expected = "pairs (Gloo) at 40% of the site's figure";
    verdicts.push_back(record);
  }
  auto outcome = Reconcile(backend_, audit_, Input(verdicts), sch::SchedulerPolicy(), kNow);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_THAT(log_, ElementsAre("scheduler.finding fleet OK"));
  ASSERT_EQ(outcome->decision.findings.size(), 1u);
  EXPECT_EQ(outcome->decision.findings[0].validation_id, "v-2");

  log_.clear();
  for (const char* node : {"n1", "n2", "n3", "n4", "n5", "n6"}) {
    verdicts.push_back(Good(node, "v-3", 0.1));
  }
  ReconcileInput later = Input(verdicts);
  later.trigger = "validation v-3";
  later.validation_id = "v-3";
  outcome = Reconcile(backend_, audit_, later, sch::SchedulerPolicy(), kNow);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->decision.findings.size(), 1u);  // still decided on
  EXPECT_TRUE(log_.empty()) << log_[0];
}

}  // namespace
}  // namespace eb::scheduler_io
