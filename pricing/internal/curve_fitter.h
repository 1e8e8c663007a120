// Fits one bucket's win-rate curve from its counted notices.
//
// Each notice says something about the price to beat c of one auction:
//   a win at our bid b        c < b   (left-censored)
//   a price loss at our bid b c >= b  (right-censored; a bid without any
//                                      notice counts as one)
//   a minimum bid to win m    c = m   (exact; ${AUCTION_MIN_TO_WIN})
// counted per price bin (internal/price_grid.h; a bid counts at its bin's
// upper edge, so a win puts c in the bid's bin or below and a loss in the
// bins above it). The estimate of c's
// distribution is the nonparametric maximum likelihood one for such mixed
// data (Turnbull's self-consistency EM): start from a uniform distribution
// over the bins, then repeatedly give each censored notice to the bins its
// interval allows in proportion to their current mass, until the masses
// settle. Where notices cannot tell bins apart (e.g. below every bid ever
// made) the mass stays spread as it started.
//
// The bins considered run from `trust_bins` below the lowest bin any notice
// names to the highest, plus one open bin below and one above. The curve is
// F at the edges of those bins (F of the first edge is the mass below it),
// so a bidder may go at most `trust_bins` below the prices seen so far:
// shading deepens step by step where notices carry no minimum bid to win.
//
// Thread-safety: pure functions.
#ifndef RTB_PRICING_INTERNAL_CURVE_FITTER_H_
#define RTB_PRICING_INTERNAL_CURVE_FITTER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace rtb::pricing::internal {

// Notices of one price bin.
struct BinOutcomes {
  int64_t bids = 0;     // bids sent at this bin
  int64_t notices = 0;  // notices of any kind for bids at this bin
  int64_t wins_at_bid = 0;
  int64_t losses_at_bid = 0;
  int64_t price_to_beat = 0;  // exact observations of c in this bin (won or lost)
  int64_t exact_wins = 0;     // of which after a win (for the win rate)
};

// One bucket's window of notices.
struct BucketOutcomes {
  std::map<int, BinOutcomes> bins;  // by price bin
  int64_t clearing_sum_micros = 0;  // sum of win clearing prices, micro-USD CPM

  // Bids at the bin without a notice, taken as price losses.
  static int64_t Unnoticed(const BinOutcomes& bin) {
    return bin.bids > bin.notices ? bin.bids - bin.notices : 0;
  }
  int64_t wins() const;
  // Price losses, noticed or not.
  int64_t losses() const;
  int64_t samples() const { return wins() + losses(); }
};

struct FitOptions {
  int trust_bins = 5;
  int max_iterations = 2000;
  // Stop when no bin's mass moves by more than this in an iteration.
  double tolerance = 1e-7;
};

struct FittedCurve {
  int start = 0;                 // first edge's bin
  std::vector<uint16_t> values;  // F x 65535 at edges start .. start + values.size() - 1
};

// nullopt when `outcomes` holds no notice.
std::optional<FittedCurve> FitCurve(const BucketOutcomes& outcomes, const FitOptions& options);

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_CURVE_FITTER_H_
