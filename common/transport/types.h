#pragma once

// Vocabulary of the data plane, independent of protobuf and of CUDA so that
// pure code and .cu kernels can share it. Names follow nccl-tests.

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/transport/enums.h"

namespace eb::transport {

// Collective, DataType and ReduceOp are defined in enums.h (no Abseil, so
// that .cu files can include them).

// Bytes per element (1, 2, 4 or 8). Pure; thread-safe.
size_t DataTypeSize(DataType type);

// nccl-tests names: "all_reduce", ..., "sendrecv"; "float", "int8", "half",
// "bfloat16", "f8e4m3", ...; "sum", "prod", "max", "min", "avg". Returns a
// static string ("unknown" for a value outside the enum). Thread-safe.
const char* Name(Collective collective);
const char* Name(DataType type);
const char* Name(ReduceOp op);

// Inverse of Name (also accepting common aliases such as "allreduce",
// "alltoall", "fp32", "int"). INVALID_ARGUMENT naming `field` and listing the
// accepted names otherwise, e.g. "collective: unknown collective 'foo'
// (expected one of: all_reduce, all_gather, ...)". Matching ignores ASCII
// case and surrounding whitespace. Thread-safe.
absl::StatusOr<Collective> ParseCollective(absl::string_view text, absl::string_view field);
absl::StatusOr<DataType> ParseDataType(absl::string_view text, absl::string_view field);
absl::StatusOr<ReduceOp> ParseReduceOp(absl::string_view text, absl::string_view field);

// True for collectives that apply a reduction operator (all_reduce, reduce,
// reduce_scatter); the others print redop "none" like nccl-tests.
bool IsReducing(Collective collective);
// True for collectives with a root rank (broadcast, reduce); the others print
// root -1 like nccl-tests.
bool IsRooted(Collective collective);

}  // namespace eb::transport
