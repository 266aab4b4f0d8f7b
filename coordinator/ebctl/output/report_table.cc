#include "coordinator/ebctl/output/report_table.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/spec/judged_figures.h"
#include "common/spec/names.h"
#include "coordinator/ebctl/output/attribution_lines.h"
#include "coordinator/ebctl/output/float_format.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/per_iter_json.h"
#include "coordinator/ebctl/output/printable.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
namespace {

// nccl-tests' device line, "#  Rank %2d Group %2d Pid %6d on %10s device
// %2d [%04x:%02x:%02x] %s", so that its own parseRankInfo ("#  Rank %d Group
// %d Pid %d on %1024s device %d [%128[^]]] %1024[^\n]") reads every field.
// "on" names the node (the host name unless --node-name says otherwise: the
// name every other line uses); a CPU rank is device -1; %[ matches no empty
// field, so an unknown bus id or name is "-" and a CPU rank's name says its
// slot. Pid 0: the worker never registered (or an older report).
std::string RankLine(const v1::TestReport& report, const v1::RankAssignment& rank) {
  const bool cpu = rank.device_index() < 0;
  const std::string hex = DeviceHex(rank.gpu_pci_bus_id());
  std::string name = DeviceInfo(report, rank);
  if (cpu) name = absl::StrCat("cpu slot ", rank.local_rank());
  return absl::StrFormat("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n", rank.rank(),
                         0, rank.worker_pid(), rank.node_name(), cpu ? -1 : rank.device_index(),
                         hex.empty() ? "-" : hex, name.empty() ? "-" : name);
}

// nccl-tests -I 1's line (writeDeviceReport; no "; summary skips" part:
// -K is not offered). NCCL times each iteration with CUDA events as
// nccl-tests does; Gloo with the host's steady clock, and says so.
std::string PerIterationReportLine(const v1::TestReport& report) {
  if (!report.spec().per_iter_timing()) return "";
  return absl::StrFormat("# Per-Iteration Report: %s timing; i_* uses max over process rows \n",
                         report.transport() == v1::TRANSPORT_GLOO ? "host clock" : "CUDA event");
}

// "all_reduce" or, for several, "all_reduce,broadcast".
std::string CollectivesText(const v1::TestSpec& spec) {
  if (spec.collectives_size() <= 1) return spec::DisplayName(spec.collective());
  std::vector<std::string> names;
  for (int c : spec.collectives())
    names.emplace_back(spec::DisplayName(static_cast<v1::Collective>(c)));
  return absl::StrJoin(names, ",");
}

// nccl-tests' step column: the factor when it multiplies, else the bytes.
std::string StepText(const v1::TestSpec& spec) {
  return spec.step_factor() > 1 ? absl::StrCat(spec.step_factor(), "(factor)")
                                : absl::StrCat(spec.step_bytes(), "(bytes)");
}

// "  %7s  %6s  %6s  %6g" of nccl-tests' writeBenchmarkLineBody.
std::string VariantColumns(const v1::VariantResult& variant, bool report_errors) {
  const std::string wrong =
      report_errors ? absl::StrFormat("  %6g", static_cast<double>(variant.wrong_elements()))
                    : std::string("    N/A");
  return absl::StrCat("  ", FormatFloatField(variant.time_us(), 7), "  ",
                      FormatFloatField(variant.algbw_gbps(), 6), "  ",
                      FormatFloatField(variant.busbw_gbps(), 6), wrong);
}

std::string FailureLine(const v1::Failure& failure) {
  if (failure.rank() >= 0) {
    return absl::StrFormat("# rank %d (node %s, slot %d, device %d): %s\n", failure.rank(),
                           failure.node_name(), failure.local_rank(), failure.device_index(),
                           failure.message());
  }
  if (!failure.node_name().empty()) {
    return absl::StrFormat("# node %s: %s\n", failure.node_name(), failure.message());
  }
  return absl::StrFormat("# %s\n", failure.message());
}

// "a800-0 GPU3 0000:4f:00.0 mlx5_103" (what is known of it).
std::string MemberText(const v1::RailMember& member, int rail) {
  std::string text = member.node_name();
  // A CPU transport's rail is a slot; there is no GPU to name.
  if (member.device_index() >= 0) {
    absl::StrAppend(&text, " GPU", member.device_index());
  } else {
    absl::StrAppend(&text, " slot ", rail);
  }
  if (!member.gpu_pci_bus_id().empty()) absl::StrAppend(&text, " ", member.gpu_pci_bus_id());
  if (!member.hca().empty()) absl::StrAppend(&text, " ", member.hca());
  return text;
}

// The per-rail block (TestSpec.split_rails): per rail, its members, its
// rows in the main table's layout, its average and how it compares.
std::string RailBlock(const v1::TestReport& report) {
  if (report.rails_size() == 0) return "";
  std::string out = "# Per-rail results (one sub-communicator per local rank, all at once)\n";
  for (const v1::RailResult& rail : report.rails()) {
    std::vector<std::string> members;
    for (const v1::RailMember& member : rail.members())
      members.push_back(MemberText(member, rail.rail()));
    absl::StrAppendFormat(&out, "# rail %d: %s\n", rail.rail(), absl::StrJoin(members, ", "));
    for (const v1::SizeResult& row : rail.results()) {
      absl::StrAppend(&out, "#", TableRow(row, report.spec()));
    }
  }
  out += "#\n";
  for (const v1::RailResult& rail : report.rails()) {
    if (rail.results_size() == 0) {
      absl::StrAppendFormat(&out, "# rail %d: no results\n", rail.rail());
      continue;
    }
    // %.3g: FormatFloatField at width 0 prints "1e+00" for 1.22.
    absl::StrAppendFormat(&out, "# rail %d: avg busbw %.3g GB/s, %.0f%% of the rail median%s\n",
                          rail.rail(), rail.avg_busbw_gbps(), rail.busbw_ratio() * 100,
                          rail.slow() ? ": SLOW" : "");
    if (rail.has_straggler()) {
      const v1::SlowestRank& late = rail.straggler();
      for (const v1::RailMember& member : rail.members()) {
        if (member.rank() != late.rank()) continue;
        absl::StrAppendFormat(&out,
                              "#   rail %d: %s (rank %d) arrived last in %d of %d measurements, "
                              "%.0f us behind\n",
                              rail.rail(), MemberText(member, rail.rail()), late.rank(),
                              late.slowest_count(), late.measurements(), late.mean_lag_us());
      }
    } else if (rail.slow()) {
      absl::StrAppendFormat(&out,
                            "#   rail %d: no member arrived late (arrivals flat): the rail's "
                            "path (NICs, cables, switch), or a member stalled inside the calls "
                            "(rails are not judged by schedule yet)\n",
                            rail.rail());
    }
  }
  out += "#\n";
  return out;
}

std::string LinkText(const v1::PortLinkState& link) {
  std::string text = link.state().empty() ? "?" : link.state();
  if (!link.phys_state().empty()) absl::StrAppend(&text, "/", link.phys_state());
  if (link.rate_gbps() > 0) absl::StrAppend(&text, " ", link.rate_gbps(), " Gb/s");
  if (!link.link_layer().empty()) absl::StrAppend(&text, " ", link.link_layer());
  return text;
}

// The HCA ports' counters over the test (issue 12, part 3): per port, its
// link at start and end, the error counters that grew, and the traffic.
std::string PortBlock(const v1::TestReport& report) {
  if (report.port_counters_size() == 0) return "";
  std::string out = "# HCA port counters (before -> after the test)\n";
  bool any_error = false;
  for (const v1::PortEvidence& port : report.port_counters()) {
    absl::StrAppendFormat(&out, "# %s %s:%d", port.node_name(), port.hca(), port.port());
    if (!port.error().empty()) {
      absl::StrAppend(&out, ": not read: ", port.error(), "\n");
      continue;
    }
    absl::StrAppend(&out, "  ", LinkText(port.start()));
    if (port.link_flapped()) {
      absl::StrAppend(&out, " -> ", LinkText(port.end()), "  LINK FLAPPED");
    }
    out += '\n';
    bool symbol_errors = false;
    std::vector<std::string> traffic;
    for (const v1::PortCounter& counter : port.counters()) {
      symbol_errors |= counter.name() == "symbol_error" && counter.delta() > 0;
      if (!counter.error_counter() && counter.delta() > 0) {
        traffic.push_back(absl::StrCat(counter.name(), " +", counter.delta()));
      }
    }
    if (port.grown_errors_size() > 0) {
      any_error = true;
      absl::StrAppend(&out, "#   errors grew: ", absl::StrJoin(port.grown_errors(), ", "), "\n");
    }
    if (symbol_errors) {
      out += "#   growing symbol errors: a slow rail on this port is a cable (or transceiver)\n";
    }
    if (!traffic.empty()) absl::StrAppend(&out, "#   ", absl::StrJoin(traffic, ", "), "\n");
  }
  if (!any_error) {
    out +=
        "# no error counter grew on any port: a slow rail here is not the cable; look "
        "elsewhere\n";
  }
  out += "#\n";
  return out;
}

// The ranks' last NCCL warnings and each node's NCCL RAS status (issue 12,
// part 5), NIC use and drift.
// `report` is the printable copy; `raw` gives the RAS text, which is lines:
// split first, then each line made printable (escaping its '\n' would run
// the reply into one line).
std::string NcclBlock(const v1::TestReport& report, const v1::TestReport& raw) {
  std::string out;
  for (const std::string& line : report.drift_warnings()) {
    absl::StrAppend(&out, "# Drift (--allow-drift): ", line, "\n");
  }
  for (const v1::RankNicUse& use : report.nic_use()) {
    if (!use.info_level() && !use.unknown_reason().empty()) {
      absl::StrAppendFormat(&out, "# rank %d (%s): NCCL paths unknown: %s\n", use.rank(),
                            use.node_name(), use.unknown_reason());
      continue;
    }
    absl::StrAppendFormat(&out, "# rank %d (%s): NCCL used %s%s\n", use.rank(), use.node_name(),
                          use.nics().empty() ? "no NIC" : absl::StrJoin(use.nics(), ","),
                          use.unexpected()
                              ? absl::StrCat(", NOT its nearest HCA ", use.expected_hca())
                              : std::string());
    if (!use.info_level()) continue;
    // What NCCL really used (issue 29, item 4).
    absl::StrAppendFormat(
        &out, "#   net %s, %d channels, GDR %s, own node via %s%s%s\n",
        use.net_transport().empty() ? "none" : use.net_transport(), use.coll_channels(),
        use.has_gdr() ? (use.gdr() ? "on" : "off") : "-",
        use.intra_transports().empty() ? "-" : absl::StrJoin(use.intra_transports(), ","),
        use.nccl_version().empty() ? "" : ", NCCL ", use.nccl_version());
    if (use.channels_dropped() > 0) {
      absl::StrAppendFormat(&out, "#   (%d channel connections not kept in the report)\n",
                            use.channels_dropped());
    }
    for (const std::string& finding : use.findings()) {
      absl::StrAppendFormat(&out, "#   MISMATCH: rank %d %s\n", use.rank(), finding);
    }
  }
  if (report.nccl_warnings_size() > 0) {
    out += "# NCCL warnings (last lines of each rank's log)\n";
    for (const v1::RankNcclWarnings& rank : report.nccl_warnings()) {
      absl::StrAppendFormat(&out, "# rank %d (%s)%s:\n", rank.rank(), rank.node_name(),
                            rank.truncated() ? ", earlier lines omitted" : "");
      for (const std::string& line : rank.lines()) absl::StrAppend(&out, "#   ", line, "\n");
    }
  }
  for (int i = 0; i < report.nccl_ras_size(); ++i) {
    const v1::NcclRasStatus& ras = report.nccl_ras(i);
    absl::StrAppendFormat(&out, "# NCCL RAS status (%s, port %d)%s%s\n", ras.node_name(),
                          ras.port(), ras.error().empty() ? "" : ": ", ras.error());
    for (absl::string_view line : absl::StrSplit(raw.nccl_ras(i).text(), '\n', absl::SkipEmpty())) {
      absl::StrAppend(&out, "#   ", spec::Printable(line), "\n");
    }
  }
  if (!out.empty()) out += "#\n";
  return out;
}

// nccl-tests' writeResultHeader without -S: the "%*s" timestamp column has
// width 0, which leaves one trailing blank on each line; with -I the four
// per-iteration columns follow each variant.
std::string ColumnHeader(const v1::TestSpec& spec) {
  std::string out = "#\n";
  if (spec.per_iter_timing()) {
    absl::StrAppendFormat(&out,
                          "# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)"
                          "                                in-place (+ per-iteration)\n",
                          "", "", "", "", "");
    absl::StrAppendFormat(&out,
                          "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  "
                          "%7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s \n",
                          "size", "count", "type", "redop", "root", "time", "algbw", "busbw",
                          "#wrong", "i_min", "i_max", "i_p99", "i_cv%", "time", "algbw", "busbw",
                          "#wrong", "i_min", "i_max", "i_p99", "i_cv%");
    absl::StrAppendFormat(&out,
                          "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  "
                          "%7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s \n",
                          "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
                          "(us)", "(us)", "(%)", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)",
                          "(us)", "(%)");
    return out;
  }
  absl::StrAppendFormat(&out,
                        "# %10s  %12s  %8s  %6s  %6s           out-of-place                       "
                        "in-place          \n",
                        "", "", "", "", "");
  absl::StrAppendFormat(&out,
                        "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n",
                        "size", "count", "type", "redop", "root", "time", "algbw", "busbw",
                        "#wrong", "time", "algbw", "busbw", "#wrong");
  absl::StrAppendFormat(
      &out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "(B)",
      "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  return out;
}

// nccl-tests -I's "  %7s  %7s  %7s  %7s" (i_min, i_max, i_p99, i_cv%) of
// the per-iteration maximum over ranks; "-" when a rank had no times.
std::string PerIterColumns(const v1::VariantResult& variant) {
  const nlohmann::json per_iter = PerIterToJson(variant);
  if (per_iter.is_null()) return absl::StrFormat("  %7s  %7s  %7s  %7s", "-", "-", "-", "-");
  return absl::StrCat("  ", FormatFloatField(per_iter["min_us"].get<double>(), 7), "  ",
                      FormatFloatField(per_iter["max_us"].get<double>(), 7), "  ",
                      FormatFloatField(per_iter["p99_us"].get<double>(), 7), "  ",
                      FormatFloatField(per_iter["cv_pct"].get<double>(), 7));
}

// The collective of a row: its own, or the spec's (one collective).
v1::Collective RowCollective(const v1::SizeResult& row, const v1::TestSpec& spec) {
  return row.collective() != v1::COLLECTIVE_UNSPECIFIED ? row.collective() : spec.collective();
}

}  // namespace

