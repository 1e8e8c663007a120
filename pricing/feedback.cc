#include "pricing/feedback.h"

#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/time/time.h"
#include "pricing/internal/price_grid.h"
#include "pricing/internal/pricing_metrics.h"
#include "pricing/internal/pricing_rows.h"
#include "pricing/pricer.h"
#include "storage/key_bytes.h"
#include "storage/schemas.h"

namespace rtb::pricing {
namespace {

using internal::OutcomeKind;

// A nonzero Increment nonce from an id and what is counted under it.
uint64_t Nonce(std::string_view id, std::string_view what) {
  std::string text(what);
  text.push_back('|');
  text.append(id);
  const uint64_t nonce = storage::StableHash64(text);
  return nonce == 0 ? 1 : nonce;
}

bool Plausible(double cpm) { return std::isfinite(cpm) && cpm > 0 && cpm <= 1e4; }

}  // namespace

std::optional<double> PricingFeedback::ClearingUsd(const AuctionNotice& notice) const {
  if (notice.clearing_cpm.has_value()) {
    const std::optional<double> clearing =
        ToUsd(*notice.clearing_cpm,
              notice.clearing_currency.empty() ? notice.bid_currency : notice.clearing_currency);
    if (clearing.has_value() && Plausible(*clearing)) return clearing;
  }
  // First price without the price echoed: the win paid our bid.
  const std::optional<double> bid = ToUsd(notice.bid_cpm, notice.bid_currency);
  if (bid.has_value() && Plausible(*bid)) return bid;
  return std::nullopt;
}

PricingFeedback::PricingFeedback(const config::BidderConfig& config, storage::Store& store,
                                 const Pricer* pricer, prometheus::Registry* registry)
    : store_(store), pricer_(pricer) {
  for (const auto& [code, rate] : config.bid.currency_rates) usd_per_unit_.emplace(code, rate);
  usd_per_unit_.try_emplace("USD", 1.0);
  std::vector<std::string> names;
  for (size_t i = 0; i < config.server.exchanges.size(); ++i) {
    exchanges_.emplace(config.server.exchanges[i].name, i);
    names.push_back(config.server.exchanges[i].name);
  }
  metrics_ = std::make_unique<internal::FeedbackMetrics>(registry, names);
}

PricingFeedback::~PricingFeedback() = default;

bool PricingFeedback::IsPriceLoss(std::string_view reason) {
  if (reason.empty()) return true;
  int code = 0;
  if (!absl::SimpleAtoi(std::string(reason), &code)) return false;
  return code >= 100 && code <= 103;
}

std::optional<double> PricingFeedback::ToUsd(double amount, std::string_view currency) const {
  auto it = usd_per_unit_.find(currency);
  if (it == usd_per_unit_.end()) {
    it = usd_per_unit_.find(absl::AsciiStrToUpper(std::string(currency)));
    if (it == usd_per_unit_.end()) return std::nullopt;
  }
  return amount * it->second;
}

std::optional<storage::Increment> PricingFeedback::NoticeIncrement(
    const AuctionNotice& notice) const {
  if (notice.bucket == 0) return std::nullopt;
  const std::optional<double> bid = ToUsd(notice.bid_cpm, notice.bid_currency);
  if (!bid.has_value() || !Plausible(*bid)) return std::nullopt;
  storage::Increment increment;
  increment.row = internal::OutcomeRow(notice.bucket, internal::HourOf(notice.bid_time_ms));
  increment.durability = storage::Durability::kAsyncWal;
  increment.nonce = Nonce(notice.notice_id, notice.won ? "win" : "loss");
  const std::string family(internal::kOutcomeFamily);
  // Every notice, whatever it says, keeps its bid from counting as unnoticed.
  increment.columns.push_back(
      {family, internal::OutcomeQualifier(OutcomeKind::kNotices, internal::BinOf(*bid)), 1});
  if (!notice.won && !IsPriceLoss(notice.loss_reason)) return increment;
  std::optional<double> to_beat;
  if (notice.min_to_win_cpm.has_value())
    to_beat = ToUsd(*notice.min_to_win_cpm, notice.bid_currency);
  if (to_beat.has_value() && Plausible(*to_beat)) {
    const OutcomeKind kind =
        notice.won ? OutcomeKind::kWinPriceToBeat : OutcomeKind::kLossPriceToBeat;
    increment.columns.push_back(
        {family, internal::OutcomeQualifier(kind, internal::BinOf(*to_beat)), 1});
  } else {
    const OutcomeKind kind = notice.won ? OutcomeKind::kWinAtBid : OutcomeKind::kLossAtBid;
    increment.columns.push_back(
        {family, internal::OutcomeQualifier(kind, internal::BinOf(*bid)), 1});
  }
  if (notice.won) {
    const std::optional<double> clearing = ClearingUsd(notice);
    if (clearing.has_value()) {
      increment.columns.push_back(
          {family, std::string(1, internal::kClearingSumQualifier), std::llround(*clearing * 1e6)});
    }
  }
  return increment;
}

void PricingFeedback::RecordNotice(const AuctionNotice& notice) {
  if (notice.bucket == 0) return;
  auto exchange = exchanges_.find(std::string(notice.exchange));
  const size_t exchange_index = exchange != exchanges_.end() ? exchange->second : exchanges_.size();
  const bool counted = notice.won || IsPriceLoss(notice.loss_reason);
  const double clearing_usd = notice.won ? ClearingUsd(notice).value_or(0) : 0;
  metrics_->CountNotice(exchange_index,
                        notice.won ? internal::NoticeKind::kWin
                        : counted  ? internal::NoticeKind::kPriceLoss
                                   : internal::NoticeKind::kOtherLoss,
                        clearing_usd);
  if (counted && pricer_ != nullptr) {
    if (const std::optional<size_t> campaign = pricer_->CampaignPosition(notice.campaign_id)) {
      pricer_->CountNotice(*campaign, notice.won, clearing_usd);
    }
  }
  // Even a loss for another reason is written: it marks its bid as noticed,
  // so the bid tally does not take it for a price loss.
  std::optional<storage::Increment> increment = NoticeIncrement(notice);
  if (!increment.has_value()) return;
  if (!store_.Increment(storage::kPricingTable, *increment).ok()) metrics_->CountFailure();
}

void PricingFeedback::RecordEngagement(std::string_view campaign_id, Engagement kind,
                                       int64_t event_ms, std::string_view event_id) {
  internal::EngagementKind stored = internal::EngagementKind::kImpression;
  switch (kind) {
    case Engagement::kImpression:
      break;
    case Engagement::kClick:
      stored = internal::EngagementKind::kClick;
      break;
    case Engagement::kConversion:
      stored = internal::EngagementKind::kConversion;
      break;
  }
  const std::string kind_name(1, static_cast<char>(stored));
  storage::Increment increment;
  increment.row = internal::EngagementRow(
      campaign_id, static_cast<int>(storage::StableHash64(event_id) % internal::kSalts));
  increment.columns.push_back(
      {std::string(internal::kEngagementFamily),
       internal::EngagementQualifier(
           stored, absl::FormatTime("%Y%m%d", absl::FromUnixMillis(event_ms), absl::UTCTimeZone())),
       1});
  increment.durability = storage::Durability::kAsyncWal;
  increment.nonce = Nonce(event_id, kind_name);
  if (!store_.Increment(storage::kPricingTable, increment).ok()) metrics_->CountFailure();
}

}  // namespace rtb::pricing
