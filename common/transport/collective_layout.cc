#include "common/transport/collective_layout.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace eb::transport {

absl::StatusOr<CollectiveLayout> ComputeLayout(Collective collective, int64_t size_bytes,
                                               size_t element_size, int nranks) {
  if (size_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("size_bytes: must be >= 0, got ", size_bytes));
  }
  if (nranks < 1) {
    return absl::InvalidArgumentError(absl::StrCat("nranks: must be >= 1, got ", nranks));
  }
  if (element_size != 1 && element_size != 2 && element_size != 4 && element_size != 8) {
    return absl::InvalidArgumentError(
        absl::StrCat("element_size: must be 1, 2, 4 or 8, got ", element_size));
  }
  const int64_t elt = static_cast<int64_t>(element_size);
  const int64_t count = size_bytes / elt;
  // nccl-tests keeps each rank's chunk 16-byte aligned so that every rank's
  // region starts on a vector boundary.
  const int64_t align_mask = 16 / elt - 1;
  const int64_t chunk = (count / nranks) & ~align_mask;

  // The collective's row says which count the call takes and how many of
  // them each region holds.
  const CollectiveRow row = Row(collective);
  CollectiveLayout layout;
  layout.element_size = elt;
  layout.param_count = row.count_is_chunk ? chunk : count;
  layout.send_count = row.sends_every_chunk ? layout.param_count * nranks : layout.param_count;
  layout.recv_count = row.receives_every_chunk ? layout.param_count * nranks : layout.param_count;
  switch (row.in_place) {
    case InPlaceForm::kSameBuffer:
      break;
    case InPlaceForm::kSendAtRankChunk:
      layout.send_inplace_offset = layout.param_count;
      break;
    case InPlaceForm::kRecvAtRankChunk:
      layout.recv_inplace_offset = layout.param_count;
      break;
  }
  return layout;
}

absl::StatusOr<std::vector<int64_t>> SweepSizes(int64_t min_bytes, int64_t max_bytes,
                                                int64_t step_factor, int64_t step_bytes) {
  if (min_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("min_bytes: must be >= 0, got ", min_bytes));
  }
  if (max_bytes < min_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_bytes: ", max_bytes, " is smaller than min_bytes ", min_bytes));
  }
  if (step_factor < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("step_factor: must be >= 0 (0 or 1: use step_bytes), got ", step_factor));
  }
  const bool geometric = step_factor > 1;
  if (geometric && min_bytes == 0) {
    return absl::InvalidArgumentError(absl::StrCat("min_bytes: 0 never grows with step_factor ",
                                                   step_factor, "; use min_bytes >= 1"));
  }
  if (!geometric && step_bytes <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "step_bytes: must be > 0 when step_factor <= 1 (the sweep would never end), got ",
        step_bytes));
  }
  if (!geometric && (max_bytes - min_bytes) / step_bytes + 1 > kMaxSweepSizes) {
    return absl::InvalidArgumentError(absl::StrCat("step_bytes: a sweep from ", min_bytes, " to ",
                                                   max_bytes, " in steps of ", step_bytes,
                                                   " would exceed ", kMaxSweepSizes, " sizes"));
  }

  std::vector<int64_t> sizes;
  int64_t size = min_bytes;
  while (true) {
    sizes.push_back(size);
    // Stop before computing a next size that would pass max_bytes, so that
    // the arithmetic cannot overflow near INT64_MAX.
    if (geometric) {
      if (size > max_bytes / step_factor) break;
      size *= step_factor;
    } else {
      if (size > max_bytes - step_bytes) break;
      size += step_bytes;
    }
  }
  return sizes;
}

absl::Status CheckSweepSizes(absl::Span<const int64_t> sizes, int64_t max_bytes,
                             absl::string_view field) {
  if (sizes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": no size to run"));
  }
  if (static_cast<int64_t>(sizes.size()) > kMaxSweepSizes) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", sizes.size(), " sizes; a sweep has at most ", kMaxSweepSizes));
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": size #", i, " (", sizes[i], ") is negative"));
    }
    if (i > 0 && sizes[i] < sizes[i - 1]) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": size #", i, " (", sizes[i],
                                                     ") is smaller than the size before it (",
                                                     sizes[i - 1], ")"));
    }
    if (sizes[i] > max_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": size #", i, " (", sizes[i],
                                                     ") is larger than max_bytes ", max_bytes));
    }
  }
  return absl::OkStatus();
}

std::vector<int64_t> WarmupSizes(int64_t min_bytes, int64_t max_bytes) {
  std::vector<int64_t> sizes;
  if (min_bytes < 0 || max_bytes < min_bytes) return sizes;
  int64_t size = min_bytes;
  while (true) {
    sizes.push_back(size);
    if (size == 0) {
      size = 1;
      if (size > max_bytes) break;
      continue;
    }
    if (size > max_bytes / 2) break;
    size *= 2;
  }
  return sizes;
}

}  // namespace eb::transport
