// WorkerSupervisor when things go wrong: the registration deadline, crashes
// and exits, the hang watchdog, two ranks on one GPU, spawn failures, a bad
// sweep, and the evidence WorkersStopped carries about unfinished ranks.

#include "tests/unit/agent/worker_supervisor_fixture.h"

namespace eb::agent::supervisor_test {

TEST_F(WorkerSupervisorTest, RegistrationTimeoutReportsKillsAndStopsThePeers) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  sink_.Clear();

  // Rank 2 heartbeats (else the stop would also blame it as stale); rank 3
  // never registers.
  for (int i = 0; i < 9; ++i) {
    executor_.AdvanceTime(kHeartbeatPeriod);
    ASSERT_TRUE(Beat(2).ok());
  }
  executor_.AdvanceTime(kRegisterTimeout - 9 * kHeartbeatPeriod - absl::Milliseconds(1));
  EXPECT_THAT(sink_.messages(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());

  executor_.AdvanceTime(absl::Milliseconds(1));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  const v1::WorkerEvent& event = failures[0];
  EXPECT_EQ(event.kind(), v1::WORKER_EVENT_KIND_EXITED);
  EXPECT_EQ(event.test_id(), kTest);
  EXPECT_EQ(event.rank(), 3);
  EXPECT_EQ(event.failure().kind(), v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT);
  EXPECT_EQ(event.failure().rank(), 3);
  EXPECT_EQ(event.failure().node_name(), "node-a");
  EXPECT_EQ(event.failure().local_rank(), 1);
  EXPECT_EQ(event.failure().device_index(), 1);
  EXPECT_THAT(event.failure().message(), HasSubstr("did not register"));
  EXPECT_THAT(event.failure().message(), HasSubstr("10s"));
  EXPECT_THAT(event.failure().message(), HasSubstr(LogPath(3)));

  // Graduated stop of every worker: SIGTERM, SIGCONT (a stopped process
  // only acts on SIGTERM once continued), and no SIGKILL yet.
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));

  executor_.AdvanceTime(kGrace - absl::Milliseconds(1));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));
  executor_.AdvanceTime(absl::Milliseconds(1));
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT, SIGKILL));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT, SIGKILL));

  // The exits the stop caused are no further failures; one WorkersStopped.
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGKILL));
  EXPECT_THAT(sink_.Stopped(), IsEmpty());
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGKILL));
  EXPECT_EQ(sink_.Failures().size(), 1u);
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(supervisor_->LiveWorkers(), 0);
  EXPECT_THAT(supervisor_->RunningTests(), IsEmpty());
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(WorkerSupervisorTest, WorkersThatRegisterAndHeartbeatAreLeftAlone) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  for (int i = 0; i < 12; ++i) {
    executor_.AdvanceTime(kHeartbeatPeriod);
    ASSERT_TRUE(Beat(2).ok());
    ASSERT_TRUE(Beat(3).ok());
  }
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, NoRegistrationTimeoutAfterStop) {
  LaunchTwo();
  supervisor_->Stop(kTest, "cancelled");
  executor_.AdvanceTime(kRegisterTimeout + absl::Seconds(1));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
}

// --- Crash ------------------------------------------------------------------

