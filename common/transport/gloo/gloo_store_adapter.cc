#include "common/transport/gloo/gloo_store_adapter.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gloo/common/error.h"

namespace eb::transport {

GlooStoreAdapter::GlooStoreAdapter(RendezvousStore& store, std::string key_prefix,
                                   absl::Duration default_timeout, absl::Time deadline)
    : store_(store),
      key_prefix_(std::move(key_prefix)),
      default_timeout_(default_timeout),
      deadline_(deadline) {}

void GlooStoreAdapter::set(const std::string& key, const std::vector<char>& data) {
  absl::Status status = store_.Set(key_prefix_ + key, std::string(data.begin(), data.end()));
  if (!status.ok()) Throw(status);
}

std::vector<char> GlooStoreAdapter::get(const std::string& key) {
  absl::StatusOr<std::vector<std::string>> values =
      store_.Wait({key_prefix_ + key}, Budget(default_timeout_));
  if (!values.ok()) Throw(values.status());
  if (values->size() != 1) {
    Throw(absl::InternalError(
        absl::StrCat("rendezvous store returned ", values->size(), " values for 1 key")));
  }
  const std::string& value = values->front();
  return std::vector<char>(value.begin(), value.end());
}

void GlooStoreAdapter::wait(const std::vector<std::string>& keys) {
  absl::StatusOr<std::vector<std::string>> values =
      store_.Wait(Prefixed(keys), Budget(default_timeout_));
  if (!values.ok()) Throw(values.status());
}

void GlooStoreAdapter::wait(const std::vector<std::string>& keys,
                            const std::chrono::milliseconds& timeout) {
  absl::StatusOr<std::vector<std::string>> values =
      store_.Wait(Prefixed(keys), Budget(absl::FromChrono(timeout)));
  if (!values.ok()) Throw(values.status());
}

absl::Status GlooStoreAdapter::first_error() const {
  absl::MutexLock lock(&mu_);
  return first_error_;
}

absl::Duration GlooStoreAdapter::Budget(absl::Duration timeout) const {
  const absl::Duration left = deadline_ - absl::Now();
  const absl::Duration budget = timeout < left ? timeout : left;
  return budget < absl::ZeroDuration() ? absl::ZeroDuration() : budget;
}

std::vector<std::string> GlooStoreAdapter::Prefixed(const std::vector<std::string>& keys) const {
  std::vector<std::string> prefixed;
  prefixed.reserve(keys.size());
  for (const std::string& key : keys) prefixed.push_back(key_prefix_ + key);
  return prefixed;
}

void GlooStoreAdapter::Throw(const absl::Status& status) {
  {
    absl::MutexLock lock(&mu_);
    if (first_error_.ok()) first_error_ = status;
  }
  throw gloo::IoException(absl::StrCat("rendezvous store: ", status.ToString()));
}

}  // namespace eb::transport
