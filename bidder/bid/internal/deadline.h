// The two instants that bound the work on one bid request.
//
//   arrival                     lookup            response
//     |------ profile Get ---------|--- auction ----|~~ network ~~| tmax at the exchange
//
//   response = arrival + tmax - network allowance
//              (tmax from the request, else the exchange's default_tmax_ms;
//               a request's tmax above kMaxTmaxMs counts as kMaxTmaxMs)
//   lookup   = response - bid.auction_budget_us
//
// `arrival` is when the server read the request's first byte, so time spent
// reading and inflating the body is counted. A request whose response instant
// has passed gets a 204 with no work done; one that still has time but not for
// the lookup is bid on contextually; a response that is ready after its
// response instant is replaced by a 204.
//
// Thread-safety: plain values and a pure function.
#ifndef RTB_BIDDER_BID_INTERNAL_DEADLINE_H_
#define RTB_BIDDER_BID_INTERNAL_DEADLINE_H_

#include <chrono>
#include <cstdint>
#include <optional>

namespace rtb::bidder {

// Longest tmax honoured, ms (as config's default_tmax_ms range): a request
// cannot keep a lookup waiting for minutes.
inline constexpr int32_t kMaxTmaxMs = 10000;

struct BidDeadline {
  using TimePoint = std::chrono::steady_clock::time_point;

  TimePoint response;
  TimePoint lookup;

  // True when a response can no longer arrive in time.
  bool Expired(TimePoint now) const { return now >= response; }
  // True when a profile Get still has time to run.
  bool LookupPossible(TimePoint now) const { return now < lookup; }
};

struct DeadlinePolicy {
  int default_tmax_ms = 100;      // exchange's default_tmax_ms
  int network_allowance_ms = 20;  // exchange's network_allowance_ms
  int auction_budget_us = 1000;   // bid.auction_budget_us
};

BidDeadline ComputeBidDeadline(std::chrono::steady_clock::time_point arrival,
                               std::optional<int32_t> request_tmax_ms,
                               const DeadlinePolicy& policy);

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_DEADLINE_H_