TEST_F(WorkerSupervisorTest, CrashIsReportedAndThePeersAreStopped) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  executor_.AdvanceTime(absl::Milliseconds(500));
  sink_.Clear();

  Exit(rank3_, FakeProcessLauncher::Signaled(SIGKILL));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  const v1::WorkerEvent& event = failures[0];
  EXPECT_EQ(event.kind(), v1::WORKER_EVENT_KIND_EXITED);
  EXPECT_EQ(event.rank(), 3);
  EXPECT_EQ(event.failure().kind(), v1::FAILURE_KIND_WORKER_EXITED);
  EXPECT_EQ(event.failure().rank(), 3);
  EXPECT_EQ(event.failure().node_name(), "node-a");
  EXPECT_EQ(event.failure().local_rank(), 1);
  EXPECT_EQ(event.failure().device_index(), 1);
  EXPECT_EQ(event.failure().signal(), SIGKILL);
  EXPECT_EQ(event.failure().exit_code(), -1);
  EXPECT_THAT(event.failure().message(), HasSubstr("signal 9"));
  EXPECT_THAT(event.failure().message(), HasSubstr(std::to_string(rank3_.pid)));
  EXPECT_THAT(event.failure().message(), HasSubstr(LogPath(3)));

  // The peer is stopped; the dead one is not signalled.
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_THAT(SignalsTo(rank3_), IsEmpty());
  EXPECT_THAT(sink_.Stopped(), IsEmpty());
  EXPECT_EQ(Beat(2).value_or(false), true);

  // The peer obeys SIGTERM: not a failure, no SIGKILL, one WorkersStopped.
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_EQ(sink_.Failures().size(), 1u);
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  executor_.AdvanceTime(kGrace * 2);
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
}

TEST_F(WorkerSupervisorTest, NonZeroExitBeforeFinishingFillsTheExitCode) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  Exit(rank2_, FakeProcessLauncher::Code(3));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_EXITED);
  EXPECT_EQ(failures[0].failure().exit_code(), 3);
  EXPECT_EQ(failures[0].failure().signal(), 0);
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("exit code 3"));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));
}

TEST_F(WorkerSupervisorTest, ExitZeroWithoutFinishedIsStillAFailure) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  Exit(rank2_, FakeProcessLauncher::Code(0));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_EXITED);
  EXPECT_EQ(failures[0].failure().exit_code(), 0);
}

TEST_F(WorkerSupervisorTest, WorkersStoppedCarriesPortDeltasAndTheUnfinishedRanksWarnings) {
  // Issue 12: the ports are read at launch and once every worker is gone;
  // the logs of ranks that did not finish are searched for NCCL warnings.
  int reads = 0;
  read_ports_ = [&reads] {
    PortSnapshot port;
    port.hca = "mlx5_100";
    port.port = 1;
    port.link.set_state("ACTIVE");
    port.counters["symbol_error"] = reads++ == 0 ? 3 : 10;
    return std::vector<PortSnapshot>{port};
  };
  std::vector<std::string> logs_read;
  read_log_ = [&logs_read](const std::string& path, bool from_start, size_t) {
    if (from_start) return std::string();
    logs_read.push_back(path);
    return std::string("h:1:2 [0] net.cc:1 NCCL WARN NET/IB : Got completion with error 12\n");
  };
  MakeSupervisor();
  LaunchTwo();
  EXPECT_EQ(reads, 1);
  ASSERT_TRUE(Register(2).ok());
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGKILL));
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_EQ(reads, 2);
  const v1::AgentMessage& last = sink_.messages().back();
  ASSERT_TRUE(last.has_workers_stopped());
  const v1::NodeTestEvidence& evidence = last.workers_stopped().evidence();
  ASSERT_EQ(evidence.ports_size(), 1);
  EXPECT_EQ(evidence.ports(0).node_name(), "node-a");
  EXPECT_THAT(evidence.ports(0).grown_errors(), ElementsAre("symbol_error +7"));
  ASSERT_EQ(evidence.nccl_warnings_size(), 2);
  EXPECT_EQ(evidence.nccl_warnings(0).rank(), 2);
  EXPECT_EQ(evidence.nccl_warnings(1).rank(), 3);
  EXPECT_THAT(evidence.nccl_warnings(0).lines(0), HasSubstr("NCCL WARN NET/IB"));
  EXPECT_EQ(logs_read.size(), 2u);
}

TEST_F(WorkerSupervisorTest, ExitBeforeRegisteringIsReportedAsExitedNotAsTimeout) {
  LaunchTwo();
  Exit(rank2_, FakeProcessLauncher::Code(127));
  executor_.AdvanceTime(kRegisterTimeout + absl::Seconds(1));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_EXITED);
  EXPECT_EQ(failures[0].failure().exit_code(), 127);
}

