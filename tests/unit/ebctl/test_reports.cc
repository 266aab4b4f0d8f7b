#include "tests/unit/ebctl/test_reports.h"

#include <algorithm>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace eb::ebctl::testing {
namespace v1 = ebnccl::v1;
namespace {

int64_t UnixMs(absl::CivilSecond when, int millis) {
  return absl::ToUnixMillis(absl::FromCivil(when, absl::UTCTimeZone())) + millis;
}

void SetVariant(v1::VariantResult* variant, double time_us, double algbw, double busbw,
                int64_t wrong, double rank0_us, double rank1_us) {
  variant->set_time_us(time_us);
  variant->set_algbw_gbps(algbw);
  variant->set_busbw_gbps(busbw);
  variant->set_wrong_elements(wrong);
  variant->set_min_time_us(std::min(rank0_us, rank1_us));
  variant->set_max_time_us(std::max(rank0_us, rank1_us));
  variant->set_slowest_rank(rank1_us > rank0_us ? 1 : 0);
  variant->add_rank_time_us(rank0_us);
  variant->add_rank_time_us(rank1_us);
}

}  // namespace

v1::Failure RankOneExited() {
  v1::Failure failure;
  failure.set_kind(v1::FAILURE_KIND_WORKER_EXITED);
  failure.set_rank(1);
  failure.set_node_name("host2");
  failure.set_local_rank(0);
  failure.set_device_index(-1);
  failure.set_message("rank 1 on host2 slot 0 was killed by signal 9");
  failure.set_exit_code(-1);
  failure.set_signal(9);
  return failure;
}

v1::TestReport TwoRankReport() {
  v1::TestReport report;
  report.set_schema_version(1);
  report.set_test_id("t-20261129-154501-3f2a");
  report.set_state(v1::TEST_STATE_FAILED);
  report.set_transport(v1::TRANSPORT_GLOO);
  report.set_start_time_unix_ms(UnixMs(absl::CivilSecond(2026, 11, 29, 15, 45, 1), 123));
  report.set_end_time_unix_ms(UnixMs(absl::CivilSecond(2026, 11, 29, 15, 46, 0), 0));

  v1::TestSpec* spec = report.mutable_spec();
  spec->set_collective(v1::COLLECTIVE_ALL_REDUCE);
  spec->set_data_type(v1::DATA_TYPE_FLOAT);
  spec->set_reduce_op(v1::REDUCE_OP_SUM);
  spec->set_root_rank(0);
  spec->set_min_bytes(8);
  spec->set_max_bytes(int64_t{128} << 20);
  spec->set_step_factor(2);
  spec->set_iterations(20);
  spec->set_warmup_iterations(5);
  spec->set_check_iterations(1);
  spec->set_transport(v1::TRANSPORT_AUTO);
  spec->add_node_names("host1");
  spec->add_node_names("host2");
  spec->set_workers_per_node(1);
  spec->set_timeout_ms(600000);
  spec->set_min_busbw_gbps(50);

  for (int rank = 0; rank < 2; ++rank) {
    v1::RankAssignment* assignment = report.add_ranks();
    assignment->set_rank(rank);
    assignment->set_world_size(2);
    assignment->set_node_name(rank == 0 ? "host1" : "host2");
    assignment->set_node_index(rank);
    assignment->set_local_rank(0);
    assignment->set_device_index(-1);
    v1::NodeInventory* inventory = report.add_node_inventories();
    inventory->set_hostname(rank == 0 ? "host1.example.com" : "host2.example.com");
    inventory->set_worker_slots(1);
  }

  v1::SizeResult* small = report.add_results();
  small->set_size_bytes(8);
  small->set_count(2);
  SetVariant(small->mutable_out_of_place(), 10.5, 0.000762, 0.000762, 0, 10.0, 11.0);
  SetVariant(small->mutable_in_place(), 9.87, 0.00081, 0.00081, 0, 9.9, 9.84);
  v1::SizeResult* large = report.add_results();
  large->set_size_bytes(int64_t{128} << 20);
  large->set_count(int64_t{32} << 20);
  SetVariant(large->mutable_out_of_place(), 1234.56, 108.72, 108.72, 0, 1200.0, 1269.12);
  SetVariant(large->mutable_in_place(), 1300.0, 103.24, 103.24, 4, 1170.0, 1430.0);

  report.set_avg_busbw_gbps(52.99);
  report.set_wrong_elements(4);
  *report.add_failures() = RankOneExited();
  report.set_summary("rank 1 on host2 was killed by signal 9");
  // What the coordinator stores when it finalizes this report
  // (eb::validation::FindSlowestRank): rank 1 is slowest in all but the
  // small in-place measurement; its excess over the mean time, averaged.
  v1::SlowestRank* slowest = report.mutable_slowest_rank();
  slowest->set_rank(1);
  slowest->set_node_name("host2");
  slowest->set_local_rank(0);
  slowest->set_slowest_count(3);
  slowest->set_measurements(4);
  slowest->set_mean_excess_pct((11.0 / 10.5 + 1269.12 / 1234.56 + 1430.0 / 1300.0 - 3.0) / 3.0 *
                               100.0);
  return report;
}

}  // namespace eb::ebctl::testing
