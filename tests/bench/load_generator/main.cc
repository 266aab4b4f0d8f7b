// eb-load-generator: N simulated agents with R simulated workers each
// against a real eb-coordinator, to measure the coordinator at scale
// (issue 15): registration of all agents at once, RunTest to all ranks
// joined and to the verdict, K tests at once, faults, and the coordinator's
// CPU and memory. See tests/bench/scale_benchmark.sh and
// docs/BENCHMARKS.md, "Coordinator at scale".

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/rpc/channel.h"
#include "common/rpc/tls.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "nlohmann/json.hpp"
#include "tests/bench/load_generator/compromised_fleet.h"
#include "tests/bench/load_generator/proc_stats.h"
#include "tests/bench/load_generator/scheduler.h"
#include "tests/bench/load_generator/sim_agent.h"
#include "tests/bench/load_generator/source_address.h"
#include "tests/bench/load_generator/test_client.h"

namespace eb::bench {
namespace {
namespace v1 = ebnccl::v1;

struct Options {
  std::string coordinator = "127.0.0.1:50051";
  int coordinator_pid = 0;
  int agents = 16;
  int ranks_per_agent = 8;
  std::string transport = "nccl";
  int concurrent_tests = 1;
  int rounds = 1;
  int64_t bytes = 8;
  // Each size lasts this long once the ranks joined (0: the sweep is
  // reported at once), with this many timed calls a variant, and the
  // ranks' PROGRESS every --progress-period-ms while it lasts (issue 29).
  int64_t size_ms = 0;
  int iterations = 1;
  bool progress = true;
  int64_t progress_period_ms = 250;
  bool progress_together = true;
  int64_t step_timeout_ms = 0;
  // Timer threads the agents are spread over (round robin): one sends
  // every PROGRESS of the fleet otherwise, ~1 core at 8,192 ranks one
  // message a report.
  int scheduler_threads = 1;
  // A run whose tests are to fail, each first with this kind (a
  // FailureKind name): it succeeds when they do.
  std::string expect_failure_kind;
  int64_t init_timeout_ms = 30000;
  int vanish = 0;
  int slow_agents = 0;
  int64_t slow_ms = 1000;
  bool agent_batching = true;
  int64_t wait_jitter_ms = 500;
  double idle_s = 0;
  // Every agent's heartbeat period: give the coordinator the same
  // (--heartbeat-period-ms), or its nodes are lost.
  int64_t heartbeat_ms = 2000;
  int64_t pause_ms = 0;
  double register_timeout_s = 120;
  std::string name_prefix = "sim";
  // mTLS: the fleet CA, and the directory of ebnccl-certs.sh's output
  // (nodes/NAME.pem and .key for each agent, clients/CLIENT.pem for the
  // Control calls).
  bool tls = false;
  std::string tls_dir;
  std::string tls_client = "bench";
  std::string json_path;
  // Each agent dials from its own 127.1.x.y (a coordinator on loopback
  // only); off for a coordinator on another host, where the coordinator's
  // per-host bound then allows 64 agents per generator host.
  bool own_source_address = true;
  // Compromised nodes (compromised_fleet.h): K more agents flooding at
  // `share` of every per-node budget while the honest tests run.
  int compromised_agents = 0;
  double compromised_share = 0.9;
  int compromised_silent_sessions = 1024;
  double compromised_warm_up_s = 2;
  std::vector<std::string> compromised_kinds;
};

grpc::ChannelArguments ChannelArguments(const Options& /*options*/) {
  // Exactly the agent's and ebctl's channel settings.
  return common::ClientChannelArguments(absl::Seconds(10));
}

double Seconds(absl::Duration d) {
  return d == absl::InfiniteDuration() ? -1 : absl::ToDoubleSeconds(d);
}

std::shared_ptr<grpc::ChannelCredentials> Credentials(const Options& options,
                                                      const std::string& cert_stem) {
  if (!options.tls) return grpc::InsecureChannelCredentials();
  common::TlsFiles files;
  files.ca = options.tls_dir + "/ca.pem";
  files.cert = cert_stem + ".pem";
  files.key = cert_stem + ".key";
  // Certificates do not change during a run: read once, no copies or
  // reload per agent.
  absl::StatusOr<common::TlsMaterial> material = common::ReadTlsMaterial(files, "--tls");
  if (!material.ok()) {
    std::fprintf(stderr, "eb-load-generator: %s\n",
                 std::string(material.status().message()).c_str());
    std::exit(2);
  }
  return common::MakeStaticChannelCredentials(*material);
}

v1::TestSpec MakeSpec(const Options& options, const std::vector<std::string>& nodes) {
  v1::TestSpec spec;
  spec.set_collective(v1::COLLECTIVE_ALL_REDUCE);
  spec.set_data_type(v1::DATA_TYPE_FLOAT);
  spec.set_reduce_op(v1::REDUCE_OP_SUM);
  spec.set_min_bytes(options.bytes);
  spec.set_max_bytes(options.bytes);
  spec.set_step_factor(2);
  spec.set_iterations(options.iterations);
  spec.set_warmup_iterations(1);
  spec.set_check_iterations(1);
  spec.set_transport(options.transport == "gloo" ? v1::TRANSPORT_GLOO : v1::TRANSPORT_NCCL);
  for (const std::string& node : nodes) spec.add_node_names(node);
  spec.set_workers_per_node(options.ranks_per_agent);
  spec.set_init_timeout_ms(options.init_timeout_ms);
  spec.set_step_timeout_ms(options.step_timeout_ms);
  return spec;
}

// Registers the compromised agents and starts their flood; nullptr when
// there are none, or when they could not start (the reason in `out`).
std::unique_ptr<CompromisedFleet> StartCompromised(const Options& options,
                                                   v1::Control::Stub& control, bool registered,
                                                   nlohmann::json& out) {
  if (options.compromised_agents <= 0 || !registered) return nullptr;
  std::vector<std::string> names;
  names.reserve(options.compromised_agents);
  for (int i = 0; i < options.compromised_agents; ++i) {
    names.push_back(absl::StrFormat("bad%05d", i));
  }
  CompromisedBehaviour behaviour;
  behaviour.ranks_per_agent = options.ranks_per_agent;
  behaviour.share = options.compromised_share;
  behaviour.silent_sessions = options.compromised_silent_sessions;
  behaviour.foreign_rendezvous = options.tls;
  behaviour.only_kinds.insert(options.compromised_kinds.begin(), options.compromised_kinds.end());
  auto channel = [&options](const std::string& name, int index) {
    grpc::ChannelArguments args = ChannelArguments(options);
    if (options.own_source_address) BindSourceAddress(args, AgentSourceAddress(index));
    return grpc::CreateCustomChannel(
        options.coordinator, Credentials(options, options.tls_dir + "/nodes/" + name), args);
  };
  auto fleet = std::make_unique<CompromisedFleet>(names, options.agents, behaviour, channel);
  // Its ranks never join: the side test waits at its rendezvous for as long
  // as the run takes.
  v1::TestSpec side = MakeSpec(options, names);
  side.set_init_timeout_ms(600'000);
  const absl::Status started =
      fleet->Start(control, side, absl::Seconds(options.compromised_warm_up_s));
  if (!started.ok()) {
    out["compromised_start_error"] = started.ToString();
    std::printf("compromised agents did not start: %s\n", started.ToString().c_str());
    return nullptr;
  }
  std::printf("%d compromised agents flooding at %.0f%% of every per-node budget\n",
              options.compromised_agents, 100 * options.compromised_share);
  return fleet;
}

int Run(const Options& options) {
  nlohmann::json out;
  out["agents"] = options.agents;
  out["ranks_per_agent"] = options.ranks_per_agent;
  out["ranks"] = options.agents * options.ranks_per_agent;
  out["transport"] = options.transport;
  out["concurrent_tests"] = options.concurrent_tests;
  out["tls"] = options.tls;
  {
    std::ifstream loadavg("/proc/loadavg");
    std::string load;
    std::getline(loadavg, load);
    out["loadavg_before"] = load;
  }
  auto coordinator = [&]() -> std::optional<ProcSample> {
    if (options.coordinator_pid <= 0) return std::nullopt;
    return SampleProcess(options.coordinator_pid);
  };

  FleetCounters counters;
  Scheduler scheduler;  // the heartbeats', and the first agents'
  std::vector<std::unique_ptr<Scheduler>> more_schedulers;
  for (int i = 1; i < options.scheduler_threads; ++i) {
    more_schedulers.push_back(std::make_unique<Scheduler>());
  }
  auto scheduler_of = [&](int agent) -> Scheduler& {
    const int k = agent % options.scheduler_threads;
    return k == 0 ? scheduler : *more_schedulers[static_cast<size_t>(k - 1)];
  };
  std::vector<std::unique_ptr<SimAgent>> agents;
  std::vector<std::string> names;
  const std::set<int> vanishing = [&] {
    std::set<int> set;
    // The vanishing agents are spread over the first test's nodes.
    const int per_test = options.agents / options.concurrent_tests;
    for (int i = 0; i < options.vanish; ++i) set.insert(per_test - 1 - i * 7 % per_test);
    return set;
  }();
  for (int i = 0; i < options.agents; ++i) {
    names.push_back(absl::StrFormat("%s%05d", options.name_prefix, i));
    grpc::ChannelArguments args = ChannelArguments(options);
    if (options.own_source_address) BindSourceAddress(args, AgentSourceAddress(i));
    auto channel = grpc::CreateCustomChannel(
        options.coordinator, Credentials(options, options.tls_dir + "/nodes/" + names.back()),
        args);
    AgentBehaviour behaviour;
    behaviour.ranks_per_agent = options.ranks_per_agent;
    behaviour.vanish = vanishing.contains(i);
    behaviour.batching = options.agent_batching;
    behaviour.wait_jitter = absl::Milliseconds(options.wait_jitter_ms);
    behaviour.size_time = absl::Milliseconds(options.size_ms);
    behaviour.progress_period =
        options.progress ? absl::Milliseconds(options.progress_period_ms) : absl::ZeroDuration();
    behaviour.progress_together = options.progress_together;
    if (i >= options.agents - options.slow_agents) {
      behaviour.launch_delay = absl::Milliseconds(options.slow_ms);
    }
    agents.push_back(
        std::make_unique<SimAgent>(names.back(), i, channel, behaviour, counters, scheduler_of(i)));
  }

  // Heartbeats every --heartbeat-ms (2 s: the period the scripts give the
  // coordinator, --heartbeat-period-ms 2000; its default is 500 ms) from each
  // registered agent, from the start: a slow registration of the whole
  // fleet must not starve the first agents of heartbeats.
  std::atomic<bool> beating{true};
  std::function<void()> beat = [&] {
    if (!beating) return;
    for (auto& agent : agents) agent->Heartbeat();
    scheduler.PostAfter(absl::Milliseconds(options.heartbeat_ms), beat);
  };
  scheduler.PostAfter(absl::Milliseconds(options.heartbeat_ms), beat);

  // 1. Every agent connects at once.
  const double self_cpu_0 = SelfCpuSeconds();
  const std::optional<ProcSample> c0 = coordinator();
  const absl::Time t0 = absl::Now();
  for (auto& agent : agents) agent->Connect();
  bool all_registered = false;
  {
    std::pair<FleetCounters*, int> fleet(&counters, options.agents);
    absl::MutexLock lock(&counters.mu);
    all_registered = counters.mu.AwaitWithTimeout(
        absl::Condition(
            +[](std::pair<FleetCounters*, int>* arg) ABSL_EXCLUSIVE_LOCKS_REQUIRED(arg->first->mu) {
              return arg->first->registered >= arg->second;
            },
            &fleet),
        absl::Seconds(options.register_timeout_s));
  }
  const absl::Duration register_time = absl::Now() - t0;
  const std::optional<ProcSample> c1 = coordinator();
  const double self_cpu_1 = SelfCpuSeconds();
  out["register_s"] = Seconds(register_time);
  out["register_failed_attempts"] = counters.failed_attempts.load();
  out["all_registered"] = all_registered;
  std::printf("registered %d agents in %.3f s (%ld abandoned attempts)%s\n", options.agents,
              Seconds(register_time), static_cast<long>(counters.failed_attempts.load()),
              all_registered ? "" : " -- NOT ALL");
  if (c0 && c1) out["coordinator_register_cpu_s"] = c1->cpu_s - c0->cpu_s;
  out["generator_register_cpu_s"] = self_cpu_1 - self_cpu_0;

  // The Control channel (RunTest) for the compromised nodes' side test and
  // the honest tests.
  auto control = v1::Control::NewStub(grpc::CreateCustomChannel(
      options.coordinator, Credentials(options, options.tls_dir + "/clients/" + options.tls_client),
      common::ClientChannelArguments(absl::Seconds(10))));
  std::unique_ptr<CompromisedFleet> compromised =
      StartCompromised(options, *control, all_registered, out);
  all_registered = all_registered && !out.contains("compromised_start_error");

  // 2. Idle: what heartbeats alone cost the coordinator. A test's CPU
  // below includes the heartbeats of every agent for as long as the test
  // runs: N agents x the test's wall time, which grows with N too. The
  // idle rate measured here lets a round report its net cost as well.
  std::optional<double> idle_cpu_per_s;
  if (options.idle_s > 0) {
    const std::optional<ProcSample> i0 = coordinator();
    absl::SleepFor(absl::Seconds(options.idle_s));
    const std::optional<ProcSample> i1 = coordinator();
    if (i0 && i1) {
      const double percent = 100.0 * (i1->cpu_s - i0->cpu_s) / options.idle_s;
      idle_cpu_per_s = percent / 100.0;
      out["coordinator_idle_cpu_percent"] = percent;
      std::printf("idle: coordinator %.2f%% CPU for %d agents\n", percent, options.agents);
    }
  }

  // The coordinator's memory with every agent registered and no test run:
  // the level it must return to after each round (issue 15, item 3).
  if (const std::optional<ProcSample> idle = coordinator()) {
    out["coordinator_rss_idle_mb"] = static_cast<double>(idle->rss_kb) / 1024.0;
    std::printf("coordinator RSS before the tests %.1f MB\n", idle->rss_kb / 1024.0);
  }

  // 3. K tests at once over disjoint nodes, `rounds` times.
  const int per_test = options.agents / options.concurrent_tests;
  nlohmann::json rounds = nlohmann::json::array();
  bool all_ok = all_registered;
  for (int round = 0; round < options.rounds && all_registered; ++round) {
    const double self_a = SelfCpuSeconds();
    const std::optional<ProcSample> a = coordinator();
    const absl::Time round_start = absl::Now();
    const int64_t calls_before = counters.rendezvous_calls.load();
    std::vector<std::unique_ptr<TestClient>> clients;
    for (int t = 0; t < options.concurrent_tests; ++t) {
      std::vector<std::string> nodes(names.begin() + t * per_test,
                                     names.begin() + (t + 1) * per_test);
      clients.push_back(std::make_unique<TestClient>(*control, MakeSpec(options, nodes)));
    }
    if (compromised != nullptr) {
      compromised->Target(clients.front()->AwaitTestId(absl::Seconds(30)),
                          per_test * options.ranks_per_agent);
    }
    absl::Duration max_joined, max_verdict, max_accepted;
    int passed = 0;
    int failed_as_expected = 0;
    std::set<std::string> failed_nodes;
    std::string first_failure;
    std::string first_failure_kind;
    const int64_t progress_before = counters.progress_events.load();
    for (auto& client : clients) {
      const TestOutcome outcome = client->Wait();
      max_accepted = std::max(max_accepted, outcome.accepted);
      max_joined = std::max(max_joined, outcome.joined);
      max_verdict = std::max(max_verdict, outcome.verdict);
      if (outcome.state == v1::TEST_STATE_PASSED) ++passed;
      if (!options.expect_failure_kind.empty() &&
          v1::FailureKind_Name(outcome.first_failure_kind) == options.expect_failure_kind) {
        ++failed_as_expected;
      }
      failed_nodes.insert(outcome.failed_nodes.begin(), outcome.failed_nodes.end());
      if (first_failure.empty() && !outcome.first_failure.empty()) {
        first_failure = outcome.first_failure;
        first_failure_kind = v1::FailureKind_Name(outcome.first_failure_kind);
      }
      if (first_failure.empty() && !outcome.error.empty()) first_failure = outcome.error;
    }
    const std::optional<ProcSample> b = coordinator();
    const absl::Duration round_wall = absl::Now() - round_start;
    const double self_b = SelfCpuSeconds();
    nlohmann::json r;
    r["accepted_s"] = Seconds(max_accepted);
    r["joined_s"] = Seconds(max_joined);
    r["verdict_s"] = Seconds(max_verdict);
    r["passed"] = passed;
    r["tests"] = options.concurrent_tests;
    r["rendezvous_calls"] = counters.rendezvous_calls.load() - calls_before;
    r["failed_nodes"] = failed_nodes;
    if (!first_failure.empty()) r["first_failure"] = first_failure;
    if (!first_failure_kind.empty()) r["first_failure_kind"] = first_failure_kind;
    r["progress_events"] = counters.progress_events.load() - progress_before;
    if (a && b) {
      r["coordinator_cpu_s"] = b->cpu_s - a->cpu_s;
      r["coordinator_cpu_ms_per_rank"] =
          1000.0 * (b->cpu_s - a->cpu_s) / (options.agents * options.ranks_per_agent);
      if (idle_cpu_per_s) {
        // Less the heartbeats of the fleet over the round (the idle rate).
        const double net =
            b->cpu_s - a->cpu_s - *idle_cpu_per_s * absl::ToDoubleSeconds(round_wall);
        r["coordinator_heartbeat_cpu_s"] = *idle_cpu_per_s * absl::ToDoubleSeconds(round_wall);
        r["coordinator_net_cpu_ms_per_rank"] =
            1000.0 * net / (options.agents * options.ranks_per_agent);
      }
      r["coordinator_rss_mb"] = static_cast<double>(b->rss_kb) / 1024.0;
    }
    r["generator_cpu_s"] = self_b - self_a;
    if (options.pause_ms > 0) {
      // The coordinator gives memory back once its tests are over
      // (malloc_trim, 100 ms later): its RSS after a pause.
      absl::SleepFor(absl::Milliseconds(options.pause_ms));
      if (const std::optional<ProcSample> settled = coordinator()) {
        r["coordinator_rss_after_pause_mb"] = static_cast<double>(settled->rss_kb) / 1024.0;
        std::printf("round %d: coordinator RSS %.1f MB after a %ld ms pause\n", round,
                    settled->rss_kb / 1024.0, static_cast<long>(options.pause_ms));
      }
    }
    std::printf(
        "round %d: %d/%d tests passed; RunTest->all JOINED %.3f s, ->verdict %.3f s; "
        "coordinator %.3f CPU-s, RSS %.1f MB; generator %.3f CPU-s; %ld rendezvous calls\n",
        round, passed, options.concurrent_tests, Seconds(max_joined), Seconds(max_verdict),
        r.value("coordinator_cpu_s", -1.0), r.value("coordinator_rss_mb", -1.0), self_b - self_a,
        static_cast<long>(r["rendezvous_calls"].get<int64_t>()));
    if (!failed_nodes.empty()) {
      std::printf("  failed nodes: %s\n  first failure: %s\n",
                  absl::StrJoin(failed_nodes, ",").c_str(), first_failure.c_str());
    }
    if (options.vanish > 0) {
      std::set<std::string> expected;
      for (int i : vanishing) expected.insert(names[i]);
      r["vanished_named_exactly"] = expected == failed_nodes;
      std::printf("  vanished %s; verdict names exactly them: %s\n",
                  absl::StrJoin(expected, ",").c_str(), expected == failed_nodes ? "yes" : "NO");
      all_ok = all_ok && expected == failed_nodes;
    } else if (!options.expect_failure_kind.empty()) {
      all_ok = all_ok && failed_as_expected == options.concurrent_tests;
    } else {
      all_ok = all_ok && passed == options.concurrent_tests;
    }
    rounds.push_back(r);
  }
  out["rounds"] = rounds;
  if (compromised != nullptr) {
    out["compromised"] = compromised->Finish();
    out["compromised"]["share"] = options.compromised_share;
    std::printf("compromised: cut off as documented: %s\n",
                compromised->cut_off_as_documented() ? "yes" : "NO");
    all_ok = all_ok && compromised->cut_off_as_documented();
  }
  beating = false;
  if (const std::optional<ProcSample> end = coordinator()) {
    out["coordinator_rss_mb"] = static_cast<double>(end->rss_kb) / 1024.0;
    out["coordinator_peak_rss_mb"] = static_cast<double>(end->hwm_kb) / 1024.0;
    if (c0) out["coordinator_cpu_s_total"] = end->cpu_s - c0->cpu_s;
    std::printf("coordinator RSS %.1f MB (peak %.1f MB)\n", end->rss_kb / 1024.0,
                end->hwm_kb / 1024.0);
  }
  out["generator_cpu_s_total"] = SelfCpuSeconds() - self_cpu_0;
  out["session_messages"] = counters.session_messages.load();
  out["progress_events"] = counters.progress_events.load();
  std::printf("generator: %.3f CPU-s in all, %ld session messages, %ld PROGRESS events\n",
              SelfCpuSeconds() - self_cpu_0, static_cast<long>(counters.session_messages.load()),
              static_cast<long>(counters.progress_events.load()));
  out["ok"] = all_ok;
  // The heartbeat and the agents' timers use `beat` and the agents: the
  // scheduler's thread ends before they do.
  scheduler.Stop();
  for (auto& more : more_schedulers) more->Stop();
  for (auto& agent : agents) agent->Stop();
  if (!options.json_path.empty()) {
    std::ofstream file(options.json_path);
    file << out.dump(2) << "\n";
  }
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace eb::bench

int main(int argc, char** argv) {
  // Debian's Abseil is built without NDEBUG, so mutex deadlock detection
  // is on: every lock and unlock walks a process-wide lock graph
  // (GraphCycles: ~5% of the coordinator's CPU with a thousand agents,
  // issue 15). Lock order is checked by the tests (thread annotations,
  // TSan), not on every lock in production.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Line-buffered even into a file: scale_benchmark.sh --ebctl-nodes waits
  // for the "registered" line while the agents idle.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  eb::bench::Options options;
  CLI::App app{"eb-load-generator: simulated agents and workers against a real eb-coordinator"};
  app.add_option("--coordinator", options.coordinator, "host:port of the coordinator");
  app.add_option("--coordinator-pid", options.coordinator_pid,
                 "its pid, for CPU seconds and RSS from /proc");
  app.add_option("--agents", options.agents, "simulated agents (nodes)")
      ->check(CLI::Range(1, 20000));
  app.add_option("--ranks-per-agent", options.ranks_per_agent, "simulated workers per agent")
      ->check(CLI::Range(1, 1024));
  app.add_option("--transport", options.transport, "nccl or gloo")
      ->check(CLI::IsMember({"nccl", "gloo"}));
  app.add_option("--concurrent-tests", options.concurrent_tests,
                 "K tests at once, each over agents/K nodes")
      ->check(CLI::Range(1, 20000));
  app.add_option("--rounds", options.rounds, "runs of the K tests, one after the other");
  app.add_option("--bytes", options.bytes, "the one size of the sweep (a multiple of 4)");
  app.add_option("--init-timeout-ms", options.init_timeout_ms, "TestSpec.init_timeout_ms");
  app.add_option("--step-timeout-ms", options.step_timeout_ms,
                 "TestSpec.step_timeout_ms (0: the coordinator's default)");
  app.add_option("--scheduler-threads", options.scheduler_threads,
                 "timer threads the agents' timers run on (their PROGRESS, reconnects), agents "
                 "spread round robin; more for many ranks a message a report")
      ->check(CLI::Range(1, 64));
  app.add_option("--expect-failure-kind", options.expect_failure_kind,
                 "the tests are to fail, each first with this FailureKind (e.g. "
                 "FAILURE_KIND_TOO_SLOW): exit 0 when they do");
  app.add_option("--size-ms", options.size_ms,
                 "each size lasts this long once the ranks joined, reporting PROGRESS (0: the "
                 "whole sweep at once, as before issue 29)")
      ->check(CLI::Range(int64_t{0}, int64_t{600'000}));
  app.add_option("--iterations", options.iterations,
                 "TestSpec.iterations: timed calls a variant, spread evenly over --size-ms")
      ->check(CLI::Range(1, 1'000'000));
  app.add_option("--progress", options.progress,
                 "while a size lasts, each rank reports PROGRESS every --progress-period-ms, as "
                 "the worker's heartbeat thread does and the agent forwards (false: none)");
  app.add_option("--progress-period-ms", options.progress_period_ms,
                 "the worker heartbeat period (the agent's worker_heartbeat_period, 250 ms)")
      ->check(CLI::Range(int64_t{10}, int64_t{60'000}));
  app.add_option("--progress-together", options.progress_together,
                 "a node's ranks' reports of a period go in one batch, as the agent sends them "
                 "(false: each rank at its own phase, one message a report, as the agent before "
                 "issue 29 item 2's batching)");
  app.add_option("--vanish", options.vanish,
                 "agents of the first test that vanish mid-rendezvous (their session breaks)");
  app.add_option("--slow-agents", options.slow_agents,
                 "agents (the last ones) that act on LaunchTest --slow-ms late");
  app.add_option("--slow-ms", options.slow_ms, "delay of a slow agent");
  app.add_option("--agent-batching", options.agent_batching,
                 "as the agent: a phase's events in one batch, identical NCCL waits in one call "
                 "(false: one message and one call per rank, the agent before issue 15)");
  app.add_option("--wait-jitter-ms", options.wait_jitter_ms,
                 "NCCL: each rank's wait asks the init timeout less a start-up drawn from "
                 "[0, this) (real workers' timeouts differ; 0: identical waits)")
      ->check(CLI::Range(int64_t{0}, int64_t{60'000}));
  app.add_option("--idle-s", options.idle_s,
                 "seconds of heartbeats alone after registration (coordinator idle CPU)");
  app.add_option("--heartbeat-ms", options.heartbeat_ms,
                 "every agent's heartbeat period (the coordinator's --heartbeat-period-ms)")
      ->check(CLI::Range(int64_t{100}, int64_t{600'000}));
  app.add_option("--pause-ms", options.pause_ms,
                 "pause after each round, then sample the coordinator's RSS again");
  app.add_option("--register-timeout-s", options.register_timeout_s,
                 "give up waiting for registration after this long");
  app.add_option("--name-prefix", options.name_prefix, "node names are PREFIX00000, ...");
  app.add_flag("--tls", options.tls, "mutual TLS, certificates from --tls-dir");
  app.add_option("--tls-dir", options.tls_dir,
                 "ebnccl-certs.sh --dir: ca.pem, nodes/NAME.{pem,key}, clients/CLIENT.{pem,key}");
  app.add_option("--tls-client", options.tls_client, "client certificate for RunTest (operator)");
  app.add_option("--own-source-address", options.own_source_address,
                 "each agent dials from its own 127.1.x.y (loopback coordinators only)");
  app.add_option("--compromised-agents", options.compromised_agents,
                 "K more agents (bad00000...) that flood the coordinator at the edge of every "
                 "per-node limit while the honest tests run, then go over it (docs/SECURITY.md)")
      ->check(CLI::Range(0, 64));
  app.add_option("--compromised-share", options.compromised_share,
                 "fraction of each per-node budget a compromised agent spends (below 1: never "
                 "cut off before the end)")
      ->check(CLI::Range(0.01, 1.0));
  app.add_option("--compromised-silent-sessions", options.compromised_silent_sessions,
                 "sessions each compromised agent keeps open without registering")
      ->check(CLI::Range(0, 4096));
  app.add_option("--compromised-warm-up-s", options.compromised_warm_up_s,
                 "seconds of flood before the honest tests start")
      ->check(CLI::Range(0.0, 600.0));
  app.add_option("--compromised-kinds", options.compromised_kinds,
                 "only these kinds of flood (names as in the JSON report; default: all)")
      ->delimiter(',');
  app.add_option("--json", options.json_path, "write the figures as JSON here");
  CLI11_PARSE(app, argc, argv);
  if (options.agents % options.concurrent_tests != 0) {
    std::fprintf(stderr, "--agents must be a multiple of --concurrent-tests\n");
    return 2;
  }
  if (options.vanish >= options.agents / options.concurrent_tests) {
    std::fprintf(stderr, "--vanish must be below the nodes of one test\n");
    return 2;
  }
  if (options.tls && options.tls_dir.empty()) {
    std::fprintf(stderr, "--tls needs --tls-dir\n");
    return 2;
  }
  return eb::bench::Run(options);
}
