#include "common/transport/types.h"

namespace eb::transport {

size_t DataTypeSize(DataType type) {
  switch (type) {
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kFp8E4M3:
    case DataType::kFp8E5M2:
      return 1;
    case DataType::kHalf:
    case DataType::kBfloat16:
      return 2;
    case DataType::kInt32:
    case DataType::kUint32:
    case DataType::kFloat:
      return 4;
    case DataType::kInt64:
    case DataType::kUint64:
    case DataType::kDouble:
      return 8;
  }
  return 0;
}

// nccl-tests' spellings; the switches have no default so that -Wswitch
// names a value added to an enum without a name.
const char* Name(Collective collective) {
  switch (collective) {
    case Collective::kAllReduce:
      return "all_reduce";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kBroadcast:
      return "broadcast";
    case Collective::kReduce:
      return "reduce";
    case Collective::kAllToAll:
      return "alltoall";
    case Collective::kSendRecv:
      return "sendrecv";
  }
  return "unknown";
}

const char* Name(DataType type) {
  switch (type) {
    case DataType::kInt8:
      return "int8";
    case DataType::kUint8:
      return "uint8";
    case DataType::kInt32:
      return "int32";
    case DataType::kUint32:
      return "uint32";
    case DataType::kInt64:
      return "int64";
    case DataType::kUint64:
      return "uint64";
    case DataType::kHalf:
      return "half";
    case DataType::kFloat:
      return "float";
    case DataType::kDouble:
      return "double";
    case DataType::kBfloat16:
      return "bfloat16";
    case DataType::kFp8E4M3:
      return "f8e4m3";
    case DataType::kFp8E5M2:
      return "f8e5m2";
  }
  return "unknown";
}

const char* Name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kProd:
      return "prod";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kAvg:
      return "avg";
  }
  return "unknown";
}

bool IsReducing(Collective collective) {
  switch (collective) {
    case Collective::kAllReduce:
    case Collective::kReduce:
    case Collective::kReduceScatter:
      return true;
    case Collective::kAllGather:
    case Collective::kBroadcast:
    case Collective::kAllToAll:
    case Collective::kSendRecv:
      return false;
  }
  return false;
}

bool IsRooted(Collective collective) {
  return collective == Collective::kBroadcast || collective == Collective::kReduce;
}

}  // namespace eb::transport
