#include "common/metrics/metrics_registry.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "common/status/status_macros.h"
#include "prometheus/check_names.h"
#include "prometheus/metric_family.h"
#include "prometheus/text_serializer.h"

namespace eb::common {

bool IsValidMetricName(const std::string& name) { return prometheus::CheckMetricName(name); }

bool IsValidLabelName(const std::string& name) { return prometheus::CheckLabelName(name); }

// --- MetricFamily ---------------------------------------------------------

MetricFamily::MetricFamily(absl::Mutex& mu, std::string name, std::string help, Type type,
                           std::vector<std::string> label_names)
    : mu_(mu),
      name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)) {}

void MetricFamily::CheckArity(const LabelValues& labels) const {
  // A wrong arity is a bug at the call site, never data.
  EB_CHECK(labels.size() == label_names_.size());
}

prometheus::Labels MetricFamily::ToLabels(const LabelValues& values) const {
  prometheus::Labels labels;
  for (size_t i = 0; i < values.size(); ++i) labels.emplace(label_names_[i], values[i]);
  return labels;
}

double MetricFamily::Value(const LabelValues& labels) const {
  absl::MutexLock lock(&mu_);
  const std::map<LabelValues, double> series = SnapshotLocked();
  auto it = series.find(labels);
  return it == series.end() ? 0 : it->second;
}

bool MetricFamily::Has(const LabelValues& labels) const {
  absl::MutexLock lock(&mu_);
  return SnapshotLocked().contains(labels);
}

std::map<LabelValues, double> MetricFamily::Snapshot() const {
  absl::MutexLock lock(&mu_);
  return SnapshotLocked();
}

// --- Counter ----------------------------------------------------------------

Counter::Counter(absl::Mutex& mu, prometheus::Registry& registry, std::string name,
                 std::string help, std::vector<std::string> label_names)
    : MetricFamily(mu, std::move(name), std::move(help), Type::kCounter, std::move(label_names)),
      family_(prometheus::BuildCounter().Name(name_).Help(help_).Register(registry)) {}

prometheus::Counter& Counter::SeriesLocked(const LabelValues& labels) {
  CheckArity(labels);
  auto [it, inserted] = series_.try_emplace(labels, nullptr);
  if (inserted) it->second = &family_.Add(ToLabels(labels));
  return *it->second;
}

void Counter::Increment(const LabelValues& labels, double delta) {
  // Counters never go down; a negative delta is a bug at the call site
  // (prometheus-cpp would ignore it silently).
  EB_CHECK(delta >= 0);
  absl::MutexLock lock(&mu_);
  SeriesLocked(labels).Increment(delta);
}

void Counter::Initialize(const LabelValues& labels) {
  absl::MutexLock lock(&mu_);
  SeriesLocked(labels);
}

std::map<LabelValues, double> Counter::SnapshotLocked() const {
  std::map<LabelValues, double> out;
  for (const auto& [labels, series] : series_) out[labels] = series->Value();
  return out;
}

// --- Gauge --------------------------------------------------------------------

Gauge::Gauge(absl::Mutex& mu, prometheus::Registry& registry, std::string name, std::string help,
             std::vector<std::string> label_names)
    : MetricFamily(mu, std::move(name), std::move(help), Type::kGauge, std::move(label_names)),
      family_(prometheus::BuildGauge().Name(name_).Help(help_).Register(registry)) {}

prometheus::Gauge& Gauge::SeriesLocked(const LabelValues& labels) {
  CheckArity(labels);
  auto [it, inserted] = series_.try_emplace(labels, nullptr);
  if (inserted) it->second = &family_.Add(ToLabels(labels));
  return *it->second;
}

void Gauge::RemoveLocked(const LabelValues& labels) {
  auto it = series_.find(labels);
  if (it == series_.end()) return;
  family_.Remove(it->second);
  series_.erase(it);
}

void Gauge::Set(const LabelValues& labels, double value) {
  absl::MutexLock lock(&mu_);
  SeriesLocked(labels).Set(value);
}

void Gauge::Add(const LabelValues& labels, double delta) {
  absl::MutexLock lock(&mu_);
  SeriesLocked(labels).Increment(delta);
}

void Gauge::Remove(const LabelValues& labels) {
  CheckArity(labels);
  absl::MutexLock lock(&mu_);
  RemoveLocked(labels);
}

void Gauge::ReplaceAll(std::map<LabelValues, double> series) {
  for (const auto& [labels, value] : series) CheckArity(labels);
  absl::MutexLock lock(&mu_);
  std::vector<LabelValues> gone;
  for (const auto& [labels, unused] : series_) {
    if (!series.contains(labels)) gone.push_back(labels);
  }
  for (const LabelValues& labels : gone) RemoveLocked(labels);
  for (const auto& [labels, value] : series) SeriesLocked(labels).Set(value);
}

std::map<LabelValues, double> Gauge::SnapshotLocked() const {
  std::map<LabelValues, double> out;
  for (const auto& [labels, series] : series_) out[labels] = series->Value();
  return out;
}

// --- Histogram ------------------------------------------------------------

