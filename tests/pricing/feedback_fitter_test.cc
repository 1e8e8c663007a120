// From notices to the model: what the beacon side counts
// (pricing/feedback.h), what the fitter makes of it
// (pricing/internal/shading_fitter.h), and how the loop publishes it
// (pricing/pricing_loop.h), on an embedded store.
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "pricing/feedback.h"
#include "pricing/internal/bid_tally.h"
#include "pricing/internal/model_board.h"
#include "pricing/internal/price_grid.h"
#include "pricing/internal/pricing_rows.h"
#include "pricing/internal/shading_fitter.h"
#include "pricing/pricer.h"
#include "pricing/pricing_loop.h"
#include "storage/schemas.h"
#include "tests/pacing/pacing_test_support.h"
#include "tests/pricing/pricing_test_support.h"

namespace rtb::pricing {
namespace {

using pacing::testing::kNoon;
using pacing::testing::TempStore;
using testing::PricingConfig;
using testing::TestBucket;

class FeedbackFitterTest : public ::testing::Test {
 protected:
  FeedbackFitterTest()
      : clock_(std::make_shared<storage::ManualClock>(kNoon)),
        temp_(clock_),
        config_(PricingConfig()),
        feedback_(config_, temp_.store(), nullptr, nullptr) {}

  AuctionNotice Notice(uint64_t bucket, bool won, double bid, int id) {
    ids_.push_back("imp-" + std::to_string(id));
    AuctionNotice notice;
    notice.exchange = "adx";
    notice.campaign_id = "cpm";
    notice.bucket = bucket;
    notice.won = won;
    notice.bid_cpm = bid;
    notice.bid_currency = "USD";
    notice.bid_time_ms = clock_->NowMillis();
    notice.notice_id = ids_.back();
    return notice;
  }

  // Bids spread over [0.5, 4) against log-normal competition around 1.5.
  void Auctions(uint64_t bucket, int n, bool min_to_win, uint64_t seed = 1) {
    std::mt19937_64 random(seed);
    std::lognormal_distribution<double> competition(std::log(1.5), 0.2);
    std::uniform_real_distribution<double> bid(0.5, 4);
    for (int i = 0; i < n; ++i) {
      const double b = bid(random);
      const double c = competition(random);
      AuctionNotice notice = Notice(bucket, c < b, b, next_id_++);
      if (min_to_win) notice.min_to_win_cpm = c;
      if (notice.won) notice.clearing_cpm = b;
      feedback_.RecordNotice(notice);
    }
  }

  internal::PricingModel Fit() {
    internal::ShadingFitter fitter(config_, temp_.store());
    absl::StatusOr<internal::PricingModel> model = fitter.Fit(clock_->NowMillis());
    EXPECT_TRUE(model.ok()) << model.status();
    return model.ok() ? *std::move(model) : internal::PricingModel{};
  }

