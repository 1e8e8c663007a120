// The bid path's price choice on a fitted curve (pricing/internal/win_curve.h)
// and the price grid under it.
#include "pricing/internal/win_curve.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "pricing/internal/price_grid.h"

namespace rtb::pricing::internal {
namespace {

TEST(PriceGridTest, BinsAreThirtyTwoToADoublingFromOneDollarAtBin224) {
  EXPECT_EQ(BinOf(1.0), kOneDollarBin);
  EXPECT_EQ(BinOf(2.0), kOneDollarBin + kBinsPerDoubling);
  EXPECT_EQ(BinOf(0.5), kOneDollarBin - kBinsPerDoubling);
  EXPECT_DOUBLE_EQ(Edge(kOneDollarBin), 1.0);
  for (int k = 0; k < kPriceBins; k += 7) {
    const double middle = std::sqrt(Edge(k) * Edge(k + 1));
    EXPECT_EQ(BinOf(middle), k) << k;
  }
}

TEST(PriceGridTest, PricesOutsideTheGridFallInTheEndBins) {
  EXPECT_EQ(BinOf(0), 0);
  EXPECT_EQ(BinOf(-3), 0);
  EXPECT_EQ(BinOf(std::nan("")), 0);
  EXPECT_EQ(BinOf(1e-6), 0);
  EXPECT_EQ(BinOf(5000), kPriceBins - 1);
}

TEST(PriceGridTest, BinsBelowCoversTheRelativeStep) {
  for (double fraction : {0.01, 0.05, 0.1, 0.3}) {
    const int bins = BinsBelow(fraction);
    EXPECT_LE(Edge(100) / Edge(100 + bins), 1 - fraction + 1e-12) << fraction;
    EXPECT_GT(Edge(100) / Edge(100 + bins - 1), 1 - fraction) << fraction;
  }
}

// A curve from a CDF evaluated at the edges of bins [start, start + count].
struct TestCurve {
  int start = 0;
  std::vector<uint16_t> values;
  CurveView view() const { return {start, static_cast<int>(values.size()) - 1, values.data()}; }
};

template <typename Cdf>
TestCurve CurveOf(int start, int count, Cdf cdf) {
  TestCurve curve;
  curve.start = start;
  for (int i = 0; i <= count; ++i) {
    curve.values.push_back(static_cast<uint16_t>(std::lround(cdf(Edge(start + i)) * kCurveScale)));
  }
  return curve;
}

// Competition log-normal around `median` with log-sd `sigma`.
auto LogNormal(double median, double sigma) {
  return [=](double p) { return 0.5 * std::erfc(-std::log(p / median) / (sigma * std::sqrt(2))); };
}

// The best price over a fine grid of [low, value], by brute force.
double BruteForceBest(const CurveView& curve, double value, double low, double target) {
  double best_price = value;
  double best = 0;
  for (int i = 0; i <= 200000; ++i) {
    const double p = low + (value - low) * i / 200000.0;
    const double f = WinProbability(curve, p);
    if (f < target) continue;
    if ((value - p) * f > best) {
      best = (value - p) * f;
      best_price = p;
    }
  }
  return best_price;
}

TEST(WinCurveTest, WinProbabilityInterpolatesBetweenEdgesAndIsFlatAboveTheLast) {
  TestCurve curve{kOneDollarBin, {0, 32767, 65535}};
  EXPECT_EQ(WinProbability(curve.view(), 0.99), 0);
  EXPECT_NEAR(WinProbability(curve.view(), 1.0), 0, 1e-9);
  const double mid = (Edge(kOneDollarBin) + Edge(kOneDollarBin + 1)) / 2;
  EXPECT_NEAR(WinProbability(curve.view(), mid), 0.25, 1e-4);
  EXPECT_NEAR(WinProbability(curve.view(), Edge(kOneDollarBin + 1)), 0.5, 1e-4);
  EXPECT_NEAR(WinProbability(curve.view(), 50), 1.0, 1e-9);
}

TEST(WinCurveTest, BestPriceMatchesBruteForceSurplusMaximum) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> median(0.5, 4);
  std::uniform_real_distribution<double> sigma(0.05, 0.6);
  std::uniform_real_distribution<double> ratio(1.1, 4);
  for (int trial = 0; trial < 50; ++trial) {
    const double m = median(random);
    const double s = sigma(random);
    const int start = BinOf(m * std::exp(-3 * s));
    const int end = BinOf(m * std::exp(3 * s)) + 1;
    const TestCurve curve = CurveOf(start, end - start, LogNormal(m, s));
    const double value = m * ratio(random);
    const PriceChoice choice = BestPrice(curve.view(), value, 0, /*max_win_rate_loss=*/1);
    const double expected = BruteForceBest(curve.view(), value, Edge(start), 0);
    const auto surplus = [&](double p) { return (value - p) * WinProbability(curve.view(), p); };
    EXPECT_GE(surplus(choice.price_usd), surplus(expected) * (1 - 1e-6)) << trial;
    EXPECT_NEAR(choice.price_usd, expected, value * 1e-3) << trial;
    EXPECT_TRUE(choice.shaded);
    EXPECT_LT(choice.price_usd, value);
  }
}

TEST(WinCurveTest, WinRateBoundKeepsTheChanceOfWinningNearTheUnshadedBids) {
  const TestCurve curve =
      CurveOf(BinOf(0.3), BinOf(3) - BinOf(0.3), LogNormal(/*median=*/1, /*sigma=*/0.4));
  const double value = 3;
  const double unshaded = WinProbability(curve.view(), value);
  const PriceChoice free = BestPrice(curve.view(), value, 0, 1);
  const PriceChoice bounded = BestPrice(curve.view(), value, 0, 0.05);
  EXPECT_LT(free.win_probability, 0.95 * unshaded);
  EXPECT_GE(bounded.win_probability, 0.95 * unshaded - 1e-9);
  EXPECT_GT(bounded.price_usd, free.price_usd);
  EXPECT_NEAR(bounded.price_usd,
              BruteForceBest(curve.view(), value, Edge(curve.start), 0.95 * unshaded), 1e-3);
}

TEST(WinCurveTest, NeverBidsBelowTheFloorOrTheFirstEdge) {
  const TestCurve curve = CurveOf(BinOf(0.5), 60, LogNormal(1, 0.3));
  const PriceChoice floored = BestPrice(curve.view(), 4, /*floor_usd=*/2.5, 1);
  EXPECT_GE(floored.price_usd, 2.5);
  // A curve that starts above where the best price would be.
  const TestCurve high = CurveOf(BinOf(1.8), 40, LogNormal(1, 0.3));
  const PriceChoice trusted = BestPrice(high.view(), 4, 0, 1);
  EXPECT_GE(trusted.price_usd, Edge(BinOf(1.8)));
}

TEST(WinCurveTest, AValueBelowTheCurveOrANeverWinningCurveIsNotShaded) {
  const TestCurve curve = CurveOf(BinOf(2), 30, LogNormal(3, 0.2));
  const PriceChoice below = BestPrice(curve.view(), 1.5, 0, 1);
  EXPECT_FALSE(below.shaded);
  EXPECT_DOUBLE_EQ(below.price_usd, 1.5);
  TestCurve never{BinOf(1), std::vector<uint16_t>(20, 0)};
  const PriceChoice none = BestPrice(never.view(), 5, 0, 1);
  EXPECT_FALSE(none.shaded);
  EXPECT_DOUBLE_EQ(none.price_usd, 5);
}

TEST(WinCurveTest, AboveTheCurveTheLowestPriceOfTheFlatTailIsChosen) {
  // Certain to win from 1.1 up: a value of 10 bids the curve's last edge.
  const TestCurve curve = CurveOf(BinOf(0.9), BinOf(1.1) + 1 - BinOf(0.9),
                                  [](double p) { return p >= 1.1 ? 1.0 : 0.0; });
  const PriceChoice choice = BestPrice(curve.view(), 10, 0, 1);
  EXPECT_TRUE(choice.shaded);
  EXPECT_LE(choice.price_usd, Edge(BinOf(1.1) + 1) + 1e-9);
  EXPECT_NEAR(choice.win_probability, 1, 1e-4);
}

}  // namespace
}  // namespace rtb::pricing::internal
