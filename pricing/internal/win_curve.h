// One bucket's fitted win-rate curve and the price it says to bid.
//
// F(p) is the chance that a bid of p (USD CPM) wins: the chance that the
// price to beat (the highest other bid, or the floor) is below p. The curve
// holds F at the edges of bins [start, start + count] (internal/price_grid.h)
// as F x 65535, non-decreasing, and is linear in between. Above the last
// edge F keeps its last value. Below the first edge nothing was observed:
// the curve is not trusted there, and BestPrice never goes below it.
//
// BestPrice maximises the expected surplus (value - p) x F(p) over
// [max(floor, first edge), value], subject to keeping F(p) at least
// (1 - max_win_rate_loss) x F(value). On each bin F is linear, so the
// surplus is a concave parabola whose maximum is found in closed form; the
// walk is one step per bin between the lower bound and the value.
//
// Thread-safety: pure functions over an immutable view.
#ifndef RTB_PRICING_INTERNAL_WIN_CURVE_H_
#define RTB_PRICING_INTERNAL_WIN_CURVE_H_

#include <cstdint>

namespace rtb::pricing::internal {

inline constexpr double kCurveScale = 65535.0;

struct CurveView {
  int start = 0;
  int count = 0;                     // bins; count + 1 values
  const uint16_t* values = nullptr;  // F x 65535 at edges start .. start + count
};

// F(price_usd); 0 below the first edge.
double WinProbability(const CurveView& curve, double price_usd);

struct PriceChoice {
  double price_usd = 0;
  double win_probability = 0;  // F(price)
  bool shaded = false;         // false: the value itself is the best price
};

// See the header comment. `value_usd` > 0; `floor_usd` >= 0 (0: none).
PriceChoice BestPrice(const CurveView& curve, double value_usd, double floor_usd,
                      double max_win_rate_loss);

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_WIN_CURVE_H_
