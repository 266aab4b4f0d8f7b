#pragma once

// Conversions between the wire enums (ebnccl.v1) and the data plane's own
// enums (eb::transport), which stay free of protobuf so that pure code and
// CUDA kernels can use them. Every value converts both ways; the
// *_UNSPECIFIED values have no transport counterpart (INVALID_ARGUMENT).
// The display names and parsing of the wire enums are in names.h (included
// here for the callers of DisplayName), which does not need the data plane.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/spec/names.h"
#include "common/transport/types.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::spec {

absl::StatusOr<transport::Collective> ToTransport(ebnccl::v1::Collective value,
                                                  absl::string_view field = "collective");
absl::StatusOr<transport::DataType> ToTransport(ebnccl::v1::DataType value,
                                                absl::string_view field = "data_type");
absl::StatusOr<transport::ReduceOp> ToTransport(ebnccl::v1::ReduceOp value,
                                                absl::string_view field = "reduce_op");

ebnccl::v1::Collective ToProto(transport::Collective value);
ebnccl::v1::DataType ToProto(transport::DataType value);
ebnccl::v1::ReduceOp ToProto(transport::ReduceOp value);

}  // namespace eb::spec
