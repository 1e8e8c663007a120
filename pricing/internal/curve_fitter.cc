#include "pricing/internal/curve_fitter.h"

#include <algorithm>
#include <cmath>

#include "pricing/internal/price_grid.h"
#include "pricing/internal/win_curve.h"

namespace rtb::pricing::internal {

int64_t BucketOutcomes::wins() const {
  int64_t n = 0;
  for (const auto& [bin, o] : bins) n += o.wins_at_bid + o.exact_wins;
  return n;
}

int64_t BucketOutcomes::losses() const {
  int64_t n = 0;
  for (const auto& [bin, o] : bins) {
    n += o.losses_at_bid + (o.price_to_beat - o.exact_wins) + Unnoticed(o);
  }
  return n;
}

std::optional<FittedCurve> FitCurve(const BucketOutcomes& outcomes, const FitOptions& options) {
  int lowest = kPriceBins;
  int highest = -1;
  double total = 0;
  for (const auto& [bin, o] : outcomes.bins) {
    const int64_t n =
        o.wins_at_bid + o.losses_at_bid + BucketOutcomes::Unnoticed(o) + o.price_to_beat;
    if (n <= 0) continue;
    lowest = std::min(lowest, bin);
    highest = std::max(highest, bin);
    total += static_cast<double>(n);
  }
  if (highest < 0) return std::nullopt;
  const int first_bin = std::max(0, lowest - options.trust_bins);
  // Index 0: below first_bin; 1 .. m: bins first_bin .. highest; m + 1: above.
  const int m = highest - first_bin + 1;
  const int size = m + 2;
  std::vector<double> wins(size, 0), losses(size, 0), exact(size, 0);
  for (const auto& [bin, o] : outcomes.bins) {
    if (bin < first_bin || bin > highest) continue;
    // A bid is taken at its bin's upper edge: a win there says c is in
    // this bin or below, a loss that c is in the next bin or above. That
    // errs by at most one bin toward higher prices (and so more wins), and
    // keeps a win and a loss at the same bid from both claiming the bin.
    const int i = bin - first_bin + 1;
    wins[i] += static_cast<double>(o.wins_at_bid);
    losses[i + 1] += static_cast<double>(o.losses_at_bid + BucketOutcomes::Unnoticed(o));
    exact[i] += static_cast<double>(o.price_to_beat);
  }

  std::vector<double> p(size, 1.0 / size), next(size), below(size), above(size);
  for (int iteration = 0; iteration < options.max_iterations; ++iteration) {
    // below[i] = mass of [0, i]; above[i] = mass of [i, size).
    double sum = 0;
    for (int i = 0; i < size; ++i) below[i] = sum += p[i];
    sum = 0;
    for (int i = size - 1; i >= 0; --i) above[i] = sum += p[i];
    // A win at i shares itself among [0, i], a loss at i among [i, size):
    // bin j gets p[j] x (sum over wins at i >= j of w_i / below[i] + sum
    // over losses at i <= j of l_i / above[i]).
    std::vector<double>& from_wins = next;  // suffix sums, reused below
    double acc = 0;
    for (int i = size - 1; i >= 0; --i) {
      if (wins[i] > 0 && below[i] > 0) acc += wins[i] / below[i];
      from_wins[i] = acc;
    }
    acc = 0;
    double moved = 0;
    for (int j = 0; j < size; ++j) {
      if (losses[j] > 0 && above[j] > 0) acc += losses[j] / above[j];
      const double updated = (exact[j] + p[j] * (from_wins[j] + acc)) / total;
      moved = std::max(moved, std::abs(updated - p[j]));
      // from_wins[j] is no longer needed once bin j is done: store the new
      // mass in `below`, free from here on.
      below[j] = updated;
    }
    p.swap(below);
    if (moved < options.tolerance) break;
  }

  FittedCurve curve;
  curve.start = first_bin;
  curve.values.reserve(m + 1);
  double cumulative = 0;
  for (int i = 0; i <= m; ++i) {
    cumulative += p[i];
    curve.values.push_back(
        static_cast<uint16_t>(std::lround(std::clamp(cumulative, 0.0, 1.0) * kCurveScale)));
  }
  return curve;
}

}  // namespace rtb::pricing::internal
