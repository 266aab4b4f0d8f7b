#pragma once

// Vocabulary of the data plane, independent of protobuf and of CUDA so that
// pure code and .cu kernels can share it. Names follow nccl-tests.

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::transport {

enum class Collective {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSendRecv,  // ring shift: send to rank+1, receive from rank-1
};

enum class DataType {
  kInt8,
  kUint8,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kHalf,
  kFloat,
  kDouble,
  kBfloat16,
  kFp8E4M3,
  kFp8E5M2,
};

enum class ReduceOp { kSum, kProd, kMax, kMin, kAvg };

// Bytes per element.
size_t DataTypeSize(DataType type);

// nccl-tests names: "all_reduce", ..., "sendrecv"; "float", "int8", "half",
// "bfloat16", "f8e4m3", ...; "sum", "prod", "max", "min", "avg".
const char* Name(Collective collective);
const char* Name(DataType type);
const char* Name(ReduceOp op);

// Inverse of Name (also accepting common aliases such as "allreduce",
// "alltoall", "fp32", "int"). INVALID_ARGUMENT naming `field` and listing the
// accepted names otherwise.
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
