#pragma once

// Fill and verify of pattern.h data on host memory: the CPU side of
// Communicator::FillInput / CountWrong, used by the Gloo backend and by
// tests. Element types: int8..uint64, float, double.

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/transport/communicator.h"
#include "common/transport/pattern.h"

namespace eb::transport {

// The pattern.h parameters of a DataPattern.
pattern::PatternSpec ToPatternSpec(const DataPattern& data);

// Writes rank `rank`'s input into the call's send region (all_gather:
// count elements; reduce_scatter and alltoall: count * world_size; others:
// count) at data.call.send. First fills the receive region the collective
// defines with 0xFF bytes (NaN for floats) so that an element the
// collective fails to write is counted as wrong instead of passing with a
// stale value; the poison goes first because in-place calls overlap it with
// the send region. The caller owns the memory, which must hold both regions.
// INVALID_ARGUMENT for a bad world size, rank, root or null pointer;
// UNIMPLEMENTED for half, bfloat16 and fp8 (no host arithmetic). Thread-safe
// for distinct buffers.
absl::Status CpuFillInput(const DataPattern& data, int rank);

// Counts the elements of rank `rank`'s receive region (data.call.recv;
// all_gather and alltoall: count * world_size elements; reduce_scatter:
// count; reduce: count on the root, none elsewhere; others: count) that
// differ from pattern::Expected. Same errors as CpuFillInput.
absl::StatusOr<int64_t> CpuCountWrong(const DataPattern& data, int rank);

}  // namespace eb::transport
