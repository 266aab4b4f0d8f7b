#include "common/spec/names.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/transport/types.h"

namespace eb::spec {
namespace v1 = ebnccl::v1;
namespace {

// The names of collectives, data types and reduction operators are their
// rows' (common/transport/collectives.h, data_types.h, reduce_ops.h): the
// row of a wire value is the one whose `wire` field holds it. The data
// plane's enums are listed in declaration order, so the error message lists
// the names in the order nccl-tests does.
template <typename Value, size_t N>
const char* NameOfWire(const Value (&values)[N], int wire) {
  for (Value value : values) {
    if (transport::Row(value).wire == wire) return transport::Row(value).name;
  }
  return "unspecified";
}

template <typename Value, size_t N>
std::vector<std::string> NamesOf(const Value (&values)[N]) {
  std::vector<std::string> names;
  for (Value value : values) names.emplace_back(transport::Row(value).name);
  return names;
}

// The wire value whose name or alias is `text` (ASCII case and surrounding
// whitespace ignored); INVALID_ARGUMENT naming `field` and listing the names.
template <typename Wire, typename Value, size_t N>
absl::StatusOr<Wire> ParseWire(const Value (&values)[N], absl::string_view text,
                               absl::string_view field, absl::string_view what) {
  const std::string wanted = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  for (Value value : values) {
    const auto row = transport::Row(value);
    bool match = wanted == row.name;
    for (absl::string_view alias : absl::StrSplit(row.aliases, ',', absl::SkipEmpty())) {
      match = match || wanted == alias;
    }
    if (match) return static_cast<Wire>(row.wire);
  }
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": unknown ", what, " '", text,
                   "' (expected one of: ", absl::StrJoin(NamesOf(values), ", "), ")"));
}

// The transport choice has no data-plane enum: its one table is here.
struct TransportWord {
  const char* name;
  v1::Transport value;
};
constexpr TransportWord kTransportWords[] = {
    {"auto", v1::TRANSPORT_AUTO},
    {"gloo", v1::TRANSPORT_GLOO},
    {"nccl", v1::TRANSPORT_NCCL},
};

}  // namespace

const char* DisplayName(v1::Collective value) {
  return NameOfWire(transport::kAllCollectives, value);
}
const char* DisplayName(v1::DataType value) { return NameOfWire(transport::kAllDataTypes, value); }
const char* DisplayName(v1::ReduceOp value) { return NameOfWire(transport::kAllReduceOps, value); }
const char* DisplayName(v1::Transport value) {
  for (const TransportWord& word : kTransportWords) {
    if (word.value == value) return word.name;
  }
  return "unspecified";
}

absl::StatusOr<v1::Collective> ParseCollective(absl::string_view text, absl::string_view field) {
  return ParseWire<v1::Collective>(transport::kAllCollectives, text, field, "collective");
}

absl::StatusOr<v1::DataType> ParseDataType(absl::string_view text, absl::string_view field) {
  return ParseWire<v1::DataType>(transport::kAllDataTypes, text, field, "data type");
}

absl::StatusOr<v1::ReduceOp> ParseReduceOp(absl::string_view text, absl::string_view field) {
  return ParseWire<v1::ReduceOp>(transport::kAllReduceOps, text, field, "reduction op");
}

std::string CollectiveNames(absl::string_view separator) {
  return absl::StrJoin(NamesOf(transport::kAllCollectives), separator);
}
std::string DataTypeNames(absl::string_view separator) {
  return absl::StrJoin(NamesOf(transport::kAllDataTypes), separator);
}
std::string ReduceOpNames(absl::string_view separator) {
  return absl::StrJoin(NamesOf(transport::kAllReduceOps), separator);
}

bool IsReducing(v1::Collective collective) {
  for (transport::Collective c : transport::kAllCollectives) {
    if (transport::Row(c).wire == collective) return transport::IsReducing(c);
  }
  return false;
}

bool IsRooted(v1::Collective collective) {
  for (transport::Collective c : transport::kAllCollectives) {
    if (transport::Row(c).wire == collective) return transport::IsRooted(c);
  }
  return false;
}

}  // namespace eb::spec
