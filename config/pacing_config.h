// The `pacing` and `pricing` sections: the budget loop, and what a bid is
// worth and what to pay for it.
// Part of config/config.h, which includes it; see there for the loading rules.
#ifndef RTB_CONFIG_PACING_CONFIG_H_
#define RTB_CONFIG_PACING_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace rtb::config {

// ---------------------------------------------------------------------------
// pacing: the budget loop (sidecar thread, or a separate pacer process).

enum class PacingProcessMode {
  kSidecar,  // "sidecar": the loop runs inside the bidder process
  kPacer,    // "pacer": one controller process serves many bidder workers;
             // needs a shared store (hbase or storage-server)
};

// pacing.worker_id "auto": the lowest id no live process holds.
inline constexpr int kAutoWorkerId = -1;

struct PacingConfig {
  // This worker's id, under which it writes its budget shard (worker_id mod
  // 16), its position there and its spend journal rows. Leased in the
  // store's `leases` table for as long as the process lives (docs/
  // running-a-fleet.md), so no two live processes share one: "auto" (the
  // default, kAutoWorkerId) takes the lowest free id; a number takes that
  // id, waiting up to one worker_lease_ttl_ms for a crashed holder's lease
  // to run out, and refuses to start when a live process holds it. Range
  // [0, 65535].
  int worker_id = kAutoWorkerId;
  // How long a worker id stays leased after its holder's last renewal, ms;
  // renewed every third of it. A process that cannot renew stops bidding
  // and exits before the lease runs out; a killed process's id is free this
  // long after its death. Default 15000. Range [3000, 600000].
  int worker_lease_ttl_ms = 15000;
  // How often local spend is flushed to the `budget` shards, ms.
  // Default 5000. Range [100, 600000].
  int flush_interval_ms = 5000;
  // How often the controller recomputes throttle and stop decisions, ms.
  // Default 1000. Range [100, 600000].
  int controller_interval_ms = 1000;
  // A published state older than this stops bidding for budgeted campaigns
  // (fail safe), ms. Default 30000. Range (controller_interval_ms, 3600000].
  int state_max_age_ms = 30000;
  // Window over which the spend rate is measured, seconds. Default 300.
  // Range [1, 86400], and at least one flush interval.
  int sliding_window_s = 300;
  // Default sidecar.
  PacingProcessMode mode = PacingProcessMode::kSidecar;
};

// ---------------------------------------------------------------------------
// pricing: what a bid is worth and what to pay for it (README "Pricing").
// Second-price auctions (the request's `at`, or the deal's) are bid at the
// value; first-price auctions are shaded to the price that maximises the
// expected surplus (value - price) x P(win), from win-rate curves fitted per
// exchange x site or app x creative format and size. The curves are fitted
// by the pricing loop: in each bidder under pacing.mode sidecar, in rtb-pacer
// (which publishes them in the `pricing` table) under pacing.mode pacer.

struct PricingConfig {
  // Shade first-price bids. False: every bid is its value. Default true.
  bool shading_enabled = true;
  // How often the curves and the campaigns' rates are fitted, and how often
  // bidders under pacing.mode pacer read what rtb-pacer published, seconds.
  // Default 300. Range [10, 86400].
  int fit_interval_s = 300;
  // A model older than this is not used: bids go out unshaded (fail safe),
  // seconds. Default 3600. Range (fit_interval_s, 604800].
  int model_max_age_s = 3600;
  // Win and loss notices older than this are left out of the curves, hours.
  // Default 24. Range [1, 168] (the outcome rows are kept 8 days).
  int window_hours = 24;
  // Win and price-loss notices a bucket needs within window_hours before its
  // bids are shaded; below it they go out at the value. Default 200.
  // Range [10, 10000000].
  int min_samples = 200;
  // Share of shaded bids whose price is moved at random around the chosen
  // price, so the curve keeps being measured there. Default 0.05.
  // Range [0, 0.5].
  double exploration_rate = 0.05;
  // Largest relative move of such a bid (0.1: within +-10 %, never above the
  // value nor below the floor). It also bounds how far below the prices
  // seen so far a curve reaches, so shading deepens by at most this much per
  // fit where notices carry no minimum bid to win. Default 0.1.
  // Range [0.01, 0.5].
  double exploration_width = 0.1;
  // Shading may lower the predicted chance of winning by at most this
  // fraction of the chance of the unshaded bid (0.05: at least 95 % of its
  // wins). 1: no limit, pure surplus. Default 0.05. Range [0, 1].
  double max_win_rate_loss = 0.05;
  // Buckets in a model at most, those with the most notices first (about
  // 100 bytes each). Default 50000. Range [1, 1000000].
  int max_buckets = 50000;
  // Campaign click and conversion rates are counted over this many days.
  // Default 14. Range [1, 60].
  int rate_window_days = 14;
  // Impressions of a device's own history that weigh as much as the
  // campaign's click rate: the device's predicted click rate is
  //   (clicks + n x campaign rate) / (impressions + n).
  // Default 1000. Range [1, 1000000].
  double device_prior_impressions = 1000;
  // The same for conversions per click, in clicks. Default 20.
  // Range [1, 1000000].
  double device_prior_clicks = 20;
  // Days of a device's own engagement (its event_rollups rows, every
  // campaign's impressions, clicks and conversions, today included) the bid
  // path reads for a cpc or cpa candidate. 0: none is read, every device
  // gets its campaign's rates. Default 30. Range [0, 365].
  int device_history_days = 30;
  // Clicks (for the click rate) and conversions (for the conversion rate) a
  // campaign's prior is worth while its own counts are small: its rate is
  //   (clicks + k) / (impressions + k / prior_ctr).
  // Default 10. Range [1, 100000].
  double campaign_prior_events = 10;
};

}  // namespace rtb::config

#endif  // RTB_CONFIG_PACING_CONFIG_H_
