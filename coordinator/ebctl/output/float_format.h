#pragma once

// The number formatting of the nccl-tests table (src/util.cu getFloatStr),
// so that our rows line up with theirs and existing parsers keep working.

#include <string>

namespace eb::ebctl {

// Formats `value` right-aligned in `width` columns with the most precision
// that fits: "%.2f", then "%.1f", then "%.0f", then "%.1e" (width >= 7) or
// "%.0e". nccl-tests truncates a value that still does not fit (e.g. 1e100
// in 7 columns becomes "1.0e+10", a wrong number); we return it whole and
// let the row grow instead.
std::string FormatFloatField(double value, int width);

}  // namespace eb::ebctl
