#include "coordinator/ebctl/output/nodes_table.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/gpu/pci_bus_id.h"
#include "common/spec/names.h"
#include "common/spec/verdicts.h"
#include "common/spec/wire_names.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/printable.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
namespace {

using Row = std::vector<std::string>;

// "0.4s", "59.9s", "3m20s", "2h05m": short enough for a column, precise
// enough to tell a late heartbeat from a lost node.
std::string FormatAge(int64_t age_ms) {
  if (age_ms < 0) return "-";
  if (age_ms < 60'000) return absl::StrFormat("%.1fs", static_cast<double>(age_ms) / 1000.0);
  const int64_t seconds = age_ms / 1000;
  if (seconds < 3600) return absl::StrFormat("%dm%02ds", seconds / 60, seconds % 60);
  return absl::StrFormat("%dh%02dm", seconds / 3600, (seconds % 3600) / 60);
}

// "8x NVIDIA H200 (140 GiB)"; mixed nodes list each model (and memory
// size) in order of appearance; no size when the agent had no NVML.
std::string FormatGpus(const v1::NodeInventory& inventory) {
  std::vector<std::pair<std::string, int>> models;
  for (const v1::GpuInfo& gpu : inventory.gpus()) {
    std::string model = gpu.name().empty() ? "GPU" : gpu.name();
    if (const std::string memory = common::FormatGpuMemory(gpu.memory_bytes()); !memory.empty()) {
      absl::StrAppend(&model, " (", memory, ")");
    }
    auto it = std::find_if(models.begin(), models.end(),
                           [&](const auto& entry) { return entry.first == model; });
    if (it == models.end()) {
      models.emplace_back(std::move(model), 1);
    } else {
      ++it->second;
    }
  }
  if (models.empty()) return "-";
  return absl::StrJoin(models, ", ", [](std::string* out, const auto& model) {
    absl::StrAppend(out, model.second, "x ", model.first);
  });
}

bool HcaUsable(const v1::HcaInfo& hca) { return hca.error().empty() && hca.state() == "ACTIVE"; }

// "8 active", or "6/8 active" when some configured ports are unusable;
// "-" when the agent configures none (NCCL's own choice).
std::string FormatHcas(const v1::NodeInventory& inventory) {
  if (inventory.hcas().empty()) return "-";
  const auto usable = std::count_if(inventory.hcas().begin(), inventory.hcas().end(), HcaUsable);
  if (usable == inventory.hcas_size()) return absl::StrCat(usable, " active");
  return absl::StrCat(usable, "/", inventory.hcas_size(), " active");
}

// One line per unusable HCA port of `node`.
void AppendHcaProblems(const v1::NodeStatus& node, std::string* out) {
  for (const v1::HcaInfo& hca : node.inventory().hcas()) {
    if (HcaUsable(hca)) continue;
    absl::StrAppend(out, "node ", node.node_name(), ": ");
    if (!hca.error().empty()) {
      absl::StrAppend(out, hca.error(), "\n");
    } else {
      absl::StrAppend(out, "HCA ", hca.name(), " port ", hca.port(), " is ",
                      hca.state().empty() ? "in an unknown state" : hca.state(), ", not ACTIVE\n");
    }
  }
}

std::string FormatTransports(const v1::NodeInventory& inventory) {
  if (inventory.transports().empty()) return "-";
  return absl::StrJoin(inventory.transports(), ",", [](std::string* out, int transport) {
    out->append(spec::DisplayName(static_cast<v1::Transport>(transport)));
  });
}

// "node c: last validation v-... (2026-12-01T20:05:01.000Z): degraded;
// repeat offender: degraded or failed in 2 validations", for nodes that a
// validation has judged (issue 11: a node that failed before is marked).
void AppendLastVerdict(const v1::NodeStatus& node, std::string* out) {
  if (node.last_verdict() == v1::VERDICT_UNSPECIFIED) return;
  absl::StrAppend(out, "node ", node.node_name(), ": last validation ", node.last_validation_id(),
                  " (", FormatUtcTime(node.last_verdict_time_unix_ms()),
                  "): ", spec::WireName(node.last_verdict()));
  if (spec::IsRepeatOffender(node.bad_verdict_count())) {
    absl::StrAppend(out, "; repeat offender: degraded or failed in ", node.bad_verdict_count(),
                    " validations");
  }
  absl::StrAppend(out, "\n");
}

std::string OrDash(const std::string& text) { return text.empty() ? "-" : text; }

// The scheduler's column (issue 30): "idle", "allocated", "drained
// (operator)", "drained (ebnccl)"; "-" for a node it did not list.
std::string FormatSchedulerState(const v1::NodeStatus& node) {
  if (node.scheduler_state().empty()) return "-";
  if (node.scheduler_drained_by().empty()) return node.scheduler_state();
  return absl::StrCat(node.scheduler_state(), " (", node.scheduler_drained_by(), ")");
}

// "node b: drained in slurm by an operator: bad fan | ticket 42": the
// reason in full, which a cell would make too wide.
void AppendSchedulerReason(const v1::ListNodesReply& reply, const v1::NodeStatus& node,
                           std::string* out) {
  if (node.scheduler_reason().empty()) return;
  absl::StrAppend(out, "node ", node.node_name(), ": ", node.scheduler_state(), " in ",
                  reply.scheduler(),
                  node.scheduler_drained_by() == "ebnccl" ? " by ebnccl: " : " by an operator: ",
                  node.scheduler_reason(), "\n");
}

// Left-aligned columns two blanks apart; the last column is not padded so
// that lines carry no trailing blanks.
std::string RenderColumns(const std::vector<Row>& rows) {
  std::vector<size_t> widths;
  for (const Row& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const Row& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      out += row[i];
      if (i + 1 < row.size()) out.append(widths[i] - row[i].size() + 2, ' ');
    }
    out += '\n';
  }
  return out;
}

}  // namespace

