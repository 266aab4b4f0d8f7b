#pragma once

// A small, thread-safe registry of counters and gauges with labels, rendered
// in the Prometheus text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/):
//
//   # HELP ebnccl_tests_total Tests finished, by verdict.
//   # TYPE ebnccl_tests_total counter
//   ebnccl_tests_total{verdict="failed"} 1
//   ebnccl_tests_total{verdict="passed"} 12
//
// Families are rendered sorted by name and series sorted by label values, so
// the output is deterministic (golden-testable). Names follow Prometheus
// conventions: [a-zA-Z_:][a-zA-Z0-9_:]*, counters end in "_total", units in
// the name ("_seconds", "_gbps"). Declaring a family with a malformed name,
// twice, or using it with the wrong number of label values is a bug in our
// own code and fails an EB_CHECK (STYLE.md rule 4); label *values* are data
// and may be anything (they are escaped).
//
// Thread-safety: every method of every class here may be called from any
// thread. Families live as long as their registry; references to them stay
// valid.

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace eb::common {

// Label values in the order of the family's label names.
using LabelValues = std::vector<std::string>;

class MetricFamily {
 public:
  enum class Type { kCounter, kGauge };

  virtual ~MetricFamily() = default;
  MetricFamily(const MetricFamily&) = delete;
  MetricFamily& operator=(const MetricFamily&) = delete;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  Type type() const { return type_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  // Current value of one series; 0 when it does not exist.
  double Value(const LabelValues& labels = {}) const;
  // True when the series exists (was set, incremented or initialized).
  bool Has(const LabelValues& labels = {}) const;
  // Every series, sorted by label values.
  std::map<LabelValues, double> Snapshot() const;

  // Appends HELP, TYPE and one line per series.
  void RenderTo(std::string* out) const;

 protected:
  MetricFamily(std::string name, std::string help, Type type, std::vector<std::string> label_names);
  void CheckArity(const LabelValues& labels) const;

  const std::string name_;
  const std::string help_;
  const Type type_;
  const std::vector<std::string> label_names_;
  mutable absl::Mutex mu_;
  std::map<LabelValues, double> series_ ABSL_GUARDED_BY(mu_);
};

// A value that only goes up (restarts reset it to 0; Prometheus' rate()
// handles that).
class Counter final : public MetricFamily {
 public:
  // Adds `delta` (>= 0) to the series, creating it at 0 first.
  void Increment(const LabelValues& labels = {}, double delta = 1.0);
  // Creates the series at 0 if it does not exist, so that it is exported
  // before its first event (rate() and increase() need the zero).
  void Initialize(const LabelValues& labels);

 private:
  friend class MetricsRegistry;
  using MetricFamily::MetricFamily;
};

// A value that goes up and down.
class Gauge final : public MetricFamily {
 public:
  void Set(const LabelValues& labels, double value);
  void Set(double value) { Set({}, value); }
  void Add(const LabelValues& labels, double delta);
  // Removes one series (e.g. a node that no longer exists).
  void Remove(const LabelValues& labels);
  // Replaces every series at once, so that a concurrent scrape sees either
  // the old or the new set, never a mix.
  void ReplaceAll(std::map<LabelValues, double> series);

 private:
  friend class MetricsRegistry;
  using MetricFamily::MetricFamily;
};

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Declares a family. A family without labels starts with its one series
  // at 0. The name must be valid and unused, counters' names must end in
  // "_total", label names must be valid and not start with "__" (EB_CHECK).
  Counter& AddCounter(const std::string& name, const std::string& help,
                      std::vector<std::string> label_names = {});
  Gauge& AddGauge(const std::string& name, const std::string& help,
                  std::vector<std::string> label_names = {});

  // The family named `name`, or null.
  const MetricFamily* Find(const std::string& name) const;

  // The whole registry in the text exposition format.
  std::string Render() const;

 private:
  template <typename T>
  T& Add(const std::string& name, const std::string& help, MetricFamily::Type type,
         std::vector<std::string> label_names);

  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<MetricFamily>> families_ ABSL_GUARDED_BY(mu_);
};

// Text exposition helpers (exposed for tests).
// Metric names: [a-zA-Z_:][a-zA-Z0-9_:]*. Label names: [a-zA-Z_][a-zA-Z0-9_]*.
bool IsValidMetricName(const std::string& name);
bool IsValidLabelName(const std::string& name);
// Label values: backslash, double quote and newline escaped.
std::string EscapeLabelValue(const std::string& value);
// HELP text: backslash and newline escaped.
std::string EscapeHelp(const std::string& help);
// "12", "0.5", "1.5e+20", "+Inf", "-Inf", "NaN": integral values without a
// fraction, others in the shortest form that reads back exactly.
std::string FormatMetricValue(double value);

}  // namespace eb::common
