#pragma once

// Gloo reports every failure by exception; our functions return statuses
// (STYLE.md rule 1). CallGloo is the one try/catch around Gloo calls.

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace eb::transport {

// Runs `fn` and converts any exception it throws into a status whose
// message is "<what>: <exception text>":
//   gloo::IoException mentioning a timeout -> DEADLINE_EXCEEDED
//     (Gloo's "Timed out waiting ...ms", "Connect timeout", and the
//     "Application timeout caused pair closure" that other buffers see);
//   any other gloo::IoException -> UNAVAILABLE (peer closed, reset, refused);
//   gloo::EnforceNotMet and other gloo::Exception -> INTERNAL (a broken
//     Gloo precondition, i.e. our bug or ranks issuing different calls);
//   std::bad_alloc -> RESOURCE_EXHAUSTED; anything else -> INTERNAL.
// Never throws. Thread-safe if fn is.
absl::Status CallGloo(absl::string_view what, absl::FunctionRef<void()> fn);

// The classification CallGloo applies to an IoException message.
absl::Status GlooIoErrorToStatus(absl::string_view what, const std::string& message);

}  // namespace eb::transport
