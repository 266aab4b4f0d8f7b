#include "common/spec/wire_names.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/spec/names.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::spec {
namespace v1 = ebnccl::v1;
namespace {

// "TestKind" -> "TEST_KIND_": protoc's style for value names.
std::string ValuePrefix(const std::string& enum_name) {
  std::string prefix;
  for (size_t i = 0; i < enum_name.size(); ++i) {
    const char c = enum_name[i];
    if (i > 0 && absl::ascii_isupper(static_cast<unsigned char>(c))) prefix += '_';
    prefix += absl::ascii_toupper(static_cast<unsigned char>(c));
  }
  return prefix + "_";
}

// "Infra-Failure " -> "infra_failure".
std::string Folded(absl::string_view text) {
  std::string folded = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  for (char& c : folded) {
    if (c == '-' || c == ' ') c = '_';
  }
  return folded;
}

}  // namespace

std::string WireName(const google::protobuf::EnumDescriptor& type, int value) {
  if (value == 0) return "unspecified";
  // The data plane's words are nccl-tests' (their rows).
  if (&type == v1::Collective_descriptor()) return DisplayName(static_cast<v1::Collective>(value));
  if (&type == v1::DataType_descriptor()) return DisplayName(static_cast<v1::DataType>(value));
  if (&type == v1::ReduceOp_descriptor()) return DisplayName(static_cast<v1::ReduceOp>(value));
  const google::protobuf::EnumValueDescriptor* named = type.FindValueByNumber(value);
  const std::string prefix = ValuePrefix(type.name());
  if (named == nullptr || named->name().rfind(prefix, 0) != 0) {
    return absl::StrCat("unknown(", value, ")");
  }
  return absl::AsciiStrToLower(named->name().substr(prefix.size()));
}

absl::StatusOr<int> ParseWireName(const google::protobuf::EnumDescriptor& type,
                                  absl::string_view text, absl::string_view field) {
  if (&type == v1::Collective_descriptor()) return ParseCollective(text, field);
  if (&type == v1::DataType_descriptor()) return ParseDataType(text, field);
  if (&type == v1::ReduceOp_descriptor()) return ParseReduceOp(text, field);
  const std::string wanted = Folded(text);
  std::vector<std::string> names;
  for (int i = 0; i < type.value_count(); ++i) {
    const int number = type.value(i)->number();
    if (number == 0) continue;
    const std::string name = WireName(type, number);
    if (name == wanted) return number;
    names.push_back(name);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      field, ": unknown value '", text, "' (expected one of: ", absl::StrJoin(names, ", "), ")"));
}

}  // namespace eb::spec
