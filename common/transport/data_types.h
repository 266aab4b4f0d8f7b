#pragma once

// The element types: one row each, the one place that says what a data
// type is (its names, wire value, size, exactness, and what each data plane
// and GPU generation can do with it). Everything else reads the rows: names
// and parsing (common/spec/names.h), the wire enum (common/spec/
// proto_enums.h), the data patterns (pattern.h), transport selection
// (coordinator/core/collective_tests/transport_selection.cc) and the device checks
// (nccl/nccl_types.cc). What stays per type elsewhere is its C++ element type
// (host_type_dispatch.h, nccl/device_pattern.h) and NCCL's enum
// (nccl/nccl_types.cc). docs/DESIGN.md, "How to add a data type".
//
// No dependency but <stdint.h> (nvcc compiles it); a constexpr function with
// one case per type rather than an array, for the device and for -Wswitch,
// as collectives.h explains.

#include <stddef.h>
#include <stdint.h>

#include "common/transport/collectives.h"

namespace eb::transport {

enum class DataType {
  kInt8,
  kUint8,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kHalf,
  kFloat,
  kDouble,
  kBfloat16,
  kFp8E4M3,
  kFp8E5M2,
};

// Every type, in declaration order.
inline constexpr DataType kAllDataTypes[] = {
    DataType::kInt8,   DataType::kUint8,    DataType::kInt32,   DataType::kUint32,
    DataType::kInt64,  DataType::kUint64,   DataType::kHalf,    DataType::kFloat,
    DataType::kDouble, DataType::kBfloat16, DataType::kFp8E4M3, DataType::kFp8E5M2};

// Marks "no limit" in DataTypeRow::max_exact_integer (integer types are
// exact modulo 2^n).
inline constexpr uint64_t kUnlimitedExactInteger = ~0ull;

struct DataTypeRow {
  DataType type = DataType::kInt8;
  // Its ebnccl.v1.DataType number (common.proto; checked as for collectives).
  int wire = 0;
  // nccl-tests' name: what ebctl prints.
  const char* name = "unknown";
  // Other spellings ebctl accepts, comma-separated ("" for none).
  const char* aliases = "";
  // Bytes per element.
  int size = 0;
  bool floating = false;
  // The largest integer M such that every integer in [0, M] is exactly
  // representable (the data patterns stay below it).
  uint64_t max_exact_integer = kUnlimitedExactInteger;
  // Host code can compute with it (the CPU data plane and the host patterns:
  // no half, bfloat16 or fp8 arithmetic there).
  bool host_arithmetic = false;
  // NCCL needs at least this compute capability for the type (0: any), and
  // this one to reduce it.
  int min_compute_capability = 0;
  int min_compute_capability_to_reduce = 0;
  // NCCL has ncclAvg for the type.
  bool nccl_avg = true;
};

// One row per line reads as a table.
// clang-format off
EB_HOST_DEVICE constexpr DataTypeRow Row(DataType type) {
  switch (type) {
    case DataType::kInt8:
      return {.type = type, .wire = 1, .name = "int8", .aliases = "char", .size = 1, .host_arithmetic = true};
    case DataType::kUint8:
      return {.type = type, .wire = 2, .name = "uint8", .size = 1, .host_arithmetic = true};
    case DataType::kInt32:
      return {.type = type, .wire = 3, .name = "int32", .aliases = "int", .size = 4, .host_arithmetic = true};
    case DataType::kUint32:
      return {.type = type, .wire = 4, .name = "uint32", .aliases = "uint", .size = 4, .host_arithmetic = true};
    case DataType::kInt64:
      return {.type = type, .wire = 5, .name = "int64", .size = 8, .host_arithmetic = true};
    case DataType::kUint64:
      return {.type = type, .wire = 6, .name = "uint64", .size = 8, .host_arithmetic = true};
    case DataType::kHalf:
      return {.type = type, .wire = 7, .name = "half", .aliases = "fp16,float16", .size = 2,
              .floating = true, .max_exact_integer = 1ull << 11};
    case DataType::kFloat:
      return {.type = type, .wire = 8, .name = "float", .aliases = "fp32,float32", .size = 4,
              .floating = true, .max_exact_integer = 1ull << 24, .host_arithmetic = true};
    case DataType::kDouble:
      return {.type = type, .wire = 9, .name = "double", .aliases = "fp64,float64", .size = 8,
              .floating = true, .max_exact_integer = 1ull << 53, .host_arithmetic = true};
    case DataType::kBfloat16:
      return {.type = type, .wire = 10, .name = "bfloat16", .aliases = "bf16", .size = 2,
              .floating = true, .max_exact_integer = 1ull << 8};
    case DataType::kFp8E4M3:
      return {.type = type, .wire = 11, .name = "f8e4m3", .aliases = "fp8_e4m3,e4m3", .size = 1,
              .floating = true, .max_exact_integer = 16, .min_compute_capability = 89,
              .min_compute_capability_to_reduce = 90, .nccl_avg = false};
    case DataType::kFp8E5M2:
      return {.type = type, .wire = 12, .name = "f8e5m2", .aliases = "fp8_e5m2,e5m2", .size = 1,
              .floating = true, .max_exact_integer = 8, .min_compute_capability = 89,
              .min_compute_capability_to_reduce = 90, .nccl_avg = false};
  }
  // Only a value outside the enum reaches here.
  return {.type = type};
}
// clang-format on

// nccl-tests' name ("unknown" for a value outside the enum).
EB_HOST_DEVICE constexpr const char* Name(DataType type) { return Row(type).name; }
// Bytes per element (1, 2, 4 or 8; 0 for a value outside the enum).
EB_HOST_DEVICE constexpr size_t DataTypeSize(DataType type) {
  return static_cast<size_t>(Row(type).size);
}

}  // namespace eb::transport
