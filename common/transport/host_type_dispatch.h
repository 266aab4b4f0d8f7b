#pragma once

// Maps a DataType to the C++ element type of host code (int8..uint64,
// float, double) for templated implementations.

#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/transport/types.h"

namespace eb::transport {

// Returns fn.template operator()<T>() (an absl::Status) for the host type T
// of `type`. UNIMPLEMENTED "data_type: <name> is not supported by <who>" for
// half, bfloat16 and fp8, which have no host arithmetic here.
template <typename Fn>
absl::Status DispatchHostType(DataType type, absl::string_view who, Fn&& fn) {
  switch (type) {
    case DataType::kInt8:
      return std::forward<Fn>(fn).template operator()<int8_t>();
    case DataType::kUint8:
      return std::forward<Fn>(fn).template operator()<uint8_t>();
    case DataType::kInt32:
      return std::forward<Fn>(fn).template operator()<int32_t>();
    case DataType::kUint32:
      return std::forward<Fn>(fn).template operator()<uint32_t>();
    case DataType::kInt64:
      return std::forward<Fn>(fn).template operator()<int64_t>();
    case DataType::kUint64:
      return std::forward<Fn>(fn).template operator()<uint64_t>();
    case DataType::kFloat:
      return std::forward<Fn>(fn).template operator()<float>();
    case DataType::kDouble:
      return std::forward<Fn>(fn).template operator()<double>();
    case DataType::kHalf:
    case DataType::kBfloat16:
    case DataType::kFp8E4M3:
    case DataType::kFp8E5M2:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat("data_type: ", Name(type), " is not supported by ", who));
}

}  // namespace eb::transport
