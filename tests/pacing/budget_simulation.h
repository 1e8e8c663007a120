// A deterministic simulation of budget pacing on virtual time: workers that
// win impressions at bursty, skewed rates and record their prices, flushing
// to a shared store, and one PacerService deciding for all of them (pacing
// mode "pacer"). Everything runs on one thread over a ManualClock, so a run
// is a pure function of its seed and the store's answers.
//
// The truth (every price actually spent, flushed or not, lost in a restart
// or not) is kept per campaign and minute, and checked against the budget
// and the even-pacing target curve.
//
// Campaigns can change while it runs, as an operator changes them through
// the campaigns table: budgets cut or raised, pauses and resumes, campaigns
// created mid-day. Each change is handed to the pacer service and every
// worker (UpdateCampaigns) at the step it is due, as their table followers
// would; a paused campaign gets no bid requests.
#ifndef RTB_TESTS_PACING_BUDGET_SIMULATION_H_
#define RTB_TESTS_PACING_BUDGET_SIMULATION_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"
#include "gtest/gtest.h"
#include "pacing/internal/budget_controller.h"
#include "pacing/internal/campaign_day.h"
#include "pacing/pacer.h"
#include "storage/clock.h"
#include "storage/schemas.h"
#include "storage/store.h"

namespace rtb::pacing::testing {

struct SimulatedCampaign {
  std::string id;
  config::PacingMode mode = config::PacingMode::kEven;
  std::string zone = "UTC";
  int64_t daily_budget_micros = 0;
  // Wins per second over all workers at throttle 1, outside bursts and lulls.
  double demand_wins_per_s = 0;
  // Mean price of a win, micros; each win costs 0.5x to 1.5x of it.
  double mean_price_micros = 0;
  // When the operator creates it (Unix ms, a whole minute after the
  // simulation's start); 0: it exists from the start. Campaigns created later come after
  // all those that exist from the start (positions are only appended).
  int64_t created_at_ms = 0;
  // Hours of the week it bids (campaigns[].schedule.dayparts); outside them
  // no bid request asks for it. Empty: every hour.
  std::vector<config::DaypartConfig> dayparts;
};

// A change an operator makes to one campaign while the simulation runs.
struct CampaignChange {
  enum class Kind { kBudget, kPause, kResume };
  int64_t at_ms = 0;  // Unix ms, a whole minute after the simulation's start
  size_t campaign = 0;
  Kind kind = Kind::kBudget;
  int64_t daily_budget_micros = 0;  // kBudget
};

struct SimulationOptions {
  int workers = 8;
  int64_t start_ms = 0;
  int64_t duration_ms = 0;
  int64_t step_ms = 200;
  int flush_interval_ms = 5000;
  int controller_interval_ms = 1000;
  int state_max_age_ms = 30000;
  int sliding_window_s = 300;
  uint64_t seed = 1;
  // Bursts: on average one every `burst_every_s`, lasting `burst_mean_s` on
  // average, multiplying demand by 3x to 5x. Lulls: one every `lull_every_s`,
  // `lull_mean_s` long, at `lull_factor`.
  double burst_every_s = 20 * 60;
  double burst_mean_s = 120;
  double lull_every_s = 30 * 60;
  double lull_mean_s = 300;
  double lull_factor = 0.6;
  // Worker `restart_worker` dies at `restart_at_ms` (losing what it had not
  // flushed) and comes back at once; -1: no restart.
  int restart_worker = -1;
  int64_t restart_at_ms = 0;
  // Every this often the `budget` table is flushed and major-compacted, as
  // HBase compacts its regions; without it every flush's cell version stays
  // in the memtable and each read walks all of them. 0: never.
  int64_t compact_every_ms = 0;
  // In time order.
  std::vector<CampaignChange> changes;
};

// What happened to one campaign on one of its days.
struct SimulatedDay {
  absl::CivilDay day;
  int64_t begin_ms = 0;   // max(day start, simulation start)
  int64_t end_ms = 0;     // the day's end
  bool complete = false;  // the simulation reached the day's end
  int64_t spent_micros = 0;
  // The daily budget in force at the day's end (or the simulation's).
  int64_t budget_micros = 0;
  // What the day may spend before overspending: its budget, or what it had
  // spent when a cut below that came in (a cut stops the campaign; it does
  // not undo spend).
  int64_t allowed_micros = 0;
  // A budget change, pause, resume or creation fell within the day: the
  // even-pacing curve of the day's first budget no longer applies.
  bool changed = false;
  int64_t max_overspend_bound_micros = 0;
  // Largest |actual - target| / target at an hour mark, even campaigns.
  double worst_hour_deviation = 0;
  int hour_marks = 0;
};

struct SimulatedOutcome {
  std::vector<std::vector<SimulatedDay>> days;  // per campaign
  int64_t lost_in_restart_micros = 0;
  int64_t wins = 0;
};

class BudgetSimulation {
 public:
  BudgetSimulation(std::vector<SimulatedCampaign> campaigns, SimulationOptions options)
      : campaigns_(std::move(campaigns)), options_(options), random_(options.seed) {}

