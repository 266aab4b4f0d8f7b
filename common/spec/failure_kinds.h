#pragma once

// What each failure kind means to everyone who reads one: the one table
// (docs/DESIGN.md, "Vocabularies: one table each"). Which failure leads a
// test's list, whether the test ends TIMED_OUT, run-test's exit code, whether
// port counters speak to it, and what a validation makes of it all follow
// from a kind's row, so a new kind is one row here (the switch in
// failure_kinds.cc names it) plus its value in control.proto. Pure; any
// thread.

#include "ebnccl/v1/control.pb.h"

namespace eb::spec {

// Which of run-test's exit codes (coordinator/ebctl/exit_codes.h) a test
// whose primary failure is this kind ends with.
enum class FailureExit {
  kCheckFailed,    // 7: the measurement or the data failed a check
  kCommunication,  // 3: a worker, node or communicator failed
  kTimeout,        // 4
  kInterrupted,    // 130
  kInternal,       // 1
};

// What a validation makes of a test whose primary failure is this kind
// (coordinator/validation/result_from_report.cc).
enum class FailureBlame {
  // A process, agent or coordinator failed or stalled: never a hardware
  // verdict; the nodes it names (lost agents) become untestable.
  kInfrastructure,
  // The node of the rank it names, as a hardware failure; without a node,
  // infrastructure.
  kNamedNode,
  // As kNamedNode once the test measured a size; before that the
  // communicator never came up and nothing blames the hardware.
  kNamedNodeOnceMeasuring,
  // The data path among all the test's nodes (it names no rank): a
  // hardware failure naming every node of the test, which pair inference
  // re-tests with other partners before blaming a node or the path.
  kEveryNode,
  // A measurement that failed a check (too slow, below --min-busbw): the
  // test completed with what it measured, graded as any other.
  kMeasurement,
};

// Who a test's culprit (TestReport.culprit) is when this kind ended it
// (coordinator/validation/culprit.cc): the rows measured before the failure
// did not see it, so they must not contradict it.
enum class FailureCulprit {
  // The failure judges a finished measurement (wrong data, low bandwidth,
  // another path than configured, too slow: the rows say who), or it is an
  // interruption: the measurements decide.
  kMeasurements,
  // The part it names, its rank or node (CULPRIT_FAILURE); the
  // measurements decide when it names neither.
  kNamedPart,
  // The data path (CULPRIT_PATH): nothing moved, no rank behind another.
  kPath,
};

struct FailureKindRow {
  // Lower leads a test's failures: the most likely root cause first, its
  // consequences (peers of a dead rank time out) after it.
  int cause_priority;
  FailureExit exit;
  // A test whose primary failure is this kind ends TIMED_OUT (else FAILED).
  bool timed_out;
  // A verdict about the network: clean port counters are evidence for it
  // (issue 12), unlike for a crashed worker or wrong data.
  bool speaks_to_network;
  FailureBlame blame;
  FailureCulprit culprit;
};

// The row of `kind`; a value this build does not know (a newer peer) reads
// as FAILURE_KIND_INTERNAL's row.
const FailureKindRow& RowOf(ebnccl::v1::FailureKind kind);

}  // namespace eb::spec
