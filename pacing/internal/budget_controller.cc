#include "pacing/internal/budget_controller.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "storage/schemas.h"

namespace rtb::pacing::internal {
namespace {

// Even pacing never plans to spend what is left faster than over this long,
// so the last minutes of a day do not turn into a rush at full demand.
constexpr int64_t kMinSpreadMs = 60 * 1000;
// A mean throttle below this says nothing about demand. Kept far below any
// throttle even pacing needs: a higher floor would freeze the estimate of a
// campaign throttled that low, and with it the throttle.
constexpr double kMinMeanThrottle = 0.001;
// The recent estimate replaces the window's when it is this many times
// higher (a surge, which overspends while unnoticed: switch early) or lower
// (a lull, which only underspends: switch only well outside the recent
// window's sampling noise, whose low outliers would raise the throttle).
constexpr double kDemandSurge = 1.5;
constexpr double kDemandDrop = 2.0;
// Flush intervals the recent window covers.
constexpr int64_t kRecentFlushes = 6;

int64_t CeilMicros(double micros) {
  if (!(micros > 0)) return 0;
  if (micros >= 9e18) return int64_t{9000000000000000000};
  return static_cast<int64_t>(std::ceil(micros));
}

}  // namespace

ThrottleDecision DecideThrottle(config::PacingMode mode, int64_t budget_micros,
                                int64_t spent_today_micros, int64_t bidding_left_ms,
                                const RateEstimate& rates, const ControllerOptions& options) {
  const double flush_s = static_cast<double>(options.flush_interval_ms) / 1000.0;
  const double current_rate = rates.recent_rate > 0 ? rates.recent_rate : rates.window_rate;

  double throttle = 1.0;
  if (mode == config::PacingMode::kEven) {
    // Spend made but not yet flushed: on average half an interval of it.
    const double unseen = current_rate * flush_s / 2;
    const double remaining =
        static_cast<double>(budget_micros) - static_cast<double>(spent_today_micros) - unseen;
    const double spread_s = static_cast<double>(std::max(bidding_left_ms, kMinSpreadMs)) / 1000.0;
    const double target_rate = std::max(remaining, 0.0) / spread_s;
    if (rates.demand && *rates.demand > 0) {
      throttle = std::clamp(target_rate / *rates.demand, 0.0, 1.0);
    } else if (remaining <= 0) {
      throttle = 0;
    }
  }

  // The rate if the campaign bids at `throttle` from now: never below what
  // is being spent now.
  double projected = std::max(rates.window_rate, rates.recent_rate);
  if (rates.demand) projected = std::max(projected, *rates.demand * throttle);
  const double unflushed =
      flush_s * std::max(rates.max_shard_rate * std::max(rates.active_shards, 1), projected);
  const double until_next =
      projected * static_cast<double>(options.controller_interval_ms + options.follow_delay_ms) /
      1000.0;

  ThrottleDecision decision;
  decision.overspend_bound_micros = CeilMicros(unflushed);
  decision.reserve_micros = CeilMicros(unflushed + until_next);
  if (spent_today_micros + decision.reserve_micros >= budget_micros || throttle <= 0) {
    decision.stopped = true;
    decision.throttle = 0;
  } else {
    decision.throttle = throttle;
  }
  return decision;
}

BudgetController::BudgetController(const std::vector<CampaignBudget>& campaigns,
                                   ControllerOptions options, storage::Store& store,
                                   PacingMetrics& metrics)
    : campaigns_(campaigns),
      options_(options),
      store_(store),
      metrics_(metrics),
      // About 32 samples per window, but never finer than the ticks.
      window_spacing_ms_(std::max(options.controller_interval_ms, options.sliding_window_ms / 32)),
      tracks_(campaigns.size()) {}

bool StoreIsDown(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status);
}

int BudgetController::Tick(int64_t now_ms) {
  for (size_t i = 0; i < campaigns_.size(); ++i) {
    const absl::Status observed = Observe(i, now_ms);
    // A store that is down or timing out would cost a timeout per campaign;
    // the campaigns not reached age like the failed one, and the next tick
    // tries again.
    if (StoreIsDown(observed)) return static_cast<int>(campaigns_.size() - i);
  }
  return static_cast<int>(std::count_if(tracks_.begin(), tracks_.end(), [&](const Track& t) {
    return t.decision.computed_at_ms != now_ms;
  }));
}

