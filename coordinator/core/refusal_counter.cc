#include "coordinator/core/refusal_counter.h"

namespace eb::coordinator {

bool RefusalCounter::Count(const std::string& key) {
  ++total_;
  auto it = counts_.find(key);
  if (it == counts_.end()) {
    static const std::string kOther = "(other)";
    it = counts_.size() < kMaxKeys ? counts_.emplace(key, 0).first
                                   : counts_.emplace(kOther, 0).first;
  }
  const uint64_t n = ++it->second;
  return (n & (n - 1)) == 0;
}

}  // namespace eb::coordinator
