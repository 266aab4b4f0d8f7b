#include "coordinator/core/collective_tests/result_aggregator.h"

#include "common/spec/proto_enums.h"
#include "common/transport/bandwidth.h"
#include "coordinator/core/collective_tests/judged_time.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

v1::VariantResult AggregateVariant(transport::Collective collective, int64_t count,
                                   size_t type_size, const std::vector<double>& times_us,
                                   const std::vector<int>& node_of, int64_t wrong, int average) {
  v1::VariantResult variant;
  variant.set_wrong_elements(wrong);
  for (double t : times_us) variant.add_rank_time_us(t);
  auto summary = transport::SummarizeRankTimes(collective, count, type_size, times_us);
  if (!summary.ok()) return variant;
  // nccl-tests -a: the row's time is rank 0's, the average (default), the
  // fastest or the slowest rank's; algbw and busbw follow from it.
  double time_us = summary->avg_time_us;
  transport::Bandwidth bandwidth = summary->bandwidth;
  if (average == 0 || average == 2 || average == 3) {
    time_us = average == 0   ? times_us.front()
              : average == 2 ? summary->min_time_us
                             : summary->max_time_us;
    bandwidth = transport::ComputeBandwidth(collective, count, type_size,
                                            static_cast<int>(times_us.size()), time_us);
  }
  variant.set_time_us(time_us);
  variant.set_algbw_gbps(bandwidth.algbw_gbps);
  variant.set_busbw_gbps(bandwidth.busbw_gbps);
  const double judged_us = JudgedTimeUs(time_us, times_us, node_of);
  variant.set_judged_time_us(judged_us);
  variant.set_judged_busbw_gbps(judged_us == time_us
                                    ? bandwidth.busbw_gbps
                                    : transport::ComputeBandwidth(collective, count, type_size,
                                                                  static_cast<int>(times_us.size()),
                                                                  judged_us)
                                          .busbw_gbps);
  variant.set_min_time_us(summary->min_time_us);
  variant.set_max_time_us(summary->max_time_us);
  variant.set_slowest_rank(summary->slowest_rank);
  return variant;
}

// Every rank's GPU throttle in rank order when any rank recorded one (an
// empty GpuThrottle, wall 0, for a rank that did not): unlike schedules,
// one GPU whose NVML could not be read must not hide the others'.
void AddRankGpuThrottle(const std::vector<const v1::RankSizeResult*>& per_rank,
                        v1::SizeResult& row) {
  bool any = false;
  for (const v1::RankSizeResult* rank : per_rank) {
    any = any || rank->out_of_place().has_gpu_throttle() || rank->in_place().has_gpu_throttle();
  }
  if (!any) return;
  for (const v1::RankSizeResult* rank : per_rank) {
    *row.mutable_out_of_place()->add_rank_gpu_throttle() = rank->out_of_place().gpu_throttle();
    *row.mutable_in_place()->add_rank_gpu_throttle() = rank->in_place().gpu_throttle();
  }
}

}  // namespace

v1::SizeResult AggregateSize(const v1::TestSpec& spec,
                             const std::vector<const v1::RankSizeResult*>& per_rank,
                             const std::vector<int>& node_of) {
  v1::SizeResult row;
  if (per_rank.empty()) return row;
  // The spec was validated, so the conversions cannot fail.
  // The row's own collective (TestSpec.collectives); a worker older than the
  // field runs only the spec's.
  const v1::Collective name = per_rank.front()->collective() != v1::COLLECTIVE_UNSPECIFIED
                                  ? per_rank.front()->collective()
                                  : spec.collective();
  const transport::Collective collective =
      spec::ToTransport(name).value_or(transport::Collective::kAllReduce);
  const int average = spec.has_average() ? spec.average() : 1;
  const size_t type_size = transport::DataTypeSize(
      spec::ToTransport(spec.data_type()).value_or(transport::DataType::kFloat));
  if (spec.collectives_size() > 0) row.set_collective(name);
  row.set_size_bytes(per_rank.front()->size_bytes());
  row.set_count(per_rank.front()->count());
  std::vector<double> out_times, in_times;
  int64_t out_wrong = 0, in_wrong = 0;
  bool arrivals = true;  // every rank recorded them (an older worker does not)
  for (const v1::RankSizeResult* rank : per_rank) {
    out_times.push_back(rank->out_of_place().time_us());
    in_times.push_back(rank->in_place().time_us());
    out_wrong += rank->out_of_place().wrong_elements();
    in_wrong += rank->in_place().wrong_elements();
    arrivals = arrivals && rank->out_of_place().arrival_samples() > 0 &&
               rank->in_place().arrival_samples() > 0;
  }
  *row.mutable_out_of_place() =
      AggregateVariant(collective, row.count(), type_size, out_times, node_of, out_wrong, average);
  *row.mutable_in_place() =
      AggregateVariant(collective, row.count(), type_size, in_times, node_of, in_wrong, average);
  bool iterations = true;  // every rank timed each iteration (-I)
  for (const v1::RankSizeResult* rank : per_rank) {
    iterations = iterations && rank->out_of_place().iteration_us_size() > 0 &&
                 rank->in_place().iteration_us_size() > 0;
  }
  if (iterations) {
    for (const v1::RankSizeResult* rank : per_rank) {
      *row.mutable_out_of_place()->add_rank_iterations()->mutable_time_us() =
          rank->out_of_place().iteration_us();
      *row.mutable_in_place()->add_rank_iterations()->mutable_time_us() =
          rank->in_place().iteration_us();
    }
  }
  bool schedules = true;  // every rank sampled its schedule (an older worker does not)
  for (const v1::RankSizeResult* rank : per_rank) {
    schedules = schedules && rank->out_of_place().has_schedule() && rank->in_place().has_schedule();
  }
  if (schedules) {
    for (const v1::RankSizeResult* rank : per_rank) {
      *row.mutable_out_of_place()->add_rank_schedule() = rank->out_of_place().schedule();
      *row.mutable_in_place()->add_rank_schedule() = rank->in_place().schedule();
    }
  }
  if (arrivals) {
    for (const v1::RankSizeResult* rank : per_rank) {
      row.mutable_out_of_place()->add_rank_arrival_us(rank->out_of_place().arrival_us());
      row.mutable_in_place()->add_rank_arrival_us(rank->in_place().arrival_us());
    }
  }
  AddRankGpuThrottle(per_rank, row);
  return row;
}

}  // namespace eb::coordinator
