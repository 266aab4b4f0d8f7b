// WriteBehindTestHistory (coordinator/history/write_behind_history.h) over
// an inner history whose writes the test holds back: a Save returns at once
// and is readable at once, saves made during a write go in the next one
// together, the newest copy of a test wins, a failed write is survived, and
// destruction writes what is left. (The TestHistory contract itself runs
// over it in test_history_test.cc.)

#include "coordinator/history/write_behind_history.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "coordinator/history/in_memory_history.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/history/history_test_util.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using test::MakeReport;
using ::testing::ElementsAre;

// An in-memory history whose SaveAll waits until the test opens the gate,
// and records each batch's test ids.
class GatedHistory final : public TestHistory {
 public:
  absl::Status Save(const v1::TestReport& report) override { return stored_->Save(report); }
  absl::Status SaveAll(const std::vector<v1::TestReport>& reports) override {
    absl::MutexLock lock(&mu_);
    std::vector<std::string> ids;
    for (const v1::TestReport& report : reports) ids.push_back(report.test_id());
    batches_.push_back(ids);
    mu_.Await(absl::Condition(&open_));
    if (!fail_.ok()) return fail_;
    for (const v1::TestReport& report : reports) (void)stored_->Save(report);
    return absl::OkStatus();
  }
  absl::StatusOr<v1::TestReport> Get(const std::string& id) const override {
    return stored_->Get(id);
  }
  absl::StatusOr<std::vector<v1::TestReport>> List(int limit) const override {
    return stored_->List(limit);
  }
  absl::StatusOr<int> MarkInterrupted(const std::string& reason, int64_t now_ms) override {
    return stored_->MarkInterrupted(reason, now_ms);
  }

  void Open() {
    absl::MutexLock lock(&mu_);
    open_ = true;
  }
  void FailWrites(absl::Status status) {
    absl::MutexLock lock(&mu_);
    fail_ = std::move(status);
  }
  // Waits until `count` batches have started.
  std::vector<std::vector<std::string>> AwaitBatches(size_t count) {
    absl::MutexLock lock(&mu_);
    auto started = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return batches_.size() >= count; };
    mu_.Await(absl::Condition(&started));
    return batches_;
  }
  bool Stored(const std::string& id) const { return stored_->Get(id).ok(); }
  // What was written, kept beyond this history's life.
  std::shared_ptr<InMemoryTestHistory> stored() const { return stored_; }

 private:
  mutable absl::Mutex mu_;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status fail_ ABSL_GUARDED_BY(mu_);
  std::vector<std::vector<std::string>> batches_ ABSL_GUARDED_BY(mu_);
  const std::shared_ptr<InMemoryTestHistory> stored_ = std::make_shared<InMemoryTestHistory>(0);
};

TEST(WriteBehindHistoryTest, ASaveIsReadableAtOnceAndSavesDuringAWriteGoTogether) {
  auto gated = std::make_unique<GatedHistory>();
  GatedHistory& inner = *gated;
  WriteBehindTestHistory history(std::move(gated));
  ASSERT_TRUE(history.Save(MakeReport("t-1", 1000, v1::TEST_STATE_LAUNCHING)).ok());
  // The writer holds t-1 at the gate; these queue meanwhile.
  EXPECT_THAT(inner.AwaitBatches(1), ElementsAre(ElementsAre("t-1")));
  for (int i = 2; i <= 5; ++i) {
    ASSERT_TRUE(
        history.Save(MakeReport("t-" + std::to_string(i), i * 1000, v1::TEST_STATE_PASSED)).ok());
  }
  // t-1 again, finished: the newest copy is the one read and written.
  ASSERT_TRUE(history.Save(MakeReport("t-1", 1000, v1::TEST_STATE_FAILED)).ok());
  EXPECT_FALSE(inner.Stored("t-1"));
  EXPECT_EQ(history.Get("t-1")->state(), v1::TEST_STATE_FAILED);
  EXPECT_EQ(history.Get("t-4")->state(), v1::TEST_STATE_PASSED);
  auto listed = history.List(3);
  ASSERT_TRUE(listed.ok());
  std::vector<std::string> ids;
  for (const auto& report : *listed) ids.push_back(report.test_id());
  EXPECT_THAT(ids, ElementsAre("t-5", "t-4", "t-3"));
  inner.Open();
  history.Flush();
  // Two writes: t-1, then everything saved during it, together.
  EXPECT_THAT(inner.AwaitBatches(2),
              ElementsAre(ElementsAre("t-1"), ElementsAre("t-1", "t-2", "t-3", "t-4", "t-5")));
  EXPECT_EQ(history.Get("t-1")->state(), v1::TEST_STATE_FAILED);
  EXPECT_TRUE(inner.Stored("t-5"));
}

TEST(WriteBehindHistoryTest, AFailedWriteIsLoggedAndTheNextOneStillHappens) {
  auto gated = std::make_unique<GatedHistory>();
  GatedHistory& inner = *gated;
  inner.FailWrites(absl::UnavailableError("disk full"));
  inner.Open();
  WriteBehindTestHistory history(std::move(gated));
  ASSERT_TRUE(history.Save(MakeReport("t-1", 1000, v1::TEST_STATE_PASSED)).ok());
  history.Flush();
  // Lost, as a failed synchronous save was.
  EXPECT_EQ(history.Get("t-1").status().code(), absl::StatusCode::kNotFound);
  inner.FailWrites(absl::OkStatus());
  ASSERT_TRUE(history.Save(MakeReport("t-2", 2000, v1::TEST_STATE_PASSED)).ok());
  history.Flush();
  EXPECT_TRUE(inner.Stored("t-2"));
}

TEST(WriteBehindHistoryTest, DestructionWritesWhatIsPending) {
  auto gated = std::make_unique<GatedHistory>();
  const std::shared_ptr<InMemoryTestHistory> stored = gated->stored();
  {
    GatedHistory& inner = *gated;
    WriteBehindTestHistory history(std::move(gated));
    ASSERT_TRUE(history.Save(MakeReport("t-1", 1000, v1::TEST_STATE_PASSED)).ok());
    inner.AwaitBatches(1);
    // Pending while the writer is held: the destructor must still write it.
    ASSERT_TRUE(history.Save(MakeReport("t-2", 2000, v1::TEST_STATE_PASSED)).ok());
    inner.Open();
  }
  EXPECT_TRUE(stored->Get("t-1").ok());
  EXPECT_TRUE(stored->Get("t-2").ok());
}

TEST(WriteBehindHistoryTest, RejectsAReportWithoutId) {
  WriteBehindTestHistory history(std::make_unique<InMemoryTestHistory>(0));
  EXPECT_EQ(history.Save(v1::TestReport()).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace eb::coordinator