BudgetController::WindowRates BudgetController::RatesSince(const Sample& base,
                                                           const Sample& now) const {
  WindowRates rates;
  const int64_t span_ms = now.at_ms - base.at_ms;
  if (span_ms <= 0) return rates;
  rates.valid = true;
  rates.mean_throttle = (now.throttle_integral - base.throttle_integral) / span_ms;
  const int64_t flush = options_.flush_interval_ms;
  for (int s = 0; s < kBudgetShards; ++s) {
    const int64_t delta = now.accumulated[s] - base.accumulated[s];
    rates.delta[s] = delta;
    if (delta <= 0) continue;
    ++rates.active;
    // What each value covers: spend up to the flush that set it, or, when the
    // shard has been quiet, up to a flush interval before the sample.
    const int64_t end = std::max(now.changed_at[s], now.at_ms - flush);
    const int64_t begin = base.changed_at[s] == 0
                              ? base.at_ms - flush / 2
                              : std::max(base.changed_at[s], base.at_ms - flush);
    int64_t covered = end - begin;
    if (covered < flush / 2) covered = span_ms;
    const double rate = static_cast<double>(delta) * 1000.0 / static_cast<double>(covered);
    rates.total += rate;
    rates.max_shard = std::max(rates.max_shard, rate);
  }
  return rates;
}

absl::StatusOr<BudgetController::ShardDays> BudgetController::ReadShards(
    const CampaignBudget& budget, absl::CivilDay today) {
  const absl::CivilDay yesterday = today - 1;
  absl::StatusOr<std::vector<storage::RowResult>> rows =
      store_.Scan(storage::kBudgetTable,
                  BudgetShardScan(budget.id, today, yesterday, budget.lifetime_budget_micros > 0));
  if (!rows.ok()) {
    metrics_.CountStoreError(StoreOperation::kScan);
    return rows.status();
  }
  const std::string today_column = DayQualifier(today);
  const std::string yesterday_column = DayQualifier(yesterday);
  ShardDays shards;
  for (const storage::RowResult& row : *rows) {
    std::optional<int> shard = ParseBudgetShardRow(row.row, budget.id);
    if (!shard) continue;
    shards.today[*shard] = row.Counter(kSpendFamily, today_column).value_or(0);
    shards.yesterday[*shard] = row.Counter(kSpendFamily, yesterday_column).value_or(0);
    if (budget.lifetime_budget_micros <= 0) continue;
    std::string_view counted;  // a column's versions are adjacent
    for (const storage::Cell& cell : row.cells) {
      if (cell.family != kSpendFamily || cell.qualifier == counted) continue;
      std::optional<absl::CivilDay> day = ParseDayQualifier(cell.qualifier);
      if (!day || *day >= today) continue;
      counted = cell.qualifier;
      shards.before_today += row.Counter(kSpendFamily, cell.qualifier).value_or(0);
    }
  }
  return shards;
}

void BudgetController::Accumulate(Track& track, absl::CivilDay today, const ShardDays& shards,
                                  int64_t now_ms) const {
  if (!track.tracking || (today != track.day && today != track.day + 1)) {
    // First sight, or the controller missed whole days: today's values are the
    // baseline, and rates start from here.
    track.window.clear();
    track.recent.clear();
    track.tracking = true;
    track.integral_at_ms = now_ms;
  } else {
    for (int s = 0; s < kBudgetShards; ++s) {
      const int64_t increase = today == track.day
                                   ? shards.today[s] - track.last_value[s]
                                   : (shards.yesterday[s] - track.last_value[s]) + shards.today[s];
      if (increase > 0) {
        track.accumulated[s] += increase;
        track.changed_at[s] = now_ms;
      }
    }
  }
  track.last_value = shards.today;
  track.day = today;
  track.throttle_integral += track.throttle * static_cast<double>(now_ms - track.integral_at_ms);
  track.integral_at_ms = now_ms;
}

