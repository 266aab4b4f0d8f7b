#include "common/transport/nccl/nccl_types.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "common/transport/types.h"

namespace eb::transport {

ncclDataType_t ToNcclDataType(DataType type) {
  switch (type) {
    case DataType::kInt8:
      return ncclInt8;
    case DataType::kUint8:
      return ncclUint8;
    case DataType::kInt32:
      return ncclInt32;
    case DataType::kUint32:
      return ncclUint32;
    case DataType::kInt64:
      return ncclInt64;
    case DataType::kUint64:
      return ncclUint64;
    case DataType::kHalf:
      return ncclFloat16;
    case DataType::kFloat:
      return ncclFloat32;
    case DataType::kDouble:
      return ncclFloat64;
    case DataType::kBfloat16:
      return ncclBfloat16;
    case DataType::kFp8E4M3:
      return ncclFloat8e4m3;
    case DataType::kFp8E5M2:
      return ncclFloat8e5m2;
  }
  return ncclFloat32;  // unreachable for valid enum values
}

ncclRedOp_t ToNcclRedOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kProd:
      return ncclProd;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kAvg:
      return ncclAvg;
  }
  return ncclSum;  // unreachable for valid enum values
}

bool IsFloatingType(DataType type) { return Row(type).floating; }

absl::Status CheckDeviceSupports(DataType type, Collective collective, int compute_capability) {
  const DataTypeRow row = Row(type);
  if (compute_capability < row.min_compute_capability) {
    return absl::UnimplementedError(
        absl::StrCat("data_type: ", row.name, " needs sm_", row.min_compute_capability,
                     " or newer (this GPU is sm_", compute_capability, ")"));
  }
  if (IsReducing(collective) && compute_capability < row.min_compute_capability_to_reduce) {
    return absl::UnimplementedError(
        absl::StrCat("data_type: ", row.name, " reductions (", Name(collective), ") need sm_",
                     row.min_compute_capability_to_reduce, " or newer in NCCL (this GPU is sm_",
                     compute_capability, ")"));
  }
  return absl::OkStatus();
}

bool IsUncheckableInPlace(const CollectiveCall& call, int world_size) {
  if (world_size <= 1 || call.count == 0) return false;
  if (!Row(call.collective).in_place_overwrites_unsent) return false;
  const uint64_t bytes =
      SendElementsOf(call.collective, call.count, world_size) * DataTypeSize(call.type);
  const auto send = reinterpret_cast<uintptr_t>(call.send);
  const auto recv = reinterpret_cast<uintptr_t>(call.recv);
  return send < recv + bytes && recv < send + bytes;  // [send, +bytes) meets [recv, +bytes)
}

uint32_t VerifyUlpTolerance(Collective collective, DataType type, ReduceOp op, int world_size) {
  if (!IsReducing(collective) || op != ReduceOp::kAvg || !IsFloatingType(type)) return 0;
  if (world_size < 1) return 0;
  const bool power_of_two = (world_size & (world_size - 1)) == 0;
  return power_of_two ? 0 : static_cast<uint32_t>(world_size) + 1;
}

int64_t NcclOneRankAvgUnwritten(const CollectiveCall& call, int world_size, int nccl_version) {
  if (nccl_version >= kNcclOneRankAvgFixedVersion || world_size != 1) return 0;
  if (!IsReducing(call.collective) || call.op != ReduceOp::kAvg || !IsFloatingType(call.type)) {
    return 0;
  }
  if (call.count == 0 || call.send == call.recv) return 0;
  // NCCL 2.28's ncclLaunchOneRank and oneRankReduce (src/device/onerank.cu).
  const uint64_t element = DataTypeSize(call.type);
  const uint64_t count = call.count;
  const uint64_t blocks = std::min<uint64_t>(32, (count * element + (16 << 10) - 1) / (16 << 10));
  const uint64_t per_pack = 16 / element;
  const uint64_t per_block = (count / blocks + per_pack - 1) / per_pack * per_pack;
  const uint64_t covered = blocks * per_block;
  return covered >= count ? 0 : static_cast<int64_t>(count - covered);
}

}  // namespace eb::transport
