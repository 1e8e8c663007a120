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
                                                       prometheus::Registry* registry,
                                                       size_t campaign_capacity) {
  std::unique_ptr<Pricer> pricer(new Pricer());
  pricer->options_ = config.pricing;
  pricer->usd_per_unit_ = config.bid.currency_rates;
  pricer->usd_per_unit_.try_emplace("USD", 1.0);
  pricer->default_currency_ = config.bid.default_currency;
  pricer->capacity_ = std::max(config.campaigns.size(), campaign_capacity);
  for (const config::CampaignConfig& campaign : config.campaigns) {
    CampaignEntry entry;
    if (!pricer->MakeEntry(campaign, &entry)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "campaign ", campaign.id,
          ": its currency needs a rate, and max_bid_cpm and the goal's priors must be > 0"));
    }
  }
  pricer->SetCampaigns(config.campaigns);
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
  pricer->figures_ = std::make_unique<internal::CampaignFigures>(pricer->capacity_);
  pricer->slot_ = std::make_unique<internal::SnapshotSlot>();
  pricer->tally_ = std::make_unique<internal::BidTally>();
  return pricer;
}

bool Pricer::MakeEntry(const config::CampaignConfig& campaign, CampaignEntry* entry) const {
  entry->goal = campaign.goal;
  entry->max_bid_cpm = campaign.max_bid_cpm;
  const std::string& currency = campaign.currency.empty() ? default_currency_ : campaign.currency;
  auto rate = usd_per_unit_.find(currency);
  if (rate == usd_per_unit_.end() || !(rate->second > 0)) return false;
  entry->usd_per_unit = rate->second;
  return campaign.max_bid_cpm > 0 && campaign.goal.prior_ctr > 0 && campaign.goal.prior_cvr > 0;
}

void Pricer::SetCampaigns(const std::vector<config::CampaignConfig>& by_position) {
  std::vector<CampaignEntry> entries;
  entries.reserve(by_position.size());
  for (const config::CampaignConfig& campaign : by_position) {
    CampaignEntry entry;
    if (!MakeEntry(campaign, &entry)) {
      // Only a stored campaign that no longer decodes gets here; it does not
      // bid, and its figures stay at zero.
      entry.goal = config::CampaignGoalConfig();
      entry.max_bid_cpm = std::max(campaign.max_bid_cpm, 0.0);
      if (!(entry.usd_per_unit > 0)) entry.usd_per_unit = 1;
    }
    entries.push_back(entry);
  }
  absl::MutexLock lock(&mu_);
  campaigns_ = std::move(entries);
  for (size_t i = campaign_ids_.size(); i < by_position.size(); ++i) {
    campaign_ids_.push_back(by_position[i].id);
    positions_.emplace(by_position[i].id, i);
  }
}

std::optional<size_t> Pricer::CampaignPosition(std::string_view id) const {
  absl::MutexLock lock(&mu_);
  auto it = positions_.find(std::string(id));
  if (it == positions_.end()) return std::nullopt;
  return it->second;
}

double Pricer::Value(size_t campaign, const config::CampaignGoalConfig& goal, double max_bid_cpm,
                     const DeviceHistory& history) const {
  if (goal.type == config::CampaignGoal::kCpm) return max_bid_cpm;
  const internal::ModelSnapshot* snapshot = slot_->Get();
  const internal::CampaignRates* rates = snapshot != nullptr ? snapshot->Rates(campaign) : nullptr;
  const double campaign_ctr = rates != nullptr ? rates->ctr : goal.prior_ctr;
  const double campaign_cvr = rates != nullptr ? rates->cvr : goal.prior_cvr;
  const double ctr = internal::ShrunkRate(history.clicks, history.impressions, campaign_ctr,
                                          options_.device_prior_impressions);
  const double cvr = internal::ShrunkRate(history.conversions, history.clicks, campaign_cvr,
                                          options_.device_prior_clicks);
  return internal::ImpressionValue(goal, max_bid_cpm, ctr, cvr);
}

double Pricer::Value(size_t campaign, const DeviceHistory& history) const {
  CampaignEntry c;
  {
    absl::MutexLock lock(&mu_);
    c = campaigns_[campaign];
  }
  return Value(campaign, c.goal, c.max_bid_cpm, history);
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
  if (campaign < capacity_) figures_->AddBid(campaign, request.first_price, factor);
  if (request.first_price && request.bucket != 0) {
    tally_->Add(request.bucket, internal::HourOf(request.now_ms),
                internal::BinOf(result.price * request.usd_per_unit));
  }
}

void Pricer::CountNotice(size_t campaign, bool won, double clearing_usd_cpm) const {
  if (campaign < capacity_) figures_->AddNotice(campaign, won, clearing_usd_cpm);
}

uint64_t Pricer::ExchangeBits(size_t exchange) const {
  return exchange < exchange_bits_.size() ? exchange_bits_[exchange] : 0;
}

size_t Pricer::campaigns() const {
  absl::MutexLock lock(&mu_);
  return campaigns_.size();
}

std::vector<CampaignPricingStatus> Pricer::CampaignStatuses() const {
  const std::shared_ptr<const internal::ModelSnapshot> snapshot = slot_->Load();
  std::vector<CampaignPricingStatus> statuses;
  absl::MutexLock lock(&mu_);
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
    const internal::CampaignFigures::Totals totals =
        i < capacity_ ? figures_->Sum(i) : internal::CampaignFigures::Totals();
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
  std::vector<std::string> ids;
  {
    absl::MutexLock lock(&mu_);
    ids = campaign_ids_;
  }
  slot_->Publish(std::make_shared<const internal::ModelSnapshot>(model, ids));
}

}  // namespace rtb::pricing
