#pragma once

// Reads messages stored before some of their string fields became enums
// (issue 28: the validation's verdicts, confidences, kinds, outcomes,
// grades, findings and suites were words). One mechanism for every such
// field, so that a field changed the same way later needs nothing here:
//   - a singular field keeps its number and changes type: the old word,
//     which no longer parses as the field, is left by protobuf among the
//     message's unknown fields under that number; it is read back with
//     ParseWireName (and an old spelling below), set, and dropped;
//   - a repeated field cannot keep its number (a packed enum list and a
//     string share protobuf's wire type), so its old words stay in a field
//     `legacy_<name>` marked deprecated, which is read into `<name>` when
//     that is empty, and cleared.
// A word that names no value is dropped (the field stays 0, "unspecified").
// Pure; any thread.

#include "google/protobuf/message.h"

namespace eb::spec {

// Upgrades `message` and every message inside it, in place.
void UpgradeStringEnums(google::protobuf::Message& message);

}  // namespace eb::spec
