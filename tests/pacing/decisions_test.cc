#include <memory>

#include "gtest/gtest.h"
#include "pacing/pacer.h"
#include "storage/clock.h"

namespace rtb::pacing {
namespace {

TEST(DecisionsTest, NothingBidsBeforeTheFirstDecision) {
  auto clock = std::make_shared<storage::ManualClock>(1000);
  Decisions decisions(2, clock);
  EXPECT_FALSE(decisions.MayBid(0, 0.0));
  EXPECT_FALSE(decisions.MayBid(1, 0.5));
}

TEST(DecisionsTest, ThrottleIsTheProbabilityOfBidding) {
  auto clock = std::make_shared<storage::ManualClock>(1000);
  Decisions decisions(3, clock);
  decisions.Publish(0, 1.0, 5000);
  decisions.Publish(1, 0.25, 5000);
  decisions.Publish(2, 0.0, 5000);
  EXPECT_TRUE(decisions.MayBid(0, 0.0));
  EXPECT_TRUE(decisions.MayBid(0, 0.999999));
  EXPECT_TRUE(decisions.MayBid(1, 0.2));
  EXPECT_FALSE(decisions.MayBid(1, 0.25));
  EXPECT_FALSE(decisions.MayBid(1, 0.9));
  EXPECT_FALSE(decisions.MayBid(2, 0.0));
  EXPECT_EQ(decisions.fail_safe_refusals(), 0u);
}

TEST(DecisionsTest, UnknownCampaignNeverBids) {
  auto clock = std::make_shared<storage::ManualClock>(1000);
  Decisions decisions(1, clock);
  decisions.Publish(0, 1.0, 5000);
  decisions.Publish(7, 1.0, 5000);
  EXPECT_FALSE(decisions.MayBid(1, 0.0));
  EXPECT_FALSE(decisions.MayBid(7, 0.0));
}

TEST(DecisionsTest, DecisionPastItsValidityStopsTheCampaignAndIsCounted) {
  auto clock = std::make_shared<storage::ManualClock>(1000);
  Decisions decisions(1, clock);
  decisions.Publish(0, 1.0, 5000);
  clock->Set(4999);
  EXPECT_TRUE(decisions.MayBid(0, 0.5));
  clock->Set(5000);
  EXPECT_FALSE(decisions.MayBid(0, 0.5));
  EXPECT_FALSE(decisions.MayBid(0, 0.0));
  EXPECT_EQ(decisions.fail_safe_refusals(), 2u);
  decisions.Publish(0, 1.0, 9000);
  EXPECT_TRUE(decisions.MayBid(0, 0.5));
}

TEST(DecisionsTest, AskedAtAGivenTimeTheClockIsNotRead) {
  auto clock = std::make_shared<storage::ManualClock>(1000);
  Decisions decisions(1, clock);
  decisions.Publish(0, 1.0, 5000);
  EXPECT_TRUE(decisions.MayBid(0, 0.5, 4999));
  EXPECT_FALSE(decisions.MayBid(0, 0.5, 5000)) << "past its validity at the time given";
  EXPECT_EQ(decisions.fail_safe_refusals(), 1u);
  clock->Set(6000);
  EXPECT_TRUE(decisions.MayBid(0, 0.5, 4999)) << "the time given, not the clock's";
  EXPECT_FALSE(decisions.MayBid(0, 0.5));
}

}  // namespace
}  // namespace rtb::pacing
