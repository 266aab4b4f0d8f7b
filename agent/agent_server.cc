#include "agent/agent_server.h"

#include <unistd.h>

#include <cstdio>
#include <functional>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "agent/core/gpu_discovery.h"
#include "agent/core/inventory.h"
#include "agent/core/launch_check.h"
#include "agent/core/pcie_link.h"
#include "agent/core/worker_spec.h"
#include "agent/host/child_nvml.h"
#include "agent/host/child_probe.h"
#include "agent/host/directories.h"
#include "agent/host/host_facts.h"
#include "agent/host/infiniband_sysfs.h"
#include "agent/host/log_reader.h"
#include "agent/host/nvidia_driver.h"
#include "agent/host/pci_topology.h"
#include "agent/host/proc_net.h"
#include "common/memory/idle_pages.h"
#include "common/metrics/standard_metrics.h"
#include "common/process/posix_process_launcher.h"
#include "common/rpc/channel.h"
#include "common/status/status_macros.h"
#include "spdlog/spdlog.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

namespace {

// Runs `work` on `loop` and waits until it has run (the caller is not the
// loop's thread).
void RunOnLoopAndWait(common::EventLoop& loop, const std::function<void()>& work) {
  absl::Notification done;
  loop.Post([&work, &done] {
    work();
    done.Notify();
  });
  done.WaitForNotification();
}

std::string RandomToken() {
  static absl::BitGen bitgen;
  return absl::StrFormat("%016x%016x", absl::Uniform<uint64_t>(bitgen),
                         absl::Uniform<uint64_t>(bitgen));
}

}  // namespace

AgentServer::AgentServer(const AgentConfig& config) : config_(config), loop_("eb-agent-loop") {}

absl::StatusOr<std::unique_ptr<AgentServer>> AgentServer::Start(
    const AgentConfig& config, std::vector<std::string> agent_env) {
  std::unique_ptr<AgentServer> agent(new AgentServer(config));
  EB_RETURN_IF_ERROR(agent->CreateLauncher(agent_env));
  if (absl::Status made = CreateDirectories(config.run_dir); !made.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--run-dir: cannot create '", config.run_dir, "': ", made.message()));
  }
  agent->CreateSession();
  agent->CreateSupervisor(std::move(agent_env));
  EB_RETURN_IF_ERROR(agent->OpenWorkerEndpoint());
  EB_RETURN_IF_ERROR(agent->StartMetricsServer());
  agent->StartWatchdogAndSession();
  return agent;
}

absl::Status AgentServer::CreateLauncher(const std::vector<std::string>& agent_env) {
  auto launcher = common::PosixProcessLauncher::Create();
  if (!launcher.ok()) return launcher.status();
  launcher_ = *std::move(launcher);
  metered_launcher_ = std::make_unique<MeteredProcessLauncher>(*launcher_, metrics_);
  // NVML is asked in a child (agent/host/child_nvml.h): it loads the CUDA
  // driver, whose thread and memory would stay in the agent.
  gpu_details_ = std::make_unique<ChildProcessNvml>(*launcher_, SelfExecutable(), agent_env);
  return absl::OkStatus();
}

void AgentServer::CreateSession() {
  CoordinatorSession::Callbacks callbacks;
  callbacks.make_registration = [this] { return MakeRegistration(); };
  callbacks.on_connected = [this](absl::Duration) { loop_.Post([this] { OnConnected(); }); };
  // On the session's thread: the heartbeat does not wake the loop.
  callbacks.fill_heartbeat = [this](v1::AgentHeartbeat* heartbeat) {
    absl::MutexLock lock(&running_tests_mu_);
    for (const std::string& id : running_tests_) heartbeat->add_running_test_ids(id);
  };
  callbacks.on_command = [this](const v1::CoordinatorMessage& command) {
    loop_.Post([this, command] { OnCommand(command); });
  };
  callbacks.on_disconnected = [this](const absl::Status& status) { OnDisconnected(status); };
  session_ = std::make_unique<CoordinatorSession>(
      common::MakeChannel(config_.coordinator_address, config_.tls), std::move(callbacks),
      config_.reconnect_initial, config_.reconnect_max,
      CoordinatorSession::kDefaultWorkerEventLinger, config_.worker_heartbeat_period);
  metered_sink_ = std::make_unique<MeteredCoordinatorSink>(*session_, metrics_);
}

