#pragma once

// Moving NCCL's 128-byte unique ID through the per-test rendezvous KV
// (STYLE.md rule 19): rank 0 creates it with ncclGetUniqueId, which starts
// NCCL's bootstrap root thread in *this* process (so rank 0 must stay alive
// until every rank's init returned), and publishes the bytes; every other
// rank waits for the key. The coordinator only relays bytes and never links
// NCCL.

#include <nccl.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/transport/rendezvous_store.h"

namespace eb::transport {

// The rendezvous key of the unique ID (one communicator per test).
inline constexpr char kNcclUniqueIdKey[] = "nccl/unique_id";

// Rank 0: ncclGetUniqueId, then store.Set(kNcclUniqueIdKey, 128 bytes).
// Other ranks: store.Wait({kNcclUniqueIdKey}) until `deadline`, then decode.
// Returns:
//   INVALID_ARGUMENT  rank < 0;
//   DEADLINE_EXCEEDED rank 0 did not publish before `deadline` (the message
//                     names this rank and says it waited for rank 0);
//   INTERNAL          the stored value is not sizeof(ncclUniqueId) bytes;
//   the store's UNAVAILABLE / ABORTED, with context;
//   ncclGetUniqueId's error mapped as in cuda_status.h (typically
//   UNAVAILABLE: no usable bootstrap interface).
// Blocks the calling thread up to `deadline` (a deadline in the past still
// looks once). Thread-safe if the store is.
absl::StatusOr<ncclUniqueId> ExchangeNcclUniqueId(int rank, int world_size, RendezvousStore& store,
                                                  absl::Time deadline);

// The ID stored in `bytes`. INTERNAL when the size is not
// sizeof(ncclUniqueId) (a different NCCL build or a corrupted value).
absl::StatusOr<ncclUniqueId> DecodeNcclUniqueId(const std::string& bytes);

// The bytes Set publishes for `id` (exactly sizeof(ncclUniqueId)).
std::string EncodeNcclUniqueId(const ncclUniqueId& id);

}  // namespace eb::transport