std::string TableHeader(const v1::TestReport& raw, absl::string_view version) {
  const v1::TestReport accepted = PrintableCopy(raw);
  const v1::TestSpec& spec = accepted.spec();
  std::string out = absl::StrFormat("# ebnccl %s test %s transport %s\n", version,
                                    accepted.test_id(), spec::DisplayName(accepted.transport()));
  // One collective: nccl-tests (2.19) says so after its version line, and
  // concludes after its footer (TableFooter); several say so per table.
  if (spec.collectives_size() <= 1) {
    absl::StrAppend(&out, "# Collective test starting: ", spec::DisplayName(spec.collective()),
                    "\n");
  }
  absl::StrAppendFormat(
      &out,
      "# collective %s nranks %d nodes %d minBytes %d maxBytes %d step: %s warmup iters: %d "
      "iters: %d validation: %d graph: %d datatype %s redop %s root %d",
      CollectivesText(spec), accepted.ranks_size(), TestNodeNames(accepted).size(),
      spec.min_bytes(), spec.max_bytes(), StepText(spec), spec.warmup_iterations(),
      spec.iterations(), spec.check_iterations(), spec.cuda_graph_launches(),
      spec::DisplayName(spec.data_type()), RedopLabel(spec), RootLabel(spec));
  if (spec.min_busbw_gbps() > 0) {
    absl::StrAppendFormat(&out, " min busbw: %g", spec.min_busbw_gbps());
  }
  out += '\n';
  out += PerIterationReportLine(accepted);
  out += "#\n# Using devices\n";
  for (const v1::RankAssignment& rank : accepted.ranks()) out += RankLine(accepted, rank);

  // Several collectives: each table gets its own column header before its
  // first row (TablePrinter).
  if (spec.collectives_size() <= 1) out += ColumnHeader(spec);
  return out;
}

