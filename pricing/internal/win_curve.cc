#include "pricing/internal/win_curve.h"

#include <algorithm>

#include "pricing/internal/price_grid.h"

namespace rtb::pricing::internal {
namespace {

double At(const CurveView& curve, int i) { return curve.values[i] / kCurveScale; }

// The index of the segment [edge i, edge i + 1] holding `price`, clamped to
// [0, count - 1]; `price` is within the curve's edges.
int SegmentOf(const CurveView& curve, double price) {
  const int k = BinOf(price) - curve.start;
  return std::clamp(k, 0, curve.count - 1);
}

}  // namespace

double WinProbability(const CurveView& curve, double price_usd) {
  if (curve.count <= 0) return 0;
  const std::array<double, kPriceBins + 1>& edges = Edges();
  if (price_usd < edges[curve.start]) return 0;
  if (price_usd >= edges[curve.start + curve.count]) return At(curve, curve.count);
  const int i = SegmentOf(curve, price_usd);
  const double e0 = edges[curve.start + i];
  const double e1 = edges[curve.start + i + 1];
  const double t = std::clamp((price_usd - e0) / (e1 - e0), 0.0, 1.0);
  return At(curve, i) + t * (At(curve, i + 1) - At(curve, i));
}

PriceChoice BestPrice(const CurveView& curve, double value_usd, double floor_usd,
                      double max_win_rate_loss) {
  PriceChoice unshaded{value_usd, WinProbability(curve, value_usd), false};
  if (curve.count <= 0 || !(value_usd > 0)) return unshaded;
  const std::array<double, kPriceBins + 1>& edges = Edges();
  const double first_edge = edges[curve.start];
  const double last_edge = edges[curve.start + curve.count];
  const double low = std::max(floor_usd, first_edge);
  if (low >= value_usd || unshaded.win_probability <= 0) return unshaded;
  const double target = (1 - max_win_rate_loss) * unshaded.win_probability;

  PriceChoice best = unshaded;
  double best_surplus = 0;  // the value itself earns nothing
  auto consider = [&](double price, double win) {
    const double surplus = (value_usd - price) * win;
    if (surplus > best_surplus) {
      best_surplus = surplus;
      best = {price, win, true};
    }
  };
  if (low < last_edge) {
    int first = SegmentOf(curve, low);
    const int last = value_usd >= last_edge ? curve.count - 1 : SegmentOf(curve, value_usd);
    // Segments ending under the win-rate bound cannot hold the price: the
    // curve never decreases, so skip them all with a binary search (the
    // bid path would otherwise walk every bin below the value).
    const double target_value = target * kCurveScale;
    int below = first;
    int above = last + 1;
    while (below < above) {
      const int middle = below + (above - below) / 2;
      if (curve.values[middle + 1] < target_value) {
        below = middle + 1;
      } else {
        above = middle;
      }
    }
    first = below;
    for (int i = first; i <= last; ++i) {
      const double e0 = edges[curve.start + i];
      const double e1 = edges[curve.start + i + 1];
      const double f0 = At(curve, i);
      const double f1 = At(curve, i + 1);
      double a = std::max(e0, low);
      const double b = std::min(e1, value_usd);
      if (a >= b || f1 < target) continue;
      const double slope = (f1 - f0) / (e1 - e0);
      if (slope <= 0) {
        consider(a, f0);  // flat: the lowest price of the segment
        continue;
      }
      // F(x) = f0 + slope (x - e0); the win-rate bound first.
      if (f0 + slope * (a - e0) < target) a = e0 + (target - f0) / slope;
      // d/dx (value - x) F(x) = 0 at x = (value + e0 - f0 / slope) / 2.
      const double x = std::clamp((value_usd + e0 - f0 / slope) / 2, a, b);
      consider(x, f0 + slope * (x - e0));
    }
  }
  if (value_usd > last_edge) {
    // Above the curve F is flat: its lowest price there is the best.
    const double f = At(curve, curve.count);
    if (f >= target) consider(std::max(last_edge, low), f);
  }
  return best;
}

}  // namespace rtb::pricing::internal
