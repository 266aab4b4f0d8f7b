#pragma once

// The wire enums (ebnccl.v1) as people write them: nccl-tests' names for
// collectives, data types and reduction operators, plus the aliases people
// type by habit, all read from the data plane's vocabulary tables
// (common/transport/collectives.h, data_types.h, reduce_ops.h: header-only,
// dependency-free rows), so that ebctl spells a collective as the worker
// does without linking the data plane (eb_transport). Links the generated
// protos and Abseil only; eb_spec converts the same enums to the data
// plane's. Pure functions, callable from any thread.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::spec {

// Display names: "all_reduce", ..., "alltoall", "sendrecv"; "float", "half",
// "bfloat16", "f8e4m3", ...; "sum", "prod", "max", "min", "avg"; "auto",
// "gloo", "nccl". A static string; "unspecified" for 0 and for values this
// build does not know.
const char* DisplayName(ebnccl::v1::Collective value);
const char* DisplayName(ebnccl::v1::DataType value);
const char* DisplayName(ebnccl::v1::ReduceOp value);
const char* DisplayName(ebnccl::v1::Transport value);

// Inverse of DisplayName, also accepting common aliases such as
// "allreduce", "all_to_all", "fp32", "int", "mean". Matching ignores ASCII
// case and surrounding whitespace. Otherwise INVALID_ARGUMENT naming `field`
// and listing the display names, e.g. "--collective: unknown collective
// 'foo' (expected one of: all_reduce, all_gather, ...)". Never returns an
// *_UNSPECIFIED value.
absl::StatusOr<ebnccl::v1::Collective> ParseCollective(absl::string_view text,
                                                       absl::string_view field);
absl::StatusOr<ebnccl::v1::DataType> ParseDataType(absl::string_view text, absl::string_view field);
absl::StatusOr<ebnccl::v1::ReduceOp> ParseReduceOp(absl::string_view text, absl::string_view field);

// Every display name in nccl-tests' order, joined by `separator`: for help
// texts and `--collective all` ("all_reduce,all_gather,...").
std::string CollectiveNames(absl::string_view separator);
std::string DataTypeNames(absl::string_view separator);
std::string ReduceOpNames(absl::string_view separator);

// True for collectives that apply a reduction operator (all_reduce, reduce,
// reduce_scatter); the others print redop "none" like nccl-tests. False for
// UNSPECIFIED and unknown values.
bool IsReducing(ebnccl::v1::Collective collective);
// True for collectives with a root rank (broadcast, reduce); the others
// print root -1 like nccl-tests.
bool IsRooted(ebnccl::v1::Collective collective);

}  // namespace eb::spec