v1::RegisterAgent AgentServer::MakeRegistration() {
  v1::RegisterAgent registration;
  registration.set_node_name(config_.node_name);
  std::vector<v1::GpuInfo> gpus = CurrentGpus();
  // Issue 12, part 2: which HCA is closest to each GPU.
  std::vector<std::string> bus_ids;
  bus_ids.reserve(gpus.size());
  for (const v1::GpuInfo& gpu : gpus) bus_ids.push_back(gpu.pci_bus_id());
  const PciTopology topology = ReadPciTopology(config_.sysfs_pci, config_.sysfs_infiniband, bus_ids,
                                               AffinityHcaNames(config_));
  ApplyAffinity(ComputeAffinity(topology), gpus);
  // Issue 29, item 5: each GPU's PCIe link, current and maximum.
  ApplyPcieLinks(topology, gpus);
  *registration.mutable_inventory() = BuildInventory(config_, gpus, ReadHostFacts(config_));
  return registration;
}

void AgentServer::OnDisconnected(const absl::Status& status) {
  (void)notifier_.NotifyStatus(absl::StrCat("lost the coordinator ", config_.coordinator_address,
                                            " (", status.message(), "); reconnecting"));
  loop_.Post([this, status] {
    // Without the coordinator no test can complete or be reported: stop
    // the workers rather than leave them running unsupervised.
    supervisor_->StopAll(absl::StrCat("lost the coordinator: ", status.message()));
  });
}

void AgentServer::CreateSupervisor(std::vector<std::string> agent_env) {
  SupervisorEnvironment environment{static_cast<int>(getpid()), "", std::move(agent_env),
                                    RandomToken, CreateDirectories};
  // The workers' socket is opened per test and closed once the node has been
  // idle a while (agent/grpc/worker_endpoint.h).
  environment.open_worker_endpoint = [this]() -> absl::StatusOr<std::string> {
    if (shut_down_) return absl::UnavailableError("the agent is shutting down");
    return endpoint_->Open();
  };
  environment.running_tests_changed = [this](const std::vector<std::string>& running_test_ids) {
    {
      absl::MutexLock lock(&running_tests_mu_);
      running_tests_ = running_test_ids;
    }
    if (running_test_ids.empty()) StartIdleLinger();
  };
  // The evidence of each test (issue 12): the configured ports before and
  // after, and what NCCL wrote in the ranks' logs.
  environment.read_ports = [hcas = config_.ib_hcas, sysfs = config_.sysfs_infiniband] {
    return ReadPortSnapshots(hcas, sysfs);
  };
  environment.read_tcp = [] { return ReadTcpSnapshot(); };
  environment.read_log = [run_dir = config_.run_dir](const std::string& path, bool from_start,
                                                     size_t max_bytes) {
    const v1::LogContent page =
        ReadLogPage(run_dir, path, from_start ? 0 : -1, static_cast<int64_t>(max_bytes));
    return page.error().empty() ? page.content() : std::string();
  };
  // NCCL's RAS status of a failed NCCL test, asked before its workers are
  // signalled (agent/core/nccl_ras.h); each query on its own thread.
  ras_client_ = std::make_unique<NcclRasClient>(environment.ras_limits);
  environment.query_ras = [client = ras_client_.get()](int port,
                                                       std::function<void(NcclRasExchange)> done) {
    client->Query(port, std::move(done));
  };
  supervisor_ =
      std::make_unique<WorkerSupervisor>(config_, std::move(environment), common::RealClock::Get(),
                                         loop_, *metered_launcher_, *metered_sink_);
}

