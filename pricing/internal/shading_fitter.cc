#include "pricing/internal/shading_fitter.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "pricing/bucket.h"
#include "pricing/internal/price_grid.h"
#include "pricing/internal/pricing_rows.h"
#include "pricing/internal/value_estimator.h"
#include "storage/schemas.h"

namespace rtb::pricing::internal {
namespace {

constexpr int kScanBatchRows = 1000;
constexpr int64_t kDayMs = int64_t{24} * 3600 * 1000;

// How long after a bid its notices are waited for before a bid without one
// counts as a price loss.
constexpr int64_t kNoticeDelayMs = 5 * 60 * 1000;

void AddCell(const storage::Cell& cell, bool settled, BucketOutcomes* outcomes) {
  const std::optional<int64_t> count = storage::DecodeCounter(cell.value);
  if (!count.has_value() || *count <= 0) return;
  if (cell.qualifier.size() == 1 && cell.qualifier[0] == kClearingSumQualifier) {
    outcomes->clearing_sum_micros += *count;
    return;
  }
  const std::optional<OutcomeCell> parsed = ParseOutcomeQualifier(cell.qualifier);
  if (!parsed.has_value()) return;
  if (!settled && (parsed->kind == OutcomeKind::kBids || parsed->kind == OutcomeKind::kNotices)) {
    return;
  }
  BinOutcomes& bin = outcomes->bins[parsed->bin];
  switch (parsed->kind) {
    case OutcomeKind::kBids:
      bin.bids += *count;
      break;
    case OutcomeKind::kNotices:
      bin.notices += *count;
      break;
    case OutcomeKind::kWinAtBid:
      bin.wins_at_bid += *count;
      break;
    case OutcomeKind::kLossAtBid:
      bin.losses_at_bid += *count;
      break;
    case OutcomeKind::kWinPriceToBeat:
      bin.price_to_beat += *count;
      bin.exact_wins += *count;
      break;
    case OutcomeKind::kLossPriceToBeat:
      bin.price_to_beat += *count;
      break;
  }
}

}  // namespace

ShadingFitter::ShadingFitter(const config::BidderConfig& config, storage::Store& store)
    : options_(config.pricing), campaigns_(config.campaigns), store_(store) {
  for (const config::ExchangeConfig& exchange : config.server.exchanges) {
    exchange_bits_.push_back(ExchangeBucketBits(exchange.name));
  }
  fit_options_.trust_bins = BinsBelow(config.pricing.exploration_width);
}

absl::Status ShadingFitter::ReadOutcomes(
    uint32_t first_hour, uint32_t last_hour, uint32_t unsettled_hour,
    std::vector<std::pair<uint64_t, BucketOutcomes>>* buckets) {
  absl::flat_hash_map<uint64_t, size_t> position;
  for (int salt = 0; salt < kSalts; ++salt) {
    storage::Scan scan;
    scan.start_row = OutcomeRowStart(salt, first_hour);
    scan.stop_row = OutcomeRowStart(salt, last_hour + 1);
    scan.columns = {storage::Column{std::string(kOutcomeFamily), std::nullopt}};
    scan.caching = kScanBatchRows;
    absl::StatusOr<std::unique_ptr<storage::Scanner>> scanner =
        store_.OpenScanner(storage::kPricingTable, scan);
    if (!scanner.ok()) return scanner.status();
    while (true) {
      absl::StatusOr<std::vector<storage::RowResult>> rows = (*scanner)->Next(kScanBatchRows);
      if (!rows.ok()) return rows.status();
      if (rows->empty()) break;
      for (const storage::RowResult& row : *rows) {
        const std::optional<OutcomeRowKey> key = ParseOutcomeRow(row.row);
        if (!key.has_value()) continue;
        auto [it, inserted] = position.emplace(key->bucket, buckets->size());
        if (inserted) buckets->emplace_back(key->bucket, BucketOutcomes{});
        BucketOutcomes& outcomes = (*buckets)[it->second].second;
        const bool settled = key->hour < unsettled_hour;
        for (const storage::Cell& cell : row.cells) AddCell(cell, settled, &outcomes);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ShadingFitter::ReadRates(int64_t now_ms, PricingModel* model) {
  const absl::TimeZone utc = absl::UTCTimeZone();
  const std::string first_day = absl::FormatTime(
      "%Y%m%d", absl::FromUnixMillis(now_ms - (options_.rate_window_days - 1) * kDayMs), utc);
  for (const config::CampaignConfig& campaign : campaigns_) {
    storage::Scan scan;
    scan.prefix = EngagementRowPrefix(campaign.id);
    scan.columns = {storage::Column{std::string(kEngagementFamily), std::nullopt}};
    scan.limit = kSalts;
    absl::StatusOr<std::vector<storage::RowResult>> rows =
        store_.Scan(storage::kPricingTable, scan);
    if (!rows.ok()) return rows.status();
    CampaignRates rates;
    rates.campaign_id = campaign.id;
    for (const storage::RowResult& row : *rows) {
      for (const storage::Cell& cell : row.cells) {
        if (cell.qualifier.size() != 9 || std::string_view(cell.qualifier).substr(1) < first_day) {
          continue;
        }
        const int64_t count = storage::DecodeCounter(cell.value).value_or(0);
        switch (static_cast<EngagementKind>(cell.qualifier[0])) {
          case EngagementKind::kImpression:
            rates.impressions += count;
            break;
          case EngagementKind::kClick:
            rates.clicks += count;
            break;
          case EngagementKind::kConversion:
            rates.conversions += count;
            break;
        }
      }
    }
    rates.ctr = CampaignCtr(campaign.goal, options_, rates.impressions, rates.clicks);
    rates.cvr = CampaignCvr(campaign.goal, options_, rates.clicks, rates.conversions);
    model->campaigns.push_back(std::move(rates));
  }
  return absl::OkStatus();
}

absl::StatusOr<PricingModel> ShadingFitter::Fit(int64_t now_ms) {
  PricingModel model;
  model.computed_at_ms = now_ms;
  const uint32_t last_hour = HourOf(now_ms);
  const uint32_t window = static_cast<uint32_t>(options_.window_hours);
  const uint32_t first_hour = last_hour + 1 > window ? last_hour + 1 - window : 0;
  std::vector<std::pair<uint64_t, BucketOutcomes>> buckets;
  const uint32_t unsettled_hour = HourOf(now_ms - kNoticeDelayMs);
  if (absl::Status s = ReadOutcomes(first_hour, last_hour, unsettled_hour, &buckets); !s.ok()) {
    return s;
  }

  // Each configured exchange's figures; buckets of other exchanges (gone
  // from the config) are left out.
  absl::flat_hash_map<uint64_t, size_t> exchange_of;
  for (size_t i = 0; i < exchange_bits_.size(); ++i) {
    exchange_of.emplace(exchange_bits_[i], i);
    model.exchanges.push_back(ExchangeFigures{exchange_bits_[i], 0, 0, 0, 0});
  }
  std::vector<std::pair<int64_t, size_t>> candidates;  // (samples, position)
  for (size_t i = 0; i < buckets.size(); ++i) {
    auto exchange = exchange_of.find(ExchangeBitsOf(buckets[i].first));
    if (exchange == exchange_of.end()) continue;
    ExchangeFigures& figures = model.exchanges[exchange->second];
    const BucketOutcomes& outcomes = buckets[i].second;
    figures.wins += outcomes.wins();
    figures.losses += outcomes.losses();
    figures.clearing_sum_micros += outcomes.clearing_sum_micros;
    if (outcomes.samples() >= options_.min_samples) {
      candidates.emplace_back(outcomes.samples(), i);
    }
  }
  std::sort(candidates.begin(), candidates.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first
                              : buckets[a.second].first < buckets[b.second].first;
  });
  for (const auto& [samples, i] : candidates) {
    if (model.curves.size() >= static_cast<size_t>(options_.max_buckets)) break;
    const uint64_t bucket = buckets[i].first;
    ExchangeFigures& figures = model.exchanges[exchange_of.at(ExchangeBitsOf(bucket))];
    std::optional<FittedCurve> curve = FitCurve(buckets[i].second, fit_options_);
    if (!curve.has_value()) continue;
    model.curves.push_back(BucketCurve{bucket, samples, curve->start, std::move(curve->values)});
    ++figures.buckets_shaded;
  }
  if (absl::Status s = ReadRates(now_ms, &model); !s.ok()) return s;
  return model;
}

}  // namespace rtb::pricing::internal
