// coordinator.toml: any text is parsed (toml++) and applied to the
// coordinator's schema without crashing, every error names the file; a file
// that applies cleanly prints back (FormatToml) to TOML that applies again.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "common/config/toml_file.h"
#include "coordinator/config_file.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

constexpr char kPath[] = "coordinator.toml";

absl::Status Apply(absl::string_view text, eb::coordinator::CoordinatorSettings* settings) {
  absl::StatusOr<eb::common::TomlFile> file = eb::common::TomlFile::Parse(text, kPath);
  if (!file.ok()) return file.status();
  return eb::coordinator::CoordinatorConfigSchema(settings).Apply(*file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  eb::coordinator::CoordinatorSettings settings;
  const absl::Status applied = Apply(text, &settings);
  if (!applied.ok()) {
    FUZZ_CHECK(applied.code() == absl::StatusCode::kInvalidArgument);
    FUZZ_CHECK(absl::StrContains(applied.message(), kPath));
    return 0;
  }
  const std::string printed = eb::coordinator::CoordinatorConfigSchema(&settings).FormatToml();
  eb::coordinator::CoordinatorSettings reread;
  const absl::Status again = Apply(printed, &reread);
  if (!again.ok()) std::fprintf(stderr, "%s\n---\n%s\n", printed.c_str(), again.ToString().c_str());
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(eb::coordinator::CoordinatorConfigSchema(&reread).FormatToml() == printed);
  return 0;
}
