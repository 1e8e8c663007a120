// The price grid that outcome counters, fitted curves and the bid path share:
// log-spaced bins of CPM in US dollars, 32 to a doubling (each 2.2 % wide),
// from 2^-7 USD CPM (0.0078) to 2^10 (1024):
//
//   bin k covers [Edge(k), Edge(k + 1)),  Edge(k) = 2^((k - 224) / 32)
//   bin 0 also takes every price below Edge(0), bin 543 every price at or
//   above Edge(543); bin 224 starts at 1 USD CPM.
//
// Bin numbers are stored (the qualifiers of the outcome counters, the start
// of each curve): a change here is a change of the on-disk format.
//
// Thread-safety: pure functions.
#ifndef RTB_PRICING_INTERNAL_PRICE_GRID_H_
#define RTB_PRICING_INTERNAL_PRICE_GRID_H_

#include <array>
#include <cmath>

namespace rtb::pricing::internal {

inline constexpr int kBinsPerDoubling = 32;
inline constexpr int kOneDollarBin = 224;
inline constexpr int kPriceBins = 544;

// The bin holding `usd_cpm` (any value; NaN and prices <= 0 fall in bin 0).
inline int BinOf(double usd_cpm) {
  if (!(usd_cpm > 0)) return 0;
  const double k = std::floor(std::log2(usd_cpm) * kBinsPerDoubling) + kOneDollarBin;
  if (k < 0) return 0;
  if (k >= kPriceBins) return kPriceBins - 1;
  return static_cast<int>(k);
}

// The lower edge of bin `k`, USD CPM; k may be kPriceBins (the top edge).
inline double Edge(int k) {
  return std::exp2(static_cast<double>(k - kOneDollarBin) / kBinsPerDoubling);
}

// Edge(0) .. Edge(kPriceBins), computed once: the bid path walks them.
inline const std::array<double, kPriceBins + 1>& Edges() {
  static const std::array<double, kPriceBins + 1> edges = [] {
    std::array<double, kPriceBins + 1> e;
    for (int k = 0; k <= kPriceBins; ++k) e[k] = Edge(k);
    return e;
  }();
  return edges;
}

// Bins spanned by a relative step down of `fraction` (0.1: 10 %), at least 1.
inline int BinsBelow(double fraction) {
  const double bins = std::ceil(-std::log2(1 - fraction) * kBinsPerDoubling);
  return bins < 1 ? 1 : static_cast<int>(bins);
}

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_PRICE_GRID_H_
