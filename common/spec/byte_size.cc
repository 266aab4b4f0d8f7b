#include "common/spec/byte_size.h"

#include <limits>
#include <numeric>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace eb::spec {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

struct Unit {
  char letter;
  int shift;
};
constexpr Unit kUnits[] = {{'T', 40}, {'G', 30}, {'M', 20}, {'K', 10}};

absl::Status Error(absl::string_view flag, absl::string_view text, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(flag, ": '", text, "' ", what));
}

absl::Status NotASize(absl::string_view flag, absl::string_view text) {
  return Error(flag, text,
               "is not a size (expected bytes with an optional K, M, G or T suffix, "
               "e.g. 8, 64M, 1G)");
}

// Returns the shift of the unit suffix (0 for none or "B"), or -1 when the
// suffix is not one we accept.
int SuffixShift(absl::string_view suffix) {
  if (suffix.empty() || absl::EqualsIgnoreCase(suffix, "B")) return 0;
  const char letter = absl::ascii_toupper(static_cast<unsigned char>(suffix.front()));
  for (const Unit& unit : kUnits) {
    if (letter != unit.letter) continue;
    const absl::string_view rest = suffix.substr(1);
    if (rest.empty() || absl::EqualsIgnoreCase(rest, "B") || absl::EqualsIgnoreCase(rest, "iB")) {
      return unit.shift;
    }
  }
  return -1;
}

}  // namespace

absl::StatusOr<int64_t> ParseSize(absl::string_view text, absl::string_view flag) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  if (trimmed.empty()) return Error(flag, text, "is empty (expected a size such as 64M)");
  // The sign is checked first so that "-8" gets the clearer message rather
  // than "is not a size".
  if (trimmed.front() == '-') return Error(flag, text, "is negative");

  // Digits, then an optional fraction. Parsed by hand rather than with
  // strtod so that "1e3", "0x10", "inf" and "nan" are refused and large
  // integers stay exact.
  size_t pos = trimmed.front() == '+' ? 1 : 0;
  int64_t whole = 0;
  bool overflow = false;
  const size_t digits_start = pos;
  while (pos < trimmed.size() && absl::ascii_isdigit(static_cast<unsigned char>(trimmed[pos]))) {
    const int digit = trimmed[pos] - '0';
    if (whole > (kMax - digit) / 10) overflow = true;
    if (!overflow) whole = whole * 10 + digit;
    ++pos;
  }
  bool any_digit = pos > digits_start;
  // The fraction keeps at most 18 digits (enough for any unit up to T).
  int64_t fraction = 0;
  int64_t fraction_scale = 1;
  if (pos < trimmed.size() && trimmed[pos] == '.') {
    ++pos;
    while (pos < trimmed.size() && absl::ascii_isdigit(static_cast<unsigned char>(trimmed[pos]))) {
      if (fraction_scale < 1000000000000000000) {
        fraction = fraction * 10 + (trimmed[pos] - '0');
        fraction_scale *= 10;
      } else if (trimmed[pos] != '0') {
        return Error(flag, text, "is not a whole number of bytes");
      }
      any_digit = true;
      ++pos;
    }
  }
  if (!any_digit) return NotASize(flag, text);

  const int shift = SuffixShift(absl::StripLeadingAsciiWhitespace(trimmed.substr(pos)));
  if (shift < 0) return NotASize(flag, text);
  const auto too_large = [&] {
    return Error(flag, text, absl::StrCat("is too large (at most ", kMax, " bytes)"));
  };
  if (overflow || whole > (kMax >> shift)) return too_large();
  int64_t bytes = whole << shift;

  if (fraction != 0) {
    // fraction / fraction_scale * 2^shift is whole only when the reduced
    // denominator is a power of two dividing 2^shift. The result is below
    // 2^shift <= 2^40, so it cannot overflow on its own.
    const int64_t common = std::gcd(fraction, fraction_scale);
    const int64_t numerator = fraction / common;
    const int64_t denominator = fraction_scale / common;
    if ((denominator & (denominator - 1)) != 0 || denominator > (int64_t{1} << shift)) {
      return Error(flag, text, "is not a whole number of bytes");
    }
    const int64_t extra = numerator * ((int64_t{1} << shift) / denominator);
    if (extra > kMax - bytes) return too_large();
    bytes += extra;
  }
  return bytes;
}

std::string FormatSize(int64_t bytes) {
  if (bytes == 0) return "0";
  for (const Unit& unit : kUnits) {
    const int64_t factor = int64_t{1} << unit.shift;
    if (bytes % factor == 0) return absl::StrCat(bytes / factor, std::string(1, unit.letter));
  }
  return absl::StrCat(bytes);
}

}  // namespace eb::spec
