#pragma once

// The text output of `ebctl tests`: one line per test. Returns whole lines,
// each ending in '\n', ready for std::cout. Pure; callable from any thread.

#include <string>

#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

// A header line (TEST, START, COLLECTIVE, STATE, RANKS, NODES, SUMMARY),
// then one line per test in the reply's order (newest first): id, start time
// (UTC), collective, state, rank count, comma-separated node names and the
// one-line summary. Fixed-width columns that grow for longer cells.
std::string TestListTable(const ebnccl::v1::ListTestsReply& reply);

}  // namespace eb::ebctl
