#include "agent/core/fabric_config.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace eb::agent {

absl::StatusOr<std::vector<HcaPort>> ParseHcaList(absl::string_view text) {
  absl::string_view list = absl::StripAsciiWhitespace(text);
  if (absl::StartsWith(list, "^")) {
    return absl::InvalidArgumentError(
        "--ib-hca: exclusion lists ('^...') are not supported; list the HCAs to use");
  }
  absl::ConsumePrefix(&list, "=");
  std::vector<HcaPort> hcas;
  for (absl::string_view entry : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    entry = absl::StripAsciiWhitespace(entry);
    std::vector<absl::string_view> parts = absl::StrSplit(entry, ':');
    HcaPort hca;
    hca.name = std::string(parts[0]);
    // '=' and '^' mean something only at the list's start (NCCL_IB_HCA's
    // exact-match and exclusion prefixes): inside a name they would change the
    // NCCL_IB_HCA value built from it, and a printed config would read back
    // as another name ("a,=b" read "=b", which reads back as "b").
    if (hca.name.empty() || hca.name.find_first_of("/=^") != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("--ib-hca: '", entry, "' is not an HCA name"));
    }
    if (parts.size() > 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("--ib-hca: '", entry, "': only HCA or HCA:PORT is supported"));
    }
    if (parts.size() == 2 && (!absl::SimpleAtoi(parts[1], &hca.port) || hca.port < 1)) {
      return absl::InvalidArgumentError(absl::StrCat("--ib-hca: '", entry, "': bad port"));
    }
    hcas.push_back(std::move(hca));
  }
  if (hcas.empty()) return absl::InvalidArgumentError("--ib-hca: empty list");
  return hcas;
}

std::string NcclIbHcaValue(const std::vector<HcaPort>& hcas) {
  std::vector<std::string> entries;
  entries.reserve(hcas.size());
  for (const HcaPort& hca : hcas) {
    entries.push_back(hca.port > 0 ? absl::StrCat(hca.name, ":", hca.port) : hca.name);
  }
  return "=" + absl::StrJoin(entries, ",");
}

std::vector<std::string> HcaWarnings(const std::vector<ebnccl::v1::HcaInfo>& hcas) {
  std::vector<std::string> warnings;
  for (const ebnccl::v1::HcaInfo& hca : hcas) {
    if (!hca.error().empty()) {
      warnings.push_back(absl::StrCat(hca.error(), ": NCCL cannot use it"));
    } else if (hca.state() != "ACTIVE") {
      warnings.push_back(absl::StrCat("HCA ", hca.name(), " port ", hca.port(), " is ",
                                      hca.state().empty() ? "in an unknown state" : hca.state(),
                                      ", not ACTIVE: NCCL cannot use it"));
    }
  }
  return warnings;
}

}  // namespace eb::agent
