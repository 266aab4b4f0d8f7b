#include "common/spec/names.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace eb::spec {
namespace v1 = ebnccl::v1;
namespace {

// One accepted spelling of an enum value. Display names come first in each
// table, in enum order, so that the error message lists exactly the names
// DisplayName() prints. The display names are transport::Name's
// (common/transport/types.cc); tests/unit/spec/proto_enums_test.cc checks
// that the two agree.
template <typename E>
struct Spelling {
  const char* text;
  E value;
  bool canonical;
};

// One spelling per line reads as a table.
// clang-format off
constexpr Spelling<v1::Collective> kCollectiveSpellings[] = {
    {"all_reduce", v1::COLLECTIVE_ALL_REDUCE, true},
    {"all_gather", v1::COLLECTIVE_ALL_GATHER, true},
    {"reduce_scatter", v1::COLLECTIVE_REDUCE_SCATTER, true},
    {"broadcast", v1::COLLECTIVE_BROADCAST, true},
    {"reduce", v1::COLLECTIVE_REDUCE, true},
    {"alltoall", v1::COLLECTIVE_ALL_TO_ALL, true},
    {"sendrecv", v1::COLLECTIVE_SEND_RECV, true},
    {"allreduce", v1::COLLECTIVE_ALL_REDUCE, false},
    {"allgather", v1::COLLECTIVE_ALL_GATHER, false},
    {"reducescatter", v1::COLLECTIVE_REDUCE_SCATTER, false},
    {"bcast", v1::COLLECTIVE_BROADCAST, false},
    {"all_to_all", v1::COLLECTIVE_ALL_TO_ALL, false},
    {"send_recv", v1::COLLECTIVE_SEND_RECV, false},
};

constexpr Spelling<v1::DataType> kDataTypeSpellings[] = {
    {"int8", v1::DATA_TYPE_INT8, true},
    {"uint8", v1::DATA_TYPE_UINT8, true},
    {"int32", v1::DATA_TYPE_INT32, true},
    {"uint32", v1::DATA_TYPE_UINT32, true},
    {"int64", v1::DATA_TYPE_INT64, true},
    {"uint64", v1::DATA_TYPE_UINT64, true},
    {"half", v1::DATA_TYPE_HALF, true},
    {"float", v1::DATA_TYPE_FLOAT, true},
    {"double", v1::DATA_TYPE_DOUBLE, true},
    {"bfloat16", v1::DATA_TYPE_BFLOAT16, true},
    {"f8e4m3", v1::DATA_TYPE_FP8_E4M3, true},
    {"f8e5m2", v1::DATA_TYPE_FP8_E5M2, true},
    {"char", v1::DATA_TYPE_INT8, false},
    {"int", v1::DATA_TYPE_INT32, false},
    {"uint", v1::DATA_TYPE_UINT32, false},
    {"fp16", v1::DATA_TYPE_HALF, false},
    {"float16", v1::DATA_TYPE_HALF, false},
    {"fp32", v1::DATA_TYPE_FLOAT, false},
    {"float32", v1::DATA_TYPE_FLOAT, false},
    {"fp64", v1::DATA_TYPE_DOUBLE, false},
    {"float64", v1::DATA_TYPE_DOUBLE, false},
    {"bf16", v1::DATA_TYPE_BFLOAT16, false},
    {"fp8_e4m3", v1::DATA_TYPE_FP8_E4M3, false},
    {"e4m3", v1::DATA_TYPE_FP8_E4M3, false},
    {"fp8_e5m2", v1::DATA_TYPE_FP8_E5M2, false},
    {"e5m2", v1::DATA_TYPE_FP8_E5M2, false},
};

constexpr Spelling<v1::ReduceOp> kReduceOpSpellings[] = {
    {"sum", v1::REDUCE_OP_SUM, true},
    {"prod", v1::REDUCE_OP_PROD, true},
    {"max", v1::REDUCE_OP_MAX, true},
    {"min", v1::REDUCE_OP_MIN, true},
    {"avg", v1::REDUCE_OP_AVG, true},
    {"product", v1::REDUCE_OP_PROD, false},
    {"mean", v1::REDUCE_OP_AVG, false},
};

constexpr Spelling<v1::Transport> kTransportSpellings[] = {
    {"auto", v1::TRANSPORT_AUTO, true},
    {"gloo", v1::TRANSPORT_GLOO, true},
    {"nccl", v1::TRANSPORT_NCCL, true},
};
// clang-format on

template <typename E, size_t N>
const char* NameOf(const Spelling<E> (&table)[N], E value) {
  for (const auto& s : table) {
    if (s.canonical && s.value == value) return s.text;
  }
  return "unspecified";
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

const char* DisplayName(v1::Collective value) { return NameOf(kCollectiveSpellings, value); }
const char* DisplayName(v1::DataType value) { return NameOf(kDataTypeSpellings, value); }
const char* DisplayName(v1::ReduceOp value) { return NameOf(kReduceOpSpellings, value); }
const char* DisplayName(v1::Transport value) { return NameOf(kTransportSpellings, value); }

absl::StatusOr<v1::Collective> ParseCollective(absl::string_view text, absl::string_view field) {
  return ParseWith(kCollectiveSpellings, text, field, "collective");
}

absl::StatusOr<v1::DataType> ParseDataType(absl::string_view text, absl::string_view field) {
  return ParseWith(kDataTypeSpellings, text, field, "data type");
}

absl::StatusOr<v1::ReduceOp> ParseReduceOp(absl::string_view text, absl::string_view field) {
  return ParseWith(kReduceOpSpellings, text, field, "reduction op");
}

bool IsReducing(v1::Collective collective) {
  return collective == v1::COLLECTIVE_ALL_REDUCE || collective == v1::COLLECTIVE_REDUCE ||
         collective == v1::COLLECTIVE_REDUCE_SCATTER;
}

bool IsRooted(v1::Collective collective) {
  return collective == v1::COLLECTIVE_BROADCAST || collective == v1::COLLECTIVE_REDUCE;
}

}  // namespace eb::spec
