#pragma once

// Checks of the identifiers that cross the network: test ids, node names,
// rendezvous keys. They become file names on the nodes (run_dir/logs/<test
// id>), log fields and map keys, so they are names only: a strict character
// set and length, never '.', '..' or anything with '/' or NUL (a FetchLog
// with test_id "../../etc/shadow" read /etc/shadow, case 2). Errors name the
// field and quote at most kMaxQuotedInput characters of what was refused
// (case 14). Pure; protos and Abseil only.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace eb::spec {

// "'abc'", or "'<first 64 characters>...' (1048576 bytes)" for longer input;
// non-printable bytes as \xNN.
std::string Quote(absl::string_view input);

// Test ids: 1..kMaxTestIdLength of [A-Za-z0-9._-], starting with a letter or
// digit (so never "." or ".."). INVALID_ARGUMENT "<field>: ..." otherwise.
absl::Status CheckTestId(absl::string_view test_id, absl::string_view field);

// Node names: 1..kMaxNodeNameLength of [A-Za-z0-9._-] starting with a letter
// or digit (host names, also FQDNs).
absl::Status CheckNodeName(absl::string_view name, absl::string_view field);

// Rendezvous keys: 1..kMaxRendezvousKeyLength printable ASCII characters
// (Gloo's keys hold '/' and ':'; they are never file names).
absl::Status CheckRendezvousKey(absl::string_view key, absl::string_view field);

}  // namespace eb::spec
