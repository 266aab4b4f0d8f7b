// ebctl's byte sizes (-b/-e/-i): ParseSize never crashes on any text, and
// what it accepts FormatSize writes back to the same value.

#include <cstddef>
#include <cstdint>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "common/spec/byte_size.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<int64_t> bytes = eb::spec::ParseSize(text, "-b/--minbytes");
  if (!bytes.ok()) {
    FUZZ_CHECK(!bytes.status().message().empty());
    return 0;
  }
  FUZZ_CHECK(*bytes >= 0);
  const absl::StatusOr<int64_t> again =
      eb::spec::ParseSize(eb::spec::FormatSize(*bytes), "-b/--minbytes");
  FUZZ_CHECK(again.ok() && *again == *bytes);
  return 0;
}
