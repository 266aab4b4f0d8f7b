// WorkerSupervisor's normal life: launch, registration, heartbeats, the
// events forwarded to the coordinator, a graduated stop, tokens. Failures and
// the watchdog: worker_supervisor_failure_test.cc.

#include "tests/unit/agent/worker_supervisor_fixture.h"

namespace eb::agent::supervisor_test {

TEST_F(WorkerSupervisorTest, LaunchSpawnsOneWorkerPerRankWithItsSpec) {
  LaunchTwo();
  ASSERT_EQ(launcher_.specs().size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const common::ProcessSpec& spec = launcher_.specs()[static_cast<size_t>(i)];
    const int rank = 2 + i;
    EXPECT_EQ(spec.executable, "/opt/eb/bin/eb-worker");
    EXPECT_EQ(spec.argv[0], "/opt/eb/bin/eb-worker");
    EXPECT_EQ(ArgValue(spec, "rank"), std::to_string(rank));
    EXPECT_EQ(ArgValue(spec, "test-id"), kTest);
    EXPECT_EQ(ArgValue(spec, "agent-pid"), "4242");
    EXPECT_EQ(ArgValue(spec, "agent"), "unix:/run/eb/agent.sock");
    // Only the identity is on the command line (the rest comes with the
    // registration reply).
    EXPECT_EQ(spec.argv.size(), 5u);
    EXPECT_EQ(spec.log_path, LogPath(rank));
    EXPECT_THAT(spec.env, Contains("NCCL_SOCKET_IFNAME==eth0"));
    EXPECT_THAT(spec.env, Contains("NCCL_DEBUG=WARN"));
    EXPECT_THAT(spec.env, Contains("PATH=/usr/bin"));
    EXPECT_THAT(spec.env, Not(Contains("AWS_SECRET=hunter2")));
  }
  // A fresh token per worker, in its environment.
  EXPECT_EQ(TokenOf(2), "token-1");
  EXPECT_EQ(TokenOf(3), "token-2");
  // The log directory exists before the workers start writing to it.
  EXPECT_TRUE(std::filesystem::is_directory(std::filesystem::path(LogPath(2)).parent_path()));
  EXPECT_EQ(supervisor_->LiveWorkers(), 2);
  EXPECT_THAT(supervisor_->RunningTests(), ElementsAre(kTest));
  EXPECT_THAT(launcher_.signals(), IsEmpty());
  EXPECT_THAT(sink_.messages(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, EachLaunchOpensTheWorkerEndpointAndItsWorkersDialIt) {
  int opened = 0;
  open_worker_endpoint_ = [&opened]() -> absl::StatusOr<std::string> {
    return absl::StrCat("unix:/run/eb/agent-", ++opened, ".sock");
  };
  MakeSupervisor();
  LaunchTwo();
  EXPECT_EQ(opened, 1);
  for (const common::ProcessSpec& spec : launcher_.specs()) {
    EXPECT_EQ(ArgValue(spec, "agent"), "unix:/run/eb/agent-1.sock");
  }
  // A refused launch (a duplicate here) opens nothing.
  supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
  executor_.RunUntilIdle();
  EXPECT_EQ(opened, 1);
  supervisor_->Launch(MakeLaunch("t-second", {2}));
  executor_.RunUntilIdle();
  EXPECT_EQ(opened, 2);
  EXPECT_EQ(ArgValue(launcher_.specs().back(), "agent"), "unix:/run/eb/agent-2.sock");
}

TEST_F(WorkerSupervisorTest, AnEndpointThatCannotOpenRefusesTheLaunchAndStartsNothing) {
  open_worker_endpoint_ = []() -> absl::StatusOr<std::string> {
    return absl::UnavailableError("cannot listen on 'unix:/run/eb/agent-1.sock'");
  };
  MakeSupervisor();
  supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
  executor_.RunUntilIdle();
  EXPECT_THAT(launcher_.specs(), IsEmpty());
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
  EXPECT_THAT(failures[0].failure().message(),
              AllOf(HasSubstr("refused the launch, nothing was started"),
                    HasSubstr("cannot listen on 'unix:/run/eb/agent-1.sock'"),
                    HasSubstr("cannot serve its workers"), HasSubstr(run_dir_)));
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_THAT(supervisor_->RunningTests(), IsEmpty());
  EXPECT_EQ(executor_.pending_timers(), 0u);
  // No log directory was made for it.
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(LogPath(2)).parent_path()));
}

TEST_F(WorkerSupervisorTest, DuplicateLaunchOfARunningTestIsIgnored) {
  LaunchTwo();
  supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
  executor_.RunUntilIdle();
  EXPECT_EQ(launcher_.specs().size(), 2u);
  EXPECT_EQ(supervisor_->LiveWorkers(), 2);
  EXPECT_THAT(sink_.messages(), IsEmpty());
}

// Issue 32 item 8: the node's 4 slots bound its workers across launches too.
// A test still holding workers (its stop not finished) leaves room only for
// what it does not hold; once its workers are gone the room is back.
TEST_F(WorkerSupervisorTest, WorkersNeverExceedTheSlotsAcrossLaunches) {
  LaunchTwo();
  supervisor_->Launch(MakeLaunch("t-three", {2, 3, -1}));
  executor_.RunUntilIdle();
  EXPECT_EQ(launcher_.specs().size(), 2u);  // nothing more started
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
  EXPECT_THAT(failures[0].failure().message(),
              AllOf(HasSubstr("3 more workers beside the 2 of tests still running here"),
                    HasSubstr(std::string(kTest) + " (2)"), HasSubstr("4 worker slots")));
  // Two fit beside the two running.
  supervisor_->Launch(MakeLaunch("t-two", {2, 3}));
  executor_.RunUntilIdle();
  EXPECT_EQ(launcher_.specs().size(), 4u);
  EXPECT_EQ(supervisor_->LiveWorkers(), 4);
  // A stopping test holds its slots until its workers have exited.
  supervisor_->Stop(kTest, "done");
  supervisor_->Launch(MakeLaunch("t-one", {-1}));
  executor_.RunUntilIdle();
  EXPECT_EQ(launcher_.specs().size(), 4u);
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGTERM));
  supervisor_->Launch(MakeLaunch("t-one-again", {-1}));
  executor_.RunUntilIdle();
  EXPECT_EQ(launcher_.specs().size(), 5u);
}