  // Runs the whole simulation on `store` (which must hold the `budget` table
  // and have no budget rows of these campaigns), timed by `clock` (moved to
  // options.start_ms first). Fails the test on setup errors.
  SimulatedOutcome Run(storage::Store& store, std::shared_ptr<storage::ManualClock> clock) {
    clock->Set(options_.start_ms);
    config::BidderConfig config;
    config.pacing.flush_interval_ms = options_.flush_interval_ms;
    config.pacing.controller_interval_ms = options_.controller_interval_ms;
    config.pacing.state_max_age_ms = options_.state_max_age_ms;
    config.pacing.sliding_window_s = options_.sliding_window_s;
    config.pacing.mode = config::PacingProcessMode::kPacer;
    budget_history_.assign(campaigns_.size(), {});
    change_times_.assign(campaigns_.size(), {});
    paused_.assign(campaigns_.size(), false);
    for (const SimulatedCampaign& c : campaigns_) {
      config::CampaignConfig campaign;
      campaign.id = c.id;
      campaign.daily_budget_micros = c.daily_budget_micros;
      campaign.pacing_mode = c.mode;
      campaign.time_zone = c.zone;
      campaign.schedule.dayparts = c.dayparts;
      all_configs_.push_back(campaign);
      auto bidding = internal::CampaignBudgets({campaign});
      EXPECT_TRUE(bidding.ok()) << bidding.status();
      if (bidding.ok()) bidding_.push_back(bidding->front());
      if (c.created_at_ms == 0) config.campaigns.push_back(campaign);
      budget_history_[all_configs_.size() - 1].emplace_back(0, c.daily_budget_micros);
      auto day = internal::CampaignDay::ForZone(c.zone);
      EXPECT_TRUE(day.ok()) << day.status();
      days_.push_back(*day);
    }
    live_configs_ = config.campaigns;
    PacerOptions pacer_options;
    pacer_options.clock = clock;
    pacer_options.nonce_seed = options_.seed * 1000 + 1;
    pacer_options.campaign_capacity = campaigns_.size();
    // Days pass on the manual clock in moments: a lease would run out.
    pacer_options.lease_worker_id = false;
    auto service = PacerService::Create(config, store, nullptr, pacer_options);
    EXPECT_TRUE(service.ok()) << service.status();
    if (!service.ok()) return {};
    std::vector<std::unique_ptr<Pacer>> workers;
    auto make_worker = [&](int id, uint64_t incarnation) -> std::unique_ptr<Pacer> {
      config::BidderConfig worker_config = config;
      worker_config.pacing.worker_id = id;
      PacerOptions options = pacer_options;
      options.nonce_seed = options_.seed * 1000 + 100 + id + 17 * incarnation;
      auto worker = Pacer::Create(worker_config, store, nullptr, options);
      EXPECT_TRUE(worker.ok()) << worker.status();
      if (!worker.ok()) return nullptr;
      // A restarted worker reads the campaigns table as it is now.
      if (live_configs_.size() != config.campaigns.size() || changed_) {
        absl::Status updated = (*worker)->UpdateCampaigns(live_configs_);
        EXPECT_TRUE(updated.ok()) << updated;
      }
      return *std::move(worker);
    };
    for (int w = 0; w < options_.workers; ++w) workers.push_back(make_worker(w, 0));
    // Skewed traffic: worker w gets a share proportional to w + 1.
    std::vector<double> share_edges;
    double total_weight = 0;
    for (int w = 0; w < options_.workers; ++w) total_weight += w + 1;
    double edge = 0;
    for (int w = 0; w < options_.workers; ++w)
      share_edges.push_back(edge += (w + 1) / total_weight);

    const size_t n = campaigns_.size();
    const int64_t minutes = options_.duration_ms / 60000 + 2;
    spent_by_minute_.assign(n, std::vector<int64_t>(minutes, 0));
    bursts_.assign(n, Burst{});
    bound_by_day_.assign(n, {});
    SimulatedOutcome outcome;

    // Services start first: the workers' first follow finds decisions.
    (*service)->RunDue();
    for (auto& w : workers) w->RunDue();

    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const int64_t end_ms = options_.start_ms + options_.duration_ms;
    bool restarted = options_.restart_worker < 0;
    const double step_s = static_cast<double>(options_.step_ms) / 1000.0;
    int64_t next_compaction = options_.start_ms + options_.compact_every_ms;
    size_t next_change = 0;
    for (int64_t now = options_.start_ms; now < end_ms; now += options_.step_ms) {
      clock->Set(now);
      // Changes reach the loops as their table followers hand them over,
      // which wakes them.
      const bool woken = ApplyDueChanges(now, next_change);
      if (woken) {
        absl::Status updated = (*service)->UpdateCampaigns(live_configs_);
        EXPECT_TRUE(updated.ok()) << updated;
        for (auto& w : workers) {
          updated = w->UpdateCampaigns(live_configs_);
          EXPECT_TRUE(updated.ok()) << updated;
        }
      }
      if (options_.compact_every_ms > 0 && now >= next_compaction) {
        next_compaction += options_.compact_every_ms;
        // Remote backends answer Unimplemented; their server compacts itself.
        (void)store.Flush(storage::kBudgetTable);
        (void)store.MajorCompact(storage::kBudgetTable);
      }
      if (!restarted && now >= options_.restart_at_ms) {
        restarted = true;
        Pacer& dying = *workers[options_.restart_worker];
        for (size_t c = 0; c < n; ++c) outcome.lost_in_restart_micros += dying.spend().Pending(c);
        // Never started, so destroying it flushes nothing: a crash.
        workers[options_.restart_worker].reset();
        workers[options_.restart_worker] = make_worker(options_.restart_worker, 1);
        workers[options_.restart_worker]->RunDue();
      }
      // Wins during (now - step, now], at the decisions the workers hold.
      for (size_t c = 0; c < n; ++c) {
        // No bid request asks for it.
        if (c >= live_configs_.size() || paused_[c]) continue;
        if (bidding_[c].BiddingMillisBetween(now, now + 1) == 0) continue;
        const double rate = campaigns_[c].demand_wins_per_s * DemandFactor(c, step_s);
        std::poisson_distribution<int> arrivals(rate * step_s);
        const int opportunities = arrivals(random_);
        for (int i = 0; i < opportunities; ++i) {
          const double pick = uniform(random_);
          const size_t worker = std::min<size_t>(
              std::upper_bound(share_edges.begin(), share_edges.end(), pick) - share_edges.begin(),
              workers.size() - 1);
          if (!workers[worker]->decisions().MayBid(c, uniform(random_))) continue;
          const int64_t price =
              static_cast<int64_t>(campaigns_[c].mean_price_micros * (0.5 + uniform(random_)));
          workers[worker]->spend().Record(c, price);
          spent_by_minute_[c][(now - options_.start_ms) / 60000] += price;
          ++outcome.wins;
        }
      }
      for (auto& w : workers) {
        if (woken || now >= w->NextDueMillis()) w->RunDue();
      }
      if (woken || now >= (*service)->NextDueMillis()) {
        (*service)->RunDue();
        for (size_t c = 0; c < (*service)->controller().campaigns(); ++c) {
          const internal::CampaignDecision& d = (*service)->controller().decision(c);
          if (d.computed_at_ms != now) continue;
          int64_t& bound = bound_by_day_[c][absl::StrCat(absl::FormatCivilTime(d.day))];
          bound = std::max(bound, d.decision.overspend_bound_micros);
        }
      }
    }
    outcome.days = Summarise(end_ms);
    return outcome;
  }

