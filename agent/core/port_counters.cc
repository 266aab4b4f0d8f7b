#include "agent/core/port_counters.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/spec/host_counters.h"
#include "common/spec/numbers.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

namespace {

// In the order a report lists them: errors first (common/spec/
// host_counters.h, shared with the coordinator).
const std::vector<std::string>& ErrorCounters() {
  static const std::vector<std::string> kNames(std::begin(spec::kPortErrorCounters),
                                               std::end(spec::kPortErrorCounters));
  return kNames;
}

const std::vector<std::string>& OtherCounters() {
  static const std::vector<std::string> kNames(std::begin(spec::kPortOtherCounters),
                                               std::end(spec::kPortOtherCounters));
  return kNames;
}

// Refusals kept per port: one per counter read at each instant at most.
constexpr int kMaxRefusedCounters = 64;

bool SameLink(const v1::PortLinkState& a, const v1::PortLinkState& b) {
  return a.state() == b.state() && a.phys_state() == b.phys_state() &&
         a.rate_gbps() == b.rate_gbps() && a.link_layer() == b.link_layer();
}

}  // namespace

absl::StatusOr<uint64_t> ParseCounterValue(absl::string_view text, absl::string_view file) {
  absl::StatusOr<int64_t> value =
      spec::ParseCount(text, file, 0, std::numeric_limits<int64_t>::max());
  if (!value.ok()) return value.status();
  return static_cast<uint64_t>(*value);
}

const std::vector<std::string>& PortCounterNames() {
  static const std::vector<std::string> kAll = [] {
    std::vector<std::string> all = ErrorCounters();
    all.insert(all.end(), OtherCounters().begin(), OtherCounters().end());
    return all;
  }();
  return kAll;
}

bool IsErrorCounter(const std::string& name) {
  const std::vector<std::string>& errors = ErrorCounters();
  return std::find(errors.begin(), errors.end(), name) != errors.end();
}

std::vector<v1::PortEvidence> DiffPorts(const std::string& node,
                                        const std::vector<PortSnapshot>& before,
                                        const std::vector<PortSnapshot>& after) {
  std::vector<v1::PortEvidence> result;
  for (const PortSnapshot& end : after) {
    v1::PortEvidence& evidence = result.emplace_back();
    evidence.set_node_name(node);
    evidence.set_hca(end.hca);
    evidence.set_port(end.port);
    const PortSnapshot* start = nullptr;
    for (const PortSnapshot& candidate : before) {
      if (candidate.hca == end.hca && candidate.port == end.port) start = &candidate;
    }
    if (!end.error.empty() || start == nullptr || !start->error.empty()) {
      evidence.set_error(!end.error.empty() ? end.error
                         : start == nullptr
                             ? "not read when the test started"
                             : absl::StrCat("when the test started: ", start->error));
      if (end.error.empty()) *evidence.mutable_end() = end.link;
      continue;
    }
    for (const PortSnapshot* reading : {start, &end}) {
      for (const std::string& refused : reading->refused) {
        if (evidence.refused_counters_size() < kMaxRefusedCounters) {
          *evidence.add_refused_counters() = refused;
        }
      }
    }
    *evidence.mutable_start() = start->link;
    *evidence.mutable_end() = end.link;
    bool downed = false;
    for (const std::string& name : PortCounterNames()) {
      const auto b = start->counters.find(name);
      const auto a = end.counters.find(name);
      if (a == end.counters.end() || b == start->counters.end()) continue;
      v1::PortCounter& counter = *evidence.add_counters();
      counter.set_name(name);
      counter.set_before(b->second);
      counter.set_after(a->second);
      counter.set_reset(a->second < b->second);
      counter.set_delta(counter.reset() ? 0 : a->second - b->second);
      counter.set_error_counter(IsErrorCounter(name));
      if (counter.error_counter() && counter.delta() > 0) {
        evidence.add_grown_errors(absl::StrCat(name, " +", counter.delta()));
        if (name == "link_downed") downed = true;
      }
    }
    // A link that went down and came back before the end reads the same
    // state at both ends; its link_downed counter tells.
    evidence.set_link_flapped(downed || !SameLink(start->link, end.link));
  }
  return result;
}

}  // namespace eb::agent
