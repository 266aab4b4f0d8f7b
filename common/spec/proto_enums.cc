#include "common/spec/proto_enums.h"

#include "absl/strings/str_cat.h"

namespace eb::spec {
namespace v1 = ebnccl::v1;

namespace {

// The data-plane value whose row (collectives.h, data_types.h, reduce_ops.h)
// holds `wire`; INVALID_ARGUMENT naming `field` for 0 and unknown values.
template <typename Value, size_t N>
absl::StatusOr<Value> FromWire(const Value (&values)[N], int wire, absl::string_view field) {
  for (Value value : values) {
    if (wire != 0 && transport::Row(value).wire == wire) return value;
  }
  return absl::InvalidArgumentError(wire == 0 ? absl::StrCat(field, ": must be set")
                                              : absl::StrCat(field, ": unknown enum value ", wire));
}

}  // namespace

absl::StatusOr<transport::Collective> ToTransport(v1::Collective value, absl::string_view field) {
  return FromWire(transport::kAllCollectives, value, field);
}

absl::StatusOr<transport::DataType> ToTransport(v1::DataType value, absl::string_view field) {
  return FromWire(transport::kAllDataTypes, value, field);
}

absl::StatusOr<transport::ReduceOp> ToTransport(v1::ReduceOp value, absl::string_view field) {
  return FromWire(transport::kAllReduceOps, value, field);
}

v1::Collective ToProto(transport::Collective value) {
  return static_cast<v1::Collective>(transport::Row(value).wire);
}

v1::DataType ToProto(transport::DataType value) {
  return static_cast<v1::DataType>(transport::Row(value).wire);
}

v1::ReduceOp ToProto(transport::ReduceOp value) {
  return static_cast<v1::ReduceOp>(transport::Row(value).wire);
}

}  // namespace eb::spec
