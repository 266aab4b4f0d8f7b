#include "agent/core/gpu_details_text.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace eb::agent {
namespace {

std::string Field(absl::string_view text) {
  std::string field(text);
  for (char& c : field) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return field;
}

}  // namespace

std::string FormatNvmlReport(const absl::StatusOr<NvmlReport>& report) {
  if (!report.ok()) return absl::StrCat("unavailable\t", Field(report.status().message()), "\n");
  std::string text;
  for (const NvmlGpu& gpu : report->gpus) {
    absl::StrAppend(&text, "gpu\t", gpu.memory_bytes, "\t", Field(gpu.pci_bus_id), "\t",
                    Field(gpu.name), "\n");
  }
  for (const std::string& problem : report->problems) {
    absl::StrAppend(&text, "problem\t", Field(problem), "\n");
  }
  return text;
}

absl::StatusOr<NvmlReport> ParseNvmlReportText(absl::string_view text) {
  NvmlReport report;
  size_t number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    ++number;
    if (number > kMaxGpuDetailLines) {
      return absl::InvalidArgumentError(
          absl::StrCat("GPU details: more than ", kMaxGpuDetailLines, " lines"));
    }
    if (line.size() > kMaxGpuDetailLineBytes) {
      return absl::InvalidArgumentError(absl::StrCat("GPU details line ", number, ": longer than ",
                                                     kMaxGpuDetailLineBytes, " bytes"));
    }
    const std::vector<absl::string_view> fields = absl::StrSplit(line, '\t');
    const absl::string_view kind = fields[0];
    if (kind == "unavailable" && fields.size() == 2) {
      return absl::UnavailableError(fields[1]);
    }
    if (kind == "problem" && fields.size() == 2) {
      report.problems.emplace_back(fields[1]);
      continue;
    }
    if (kind == "gpu" && fields.size() == 4) {
      NvmlGpu gpu;
      if (!absl::SimpleAtoi(fields[1], &gpu.memory_bytes) || gpu.memory_bytes < 0) {
        return absl::InvalidArgumentError(absl::StrCat("GPU details line ", number, ": memory '",
                                                       fields[1], "' is not a number of bytes"));
      }
      gpu.pci_bus_id = std::string(fields[2]);
      gpu.name = std::string(fields[3]);
      report.gpus.push_back(std::move(gpu));
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat("GPU details line ", number,
                                                   ": not 'gpu', 'problem' or 'unavailable' with "
                                                   "its fields: '",
                                                   line.substr(0, 80), "'"));
  }
  return report;
}

}  // namespace eb::agent
