// Issue 33 item 2: the validation JSON (`validate --json`, `show v-...
// --json`, `validations --json`) printed protoc's enum names
// (COLLECTIVE_ALL_REDUCE, TRANSPORT_AUTO) where JSON_SCHEMA.md promises
// lower-case words. One mechanism (output/message_json.h) names every enum
// field; this test sets every enum field of ValidationReport, at any depth,
// to a value that is not 0, and walks both documents for an upper-case
// enum name, so that an enum added later is covered the day it is added.

#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "common/spec/wire_names.h"
#include "coordinator/ebctl/output/validation_json.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Every enum field of `message` and of the messages under it (one element
// of each repeated field) set to the enum's last value; the enum types met
// are added to `enums`. Depth-limited against recursive types.
void SetEveryEnum(Message& message, std::set<const EnumDescriptor*>& enums, int depth = 0) {
  if (depth > 8) return;
  const Descriptor& type = *message.GetDescriptor();
  const Reflection& reflection = *message.GetReflection();
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor& field = *type.field(i);
    if (field.is_map()) continue;
    if (field.cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
      const EnumDescriptor& e = *field.enum_type();
      enums.insert(&e);
      const int last = e.value(e.value_count() - 1)->number();
      if (field.is_repeated()) {
        reflection.AddEnumValue(&message, &field, last);
      } else {
        reflection.SetEnumValue(&message, &field, last);
      }
    } else if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      Message* child = field.is_repeated() ? reflection.AddMessage(&message, &field)
                                           : reflection.MutableMessage(&message, &field);
      SetEveryEnum(*child, enums, depth + 1);
    }
  }
}

// Every string in `doc` (values, not keys), with its JSON pointer.
void Strings(const nlohmann::json& doc, const std::string& where,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (doc.is_string()) {
    out.emplace_back(where, doc.get<std::string>());
  } else if (doc.is_object()) {
    for (const auto& [key, value] : doc.items()) Strings(value, where + "/" + key, out);
  } else if (doc.is_array()) {
    for (size_t k = 0; k < doc.size(); ++k) Strings(doc[k], where + "/" + std::to_string(k), out);
  }
}

void ExpectNoEnumName(const nlohmann::json& doc, const std::set<const EnumDescriptor*>& enums) {
  std::set<std::string> names;
  for (const EnumDescriptor* e : enums) {
    for (int k = 0; k < e->value_count(); ++k) names.insert(e->value(k)->name());
  }
  std::vector<std::pair<std::string, std::string>> strings;
  Strings(doc, "", strings);
  int words = 0;
  for (const auto& [where, text] : strings) {
    EXPECT_EQ(names.count(text), 0u) << where << " is protoc's name " << text;
    if (!text.empty() && text == absl::AsciiStrToLower(text)) ++words;
  }
  EXPECT_GT(words, 10);  // the enums did print, as words
}

TEST(ValidationJsonWordsTest, NoEnumPrintsAsProtocsName) {
  v1::ValidationReport report;
  std::set<const EnumDescriptor*> enums;
  SetEveryEnum(report, enums);
  // The spec's collective and transport were the two seen (issue 33).
  ASSERT_EQ(report.spec().collective(), v1::Collective_MAX);
  ASSERT_EQ(report.spec().transport(), v1::Transport_MAX);
  ASSERT_GE(enums.size(), 8u);

  const nlohmann::json shown = ValidationToJson(report);  // validate / show v-... --json
  ExpectNoEnumName(shown, enums);
  EXPECT_EQ(shown["spec"]["collective"], spec::WireName(v1::Collective_MAX));
  EXPECT_EQ(shown["spec"]["transport"], "nccl");

  v1::ListValidationsReply reply;  // validations --json
  *reply.add_validations() = report;
  ExpectNoEnumName(ValidationListToJson(reply), enums);
}

}  // namespace
}  // namespace eb::ebctl
