#pragma once

// Grades results against their yardsticks. Tests are grouped by class (the
// same kind of test on the same hardware: intra per GPU model and count,
// pairs per HCA rate and count); each class keeps every node's best result
// so far (and every node's best per rail), which the fleet median is taken
// over. When a round is complete, every result so far is graded again
// against the class's yardstick of that moment: all verdicts rest on one
// yardstick, never on a mix of "expected alone" (early, few results) and
// "fleet median" (later), which could blame a node for what its partners
// were measured against.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coordinator/validation/fleet.h"
#include "coordinator/validation/observation.h"

namespace eb::validation {

class Grader {
 public:
  Grader(const std::vector<Node>& nodes, const Options& options);

  // The size the baseline of a test of `kind` over `nodes` holds at, when
  // it is for the validation's collective; 0 without one (graded_size.h).
  int64_t FigureBytes(TestKind kind, const std::vector<int>& nodes) const;

  // Whether a pair test of `nodes` graded at `graded_bytes` has an expected
  // figure to be judged by (else the fleet median alone judges it).
  bool PairHasFigure(const std::vector<int>& nodes, int64_t graded_bytes) const;

  // A completed observation joins its class's bests.
  void Add(const Observation& observation);
  // Grades every recorded observation (sets grade, aggregate_grade,
  // slow_rails, the yardsticks and graded). Each class's yardstick is
  // computed once, from every result added so far.
  void GradeAll(std::vector<Observation>& observations);

 private:
  struct Class {
    std::string what;  // "NVIDIA H200 x8 intra", "8 x 400G pair"
    std::optional<Expected> expected;
    std::optional<Expected> rail_expected;
    std::unordered_map<int, double> best;             // node -> best busbw
    std::map<std::pair<int, int>, double> rail_best;  // (node, rail) -> best
    int tests = 0;                                    // completed tests added
  };
  std::string KeyOf(const Observation& observation) const;
  void KeepComparable(std::optional<Expected>& expected, int64_t graded_bytes,
                      std::string& what) const;
  Class& ClassOf(const Observation& observation);

  // What the classes need of each node (copied: the Grader may outlive a
  // moved-from fleet vector).
  struct Hardware {
    std::string gpu_model;
    int gpu_count = 0;
    int64_t hca_rate_gbps = 0;
    int hca_count = 0;
    int64_t link_mbps = 0;  // the bootstrap interface's (Gloo)
  };
  std::pair<int64_t, int> PairHardware(const std::vector<int>& which) const;
  // Gloo: the slowest bootstrap link of the nodes (0 if any is unknown).
  int64_t GlooLinkMbps(const std::vector<int>& which) const;
  // The figure of a pair (or fleet) test of `which`, from the data plane's
  // table: gloo_pairs by link speed on Gloo, pairs by HCAs on NCCL.
  std::optional<Expected> PairExpected(const std::vector<int>& which) const;
  struct Yardsticks {
    Yardstick aggregate;
    Yardstick rail;
  };
  Yardsticks Measure(const Class& c) const;

  std::vector<Hardware> hardware_;
  BaselineTable baselines_;
  ebnccl::v1::Collective collective_;
  double tolerance_;
  bool gloo_;
  std::map<std::string, Class> classes_;
};

}  // namespace eb::validation
