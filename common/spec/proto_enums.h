#pragma once

// Conversions between the wire enums (ebnccl.v1) and the data plane's own
// enums (eb::transport), which stay free of protobuf so that pure code and
// CUDA kernels can use them. Every value converts both ways; the
// *_UNSPECIFIED values have no transport counterpart (INVALID_ARGUMENT).

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
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

// Display names ("all_reduce", "float", "sum", "gloo"); "unspecified" for
// values without a name.
const char* DisplayName(ebnccl::v1::Collective value);
const char* DisplayName(ebnccl::v1::DataType value);
const char* DisplayName(ebnccl::v1::ReduceOp value);
const char* DisplayName(ebnccl::v1::Transport value);

}  // namespace eb::spec
