#pragma once

// What each culprit kind (TestReport.culprit) names and how ebctl says it:
// the one table (docs/DESIGN.md, "Vocabularies: one table each"). A new
// kind is one row here (the switch in culprit_kinds.cc names it) plus its
// value in control.proto. Pure; any thread.

#include "ebnccl/v1/control.pb.h"

namespace eb::spec {

// The part a culprit of this kind names.
enum class CulpritPart {
  kNothing,  // no part: the path (the counters may say whose), or cannot tell
  kRank,     // a rank (TestReport.slowest_rank), on its node
  kNode,     // a node (TestReport.culprit_node)
  kPort,     // a node's NIC port (culprit_node and culprit_part)
  kFailure,  // what the failure that ended the test names: its rank, or its node
  kGpu,      // a rank's GPU (slowest_rank; culprit_node its node, culprit_part "GPU 3")
};

struct CulpritKindRow {
  // ebctl's word in "# Culprit: <word>: <reason>" (the wire name, or what
  // says it better to a reader: "cannot tell").
  const char* word;
  CulpritPart part;
  // The text line names the part after the word ("descheduled_host node2",
  // "link_errors node3 mlx5_2 port 1", "gpu_throttled node7 GPU 3").
  bool part_in_line;
};

// The row of `kind`; a value this build does not know (a newer peer) reads
// as CULPRIT_UNKNOWN's row.
const CulpritKindRow& RowOf(ebnccl::v1::Culprit kind);

}  // namespace eb::spec
