#pragma once

// The display name of every value of every enum of the ebnccl.v1 protos, by
// one rule: its name in lower case without the enum's prefix
// (VERDICT_HEALTHY is "healthy", TEST_STATE_TIMED_OUT "timed_out",
// FINDING_KIND_NO_TRUSTED_NODE "no_trusted_node"), except the data plane's
// words, which are nccl-tests' (Collective, DataType, ReduceOp: their rows in
// common/transport/*.h; COLLECTIVE_ALL_TO_ALL is "alltoall"). 0 is
// "unspecified"; a value this build does not know (a newer peer) is
// "unknown(<n>)". The JSON documents, the tables, metrics labels and the
// history's text columns all print these, so a new enum value has its name
// the moment it is in the .proto. Pure; any thread.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/generated_enum_reflection.h"

namespace eb::spec {

std::string WireName(const google::protobuf::EnumDescriptor& type, int value);

template <typename Enum>
std::string WireName(Enum value) {
  return WireName(*google::protobuf::GetEnumDescriptor<Enum>(), static_cast<int>(value));
}

// The value whose display name is `text` (ASCII case, surrounding
// whitespace, and '-' or ' ' for '_' ignored; the data plane's aliases too).
// INVALID_ARGUMENT naming `field` and listing the names otherwise; never 0.
absl::StatusOr<int> ParseWireName(const google::protobuf::EnumDescriptor& type,
                                  absl::string_view text, absl::string_view field);

template <typename Enum>
absl::StatusOr<Enum> ParseWireName(absl::string_view text, absl::string_view field) {
  absl::StatusOr<int> value =
      ParseWireName(*google::protobuf::GetEnumDescriptor<Enum>(), text, field);
  if (!value.ok()) return value.status();
  return static_cast<Enum>(*value);
}

}  // namespace eb::spec
