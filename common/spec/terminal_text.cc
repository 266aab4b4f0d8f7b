#include "common/spec/terminal_text.h"

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "common/spec/bounded_text.h"
#include "google/protobuf/message.h"

namespace eb::spec {
namespace {

struct Keep {
  bool lines = false;  // '\n' and '\t' kept as they are
  bool utf8 = true;    // well-formed printable UTF-8 kept
};

void AppendEscaped(std::string& out, unsigned char byte) {
  switch (byte) {
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\\':
      out += "\\\\";
      return;
    default:
      out += absl::StrFormat("\\x%02x", byte);
  }
}

// The one loop behind Printable, PrintableLines and PrintableAscii.
std::string Escape(absl::string_view text, Keep keep) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      const bool kept = (absl::ascii_isprint(byte) && byte != '\\') ||
                        (keep.lines && (byte == '\n' || byte == '\t'));
      if (kept) {
        out.push_back(static_cast<char>(byte));
      } else {
        AppendEscaped(out, byte);
      }
      ++i;
      continue;
    }
    const size_t length = keep.utf8 ? Utf8CharLength(text.substr(i)) : 0;
    // C1 controls (U+0080..U+009F, "\xC2\x80".."\xC2\x9F") act as escapes on
    // some terminals: escaped like C0.
    const bool c1 = length == 2 && byte == 0xC2 && static_cast<uint8_t>(text[i + 1]) < 0xA0;
    if (length == 0 || c1) {
      const size_t bytes = c1 ? 2 : 1;
      for (size_t k = 0; k < bytes; ++k)
        AppendEscaped(out, static_cast<unsigned char>(text[i + k]));
      i += bytes;
      continue;
    }
    out.append(text.data() + i, length);
    i += length;
  }
  return out;
}

}  // namespace

std::string Printable(absl::string_view text) { return Escape(text, Keep{}); }

std::string PrintableLines(absl::string_view text) {
  return Escape(text, Keep{.lines = true, .utf8 = true});
}

std::string PrintableAscii(absl::string_view text) {
  return Escape(text, Keep{.lines = false, .utf8 = false});
}

std::string OneLine(absl::string_view text, size_t max_bytes) {
  std::string line;
  line.reserve(text.size() < max_bytes ? text.size() : max_bytes);
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    // Control characters separate words: a space, never a line break or an
    // escape sequence for the operator's terminal.
    if (u < 0x20 || c == ' ') {
      if (!line.empty() && line.back() != ' ') line.push_back(' ');
      continue;
    }
    // Non-ASCII and DEL: '?', so a cut can never split a UTF-8 sequence.
    line.push_back(absl::ascii_isprint(u) ? c : '?');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  if (line.size() <= max_bytes) return line;
  if (max_bytes < 3) return std::string(max_bytes, '.');
  line.resize(max_bytes - 3);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "...";
}

int MakePrintable(google::protobuf::Message& message) {
  return RewriteMessageText(message, [](absl::string_view value) { return Printable(value); });
}

}  // namespace eb::spec
