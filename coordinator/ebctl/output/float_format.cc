#include "coordinator/ebctl/output/float_format.h"

#include "absl/strings/str_format.h"

namespace eb::ebctl {

std::string FormatFloatField(double value, int width) {
  std::string text = absl::StrFormat("%*.2f", width, value);
  if (static_cast<int>(text.size()) <= width) return text;
  text = absl::StrFormat("%*.1f", width, value);
  if (static_cast<int>(text.size()) <= width) return text;
  text = absl::StrFormat("%*.0f", width, value);
  if (static_cast<int>(text.size()) <= width) return text;
  return width >= 7 ? absl::StrFormat("%*.1e", width, value)
                    : absl::StrFormat("%*.0e", width, value);
}

}  // namespace eb::ebctl
