#include "pricing/pricer.h"

#include <algorithm>
#include <exception>
#include <map>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "pricing/bucket.h"
#include "pricing/internal/bid_tally.h"
#include "pricing/internal/campaign_figures.h"
#include "pricing/internal/model_snapshot.h"
#include "pricing/internal/price_grid.h"
#include "pricing/internal/pricing_metrics.h"
#include "pricing/internal/pricing_rows.h"
#include "pricing/internal/value_estimator.h"
#include "pricing/internal/win_curve.h"

namespace rtb::pricing {

struct Pricer::CampaignEntry {
  config::CampaignGoalConfig goal;
  double max_bid_cpm = 0;
  double usd_per_unit = 1;  // of the campaign's currency
};

Pricer::Pricer() = default;
Pricer::~Pricer() = default;

absl::StatusOr<std::unique_ptr<Pricer>> Pricer::Create(const config::BidderConfig& config,
                                                       prometheus::Registry* registry) {
  std::unique_ptr<Pricer> pricer(new Pricer());
  pricer->options_ = config.pricing;
  std::map<std::string, double> usd_per_unit = config.bid.currency_rates;
  usd_per_unit.try_emplace("USD", 1.0);
  for (const config::CampaignConfig& campaign : config.campaigns) {
    CampaignEntry entry;
    entry.goal = campaign.goal;
    entry.max_bid_cpm = campaign.max_bid_cpm;
    const std::string& currency =
        campaign.currency.empty() ? config.bid.default_currency : campaign.currency;
    auto rate = usd_per_unit.find(currency);
    if (rate == usd_per_unit.end() || !(rate->second > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("campaign ", campaign.id, ": no rate for its currency ", currency));
    }
    if (!(campaign.max_bid_cpm > 0) || !(campaign.goal.prior_ctr > 0) ||
        !(campaign.goal.prior_cvr > 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "campaign ", campaign.id, ": max_bid_cpm and the goal's priors must be > 0"));
    }
    entry.usd_per_unit = rate->second;
    pricer->campaigns_.push_back(entry);
    pricer->campaign_ids_.push_back(campaign.id);
  }
  absl::flat_hash_map<uint64_t, std::string> seen;
  std::vector<std::string> exchange_names;
  for (const config::ExchangeConfig& exchange : config.server.exchanges) {
    const uint64_t bits = ExchangeBucketBits(exchange.name);
    auto [it, inserted] = seen.emplace(bits, exchange.name);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat("exchanges ", it->second, " and ",
                                                     exchange.name,
                                                     " share their pricing bucket bits: rename "
                                                     "one"));
    }
    pricer->exchange_bits_.push_back(bits);
    exchange_names.push_back(exchange.name);
  }
  try {
    pricer->metrics_ = std::make_unique<internal::BidPricingMetrics>(registry, exchange_names);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot declare the pricing metrics: ", e.what()));
  }
  pricer->figures_ = std::make_unique<internal::CampaignFigures>(pricer->campaigns_.size());
  pricer->slot_ = std::make_unique<internal::SnapshotSlot>();
  pricer->tally_ = std::make_unique<internal::BidTally>();
  return pricer;
}

double Pricer::Value(size_t campaign, const DeviceHistory& history) const {
  const CampaignEntry& c = campaigns_[campaign];
  if (c.goal.type == config::CampaignGoal::kCpm) return c.max_bid_cpm;
  const internal::ModelSnapshot* snapshot = slot_->Get();
  const internal::CampaignRates* rates = snapshot != nullptr ? snapshot->Rates(campaign) : nullptr;
  const double campaign_ctr = rates != nullptr ? rates->ctr : c.goal.prior_ctr;
  const double campaign_cvr = rates != nullptr ? rates->cvr : c.goal.prior_cvr;
  const double ctr = internal::ShrunkRate(history.clicks, history.impressions, campaign_ctr,
                                          options_.device_prior_impressions);
  const double cvr = internal::ShrunkRate(history.conversions, history.clicks, campaign_cvr,
                                          options_.device_prior_clicks);
  return internal::ImpressionValue(c.goal, c.max_bid_cpm, ctr, cvr);
}

