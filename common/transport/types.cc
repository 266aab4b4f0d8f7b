#include "common/transport/types.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace eb::transport {
namespace {

// One accepted spelling of an enum value. Canonical names come first in each
// table, in enum order, so that the error message lists exactly the names
// Name() prints.
template <typename E>
struct Spelling {
  const char* text;
  E value;
  bool canonical;
};

// One spelling per line reads as a table.
// clang-format off
constexpr Spelling<Collective> kCollectiveSpellings[] = {
    {"all_reduce", Collective::kAllReduce, true},
    {"all_gather", Collective::kAllGather, true},
    {"reduce_scatter", Collective::kReduceScatter, true},
    {"broadcast", Collective::kBroadcast, true},
    {"reduce", Collective::kReduce, true},
    {"alltoall", Collective::kAllToAll, true},
    {"sendrecv", Collective::kSendRecv, true},
    {"allreduce", Collective::kAllReduce, false},
    {"allgather", Collective::kAllGather, false},
    {"reducescatter", Collective::kReduceScatter, false},
    {"bcast", Collective::kBroadcast, false},
    {"all_to_all", Collective::kAllToAll, false},
    {"send_recv", Collective::kSendRecv, false},
};

constexpr Spelling<DataType> kDataTypeSpellings[] = {
    {"int8", DataType::kInt8, true},
    {"uint8", DataType::kUint8, true},
    {"int32", DataType::kInt32, true},
    {"uint32", DataType::kUint32, true},
    {"int64", DataType::kInt64, true},
    {"uint64", DataType::kUint64, true},
    {"half", DataType::kHalf, true},
    {"float", DataType::kFloat, true},
    {"double", DataType::kDouble, true},
    {"bfloat16", DataType::kBfloat16, true},
    {"f8e4m3", DataType::kFp8E4M3, true},
    {"f8e5m2", DataType::kFp8E5M2, true},
    {"char", DataType::kInt8, false},
    {"int", DataType::kInt32, false},
    {"uint", DataType::kUint32, false},
    {"fp16", DataType::kHalf, false},
    {"float16", DataType::kHalf, false},
    {"fp32", DataType::kFloat, false},
    {"float32", DataType::kFloat, false},
    {"fp64", DataType::kDouble, false},
    {"float64", DataType::kDouble, false},
    {"bf16", DataType::kBfloat16, false},
    {"fp8_e4m3", DataType::kFp8E4M3, false},
    {"e4m3", DataType::kFp8E4M3, false},
    {"fp8_e5m2", DataType::kFp8E5M2, false},
    {"e5m2", DataType::kFp8E5M2, false},
};

constexpr Spelling<ReduceOp> kReduceOpSpellings[] = {
    {"sum", ReduceOp::kSum, true},
    {"prod", ReduceOp::kProd, true},
    {"max", ReduceOp::kMax, true},
    {"min", ReduceOp::kMin, true},
    {"avg", ReduceOp::kAvg, true},
    {"product", ReduceOp::kProd, false},
    {"mean", ReduceOp::kAvg, false},
};
// clang-format on

template <typename E, size_t N>
const char* NameOf(const Spelling<E> (&table)[N], E value) {
  for (const auto& s : table) {
    if (s.canonical && s.value == value) return s.text;
  }
  return "unknown";
}

template <typename E, size_t N>
absl::StatusOr<E> ParseWith(const Spelling<E> (&table)[N], absl::string_view text,
                            absl::string_view field, absl::string_view what) {
  const std::string wanted = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  for (const auto& s : table) {
    if (wanted == s.text) return s.value;
  }
  std::vector<std::string> names;
  for (const auto& s : table) {
    if (s.canonical) names.emplace_back(s.text);
  }
  return absl::InvalidArgumentError(absl::StrCat(field, ": unknown ", what, " '", text,
                                                 "' (expected one of: ", absl::StrJoin(names, ", "),
                                                 ")"));
}

}  // namespace

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

const char* Name(Collective collective) { return NameOf(kCollectiveSpellings, collective); }
const char* Name(DataType type) { return NameOf(kDataTypeSpellings, type); }
const char* Name(ReduceOp op) { return NameOf(kReduceOpSpellings, op); }

absl::StatusOr<Collective> ParseCollective(absl::string_view text, absl::string_view field) {
  return ParseWith(kCollectiveSpellings, text, field, "collective");
}

absl::StatusOr<DataType> ParseDataType(absl::string_view text, absl::string_view field) {
  return ParseWith(kDataTypeSpellings, text, field, "data type");
}

absl::StatusOr<ReduceOp> ParseReduceOp(absl::string_view text, absl::string_view field) {
  return ParseWith(kReduceOpSpellings, text, field, "reduction op");
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
