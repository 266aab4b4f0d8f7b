#include "coordinator/core/collective_tests/rendezvous_kv.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/spec/identifiers.h"
#include "common/spec/limits.h"
#include "common/spec/rendezvous_wait_reply.h"
#include "common/status/status_macros.h"
#include "common/transport/value_slice.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {

RendezvousKv::RendezvousKv(common::Executor& executor) : executor_(executor) {}

RendezvousKv::~RendezvousKv() {
  for (auto& [test_id, ns] : namespaces_) {
    for (auto& [id, waiter] : ns.waiters) executor_.Cancel(waiter.timer);
  }
}

void RendezvousKv::Open(const std::string& test_id, int ranks,
                        const std::map<std::string, int>& ranks_per_node) {
  Namespace& ns = namespaces_[test_id];
  ns.ranks = std::max(ranks, 1);
  ns.bounds = spec::RendezvousBoundsFor(ns.ranks);
  if (ranks_per_node.empty()) return;
  // With the nodes known, the test holds the sum of their shares, so that
  // the test's bound never binds before a node's own: a node that takes its
  // whole share (margin included) leaves the others theirs.
  int64_t keys = 0, bytes = 0, waiters = 0;
  for (const auto& [node, own] : ranks_per_node) {
    const spec::RendezvousBounds share = spec::RendezvousBoundsFor(ns.ranks, own);
    ns.nodes[node].bounds = share;
    keys += share.keys;
    bytes += share.bytes;
    waiters += share.waiters;
  }
  ns.bounds.keys = static_cast<int>(std::min<int64_t>(spec::kMaxRendezvousKeysPerTest, keys));
  ns.bounds.bytes = std::min(spec::kMaxRendezvousBytesPerTest, bytes);
  ns.bounds.waiters =
      static_cast<int>(std::min<int64_t>(spec::kMaxRendezvousWaitersPerTest, waiters));
}

RendezvousKv::NodeUsage* RendezvousKv::UsageOf(Namespace& ns, const std::string& node) {
  if (node.empty()) return nullptr;
  auto [it, made] = ns.nodes.try_emplace(node);
  if (made) it->second.bounds = spec::RendezvousBoundsFor(ns.ranks, 1);
  return &it->second;
}

void RendezvousKv::ReleaseWait(Namespace& ns, const std::string& node) {
  if (node.empty()) return;
  auto it = ns.nodes.find(node);
  if (it != ns.nodes.end() && it->second.waiters > 0) --it->second.waiters;
}

bool RendezvousKv::NodeOverQuota(const std::string& test_id, const std::string& node) const {
  auto it = namespaces_.find(test_id);
  if (it == namespaces_.end()) return false;
  auto usage = it->second.nodes.find(node);
  return usage != it->second.nodes.end() && usage->second.over_quota;
}

absl::Status RendezvousKv::OverQuota(NodeUsage& usage, absl::Status refused) {
  usage.over_quota = true;
  return refused;
}

void RendezvousKv::Close(const std::string& test_id, const std::string& reason) {
  auto it = namespaces_.find(test_id);
  if (it == namespaces_.end()) return;
  std::map<uint64_t, Waiter> waiters = std::move(it->second.waiters);
  spdlog::info("test={} rendezvous: {} waits and {} sets from the agents", test_id,
               it->second.calls.waits, it->second.calls.sets);
  namespaces_.erase(it);
  for (auto& [id, waiter] : waiters) {
    executor_.Cancel(waiter.timer);
    waiter.done(absl::AbortedError(absl::StrCat("test ", test_id, " ended: ", reason)));
  }
}

int64_t RendezvousKv::Growth(const Namespace& ns, const std::string& key,
                             const std::string& value) {
  // Keys and values count; a replaced value's key is already counted.
  auto existing = ns.values.find(key);
  if (existing == ns.values.end()) return static_cast<int64_t>(key.size() + value.size());
  return static_cast<int64_t>(value.size()) - static_cast<int64_t>(existing->second.size());
}

