// Pricing on the bid path (bidder/bid/internal/bid_pricing.h): the auction
// with a real Pricer on the example configuration, a model published into
// it as the pricing loop would, and the beacon URLs of priced bids.
#include "bidder/bid/internal/bid_pricing.h"

#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "bidder/bid/beacon_url.h"
#include "bidder/bid/currency.h"
#include "bidder/bid/internal/auction.h"
#include "bidder/bid/internal/campaign_index.h"
#include "bidder/bid/pacing_snapshot.h"
#include "gtest/gtest.h"
#include "pricing/bucket.h"
#include "pricing/internal/model_codec.h"
#include "pricing/pricer.h"
#include "tests/bidder/decision_fixtures.h"
#include "tests/pricing/pricing_test_support.h"

namespace rtb::bidder {
namespace {

using testing::ExampleConfig;
using testing::FixtureRequest;
using testing::kNoonUtcMillis;
using testing::MustParse;

// northwind (2.5 USD) is the open-auction campaign for a 300x250 banner.
std::string Mrec(int at, double floor = 0) {
  return R"({"id":"r1","at":)" + std::to_string(at) + R"(,"imp":[{"id":"1","bidfloor":)" +
         std::to_string(floor) +
         R"(,"banner":{"w":300,"h":250}}],"site":{"domain":"news.example","cat":["IAB12"]}})";
}

class BidPricingTest : public ::testing::Test {
 protected:
  BidPricingTest() : config_(ExampleConfig()) {
    config_.pricing.exploration_rate = 0;
    config_.pricing.max_win_rate_loss = 1;
    absl::StatusOr<CurrencyTable> currencies = CurrencyTable::Create(config_.bid.currency_rates);
    EXPECT_TRUE(currencies.ok());
    currencies_ = *std::move(currencies);
    absl::StatusOr<CampaignIndex> index =
        CampaignIndex::Build(config_.campaigns, config_.bid.default_currency, currencies_);
    EXPECT_TRUE(index.ok()) << index.status();
    index_ = *std::move(index);
    auto pricer = pricing::Pricer::Create(config_, nullptr);
    EXPECT_TRUE(pricer.ok()) << pricer.status();
    pricer_ = *std::move(pricer);
  }

  uint64_t BucketOf(std::string_view site) const {
    return pricing::BucketOf(pricer_->ExchangeBits(0), pricing::InventoryHash('s', site), 1, 300,
                             250);
  }

  // A model computed `age_ms` before the auction, with a curve of
  // competition around 1 USD for each of `buckets`.
  void Publish(std::initializer_list<uint64_t> buckets, int64_t age_ms = 0) {
    pricing::internal::PricingModel model;
    model.computed_at_ms = kNoonUtcMillis - age_ms;
    for (uint64_t bucket : buckets) {
      model.curves.push_back(pricing::testing::LogNormalCurve(bucket, 1.0, 0.15));
    }
    pricer_->Publish(model);
  }

  AuctionResult Run(std::string_view json) {
    request_ = MustParse(json);
    const Profile profile;
    const UnpacedSnapshot unpaced;
    Auction auction(index_, currencies_, unpaced, pricer_.get());
    AuctionInput input;
    input.request = &request_;
    input.profile = &profile;
    input.now = absl::FromUnixMillis(kNoonUtcMillis);
    input.exchange_seat = "rtb-bidder";
    input.exchange = 0;
    AuctionResult result;
    auction.Run(input, &result);
    return result;
  }

  config::BidderConfig config_;
  CurrencyTable currencies_ = *CurrencyTable::Create({});
  CampaignIndex index_;
  std::unique_ptr<pricing::Pricer> pricer_;
  openrtb::BidRequest request_;
};

TEST_F(BidPricingTest, SecondPriceBidsTheValueWithoutABucket) {
  Publish({BucketOf("news.example")});
  const AuctionResult result = Run(Mrec(2));
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.bids[0].campaign->id, "northwind-travel-display");
  EXPECT_DOUBLE_EQ(result.bids[0].price, 2.5);
  EXPECT_DOUBLE_EQ(result.bids[0].value, 2.5);
  EXPECT_EQ(result.bids[0].outcome, pricing::PriceOutcome::kSecondPrice);
  EXPECT_EQ(result.bids[0].shade.bucket, 0u);
}

TEST_F(BidPricingTest, FirstPriceIsShadedOnTheBucketsCurve) {
  Publish({BucketOf("news.example")});
  const AuctionResult result = Run(Mrec(1));
  ASSERT_EQ(result.bids.size(), 1u);
  const ImpBid& bid = result.bids[0];
  EXPECT_EQ(bid.shade.bucket, BucketOf("news.example"));
  EXPECT_EQ(bid.outcome, pricing::PriceOutcome::kShaded);
  EXPECT_DOUBLE_EQ(bid.value, 2.5);
  // Competition around 1 USD: the best price is above it, far below 2.5.
  EXPECT_GT(bid.price, 1.0);
  EXPECT_LT(bid.price, 1.8);
}

TEST_F(BidPricingTest, FirstPriceIsNeverShadedUnderTheFloor) {
  Publish({BucketOf("news.example")});
  const AuctionResult result = Run(Mrec(1, 2.0));
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_DOUBLE_EQ(result.bids[0].price, 2.0);
}

TEST_F(BidPricingTest, ABucketWithoutACurveOrAStaleModelBidsTheValue) {
  Publish({BucketOf("other.example")});
  AuctionResult result = Run(Mrec(1));
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_DOUBLE_EQ(result.bids[0].price, 2.5);
  EXPECT_EQ(result.bids[0].outcome, pricing::PriceOutcome::kLearning);

  Publish({BucketOf("news.example")}, int64_t{config_.pricing.model_max_age_s} * 1000 + 1);
  result = Run(Mrec(1));
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_DOUBLE_EQ(result.bids[0].price, 2.5);
  EXPECT_EQ(result.bids[0].outcome, pricing::PriceOutcome::kStale);
}

TEST_F(BidPricingTest, TheDealsAuctionTypeDecides) {
  // The sample's deal says at=1 and has a floor of 3: contoso's 4.0 is
  // shaded down to that floor.
  Publish({BucketOf("b2b-weekly.example")});
  AuctionResult result = Run(FixtureRequest("site-pmp-deals.json"));
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.bids[0].campaign->id, "contoso-agency1-deal");
  EXPECT_EQ(result.bids[0].outcome, pricing::PriceOutcome::kShaded);
  EXPECT_DOUBLE_EQ(result.bids[0].price, 3.0);

