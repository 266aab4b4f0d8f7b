#pragma once

// A strict parser for the Prometheus text exposition format 0.0.4, for tests
// that scrape /metrics: it rejects anything a Prometheus server would reject
// or that our renderer must never produce (a sample before its TYPE, a
// family split in two, a duplicate series, a bad escape, a counter whose
// name lacks "_total"), so a passing parse means the endpoint is well-formed.
// Only the types we export (counter, gauge, histogram: its _bucket, _sum and
// _count samples belong to its family) and untyped are accepted.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::testing {

using PromLabels = std::map<std::string, std::string>;

struct PromSample {
  std::string name;
  PromLabels labels;
  double value = 0;
};

struct PromFamily {
  std::string name;
  std::string type;  // "counter", "gauge" or "untyped"
  std::string help;  // unescaped
};

struct PromText {
  std::map<std::string, PromFamily> families;
  // In the order of the text.
  std::vector<PromSample> samples;

  // Value of the series `name{labels}` (labels must match exactly).
  std::optional<double> Value(const std::string& name, const PromLabels& labels = {}) const;
  // Every series of `name`, by labels.
  std::map<PromLabels, double> Series(const std::string& name) const;
};

// INVALID_ARGUMENT naming the line number and what is wrong.
absl::StatusOr<PromText> ParsePrometheusText(absl::string_view text);

}  // namespace eb::testing
