#include "coordinator/validation/grader.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/spec/byte_size.h"
#include "common/spec/wire_names.h"

namespace eb::validation {
Grader::Grader(const std::vector<Node>& nodes, const Options& options)
    : baselines_(options.baselines),
      collective_(options.collective),
      tolerance_(options.tolerance),
      gloo_(options.gloo) {
  for (const Node& node : nodes) {
    hardware_.push_back({node.gpu_model, node.gpu_count, ActiveHcaRate(node), ActiveHcaCount(node),
                         BootstrapLinkMbps(node)});
  }
}

// The network class of a test: the weakest node's active HCAs.
std::pair<int64_t, int> Grader::PairHardware(const std::vector<int>& which) const {
  int64_t rate = 0;
  int count = 0;
  bool first = true;
  for (int i : which) {
    rate = first ? hardware_[i].hca_rate_gbps : std::min(rate, hardware_[i].hca_rate_gbps);
    count = first ? hardware_[i].hca_count : std::min(count, hardware_[i].hca_count);
    first = false;
  }
  return {rate, count};
}

int64_t Grader::GlooLinkMbps(const std::vector<int>& which) const {
  int64_t slowest = 0;
  for (int i : which) {
    const int64_t link = hardware_[i].link_mbps;
    if (link <= 0) return 0;
    slowest = slowest == 0 ? link : std::min(slowest, link);
  }
  return slowest;
}

std::optional<Expected> Grader::PairExpected(const std::vector<int>& which) const {
  if (gloo_) return ExpectedGlooPair(baselines_, GlooLinkMbps(which));
  const auto [rate, count] = PairHardware(which);
  if (count <= 0) return std::nullopt;
  return ExpectedPair(baselines_, rate, count);
}

int64_t Grader::FigureBytes(TestKind kind, const std::vector<int>& nodes) const {
  std::optional<Expected> expected;
  if (kind == TestKind::kIntra) {
    const Hardware& node = hardware_[nodes.front()];
    expected = ExpectedIntra(baselines_, node.gpu_model, node.gpu_count);
  } else {
    expected = PairExpected(nodes);
  }
  if (!expected.has_value() || expected->at.collective != collective_) return 0;
  return expected->at.size_bytes;
}

bool Grader::PairHasFigure(const std::vector<int>& nodes, int64_t graded_bytes) const {
  const std::optional<Expected> expected = PairExpected(nodes);
  return expected.has_value() && Comparable(expected->at, collective_, graded_bytes);
}

// A class is one hardware at one graded size: results at another size are
// not the same figure.
std::string Grader::KeyOf(const Observation& o) const {
  if (o.kind == TestKind::kIntra) {
    const Hardware& node = hardware_[o.nodes.front()];
    return absl::StrCat("intra|", node.gpu_model, "|", node.gpu_count, "|", o.graded_bytes);
  }
  // Pair and fleet tests are judged by the same network figure.
  if (gloo_) return absl::StrCat("gloo|", GlooLinkMbps(o.nodes), "|", o.graded_bytes);
  const auto [rate, count] = PairHardware(o.nodes);
  return absl::StrCat("net|", rate, "|", count, "|", o.graded_bytes);
}

// A baseline figure holds at its collective and size and above; anything
// else is not compared, and the class's name says why.
void Grader::KeepComparable(std::optional<Expected>& expected, int64_t graded_bytes,
                            std::string& what) const {
  if (!expected.has_value() || Comparable(expected->at, collective_, graded_bytes)) return;
  absl::StrAppend(
      &what, " at ", spec::WireName(collective_), " ",
      graded_bytes > 0 ? spec::FormatSize(graded_bytes) : std::string("an unknown size"),
      " (its baseline holds at ", FigureAtText(expected->at), ")");
  expected.reset();
}

Grader::Class& Grader::ClassOf(const Observation& o) {
  const std::string key = KeyOf(o);
  auto it = classes_.find(key);
  if (it != classes_.end()) return it->second;
  Class c;
  if (o.kind == TestKind::kIntra) {
    const Hardware& node = hardware_[o.nodes.front()];
    // A node without GPUs (Gloo) once read "no GPU x0 intra".
    c.what = node.gpu_count <= 0
                 ? std::string("CPU-only intra")
                 : absl::StrCat(node.gpu_model.empty() ? "unknown GPU" : node.gpu_model, " x",
                                node.gpu_count, " intra");
    c.expected = ExpectedIntra(baselines_, node.gpu_model, node.gpu_count);
    KeepComparable(c.expected, o.graded_bytes, c.what);
  } else if (gloo_) {
    const int64_t link = GlooLinkMbps(o.nodes);
    c.what = link > 0 ? absl::StrCat("Gloo pair over ", link, " Mb/s links")
                      : std::string("Gloo pair (link speed unknown)");
    c.expected = PairExpected(o.nodes);
    KeepComparable(c.expected, o.graded_bytes, c.what);
  } else {
    const auto [rate, count] = PairHardware(o.nodes);
    c.what = count > 0 ? absl::StrCat(count, " x ", rate, "G pair") : "pair (no active HCA)";
    if (count > 0) {
      c.expected = ExpectedPair(baselines_, rate, count);
      c.rail_expected = ExpectedRail(baselines_, rate);
      std::string rail_what = c.what;
      KeepComparable(c.expected, o.graded_bytes, c.what);
      KeepComparable(c.rail_expected, o.graded_bytes, rail_what);
    }
  }
  return classes_.emplace(key, std::move(c)).first->second;
}

void Grader::Add(const Observation& o) {
  if (!o.Completed() || o.kind == TestKind::kFleet) return;  // a fleet test is no sample
  Class& c = ClassOf(o);
  ++c.tests;
  for (int i : o.nodes) {
    double& best = c.best.emplace(i, 0.0).first->second;
    best = std::max(best, o.busbw_gbps);
    for (const RailResult& r : o.rails) {
      double& rail = c.rail_best.emplace(std::make_pair(i, r.rail), 0.0).first->second;
      rail = std::max(rail, r.busbw_gbps);
    }
  }
}

Grader::Yardsticks Grader::Measure(const Class& c) const {
  std::vector<double> best;
  best.reserve(c.best.size());
  for (const auto& [node, value] : c.best) best.push_back(value);
  std::vector<double> rail_best;
  rail_best.reserve(c.rail_best.size());
  for (const auto& [key, value] : c.rail_best) rail_best.push_back(value);
  return {MakeYardstick(c.expected, c.what, best, c.tests, tolerance_),
          MakeYardstick(c.rail_expected, absl::StrCat(c.what, " rail"), rail_best, c.tests,
                        tolerance_)};
}

void Grader::GradeAll(std::vector<Observation>& observations) {
  std::map<std::string, Yardsticks> measured;
  for (Observation& o : observations) {
    if (!o.recorded) continue;
    o.graded = true;
    if (!o.Completed()) continue;
    const std::string key = KeyOf(o);
    auto it = measured.find(key);
    if (it == measured.end()) it = measured.emplace(key, Measure(ClassOf(o))).first;
    o.yardstick = it->second.aggregate;
    o.aggregate_grade = o.cut_short ? Grade::kSlow : GradeValue(o.busbw_gbps, o.yardstick);
    o.grade = o.aggregate_grade;
    o.slow_rails.clear();
    if (o.rails.empty()) continue;
    o.rail_yardstick = it->second.rail;
    // A rail counts only when clearly slow (below (1 - 2 tol) x its base):
    // a test has 8 rails, so 8 times the chances that noise alone pushes
    // one of them under the borderline threshold.
    for (const RailResult& r : o.rails) {
      if (GradeValue(r.busbw_gbps, *o.rail_yardstick) != Grade::kSlow) continue;
      o.slow_rails.push_back(r.rail);
      if (o.grade == Grade::kFine) o.grade = Grade::kBorderline;
    }
    std::sort(o.slow_rails.begin(), o.slow_rails.end());
  }
}

}  // namespace eb::validation