  std::shared_ptr<storage::ManualClock> clock_;
  TempStore temp_;
  config::BidderConfig config_;
  PricingFeedback feedback_;
  std::vector<std::string> ids_;
  int next_id_ = 1000;
};

TEST_F(FeedbackFitterTest, OnlyPriceLossesAndWinsOfBucketedBidsCount) {
  EXPECT_TRUE(PricingFeedback::IsPriceLoss(""));
  EXPECT_TRUE(PricingFeedback::IsPriceLoss("102"));
  EXPECT_TRUE(PricingFeedback::IsPriceLoss("100"));
  EXPECT_FALSE(PricingFeedback::IsPriceLoss("2"));
  EXPECT_FALSE(PricingFeedback::IsPriceLoss("104"));
  EXPECT_FALSE(PricingFeedback::IsPriceLoss("200"));
  // A loss for another reason only marks its bid as noticed.
  AuctionNotice filtered = Notice(TestBucket(), false, 2, 1);
  filtered.loss_reason = "200";
  std::optional<storage::Increment> increment = feedback_.NoticeIncrement(filtered);
  ASSERT_TRUE(increment.has_value());
  ASSERT_EQ(increment->columns.size(), 1u);
  EXPECT_EQ(increment->columns[0].qualifier,
            internal::OutcomeQualifier(internal::OutcomeKind::kNotices, internal::BinOf(2)));
  EXPECT_FALSE(feedback_.NoticeIncrement(Notice(0, true, 2, 2)).has_value());
  AuctionNotice unknown_currency = Notice(TestBucket(), true, 2, 3);
  unknown_currency.bid_currency = "JPY";
  EXPECT_FALSE(feedback_.NoticeIncrement(unknown_currency).has_value());
}

TEST_F(FeedbackFitterTest, ANoticeIsOneIncrementAtTheBinOfTheKnownPrice) {
  AuctionNotice win = Notice(TestBucket(), true, 2, 1);
  win.clearing_cpm = 1.6;
  win.clearing_currency = "eur";  // 2 USD
  std::optional<storage::Increment> increment = feedback_.NoticeIncrement(win);
  ASSERT_TRUE(increment.has_value());
  EXPECT_EQ(increment->row, internal::OutcomeRow(TestBucket(), internal::HourOf(kNoon)));
  ASSERT_EQ(increment->columns.size(), 3u);
  EXPECT_EQ(increment->columns[0].qualifier,
            internal::OutcomeQualifier(internal::OutcomeKind::kNotices, internal::BinOf(2)));
  EXPECT_EQ(increment->columns[1].qualifier,
            internal::OutcomeQualifier(internal::OutcomeKind::kWinAtBid, internal::BinOf(2)));
  EXPECT_EQ(increment->columns[2].amount, 2000000);
  EXPECT_NE(increment->nonce, 0u);

  AuctionNotice loss = Notice(TestBucket(), false, 2, 2);
  loss.min_to_win_cpm = 2.4;
  increment = feedback_.NoticeIncrement(loss);
  ASSERT_TRUE(increment.has_value());
  ASSERT_EQ(increment->columns.size(), 2u);
  EXPECT_EQ(
      increment->columns[1].qualifier,
      internal::OutcomeQualifier(internal::OutcomeKind::kLossPriceToBeat, internal::BinOf(2.4)));
}

TEST_F(FeedbackFitterTest, AReplayedNoticeCountsOnce) {
  AuctionNotice win = Notice(TestBucket(), true, 2, 7);
  for (int i = 0; i < 3; ++i) feedback_.RecordNotice(win);
  internal::ShadingFitter fitter(config_, temp_.store());
  config_.pricing.min_samples = 10;
  Auctions(TestBucket("adx", "b.com"), 10, false);  // the exchange's losses
  const internal::PricingModel model = Fit();
  ASSERT_EQ(model.exchanges.size(), 2u);
  EXPECT_EQ(model.exchanges[0].wins + model.exchanges[0].losses, 11);
}

TEST_F(FeedbackFitterTest, BucketsBelowMinSamplesGetNoCurve) {
  config_.pricing.min_samples = 300;
  Auctions(TestBucket("adx", "big.com"), 400, false, 1);
  Auctions(TestBucket("adx", "small.com"), 200, false, 2);
  const internal::PricingModel model = Fit();
  ASSERT_EQ(model.curves.size(), 1u);
  EXPECT_EQ(model.curves[0].bucket, TestBucket("adx", "big.com"));
  EXPECT_EQ(model.curves[0].samples, 400);
  EXPECT_EQ(model.exchanges[0].buckets_shaded, 1);
  EXPECT_EQ(model.exchanges[0].wins + model.exchanges[0].losses, 600);
}

TEST_F(FeedbackFitterTest, TheFittedCurveFollowsTheCompetition) {
  config_.pricing.min_samples = 100;
  Auctions(TestBucket(), 5000, /*min_to_win=*/true);
  const internal::PricingModel model = Fit();
  ASSERT_EQ(model.curves.size(), 1u);
  const internal::BucketCurve& curve = model.curves[0];
  const internal::CurveView view{curve.start, static_cast<int>(curve.values.size()) - 1,
                                 curve.values.data()};
  EXPECT_NEAR(internal::WinProbability(view, 1.5), 0.5, 0.04);
  EXPECT_NEAR(internal::WinProbability(view, 2.2), 0.97, 0.03);
  EXPECT_GT(model.exchanges[0].clearing_sum_micros, 0);
}

TEST_F(FeedbackFitterTest, BidsWithoutNoticesCountAsLosses) {
  // An exchange that sends win notices only: 100 bids at 2, 30 won.
  config_.pricing.min_samples = 10;
  auto pricer = Pricer::Create(config_, nullptr);
  ASSERT_TRUE(pricer.ok());
  ShadeRequest request;
  request.bucket = TestBucket();
  request.first_price = true;
  request.value = 2;
  request.now_ms = clock_->NowMillis();
  for (int i = 0; i < 100; ++i) {
    (*pricer)->CountBid(0, request, ShadeResult{2, PriceOutcome::kLearning});
  }
  for (int i = 0; i < 30; ++i) feedback_.RecordNotice(Notice(TestBucket(), true, 2, i));
  auto loop = PricingLoop::Create(config_, temp_.store(), pricer->get(), PricingRole::kFitLocally,
                                  nullptr, clock_);
  ASSERT_TRUE(loop.ok());
  (*loop)->FlushBidCounts();
  // Within the hour the bids were sent in, their notices may still come.
  EXPECT_EQ(Fit().exchanges[0].losses, 0);
  clock_->Set(kNoon + 65 * 60 * 1000);
  const internal::PricingModel model = Fit();
  EXPECT_EQ(model.exchanges[0].wins, 30);
  EXPECT_EQ(model.exchanges[0].losses, 70);
  ASSERT_EQ(model.curves.size(), 1u);
  const internal::BucketCurve& curve = model.curves[0];
  const internal::CurveView view{curve.start, static_cast<int>(curve.values.size()) - 1,
                                 curve.values.data()};
  EXPECT_NEAR(internal::WinProbability(view, internal::Edge(internal::BinOf(2) + 1)), 0.3, 1e-3);
}

TEST_F(FeedbackFitterTest, ALossForAnotherReasonIsNeitherAnOutcomeNorUnnoticed) {
  // 100 bids at 2: 30 won, 20 lost with a creative filtered (200), 50
  // without a notice.
  config_.pricing.min_samples = 10;
  auto pricer = Pricer::Create(config_, nullptr);
  ASSERT_TRUE(pricer.ok());
  ShadeRequest request;
  request.bucket = TestBucket();
  request.first_price = true;
  request.value = 2;
  request.now_ms = clock_->NowMillis();
  for (int i = 0; i < 100; ++i) {
    (*pricer)->CountBid(0, request, ShadeResult{2, PriceOutcome::kLearning});
  }
  for (int i = 0; i < 30; ++i) feedback_.RecordNotice(Notice(TestBucket(), true, 2, i));
  for (int i = 30; i < 50; ++i) {
    AuctionNotice filtered = Notice(TestBucket(), false, 2, i);
    filtered.loss_reason = "200";
    feedback_.RecordNotice(filtered);
  }
  auto loop = PricingLoop::Create(config_, temp_.store(), pricer->get(), PricingRole::kFitLocally,
                                  nullptr, clock_);
  ASSERT_TRUE(loop.ok());
  (*loop)->FlushBidCounts();
  clock_->Set(kNoon + 65 * 60 * 1000);
  const internal::PricingModel model = Fit();
  EXPECT_EQ(model.exchanges[0].wins, 30);
  EXPECT_EQ(model.exchanges[0].losses, 50);
}

TEST_F(FeedbackFitterTest, ABidTallyTakenTwiceCountsOnceAndSumsOverThreads) {
  internal::BidTally tally;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&tally] {
      for (int i = 0; i < 1000; ++i) tally.Add(TestBucket(), 490000, 200 + i % 3);
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<internal::TallyCount> counts = tally.Take();
  ASSERT_EQ(counts.size(), 3u);
  int64_t total = 0;
  for (const internal::TallyCount& count : counts) total += count.bids;
  EXPECT_EQ(total, 4000);
  EXPECT_TRUE(tally.Take().empty());
  const std::vector<storage::Increment> increments = internal::BidCountIncrements(counts);
  ASSERT_EQ(increments.size(), 1u);
  EXPECT_EQ(increments[0].row, internal::OutcomeRow(TestBucket(), 490000));
  EXPECT_EQ(increments[0].columns.size(), 3u);
}

TEST_F(FeedbackFitterTest, NoticesOutsideTheWindowAreLeftOut) {
  config_.pricing.min_samples = 100;
  config_.pricing.window_hours = 2;
  Auctions(TestBucket(), 500, false);
  clock_->Advance(int64_t{3} * 3600 * 1000);
  EXPECT_TRUE(Fit().curves.empty());
}

TEST_F(FeedbackFitterTest, CampaignRatesCountEngagementOverTheRateWindow) {
  for (int i = 0; i < 1000; ++i) {
    feedback_.RecordEngagement("cpc", Engagement::kImpression, clock_->NowMillis(),
                               "imp-" + std::to_string(i));
  }
  for (int i = 0; i < 30; ++i) {
    feedback_.RecordEngagement("cpc", Engagement::kClick, clock_->NowMillis(),
                               "click-" + std::to_string(i));
  }
  feedback_.RecordEngagement("cpc", Engagement::kClick, clock_->NowMillis(), "click-0");  // replay
  feedback_.RecordEngagement("cpc", Engagement::kConversion, clock_->NowMillis(), "conv-1");
  // Old enough to be out of the 14-day window.
  feedback_.RecordEngagement("cpc", Engagement::kImpression,
                             clock_->NowMillis() - int64_t{20} * 24 * 3600 * 1000, "old");
  const internal::PricingModel model = Fit();
  ASSERT_EQ(model.campaigns.size(), 3u);
  const internal::CampaignRates& rates = model.campaigns[1];
  EXPECT_EQ(rates.campaign_id, "cpc");
  EXPECT_EQ(rates.impressions, 1000);
  EXPECT_EQ(rates.clicks, 30);
  EXPECT_EQ(rates.conversions, 1);
  // (30 + 10) / (1000 + 10 / 0.001)
  EXPECT_NEAR(rates.ctr, 40.0 / 11000, 1e-12);
}

TEST_F(FeedbackFitterTest, PublishedModelsReachFollowingBiddersAndAgeOut) {
  config_.pricing.min_samples = 100;
  Auctions(TestBucket(), 2000, true);
  auto service = PricingLoop::Create(config_, temp_.store(), nullptr, PricingRole::kFitAndPublish,
                                     nullptr, clock_);
  ASSERT_TRUE(service.ok()) << service.status();
  auto pricer = Pricer::Create(config_, nullptr);
  ASSERT_TRUE(pricer.ok());
  auto follower = PricingLoop::Create(config_, temp_.store(), pricer->get(),
                                      PricingRole::kFollowStore, nullptr, clock_);
  ASSERT_TRUE(follower.ok());

  ShadeRequest request;
  request.bucket = TestBucket();
  request.first_price = true;
  request.value = 5;
  request.now_ms = clock_->NowMillis();
  (*follower)->RunDue();  // nothing published yet
  EXPECT_EQ((*pricer)->Shade(request).outcome, PriceOutcome::kStale);

  (*service)->RunDue();
  (*follower)->RunDue();  // not due before the interval
  EXPECT_EQ((*pricer)->ModelComputedAtMs(), 0);
  clock_->Advance(int64_t{config_.pricing.fit_interval_s} * 1000);
  (*follower)->RunDue();
  EXPECT_EQ((*pricer)->ModelComputedAtMs(), kNoon);
  EXPECT_EQ((*follower)->model_version(), kNoon);
  request.now_ms = clock_->NowMillis();
  EXPECT_EQ((*pricer)->Shade(request).outcome, PriceOutcome::kShaded);

  // The service stops: the model ages past model_max_age_s.
  clock_->Advance(int64_t{config_.pricing.model_max_age_s} * 1000);
  (*follower)->RunDue();
  request.now_ms = clock_->NowMillis();
  EXPECT_EQ((*pricer)->Shade(request).outcome, PriceOutcome::kStale);
}

TEST_F(FeedbackFitterTest, ModelsLargerThanAChunkAreReadWhole) {
  internal::PricingModel model;
  model.computed_at_ms = kNoon;
  for (int i = 0; i < 200; ++i) {
    model.curves.push_back(testing::LogNormalCurve(TestBucket("adx", std::to_string(i)), 2, 0.2));
  }
  ASSERT_TRUE(internal::WriteModel(temp_.store(), model, /*chunk_bytes=*/500).ok());
  absl::StatusOr<std::optional<internal::PricingModel>> read =
      internal::ReadModel(temp_.store(), 0);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ(**read, model);
  read = internal::ReadModel(temp_.store(), kNoon);  // not newer
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read->has_value());
}

}  // namespace
}  // namespace rtb::pricing
