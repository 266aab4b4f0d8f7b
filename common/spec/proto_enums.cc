#include "common/spec/proto_enums.h"

#include "absl/strings/str_cat.h"

namespace eb::spec {
namespace v1 = ebnccl::v1;
using transport::Collective;
using transport::DataType;
using transport::ReduceOp;

namespace {

absl::Status Unspecified(absl::string_view field, int value) {
  return absl::InvalidArgumentError(value == 0
                                        ? absl::StrCat(field, ": must be set")
                                        : absl::StrCat(field, ": unknown enum value ", value));
}

}  // namespace

absl::StatusOr<Collective> ToTransport(v1::Collective value, absl::string_view field) {
  switch (value) {
    case v1::COLLECTIVE_ALL_REDUCE:
      return Collective::kAllReduce;
    case v1::COLLECTIVE_ALL_GATHER:
      return Collective::kAllGather;
    case v1::COLLECTIVE_REDUCE_SCATTER:
      return Collective::kReduceScatter;
    case v1::COLLECTIVE_BROADCAST:
      return Collective::kBroadcast;
    case v1::COLLECTIVE_REDUCE:
      return Collective::kReduce;
    case v1::COLLECTIVE_ALL_TO_ALL:
      return Collective::kAllToAll;
    case v1::COLLECTIVE_SEND_RECV:
      return Collective::kSendRecv;
    default:
      return Unspecified(field, value);
  }
}

absl::StatusOr<DataType> ToTransport(v1::DataType value, absl::string_view field) {
  switch (value) {
    case v1::DATA_TYPE_INT8:
      return DataType::kInt8;
    case v1::DATA_TYPE_UINT8:
      return DataType::kUint8;
    case v1::DATA_TYPE_INT32:
      return DataType::kInt32;
    case v1::DATA_TYPE_UINT32:
      return DataType::kUint32;
    case v1::DATA_TYPE_INT64:
      return DataType::kInt64;
    case v1::DATA_TYPE_UINT64:
      return DataType::kUint64;
    case v1::DATA_TYPE_HALF:
      return DataType::kHalf;
    case v1::DATA_TYPE_FLOAT:
      return DataType::kFloat;
    case v1::DATA_TYPE_DOUBLE:
      return DataType::kDouble;
    case v1::DATA_TYPE_BFLOAT16:
      return DataType::kBfloat16;
    case v1::DATA_TYPE_FP8_E4M3:
      return DataType::kFp8E4M3;
    case v1::DATA_TYPE_FP8_E5M2:
      return DataType::kFp8E5M2;
    default:
      return Unspecified(field, value);
  }
}

absl::StatusOr<ReduceOp> ToTransport(v1::ReduceOp value, absl::string_view field) {
  switch (value) {
    case v1::REDUCE_OP_SUM:
      return ReduceOp::kSum;
    case v1::REDUCE_OP_PROD:
      return ReduceOp::kProd;
    case v1::REDUCE_OP_MAX:
      return ReduceOp::kMax;
    case v1::REDUCE_OP_MIN:
      return ReduceOp::kMin;
    case v1::REDUCE_OP_AVG:
      return ReduceOp::kAvg;
    default:
      return Unspecified(field, value);
  }
}

v1::Collective ToProto(Collective value) {
  switch (value) {
    case Collective::kAllReduce:
      return v1::COLLECTIVE_ALL_REDUCE;
    case Collective::kAllGather:
      return v1::COLLECTIVE_ALL_GATHER;
    case Collective::kReduceScatter:
      return v1::COLLECTIVE_REDUCE_SCATTER;
    case Collective::kBroadcast:
      return v1::COLLECTIVE_BROADCAST;
    case Collective::kReduce:
      return v1::COLLECTIVE_REDUCE;
    case Collective::kAllToAll:
      return v1::COLLECTIVE_ALL_TO_ALL;
    case Collective::kSendRecv:
      return v1::COLLECTIVE_SEND_RECV;
  }
  return v1::COLLECTIVE_UNSPECIFIED;
}

v1::DataType ToProto(DataType value) {
  switch (value) {
    case DataType::kInt8:
      return v1::DATA_TYPE_INT8;
    case DataType::kUint8:
      return v1::DATA_TYPE_UINT8;
    case DataType::kInt32:
      return v1::DATA_TYPE_INT32;
    case DataType::kUint32:
      return v1::DATA_TYPE_UINT32;
    case DataType::kInt64:
      return v1::DATA_TYPE_INT64;
    case DataType::kUint64:
      return v1::DATA_TYPE_UINT64;
    case DataType::kHalf:
      return v1::DATA_TYPE_HALF;
    case DataType::kFloat:
      return v1::DATA_TYPE_FLOAT;
    case DataType::kDouble:
      return v1::DATA_TYPE_DOUBLE;
    case DataType::kBfloat16:
      return v1::DATA_TYPE_BFLOAT16;
    case DataType::kFp8E4M3:
      return v1::DATA_TYPE_FP8_E4M3;
    case DataType::kFp8E5M2:
      return v1::DATA_TYPE_FP8_E5M2;
  }
  return v1::DATA_TYPE_UNSPECIFIED;
}

v1::ReduceOp ToProto(ReduceOp value) {
  switch (value) {
    case ReduceOp::kSum:
      return v1::REDUCE_OP_SUM;
    case ReduceOp::kProd:
      return v1::REDUCE_OP_PROD;
    case ReduceOp::kMax:
      return v1::REDUCE_OP_MAX;
    case ReduceOp::kMin:
      return v1::REDUCE_OP_MIN;
    case ReduceOp::kAvg:
      return v1::REDUCE_OP_AVG;
  }
  return v1::REDUCE_OP_UNSPECIFIED;
}

}  // namespace eb::spec