absl::Status RendezvousKv::CheckSet(const std::string& test_id, Namespace& ns, NodeUsage* usage,
                                    const std::string& key, const std::string& value,
                                    const std::string& node) {
  if (usage != nullptr && usage->over_quota) {
    return absl::ResourceExhaustedError(absl::StrCat("node ", spec::Quote(node),
                                                     " went over its rendezvous quota in test ",
                                                     test_id, ": refused until the test ends"));
  }
  if (value.size() > static_cast<size_t>(ns.bounds.value_bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "value: ", value.size(), " bytes; a value of test ", test_id, " holds at most ",
        ns.bounds.value_bytes, " (", spec::kRendezvousValueBytesPerRank, " bytes for each of its ",
        ns.ranks, " ranks, at least ", spec::kRendezvousSmallValueBytes, ")"));
  }
  auto existing = ns.values.find(key);
  const bool added = existing == ns.values.end();
  if (!added && usage != nullptr) {
    auto owner = ns.owners.find(key);
    if (owner != ns.owners.end() && owner->second != node) {
      return absl::PermissionDeniedError(absl::StrCat(
          "key: ", spec::Quote(key), " of test ", test_id, " was set by node ",
          spec::Quote(owner->second), "; node ", spec::Quote(node), " may not replace it"));
    }
  }
  const int64_t grows = Growth(ns, key, value);
  // A node's bytes follow from its keys: each at most the longest key and
  // the test's value bound (spec::RendezvousBounds::bytes).
  if (usage != nullptr && added && usage->keys >= usage->bounds.keys) {
    return OverQuota(*usage, absl::ResourceExhaustedError(absl::StrCat(
                                 "key: node ", spec::Quote(node), " already holds ", usage->keys,
                                 " keys of test ", test_id, ", at most ", usage->bounds.keys,
                                 " (twice its ranks, and ", spec::kRendezvousKeyMargin, ")")));
  }
  if (added && ns.values.size() >= static_cast<size_t>(ns.bounds.keys)) {
    return absl::ResourceExhaustedError(absl::StrCat("key: test ", test_id, " already holds ",
                                                     ns.values.size(), " keys, at most ",
                                                     ns.bounds.keys));
  }
  if (ns.bytes + grows > ns.bounds.bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("value: test ", test_id, " would hold ", ns.bytes + grows,
                     " bytes of rendezvous data, at most ", ns.bounds.bytes));
  }
  return absl::OkStatus();
}

absl::Status RendezvousKv::Set(const std::string& test_id, const std::string& key,
                               std::string value, const std::string& node) {
  if (key.empty()) return absl::InvalidArgumentError("key: must not be empty");
  EB_RETURN_IF_ERROR(spec::CheckRendezvousKey(key, "key"));
  if (value.size() > static_cast<size_t>(spec::kMaxRendezvousValueBytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("value: ", value.size(), " bytes, at most ", spec::kMaxRendezvousValueBytes));
  }
  auto it = namespaces_.find(test_id);
  if (it == namespaces_.end()) {
    return absl::NotFoundError(absl::StrCat("test ", spec::Quote(test_id), " is not running"));
  }
  Namespace& ns = it->second;
  NodeUsage* usage = UsageOf(ns, node);
  EB_RETURN_IF_ERROR(CheckSet(test_id, ns, usage, key, value, node));
  const bool added = !ns.values.contains(key);
  ns.bytes += Growth(ns, key, value);
  if (usage != nullptr) {
    usage->keys += added ? 1 : 0;
    if (added) ns.owners.emplace(key, node);
  }
  ++ns.calls.sets;
  ns.values[key] = std::move(value);
  // A replaced value had nobody waiting for it; a new key completes the
  // waiters whose last missing key it was.
  auto waiting = ns.waiting_on.find(key);
  if (waiting == ns.waiting_on.end()) return absl::OkStatus();
  std::vector<uint64_t> ready;
  for (const uint64_t id : waiting->second) {
    auto waiter = ns.waiters.find(id);
    if (waiter != ns.waiters.end() && --waiter->second.missing == 0) ready.push_back(id);
  }
  ns.waiting_on.erase(waiting);
  Complete(ns, std::move(ready));
  return absl::OkStatus();
}

