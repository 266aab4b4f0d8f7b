#pragma once

// Checks of what is typed on ebctl's command line that CLI11 does not make
// readable by itself (SECURITY_FINDINGS cases 11 and 15): whole numbers in a
// range with a message that names the flag and the range in words (not
// "Value 0 not in range 0.000000 to 1797693..."), never silently clamped
// ("-f 99999999999999999999" became INT64_MAX); node lists where an empty
// name or an empty list is an error naming the flag; and the word that is
// not a command. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::ebctl {

// `text` as a whole number in [min, max], or INVALID_ARGUMENT
// "<flag>: '<text>' is not a whole number from <min> to <max>" (the text
// quoted and cut, spec::Quote; without "<flag>: " when `flag` is empty).
absl::StatusOr<int64_t> ParseWholeNumber(absl::string_view text, int64_t min, int64_t max,
                                         absl::string_view flag);

// "a,b , c" -> {"a", "b", "c"} ("a,,b" -> {"a", "b"}). INVALID_ARGUMENT
// naming `flag` for a list without a name ("", ",,", " , "), which never
// means "every idle node", a name that is no node name
// (spec::CheckNodeName) or more than spec::kMaxNodeNamesInRequest names.
absl::StatusOr<std::vector<std::string>> ParseNodeList(absl::string_view text,
                                                       absl::string_view flag);

// The first word of `args` (argv without argv[0]) that would be taken as a
// command, when it is not one of `commands`; nullopt otherwise. Options in
// `options_with_value` take the next word as their value ("--coordinator
// h:1 nodes"); "--opt=value" is one word. Stops at the first known command.
std::optional<std::string> UnknownCommand(const std::vector<std::string>& args,
                                          const std::vector<std::string>& commands,
                                          const std::vector<std::string>& options_with_value);

// nccl-tests' -g/--ngpus (GPUs per thread) and -t/--nthreads (threads per
// process), typed out of habit (issue 33 item 5). ebnccl runs one rank per
// GPU, each its own process, so both are 1 by construction: 1 gives a note
// to print ("<flag> 1: ..."), any other value INVALID_ARGUMENT naming the
// flag and what to use instead (--workers-per-node).
absl::StatusOr<std::string> NcclTestsThreadingNote(absl::string_view flag, int64_t value);

// Every command-line argument is valid UTF-8, or INVALID_ARGUMENT naming
// the first that is not (quoted, escaped). Ids, names and NCCL variables
// are sent as protobuf strings, which must be UTF-8: an invalid one gave a
// libprotobuf ERROR line and an empty "UNIMPLEMENTED" (SECURITY_FINDINGS
// P2-2.11). Paths are checked too: ebctl takes no path that is not text.
absl::Status CheckArgumentsUtf8(const std::vector<std::string>& arguments);

}  // namespace eb::ebctl
