#include "coordinator/ebctl/output/message_json.h"

#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"
#include "common/spec/wire_names.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/util/json_util.h"

namespace eb::ebctl {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

std::string EnumWord(const EnumDescriptor& type, int value) {
  return value == 0 ? std::string() : spec::WireName(type, value);
}

// proto3 JSON's "123" as 123; anything else as it is.
void Int64AsNumber(nlohmann::json& value) {
  int64_t number = 0;
  if (value.is_string() && absl::SimpleAtoi(value.get<std::string>(), &number)) value = number;
}

void Rewrite(const Message& message, nlohmann::json& out);

void RewriteField(const Message& message, const FieldDescriptor& field, nlohmann::json& value) {
  const Reflection& reflection = *message.GetReflection();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_ENUM:
      if (!field.is_repeated()) {
        value = EnumWord(*field.enum_type(), reflection.GetEnumValue(message, &field));
        return;
      }
      for (int k = 0; k < reflection.FieldSize(message, &field) && k < int(value.size()); ++k) {
        value[k] =
            EnumWord(*field.enum_type(), reflection.GetRepeatedEnumValue(message, &field, k));
      }
      return;
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT64:
      if (!field.is_repeated()) {
        Int64AsNumber(value);
        return;
      }
      for (nlohmann::json& item : value) Int64AsNumber(item);
      return;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (!field.is_repeated()) {
        if (value.is_object()) Rewrite(reflection.GetMessage(message, &field), value);
        return;
      }
      for (int k = 0; k < reflection.FieldSize(message, &field) && k < int(value.size()); ++k) {
        if (value[k].is_object()) {
          Rewrite(reflection.GetRepeatedMessage(message, &field, k), value[k]);
        }
      }
      return;
    default:
      return;
  }
}

void Rewrite(const Message& message, nlohmann::json& out) {
  const Descriptor& type = *message.GetDescriptor();
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor& field = *type.field(i);
    auto it = out.find(field.name());
    if (it == out.end()) continue;
    if (field.options().deprecated()) {
      out.erase(it);
      continue;
    }
    if (field.is_map()) continue;
    RewriteField(message, field, *it);
  }
}

}  // namespace

nlohmann::json MessageJson(const Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;     // snake_case, as the schemas document
  options.always_print_primitive_fields = true;  // a 0 or false is data, not absence
  std::string text;
  // Serializing a valid message cannot fail; an empty object if it did.
  if (!google::protobuf::util::MessageToJsonString(message, &text, options).ok()) {
    return nlohmann::json::object();
  }
  nlohmann::json out = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!out.is_object()) return nlohmann::json::object();
  Rewrite(message, out);
  return out;
}

}  // namespace eb::ebctl
