// ebctl: the command-line client of eb-coordinator.
//
//   ebctl --coordinator HOST:PORT nodes
//   ebctl --coordinator HOST:PORT run-test --nodes a,b --collective all_reduce -b 8 -e 64M -f 2
//   ebctl tests | show TEST | cancel TEST | logs TEST --rank R
//   ebctl report TEST|v-ID -o FILE.html | report --node NAME -o FILE.html
//
// A test is one collective sweep over a set of nodes (docs/DESIGN.md,
// "Nouns"); `jobs` is kept as an alias of `tests`, its earlier name.
//
// Exit codes: docs/EXIT_CODES.md.

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/config/parse_command_line.h"
#include "common/spec/identifiers.h"
#include "common/spec/limits.h"
#include "common/spec/names.h"
#include "common/spec/numbers.h"
#include "common/spec/wire_names.h"
#include "common/version/version.h"
#include "coordinator/ebctl/commands/audit_command.h"
#include "coordinator/ebctl/commands/cancel_command.h"
#include "coordinator/ebctl/commands/logs_command.h"
#include "coordinator/ebctl/commands/nodes_command.h"
#include "coordinator/ebctl/commands/report_command.h"
#include "coordinator/ebctl/commands/run_test_command.h"
#include "coordinator/ebctl/commands/show_command.h"
#include "coordinator/ebctl/commands/tests_command.h"
#include "coordinator/ebctl/commands/topology_command.h"
#include "coordinator/ebctl/commands/validate_command.h"
#include "coordinator/ebctl/commands/validations_command.h"
#include "coordinator/ebctl/commands/version_command.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/input/cli_checks.h"

namespace {

// A whole number in [min, max], said in words (CLI::PositiveNumber says
// "Value 0 not in range 0.000000 to 1797693...", and an overflowing
// "99999999999999999999" became INT64_MAX; SECURITY_FINDINGS case 15).
CLI::Validator WholeNumber(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        absl::StatusOr<int64_t> value = eb::ebctl::ParseWholeNumber(text, min, max, "");
        return value.ok() ? "" : std::string(value.status().message());
      },
      absl::StrCat("INT:", min, "..", max));
}

// A finite number in [min, max] (spec::ParseShare: "nan", "inf" and "1e999"
// refused with the range; issue 32, item 5).
CLI::Validator Share(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        absl::StatusOr<double> value = eb::spec::ParseShare(text, "", min, max);
        return value.ok() ? "" : std::string(value.status().message());
      },
      absl::StrCat("NUMBER:", min, "..", max));
}

// The flags run-test and validate share, with the same names, defaults and
// checks: collective, sizes, iterations, transport and per-test deadlines.
// Only the help of -e and -f differs (validate grades the largest size, and
// steps by 2 where run-test steps by -i).
void AddSweepFlags(CLI::App& cmd, eb::ebctl::RunTestFlags& f, const char* max_bytes_help,
                   const char* step_factor_help) {
  // Like nccl-tests' getopt loop, a repeated flag takes its last value.
  cmd.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cmd.add_option("--collective", f.collective,
                 eb::spec::CollectiveNames(", ") +
                     "; run-test: also a comma-separated list or all (one after the other on one "
                     "communicator); validate: one (a list is refused: one validation each)")
      ->capture_default_str();
  cmd.add_option("-b,--minbytes", f.min_bytes, "Smallest size (K/M/G suffixes)")
      ->capture_default_str();
  cmd.add_option("-e,--maxbytes", f.max_bytes, max_bytes_help)->capture_default_str();
  cmd.add_option("-f,--stepfactor", f.step_factor, step_factor_help)
      ->check(WholeNumber(0, std::numeric_limits<int32_t>::max()));
  cmd.add_option("-n,--iters", f.iterations, "Timed iterations per size")->capture_default_str();
  cmd.add_option("-w,--warmup_iters", f.warmup_iterations, "Warm-up iterations")
      ->capture_default_str();
  cmd.add_option("-c,--check", f.check_iterations, "Data-check iterations per size")
      ->capture_default_str();
  cmd.add_option("--transport", f.transport, "auto, gloo or nccl")
      ->check(CLI::IsMember({"auto", "gloo", "nccl"}))
      ->capture_default_str();
  cmd.add_option("--timeout", f.timeout, "Deadline of each test (90, 90s, 5m)");
  cmd.add_option("--launch-timeout", f.launch_timeout, "Deadline for workers to start");
  cmd.add_option("--init-timeout", f.init_timeout, "Deadline for ranks to join the communicator");
  cmd.add_option("--step-timeout", f.step_timeout, "Deadline of one size step");
  // nccl-tests' threading flags, typed out of habit: 1 is a note, others
  // refused (NcclTestsHabits).
  cmd.add_option("-g,--ngpus", f.gpus_per_thread,
                 "nccl-tests' GPUs per thread: only 1 (one rank per GPU, always)")
      ->check(WholeNumber(0, std::numeric_limits<int32_t>::max()));
  cmd.add_option("-t,--nthreads", f.threads_per_process,
                 "nccl-tests' threads per process: only 1 (one process per rank, always)")
      ->check(WholeNumber(0, std::numeric_limits<int32_t>::max()));
}

