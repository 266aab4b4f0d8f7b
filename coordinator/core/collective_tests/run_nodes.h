#pragma once

// The nodes of one test, in node order, with their ranks, and where each
// stands in the test's stop: lost, or its agent confirmed that its workers
// are gone. Per-event work is O(1) in the number of nodes (issue 15): the
// nodes that are done are counted. Pure; owned by the TestRun.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ebnccl/v1/common.pb.h"
#include "google/protobuf/repeated_field.h"

namespace eb::coordinator {

class RunNodes {
 public:
  // `ranks` in rank order, contiguous per node.
  explicit RunNodes(const google::protobuf::RepeatedPtrField<ebnccl::v1::RankAssignment>& ranks);

  // Node names in node order.
  const std::vector<std::string>& names() const { return names_; }
  bool Has(const std::string& node) const { return index_.contains(node); }
  // The ranks of `node` in rank order; none for a node outside the test.
  const std::vector<int>& RanksOf(const std::string& node) const;

  // The agent of `node` confirmed that its workers are gone.
  void MarkStopped(const std::string& node);
  bool stopped(const std::string& node) const { return stopped_.contains(node); }
  // `node` is gone: its agent cannot confirm anything.
  void MarkLost(const std::string& node);
  bool lost(const std::string& node) const { return lost_.contains(node); }
  // The nodes neither lost nor confirmed stopped, in node order.
  std::vector<std::string> StillRunning() const;
  // Whether every node is lost or confirmed stopped.
  bool AllDone() const { return done_ == names_.size(); }

 private:
  std::vector<std::string> names_;
  // Node name -> index in ranks_ (and names_).
  std::map<std::string, size_t> index_;
  std::vector<std::vector<int>> ranks_;
  std::set<std::string> lost_;
  std::set<std::string> stopped_;
  // Nodes that are lost or confirmed stopped.
  size_t done_ = 0;
};

}  // namespace eb::coordinator
