#include "bidder/bid/internal/deadline.h"

#include <algorithm>

namespace rtb::bidder {

BidDeadline ComputeBidDeadline(std::chrono::steady_clock::time_point arrival,
                               std::optional<int32_t> request_tmax_ms,
                               const DeadlinePolicy& policy) {
  int32_t tmax_ms = policy.default_tmax_ms;
  if (request_tmax_ms.has_value() && *request_tmax_ms > 0) {
    tmax_ms = std::min(*request_tmax_ms, kMaxTmaxMs);
  }
  BidDeadline deadline;
  deadline.response = arrival + std::chrono::milliseconds(tmax_ms) -
                      std::chrono::milliseconds(policy.network_allowance_ms);
  deadline.lookup = deadline.response - std::chrono::microseconds(policy.auction_budget_us);
  return deadline;
}

}  // namespace rtb::bidder