  const std::vector<SimulatedCampaign>& campaigns() const { return campaigns_; }

 private:
  // Applies the changes due by `now` to the campaigns as the table holds
  // them; true when any was applied.
  bool ApplyDueChanges(int64_t now, size_t& next_change) {
    bool any = false;
    while (next_change < options_.changes.size() && options_.changes[next_change].at_ms <= now) {
      const CampaignChange& change = options_.changes[next_change++];
      config::CampaignConfig& config = all_configs_[change.campaign];
      switch (change.kind) {
        case CampaignChange::Kind::kBudget:
          config.daily_budget_micros = change.daily_budget_micros;
          budget_history_[change.campaign].emplace_back(change.at_ms, change.daily_budget_micros);
          break;
        case CampaignChange::Kind::kPause:
          paused_[change.campaign] = true;
          config.enabled = false;
          break;
        case CampaignChange::Kind::kResume:
          paused_[change.campaign] = false;
          config.enabled = true;
          break;
      }
      change_times_[change.campaign].push_back(change.at_ms);
      any = true;
    }
    for (size_t c = live_configs_.size(); c < campaigns_.size(); ++c) {
      if (campaigns_[c].created_at_ms > now) break;
      live_configs_.push_back(all_configs_[c]);
      change_times_[c].push_back(campaigns_[c].created_at_ms);
      any = true;
    }
    if (!any) return false;
    for (size_t c = 0; c < live_configs_.size(); ++c) live_configs_[c] = all_configs_[c];
    changed_ = true;
    return true;
  }

