#include "common/transport/nccl/nccl_unique_id.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/status/cuda_status.h"
#include "common/status/status_macros.h"

namespace eb::transport {
namespace {

absl::Status WithContext(const absl::Status& status, absl::string_view context) {
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

}  // namespace

std::string EncodeNcclUniqueId(const ncclUniqueId& id) {
  return std::string(reinterpret_cast<const char*>(&id), sizeof(id));
}

absl::StatusOr<ncclUniqueId> DecodeNcclUniqueId(const std::string& bytes) {
  ncclUniqueId id;
  if (bytes.size() != sizeof(id)) {
    return absl::InternalError(absl::StrCat("rendezvous key ", kNcclUniqueIdKey, " holds ",
                                            bytes.size(), " bytes, expected ", sizeof(id),
                                            " (a different NCCL build or a corrupted value)"));
  }
  std::memcpy(&id, bytes.data(), sizeof(id));
  return id;
}

absl::StatusOr<ncclUniqueId> ExchangeNcclUniqueId(int rank, int world_size, RendezvousStore& store,
                                                  absl::Time deadline) {
  if (rank < 0) return absl::InvalidArgumentError(absl::StrCat("rank: must be >= 0, got ", rank));
  if (rank == 0) {
    ncclUniqueId id;
    EB_NCCL_RETURN_IF_ERROR(ncclGetUniqueId(&id));
    const absl::Status set = store.Set(kNcclUniqueIdKey, EncodeNcclUniqueId(id));
    if (!set.ok()) {
      return WithContext(set,
                         absl::StrCat("rank 0 of ", world_size, " publishing the NCCL unique id"));
    }
    return id;
  }
  const absl::Duration remaining = std::max(deadline - absl::Now(), absl::ZeroDuration());
  absl::StatusOr<std::vector<std::string>> values = store.Wait({kNcclUniqueIdKey}, remaining);
  if (!values.ok()) {
    return WithContext(values.status(),
                       absl::StrCat("rank ", rank, " of ", world_size,
                                    " waiting for the NCCL unique id from rank 0"));
  }
  if (values->size() != 1) {
    return absl::InternalError(absl::StrCat("rendezvous wait for ", kNcclUniqueIdKey, " returned ",
                                            values->size(), " values"));
  }
  return DecodeNcclUniqueId((*values)[0]);
}

}  // namespace eb::transport
