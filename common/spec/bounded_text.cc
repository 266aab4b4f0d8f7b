#include "common/spec/bounded_text.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/reflection.h"

namespace eb::spec {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// The length of the well-formed UTF-8 character at the start of `text`, or
// 0 when its first byte does not begin one (RFC 3629, table 3-7 of Unicode).
}  // namespace

size_t Utf8CharLength(absl::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t b0 = byte(0);
  if (b0 < 0x80) return 1;
  size_t length = 0;
  uint8_t low = 0x80;
  uint8_t high = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) low = 0xA0;   // overlong
    if (b0 == 0xED) high = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) low = 0x90;   // overlong
    if (b0 == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

namespace {

constexpr absl::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool Bounded(absl::string_view text, size_t max_bytes) {
  return text.size() <= max_bytes && IsValidUtf8(text);
}

// Visits every string field of `message` (recursively); `visit` returns
// false to stop. Mutable when `M` is Message.
template <typename M, typename Visit>
bool ForEachString(M& message, Visit&& visit) {
  const Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_STRING &&
        field->type() == FieldDescriptor::TYPE_STRING) {
      if (!visit(message, reflection, field)) return false;
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        const int count = reflection->FieldSize(message, field);
        for (int i = 0; i < count; ++i) {
          if constexpr (std::is_const_v<M>) {
            if (!ForEachString(reflection->GetRepeatedMessage(message, field, i), visit)) {
              return false;
            }
          } else {
            if (!ForEachString(*reflection->MutableRepeatedMessage(&message, field, i), visit)) {
              return false;
            }
          }
        }
      } else if constexpr (std::is_const_v<M>) {
        if (!ForEachString(reflection->GetMessage(message, field), visit)) return false;
      } else {
        if (!ForEachString(*reflection->MutableMessage(&message, field), visit)) return false;
      }
    }
  }
  return true;
}

}  // namespace

bool IsValidUtf8(absl::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const size_t length = Utf8CharLength(text.substr(i));
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string BoundedText(absl::string_view text, size_t max_bytes) {
  if (Bounded(text, max_bytes)) return std::string(text);
  // Room for the longest marker (20 digits), kept only when a cut is needed.
  const size_t room = kCutMarker.size() + 20 + absl::string_view(" bytes]").size();
  const size_t budget_if_cut = max_bytes > room ? max_bytes - room : 0;
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  size_t i = 0;
  // The last character boundary within budget_if_cut: output size, input offset.
  size_t safe_out = 0;
  size_t safe_in = 0;
  while (i < text.size()) {
    const size_t length = Utf8CharLength(text.substr(i));
    const absl::string_view piece = length == 0 ? kReplacement : text.substr(i, length);
    if (out.size() + piece.size() > max_bytes) {
      out.resize(safe_out);
      const std::string marker = absl::StrCat(kCutMarker, text.size() - safe_in, " bytes]");
      if (out.size() + marker.size() <= max_bytes) out.append(marker);
      return out;
    }
    out.append(piece.data(), piece.size());
    i += length == 0 ? 1 : length;
    if (out.size() <= budget_if_cut) {
      safe_out = out.size();
      safe_in = i;
    }
  }
  return out;
}

int BoundMessageText(Message& message, size_t max_field_bytes) {
  int changed = 0;
  ForEachString(
      message, [&](Message& owner, const Reflection* reflection, const FieldDescriptor* field) {
        if (field->is_repeated()) {
          const int count = reflection->FieldSize(owner, field);
          for (int i = 0; i < count; ++i) {
            const std::string value = reflection->GetRepeatedString(owner, field, i);
            if (Bounded(value, max_field_bytes)) continue;
            reflection->SetRepeatedString(&owner, field, i, BoundedText(value, max_field_bytes));
            ++changed;
          }
        } else {
          const std::string value = reflection->GetString(owner, field);
          if (!Bounded(value, max_field_bytes)) {
            reflection->SetString(&owner, field, BoundedText(value, max_field_bytes));
            ++changed;
          }
        }
        return true;
      });
  return changed;
}

int RewriteMessageText(Message& message,
                       const std::function<std::string(absl::string_view)>& rewrite) {
  int changed = 0;
  ForEachString(message,
                [&](Message& owner, const Reflection* reflection, const FieldDescriptor* field) {
                  if (field->is_repeated()) {
                    const int count = reflection->FieldSize(owner, field);
                    for (int i = 0; i < count; ++i) {
                      const std::string value = reflection->GetRepeatedString(owner, field, i);
                      std::string rewritten = rewrite(value);
                      if (rewritten == value) continue;
                      reflection->SetRepeatedString(&owner, field, i, std::move(rewritten));
                      ++changed;
                    }
                  } else {
                    const std::string value = reflection->GetString(owner, field);
                    std::string rewritten = rewrite(value);
                    if (rewritten != value) {
                      reflection->SetString(&owner, field, std::move(rewritten));
                      ++changed;
                    }
                  }
                  return true;
                });
  return changed;
}

bool MessageTextNeedsBounding(const Message& message, size_t max_field_bytes) {
  bool needs = false;
  ForEachString(message, [&](const Message& owner, const Reflection* reflection,
                             const FieldDescriptor* field) {
    if (field->is_repeated()) {
      const int count = reflection->FieldSize(owner, field);
      for (int i = 0; i < count && !needs; ++i) {
        std::string scratch;
        needs = !Bounded(reflection->GetRepeatedStringReference(owner, field, i, &scratch),
                         max_field_bytes);
      }
    } else {
      std::string scratch;
      needs = !Bounded(reflection->GetStringReference(owner, field, &scratch), max_field_bytes);
    }
    return !needs;
  });
  return needs;
}

}  // namespace eb::spec
