#include "bidder/bid/internal/deadline.h"

#include <chrono>

#include "gtest/gtest.h"

namespace rtb::bidder {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

const std::chrono::steady_clock::time_point kArrival =
    std::chrono::steady_clock::time_point() + std::chrono::hours(1000);

DeadlinePolicy Policy() {
  return DeadlinePolicy{
      .default_tmax_ms = 120, .network_allowance_ms = 20, .auction_budget_us = 1000};
}

TEST(BidDeadlineTest, RequestTmaxMinusNetworkAllowance) {
  const BidDeadline d = ComputeBidDeadline(kArrival, 80, Policy());
  EXPECT_EQ(d.response - kArrival, milliseconds(60));
  EXPECT_EQ(d.response - d.lookup, microseconds(1000));
}

TEST(BidDeadlineTest, ExchangeDefaultWhenTmaxAbsent) {
  const BidDeadline d = ComputeBidDeadline(kArrival, std::nullopt, Policy());
  EXPECT_EQ(d.response - kArrival, milliseconds(100));
}

TEST(BidDeadlineTest, HugeTmaxIsCapped) {
  const BidDeadline d = ComputeBidDeadline(kArrival, 3600 * 1000, Policy());
  EXPECT_EQ(d.response - kArrival, milliseconds(kMaxTmaxMs - 20));
}

TEST(BidDeadlineTest, TmaxWithinNetworkAllowanceIsExpiredOnArrival) {
  const BidDeadline d = ComputeBidDeadline(kArrival, 20, Policy());
  EXPECT_TRUE(d.Expired(kArrival));
  EXPECT_FALSE(d.LookupPossible(kArrival));
  const BidDeadline shorter = ComputeBidDeadline(kArrival, 5, Policy());
  EXPECT_TRUE(shorter.Expired(kArrival));
}

TEST(BidDeadlineTest, LookupNeedsMoreThanTheAuctionBudget) {
  // 20.5 ms: tmax 21 minus 20 leaves 1 ms, all of it the auction's.
  const BidDeadline d = ComputeBidDeadline(kArrival, 21, Policy());
  EXPECT_FALSE(d.Expired(kArrival));
  EXPECT_FALSE(d.LookupPossible(kArrival));
  const BidDeadline roomy = ComputeBidDeadline(kArrival, 22, Policy());
  EXPECT_TRUE(roomy.LookupPossible(kArrival));
  EXPECT_FALSE(roomy.LookupPossible(kArrival + milliseconds(1)));
  EXPECT_FALSE(roomy.Expired(kArrival + milliseconds(1)));
  EXPECT_TRUE(roomy.Expired(kArrival + milliseconds(2)));
}

}  // namespace
}  // namespace rtb::bidder
