#pragma once

// The data-plane enums on their own, with no Abseil or standard-library
// dependency, so that CUDA kernels (pattern.h compiled by nvcc) can share
// them with host code. types.h re-exports them with their names.

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

// Every value, in declaration order (for sweeps over all types and tests).
inline constexpr Collective kAllCollectives[] = {Collective::kAllReduce,     Collective::kAllGather,
                                                 Collective::kReduceScatter, Collective::kBroadcast,
                                                 Collective::kReduce,        Collective::kAllToAll,
                                                 Collective::kSendRecv};
inline constexpr DataType kAllDataTypes[] = {
    DataType::kInt8,   DataType::kUint8,    DataType::kInt32,   DataType::kUint32,
    DataType::kInt64,  DataType::kUint64,   DataType::kHalf,    DataType::kFloat,
    DataType::kDouble, DataType::kBfloat16, DataType::kFp8E4M3, DataType::kFp8E5M2};
inline constexpr ReduceOp kAllReduceOps[] = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMax,
                                             ReduceOp::kMin, ReduceOp::kAvg};

}  // namespace eb::transport
