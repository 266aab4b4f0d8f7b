// The supervisor and NCCL's RAS (issue 12, part 5): each NCCL test gets its
// own RAS port, RAS is asked before the workers are signalled, its reply
// goes with WorkersStopped, and a query that never answers cannot hold the
// stop past its backstop. The query is a fake (the socket side is
// nccl_ras_client_test.cc); time moves only through ManualExecutor.

#include "tests/unit/agent/worker_supervisor_fixture.h"

namespace eb::agent::supervisor_test {
namespace {

struct RasCall {
  int port = 0;
  std::function<void(NcclRasExchange)> done;
};

class WorkerSupervisorRasTest : public WorkerSupervisorTest {
 protected:
  WorkerSupervisorRasTest() {
    config_.nccl_ras_port_base = 28100;
    query_ras_ = [this](int port, std::function<void(NcclRasExchange)> done) {
      calls_.push_back(RasCall{port, std::move(done)});
    };
    MakeSupervisor();
  }

  static v1::LaunchTest NcclLaunch(const std::string& test_id, std::vector<int> devices) {
    v1::LaunchTest launch = MakeLaunch(test_id, std::move(devices));
    launch.mutable_spec()->set_transport(v1::TRANSPORT_NCCL);
    return launch;
  }

  void LaunchTwoNccl() {
    supervisor_->Launch(NcclLaunch(kTest, {0, 1}));
    executor_.RunUntilIdle();
    const auto running = launcher_.Running();
    ASSERT_EQ(running.size(), 2u);
    rank2_ = running[0];
    rank3_ = running[1];
  }

  static NcclRasExchange Reply(const std::string& status) {
    NcclRasExchange exchange;
    exchange.received = "SERVER PROTOCOL 2\nOK\n" + status;
    exchange.closed = true;
    return exchange;
  }

  std::vector<RasCall> calls_;
};

TEST_F(WorkerSupervisorRasTest, EachNcclTestGetsItsOwnRasPort) {
  supervisor_->Launch(NcclLaunch("t-a", {0}));
  supervisor_->Launch(NcclLaunch("t-b", {1}));
  executor_.RunUntilIdle();
  ASSERT_EQ(launcher_.specs().size(), 2u);
  EXPECT_EQ(EnvValue(launcher_.specs()[0], "NCCL_RAS_ADDR"), "127.0.0.1:28100");
  EXPECT_EQ(EnvValue(launcher_.specs()[1], "NCCL_RAS_ADDR"), "127.0.0.1:28101");
  // A Gloo test loads no NCCL: its environment is left alone.
  v1::LaunchTest gloo = MakeLaunch("t-c", {2});
  gloo.mutable_spec()->set_transport(v1::TRANSPORT_GLOO);
  supervisor_->Launch(gloo);
  ASSERT_EQ(launcher_.specs().size(), 3u);
  EXPECT_EQ(EnvValue(launcher_.specs()[2], "NCCL_RAS_ADDR"), "");
}

TEST_F(WorkerSupervisorRasTest, RasIsAskedBeforeTheWorkersAreSignalled) {
  LaunchTwoNccl();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  supervisor_->Stop(kTest, "the test timed out");
  executor_.RunUntilIdle();
  ASSERT_EQ(calls_.size(), 1u);
  EXPECT_EQ(calls_[0].port, 28100);
  // Nothing is signalled while the query is in flight.
  EXPECT_THAT(SignalsTo(rank2_), IsEmpty());
  EXPECT_THAT(SignalsTo(rank3_), IsEmpty());

  calls_[0].done(Reply("Job summary\n===========\n#0-0 (cf264af53edbe986) INCOMPLETE\n"));
  executor_.RunUntilIdle();
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGTERM));
  const v1::AgentMessage last = sink_.messages().back();
  ASSERT_TRUE(last.has_workers_stopped());
  const v1::NcclRasStatus ras = last.workers_stopped().evidence().nccl_ras();
  EXPECT_EQ(ras.node_name(), "node-a");
  EXPECT_EQ(ras.port(), 28100);
  EXPECT_EQ(ras.text(), "Job summary\n===========\n#0-0 (cf264af53edbe986) INCOMPLETE\n");
  EXPECT_EQ(ras.error(), "");
  // Its port is free again for the next test.
  supervisor_->Launch(NcclLaunch("t-next", {0}));
  EXPECT_EQ(EnvValue(launcher_.specs().back(), "NCCL_RAS_ADDR"), "127.0.0.1:28100");
}

