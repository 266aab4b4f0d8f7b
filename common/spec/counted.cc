#include "common/spec/counted.h"

#include "absl/strings/str_cat.h"

namespace eb::spec {

std::string Noun(int64_t count, absl::string_view singular, absl::string_view plural) {
  if (count == 1 || count == -1) return std::string(singular);
  return plural.empty() ? absl::StrCat(singular, "s") : std::string(plural);
}

std::string Counted(int64_t count, absl::string_view singular, absl::string_view plural) {
  return absl::StrCat(count, " ", Noun(count, singular, plural));
}

}  // namespace eb::spec