// --- Hang watchdog ------------------------------------------------------------

TEST_F(WorkerSupervisorTest, SilentRegisteredWorkerIsKilledAsHung) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  const absl::Time registered = clock_.Now();
  sink_.Clear();

  // Rank 2 keeps heartbeating; rank 3 goes silent right after registering.
  absl::Duration detected_after = absl::ZeroDuration();
  while (clock_.Now() - registered < 2 * kHangTimeout) {
    executor_.AdvanceTime(absl::Milliseconds(500));
    if (!sink_.Failures().empty()) {
      detected_after = clock_.Now() - registered;
      break;
    }
    ASSERT_TRUE(Beat(2).ok());
  }
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_FAILED);
  EXPECT_EQ(failures[0].rank(), 3);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_HUNG);
  EXPECT_EQ(failures[0].failure().rank(), 3);
  EXPECT_EQ(failures[0].failure().node_name(), "node-a");
  EXPECT_EQ(failures[0].failure().local_rank(), 1);
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("heartbeat"));
  EXPECT_THAT(failures[0].failure().message(), HasSubstr(LogPath(3)));
  // Not before the timeout, and within one watchdog period (1 s) after it.
  EXPECT_GT(detected_after, kHangTimeout);
  EXPECT_LE(detected_after, kHangTimeout + absl::Seconds(1) + absl::Milliseconds(500));

  // The hung rank is SIGKILLed at once; the healthy one gets the graduated
  // stop.
  const std::vector<int> hung_signals = SignalsTo(rank3_);
  ASSERT_FALSE(hung_signals.empty());
  EXPECT_EQ(hung_signals.front(), SIGKILL);
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));

  // Its death by SIGKILL is not a second report.
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGKILL));
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_EQ(sink_.Failures().size(), 1u);
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
}

// The agent itself stopped (a frozen agent, SIGSTOPped or starved) for
// twice the hang timeout while its workers kept beating: when it runs
// again, the watchdog's timer fires before the queued heartbeats are read.
// That check judges nothing (common/time/late_check.h); the next one, with
// the heartbeats read, finds every worker alive.
TEST_F(WorkerSupervisorTest, AStalledAgentDoesNotCallItsWorkersHung) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  sink_.Clear();
  clock_.Advance(2 * kHangTimeout);  // the agent did not run
  executor_.RunUntilIdle();          // the late check runs first
  ASSERT_TRUE(Beat(2).ok());         // then the heartbeats that waited
  ASSERT_TRUE(Beat(3).ok());
  for (int i = 0; i < 4; ++i) {
    executor_.AdvanceTime(absl::Seconds(1));
    ASSERT_TRUE(Beat(2).ok());
    ASSERT_TRUE(Beat(3).ok());
  }
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());
}

// The same stall with a worker that really went silent: it is found one
// check period after the deferred check, not lost.
TEST_F(WorkerSupervisorTest, AStalledAgentStillFindsAHungWorkerOnePeriodLater) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  sink_.Clear();
  clock_.Advance(2 * kHangTimeout);
  executor_.RunUntilIdle();
  ASSERT_TRUE(Beat(2).ok());  // rank 3 sends nothing
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  executor_.AdvanceTime(absl::Seconds(1));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].rank(), 3);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_HUNG);
}