std::string TableRow(const v1::SizeResult& raw, const v1::TestSpec& spec) {
  const v1::SizeResult row = PrintableCopy(raw);
  const bool report_errors = spec.check_iterations() > 0;
  // The row's own collective decides redop and root.
  v1::TestSpec row_spec = spec;
  row_spec.set_collective(RowCollective(row, spec));
  // nccl-tests formats the root with "%6i" into a string, then prints that
  // string with "%6s"; for numbers the result is the same.
  std::string line = absl::StrFormat("%12d  %12d  %8s  %6s  %6d", row.size_bytes(), row.count(),
                                     spec::DisplayName(spec.data_type()), RedopLabel(row_spec),
                                     RootLabel(row_spec));
  line += VariantColumns(row.out_of_place(), report_errors);
  if (spec.per_iter_timing()) line += PerIterColumns(row.out_of_place());
  line += VariantColumns(row.in_place(), report_errors);
  if (spec.per_iter_timing()) line += PerIterColumns(row.in_place());
  line += '\n';
  return line;
}

TablePrinter::TablePrinter(const v1::TestSpec& spec)
    : spec_(spec), several_(spec.collectives_size() > 1) {}

std::string TablePrinter::Row(const v1::SizeResult& row) {
  std::string out;
  if (several_) {
    const v1::Collective collective = RowCollective(row, spec_);
    if (!started_ || collective != current_) {
      if (started_) out += CollectiveFooter();
      started_ = true;
      current_ = collective;
      rows_ = 0;
      busbw_sum_ = 0;
      judged_busbw_sum_ = 0;
      wrong_ = 0;
      absl::StrAppend(&out, "#\n# Collective test starting: ", spec::DisplayName(collective), "\n",
                      ColumnHeader(spec_));
    }
    ++rows_;
    busbw_sum_ += row.out_of_place().busbw_gbps() + row.in_place().busbw_gbps();
    judged_busbw_sum_ += 2 * spec::JudgedRowBusbw(row);
    wrong_ += row.out_of_place().wrong_elements() + row.in_place().wrong_elements();
  }
  out += TableRow(row, spec_);
  return out;
}