namespace {

// The keys a timed-out wait still missed, for its error: the first few and
// how many (a wait may ask 32,768 keys; the error is a status message,
// spec::kMaxStatusMessageBytes at most).
std::string MissingKeysText(const std::vector<std::string>& missing) {
  constexpr size_t kNamed = 8;
  std::vector<std::string> named;
  constexpr size_t kKeyChars = spec::kMaxQuotedInput;
  for (size_t i = 0; i < missing.size() && i < kNamed; ++i) {
    named.push_back(missing[i].size() <= kKeyChars ? missing[i]
                                                   : missing[i].substr(0, kKeyChars) + "...");
  }
  std::string text = absl::StrCat(
      missing.size(), missing.size() == 1 ? " key: " : " keys: ", absl::StrJoin(named, ", "));
  if (missing.size() > kNamed) absl::StrAppend(&text, " and ", missing.size() - kNamed, " more");
  return text;
}

absl::Status CheckSlice(const RendezvousKv::Slice& slice, size_t keys) {
  if (slice.offset < 0 || slice.offset >= spec::kMaxRendezvousValueBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "slice.offset: ", slice.offset, ", must be 0 to ", spec::kMaxRendezvousValueBytes - 1));
  }
  if (slice.length < 1 || slice.length > spec::kMaxRendezvousSliceBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "slice.length: ", slice.length, ", must be 1 to ", spec::kMaxRendezvousSliceBytes));
  }
  if (static_cast<int64_t>(keys) * slice.length > spec::kMaxRendezvousReplyBytes) {
    return absl::InvalidArgumentError(absl::StrCat("slice.length: ", keys, " keys x ", slice.length,
                                                   " bytes exceed a reply's ",
                                                   spec::kMaxRendezvousReplyBytes, " bytes"));
  }
  return absl::OkStatus();
}

// The values of `keys` (all present), each cut to `slice` when set, in the
// form the wait asked for (common/spec/rendezvous_wait_reply.h).
absl::StatusOr<std::vector<std::string>> ReadValues(
    const std::map<std::string, std::string>& values, const std::vector<std::string>& keys,
    const std::optional<RendezvousKv::Slice>& slice) {
  spec::WaitReplyWriter reply(slice && slice->concatenated, keys.size(),
                              slice ? static_cast<size_t>(slice->length) : 0);
  for (const std::string& key : keys) {
    const std::string& value = values.at(key);
    if (!slice) {
      reply.Add(value);
      continue;
    }
    EB_ASSIGN_OR_RETURN(
        const absl::string_view cut,
        transport::CutSlice(key, value, transport::ValueSlice{slice->offset, slice->length}));
    reply.Add(cut);
  }
  return std::move(reply).Take();
}

}  // namespace

void RendezvousKv::Wait(const std::string& test_id, std::vector<std::string> keys,
                        absl::Duration timeout, WaitCallback done, std::optional<Slice> slice,
                        const std::string& node) {
  if (keys.empty() || keys.size() > static_cast<size_t>(spec::kMaxRendezvousWaitKeys)) {
    done(absl::InvalidArgumentError(absl::StrCat("keys: ", keys.size(), " keys, 1 to ",
                                                 spec::kMaxRendezvousWaitKeys, " allowed")));
    return;
  }
  if (slice) {
    if (absl::Status checked = CheckSlice(*slice, keys.size()); !checked.ok()) {
      done(checked);
      return;
    }
  }
  for (const std::string& key : keys) {
    if (absl::Status checked = spec::CheckRendezvousKey(key, "keys"); !checked.ok()) {
      done(checked);
      return;
    }
  }
  auto it = namespaces_.find(test_id);
  if (it == namespaces_.end()) {
    done(absl::NotFoundError(absl::StrCat("test ", spec::Quote(test_id), " is not running")));
    return;
  }
  Namespace& ns = it->second;
  if (keys.size() > static_cast<size_t>(ns.bounds.wait_keys)) {
    done(absl::InvalidArgumentError(absl::StrCat(
        "keys: ", keys.size(), " keys; a wait of test ", test_id, " asks at most ",
        ns.bounds.wait_keys, " (twice its ranks, and ", spec::kRendezvousKeyMargin, ")")));
    return;
  }
  NodeUsage* usage = UsageOf(ns, node);
  if (usage != nullptr && usage->over_quota) {
    done(absl::ResourceExhaustedError(absl::StrCat("node ", spec::Quote(node),
                                                   " went over its rendezvous quota in test ",
                                                   test_id, ": refused until the test ends")));
    return;
  }
  if (usage != nullptr && usage->waiters >= usage->bounds.waiters) {
    done(OverQuota(*usage, absl::ResourceExhaustedError(absl::StrCat(
                               "node ", spec::Quote(node), " already has ", usage->waiters,
                               " pending rendezvous waits in test ", test_id, ", at most ",
                               usage->bounds.waiters, " (four per rank, and ",
                               spec::kRendezvousKeyMargin, ")"))));
    return;
  }
  if (ns.waiters.size() >= static_cast<size_t>(ns.bounds.waiters)) {
    done(absl::ResourceExhaustedError(absl::StrCat(
        "test ", test_id, " already has ", ns.waiters.size(), " pending rendezvous waits, at most ",
        ns.bounds.waiters, " (four per rank, and ", spec::kRendezvousKeyMargin, ")")));
    return;
  }
  ++ns.calls.waits;
  const uint64_t id = next_waiter_id_++;
  Waiter waiter{id, std::move(keys), std::move(done), slice, 0, 0, node};
  if (usage != nullptr) ++usage->waiters;
  // Each distinct absent key once (keys may repeat): a hash set, not a
  // pairwise comparison (P2-4f2: 32,768 absent keys cost ~1.4 s of the one
  // event-loop thread that way).
  std::vector<const std::string*> absent;
  absl::flat_hash_set<absl::string_view> seen;
  for (const std::string& key : waiter.keys) {
    if (ns.values.contains(key)) continue;
    if (seen.insert(key).second) absent.push_back(&key);
  }
  if (absent.empty()) {
    ns.waiters.emplace(id, std::move(waiter));
    Complete(ns, {id});
    return;
  }
  waiter.missing = static_cast<int>(absent.size());
  for (const std::string* key : absent) ns.waiting_on[*key].push_back(id);
  waiter.timer = executor_.PostAfter(timeout, [this, test_id, id] { ExpireWaiter(test_id, id); });
  ns.waiters.emplace(id, std::move(waiter));
}