  // The daily budget in force at `at_ms`.
  int64_t BudgetAt(size_t campaign, int64_t at_ms) const {
    int64_t budget = 0;
    for (const auto& [from_ms, micros] : budget_history_[campaign]) {
      if (from_ms <= at_ms) budget = micros;
    }
    return budget;
  }

  struct Burst {
    double factor = 1.0;
    double left_s = 0;
  };

  // The campaign's demand multiplier for the next step: calm (1), a burst
  // (3x-5x) or a lull, switching at random.
  double DemandFactor(size_t campaign, double step_s) {
    Burst& b = bursts_[campaign];
    if (b.left_s > 0) {
      b.left_s -= step_s;
      return b.factor;
    }
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const double u = uniform(random_);
    if (u < step_s / options_.burst_every_s) {
      b.factor = 3.0 + 2.0 * uniform(random_);
      b.left_s = std::exponential_distribution<double>(1.0 / options_.burst_mean_s)(random_);
    } else if (u < step_s / options_.burst_every_s + step_s / options_.lull_every_s) {
      b.factor = options_.lull_factor;
      b.left_s = std::exponential_distribution<double>(1.0 / options_.lull_mean_s)(random_);
    } else {
      b.factor = 1.0;
    }
    return b.factor;
  }

  int64_t SpentBetween(size_t campaign, int64_t from_ms, int64_t to_ms) const {
    // Minute resolution: every boundary used is a whole minute after start.
    int64_t total = 0;
    const int64_t first = (from_ms - options_.start_ms) / 60000;
    const int64_t last = (to_ms - options_.start_ms) / 60000;
    for (int64_t m = std::max<int64_t>(first, 0);
         m < last && m < static_cast<int64_t>(spent_by_minute_[campaign].size()); ++m) {
      total += spent_by_minute_[campaign][m];
    }
    return total;
  }

