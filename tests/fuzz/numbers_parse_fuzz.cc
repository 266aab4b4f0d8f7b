// The one parser per kind of number (common/spec/numbers.h) and the one
// bound for free text (common/spec/bounded_text.h): on any text, durations
// and counts are within their range or refused with a message, and bounded
// text is valid UTF-8 within its limit (issue 32, items 2 and 5).

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "common/spec/bounded_text.h"
#include "common/spec/numbers.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  namespace spec = eb::spec;
  for (spec::BareUnit unit :
       {spec::BareUnit::kSeconds, spec::BareUnit::kMilliseconds, spec::BareUnit::kNone}) {
    const absl::StatusOr<absl::Duration> value =
        spec::ParseDuration(text, "--timeout", spec::kTimeoutRange, unit);
    if (value.ok()) {
      FUZZ_CHECK(*value >= spec::kTimeoutRange.min && *value <= spec::kTimeoutRange.max);
      FUZZ_CHECK(spec::CheckDuration(*value, "f", spec::kTimeoutRange).ok());
    } else {
      FUZZ_CHECK(absl::StartsWith(value.status().message(), "--timeout: "));
    }
  }
  const absl::StatusOr<int64_t> count = spec::ParseCount(text, "-n", -5, 1000);
  FUZZ_CHECK(!count.ok() || (*count >= -5 && *count <= 1000));
  const absl::StatusOr<double> share = spec::ParseShare(text, "--share", 0, 100);
  FUZZ_CHECK(!share.ok() || (*share >= 0 && *share <= 100));
  for (size_t limit : {size_t{0}, size_t{7}, size_t{40}, size_t{512}}) {
    const std::string bounded = spec::BoundedText(text, limit);
    FUZZ_CHECK(bounded.size() <= limit);
    FUZZ_CHECK(spec::IsValidUtf8(bounded));
  }
  return 0;
}