TEST_F(WorkerSupervisorRasTest, NothingAnsweringIsOneLineAndTheStopGoesOn) {
  LaunchTwoNccl();
  ASSERT_TRUE(Register(2).ok());
  supervisor_->Stop(kTest, "rank 3 failed");
  executor_.RunUntilIdle();
  ASSERT_EQ(calls_.size(), 1u);
  NcclRasExchange refused;
  refused.connect_error = "Connection refused";
  calls_[0].done(refused);
  executor_.RunUntilIdle();
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGTERM));
  const v1::NcclRasStatus ras = sink_.messages().back().workers_stopped().evidence().nccl_ras();
  EXPECT_EQ(ras.text(), "");
  EXPECT_EQ(ras.error(), "RAS not reachable on port 28100: Connection refused");
}

TEST_F(WorkerSupervisorRasTest, AQueryThatNeverAnswersCannotHoldTheStop) {
  LaunchTwoNccl();
  ASSERT_TRUE(Register(2).ok());
  supervisor_->Stop(kTest, "the test timed out");
  executor_.RunUntilIdle();
  ASSERT_EQ(calls_.size(), 1u);
  executor_.AdvanceTime(NcclRasLimits{}.deadline);
  EXPECT_THAT(SignalsTo(rank2_), IsEmpty());
  executor_.AdvanceTime(absl::Seconds(1));
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  // A reply after the backstop is ignored.
  calls_[0].done(Reply("late\n"));
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGTERM));
  const v1::NcclRasStatus ras = sink_.messages().back().workers_stopped().evidence().nccl_ras();
  EXPECT_EQ(ras.text(), "");
  EXPECT_EQ(ras.error(), "the RAS query did not end in time");
}

TEST_F(WorkerSupervisorRasTest, AHungWorkerIsKilledOnlyAfterRasAnswered) {
  LaunchTwoNccl();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  const absl::Time registered = clock_.Now();
  while (clock_.Now() - registered < 2 * kHangTimeout && calls_.empty()) {
    executor_.AdvanceTime(absl::Milliseconds(500));
    ASSERT_TRUE(Beat(2).ok());
  }
  ASSERT_EQ(calls_.size(), 1u);
  ASSERT_EQ(sink_.Failures().size(), 1u);
  EXPECT_EQ(sink_.Failures()[0].failure().kind(), v1::FAILURE_KIND_WORKER_HUNG);
  EXPECT_THAT(SignalsTo(rank3_), IsEmpty());
  calls_[0].done(Reply("Errors\n======\nDEAD\n"));
  executor_.RunUntilIdle();
  const std::vector<int> hung = SignalsTo(rank3_);
  ASSERT_FALSE(hung.empty());
  EXPECT_EQ(hung.front(), SIGKILL);
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
}

TEST_F(WorkerSupervisorRasTest, StopAllDoesNotAskRas) {
  // Shutdown waits a bounded time for the workers, and without the
  // coordinator no report would carry the answer: the stop is immediate.
  LaunchTwoNccl();
  ASSERT_TRUE(Register(2).ok());
  supervisor_->StopAll("the agent is shutting down");
  executor_.RunUntilIdle();
  EXPECT_TRUE(calls_.empty());
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
}

TEST_F(WorkerSupervisorRasTest, NoQueryWithoutALiveRegisteredWorkerOrWithRasOff) {
  // Nobody registered: no NCCL ran, nothing to ask.
  LaunchTwoNccl();
  supervisor_->Stop(kTest, "launch failed");
  executor_.RunUntilIdle();
  EXPECT_TRUE(calls_.empty());
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));

  // NCCL_RAS_ENABLE=0 in the workers' environment (--worker-env; a test's
  // nccl_env may not set it).
  config_.worker_env = {"NCCL_RAS_ENABLE=0"};
  MakeSupervisor();
  supervisor_->Launch(NcclLaunch("t-off", {2}));
  executor_.RunUntilIdle();
  EXPECT_EQ(EnvValue(launcher_.specs().back(), "NCCL_RAS_ENABLE"), "0");
  v1::RegisterWorkerRequest request;
  request.set_test_id("t-off");
  request.set_rank(1);  // MakeLaunch numbers one rank on node 1 as rank 1
  request.set_worker_token(EnvValue(launcher_.specs().back(), "EB_WORKER_TOKEN"));
  ASSERT_TRUE(supervisor_->RegisterWorker(request).ok());
  supervisor_->Stop("t-off", "failed");
  executor_.RunUntilIdle();
  EXPECT_TRUE(calls_.empty());
  EXPECT_THAT(SignalsTo(launcher_.Running().back()), ElementsAre(SIGTERM, SIGCONT));

  // --nccl-ras-port-base=0: the environment is left alone, nothing asked.
  config_.nccl_ras_port_base = 0;
  MakeSupervisor();
  supervisor_->Launch(NcclLaunch("t-zero", {3}));
  EXPECT_EQ(EnvValue(launcher_.specs().back(), "NCCL_RAS_ADDR"), "");
}

}  // namespace
}  // namespace eb::agent::supervisor_test
