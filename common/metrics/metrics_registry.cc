#include "common/metrics/metrics_registry.h"

#include <charconv>
#include <cmath>
#include <cstdint>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace eb::common {

namespace {

bool IsNameChar(char c, bool first, bool allow_colon) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return true;
  if (allow_colon && c == ':') return true;
  return !first && c >= '0' && c <= '9';
}

bool IsValidName(const std::string& name, bool allow_colon) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!IsNameChar(name[i], i == 0, allow_colon)) return false;
  }
  return true;
}

const char* TypeName(MetricFamily::Type type) {
  return type == MetricFamily::Type::kCounter ? "counter" : "gauge";
}

}  // namespace

bool IsValidMetricName(const std::string& name) { return IsValidName(name, true); }

bool IsValidLabelName(const std::string& name) { return IsValidName(name, false); }

std::string EscapeLabelValue(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string EscapeHelp(const std::string& help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string FormatMetricValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Integral values print without exponent up to 2^53, where doubles stop
  // being exact integers (counters and node counts read naturally).
  constexpr double kExactIntegers = 9007199254740992.0;
  if (std::fabs(value) < kExactIntegers && value == std::trunc(value)) {
    return absl::StrCat(static_cast<int64_t>(value));
  }
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

MetricFamily::MetricFamily(std::string name, std::string help, Type type,
                           std::vector<std::string> label_names)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)) {
  if (label_names_.empty()) series_[{}] = 0;
}

void MetricFamily::CheckArity(const LabelValues& labels) const {
  // A wrong arity is a bug at the call site, never data.
  EB_CHECK(labels.size() == label_names_.size());
}

double MetricFamily::Value(const LabelValues& labels) const {
  absl::MutexLock lock(&mu_);
  auto it = series_.find(labels);
  return it == series_.end() ? 0 : it->second;
}

bool MetricFamily::Has(const LabelValues& labels) const {
  absl::MutexLock lock(&mu_);
  return series_.contains(labels);
}

std::map<LabelValues, double> MetricFamily::Snapshot() const {
  absl::MutexLock lock(&mu_);
  return series_;
}

void MetricFamily::RenderTo(std::string* out) const {
  absl::StrAppend(out, "# HELP ", name_, " ", EscapeHelp(help_), "\n");
  absl::StrAppend(out, "# TYPE ", name_, " ", TypeName(type_), "\n");
  absl::MutexLock lock(&mu_);
  for (const auto& [labels, value] : series_) {
    absl::StrAppend(out, name_);
    if (!labels.empty()) {
      out->push_back('{');
      for (size_t i = 0; i < labels.size(); ++i) {
        if (i > 0) out->push_back(',');
        absl::StrAppend(out, label_names_[i], "=\"", EscapeLabelValue(labels[i]), "\"");
      }
      out->push_back('}');
    }
    absl::StrAppend(out, " ", FormatMetricValue(value), "\n");
  }
}

void Counter::Increment(const LabelValues& labels, double delta) {
  CheckArity(labels);
  // Counters never go down; a negative delta is a bug at the call site.
  EB_CHECK(delta >= 0);
  absl::MutexLock lock(&mu_);
  series_[labels] += delta;
}

void Counter::Initialize(const LabelValues& labels) {
  CheckArity(labels);
  absl::MutexLock lock(&mu_);
  series_.try_emplace(labels, 0);
}

void Gauge::Set(const LabelValues& labels, double value) {
  CheckArity(labels);
  absl::MutexLock lock(&mu_);
  series_[labels] = value;
}

void Gauge::Add(const LabelValues& labels, double delta) {
  CheckArity(labels);
  absl::MutexLock lock(&mu_);
  series_[labels] += delta;
}

void Gauge::Remove(const LabelValues& labels) {
  CheckArity(labels);
  absl::MutexLock lock(&mu_);
  series_.erase(labels);
}

void Gauge::ReplaceAll(std::map<LabelValues, double> series) {
  for (const auto& [labels, value] : series) CheckArity(labels);
  absl::MutexLock lock(&mu_);
  series_ = std::move(series);
}

template <typename T>
T& MetricsRegistry::Add(const std::string& name, const std::string& help, MetricFamily::Type type,
                        std::vector<std::string> label_names) {
  EB_CHECK(IsValidMetricName(name));
  EB_CHECK(type != MetricFamily::Type::kCounter || absl::EndsWith(name, "_total"));
  for (const std::string& label : label_names) {
    EB_CHECK(IsValidLabelName(label) && !absl::StartsWith(label, "__"));
  }
  // `new`: the constructors are reachable only from here.
  T* family = new T(name, help, type, std::move(label_names));
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = families_.try_emplace(name, family);
  EB_CHECK(inserted);
  return *family;
}

Counter& MetricsRegistry::AddCounter(const std::string& name, const std::string& help,
                                     std::vector<std::string> label_names) {
  return Add<Counter>(name, help, MetricFamily::Type::kCounter, std::move(label_names));
}

Gauge& MetricsRegistry::AddGauge(const std::string& name, const std::string& help,
                                 std::vector<std::string> label_names) {
  return Add<Gauge>(name, help, MetricFamily::Type::kGauge, std::move(label_names));
}

const MetricFamily* MetricsRegistry::Find(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.get();
}

std::string MetricsRegistry::Render() const {
  std::string out;
  absl::MutexLock lock(&mu_);
  for (const auto& [name, family] : families_) family->RenderTo(&out);
  return out;
}

}  // namespace eb::common
