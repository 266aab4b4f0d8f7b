#pragma once

// The one function that bounds free text from outside (failure messages,
// evidence, summaries, audit targets, anything a node or a client wrote)
// and makes it valid UTF-8, and the same for every string field of a
// message. Used on the way into the history and again on the way out of it
// (issue 32, item 2: one bad row, oversized, invalid UTF-8 or cut
// mid-character, made `ebctl tests`, `show` and `audit` fail for everyone:
// protobuf refuses to serialize a string field that is not UTF-8).
// Limits and what happens at them: docs/SECURITY.md, "Limits".

#include <cstddef>
#include <functional>
#include <string>

#include "absl/strings/string_view.h"

namespace google::protobuf {
class Message;
}  // namespace google::protobuf

namespace eb::spec {

// One string field of a stored report, validation or audit row: the
// largest free text the coordinator keeps (NCCL's RAS reply and warnings,
// coordinator/core/collective_tests/run_evidence.h, are 64 KiB).
inline constexpr size_t kMaxStoredTextBytes = size_t{64} << 10;
// What a cut text ends with: "…[cut N bytes]".
inline constexpr absl::string_view kCutMarker = "\xE2\x80\xA6[cut ";

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or
// code points above U+10FFFF).
bool IsValidUtf8(absl::string_view text);

// The length of the well-formed UTF-8 character at the start of `text`, or
// 0 when its first byte does not begin one (RFC 3629).
size_t Utf8CharLength(absl::string_view text);

// `text` as valid UTF-8 of at most `max_bytes` bytes: each byte that does
// not begin a well-formed character becomes U+FFFD; a longer text is cut at
// a character boundary and ends with "…[cut N bytes]" (N: bytes of the
// input not kept), all within `max_bytes`. Returns `text` unchanged when it
// is valid and fits.
std::string BoundedText(absl::string_view text, size_t max_bytes = kMaxStoredTextBytes);

// Applies BoundedText to every string field of `message`, nested messages,
// repeated fields and maps included (bytes fields are left alone: they are
// not text). Returns how many fields changed (0: the message was already
// bounded and valid, and is untouched).
int BoundMessageText(google::protobuf::Message& message,
                     size_t max_field_bytes = kMaxStoredTextBytes);

// Replaces each string field's value with rewrite(value) where that
// differs (the walk of BoundMessageText; terminal_text.h's MakePrintable
// uses it). Returns how many fields changed.
int RewriteMessageText(google::protobuf::Message& message,
                       const std::function<std::string(absl::string_view)>& rewrite);

// Whether BoundMessageText would change anything (reads only).
bool MessageTextNeedsBounding(const google::protobuf::Message& message,
                              size_t max_field_bytes = kMaxStoredTextBytes);

}  // namespace eb::spec