// --progress of validate, show --follow and run-test
// (output/progress_style.h).
void AddProgressFlag(CLI::App& cmd, std::string& mode) {
  cmd.add_option("--progress", mode,
                 "Progress on stderr: auto (a terminal: rounds, elapsed, an estimate; elsewhere: "
                 "timestamped lines for the log), always (timestamped lines, on a terminal too) "
                 "or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

// -g/-t as nccl-tests users type them: 1 is what ebnccl does (a note on
// stderr), anything else is refused. The exit code when refused.
std::optional<int> NcclTestsHabits(const CLI::App& cmd, const eb::ebctl::RunTestFlags& f) {
  for (const auto& [flag, name, value] :
       {std::tuple{"--ngpus", "-g/--ngpus", f.gpus_per_thread},
        std::tuple{"--nthreads", "-t/--nthreads", f.threads_per_process}}) {
    if (cmd.count(flag) == 0) continue;
    absl::StatusOr<std::string> note = eb::ebctl::NcclTestsThreadingNote(name, value);
    if (!note.ok()) {
      std::fprintf(stderr, "ebctl: %s: %s\n", cmd.get_name().c_str(),
                   std::string(note.status().message()).c_str());
      return eb::ebctl::kExitUsage;
    }
    std::fprintf(stderr, "ebctl: note: %s\n", note->c_str());
  }
  return std::nullopt;
}

void AddRunTestFlags(CLI::App& cmd, eb::ebctl::RunTestFlags& f) {
  AddSweepFlags(cmd, f, "Largest size", "Multiplicative step (without it: the additive -i)");
  cmd.add_option("-i,--stepbytes", f.step_bytes, "Additive step (without -f)")
      ->capture_default_str();
  cmd.add_option("-d,--datatype", f.data_type, eb::spec::DataTypeNames(", "))
      ->capture_default_str();
  cmd.add_option("-o,--op", f.reduce_op, eb::spec::ReduceOpNames(", "))->capture_default_str();
  cmd.add_option("-r,--root", f.root, "Root rank of broadcast and reduce")->capture_default_str();
  cmd.add_option("--nodes", f.nodes,
                 "Comma-separated node names in rank order (default: all idle)");
  cmd.add_option("--workers-per-node", f.workers_per_node,
                 "Ranks per node (default: every slot of each node)");
  cmd.add_option("--min-busbw", f.min_busbw_gbps, "Fail below this average bus bandwidth (GB/s)")
      ->check(Share(0, 1e6));
  cmd.add_option("--nccl-env", f.nccl_env,
                 "KEY=VALUE NCCL setting for this test (repeatable; NCCL_ALGO, NCCL_PROTO, "
                 "NCCL_DEBUG, ...)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("-G,--cudagraph", f.cuda_graph,
                 "Capture the timed iterations as a CUDA graph and launch it N times per "
                 "measurement (nccl-tests -G; 0 = off; NCCL only)");
  cmd.add_flag("--split-rails", f.split_rails,
               "Also run the sweep on every rail at once (one sub-communicator per local rank, "
               "as nccl-tests' NCCL_TESTS_SPLIT=\"MOD <gpus per node>\"): one result per rail");
  cmd.add_option("-J,--output-file,--output_file", f.output_file,
                 "Also write the JSON report to this file, as nccl-tests -J (the table stays on "
                 "stdout; FILE.0, FILE.1, ... when FILE exists, as nccl-tests)");
  cmd.add_option("-I,--per_iter_timing", f.per_iter_timing,
                 "1: also time every iteration (nccl-tests -I: i_min, i_max, i_p99, i_cv% "
                 "columns; per-iteration times in the JSON)")
      ->check(WholeNumber(0, 1));
  cmd.add_option("-a,--average", f.average,
                 "Time of a row: 0 rank 0, 1 average over ranks, 2 min, 3 max (nccl-tests -a)")
      ->check(WholeNumber(0, 3))
      ->capture_default_str();
  cmd.add_option("-T,--timeout_s", f.timeout_seconds,
                 "Seconds a size step may take before the test times out (nccl-tests -T; "
                 "same as --step-timeout)")
      ->check(WholeNumber(0, std::numeric_limits<int32_t>::max()));
  cmd.add_flag("--allow-drift", f.allow_drift,
               "Run even when the nodes differ in NCCL version, CUDA driver, GPU model, HCA "
               "ports, a port's state, link layer, rate or firmware, or MTU (a warning in the "
               "report instead of a refusal)");
}

// validate takes run-test's sweep flags (AddSweepFlags) and nodes, and its
// own.
void AddValidateFlags(CLI::App& cmd, eb::ebctl::ValidateFlags& f) {
  AddSweepFlags(cmd, f.test,
                "Largest size, the one graded (without -b/-e: each test at its plateau, "
                "docs/VALIDATION.md)",
                "Multiplicative step (default 2)");
  cmd.add_option("--nodes", f.test.nodes, "Comma-separated node names (default: every idle node)");
  std::vector<std::string> suites;
  for (int suite = 1; suite <= ebnccl::v1::Suite_MAX; ++suite) {
    suites.push_back(eb::spec::WireName(static_cast<ebnccl::v1::Suite>(suite)));
  }
  cmd.add_option("--suite", f.suites,
                 absl::StrCat("Comma-separated: ", absl::StrJoin(suites, ", "),
                              " (default: preflight,intra,pairs)"));
  cmd.add_option("--strategy", f.strategy, "adaptive or all-pairs (default: adaptive)")
      ->check(CLI::IsMember({"adaptive", "all-pairs"}));
  cmd.add_option("--tolerance", f.tolerance, "Slow below (1 - tolerance) x the baseline")
      ->capture_default_str()
      ->check(Share(0, 0.5));
  cmd.add_option("--baselines", f.baselines,
                 "Baselines TOML (expected busbw by hardware; default: the coordinator's)");
  cmd.add_option("--validation-timeout", f.timeout, "Deadline of the whole validation (6h)");
  cmd.add_option("--soak", f.soak,
                 "After the pairs, repeat pair tests of the healthy nodes at the graded size "
                 "(partners rotating) for this long, judging every repeat (e.g. 30m)");
  cmd.add_flag("--detach", f.detach, "Print the validation id and return; it keeps running");
  cmd.add_flag("--allow-small-sizes", f.allow_small_sizes,
               "Grade a -e below 1M (NCCL, auto) or 256K (Gloo), where busbw measures latency; "
               "refused without this flag");
}

}  // namespace

int main(int argc, char** argv) {
  // SIGINT/SIGTERM are taken by the command's watcher thread (run-test
  // cancels its test) instead of killing ebctl mid-call.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  eb::ebctl::GlobalOptions options;
  options.args.assign(argv, argv + argc);
  if (const char* env = std::getenv("EBCTL_COORDINATOR")) options.coordinator = env;
  // Mutual TLS from the environment; the flags override it.
  if (const char* env = std::getenv("EBNCCL_TLS_CA")) options.tls.ca = env;
  if (const char* env = std::getenv("EBNCCL_TLS_CERT")) options.tls.cert = env;
  if (const char* env = std::getenv("EBNCCL_TLS_KEY")) options.tls.key = env;
  std::string format = "table";
  double connect_timeout_s = 5;

  CLI::App app{"ebctl: run and inspect ebnccl tests"};
  // CLI11's own messages ("The following argument was not expected") carry
  // ebctl's prefix like every other error. Set before the subcommands, which
  // copy it.
  app.failure_message([](const CLI::App* from, const CLI::Error& error) {
    return "ebctl: " + CLI::FailureMessage::simple(from, error);
  });
  app.set_version_flag("--version", std::string(eb::kVersion));
  // Zero is allowed so that a bare `ebctl` lists the commands (below).
  app.require_subcommand(0, 1);
  app.add_option("--coordinator", options.coordinator,
                 "Coordinator HOST[:PORT] (default port 29470; env EBCTL_COORDINATOR)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--connect-timeout", connect_timeout_s, "Seconds to try to reach the coordinator")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            double value = 0;
            if (absl::SimpleAtod(text, &value) && value > 0 && value <= 3600) return "";
            return absl::StrCat(eb::spec::Quote(text),
                                " is not a number of seconds from 0 to 3600");
          },
          "SECONDS"));
  app.add_option("--format", format, "Output: table or json")
      ->check(CLI::IsMember({"table", "json"}));
  app.add_flag("--json", options.json, "Same as --format json");
  app.add_option("--tls-ca", options.tls.ca, "Fleet CA (PEM) for mutual TLS (env EBNCCL_TLS_CA)");
  app.add_option("--tls-cert", options.tls.cert,
                 "Client certificate (PEM) carrying a role (env EBNCCL_TLS_CERT)");
  app.add_option("--tls-key", options.tls.key, "Its private key, mode 0600 (env EBNCCL_TLS_KEY)");

  eb::ebctl::NodesCommand nodes;
  eb::ebctl::AuditCommand audit;
  eb::ebctl::RunTestCommand run_test;
  eb::ebctl::TestsCommand tests;
  eb::ebctl::ShowCommand show;
  eb::ebctl::CancelCommand cancel;
  eb::ebctl::LogsCommand logs;
  eb::ebctl::ValidateCommand validate;
  eb::ebctl::ValidationsCommand validations;
  eb::ebctl::ReportCommand report;
  eb::ebctl::VersionCommand version;
  eb::ebctl::TopologyCommand topology;
  CLI::App* nodes_cmd = app.add_subcommand("nodes", "List the agents and their inventory");
  nodes_cmd->add_flag("--gpus", nodes.gpus,
                      "Also list every GPU: bus id, NUMA node and the HCA closest to it");
  CLI::App* run_cmd = app.add_subcommand("run-test", "Run one test and print the nccl-tests table");
  AddRunTestFlags(*run_cmd, run_test.flags);
  AddProgressFlag(*run_cmd, run_test.progress);
  run_cmd->add_option("--format", format, "Output: table or json")
      ->check(CLI::IsMember({"table", "json"}));
  run_cmd->add_flag("--json", options.json, "Same as --format json");
  run_cmd->add_flag("--json-lines", run_test.json_lines,
                    "Stream one JSON object per result row, then the report, one per line");
  CLI::App* tests_cmd =
      app.add_subcommand("tests", "List recent tests, newest first")->alias("jobs");
  tests_cmd->add_option("--limit", tests.limit, "At most this many")
      ->check(WholeNumber(1, eb::spec::kMaxListedTests));
  tests_cmd->add_option("--node", tests.nodes,
                        "Only tests on one of these nodes (comma-separated)");
  tests_cmd->add_option("--state", tests.states,
                        "Only tests in one of these states (comma-separated: running, passed, "
                        "failed, timed_out, cancelled, interrupted, ...)");
  tests_cmd->add_option(
      "--since", tests.since,
      "Only tests started since then: a duration back (30m, 2h, 7d) or an RFC 3339 "
      "time");
  CLI::App* show_cmd = app.add_subcommand("show", "Print one test's or validation's report");
  show_cmd->add_option("id", show.test_id, "Test id (t-...) or validation id (v-...)")->required();
  show_cmd->add_flag("--follow", show.follow, "v-...: follow the validation until it ends");
  AddProgressFlag(*show_cmd, show.progress);
  CLI::App* validate_cmd =
      app.add_subcommand("validate", "Validate a fleet: verdicts per node, path and rail");
  AddValidateFlags(*validate_cmd, validate.flags);
  AddProgressFlag(*validate_cmd, validate.progress);
  validate_cmd->add_option("--report", validate.report_path,
                           "Also write the validation's HTML report to this file at the end (a "
                           "new file: an existing one only with --force)");
  validate_cmd->add_flag("--force", validate.force,
                         "--report may replace an existing regular file");
  CLI::App* validations_cmd =
      app.add_subcommand("validations", "List recent validations, newest first");
  validations_cmd->add_option("--limit", validations.limit, "At most this many")
      ->check(WholeNumber(1, eb::spec::kMaxListedTests));
  CLI::App* report_cmd = app.add_subcommand(
      "report", "Write one self-contained HTML report of a test, a validation or a node");
  CLI::Option* report_id =
      report_cmd->add_option("id", report.id, "Test id (t-...) or validation id (v-...)");
  report_cmd
      ->add_option("--node", report.node,
                   "A node's history instead: its verdicts and busbw over time")
      ->excludes(report_id);
  report_cmd
      ->add_option("-o,--output", report.output,
                   "The HTML file to write: a new file (an existing one only with --force; never "
                   "a device, FIFO or symbolic link)")
      ->required();
  report_cmd->add_flag("--force", report.force, "Replace an existing regular file at -o");
  report_cmd
      ->add_option("--limit", report.limit,
                   "--node: the newest this many tests and validations of the fleet to look in")
      ->check(WholeNumber(1, eb::spec::kMaxListedTests))
      ->capture_default_str();
  CLI::App* cancel_cmd = app.add_subcommand("cancel", "Cancel a running test");
  cancel_cmd->add_option("test_id", cancel.test_id, "Test id (t-...)")->required();
  CLI::App* logs_cmd =
      app.add_subcommand("logs", "Print one rank's worker log (NCCL's log included)");
  logs_cmd->add_option("test_id", logs.test_id, "Test id (t-...)")->required();
  logs_cmd->add_option("--rank", logs.rank, "Rank")
      ->required()
      ->check(WholeNumber(0, eb::spec::kMaxRanksPerTest - 1));
  logs_cmd
      ->add_option("--max-bytes", logs.max_bytes,
                   "At most this many bytes from the end (read in pages of 1 MiB)")
      ->check(WholeNumber(1, std::numeric_limits<int64_t>::max()));
  CLI::App* audit_cmd = app.add_subcommand(
      "audit", "The coordinator's audit log: who ran, cancelled or registered what (admin)");
  audit_cmd->add_option("--limit", audit.limit, "At most this many entries, newest first")
      ->check(WholeNumber(1, eb::spec::kMaxListedTests));
  CLI::App* topology_cmd = app.add_subcommand(
      "topology",
      "The fabric the coordinator loaded and what it and the agents' inventories disagree on");
  CLI::App* version_cmd =
      app.add_subcommand("version", "Print ebctl's version and the coordinator's");
  std::string help_topic;
  CLI::App* help_cmd = app.add_subcommand("help", "List the commands, or one command's flags");
  help_cmd->add_option("command", help_topic, "The command whose flags to list");
  // --json and --format after the subcommand as well as before it.
  for (CLI::App* sub : {nodes_cmd, tests_cmd, show_cmd, cancel_cmd, logs_cmd, validate_cmd,
                        validations_cmd, audit_cmd, topology_cmd, version_cmd}) {
    sub->add_flag("--json", options.json, "Print JSON");
    sub->add_option("--format", format, "Output: table or json")
        ->check(CLI::IsMember({"table", "json"}));
  }

  // CLI11 answers "A subcommand is required" to `ebctl nodez`: name the word.
  {
    std::vector<std::string> commands, options_with_value;
    for (const CLI::App* sub : app.get_subcommands({})) {
      commands.push_back(sub->get_name());
      for (const std::string& alias : sub->get_aliases()) commands.push_back(alias);
    }
    for (const CLI::Option* option : app.get_options()) {
      // A flag expects no value (its type size is 1 all the same, so
      // `ebctl --json logs t-1` once took "logs" for the value of --json).
      if (option->get_expected_max() == 0) continue;
      for (const std::string& name : option->get_lnames())
        options_with_value.push_back("--" + name);
      for (const std::string& name : option->get_snames()) options_with_value.push_back("-" + name);
    }
    if (std::optional<std::string> unknown = eb::ebctl::UnknownCommand(
            std::vector<std::string>(argv + 1, argv + argc), commands, options_with_value)) {
      std::fprintf(stderr, "ebctl: unknown command %s (expected one of: %s)\n",
                   eb::spec::Quote(*unknown).c_str(), absl::StrJoin(commands, ", ").c_str());
      return eb::ebctl::kExitUsage;
    }
  }
  if (const absl::Status utf8 =
          eb::ebctl::CheckArgumentsUtf8(std::vector<std::string>(argv + 1, argv + argc));
      !utf8.ok()) {
    std::fprintf(stderr, "ebctl: %s\n", std::string(utf8.message()).c_str());
    return eb::ebctl::kExitUsage;
  }
  if (auto exit_code = eb::common::ParseCommandLine(app, argc, argv, eb::ebctl::kExitUsage)) {
    return *exit_code;
  }
  // `ebctl help [COMMAND]`: the list (or the command's flags) on stdout.
  if (help_cmd->parsed()) {
    // app.help() shows the last parsed subcommand's help (`help`'s own)
    // until clear(), which forgets what was parsed but not the values.
    const std::string& topic = help_topic;
    app.clear();
    if (topic.empty()) {
      std::fputs(app.help().c_str(), stdout);
      return eb::ebctl::kExitOk;
    }
    for (const CLI::App* sub : app.get_subcommands({})) {
      const std::vector<std::string>& aliases = sub->get_aliases();
      if (sub->get_name() == topic ||
          std::find(aliases.begin(), aliases.end(), topic) != aliases.end()) {
        std::fputs(sub->help().c_str(), stdout);
        return eb::ebctl::kExitOk;
      }
    }
    std::fprintf(stderr, "ebctl: help: unknown command %s\n%s", eb::spec::Quote(help_topic).c_str(),
                 app.help().c_str());
    return eb::ebctl::kExitUsage;
  }
  // No command (a bare `ebctl`, or global options alone): the list of
  // commands on stderr, and a usage error, as for any missing argument.
  if (app.get_subcommands().empty()) {
    std::fprintf(stderr, "ebctl: no command given\n%s", app.help().c_str());
    return eb::ebctl::kExitUsage;
  }
  for (const auto& [cmd, flags] :
       {std::pair{run_cmd, &run_test.flags}, std::pair{validate_cmd, &validate.flags.test}}) {
    if (!cmd->parsed()) continue;
    if (std::optional<int> refused = NcclTestsHabits(*cmd, *flags)) return *refused;
  }
  run_test.flags.nodes_given = run_cmd->count("--nodes") > 0;
  run_test.flags.average_given = run_cmd->count("--average") > 0;
  validate.flags.test.nodes_given = validate_cmd->count("--nodes") > 0;
  validate.flags.sweep_given =
      validate_cmd->count("--minbytes") > 0 || validate_cmd->count("--maxbytes") > 0;
  validate.flags.iterations_given = validate_cmd->count("--iters") > 0;
  if (format == "json") options.json = true;
  if (run_test.json_lines && options.json) {
    std::fprintf(stderr, "ebctl: run-test: --json-lines and --json are two outputs: choose one\n");
    return eb::ebctl::kExitUsage;
  }
  options.connect_timeout = absl::Seconds(connect_timeout_s);

  eb::ebctl::Command* command = nullptr;
  if (nodes_cmd->parsed()) command = &nodes;
  if (run_cmd->parsed()) command = &run_test;
  if (tests_cmd->parsed()) command = &tests;
  if (show_cmd->parsed()) command = &show;
  if (cancel_cmd->parsed()) command = &cancel;
  if (logs_cmd->parsed()) command = &logs;
  if (validate_cmd->parsed()) command = &validate;
  if (validations_cmd->parsed()) command = &validations;
  if (audit_cmd->parsed()) command = &audit;
  if (version_cmd->parsed()) command = &version;
  if (topology_cmd->parsed()) command = &topology;
  if (report_cmd->parsed()) {
    if (report.id.empty() == report.node.empty()) {
      std::fprintf(stderr, "ebctl: report: give a test or validation id, or --node NAME\n");
      return eb::ebctl::kExitUsage;
    }
    command = &report;
  }
  return command->Run(options);
}
