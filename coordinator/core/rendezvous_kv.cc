#include "coordinator/core/rendezvous_kv.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/spec/identifiers.h"
#include "common/spec/limits.h"
#include "common/status/status_macros.h"

namespace eb::coordinator {

RendezvousKv::RendezvousKv(common::Executor& executor) : executor_(executor) {}

RendezvousKv::~RendezvousKv() {
  for (auto& [test_id, ns] : namespaces_) {
    for (auto& [id, waiter] : ns.waiters) executor_.Cancel(waiter.timer);
  }
}

void RendezvousKv::Open(const std::string& test_id) { namespaces_[test_id]; }

void RendezvousKv::Close(const std::string& test_id, const std::string& reason) {
  auto it = namespaces_.find(test_id);
  if (it == namespaces_.end()) return;
  std::map<uint64_t, Waiter> waiters = std::move(it->second.waiters);
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
  ns.values[key] = std::move(value);
  WakeReady(it->second);
  return absl::OkStatus();
}

void RendezvousKv::Wait(const std::string& test_id, std::vector<std::string> keys,
                        absl::Duration timeout, WaitCallback done) {
  if (keys.empty() || keys.size() > static_cast<size_t>(spec::kMaxRendezvousWaitKeys)) {
    done(absl::InvalidArgumentError(absl::StrCat("keys: ", keys.size(), " keys, 1 to ",
                                                 spec::kMaxRendezvousWaitKeys, " allowed")));
    return;
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
  if (it->second.waiters.size() >= static_cast<size_t>(kMaxWaitersPerTest)) {
    done(absl::ResourceExhaustedError(
        absl::StrCat("test ", test_id, " already has ", it->second.waiters.size(),
                     " pending rendezvous waits, at most ", kMaxWaitersPerTest)));
    return;
  }
  const uint64_t id = next_waiter_id_++;
  Waiter waiter{id, std::move(keys), std::move(done), 0};
  waiter.timer = executor_.PostAfter(timeout, [this, test_id, id] { ExpireWaiter(test_id, id); });
  it->second.waiters.emplace(id, std::move(waiter));
  WakeReady(it->second);
}

size_t RendezvousKv::pending_waiters() const {
  size_t count = 0;
  for (const auto& [test_id, ns] : namespaces_) count += ns.waiters.size();
  return count;
}

void RendezvousKv::WakeReady(Namespace& ns) {
  std::vector<Waiter> ready;
  for (auto it = ns.waiters.begin(); it != ns.waiters.end();) {
    bool all_present = true;
    for (const std::string& key : it->second.keys) {
      if (!ns.values.contains(key)) {
        all_present = false;
        break;
      }
    }
    if (all_present) {
      ready.push_back(std::move(it->second));
      it = ns.waiters.erase(it);
    } else {
      ++it;
    }
  }
  for (Waiter& waiter : ready) {
    executor_.Cancel(waiter.timer);
    std::vector<std::string> values;
    values.reserve(waiter.keys.size());
    for (const std::string& key : waiter.keys) values.push_back(ns.values.at(key));
    waiter.done(std::move(values));
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
    if (!ns_it->second.values.contains(key)) missing.push_back(key);
  }
  waiter.done(absl::DeadlineExceededError(
      absl::StrCat("rendezvous of test ", test_id,
                   " timed out waiting for keys: ", absl::StrJoin(missing, ", "))));
}

}  // namespace eb::coordinator
