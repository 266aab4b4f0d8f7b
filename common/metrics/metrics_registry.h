#pragma once

// The daemons' Prometheus metrics: counters, gauges and histograms with
// labels, stored in a prometheus-cpp registry (Debian's prometheus-cpp-dev,
// 1.0.1) and rendered by its TextSerializer in the text exposition format
// 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/):
//
//   # HELP ebnccl_tests_total Tests finished, by verdict.
//   # TYPE ebnccl_tests_total counter
//   ebnccl_tests_total{verdict="failed"} 1
//   ebnccl_tests_total{verdict="passed"} 12
//
// This thin layer over prometheus-cpp keeps what the daemons relied on
// before it (docs/DESIGN.md, "Metrics"): series addressed by label values
// in the family's label order, reads of one series (Value, Has, Snapshot)
// for the tests, a gauge replaced as a whole so that a scrape never sees a
// mix (ReplaceAll), deterministic output (families sorted by name, series by
// label values: golden-testable), and EB_CHECKs for naming bugs.
// prometheus-cpp labels are rendered sorted by label name.
//
// Declaring a family with a malformed name, twice, with HELP text that
// prometheus-cpp 1.0.1 would not escape (a backslash or newline), or using
// it with the wrong number of label values is a bug in our own code and
// fails an EB_CHECK (STYLE.md rule 4); label *values* are data and may be
// anything (prometheus-cpp escapes them).
//
// Thread-safety: every method of every class here may be called from any
// thread. Families live as long as their registry; references to them stay
// valid.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace eb::common {

// Label values in the order of the family's label names.
using LabelValues = std::vector<std::string>;

class MetricFamily {
 public:
  enum class Type { kCounter, kGauge, kHistogram };

  virtual ~MetricFamily() = default;
  MetricFamily(const MetricFamily&) = delete;
  MetricFamily& operator=(const MetricFamily&) = delete;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  Type type() const { return type_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  // Current value of one series (a histogram's: its count); 0 when it does
  // not exist.
  double Value(const LabelValues& labels = {}) const;
  // True when the series exists (was set, incremented or initialized).
  bool Has(const LabelValues& labels = {}) const;
  // Every series, sorted by label values.
  std::map<LabelValues, double> Snapshot() const;

 protected:
  MetricFamily(absl::Mutex& mu, std::string name, std::string help, Type type,
               std::vector<std::string> label_names);
  void CheckArity(const LabelValues& labels) const;
  prometheus::Labels ToLabels(const LabelValues& values) const;
  virtual std::map<LabelValues, double> SnapshotLocked() const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;

  // The registry's: a scrape renders every family under it.
  absl::Mutex& mu_;
  const std::string name_;
  const std::string help_;
  const Type type_;
  const std::vector<std::string> label_names_;
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
  Counter(absl::Mutex& mu, prometheus::Registry& registry, std::string name, std::string help,
          std::vector<std::string> label_names);
  prometheus::Counter& SeriesLocked(const LabelValues& labels) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::map<LabelValues, double> SnapshotLocked() const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  prometheus::Family<prometheus::Counter>& family_;
  std::map<LabelValues, prometheus::Counter*> series_ ABSL_GUARDED_BY(mu_);
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
  Gauge(absl::Mutex& mu, prometheus::Registry& registry, std::string name, std::string help,
        std::vector<std::string> label_names);
  prometheus::Gauge& SeriesLocked(const LabelValues& labels) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemoveLocked(const LabelValues& labels) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::map<LabelValues, double> SnapshotLocked() const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  prometheus::Family<prometheus::Gauge>& family_;
  std::map<LabelValues, prometheus::Gauge*> series_ ABSL_GUARDED_BY(mu_);
};

// Observations counted in buckets (cumulative, with _sum and _count), e.g.
// durations. Value() of a series is its observation count.
class Histogram final : public MetricFamily {
 public:
  void Observe(const LabelValues& labels, double value);
  // The sum of the series' observations; 0 when it does not exist.
  double Sum(const LabelValues& labels = {}) const;

 private:
  friend class MetricsRegistry;
  Histogram(absl::Mutex& mu, prometheus::Registry& registry, std::string name, std::string help,
            std::vector<std::string> label_names, std::vector<double> buckets);
  std::map<LabelValues, double> SnapshotLocked() const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  prometheus::Family<prometheus::Histogram>& family_;
  const std::vector<double> buckets_;
  std::map<LabelValues, prometheus::Histogram*> series_ ABSL_GUARDED_BY(mu_);
};

class MetricsRegistry {
 public:
  MetricsRegistry();
  ~MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Declares a family. A family without labels starts with its one series
  // at 0. The name must be valid and unused, counters' names must end in
  // "_total", label names must be valid and not start with "__", and the
  // help must hold no backslash or newline (EB_CHECK).
  Counter& AddCounter(const std::string& name, const std::string& help,
                      std::vector<std::string> label_names = {});
  Gauge& AddGauge(const std::string& name, const std::string& help,
                  std::vector<std::string> label_names = {});
  // `buckets`: the upper bounds, strictly increasing (+Inf is implicit).
  Histogram& AddHistogram(const std::string& name, const std::string& help,
                          std::vector<std::string> label_names, std::vector<double> buckets);

  // Families computed at scrape time (process metrics): collected, under
  // the registry's lock, with every render. Their names must not clash
  // with the registry's families.
  void AddCollectable(std::unique_ptr<prometheus::Collectable> collectable);

  // The family named `name`, or null.
  const MetricFamily* Find(const std::string& name) const;

  // The whole registry in the text exposition format.
  std::string Render() const;

 private:
  void CheckFamily(const std::string& name, const std::string& help,
                   const std::vector<std::string>& label_names) const;
  template <typename T>
  T& Insert(std::unique_ptr<T> family) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Every family's series and the list of families: one lock, so that a
  // render is a consistent snapshot (Gauge::ReplaceAll).
  mutable absl::Mutex mu_;
  std::unique_ptr<prometheus::Registry> registry_;
  std::map<std::string, std::unique_ptr<MetricFamily>> families_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<prometheus::Collectable>> collectables_ ABSL_GUARDED_BY(mu_);
};

// Metric names: [a-zA-Z_:][a-zA-Z0-9_:]*. Label names: [a-zA-Z_][a-zA-Z0-9_]*
// (prometheus-cpp's own checks).
bool IsValidMetricName(const std::string& name);
bool IsValidLabelName(const std::string& name);

}  // namespace eb::common