TEST_F(WorkerSupervisorTest, LaunchWithoutRanksAnswersWorkersStoppedAtOnce) {
  supervisor_->Launch(MakeLaunch(kTest, {}));
  executor_.RunUntilIdle();
  EXPECT_THAT(launcher_.specs(), IsEmpty());
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

// --- Registration -------------------------------------------------------------

TEST_F(WorkerSupervisorTest, RegisterWithTheRightTokenReportsRegisteredAndReplies) {
  const v1::LaunchTest launch = MakeLaunch(kTest, {0, 1});
  LaunchTwo();
  auto reply = Register(3);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->assignment().SerializeAsString(), launch.ranks(1).SerializeAsString());
  EXPECT_EQ(reply->assignment().rank(), 3);
  EXPECT_EQ(reply->assignment().local_rank(), 1);
  EXPECT_EQ(reply->spec().SerializeAsString(), launch.spec().SerializeAsString());
  // Everything the worker needs beyond its identity: its GPU (the
  // assignment's device_index), the coordinator's sweep, its deadlines and
  // the node's bootstrap settings.
  EXPECT_EQ(reply->assignment().device_index(), 1);
  EXPECT_EQ(reply->heartbeat_period_ms(), 1000);
  EXPECT_THAT(reply->sizes_bytes(), ElementsAre(1024, 4096, 16384, 65536, 262144, 1048576));
  EXPECT_EQ(reply->init_timeout_ms(), 30'000);
  EXPECT_EQ(reply->op_timeout_ms(), 5'000);
  EXPECT_EQ(reply->bootstrap_interface(), "eth0");
  EXPECT_EQ(reply->bootstrap_address(), "");

  const auto events = sink_.Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind(), v1::WORKER_EVENT_KIND_REGISTERED);
  EXPECT_EQ(events[0].test_id(), kTest);
  EXPECT_EQ(events[0].rank(), 3);
  // The pid the agent spawned (the fake's), not the worker's claim (1).
  EXPECT_EQ(events[0].pid(), rank3_.pid);

  // A retried RegisterWorker (the reply was lost) is answered again but not
  // reported twice.
  ASSERT_TRUE(Register(3).ok());
  EXPECT_EQ(sink_.Events().size(), 1u);
}

TEST_F(WorkerSupervisorTest, RegisterWithAWrongTokenIsDenied) {
  LaunchTwo();
  auto expect_denied = [](const absl::StatusOr<v1::RegisterWorkerReply>& reply) {
    EXPECT_EQ(reply.status().code(), absl::StatusCode::kPermissionDenied) << reply.status();
  };
  expect_denied(Register(2, "not-the-token"));
  expect_denied(Register(2, TokenOf(3)));             // Another rank's token.
  expect_denied(Register(7, TokenOf(2)));             // Unknown rank.
  expect_denied(Register(2, TokenOf(2), "t-other"));  // Unknown test.
  {
    v1::RegisterWorkerRequest request;  // No token at all.
    request.set_test_id(kTest);
    request.set_rank(2);
    expect_denied(supervisor_->RegisterWorker(request));
  }
  EXPECT_THAT(std::string(Register(2, "bad").status().message()), HasSubstr("rank 2"));
  EXPECT_THAT(sink_.Events(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, RegisterAfterTheTestStoppedIsAFailedPrecondition) {
  LaunchTwo();
  supervisor_->Stop(kTest, "cancelled");
  EXPECT_EQ(Register(2).status().code(), absl::StatusCode::kFailedPrecondition);
}

// --- Stop ---------------------------------------------------------------------

TEST_F(WorkerSupervisorTest, StopIsGraduatedAndItsExitsAreNotFailures) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  sink_.Clear();

  supervisor_->Stop(kTest, "cancelled by user");
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_EQ(Beat(2).value_or(false), true);

  // Rank 2 obeys SIGTERM; rank 3 ignores it.
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  executor_.AdvanceTime(kGrace - absl::Milliseconds(1));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));
  executor_.AdvanceTime(absl::Milliseconds(1));
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));  // Gone: no SIGKILL.
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT, SIGKILL));
  EXPECT_THAT(sink_.Stopped(), IsEmpty());

  Exit(rank3_, FakeProcessLauncher::Signaled(SIGKILL));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(WorkerSupervisorTest, TheAgentIsToldTheRunningTestsWhenATestStartsAndWhenItEnds) {
  // The heartbeats carry this list, and an empty one starts the agent's
  // idle linger; a refused duplicate launch changes nothing.
  LaunchTwo();
  supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
  executor_.RunUntilIdle();
  supervisor_->Launch(MakeLaunch("t-second", {2}));
  executor_.RunUntilIdle();
  EXPECT_THAT(running_tests_told_,
              ElementsAre(ElementsAre(kTest), UnorderedElementsAre(kTest, "t-second")));
  supervisor_->Stop(kTest, "done");
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_EQ(running_tests_told_.size(), 2u);  // rank 3 still lives
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGTERM));
  ASSERT_EQ(running_tests_told_.size(), 3u);
  EXPECT_THAT(running_tests_told_.back(), ElementsAre("t-second"));
  supervisor_->StopAll("shutting down");
  Exit(launcher_.Running().at(0), FakeProcessLauncher::Signaled(SIGTERM));
  ASSERT_EQ(running_tests_told_.size(), 4u);
  EXPECT_THAT(running_tests_told_.back(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, StopTwiceSignalsOnceAndStillFinishesOnce) {
  LaunchTwo();
  supervisor_->Stop(kTest, "first");
  supervisor_->Stop(kTest, "second");
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, StopOfAnUnknownTestStillAnswersWorkersStopped) {
  supervisor_->Stop("t-never-ran", "cleanup");
  EXPECT_THAT(sink_.Stopped(), ElementsAre("t-never-ran"));
  EXPECT_THAT(launcher_.signals(), IsEmpty());

  // Likewise for a test whose workers are already reaped.
  LaunchTwo();
  supervisor_->Stop(kTest, "cancel");
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGTERM));
  sink_.Clear();
  supervisor_->Stop(kTest, "again");
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
}