std::string NodesTable(const v1::ListNodesReply& raw) {
  const v1::ListNodesReply reply = PrintableCopy(raw);
  if (reply.nodes().empty()) return "no agents are registered with the coordinator\n";
  // The scheduler's column only where there is a scheduler.
  const bool scheduler = !reply.scheduler().empty();
  std::vector<Row> rows;
  rows.push_back({"NODE", "ADDRESS", "STATE", "SLOTS", "HEARTBEAT", "TRANSPORTS", "NCCL", "GPUS",
                  "HCAS", "IFACE", "TEST"});
  if (scheduler)
    rows.back().insert(rows.back().begin() + 3, absl::AsciiStrToUpper(reply.scheduler()));
  std::string problems;
  for (const v1::NodeStatus& node : reply.nodes()) {
    const v1::NodeInventory& inventory = node.inventory();
    rows.push_back(
        {node.node_name(), OrDash(node.peer_address()), NodeStateName(node.state()),
         absl::StrCat(inventory.worker_slots()), FormatAge(node.heartbeat_age_ms()),
         FormatTransports(inventory), OrDash(inventory.nccl_version()), FormatGpus(inventory),
         FormatHcas(inventory),
         inventory.bootstrap_interface().empty() ? "any" : inventory.bootstrap_interface(),
         OrDash(node.current_test_id())});
    if (scheduler) rows.back().insert(rows.back().begin() + 3, FormatSchedulerState(node));
    AppendHcaProblems(node, &problems);
    AppendSchedulerReason(reply, node, &problems);
    AppendLastVerdict(node, &problems);
  }
  if (scheduler && reply.scheduler_read_unix_ms() == 0) {
    absl::StrAppend(&problems, reply.scheduler(), ": not read yet\n");
  }
  return RenderColumns(rows) + problems;
}

std::string GpusTable(const v1::ListNodesReply& raw) {
  const v1::ListNodesReply reply = PrintableCopy(raw);
  std::vector<Row> rows;
  rows.push_back({"NODE", "GPU", "BUS ID", "MODEL", "NUMA", "NEAREST HCA", "AFFINITY"});
  for (const v1::NodeStatus& node : reply.nodes()) {
    for (const v1::GpuInfo& gpu : node.inventory().gpus()) {
      rows.push_back({node.node_name(), absl::StrCat(gpu.index()), OrDash(gpu.pci_bus_id()),
                      OrDash(gpu.name()),
                      gpu.numa_node() >= 0 && !gpu.hca_affinity().empty()
                          ? absl::StrCat(gpu.numa_node())
                          : std::string("-"),
                      OrDash(gpu.nearest_hca()), OrDash(gpu.hca_affinity())});
    }
  }
  if (rows.size() == 1) return "no node reports a GPU\n";
  return "\n" + RenderColumns(rows);
}

}  // namespace eb::ebctl