// A registration that waited behind the agent's own stall is not a
// registration timeout.
TEST_F(WorkerSupervisorTest, AStalledAgentDoesNotTimeOutQueuedRegistrations) {
  LaunchTwo();
  sink_.Clear();
  clock_.Advance(2 * kRegisterTimeout);
  executor_.RunUntilIdle();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  executor_.AdvanceTime(absl::Seconds(2));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, WatchdogIgnoresFinishedWorkers) {
  supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Report(2, v1::WORKER_EVENT_KIND_FINISHED).ok());
  ASSERT_TRUE(Register(3).ok());
  // Rank 2 finished and went quiet while it exits; rank 3 keeps beating.
  for (int i = 0; i < 2 * absl::ToInt64Seconds(kHangTimeout); ++i) {
    executor_.AdvanceTime(absl::Seconds(1));
    ASSERT_TRUE(Beat(3).ok());
  }
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, StaleWorkerAtStopTimeIsReportedAsHung) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  // Rank 3 is SIGSTOPped: silent for 5 s, well under the hang timeout but
  // more than three heartbeat periods; rank 2 keeps beating.
  for (int i = 0; i < 5; ++i) {
    executor_.AdvanceTime(kHeartbeatPeriod);
    ASSERT_TRUE(Beat(2).ok());
  }
  ASSERT_THAT(sink_.Failures(), IsEmpty());
  supervisor_->Stop(kTest, "rank 0 on node-b reported a timeout");

  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_FAILED);
  EXPECT_EQ(failures[0].rank(), 3);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_HUNG);
  EXPECT_EQ(failures[0].failure().node_name(), "node-a");
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("stopped heartbeating 5s"));
  // SIGCONT so the stopped process can act on SIGTERM.
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));
}

// The shipped defaults (250 ms heartbeats, 2.5 s hang timeout): a heartbeat
// 1 s old is four periods, but under half the hang timeout: not stale.
TEST_F(WorkerSupervisorTest, AWorkerIsStaleAtStopTimeOnlyPastHalfItsHangTimeout) {
  config_.worker_heartbeat_period = absl::Milliseconds(250);
  config_.worker_hang_timeout = absl::Milliseconds(2500);
  MakeSupervisor();  // it keeps a copy of the config
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  executor_.AdvanceTime(absl::Seconds(1));
  supervisor_->Stop(kTest, "cancelled");
  EXPECT_THAT(sink_.Failures(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, FreshWorkersAtStopTimeAreNotBlamed) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  executor_.AdvanceTime(3 * kHeartbeatPeriod);  // Exactly at the limit.
  supervisor_->Stop(kTest, "cancelled");
  EXPECT_THAT(sink_.Failures(), IsEmpty());
}

// --- Duplicate GPU and spawn failures ------------------------------------------

TEST_F(WorkerSupervisorTest, TwoRanksOnOneGpuAreRefusedWithLaunchFailed) {
  supervisor_->Launch(MakeLaunch(kTest, {0, 0}));
  executor_.RunUntilIdle();
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_EXITED);
  EXPECT_EQ(failures[0].rank(), 3);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
  EXPECT_EQ(failures[0].failure().device_index(), 0);
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("GPU 0"));
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("rank 2"));
  // The duplicate itself is never started; the test does not wait for
  // registrations.
  for (const common::ProcessSpec& spec : launcher_.specs()) {
    EXPECT_NE(ArgValue(spec, "rank"), "3");
  }
  EXPECT_FALSE(Register(2, "token-1").ok());
  // Whatever did start is stopped and reaped, then WorkersStopped.
  executor_.AdvanceTime(kGrace);
  for (const common::ChildHandle& child : launcher_.Running()) {
    EXPECT_THAT(SignalsTo(child), ElementsAre(SIGTERM, SIGCONT, SIGKILL));
    Exit(child, FakeProcessLauncher::Signaled(SIGKILL));
  }
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(sink_.Failures().size(), 1u);
}