TEST_F(WorkerSupervisorTest, StopAllStopsEveryTest) {
  supervisor_->Launch(MakeLaunch("t-a", {0}));
  supervisor_->Launch(MakeLaunch("t-b", {1}));
  const auto running = launcher_.Running();
  ASSERT_EQ(running.size(), 2u);
  supervisor_->StopAll("coordinator lost");
  EXPECT_THAT(SignalsTo(running[0]), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_THAT(SignalsTo(running[1]), ElementsAre(SIGTERM, SIGCONT));
  Exit(running[0], FakeProcessLauncher::Signaled(SIGTERM));
  Exit(running[1], FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_THAT(sink_.Stopped(), ElementsAre("t-a", "t-b"));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, TheGpusBusIdAndTheBootstrapAddressGoInTheReply) {
  config_.bootstrap_interface.clear();
  config_.bootstrap_address = "10.0.0.5";
  MakeSupervisor();
  v1::LaunchTest launch = MakeLaunch(kTest, {0, 3});
  launch.mutable_ranks(1)->set_gpu_pci_bus_id("0000:9a:00.0");
  supervisor_->Launch(launch);
  executor_.RunUntilIdle();
  auto reply = Register(3);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->assignment().device_index(), 3);
  EXPECT_EQ(reply->assignment().gpu_pci_bus_id(), "0000:9a:00.0");
  EXPECT_EQ(reply->bootstrap_interface(), "");
  EXPECT_EQ(reply->bootstrap_address(), "10.0.0.5");
}

// --- Events from the worker ---------------------------------------------------

TEST_F(WorkerSupervisorTest, FailedEventIsForwardedOnceWithTheAgentsAttribution) {
  LaunchTwo();
  ASSERT_TRUE(Register(3).ok());
  sink_.Clear();

  v1::ReportWorkerEventRequest request;
  request.set_worker_token(TokenOf(3));
  v1::WorkerEvent& event = *request.mutable_event();
  event.set_test_id(kTest);
  event.set_rank(3);
  event.set_kind(v1::WORKER_EVENT_KIND_FAILED);
  // What the worker claims about where it runs is replaced by the agent.
  event.mutable_failure()->set_kind(v1::FAILURE_KIND_COMMUNICATION_ERROR);
  event.mutable_failure()->set_rank(0);
  event.mutable_failure()->set_node_name("somewhere-else");
  event.mutable_failure()->set_local_rank(7);
  event.mutable_failure()->set_device_index(7);
  event.mutable_failure()->set_message("allreduce: ABORTED: peer rank 0 closed the connection");
  ASSERT_TRUE(supervisor_->ReportEvent(request).ok());
  ASSERT_TRUE(supervisor_->ReportEvent(request).ok());  // Repeated: dropped.

  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_FAILED);
  EXPECT_EQ(failures[0].test_id(), kTest);
  EXPECT_EQ(failures[0].rank(), 3);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_COMMUNICATION_ERROR);
  EXPECT_EQ(failures[0].failure().rank(), 3);
  EXPECT_EQ(failures[0].failure().node_name(), "node-a");
  EXPECT_EQ(failures[0].failure().local_rank(), 1);
  EXPECT_EQ(failures[0].failure().device_index(), 1);
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("peer rank 0 closed the connection"));
  EXPECT_THAT(failures[0].failure().message(), HasSubstr(LogPath(3)));

  // The worker then exits non-zero as it said it would: no second report.
  Exit(rank3_, FakeProcessLauncher::Code(1));
  EXPECT_EQ(sink_.Failures().size(), 1u);
}