  // A second-price deal in a first-price request bids the value.
  result = Run(R"({"id":"r","at":1,"imp":[{"id":"1","banner":{"w":300,"h":250},
      "pmp":{"private_auction":1,"deals":[{"id":"AB-Agency1-0001","at":2,"wseat":["Agency1"]}]}}],
      "site":{"domain":"b2b-weekly.example"}})");
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_DOUBLE_EQ(result.bids[0].price, 4.0);
  EXPECT_EQ(result.bids[0].outcome, pricing::PriceOutcome::kSecondPrice);
  EXPECT_EQ(result.bids[0].shade.bucket, 0u);
}

TEST(FirstPriceAuctionTest, TheDealsTypeOverridesTheRequests) {
  openrtb::BidRequest request;
  request.at = 1;
  EXPECT_TRUE(FirstPriceAuction(request, nullptr));
  openrtb::Deal deal;
  EXPECT_TRUE(FirstPriceAuction(request, &deal));
  deal.at = 2;
  EXPECT_FALSE(FirstPriceAuction(request, &deal));
  request.at = 2;
  deal.at = 1;
  EXPECT_TRUE(FirstPriceAuction(request, &deal));
  deal.at = 3;
  EXPECT_FALSE(FirstPriceAuction(request, &deal));
}

TEST(PricedBeaconTest, TheBucketIsSignedAndTheMinimumBidToWinRead) {
  const BeaconSigner signer("secret-of-at-least-32-bytes-for-beacons");
  BeaconParams params;
  params.exchange = "sample-exchange";
  params.campaign_id = "c";
  params.creative_id = "cr";
  params.bid_price_micros = 1250000;
  params.bid_currency = "USD";
  params.bid_time_ms = kNoonUtcMillis;
  params.request_id = "r";
  params.imp_id = "1";
  params.bid_id = "b";
  params.pricing_bucket = 0x1234abcd5678ef90ULL;
  std::string win;
  std::string loss;
  signer.AppendUrls("http://127.0.0.1", params, &win, nullptr, &loss, nullptr);
  EXPECT_NE(win.find("&pb=1234abcd5678ef90"), std::string::npos) << win;
  EXPECT_NE(win.find("&mtw=${AUCTION_MIN_TO_WIN}"), std::string::npos) << win;
  EXPECT_NE(loss.find("&mtw=${AUCTION_MIN_TO_WIN}"), std::string::npos) << loss;

  // As the exchange fills it in.
  const std::string query =
      absl::StrReplaceAll(loss.substr(loss.find('?') + 1), {{"${AUCTION_ID}", "r"},
                                                            {"${AUCTION_IMP_ID}", "1"},
                                                            {"${AUCTION_BID_ID}", "b"},
                                                            {"${AUCTION_LOSS}", "102"},
                                                            {"${AUCTION_PRICE}", ""},
                                                            {"${AUCTION_MIN_TO_WIN}", "1.07"}});
  absl::StatusOr<VerifiedBeacon> verified = signer.Verify(BeaconKind::kLoss, query);
  ASSERT_TRUE(verified.ok()) << verified.status();
  EXPECT_EQ(verified->pricing_bucket, params.pricing_bucket);
  ASSERT_TRUE(verified->min_to_win.has_value());
  EXPECT_DOUBLE_EQ(*verified->min_to_win, 1.07);

  // Another bucket breaks the signature.
  std::string forged = query;
  forged.replace(forged.find("pb=1234"), 7, "pb=4321");
  EXPECT_EQ(signer.Verify(BeaconKind::kLoss, forged).status().code(),
            absl::StatusCode::kUnauthenticated);

  // A bid without a bucket signs as before and asks for nothing more.
  params.pricing_bucket = 0;
  const std::string plain = signer.Url(BeaconKind::kWin, "http://127.0.0.1", params);
  EXPECT_EQ(plain.find("pb="), std::string::npos);
  EXPECT_EQ(plain.find("mtw="), std::string::npos);
}

}  // namespace
}  // namespace rtb::bidder
