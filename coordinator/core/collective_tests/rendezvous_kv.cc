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

int RendezvousKv::WaitKeysFor(int ranks) {
  return std::min(spec::kMaxRendezvousWaitKeys, 2 * std::max(ranks, 1) + 64);
}

int RendezvousKv::WaitersFor(int ranks) {
  return std::min(kMaxWaitersPerTest, 4 * std::max(ranks, 1) + 64);
}

void RendezvousKv::Open(const std::string& test_id, int ranks) {
  Namespace& ns = namespaces_[test_id];
  ns.max_wait_keys = WaitKeysFor(ranks);
  ns.max_waiters = WaitersFor(ranks);
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

absl::Status RendezvousKv::Set(const std::string& test_id, const std::string& key,
                               std::string value) {
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
  auto existing = ns.values.find(key);
  const int64_t replaced =
      existing == ns.values.end() ? 0 : static_cast<int64_t>(existing->second.size());
  if (existing == ns.values.end() &&
      ns.values.size() >= static_cast<size_t>(spec::kMaxRendezvousKeysPerTest)) {
    return absl::ResourceExhaustedError(absl::StrCat("key: test ", test_id, " already holds ",
                                                     ns.values.size(), " keys, at most ",
                                                     spec::kMaxRendezvousKeysPerTest));
  }
  // Keys and values count; a replaced value's key is already counted.
  const int64_t total = ns.bytes - replaced + static_cast<int64_t>(value.size()) +
                        (existing == ns.values.end() ? static_cast<int64_t>(key.size()) : 0);
  if (total > spec::kMaxRendezvousBytesPerTest) {
    return absl::ResourceExhaustedError(absl::StrCat("value: test ", test_id, " would hold ", total,
                                                     " bytes of rendezvous data, at most ",
                                                     spec::kMaxRendezvousBytesPerTest));
  }
  ns.bytes = total;
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
                        absl::Duration timeout, WaitCallback done, std::optional<Slice> slice) {
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
  if (keys.size() > static_cast<size_t>(it->second.max_wait_keys)) {
    done(absl::InvalidArgumentError(
        absl::StrCat("keys: ", keys.size(), " keys; a wait of test ", test_id, " asks at most ",
                     it->second.max_wait_keys, " (twice its ranks, and 64)")));
    return;
  }
  if (it->second.waiters.size() >= static_cast<size_t>(it->second.max_waiters)) {
    done(absl::ResourceExhaustedError(
        absl::StrCat("test ", test_id, " already has ", it->second.waiters.size(),
                     " pending rendezvous waits, at most ", it->second.max_waiters,
                     " (four per rank, and 64)")));
    return;
  }
  Namespace& ns = it->second;
  ++ns.calls.waits;
  const uint64_t id = next_waiter_id_++;
  Waiter waiter{id, std::move(keys), std::move(done), slice, 0, 0};
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