RateEstimate BudgetController::EstimateRates(Track& track, const Sample& current,
                                             int64_t now_ms) const {
  const int64_t flush = options_.flush_interval_ms;
  WindowRates window;
  if (!track.window.empty()) window = RatesSince(track.window.front(), current);
  WindowRates recent;
  if (!track.recent.empty()) recent = RatesSince(track.recent.front(), current);

  RateEstimate rates;
  rates.window_rate = window.total;
  rates.recent_rate = recent.valid ? recent.total : window.total;
  rates.max_shard_rate = std::max(window.max_shard, recent.max_shard);
  rates.active_shards = std::max(window.active, recent.active);
  auto demand_of = [&](const WindowRates& w, const Sample* base,
                       int64_t min_span_ms) -> std::optional<double> {
    if (!w.valid || base == nullptr || now_ms - base->at_ms < min_span_ms ||
        w.mean_throttle < kMinMeanThrottle) {
      return std::nullopt;
    }
    return w.total / w.mean_throttle;
  };
  const std::optional<double> long_demand =
      demand_of(window, track.window.empty() ? nullptr : &track.window.front(), flush);
  const std::optional<double> short_demand =
      demand_of(recent, track.recent.empty() ? nullptr : &track.recent.front(), 2 * flush);
  if (long_demand && short_demand) {
    // A recent window without any spend is too small a sample to lower the
    // estimate on: at a low throttle it happens by chance.
    const bool shifted = *short_demand > *long_demand * kDemandSurge ||
                         (*short_demand > 0 && *short_demand * kDemandDrop < *long_demand);
    track.demand = shifted ? short_demand : long_demand;
  } else if (long_demand || short_demand) {
    track.demand = long_demand ? long_demand : short_demand;
  }
  rates.demand = track.demand;
  return rates;
}

void BudgetController::RememberSample(Track& track, const Sample& current, int64_t now_ms) const {
  const int64_t flush = options_.flush_interval_ms;
  track.recent.push_back(current);
  while (track.recent.size() >= 2 && track.recent[1].at_ms <= now_ms - kRecentFlushes * flush) {
    track.recent.pop_front();
  }
  if (track.window.empty() || now_ms - track.window.back().at_ms >= window_spacing_ms_) {
    track.window.push_back(current);
  }
  while (track.window.size() >= 2 && track.window[1].at_ms <= now_ms - options_.sliding_window_ms) {
    track.window.pop_front();
  }
}

absl::Status BudgetController::Observe(size_t campaign, int64_t now_ms) {
  const CampaignBudget& budget = campaigns_[campaign];
  Track& track = tracks_[campaign];
  const absl::CivilDay today = budget.day.DayAt(now_ms);
  absl::StatusOr<ShardDays> shards = ReadShards(budget, today);
  if (!shards.ok()) return shards.status();
  Accumulate(track, today, *shards, now_ms);
  const Sample current{now_ms, track.accumulated, track.changed_at, track.throttle_integral};
  const RateEstimate rates = EstimateRates(track, current, now_ms);

  int64_t spent = 0;
  for (int64_t v : shards->today) spent += v;
  CampaignDecision& decision = track.decision;
  decision.computed_at_ms = now_ms;
  decision.day = today;
  decision.spent_today_micros = spent;
  decision.rates = rates;
  // Today may spend what the lifetime budget has left, when that is less.
  int64_t budget_today = budget.daily_budget_micros;
  if (budget.lifetime_budget_micros > 0) {
    decision.spent_lifetime_micros = shards->before_today + spent;
    budget_today = std::min(
        budget_today, std::max<int64_t>(budget.lifetime_budget_micros - shards->before_today, 0));
  }
  // Even pacing spreads what is left over the hours the schedule still lets
  // the campaign bid today, not over the whole rest of the day.
  const int64_t bidding_left_ms = budget.BiddingMillisBetween(now_ms, budget.day.EndMillis(today));
  decision.decision =
      DecideThrottle(budget.mode, budget_today, spent, bidding_left_ms, rates, options_);
  track.throttle = decision.decision.throttle;
  metrics_.SetCampaign(campaign, spent, decision.decision.throttle,
                       decision.decision.overspend_bound_micros);
  RememberSample(track, current, now_ms);
  return absl::OkStatus();
}

}  // namespace rtb::pacing::internal