  std::vector<std::vector<SimulatedDay>> Summarise(int64_t end_ms) const {
    std::vector<std::vector<SimulatedDay>> all(campaigns_.size());
    for (size_t c = 0; c < campaigns_.size(); ++c) {
      const internal::CampaignDay& zone = days_[c];
      for (absl::CivilDay day = zone.DayAt(options_.start_ms); zone.StartMillis(day) < end_ms;
           ++day) {
        SimulatedDay d;
        d.day = day;
        d.begin_ms =
            std::max({zone.StartMillis(day), options_.start_ms, campaigns_[c].created_at_ms});
        d.end_ms = zone.EndMillis(day);
        if (d.end_ms <= d.begin_ms) continue;  // over before the campaign was created
        d.complete = d.end_ms <= end_ms;
        d.spent_micros = SpentBetween(c, d.begin_ms, std::min(d.end_ms, end_ms));
        d.budget_micros = BudgetAt(c, std::min(d.end_ms, end_ms) - 1);
        d.allowed_micros = d.budget_micros;
        for (int64_t at : change_times_[c]) {
          if (at < zone.StartMillis(day) || at >= d.end_ms) continue;
          d.changed = true;
          d.allowed_micros = std::max(d.allowed_micros, SpentBetween(c, d.begin_ms, at));
        }
        auto bound = bound_by_day_[c].find(absl::StrCat(absl::FormatCivilTime(day)));
        if (bound != bound_by_day_[c].end()) d.max_overspend_bound_micros = bound->second;
        if (campaigns_[c].mode == config::PacingMode::kEven && !d.changed &&
            campaigns_[c].dayparts.empty()) {
          const double budget = static_cast<double>(d.budget_micros);
          const double length = static_cast<double>(d.end_ms - d.begin_ms);
          std::vector<int64_t> marks;
          for (int64_t mark = d.begin_ms + 3600000; mark < std::min(d.end_ms, end_ms);
               mark += 3600000) {
            marks.push_back(mark);
          }
          if (d.complete) marks.push_back(d.end_ms);
          for (int64_t mark : marks) {
            const double target = budget * static_cast<double>(mark - d.begin_ms) / length;
            const double actual = static_cast<double>(SpentBetween(c, d.begin_ms, mark));
            d.worst_hour_deviation =
                std::max(d.worst_hour_deviation, std::abs(actual - target) / target);
            ++d.hour_marks;
          }
        }
        all[c].push_back(d);
      }
    }
    return all;
  }

  std::vector<SimulatedCampaign> campaigns_;
  SimulationOptions options_;
  std::mt19937_64 random_;
  std::vector<internal::CampaignDay> days_;
  std::vector<internal::CampaignBudget> bidding_;  // the schedule of each
  std::vector<std::vector<int64_t>> spent_by_minute_;
  std::vector<Burst> bursts_;
  std::vector<std::map<std::string, int64_t>> bound_by_day_;
  // Every campaign's config as the table holds it (created or not yet).
  std::vector<config::CampaignConfig> all_configs_;
  // The campaigns the table holds now, by position: what UpdateCampaigns takes.
  std::vector<config::CampaignConfig> live_configs_;
  bool changed_ = false;
  std::vector<bool> paused_;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> budget_history_;  // (from, micros)
  std::vector<std::vector<int64_t>> change_times_;                        // per campaign
};

}  // namespace rtb::pacing::testing

#endif  // RTB_TESTS_PACING_BUDGET_SIMULATION_H_
