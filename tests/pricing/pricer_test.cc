// The bid path's pricing (pricing/pricer.h): goal values and their rates,
// and the price of first- and second-price bids.
#include "pricing/pricer.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "pricing/internal/model_codec.h"
#include "pricing/internal/value_estimator.h"
#include "tests/pricing/pricing_test_support.h"

namespace rtb::pricing {
namespace {

using testing::LogNormalCurve;
using testing::PricingConfig;
using testing::TestBucket;

constexpr int64_t kNow = 1791115200000;

std::unique_ptr<Pricer> MakePricer(const config::BidderConfig& config = PricingConfig()) {
  absl::StatusOr<std::unique_ptr<Pricer>> pricer = Pricer::Create(config, nullptr);
  EXPECT_TRUE(pricer.ok()) << pricer.status();
  return pricer.ok() ? *std::move(pricer) : nullptr;
}

internal::PricingModel ModelWithCurve(uint64_t bucket, int64_t computed_at = kNow) {
  internal::PricingModel model;
  model.computed_at_ms = computed_at;
  model.curves.push_back(LogNormalCurve(bucket, /*median=*/2, /*sigma=*/0.1));
  return model;
}

ShadeRequest FirstPrice(uint64_t bucket, double value) {
  ShadeRequest request;
  request.bucket = bucket;
  request.first_price = true;
  request.value = value;
  request.now_ms = kNow + 1000;
  return request;
}

TEST(PricerTest, CpmGoalIsWorthItsMaxBid) {
  auto pricer = MakePricer();
  EXPECT_DOUBLE_EQ(pricer->Value(0, {}), 5);
  EXPECT_DOUBLE_EQ(pricer->Value(0, {.impressions = 100, .clicks = 50}), 5);
}

TEST(PricerTest, CpcAndCpaValuesFollowThePriorsUntilTheModelHasRates) {
  auto pricer = MakePricer();
  // 1000 x 2 per click x 0.001 clicks per impression.
  EXPECT_NEAR(pricer->Value(1, {}), 2.0, 1e-9);
  // 1000 x 50 x 0.001 x 0.02.
  EXPECT_NEAR(pricer->Value(2, {}), 1.0, 1e-9);
  internal::PricingModel model;
  model.computed_at_ms = kNow;
  model.campaigns.push_back({"cpc", 0.004, 0.02, 0, 0, 0});
  model.campaigns.push_back({"cpa", 0.002, 0.05, 0, 0, 0});
  pricer->Publish(model);
  EXPECT_NEAR(pricer->Value(1, {}), 8.0, 1e-9);
  EXPECT_NEAR(pricer->Value(2, {}), 5.0, 1e-9);
}

TEST(PricerTest, DeviceHistoryMovesTheRateInProportionToItsLength) {
  auto pricer = MakePricer();
  const double campaign = pricer->Value(1, {});
  // A device that clicked 5 times in 500 impressions (1 %), against a prior
  // worth 1000 impressions at 0.1 %: (5 + 1) / 1500 = 0.4 %.
  EXPECT_NEAR(pricer->Value(1, {.impressions = 500, .clicks = 5}), 1000 * 2 * 6.0 / 1500, 1e-9);
  // A short history barely moves it.
  EXPECT_NEAR(pricer->Value(1, {.impressions = 3, .clicks = 1}), 1000 * 2 * 2.0 / 1003, 1e-9);
  // A long history without clicks lowers it.
  EXPECT_LT(pricer->Value(1, {.impressions = 20000}), campaign / 10);
}

TEST(PricerTest, ValuesNeverExceedTheMaxBid) {
  auto pricer = MakePricer();
  EXPECT_DOUBLE_EQ(pricer->Value(1, {.impressions = 100, .clicks = 100}), 20);
}

TEST(PricerTest, CampaignRatesShrinkTowardThePriorWhileCountsAreSmall) {
  config::CampaignGoalConfig goal;
  goal.prior_ctr = 0.001;
  config::PricingConfig pricing;  // campaign_prior_events 10: worth 10000 impressions
  EXPECT_NEAR(internal::CampaignCtr(goal, pricing, 0, 0), 0.001, 1e-12);
  EXPECT_NEAR(internal::CampaignCtr(goal, pricing, 1000, 10), 20.0 / 11000, 1e-12);
  EXPECT_NEAR(internal::CampaignCtr(goal, pricing, 10000000, 50000), 0.005, 1e-5);
}

TEST(PricerTest, SecondPriceBidsAreTheValue) {
  auto pricer = MakePricer();
  pricer->Publish(ModelWithCurve(TestBucket()));
  ShadeRequest request = FirstPrice(TestBucket(), 5);
  request.first_price = false;
  request.explore_draw = 0;  // would explore in first price
  const ShadeResult result = pricer->Shade(request);
  EXPECT_DOUBLE_EQ(result.price, 5);
  EXPECT_EQ(result.outcome, PriceOutcome::kSecondPrice);
}

TEST(PricerTest, FirstPriceBidsAreShadedOnTheBucketsCurve) {
  auto pricer = MakePricer();
  pricer->Publish(ModelWithCurve(TestBucket()));
  const ShadeResult result = pricer->Shade(FirstPrice(TestBucket(), 5));
  EXPECT_EQ(result.outcome, PriceOutcome::kShaded);
  // Competition around 2 (+-10 %): a little above it, far below the value.
  EXPECT_GT(result.price, 2.0);
  EXPECT_LT(result.price, 2.6);
}

TEST(PricerTest, PricesAreShadedInUsdAndAnsweredInTheRequestCurrency) {
  auto pricer = MakePricer();
  pricer->Publish(ModelWithCurve(TestBucket()));
  ShadeRequest usd = FirstPrice(TestBucket(), 5);
  ShadeRequest eur = FirstPrice(TestBucket(), 4);  // 5 USD
  eur.usd_per_unit = 1.25;
  EXPECT_NEAR(pricer->Shade(eur).price * 1.25, pricer->Shade(usd).price, 1e-9);
}

TEST(PricerTest, AShadedPriceIsNeverUnderTheFloor) {
  auto pricer = MakePricer();
  pricer->Publish(ModelWithCurve(TestBucket()));
  ShadeRequest request = FirstPrice(TestBucket(), 5);
  request.floor = 3.5;
  EXPECT_GE(pricer->Shade(request).price, 3.5);
  request.explore_draw = 0;
  request.explore_offset = 0;  // the lowest exploring move
  EXPECT_GE(pricer->Shade(request).price, 3.5);
}

TEST(PricerTest, BucketsWithoutACurveBidTheValue) {
  auto pricer = MakePricer();
  pricer->Publish(ModelWithCurve(TestBucket()));
  const ShadeResult result = pricer->Shade(FirstPrice(TestBucket("adx", "other.com"), 5));
  EXPECT_DOUBLE_EQ(result.price, 5);
  EXPECT_EQ(result.outcome, PriceOutcome::kLearning);
  EXPECT_EQ(pricer->Shade(FirstPrice(0, 5)).outcome, PriceOutcome::kNoBucket);
}

TEST(PricerTest, ExplorationStaysWithinItsWidthAroundTheChosenPrice) {
  auto pricer = MakePricer();
  pricer->Publish(ModelWithCurve(TestBucket()));
  const double chosen = pricer->Shade(FirstPrice(TestBucket(), 5)).price;
  for (double offset : {0.0, 0.25, 0.5, 0.99}) {
    ShadeRequest request = FirstPrice(TestBucket(), 5);
    request.explore_draw = 0.01;  // below exploration_rate 0.05
    request.explore_offset = offset;
    const ShadeResult result = pricer->Shade(request);
    EXPECT_EQ(result.outcome, PriceOutcome::kExplored);
    EXPECT_GE(result.price, chosen * 0.9 - 1e-9);
    EXPECT_LE(result.price, chosen * 1.1 + 1e-9);
  }
  // Learning buckets explore below the value only.
  ShadeRequest learning = FirstPrice(TestBucket("adx", "new.com"), 5);
  learning.explore_draw = 0.01;
  learning.explore_offset = 0.5;
  EXPECT_NEAR(pricer->Shade(learning).price, 5 * 0.95, 1e-9);
}

TEST(PricerTest, AModelOlderThanTheMaxAgeIsNotUsed) {
  auto pricer = MakePricer();
  EXPECT_EQ(pricer->Shade(FirstPrice(TestBucket(), 5)).outcome, PriceOutcome::kStale);
  pricer->Publish(ModelWithCurve(TestBucket(), kNow));
  ShadeRequest request = FirstPrice(TestBucket(), 5);
  request.now_ms = kNow + 3600 * 1000 + 1;  // model_max_age_s 3600
  request.explore_draw = 0;
  const ShadeResult result = pricer->Shade(request);
  EXPECT_EQ(result.outcome, PriceOutcome::kStale);
  EXPECT_DOUBLE_EQ(result.price, 5);
}

TEST(PricerTest, ShadingCanBeSwitchedOff) {
  config::BidderConfig config = PricingConfig();
  config.pricing.shading_enabled = false;
  auto pricer = MakePricer(config);
  pricer->Publish(ModelWithCurve(TestBucket()));
  EXPECT_EQ(pricer->Shade(FirstPrice(TestBucket(), 5)).outcome, PriceOutcome::kDisabled);
}

TEST(PricerTest, ExchangesWhoseBucketBitsCollideAreRefused) {
  config::BidderConfig config = PricingConfig();
  // Find a name colliding with "adx" in the top 16 bits.
  const uint64_t adx = ExchangeBucketBits("adx");
  std::string name;
  for (int i = 0; name.empty(); ++i) {
    const std::string candidate = "x" + std::to_string(i);
    if (ExchangeBucketBits(candidate) == adx) name = candidate;
  }
  config.server.exchanges[1].name = name;
  absl::StatusOr<std::unique_ptr<Pricer>> pricer = Pricer::Create(config, nullptr);
  EXPECT_FALSE(pricer.ok());
}

TEST(PricerTest, CampaignStatusesSumBidsAndNoticesOverThreads) {
  auto pricer = MakePricer();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      ShadeRequest request = FirstPrice(TestBucket(), 4);
      for (int i = 0; i < 1000; ++i) {
        pricer->CountBid(0, request, ShadeResult{3, PriceOutcome::kShaded});
        pricer->CountNotice(0, i % 4 != 0, 3);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::vector<CampaignPricingStatus> statuses = pricer->CampaignStatuses();
  ASSERT_EQ(statuses.size(), 3u);
  EXPECT_EQ(statuses[0].campaign_id, "cpm");
  EXPECT_EQ(statuses[0].bids, 4000);
  EXPECT_EQ(statuses[0].first_price_bids, 4000);
  EXPECT_NEAR(statuses[0].average_shading_factor, 0.75, 1e-9);
  EXPECT_EQ(statuses[0].wins, 3000);
  EXPECT_EQ(statuses[0].price_losses, 1000);
  EXPECT_NEAR(statuses[0].win_rate, 0.75, 1e-9);
  EXPECT_NEAR(statuses[0].average_clearing_cpm, 3, 1e-9);
  EXPECT_EQ(statuses[1].goal, "cpc");
  EXPECT_EQ(statuses[1].bids, 0);
  EXPECT_DOUBLE_EQ(statuses[1].average_shading_factor, 1);
}

}  // namespace
}  // namespace rtb::pricing
