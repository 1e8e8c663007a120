// Pricing on the bid path: what an impression is worth to a campaign, and
// what to bid for it (README "Pricing"; config/config.h, PricingConfig and
// CampaignGoalConfig).
//
//   value   the campaign goal's worth of one impression, at most
//           max_bid_cpm: a fixed CPM, or target CPC x predicted click rate,
//           or target CPA x predicted click rate x conversions per click.
//           Rates come from the model the pricing loop publishes (the
//           campaign's counts over pricing.rate_window_days, shrunk toward
//           the goal's priors; internal/value_estimator.h), moved by the
//           device's own history when one is given.
//   price   second price (the request's or the deal's `at` other than 1):
//           the value. First price: the price that maximises
//           (value - price) x P(win) on the bucket's win-rate curve
//           (pricing/bucket.h, internal/win_curve.h), never below the floor
//           or the lowest price the curve trusts, keeping P(win) within
//           pricing.max_win_rate_loss of the unshaded bid's. A share
//           pricing.exploration_rate of first-price bids is moved at random
//           within pricing.exploration_width of that price. A bucket without
//           a curve (fewer than pricing.min_samples notices) bids the value
//           (exploring below it); a model older than pricing.model_max_age_s
//           is not used at all (fail safe: the value, no exploration).
//
// The model reaches the bid path as an immutable snapshot published by the
// pricing loop (pricing/pricing_loop.h); reading it is an atomic load per
// call (internal/model_snapshot.h). Value and Shade take no lock, make no
// allocation and do no I/O.
//
// Thread-safety: everything but Publish may be called from any number of
// threads at once; Publish from one thread at a time (the loop).
#ifndef RTB_PRICING_PRICER_H_
#define RTB_PRICING_PRICER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "config/config.h"
#include "prometheus/registry.h"

namespace rtb::pricing {

namespace internal {
struct PricingModel;
class ModelSnapshot;
class SnapshotSlot;
class BidPricingMetrics;
class BidTally;
class CampaignFigures;
}  // namespace internal

// A device's engagement history (all campaigns): what its own rates are
// estimated from. Zeros: the campaign's rates.
struct DeviceHistory {
  int64_t impressions = 0;
  int64_t clicks = 0;
  int64_t conversions = 0;
};

// How a bid's price was chosen. The order is the metrics' label order
// (internal/pricing_metrics.h).
enum class PriceOutcome : uint8_t {
  kSecondPrice,  // not a first-price auction: the value
  kDisabled,     // pricing.shading_enabled false: the value
  kNoBucket,     // no bucket for the bid: the value
  kLearning,     // the bucket has no curve yet: the value
  kStale,        // no model, or one older than model_max_age_s: the value
  kUnshaded,     // the curve says the value is the best price
  kShaded,       // the curve's best price
  kExplored,     // moved at random around the chosen price
};

struct ShadeRequest {
  size_t exchange = 0;  // position in config.server.exchanges
  uint64_t bucket = 0;  // pricing/bucket.h; 0: none
  bool first_price = false;
  double value = 0;         // the unshaded price (> 0), in the response currency
  double floor = 0;         // in the same currency; 0: none. value >= floor.
  double usd_per_unit = 1;  // USD per unit of that currency
  int64_t now_ms = 0;       // wall clock, for the model's age
  // Draws in [0, 1): whether to explore, and where.
  double explore_draw = 1;
  double explore_offset = 0.5;
};

struct ShadeResult {
  double price = 0;  // in the request's currency, in [floor, value]
  PriceOutcome outcome = PriceOutcome::kSecondPrice;
};

// One campaign's pricing as this bidder process saw it, for operators.
struct CampaignPricingStatus {
  std::string campaign_id;
  std::string goal;  // cpm, cpc or cpa
  // The campaign rates values are computed from (the model's, else the
  // goal's priors), and the value of an impression to a device without
  // history, CPM in the campaign's currency.
  double ctr = 0;
  double cvr = 0;
  double value_cpm = 0;
  // Since this process started: bids sent, of which first price, and their
  // average price over value (1 when none was shaded).
  int64_t bids = 0;
  int64_t first_price_bids = 0;
  double average_shading_factor = 1;
  // Win and price-loss notices this process received for first-price bids,
  // wins / (wins + price losses) (0 when none), and the average clearing
  // price of those wins, CPM in the campaign's currency.
  int64_t wins = 0;
  int64_t price_losses = 0;
  double win_rate = 0;
  double average_clearing_cpm = 0;
};

class Pricer {
 public:
  // Uses config.campaigns, config.server.exchanges, config.bid.currency_rates
  // and config.pricing. `registry` may be null (no metrics). InvalidArgument
  // for a config ValidateConfig would refuse, or two exchanges whose bucket
  // bits collide (rename one).
  // `campaign_capacity`: campaign positions held for the per-campaign
  // figures (at least config.campaigns.size()), for campaigns added while
  // running (SetCampaigns).
  static absl::StatusOr<std::unique_ptr<Pricer>> Create(const config::BidderConfig& config,
                                                        prometheus::Registry* registry,
                                                        size_t campaign_capacity = 0);
  ~Pricer();
  Pricer(const Pricer&) = delete;
  Pricer& operator=(const Pricer&) = delete;