TEST_F(WorkerSupervisorTest, ProgressEventsAreForwardedAsTheyAre) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  sink_.Clear();
  v1::ReportWorkerEventRequest request;
  request.set_worker_token(TokenOf(2));
  request.mutable_event()->set_test_id(kTest);
  request.mutable_event()->set_rank(2);
  request.mutable_event()->set_kind(v1::WORKER_EVENT_KIND_SIZE_DONE);
  request.mutable_event()->mutable_size_result()->set_size_bytes(1024);
  ASSERT_TRUE(supervisor_->ReportEvent(request).ok());
  ASSERT_TRUE(Report(2, v1::WORKER_EVENT_KIND_JOINED).ok());
  const auto events = sink_.Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].SerializeAsString(), request.event().SerializeAsString());
  EXPECT_EQ(events[1].kind(), v1::WORKER_EVENT_KIND_JOINED);
}

TEST_F(WorkerSupervisorTest, WorkerMayNotReportAgentOnlyKinds) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  sink_.Clear();
  for (v1::WorkerEventKind kind :
       {v1::WORKER_EVENT_KIND_UNSPECIFIED, v1::WORKER_EVENT_KIND_REGISTERED,
        v1::WORKER_EVENT_KIND_EXITED}) {
    const absl::Status status = Report(2, kind);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << kind;
    EXPECT_THAT(std::string(status.message()), HasSubstr("event.kind"));
  }
  EXPECT_EQ(Report(2, v1::WORKER_EVENT_KIND_JOINED, "forged").code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(sink_.messages(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, FinishedThenCleanExitIsNoFailure) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  ASSERT_TRUE(Report(2, v1::WORKER_EVENT_KIND_FINISHED).ok());
  ASSERT_TRUE(Report(3, v1::WORKER_EVENT_KIND_FINISHED).ok());
  sink_.Clear();
  Exit(rank2_, FakeProcessLauncher::Code(0));
  EXPECT_THAT(sink_.messages(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());  // Rank 3 is not stopped.
  // Even an unclean exit after FINISHED is only logged.
  Exit(rank3_, FakeProcessLauncher::Code(1));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_THAT(launcher_.signals(), IsEmpty());
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

// --- Heartbeat and tokens -----------------------------------------------------

TEST_F(WorkerSupervisorTest, HeartbeatSaysStopOnceTheTestIsStopping) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  auto beat = Beat(2);
  ASSERT_TRUE(beat.ok()) << beat.status();
  EXPECT_FALSE(*beat);
  EXPECT_EQ(Beat(2, "forged").status().code(), absl::StatusCode::kPermissionDenied);

  supervisor_->Stop(kTest, "cancelled");
  beat = Beat(2);
  ASSERT_TRUE(beat.ok()) << beat.status();
  EXPECT_TRUE(*beat);
}

TEST_F(WorkerSupervisorTest, CheckTokenAcceptsOnlyLiveWorkersOfThatTest) {
  LaunchTwo();
  EXPECT_TRUE(supervisor_->CheckToken(TokenOf(2), kTest).ok());
  EXPECT_TRUE(supervisor_->CheckToken(TokenOf(3), kTest).ok());
  EXPECT_EQ(supervisor_->CheckToken("forged", kTest).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(supervisor_->CheckToken("", kTest).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(supervisor_->CheckToken(TokenOf(2), "t-other").code(),
            absl::StatusCode::kPermissionDenied);
  // A dead worker's token no longer opens the rendezvous relay.
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGKILL));
  EXPECT_EQ(supervisor_->CheckToken(TokenOf(2), kTest).code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(WorkerSupervisorTest, DestructionCancelsEveryTimer) {
  LaunchTwo();
  ASSERT_GT(executor_.pending_timers(), 0u);
  supervisor_.reset();
  EXPECT_EQ(executor_.pending_timers(), 0u);
  // Nothing is left to fire into the destroyed supervisor.
  executor_.AdvanceTime(kHangTimeout * 2);
  EXPECT_THAT(sink_.messages(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());
}

}  // namespace eb::agent::supervisor_test