absl::Status AgentServer::OpenWorkerEndpoint() {
  endpoint_ = std::make_unique<WorkerEndpoint>(
      WorkerEndpoint::Options{config_.run_dir, config_.coordinator_address, config_.tls}, loop_,
      *supervisor_);
  endpoint_->RemoveStaleSockets();
  // Opened once now, so that a socket that cannot be served is a start-up
  // error; it closes after the idle linger like any other.
  absl::Status opened;
  RunOnLoopAndWait(loop_, [this, &opened] {
    opened = endpoint_->Open().status();
    if (opened.ok()) StartIdleLinger();
  });
  return opened;
}

absl::Status AgentServer::StartMetricsServer() {
  if (config_.metrics_listen.empty()) return absl::OkStatus();
  common::MetricsHttpServerOptions metrics_options;
  metrics_options.listen_address = config_.metrics_listen;
  // The supervisor is executor state: refresh the gauges on the loop.
  metrics_options.refresh = common::RefreshOnExecutor(
      loop_, [this] { metrics_.Update(*supervisor_, session_->connected()); });
  common::AddStandardMetrics(metrics_registry_, "agent");
  auto metrics_server =
      common::MetricsHttpServer::Start(metrics_registry_, std::move(metrics_options));
  if (!metrics_server.ok()) return metrics_server.status();
  metrics_server_ = *std::move(metrics_server);
  return absl::OkStatus();
}

void AgentServer::StartWatchdogAndSession() {
  watchdog_ = std::make_unique<common::WatchdogPinger>(notifier_, loop_, config_.watchdog_timeout);
  watchdog_->Start();
  (void)notifier_.NotifyStatus(
      absl::StrCat("registering with the coordinator ", config_.coordinator_address));
  session_->Start();
}

AgentServer::~AgentServer() { Shutdown(); }

std::vector<v1::GpuInfo> AgentServer::CurrentGpus() {
  DiscoveredGpus found = DiscoverGpusWithDetails(*gpu_details_);
  {
    // Said once, not at every registration; again only when it changes.
    absl::MutexLock lock(&nvml_note_mu_);
    if (found.nvml_note != logged_nvml_note_) {
      if (!found.nvml_note.empty()) {
        spdlog::warn("node={}: {}; the inventory reports memory 0 for those GPUs",
                     config_.node_name, found.nvml_note);
      } else if (!logged_nvml_note_.empty()) {
        spdlog::info("node={}: NVML now describes every GPU", config_.node_name);
      }
      logged_nvml_note_ = found.nvml_note;
    }
  }
  return SelectGpus(found.gpus, config_.gpu_indices);
}

void AgentServer::OnConnected() {
  // READY=1 the first time (the unit is started once the agent can take
  // tests); a STATUS update after each reconnect.
  std::string status =
      absl::StrCat("registered with ", config_.coordinator_address, " as ", config_.node_name);
  if (metrics_server_) absl::StrAppend(&status, "; metrics on port ", metrics_server_->port());
  if (absl::Status notified = notifier_.NotifyReady(status); !notified.ok()) {
    spdlog::warn("systemd: {}", notified.ToString());
  }
}

void AgentServer::StartIdleLinger() {
  idle_since_ = absl::Now();
  loop_.PostAfter(config_.worker_socket_linger, [this] { EndIdleLinger(); });
}

void AgentServer::EndIdleLinger() {
  // A test that started in the meantime starts a new linger when it ends
  // (config: longer than the gaps between a validation round's tests, so a
  // round does not reopen the socket per test).
  if (shut_down_ || !supervisor_->RunningTests().empty() || !endpoint_->is_open()) return;
  const absl::Duration left = idle_since_ + config_.worker_socket_linger - absl::Now();
  if (left > absl::ZeroDuration()) {
    loop_.PostAfter(left, [this] { EndIdleLinger(); });
    return;
  }
  endpoint_->Close(kWorkerEndpointGrace);
  // Closed within its grace; the node is idle until its next test.
  loop_.PostAfter(kWorkerEndpointGrace + absl::Milliseconds(500), [this] { ReturnIdleMemory(); });
}

