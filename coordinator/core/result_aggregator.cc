#include "coordinator/core/result_aggregator.h"

#include "common/spec/proto_enums.h"
#include "common/transport/bandwidth.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

v1::VariantResult AggregateVariant(transport::Collective collective, int64_t count,
                                   size_t type_size, const std::vector<double>& times_us,
                                   int64_t wrong) {
  v1::VariantResult variant;
  variant.set_wrong_elements(wrong);
  for (double t : times_us) variant.add_rank_time_us(t);
  auto summary = transport::SummarizeRankTimes(collective, count, type_size, times_us);
  if (!summary.ok()) return variant;
  variant.set_time_us(summary->avg_time_us);
  variant.set_algbw_gbps(summary->bandwidth.algbw_gbps);
  variant.set_busbw_gbps(summary->bandwidth.busbw_gbps);
  variant.set_min_time_us(summary->min_time_us);
  variant.set_max_time_us(summary->max_time_us);
  variant.set_slowest_rank(summary->slowest_rank);
  return variant;
}

}  // namespace

v1::SizeResult AggregateSize(const v1::TestSpec& spec,
                             const std::vector<const v1::RankSizeResult*>& per_rank) {
  v1::SizeResult row;
  if (per_rank.empty()) return row;
  // The spec was validated, so the conversions cannot fail.
  const transport::Collective collective =
      spec::ToTransport(spec.collective()).value_or(transport::Collective::kAllReduce);
  const size_t type_size = transport::DataTypeSize(
      spec::ToTransport(spec.data_type()).value_or(transport::DataType::kFloat));
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
      AggregateVariant(collective, row.count(), type_size, out_times, out_wrong);
  *row.mutable_in_place() =
      AggregateVariant(collective, row.count(), type_size, in_times, in_wrong);
  if (arrivals) {
    for (const v1::RankSizeResult* rank : per_rank) {
      row.mutable_out_of_place()->add_rank_arrival_us(rank->out_of_place().arrival_us());
      row.mutable_in_place()->add_rank_arrival_us(rank->in_place().arrival_us());
    }
  }
  return row;
}

}  // namespace eb::coordinator
