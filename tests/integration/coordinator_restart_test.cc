// A coordinator restart in the middle of a multi-agent setup: the agents
// reconnect and register again, the history survives (the finished test
// intact, the one that was running marked interrupted), and the next test
// passes.

#include <signal.h>
#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "coordinator/history/sqlite_statement.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/cli_json.h"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

// Starts a test that runs for minutes on host0,host1 (2 workers each) and
// waits until its 4 workers are up; returns the ebctl handle.
int StartLongTest(LocalCluster& cluster) {
  const int handle = cluster.StartEbctl(LongSweepArgs());
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (cluster.WorkerPids().size() < 4 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  return handle;
}

// Whether the history file holds a row for `test_id`, read as another
// process would (read-only, beside the coordinator's connection).
bool OnDisk(const std::string& history_path, const std::string& test_id) {
  sqlite3* db = nullptr;
  bool found = false;
  if (sqlite3_open_v2(history_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    absl::StatusOr<coordinator::SqliteStatement> select = coordinator::SqliteStatement::Prepare(
        db, history_path, "SELECT 1 FROM tests WHERE test_id = ?1");
    if (select.ok() && select->BindText(1, test_id).ok()) {
      absl::StatusOr<bool> row = select->Step();
      found = row.ok() && *row;
    }
  }
  sqlite3_close(db);
  return found;
}

// The coordinator writes its history behind the event loop
// (coordinator/history/write_behind_history.h): a SIGKILL loses the saves
// of its last moments, by design. A crash test must therefore kill it only
// once the running test's record is on disk; on a loaded machine the write
// can lag the workers' start (CI: killed 110 ms after the start, not yet
// written). Returns whether every test `ebctl jobs` lists (it lists the
// unwritten ones too) got there within 10 s.
bool WaitUntilEveryTestIsOnDisk(LocalCluster& cluster, size_t tests) {
  const std::string history_path = cluster.history_path();
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (absl::Now() < deadline) {
    nlohmann::json jobs =
        nlohmann::json::parse(cluster.Ebctl({"jobs", "--json"}).out, nullptr, false);
    if (!jobs.is_discarded() && jobs["tests"].size() == tests &&
        std::all_of(jobs["tests"].begin(), jobs["tests"].end(), [&](const nlohmann::json& job) {
          return OnDisk(history_path, job["test_id"]);
        })) {
      return true;
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  return false;
}

TEST(CoordinatorRestartTest, AgentsComeBackAndHistorySurvives) {
  LocalCluster cluster;
  ASSERT_TRUE(cluster.StartCoordinator().ok());
  ASSERT_TRUE(cluster.StartAgent("host0", 2).ok());
  ASSERT_TRUE(cluster.StartAgent("host1", 2).ok());

  nlohmann::json finished = ParseJsonOut(cluster.Ebctl(QuickTestArgs()));
  ASSERT_EQ(finished["state"], "passed");
  const std::string finished_id = finished["test_id"];

  // A long test, cut by a coordinator crash.
  const int handle = StartLongTest(cluster);
  ASSERT_EQ(cluster.WorkerPids().size(), 4u);
  ASSERT_TRUE(WaitUntilEveryTestIsOnDisk(cluster, 2));
  ASSERT_TRUE(cluster.RestartCoordinator(SIGKILL).ok());
  CliResult cut = cluster.WaitEbctl(handle);
  EXPECT_EQ(cut.exit_code, 8) << cut.err;  // the coordinator went away mid-call

  // The agents stopped the orphaned workers and registered again.
  EXPECT_TRUE(cluster.WaitForNoWorkers("", absl::Seconds(10)));
  ASSERT_TRUE(cluster.WaitForIdleNodes(2, absl::Seconds(30)).ok());

  nlohmann::json jobs = ParseJsonOut(cluster.Ebctl({"jobs", "--json"}))["tests"];
  ASSERT_EQ(jobs.size(), 2u) << jobs.dump(2);
  EXPECT_EQ(jobs[0]["state"], "interrupted");  // newest first
  EXPECT_EQ(jobs[1]["test_id"], finished_id);
  EXPECT_EQ(jobs[1]["state"], "passed");
  nlohmann::json shown = ParseJsonOut(cluster.Ebctl({"show", finished_id, "--json"}));
  EXPECT_EQ(shown["results"].size(), finished["results"].size());

  nlohmann::json next = ParseJsonOut(cluster.Ebctl(QuickTestArgs()));
  EXPECT_EQ(next["state"], "passed") << next["summary"];
}

// systemctl restart: SIGTERM mid-test. The test ends as interrupted (not as
// failed, and no healthy node is blamed), its client hears so, the agents
// stop the workers and come back, and the next test passes.
TEST(CoordinatorRestartTest, GracefulStopInterruptsTheRunningTestWithoutBlamingNodes) {
  LocalCluster cluster;
  ASSERT_TRUE(cluster.StartCoordinator().ok());
  ASSERT_TRUE(cluster.StartAgent("host0", 2).ok());
  ASSERT_TRUE(cluster.StartAgent("host1", 2).ok());

  const int handle = StartLongTest(cluster);
  ASSERT_EQ(cluster.WorkerPids().size(), 4u);
  ASSERT_TRUE(cluster.RestartCoordinator(SIGTERM).ok());
  CliResult cut = cluster.WaitEbctl(handle);
  EXPECT_EQ(cut.exit_code, 130) << cut.out << cut.err;
  EXPECT_EQ(ParseJsonOut(cut)["state"], "interrupted");

  EXPECT_TRUE(cluster.WaitForNoWorkers("", absl::Seconds(10)));
  ASSERT_TRUE(cluster.WaitForIdleNodes(2, absl::Seconds(30)).ok());
  nlohmann::json jobs = ParseJsonOut(cluster.Ebctl({"jobs", "--json"}))["tests"];
  ASSERT_EQ(jobs.size(), 1u) << jobs.dump(2);
  EXPECT_EQ(jobs[0]["state"], "interrupted");
  nlohmann::json shown = ParseJsonOut(cluster.Ebctl({"show", jobs[0]["test_id"], "--json"}));
  ASSERT_GE(shown["failures"].size(), 1u) << shown.dump(2);
  EXPECT_EQ(shown["failures"][0]["kind"], "interrupted");
  for (const auto& failure : shown["failures"]) EXPECT_NE(failure["kind"], "node_lost") << failure;

  nlohmann::json next = ParseJsonOut(cluster.Ebctl(QuickTestArgs()));
  EXPECT_EQ(next["state"], "passed") << next["summary"];
}

}  // namespace
}  // namespace eb::testing
