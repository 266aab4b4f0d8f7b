#include "common/spec/wire_upgrade.h"

#include <string>

#include "absl/strings/match.h"
#include "common/spec/wire_names.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/unknown_field_set.h"

namespace eb::spec {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;

constexpr char kLegacyPrefix[] = "legacy_";

// Words the coordinator wrote that are not the value's display name (the
// validation's test outcome was written "infrastructure failure").
std::string CurrentSpelling(const std::string& word) {
  if (word == "infrastructure failure") return "infra_failure";
  return word;
}

// The value `word` names in `type`, or 0.
int ValueOf(const EnumDescriptor& type, const std::string& word) {
  absl::StatusOr<int> value = ParseWireName(type, CurrentSpelling(word), "");
  return value.ok() ? *value : 0;
}

void UpgradeSingularWords(Message& message) {
  const Reflection& reflection = *message.GetReflection();
  UnknownFieldSet& unknown = *reflection.MutableUnknownFields(&message);
  for (int i = 0; i < unknown.field_count();) {
    const UnknownField& old = unknown.field(i);
    const FieldDescriptor* field = message.GetDescriptor()->FindFieldByNumber(old.number());
    const bool was_word = field != nullptr && field->enum_type() != nullptr &&
                          !field->is_repeated() &&
                          old.type() == UnknownField::TYPE_LENGTH_DELIMITED;
    if (!was_word) {
      ++i;
      continue;
    }
    const int value = ValueOf(*field->enum_type(), old.length_delimited());
    if (value != 0) reflection.SetEnumValue(&message, field, value);
    unknown.DeleteSubrange(i, 1);
  }
}

void UpgradeLegacyLists(Message& message) {
  const Descriptor& type = *message.GetDescriptor();
  const Reflection& reflection = *message.GetReflection();
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor* legacy = type.field(i);
    if (!legacy->options().deprecated() || !legacy->is_repeated() ||
        legacy->type() != FieldDescriptor::TYPE_STRING ||
        !absl::StartsWith(legacy->name(), kLegacyPrefix)) {
      continue;
    }
    const FieldDescriptor* current =
        type.FindFieldByName(legacy->name().substr(sizeof(kLegacyPrefix) - 1));
    if (current == nullptr || current->enum_type() == nullptr || !current->is_repeated()) continue;
    if (reflection.FieldSize(message, current) == 0) {
      for (int k = 0; k < reflection.FieldSize(message, legacy); ++k) {
        const int value =
            ValueOf(*current->enum_type(), reflection.GetRepeatedString(message, legacy, k));
        if (value != 0) reflection.AddEnumValue(&message, current, value);
      }
    }
    reflection.ClearField(&message, legacy);
  }
}

}  // namespace

void UpgradeStringEnums(Message& message) {
  UpgradeSingularWords(message);
  UpgradeLegacyLists(message);
  const Descriptor& type = *message.GetDescriptor();
  const Reflection& reflection = *message.GetReflection();
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor* field = type.field(i);
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int k = 0; k < reflection.FieldSize(message, field); ++k) {
        UpgradeStringEnums(*reflection.MutableRepeatedMessage(&message, field, k));
      }
    } else if (reflection.HasField(message, field)) {
      UpgradeStringEnums(*reflection.MutableMessage(&message, field));
    }
  }
}

}  // namespace eb::spec