void AgentServer::ReturnIdleMemory() {
  if (shut_down_ || !supervisor_->RunningTests().empty() || endpoint_->is_open()) return;
  absl::StatusOr<common::ReturnedPages> returned = common::ReturnIdlePages();
  if (!returned.ok()) {
    spdlog::warn("idle: could not give back memory: {}", returned.status().ToString());
    return;
  }
  spdlog::info(
      "idle: gave back the pages that starting or the last test used (resident {:.1f} MB -> "
      "{:.1f} MB; they stay in the page cache)",
      returned->rss_before_kb / 1024.0, returned->rss_after_kb / 1024.0);
}

void AgentServer::OnCommand(const v1::CoordinatorMessage& command) {
  switch (command.message_case()) {
    case v1::CoordinatorMessage::kLaunch:
      supervisor_->Launch(command.launch());
      break;
    case v1::CoordinatorMessage::kStop:
      // A stop for a test id that cannot exist here stops nothing; there is
      // no answer channel for it but the log.
      if (absl::Status refused = CheckStop(command.stop()); !refused.ok()) {
        spdlog::error("refused a stop from the coordinator: {}", refused.ToString());
        break;
      }
      supervisor_->Stop(command.stop().test_id(), command.stop().reason());
      break;
    case v1::CoordinatorMessage::kFetchLog: {
      const v1::FetchLog& fetch = command.fetch_log();
      v1::AgentMessage reply;
      if (absl::Status refused = CheckFetchLog(fetch); !refused.ok()) {
        // Nothing is opened: the error names the field.
        spdlog::error("refused a log request from the coordinator: {}", refused.ToString());
        reply.mutable_log_content()->set_error(
            absl::StrCat("the agent on node ", config_.node_name,
                         " refused the log request: ", refused.ToString()));
      } else {
        *reply.mutable_log_content() = ReadLogPage(
            config_.run_dir, WorkerLogPath(config_.run_dir, fetch.test_id(), fetch.rank()),
            fetch.has_offset() ? fetch.offset() : -1, fetch.max_bytes());
      }
      reply.mutable_log_content()->set_request_id(fetch.request_id());
      session_->SendToCoordinator(reply);
      break;
    }
    default:
      spdlog::warn("unknown command {} from the coordinator; ignored",
                   static_cast<int>(command.message_case()));
  }
}

void AgentServer::Shutdown() {
  if (shutdown_started_) return;
  shutdown_started_ = true;
  (void)notifier_.NotifyStopping("stopping the workers and shutting down");
  if (watchdog_) watchdog_->Stop();
  // Before the loop stops: scrapes post refreshes onto the loop.
  if (metrics_server_) metrics_server_->Stop();
  if (supervisor_ == nullptr || session_ == nullptr) {
    // Start failed part-way: nothing was launched.
    if (session_) session_->Stop();
    loop_.Stop();
    return;
  }
  // Stop the workers first and wait (bounded) until they are reaped, so
  // that no worker outlives the agent.
  loop_.Post([this] { supervisor_->StopAll("the agent is shutting down"); });
  const absl::Time deadline = absl::Now() + config_.worker_grace + absl::Seconds(3);
  while (absl::Now() < deadline) {
    int live = 0;
    RunOnLoopAndWait(loop_, [this, &live] { live = supervisor_->LiveWorkers(); });
    if (live == 0) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  // No endpoint opens after this (the open hook checks shut_down_).
  RunOnLoopAndWait(loop_, [this] {
    shut_down_ = true;
    endpoint_->Close(kWorkerEndpointGrace);
  });
  session_->Stop();
  // With the loop running: calls in flight finish on it.
  endpoint_->WaitClosed();
  loop_.Stop();
  launcher_.reset();
}

}  // namespace eb::agent
