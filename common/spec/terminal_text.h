#pragma once

// The one output sanitizer: every string that came from outside (node
// inventories, failure messages, ids, log text, drain reasons, scheduler
// output) passes through here before it reaches a terminal, an error
// message or a one-line field. A failure message holding "\x1b[2J" cleared
// the operator's screen and drew a green "# Result: PASSED" over a FAILED
// test; "\x1b[2K\r" rewrote an audit line (SECURITY_FINDINGS P2-2.18,
// P2-6.3). JSON output escapes by itself and does not use this.
// Pure; Abseil and protobuf's reflection only.

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace google::protobuf {
class Message;
}  // namespace google::protobuf

namespace eb::spec {

// `text` as a terminal shows it safely: printable ASCII and well-formed
// printable UTF-8 kept; control characters (C0, DEL, C1 U+0080..U+009F)
// and bytes that are not well-formed UTF-8 shown as \xNN (\n, \r, \t as
// such), and '\' as "\\", so what is shown reads back unambiguously.
std::string Printable(absl::string_view text);

// Printable, but line breaks ('\n') and tabs kept: multi-line text shown
// as lines (log files). Every other control character is still escaped.
std::string PrintableLines(absl::string_view text);

// Printable ASCII only: as Printable, and every non-ASCII byte as \xNN
// too. For error messages quoting refused input (Quote, identifiers.h).
std::string PrintableAscii(absl::string_view text);

// `text` as one printable-ASCII line of at most max_bytes: control
// characters become spaces, runs of spaces collapse, other bytes (non-ASCII,
// DEL) become '?'; cut ending in "..." when longer. For fields that other
// programs show on one line and where escapes would be noise (a Slurm drain
// reason in `sinfo -R`, systemd's STATUS=).
std::string OneLine(absl::string_view text, size_t max_bytes);

// Applies Printable to every string field of `message` (nested, repeated
// and map fields included; bytes fields left alone). Text renderers of
// ebctl call it on their copy of a reply, so a new column of any string
// field is sanitized without anyone remembering to. Returns how many
// fields changed.
int MakePrintable(google::protobuf::Message& message);

}  // namespace eb::spec