ShadeResult Pricer::Shade(const ShadeRequest& request) const {
  const double value = request.value;
  if (!request.first_price) return {value, PriceOutcome::kSecondPrice};
  if (!options_.shading_enabled) return {value, PriceOutcome::kDisabled};
  if (request.bucket == 0) return {value, PriceOutcome::kNoBucket};
  const internal::ModelSnapshot* snapshot = slot_->Get();
  if (snapshot == nullptr ||
      request.now_ms - snapshot->computed_at_ms() > int64_t{options_.model_max_age_s} * 1000) {
    return {value, PriceOutcome::kStale};
  }
  const bool explore = request.explore_draw < options_.exploration_rate;
  const std::optional<internal::CurveView> curve = snapshot->Curve(request.bucket);
  ShadeResult result{value, PriceOutcome::kLearning};
  if (curve.has_value()) {
    const double usd = request.usd_per_unit;
    const internal::PriceChoice choice =
        internal::BestPrice(*curve, value * usd, request.floor * usd, options_.max_win_rate_loss);
    result.price = choice.price_usd / usd;
    result.outcome = choice.shaded ? PriceOutcome::kShaded : PriceOutcome::kUnshaded;
  }
  if (explore) {
    // Around the chosen price; without a curve, below the value only.
    const double offset =
        curve.has_value() ? 2 * request.explore_offset - 1 : -request.explore_offset;
    result.price *= 1 + options_.exploration_width * offset;
    result.outcome = PriceOutcome::kExplored;
  }
  result.price = std::clamp(result.price, request.floor, value);
  return result;
}

void Pricer::CountBid(size_t campaign, const ShadeRequest& request,
                      const ShadeResult& result) const {
  const double factor = request.value > 0 ? result.price / request.value : 1;
  metrics_->CountBid(request.exchange, static_cast<size_t>(result.outcome), request.first_price,
                     factor);
  figures_->AddBid(campaign, request.first_price, factor);
  if (request.first_price && request.bucket != 0) {
    tally_->Add(request.bucket, internal::HourOf(request.now_ms),
                internal::BinOf(result.price * request.usd_per_unit));
  }
}

void Pricer::CountNotice(size_t campaign, bool won, double clearing_usd_cpm) const {
  figures_->AddNotice(campaign, won, clearing_usd_cpm);
}

uint64_t Pricer::ExchangeBits(size_t exchange) const {
  return exchange < exchange_bits_.size() ? exchange_bits_[exchange] : 0;
}

size_t Pricer::campaigns() const { return campaigns_.size(); }

std::vector<CampaignPricingStatus> Pricer::CampaignStatuses() const {
  const std::shared_ptr<const internal::ModelSnapshot> snapshot = slot_->Load();
  std::vector<CampaignPricingStatus> statuses;
  statuses.reserve(campaigns_.size());
  for (size_t i = 0; i < campaigns_.size(); ++i) {
    const CampaignEntry& c = campaigns_[i];
    CampaignPricingStatus status;
    status.campaign_id = campaign_ids_[i];
    status.goal = config::CampaignGoalName(c.goal.type);
    const internal::CampaignRates* rates = snapshot != nullptr ? snapshot->Rates(i) : nullptr;
    status.ctr = rates != nullptr ? rates->ctr : c.goal.prior_ctr;
    status.cvr = rates != nullptr ? rates->cvr : c.goal.prior_cvr;
    status.value_cpm = internal::ImpressionValue(c.goal, c.max_bid_cpm, status.ctr, status.cvr);
    const internal::CampaignFigures::Totals totals = figures_->Sum(i);
    status.bids = totals.bids;
    status.first_price_bids = totals.first_price_bids;
    if (totals.first_price_bids > 0) {
      status.average_shading_factor =
          totals.factor_sum / static_cast<double>(totals.first_price_bids);
    }
    status.wins = totals.wins;
    status.price_losses = totals.price_losses;
    if (totals.wins + totals.price_losses > 0) {
      status.win_rate =
          static_cast<double>(totals.wins) / static_cast<double>(totals.wins + totals.price_losses);
    }
    if (totals.wins > 0) {
      status.average_clearing_cpm =
          totals.clearing_sum_usd / static_cast<double>(totals.wins) / c.usd_per_unit;
    }
    statuses.push_back(std::move(status));
  }
  return statuses;
}

int64_t Pricer::ModelComputedAtMs() const {
  const std::shared_ptr<const internal::ModelSnapshot> snapshot = slot_->Load();
  return snapshot != nullptr ? snapshot->computed_at_ms() : 0;
}

void Pricer::Publish(const internal::PricingModel& model) {
  slot_->Publish(std::make_shared<const internal::ModelSnapshot>(model, campaign_ids_));
}

}  // namespace rtb::pricing
