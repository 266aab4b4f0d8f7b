#pragma once

// Names and small derived values shared by the table and JSON renderers, so
// that both print the same word for the same thing. Pure functions, callable
// from any thread.

#include <cstdint>
#include <string>
#include <vector>

#include "ebnccl/v1/common.pb.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

// Lower-case enum names without their prefix: "passed", "timed_out";
// "worker_exited"; "idle", "lost". "unspecified" for 0 and
// "unknown(<n>)" for values this build does not know (a newer coordinator).
std::string StateName(ebnccl::v1::TestState state);
std::string FailureKindName(ebnccl::v1::FailureKind kind);
std::string NodeStateName(ebnccl::v1::NodeState state);

// True when the test state is final (PASSED, FAILED, TIMED_OUT, CANCELLED).
bool IsTerminal(ebnccl::v1::TestState state);

// The redop column of nccl-tests: the operator's name for reducing
// collectives (all_reduce, reduce, reduce_scatter), "none" otherwise.
std::string RedopLabel(const ebnccl::v1::TestSpec& spec);
// The root column of nccl-tests: the root rank for rooted collectives
// (broadcast, reduce), -1 otherwise.
int32_t RootLabel(const ebnccl::v1::TestSpec& spec);

// The collectives of a test in run order (TestSpec.collectives, or the one
// collective).
std::vector<ebnccl::v1::Collective> ReportCollectives(const ebnccl::v1::TestSpec& spec);
// The same as the user types them: "all_reduce,broadcast".
std::string CollectivesLabel(const ebnccl::v1::TestSpec& spec);

// Node names of the test in node order: from the rank map when there is one,
// else from the spec (empty spec list = "every idle node" = empty result).
std::vector<std::string> TestNodeNames(const ebnccl::v1::TestReport& report);

// Host name of the rank's node as its agent reported it, or the node name
// when no inventory is known.
std::string RankHostname(const ebnccl::v1::TestReport& report,
                         const ebnccl::v1::RankAssignment& rank);

// nccl-tests' "0000:0a:00" form of a PCI bus id "0000:0a:00.0" (without
// the function); "" when unknown (a CPU rank).
std::string DeviceHex(const std::string& pci_bus_id);
// The GPU model of a rank from its node's inventory; "" when unknown.
std::string DeviceInfo(const ebnccl::v1::TestReport& report,
                       const ebnccl::v1::RankAssignment& rank);

// ISO-8601 UTC with milliseconds, e.g. "2026-11-29T15:45:01.123Z".
std::string FormatUtcTime(int64_t unix_ms);

}  // namespace eb::ebctl