Histogram::Histogram(absl::Mutex& mu, prometheus::Registry& registry, std::string name,
                     std::string help, std::vector<std::string> label_names,
                     std::vector<double> buckets)
    : MetricFamily(mu, std::move(name), std::move(help), Type::kHistogram, std::move(label_names)),
      family_(prometheus::BuildHistogram().Name(name_).Help(help_).Register(registry)),
      buckets_(std::move(buckets)) {
  EB_CHECK(!buckets_.empty() && std::is_sorted(buckets_.begin(), buckets_.end()) &&
           std::adjacent_find(buckets_.begin(), buckets_.end()) == buckets_.end());
}

void Histogram::Observe(const LabelValues& labels, double value) {
  CheckArity(labels);
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = series_.try_emplace(labels, nullptr);
  if (inserted) it->second = &family_.Add(ToLabels(labels), buckets_);
  it->second->Observe(value);
}

double Histogram::Sum(const LabelValues& labels) const {
  absl::MutexLock lock(&mu_);
  auto it = series_.find(labels);
  return it == series_.end() ? 0 : it->second->Collect().histogram.sample_sum;
}

std::map<LabelValues, double> Histogram::SnapshotLocked() const {
  std::map<LabelValues, double> out;
  for (const auto& [labels, series] : series_) {
    out[labels] = static_cast<double>(series->Collect().histogram.sample_count);
  }
  return out;
}

// --- MetricsRegistry ------------------------------------------------------

MetricsRegistry::MetricsRegistry() : registry_(std::make_unique<prometheus::Registry>()) {}

MetricsRegistry::~MetricsRegistry() = default;

void MetricsRegistry::CheckFamily(const std::string& name, const std::string& help,
                                  const std::vector<std::string>& label_names) const {
  EB_CHECK(IsValidMetricName(name));
  for (const std::string& label : label_names) {
    EB_CHECK(IsValidLabelName(label) && !absl::StartsWith(label, "__"));
  }
  // prometheus-cpp 1.0.1 writes HELP text unescaped: a newline would end
  // the line early and break the scrape.
  EB_CHECK(help.find_first_of("\\\n") == std::string::npos);
}

template <typename T>
T& MetricsRegistry::Insert(std::unique_ptr<T> family) {
  T& ref = *family;
  auto [it, inserted] = families_.try_emplace(ref.name(), std::move(family));
  EB_CHECK(inserted);
  return ref;
}

Counter& MetricsRegistry::AddCounter(const std::string& name, const std::string& help,
                                     std::vector<std::string> label_names) {
  CheckFamily(name, help, label_names);
  EB_CHECK(absl::EndsWith(name, "_total"));
  absl::MutexLock lock(&mu_);
  EB_CHECK(!families_.contains(name) && "inserted");
  // `new`: the constructors are reachable only from here.
  auto family =
      std::unique_ptr<Counter>(new Counter(mu_, *registry_, name, help, std::move(label_names)));
  if (family->label_names().empty()) family->SeriesLocked({});
  return Insert(std::move(family));
}

Gauge& MetricsRegistry::AddGauge(const std::string& name, const std::string& help,
                                 std::vector<std::string> label_names) {
  CheckFamily(name, help, label_names);
  absl::MutexLock lock(&mu_);
  EB_CHECK(!families_.contains(name) && "inserted");
  auto family =
      std::unique_ptr<Gauge>(new Gauge(mu_, *registry_, name, help, std::move(label_names)));
  if (family->label_names().empty()) family->SeriesLocked({});
  return Insert(std::move(family));
}

Histogram& MetricsRegistry::AddHistogram(const std::string& name, const std::string& help,
                                         std::vector<std::string> label_names,
                                         std::vector<double> buckets) {
  CheckFamily(name, help, label_names);
  absl::MutexLock lock(&mu_);
  EB_CHECK(!families_.contains(name) && "inserted");
  return Insert(std::unique_ptr<Histogram>(
      new Histogram(mu_, *registry_, name, help, std::move(label_names), std::move(buckets))));
}

void MetricsRegistry::AddCollectable(std::unique_ptr<prometheus::Collectable> collectable) {
  absl::MutexLock lock(&mu_);
  collectables_.push_back(std::move(collectable));
}

const MetricFamily* MetricsRegistry::Find(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.get();
}

std::string MetricsRegistry::Render() const {
  std::vector<prometheus::MetricFamily> families;
  {
    absl::MutexLock lock(&mu_);
    families = registry_->Collect();
    for (const auto& collectable : collectables_) {
      std::vector<prometheus::MetricFamily> more = collectable->Collect();
      families.insert(families.end(), std::make_move_iterator(more.begin()),
                      std::make_move_iterator(more.end()));
    }
  }
  // Deterministic output: families by name, series by their labels (in
  // label-name order, as prometheus-cpp renders them). A histogram's
  // series are one metric each, so its buckets stay together.
  std::sort(families.begin(), families.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  auto key = [](const prometheus::ClientMetric& metric) {
    std::vector<std::pair<std::string, std::string>> labels;
    for (const auto& label : metric.label) labels.emplace_back(label.name, label.value);
    return labels;
  };
  for (prometheus::MetricFamily& family : families) {
    std::stable_sort(family.metric.begin(), family.metric.end(),
                     [&](const auto& a, const auto& b) { return key(a) < key(b); });
  }
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

}  // namespace eb::common
