#pragma once

// The drain reason ebnccl sets, and how it recognises its own: the prefix
// is the ownership mark (issue 30: ebnccl resumes only the nodes it drained,
// and never touches another's drain). Pure; any thread.

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "common/spec/terminal_text.h"

namespace eb::scheduler {

// Slurm's reason is a free-form field, but `sinfo -R` and its logs show it
// on one line; Kubernetes' taint values are at most 63 characters (the
// condition message carries the whole reason). 256 bytes keeps the
// validation id and a useful line of evidence.
inline constexpr size_t kMaxReasonBytes = 256;

// Evidence quotes what agents said, so it is untrusted: reasons go through
// the one output sanitizer's one-line form (common/spec/terminal_text.h).
using spec::OneLine;

// "<prefix> <validation id>: <evidence>", or "<prefix> <validation id>:
// repeat offender: <evidence>", as OneLine(..., kMaxReasonBytes).
std::string DrainReason(absl::string_view prefix, absl::string_view validation_id,
                        absl::string_view evidence, bool repeat_offender);

// True when `reason` is one of ours: it is `prefix`, or starts with
// `prefix` followed by a space or ':' ("ebncclx ..." is not ours). An empty
// prefix owns nothing.
bool IsOurReason(absl::string_view reason, absl::string_view prefix);

}  // namespace eb::scheduler
