#pragma once

// Reports and a temporary directory for the TestHistory tests.

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "ebnccl/v1/control.pb.h"
#include "gtest/gtest.h"

namespace eb::coordinator::test {

// A report of `nodes` x `ranks_per_node` ranks with `sizes` result rows,
// every rank's time filled in (the bulk of a real report).
inline ebnccl::v1::TestReport MakeReport(const std::string& test_id, int64_t start_ms,
                                         ebnccl::v1::TestState state, int nodes = 2,
                                         int ranks_per_node = 2, int sizes = 3) {
  namespace v1 = ebnccl::v1;
  v1::TestReport report;
  report.set_schema_version(1);
  report.set_test_id(test_id);
  report.set_state(state);
  report.set_start_time_unix_ms(start_ms);
  report.set_transport(v1::TRANSPORT_GLOO);
  report.set_summary(absl::StrCat("summary of ", test_id));
  v1::TestSpec& spec = *report.mutable_spec();
  spec.set_collective(v1::COLLECTIVE_ALL_REDUCE);
  spec.set_min_bytes(8);
  spec.set_max_bytes(8 << sizes);
  spec.set_workers_per_node(ranks_per_node);
  const int world = nodes * ranks_per_node;
  for (int n = 0; n < nodes; ++n) {
    spec.add_node_names(absl::StrCat("node", n));
    report.add_node_inventories()->set_hostname(absl::StrCat("host", n));
  }
  for (int r = 0; r < world; ++r) {
    v1::RankAssignment& rank = *report.add_ranks();
    rank.set_rank(r);
    rank.set_world_size(world);
    rank.set_node_index(r / ranks_per_node);
    rank.set_node_name(absl::StrCat("node", r / ranks_per_node));
    rank.set_local_rank(r % ranks_per_node);
    rank.set_device_index(-1);
  }
  for (int s = 0; s < sizes; ++s) {
    v1::SizeResult& row = *report.add_results();
    row.set_size_bytes(int64_t{8} << s);
    row.set_count(int64_t{2} << s);
    for (v1::VariantResult* variant : {row.mutable_out_of_place(), row.mutable_in_place()}) {
      variant->set_time_us(10.0 + s);
      variant->set_busbw_gbps(1.5 * (s + 1));
      variant->set_slowest_rank(world - 1);
      for (int r = 0; r < world; ++r) variant->add_rank_time_us(10.0 + s + 0.001 * r);
    }
  }
  if (state == v1::TEST_STATE_PASSED || state == v1::TEST_STATE_FAILED) {
    report.set_end_time_unix_ms(start_ms + 1000);
  }
  if (state == v1::TEST_STATE_FAILED) {
    v1::Failure& failure = *report.add_failures();
    failure.set_kind(v1::FAILURE_KIND_WORKER_EXITED);
    failure.set_rank(1);
    failure.set_node_name("node0");
    failure.set_message("rank 1 exited with code 1");
  }
  return report;
}

// A fresh directory under TEST_TMPDIR (or /tmp), removed with its contents.
class TempDir {
 public:
  TempDir() {
    const char* base = getenv("TEST_TMPDIR");
    std::string pattern =
        absl::StrCat(base != nullptr && *base != '\0' ? base : "/tmp", "/eb-history-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << pattern << " failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return absl::StrCat(path_, "/", name); }

 private:
  std::string path_;
};

}  // namespace eb::coordinator::test