// Regression (fixed): Launch() says it refuses duplicate GPUs "before anything starts", and
// STYLE.md rule 19 says the agent refuses two ranks on one device, but only
// the duplicate rank is skipped: the spawn loop still starts every other rank
// of the refused test (here rank 2 on GPU 0) and then SIGTERMs it, so a
// refused launch briefly runs a CUDA worker, and WorkersStopped waits for it
// to die (up to worker_grace). Proposed fix in WorkerSupervisor::Launch: after
// the duplicate-device scan, if any rank was reported, skip the spawn loop
// entirely (set test.stopping, no timers) and go straight to MaybeFinish(),
// which then answers WorkersStopped at once since nothing was spawned.
TEST_F(WorkerSupervisorTest, TwoRanksOnOneGpuSpawnNothing) {
  supervisor_->Launch(MakeLaunch(kTest, {0, 0}));
  executor_.RunUntilIdle();
  EXPECT_THAT(launcher_.specs(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(WorkerSupervisorTest, CpuRanksMayShareDeviceMinusOne) {
  supervisor_->Launch(MakeLaunch(kTest, {-1, -1}));
  executor_.RunUntilIdle();
  EXPECT_EQ(launcher_.Running().size(), 2u);
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  ASSERT_TRUE(Register(2).ok());
  EXPECT_EQ(Register(2)->assignment().device_index(), -1);
}

TEST_F(WorkerSupervisorTest, SpawnFailureReportsLaunchFailedAndStopsTheOthers) {
  launcher_.FailNextSpawn(absl::NotFoundError("/opt/eb/bin/eb-worker: No such file"));
  supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
  executor_.RunUntilIdle();

  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_EXITED);
  EXPECT_EQ(failures[0].rank(), 2);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
  EXPECT_EQ(failures[0].failure().node_name(), "node-a");
  EXPECT_EQ(failures[0].failure().local_rank(), 0);
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("cannot start /opt/eb/bin/eb-worker"));
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("No such file"));

  const auto running = launcher_.Running();
  ASSERT_EQ(running.size(), 1u);
  EXPECT_THAT(SignalsTo(running[0]), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_EQ(Beat(3).value_or(false), true);
  EXPECT_EQ(Register(3).status().code(), absl::StatusCode::kFailedPrecondition);

  // No registration deadline runs for a refused launch.
  executor_.AdvanceTime(kRegisterTimeout + absl::Seconds(1));
  EXPECT_EQ(sink_.Failures().size(), 1u);
  EXPECT_THAT(SignalsTo(running[0]), ElementsAre(SIGTERM, SIGCONT, SIGKILL));
  Exit(running[0], FakeProcessLauncher::Signaled(SIGKILL));
  EXPECT_EQ(sink_.Failures().size(), 1u);
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
}

TEST_F(WorkerSupervisorTest, NothingSpawnedAnswersWorkersStoppedAtOnce) {
  launcher_.FailNextSpawn(absl::PermissionDeniedError("EACCES"));
  supervisor_->Launch(MakeLaunch(kTest, {0}));
  executor_.RunUntilIdle();
  ASSERT_EQ(sink_.Failures().size(), 1u);
  EXPECT_EQ(sink_.Failures()[0].failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_THAT(supervisor_->RunningTests(), IsEmpty());
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(WorkerSupervisorTest, UncreatableLogDirectoryFailsEveryRankWithoutSpawning) {
  std::vector<std::string> asked;
  create_directories_ = [&asked](const std::string& path) {
    asked.push_back(path);
    return absl::FailedPreconditionError("Permission denied");
  };
  MakeSupervisor();
  supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
  executor_.RunUntilIdle();
  EXPECT_THAT(asked, ElementsAre(absl::StrCat(run_dir_, "/logs/", kTest)));
  EXPECT_THAT(launcher_.specs(), IsEmpty());
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 2u);
  for (const v1::WorkerEvent& failure : failures) {
    EXPECT_EQ(failure.failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
    EXPECT_THAT(failure.failure().message(),
                HasSubstr(absl::StrCat("cannot create the log directory under ", run_dir_,
                                       ": Permission denied")));
  }
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

// A launch the agent cannot run as sent (a coordinator of another version,
// or a bug) is refused whole: one failure naming the field, nothing
// spawned, no timer, WorkersStopped at once.
TEST_F(WorkerSupervisorTest, ABadSweepIsRefusedBeforeAnythingStarts) {
  auto refuse = [&](const v1::LaunchTest& launch, const std::string& why) {
    SCOPED_TRACE(why);
    sink_.Clear();
    supervisor_->Launch(launch);
    executor_.RunUntilIdle();
    EXPECT_THAT(launcher_.specs(), IsEmpty());
    const auto failures = sink_.Failures();
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_EXITED);
    EXPECT_EQ(failures[0].rank(), 2);
    EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
    EXPECT_EQ(failures[0].failure().node_name(), "node-a");
    EXPECT_THAT(failures[0].failure().message(),
                AllOf(HasSubstr("refused the launch, nothing was started"),
                      HasSubstr("INVALID_ARGUMENT: sizes_bytes: "), HasSubstr(why),
                      HasSubstr("same ebnccl version")));
    EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
    EXPECT_THAT(supervisor_->RunningTests(), IsEmpty());
    EXPECT_EQ(executor_.pending_timers(), 0u);
  };
  v1::LaunchTest launch = MakeLaunch(kTest, {0, 1});
  launch.clear_sizes_bytes();  // an older coordinator
  refuse(launch, "no size to run");
  launch = MakeLaunch(kTest, {0, 1});
  for (int i = 0; i < 10'000; ++i) launch.add_sizes_bytes(1 << 20);
  refuse(launch, "10006 sizes; a sweep has at most 10000");
  launch = MakeLaunch(kTest, {0, 1});
  launch.set_sizes_bytes(0, -1024);
  refuse(launch, "size #0 (-1024) is negative");
  launch = MakeLaunch(kTest, {0, 1});
  launch.set_sizes_bytes(2, 2048);
  refuse(launch, "size #2 (2048) is smaller than the size before it (4096)");
  launch = MakeLaunch(kTest, {0, 1});
  launch.mutable_spec()->set_max_bytes(65536);
  refuse(launch, "size #4 (262144) is larger than max_bytes 65536");
}

// --- Exits that race with a stop ------------------------------------------------

// A worker SIGKILLed from outside (the OOM killer, an operator) breaks its
// peers' connections; a peer on another node may report the reset first, and
// the coordinator's stop can reach this agent before the exit does. The exit
// is still the cause, so it is still reported (it was lost under load).
TEST_F(WorkerSupervisorTest, SigkillThisAgentNeverSentIsReportedEvenDuringAStop) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  supervisor_->Stop(kTest, "rank 0 on node-b: connection reset by peer");
  ASSERT_THAT(sink_.Failures(), IsEmpty());

  Exit(rank3_, FakeProcessLauncher::Signaled(SIGKILL));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_EXITED);
  EXPECT_EQ(failures[0].rank(), 3);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_EXITED);
  EXPECT_EQ(failures[0].failure().signal(), SIGKILL);
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("before finishing"));

  // The peer obeys the stop's SIGTERM: not a failure; one WorkersStopped.
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_EQ(sink_.Failures().size(), 1u);
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
}

TEST_F(WorkerSupervisorTest, ExitsTheStopCausedAreNotFailures) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  supervisor_->Stop(kTest, "cancelled");
  // Rank 2 ends with a code on SIGTERM; rank 3 ignores it and gets the
  // SIGKILL of the grace deadline.
  Exit(rank2_, FakeProcessLauncher::Code(1));
  executor_.AdvanceTime(kGrace * 2);
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT, SIGKILL));
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGKILL));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
}

TEST_F(WorkerSupervisorTest, CrashAfterTheStopsSigtermIsNotBlamed) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  supervisor_->Stop(kTest, "rank 0 on node-b: connection reset by peer");
  // A SIGSEGV after the agent's SIGTERM may be the stop's doing (a crash on
  // the way out): logged, not blamed. Here rank 2 gets it after SIGTERM.
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGSEGV));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
}

}  // namespace eb::agent::supervisor_test