std::optional<RendezvousKv::Calls> RendezvousKv::calls(const std::string& test_id) const {
  auto it = namespaces_.find(test_id);
  if (it == namespaces_.end()) return std::nullopt;
  return it->second.calls;
}

size_t RendezvousKv::pending_waiters() const {
  size_t count = 0;
  for (const auto& [test_id, ns] : namespaces_) count += ns.waiters.size();
  return count;
}

void RendezvousKv::Complete(Namespace& ns, std::vector<uint64_t> ids) {
  std::sort(ids.begin(), ids.end());
  std::vector<Waiter> ready;
  ready.reserve(ids.size());
  for (const uint64_t id : ids) {
    auto it = ns.waiters.find(id);
    ready.push_back(std::move(it->second));
    ns.waiters.erase(it);
    ReleaseWait(ns, ready.back().node);
  }
  // The values are read before any callback runs: a callback may set or
  // close (it runs on the executor).
  std::vector<absl::StatusOr<std::vector<std::string>>> replies;
  replies.reserve(ready.size());
  for (const Waiter& waiter : ready) {
    replies.push_back(ReadValues(ns.values, waiter.keys, waiter.slice));
  }
  for (size_t i = 0; i < ready.size(); ++i) {
    executor_.Cancel(ready[i].timer);
    ready[i].done(std::move(replies[i]));
  }
}

void RendezvousKv::ExpireWaiter(const std::string& test_id, uint64_t waiter_id) {
  auto ns_it = namespaces_.find(test_id);
  if (ns_it == namespaces_.end()) return;
  auto it = ns_it->second.waiters.find(waiter_id);
  if (it == ns_it->second.waiters.end()) return;
  Waiter waiter = std::move(it->second);
  ns_it->second.waiters.erase(it);
  ReleaseWait(ns_it->second, waiter.node);
  std::vector<std::string> missing;
  for (const std::string& key : waiter.keys) {
    if (ns_it->second.values.contains(key)) continue;
    missing.push_back(key);
    // Forget the waiter in its keys' lists (repeated keys: the first time).
    auto waiting = ns_it->second.waiting_on.find(key);
    if (waiting == ns_it->second.waiting_on.end()) continue;
    std::vector<uint64_t>& ids = waiting->second;
    ids.erase(std::remove(ids.begin(), ids.end(), waiter_id), ids.end());
    if (ids.empty()) ns_it->second.waiting_on.erase(waiting);
  }
  waiter.done(absl::DeadlineExceededError(absl::StrCat(
      "rendezvous of test ", test_id, " timed out waiting for ", MissingKeysText(missing))));
}

}  // namespace eb::coordinator