  // CPM in the campaign's currency, in (0, max_bid_cpm], for the campaign at
  // position `campaign` whose goal and max_bid_cpm the caller holds (the bid
  // path's live campaign index): no lock, no allocation.
  double Value(size_t campaign, const config::CampaignGoalConfig& goal, double max_bid_cpm,
               const DeviceHistory& history) const;
  // The same with the goal and max_bid_cpm this Pricer was last given for
  // the campaign (< campaigns()).
  double Value(size_t campaign, const DeviceHistory& history) const;
  // The price of a bid worth request.value (see the header comment).
  ShadeResult Shade(const ShadeRequest& request) const;
  // Once per bid sent: the metrics, the per-campaign figures and, for a
  // first-price bid with a bucket, the bid tally the loop writes out (bids
  // that get no notice count as losses).
  void CountBid(size_t campaign, const ShadeRequest& request, const ShadeResult& result) const;
  // Once per first-price notice received (pricing/feedback.h).
  void CountNotice(size_t campaign, bool won, double clearing_usd_cpm) const;

  // Replaces the campaigns: by_position[i] is the campaign at position i
  // (positions keep their id; campaigns are only appended). A campaign whose
  // currency has no rate, or with a max_bid_cpm or goal priors not > 0, keeps
  // its position with the priors of the config's validation refused; the
  // figures of positions past the capacity are not kept. Any thread.
  void SetCampaigns(const std::vector<config::CampaignConfig>& by_position);
  // The position of campaign `id`; nullopt for one never given.
  std::optional<size_t> CampaignPosition(std::string_view id) const;

  // The exchange part of bucket ids (pricing/bucket.h) of exchange number
  // `exchange`; 0 when out of range.
  uint64_t ExchangeBits(size_t exchange) const;
  size_t campaigns() const;

  // Every campaign in position order. Safe from any thread.
  std::vector<CampaignPricingStatus> CampaignStatuses() const;
  // computed_at of the model the bid path reads; 0 before the first.
  int64_t ModelComputedAtMs() const;

  // Writer side (the pricing loop): replaces the model the bid path reads,
  // and takes the bids counted since the last take.
  void Publish(const internal::PricingModel& model);
  internal::BidTally& bid_tally() const { return *tally_; }

 private:
  struct CampaignEntry;
  Pricer();

  // The entry of `campaign` under the currency rates; false when unusable.
  bool MakeEntry(const config::CampaignConfig& campaign, CampaignEntry* entry) const;

  std::vector<uint64_t> exchange_bits_;
  std::map<std::string, double> usd_per_unit_;
  std::string default_currency_;
  size_t capacity_ = 0;
  config::PricingConfig options_;
  mutable absl::Mutex mu_;
  std::vector<CampaignEntry> campaigns_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> campaign_ids_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, size_t> positions_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<internal::SnapshotSlot> slot_;
  std::unique_ptr<internal::BidPricingMetrics> metrics_;
  std::unique_ptr<internal::CampaignFigures> figures_;
  std::unique_ptr<internal::BidTally> tally_;
};

}  // namespace rtb::pricing

#endif  // RTB_PRICING_PRICER_H_
