#pragma once

// The reduction operators: one row each (names, wire value, which data
// planes have it). Read as collectives.h and data_types.h are; NCCL's enum
// for each is in nccl/nccl_types.cc and the arithmetic in pattern.h. No
// dependency (nvcc compiles it).

#include "common/transport/collectives.h"

namespace eb::transport {

enum class ReduceOp { kSum, kProd, kMax, kMin, kAvg };

// Every operator, in declaration order.
inline constexpr ReduceOp kAllReduceOps[] = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMax,
                                             ReduceOp::kMin, ReduceOp::kAvg};

struct ReduceOpRow {
  ReduceOp op = ReduceOp::kSum;
  // Its ebnccl.v1.ReduceOp number (common.proto; checked as for collectives).
  int wire = 0;
  // nccl-tests' name: what ebctl prints.
  const char* name = "unknown";
  // Other spellings ebctl accepts, comma-separated ("" for none).
  const char* aliases = "";
  // kGlooTransport | kNcclTransport (collectives.h): the data planes that
  // have it.
  unsigned transports = 0;
};

// clang-format off
EB_HOST_DEVICE constexpr ReduceOpRow Row(ReduceOp op) {
  constexpr unsigned kBoth = kGlooTransport | kNcclTransport;
  switch (op) {
    case ReduceOp::kSum: return {.op = op, .wire = 1, .name = "sum", .transports = kBoth};
    case ReduceOp::kProd: return {.op = op, .wire = 2, .name = "prod", .aliases = "product", .transports = kBoth};
    case ReduceOp::kMax: return {.op = op, .wire = 3, .name = "max", .transports = kBoth};
    case ReduceOp::kMin: return {.op = op, .wire = 4, .name = "min", .transports = kBoth};
    case ReduceOp::kAvg: return {.op = op, .wire = 5, .name = "avg", .aliases = "mean", .transports = kNcclTransport};
  }
  // Only a value outside the enum reaches here.
  return {.op = op};
}
// clang-format on

// nccl-tests' name ("unknown" for a value outside the enum).
EB_HOST_DEVICE constexpr const char* Name(ReduceOp op) { return Row(op).name; }

}  // namespace eb::transport
