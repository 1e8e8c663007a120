// The win-rate curve fit (pricing/internal/curve_fitter.h): exact prices to
// beat, censored wins and losses, and the trust region below the data.
#include "pricing/internal/curve_fitter.h"

#include <cmath>
#include <random>

#include "gtest/gtest.h"
#include "pricing/internal/price_grid.h"
#include "pricing/internal/win_curve.h"

namespace rtb::pricing::internal {
namespace {

double Fitted(const FittedCurve& curve, double price) {
  return WinProbability(
      CurveView{curve.start, static_cast<int>(curve.values.size()) - 1, curve.values.data()},
      price);
}

// The log-normal CDF the notices were drawn from.
double TrueCdf(double p, double median, double sigma) {
  return 0.5 * std::erfc(-std::log(p / median) / (sigma * std::sqrt(2)));
}

TEST(CurveFitterTest, NoNoticesFitsNothing) {
  EXPECT_FALSE(FitCurve(BucketOutcomes{}, FitOptions{}).has_value());
}

TEST(CurveFitterTest, ExactPricesToBeatGiveTheirEmpiricalDistribution) {
  std::mt19937_64 random(3);
  std::lognormal_distribution<double> competition(std::log(1.5), 0.25);
  BucketOutcomes outcomes;
  for (int i = 0; i < 20000; ++i) {
    const double c = competition(random);
    BinOutcomes& bin = outcomes.bins[BinOf(c)];
    ++bin.price_to_beat;
    if (c < 2.0) ++bin.exact_wins;
  }
  const std::optional<FittedCurve> curve = FitCurve(outcomes, FitOptions{});
  ASSERT_TRUE(curve.has_value());
  for (double p : {1.0, 1.2, 1.5, 1.8, 2.2, 3.0}) {
    EXPECT_NEAR(Fitted(*curve, p), TrueCdf(p, 1.5, 0.25), 0.02) << p;
  }
  EXPECT_EQ(outcomes.samples(), 20000);
}

TEST(CurveFitterTest, CensoredWinsAndLossesAtSpreadBidsRecoverTheCurve) {
  // Bids spread over 0.8 .. 3: each says only whether c was below it.
  std::mt19937_64 random(5);
  std::lognormal_distribution<double> competition(std::log(1.5), 0.3);
  std::uniform_real_distribution<double> bid(0.8, 3.0);
  BucketOutcomes outcomes;
  for (int i = 0; i < 40000; ++i) {
    const double b = bid(random);
    BinOutcomes& bin = outcomes.bins[BinOf(b)];
    if (competition(random) < b) {
      ++bin.wins_at_bid;
    } else {
      ++bin.losses_at_bid;
    }
  }
  const std::optional<FittedCurve> curve = FitCurve(outcomes, FitOptions{});
  ASSERT_TRUE(curve.has_value());
  for (double p : {1.0, 1.3, 1.5, 1.8, 2.4}) {
    EXPECT_NEAR(Fitted(*curve, p), TrueCdf(p, 1.5, 0.3), 0.04) << p;
  }
}

TEST(CurveFitterTest, TheCurveStartsTrustBinsBelowTheLowestNotice) {
  BucketOutcomes outcomes;
  outcomes.bins[BinOf(2.0)].wins_at_bid = 90;
  outcomes.bins[BinOf(2.0)].losses_at_bid = 10;
  FitOptions options;
  options.trust_bins = BinsBelow(0.1);
  const std::optional<FittedCurve> curve = FitCurve(outcomes, options);
  ASSERT_TRUE(curve.has_value());
  EXPECT_EQ(curve->start, BinOf(2.0) - options.trust_bins);
  // 90 % of the notices won at 2: F just above the bid's bin is 0.9, and
  // the mass below spreads over the trusted bins, so F falls toward the
  // first edge instead of claiming wins it never saw there.
  EXPECT_NEAR(Fitted(*curve, Edge(BinOf(2.0) + 1)), 0.9, 1e-3);
  EXPECT_LT(Fitted(*curve, Edge(curve->start) * 1.001), 0.3);
  for (size_t i = 1; i < curve->values.size(); ++i) {
    EXPECT_GE(curve->values[i], curve->values[i - 1]);
  }
}

TEST(CurveFitterTest, WinsAndLossesCountExactObservationsByOutcome) {
  BucketOutcomes outcomes;
  outcomes.bins[10].wins_at_bid = 3;
  outcomes.bins[11].losses_at_bid = 4;
  outcomes.bins[12].price_to_beat = 5;
  outcomes.bins[12].exact_wins = 2;
  EXPECT_EQ(outcomes.wins(), 5);
  EXPECT_EQ(outcomes.losses(), 7);
  EXPECT_EQ(outcomes.samples(), 12);
}

}  // namespace
}  // namespace rtb::pricing::internal
