#pragma once

// The text output of ebctl for one test: the nccl-tests table, streamable
// row by row while the RunTest stream delivers it. Every function returns
// whole lines, each ending in '\n', ready for std::cout. Pure functions,
// callable from any thread.
//
// The parts copied from nccl-tests (the column header, the rows, the
// "Out of bounds" and "Avg bus bandwidth" footer lines) keep its exact
// printf layout (src/util.cu), trailing blanks included, so that scripts that
// parse nccl-tests output parse ours. Lines of our own start with "#" too.

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "common/version/version.h"
#include "ebnccl/v1/common.pb.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

// The lines before the first row: "# ebnccl <version> test <id> transport
// <t>", the configuration (as nccl-tests' "# nThread ... minBytes ..."
// line, with our fields), one "#  Rank ..." line per rank (node, slot,
// device, and the GPU's bus id and name when the node's inventory has them),
// and the nccl-tests two-line column header. `accepted` is the report of the
// RunTest "accepted" event (or any later one); only its id, spec, transport,
// rank map and inventories are used.
std::string TableHeader(const ebnccl::v1::TestReport& accepted,
                        absl::string_view version = kVersion);

// One row, as nccl-tests prints it: "%12li  %12li  %8s  %6s  %6s" (size,
// count, type, redop or "none", root or -1) then, out-of-place and in-place,
// "  %7s  %6s  %6s  %6g" (time in us, algbw, busbw, #wrong). #wrong is
// "N/A" when the spec has no check iterations, as with nccl-tests -c 0.
std::string TableRow(const ebnccl::v1::SizeResult& row, const ebnccl::v1::TestSpec& spec);

// The lines after the last row: nccl-tests' "# Out of bounds values" and
// "# Avg bus bandwidth" (OK/FAILED only when spec.min_busbw_gbps > 0,
// compared with the exact threshold, not nccl-tests' 0.9 x), "#", then
// the per-rail block when the test split rails (each rail's members, rows
// prefixed with "#", average busbw against the rail median, SLOW and the
// member that arrived late), "# Result: <STATE> — <summary>", one line per
// failure, and the straggler (by arrival: the rank that arrived last; or
// "none, arrivals flat": the path) when there is one.
// With several collectives (TestSpec.collectives) the per-collective
// "Out of bounds" and "Avg bus bandwidth" lines are TablePrinter's; this
// footer then lists each collective's figures before the one verdict.
std::string TableFooter(const ebnccl::v1::TestReport& finished);

// Prints the rows of a test as they come: with one collective exactly
// TableRow and TableFooter; with several, before the first row of each
// collective "# Collective test starting: <name>" and its column header,
// and after its last row its own nccl-tests footer ("Out of bounds
// values", "Avg bus bandwidth" checked against --min-busbw, "# Collective
// test concluded: <name>"), as if each ran as its own nccl-tests binary.
class TablePrinter {
 public:
  explicit TablePrinter(const ebnccl::v1::TestSpec& spec);
  // The lines for one row (and the table breaks around it).
  std::string Row(const ebnccl::v1::SizeResult& row);
  // The last collective's footer and TableFooter(finished).
  std::string Finish(const ebnccl::v1::TestReport& finished);

 private:
  std::string CollectiveFooter() const;

  ebnccl::v1::TestSpec spec_;
  bool several_;
  bool started_ = false;
  ebnccl::v1::Collective current_ = ebnccl::v1::COLLECTIVE_UNSPECIFIED;
  int rows_ = 0;
  double busbw_sum_ = 0;
  double judged_busbw_sum_ = 0;  // common/spec/judged_figures.h
  int64_t wrong_ = 0;
};

}  // namespace eb::ebctl