std::string TablePrinter::Finish(const v1::TestReport& finished) {
  std::string out;
  if (several_ && started_) out += CollectiveFooter();
  started_ = false;
  out += TableFooter(finished);
  return out;
}

std::string TablePrinter::CollectiveFooter() const {
  // One collective's nccl-tests footer, from its rows (the coordinator's
  // CollectiveSummary holds the same figures).
  const double avg = rows_ > 0 ? busbw_sum_ / (2.0 * rows_) : 0.0;
  // The verdict is the judged figure's, as the coordinator's.
  const double judged = rows_ > 0 ? judged_busbw_sum_ / (2.0 * rows_) : 0.0;
  std::string verdict;
  if (spec_.min_busbw_gbps() > 0) verdict = judged >= spec_.min_busbw_gbps() ? "OK" : "FAILED";
  std::string out;
  absl::StrAppendFormat(&out, "# %-20s : %d %s\n", "Out of bounds values", wrong_,
                        wrong_ != 0 ? "FAILED" : "OK");
  absl::StrAppendFormat(&out, "# %-20s : %g %s\n", "Avg bus bandwidth", avg, verdict);
  absl::StrAppendFormat(&out, "#\n# Collective test concluded: %s\n", spec::DisplayName(current_));
  return out;
}

std::string TableFooter(const v1::TestReport& raw) {
  const v1::TestReport finished = PrintableCopy(raw);
  const v1::TestSpec& spec = finished.spec();
  std::string out;
  if (spec.collectives_size() > 1) {
    // Each collective printed its own footer (TablePrinter); one verdict
    // for all follows.
    for (const v1::CollectiveSummary& footer : finished.collective_summaries()) {
      absl::StrAppendFormat(&out, "# %-14s : %d sizes, avg busbw %g GB/s, %d wrong\n",
                            spec::DisplayName(footer.collective()), footer.sizes(),
                            footer.avg_busbw_gbps(), footer.wrong_elements());
    }
  } else {
    // nccl-tests: "# %-20s : %d %s\n" and "# %-20s : %g %s\n"; the verdict
    // word is empty (one trailing blank) when the bandwidth is not checked.
    absl::StrAppendFormat(&out, "# %-20s : %d %s\n", "Out of bounds values",
                          finished.wrong_elements(),
                          finished.wrong_elements() != 0 ? "FAILED" : "OK");
    std::string verdict;
    if (spec.min_busbw_gbps() > 0) {
      const double judged =
          spec::JudgedMean(finished.judged_avg_busbw_gbps(), finished.avg_busbw_gbps());
      verdict = judged >= spec.min_busbw_gbps() ? "OK" : "FAILED";
    }
    absl::StrAppendFormat(&out, "# %-20s : %g %s\n", "Avg bus bandwidth", finished.avg_busbw_gbps(),
                          verdict);
    absl::StrAppend(&out, "#\n# Collective test concluded: ", spec::DisplayName(spec.collective()),
                    "\n");
  }
  out += "#\n";
  out += RailBlock(finished);
  out += PortBlock(finished);
  out += NcclBlock(finished, raw);

  absl::StrAppend(&out, "# Result: ", absl::AsciiStrToUpper(StateName(finished.state())));
  if (!finished.summary().empty()) absl::StrAppend(&out, " — ", finished.summary());
  out += '\n';
  for (const v1::Failure& failure : finished.failures()) out += FailureLine(failure);
  out += AttributionLines(finished);
  return out;
}

}  // namespace eb::ebctl
