// The pacing controller: reads each campaign's 16 budget shards with one
// short scan, tracks the spend rate per shard, and decides a throttle
// probability and whether to stop (see the top of pacing/pacer.h for the
// rule and the overspend bound).
//
// Rates. Shard values only move when a worker flushes, so a rate measured
// between two sample times is off by up to one flush of spend. Instead each
// shard's rate is its spend between the times its value was first seen to
// change (the flushes), or, for a shard that stopped changing, up to one
// flush interval ago (an idle worker flushes nothing but has spent nothing).
// Spend is accumulated across the campaign's midnight by reading yesterday's
// column in the same scan, so a window may straddle it.
//
// Demand (the rate the campaign would spend at throttle 1) is the observed
// rate divided by the mean published throttle over the same window: the
// sliding window's estimate, or the last six flush intervals' when that one
// is 1.5 times higher or half as high, so a burst or its end is followed
// within seconds rather than a window.
//
// Thread-safety: one thread calls Tick; decision() reads what it wrote.
#ifndef RTB_PACING_INTERNAL_BUDGET_CONTROLLER_H_
#define RTB_PACING_INTERNAL_BUDGET_CONTROLLER_H_

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/civil_time.h"
#include "config/config.h"
#include "pacing/internal/budget_shard.h"
#include "pacing/internal/campaign_budget.h"
#include "pacing/internal/pacing_metrics.h"
#include "storage/store.h"

namespace rtb::pacing::internal {

struct ControllerOptions {
  // pacing.flush_interval_ms of the workers. Default 5000.
  int64_t flush_interval_ms = 5000;
  // How often Tick runs, ms. Default 1000.
  int64_t controller_interval_ms = 1000;
  // pacing.sliding_window_s in ms. Default 300000.
  int64_t sliding_window_ms = 300000;
  // Time from a decision being computed to every worker acting on it, ms:
  // 0 in a sidecar (the same process), one controller interval when workers
  // poll the decisions of the rtb-pacer process.
  int64_t follow_delay_ms = 0;
};

// One campaign's spend rates, micro-units per second.
struct RateEstimate {
  double window_rate = 0;     // all shards, over the sliding window
  double recent_rate = 0;     // all shards, over the last six flush intervals
  double max_shard_rate = 0;  // highest single shard, window or recent
  int active_shards = 0;      // shards that spent within the window
  // Spend rate at throttle 1; unknown until spend was seen at a throttle > 0.
  std::optional<double> demand;
};

struct ThrottleDecision {
  // Probability of bidding, [0, 1]; 0 = no bid.
  double throttle = 0;
  bool stopped = false;
  // Most spend the workers may hold unflushed (flush interval x rate x
  // active shards): the overspend the stop allows for.
  int64_t overspend_bound_micros = 0;
  // Distance below the cap at which bidding stops: the bound plus the spend
  // until the next decision takes effect.
  int64_t reserve_micros = 0;
};

// The decision rule, pure. Even: spread what is left of the budget (minus
// the spend presumably still unflushed) over `bidding_left_ms`, the time
// left today in which the campaign's schedule lets it bid (at least a
// minute), as a share of the demand; unknown demand bids fully until one is
// measured. Asap: throttle 1. Both stop when spent + reserve reaches the
// budget.
ThrottleDecision DecideThrottle(config::PacingMode mode, int64_t budget_micros,
                                int64_t spent_today_micros, int64_t bidding_left_ms,
                                const RateEstimate& rates, const ControllerOptions& options);

struct CampaignDecision {
  // Clock time of the scan behind it; 0 = never decided.
  int64_t computed_at_ms = 0;
  absl::CivilDay day;
  int64_t spent_today_micros = 0;
  // Campaigns with a lifetime budget: the spend of every day the budget
  // table keeps, today's included; 0 otherwise.
  int64_t spent_lifetime_micros = 0;
  RateEstimate rates;
  ThrottleDecision decision;
};

// True for the errors that say the store as a whole is not answering.
bool StoreIsDown(const absl::Status& status);

class BudgetController {
 public:
  // `campaigns`, `store` and `metrics` must outlive this.
  BudgetController(const std::vector<CampaignBudget>& campaigns, ControllerOptions options,
                   storage::Store& store, PacingMetrics& metrics);

  // Scans and decides every campaign at clock time `now_ms`. A campaign whose
  // scan fails keeps its previous decision, and with it its age; after an
  // Unavailable or DeadlineExceeded scan the tick stops, so a store that is
  // down costs one timeout per tick, not one per campaign. Returns the number
  // of campaigns not decided.
  int Tick(int64_t now_ms);
  // Starts tracking the campaigns appended to `campaigns` since (a campaign
  // keeps its position for good, so existing tracks stay theirs). A changed
  // budget or mode needs nothing: every tick reads them.
  void TrackAppendedCampaigns() { tracks_.resize(campaigns_.size()); }

  const CampaignDecision& decision(size_t campaign) const { return tracks_[campaign].decision; }
  size_t campaigns() const { return tracks_.size(); }

 private:
  using ShardValues = std::array<int64_t, kBudgetShards>;
  struct Sample {
    int64_t at_ms = 0;
    ShardValues accumulated{};     // spend seen since tracking began
    ShardValues changed_at{};      // when each shard's value last changed (0 = never)
    double throttle_integral = 0;  // integral of the published throttle, throttle x ms
  };
  struct Track {
    bool tracking = false;
    absl::CivilDay day;
    ShardValues last_value{};  // the shard's column for `day`
    ShardValues accumulated{};
    ShardValues changed_at{};
    double throttle = 0;
    double throttle_integral = 0;
    int64_t integral_at_ms = 0;
    std::optional<double> demand;
    std::deque<Sample> window;  // spaced samples covering the sliding window
    std::deque<Sample> recent;  // every sample of the last six flush intervals
    CampaignDecision decision;
  };
  struct WindowRates {
    bool valid = false;
    double total = 0;
    double max_shard = 0;
    double mean_throttle = 0;
    int active = 0;
    ShardValues delta{};
  };

  // Each shard's spend column for one day.
  struct ShardDays {
    ShardValues today{};
    ShardValues yesterday{};
    // Every day before today, all shards (read for lifetime budgets only).
    int64_t before_today = 0;
  };

  // One campaign's step of a tick: read the shards, account what they gained,
  // estimate the rates, decide, remember the sample.
  absl::Status Observe(size_t campaign, int64_t now_ms);
  absl::StatusOr<ShardDays> ReadShards(const CampaignBudget& budget, absl::CivilDay today);
  // Adds what each shard gained since the last observation to the track's
  // running sums (across midnight too); restarts the sums after a gap.
  void Accumulate(Track& track, absl::CivilDay today, const ShardDays& shards,
                  int64_t now_ms) const;
  // Spend rates over the sliding and recent windows up to `current`, and the
  // demand they imply (see DecideThrottle).
  RateEstimate EstimateRates(Track& track, const Sample& current, int64_t now_ms) const;
  void RememberSample(Track& track, const Sample& current, int64_t now_ms) const;
  WindowRates RatesSince(const Sample& base, const Sample& now) const;

  const std::vector<CampaignBudget>& campaigns_;
  ControllerOptions options_;
  storage::Store& store_;
  PacingMetrics& metrics_;
  int64_t window_spacing_ms_;
  std::vector<Track> tracks_;
};

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_BUDGET_CONTROLLER_H_
