#include "coordinator/core/budget/token_bucket.h"

#include <algorithm>

namespace eb::coordinator {

TokenBucket::TokenBucket(double rate, double burst, absl::Time now)
    : rate_(rate), burst_(burst), tokens_(burst), last_(now) {}

bool TokenBucket::Take(double cost, absl::Time now) {
  if (now > last_) {
    tokens_ = std::min(burst_, tokens_ + rate_ * absl::ToDoubleSeconds(now - last_));
    last_ = now;
  }
  if (tokens_ < cost) return false;
  tokens_ -= cost;
  return true;
}

}  // namespace eb::coordinator
