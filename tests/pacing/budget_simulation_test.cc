// The budget simulation of issue 6: 8 workers, 20 campaigns in six time
// zones (one of them changing to daylight-saving time that day), bursty and
// skewed spend, flushes every 5 s, a worker crash. Asserted: no campaign-day
// overspends its budget by more than the bound the controller computed, and
// even pacing stays within 5 % of its target curve at every hour mark.
//
// On the embedded store it covers 25 virtual hours. Against the storage
// server (a real process over Thrift2 on loopback, a round trip per call) it
// covers 3 hours across a UTC midnight, with asap demand that reaches the cap
// within the hour.
#include "tests/pacing/budget_simulation.h"

#include <iostream>
#include <memory>

#include "gtest/gtest.h"
#include "storage/hbase_store.h"
#include "tests/pacing/pacing_test_support.h"
#include "tests/storage/server/server_process.h"

namespace rtb::pacing::testing {
namespace {

constexpr int64_t kHourMs = 3600 * 1000;

// `asap_hours`: how long asap campaigns' calm demand takes to spend a budget.
std::vector<SimulatedCampaign> TwentyCampaigns(double asap_hours = 4) {
  const char* zones[] = {"UTC",          "America/New_York",    "Europe/Berlin",
                         "Asia/Kolkata", "America/Los_Angeles", "Australia/Sydney"};
  std::vector<SimulatedCampaign> campaigns;
  constexpr double kPrice = 2000;  // $2 CPM
  for (int i = 0; i < 20; ++i) {
    SimulatedCampaign c;
    c.id = absl::StrCat("camp-", i);
    c.zone = zones[i % 6];
    c.mean_price_micros = kPrice;
    if (i < 12) {
      c.mode = config::PacingMode::kEven;
      c.daily_budget_micros = int64_t{300000000} + int64_t{100000000} * i;
      // Twelve times what the budget needs at an even rate.
      c.demand_wins_per_s = 12.0 * c.daily_budget_micros / 86400.0 / kPrice;
    } else {
      c.mode = config::PacingMode::kAsap;
      c.daily_budget_micros = int64_t{200000000} + int64_t{50000000} * (i - 12);
      c.demand_wins_per_s = c.daily_budget_micros / (asap_hours * 3600) / kPrice;
    }
    campaigns.push_back(c);
  }
  return campaigns;
}

SimulationOptions Options() {
  SimulationOptions options;
  options.workers = 8;
  options.start_ms = UnixMillis(absl::CivilSecond(2026, 10, 4, 0, 0, 0), "UTC");
  options.duration_ms = 25 * kHourMs;
  options.flush_interval_ms = 5000;
  options.seed = 20261004;
  // Every 5 virtual minutes: as often as the reads need (each walks at most
  // five versions before it seeks); every minute cost a quarter more time.
  options.compact_every_ms = 5 * 60 * 1000;
  options.restart_worker = 5;
  options.restart_at_ms = options.start_ms + 9 * kHourMs + 1234;
  return options;
}

void CheckOutcome(const BudgetSimulation& simulation, const SimulatedOutcome& outcome) {
  std::cout << "wins " << outcome.wins << ", lost in the restart " << outcome.lost_in_restart_micros
            << " micros\n";
  ASSERT_EQ(outcome.days.size(), simulation.campaigns().size());
  EXPECT_GT(outcome.lost_in_restart_micros, 0);
  for (size_t c = 0; c < outcome.days.size(); ++c) {
    const SimulatedCampaign& campaign = simulation.campaigns()[c];
    for (const SimulatedDay& day : outcome.days[c]) {
      const int64_t over = day.spent_micros - day.allowed_micros;
      std::cout << absl::StrFormat(
          "%-8s %-5s %-19s %s %s%s spent %6.2f%% of %5d USD, over %+9d (bound %7d) micros, "
          "worst hour %5.2f%% over %2d marks\n",
          campaign.id, config::PacingModeName(campaign.mode), campaign.zone,
          absl::FormatCivilTime(day.day), day.complete ? "ended" : "open ",
          day.changed ? " changed" : "", 100.0 * day.spent_micros / day.budget_micros,
          day.budget_micros / 1000000, over, day.max_overspend_bound_micros,
          100 * day.worst_hour_deviation, day.hour_marks);
      EXPECT_LE(over, day.max_overspend_bound_micros)
          << campaign.id << " " << absl::FormatCivilTime(day.day);
      if (campaign.mode == config::PacingMode::kEven && !day.changed &&
          day.end_ms - day.begin_ms >= kHourMs) {
        EXPECT_LE(day.worst_hour_deviation, 0.05)
            << campaign.id << " " << absl::FormatCivilTime(day.day);
      }
      if (campaign.mode == config::PacingMode::kAsap && day.complete &&
          day.end_ms - day.begin_ms >= 8 * kHourMs) {
        // Demand spends the budget in about four hours: it reaches the cap.
        EXPECT_GE(day.spent_micros, day.budget_micros * 95 / 100)
            << campaign.id << " " << absl::FormatCivilTime(day.day);
      }
    }
  }
}

TEST(BudgetSimulationTest, EmbeddedStoreKeepsEveryCampaignWithinItsBoundAndCurve) {
  auto clock = std::make_shared<storage::ManualClock>(0);
  TempStore temp(clock, storage::Durability::kSkipWal);
  BudgetSimulation simulation(TwentyCampaigns(), Options());
  CheckOutcome(simulation, simulation.Run(temp.store(), clock));
}

// An operator's day: budgets cut (one below what is already spent) and
// raised, campaigns paused and resumed, one created mid-morning, each handed
// to the pacer service and every worker as their table followers would, and
// a campaign with dayparts. Every campaign-day stays within the controller's
// bound of what it was allowed to spend, and even campaigns with the demand
// to do it still spend their (new) budget by the day's end, the dayparted
// one within its hours.
TEST(BudgetSimulationTest, BudgetChangesPausesAndResumesKeepEveryCampaignWithinItsBound) {
  auto at = [](int hour) { return UnixMillis(absl::CivilSecond(2026, 10, 4, hour, 0, 0), "UTC"); };
  // Six of the twenty, each with a change: positions 0-5 hold camp-0,
  // camp-2, camp-3, camp-6, camp-12 and camp-13; camp-21 (position 6) bids
  // only in its dayparts; camp-20 (position 7) is created at 06:00.
  const std::vector<SimulatedCampaign> twenty = TwentyCampaigns();
  std::vector<SimulatedCampaign> campaigns;
  for (int i : {0, 2, 3, 6, 12, 13}) campaigns.push_back(twenty[i]);
  // Bids 09:00-17:00 in Berlin only: even pacing spreads its budget over
  // those 8 hours, where demand is 4 times what it needs.
  SimulatedCampaign dayparted = twenty[2];
  dayparted.id = "camp-21";
  dayparted.dayparts = {config::DaypartConfig{
      .days = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"}, .from_hour = 9, .to_hour = 17}};
  campaigns.push_back(dayparted);
  SimulatedCampaign created = twenty[0];
  created.id = "camp-20";
  created.created_at_ms = at(6);
  campaigns.push_back(created);
  using Kind = CampaignChange::Kind;
  SimulationOptions options = Options();
  options.changes = {
      {.at_ms = at(1), .campaign = 4, .kind = Kind::kPause},   // camp-12, asap
      {.at_ms = at(3), .campaign = 4, .kind = Kind::kResume},  // camp-12
      // camp-13, asap: cut below what it has spent
      {.at_ms = at(6), .campaign = 5, .kind = Kind::kBudget, .daily_budget_micros = 100000000},
      {.at_ms = at(8), .campaign = 1, .kind = Kind::kPause},  // camp-2
      // camp-6: raised from 900 to 1500 USD
      {.at_ms = at(10), .campaign = 3, .kind = Kind::kBudget, .daily_budget_micros = 1500000000},
      {.at_ms = at(11), .campaign = 1, .kind = Kind::kResume},  // camp-2
      // camp-0: cut from 300 to 200 USD with about 150 spent
      {.at_ms = at(12), .campaign = 0, .kind = Kind::kBudget, .daily_budget_micros = 200000000},
      // camp-3: cut from 600 to 300 USD with about 490 spent
      {.at_ms = at(14), .campaign = 2, .kind = Kind::kBudget, .daily_budget_micros = 300000000},
  };
  // One whole UTC day: the days the changes fall in end within it.
  options.duration_ms = 24 * kHourMs + 60 * 1000;
  auto clock = std::make_shared<storage::ManualClock>(0);
  TempStore temp(clock, storage::Durability::kSkipWal);
  BudgetSimulation simulation(campaigns, options);
  const SimulatedOutcome outcome = simulation.Run(temp.store(), clock);
  CheckOutcome(simulation, outcome);

  // The day each change fell in, by campaign: spent against the new budget.
  auto day_of = [&](size_t campaign, absl::CivilDay day) -> const SimulatedDay* {
    for (const SimulatedDay& d : outcome.days[campaign]) {
      if (d.day == day) return &d;
    }
    return nullptr;
  };
  const absl::CivilDay october_4(2026, 10, 4);
  for (size_t campaign : {0, 1, 3, 6, 7}) {  // camp-0, camp-2, camp-6, camp-21, camp-20
    const SimulatedDay* day = day_of(campaign, october_4);
    ASSERT_NE(day, nullptr) << campaign;
    ASSERT_TRUE(day->complete) << campaign;
    EXPECT_GE(day->spent_micros, day->budget_micros * 95 / 100)
        << simulation.campaigns()[campaign].id << " spends its new budget after the change";
  }
  EXPECT_EQ(day_of(0, october_4)->budget_micros, 200000000);
  EXPECT_EQ(day_of(3, october_4)->budget_micros, 1500000000);
  // Cut below what it had spent: it stopped at the cut.
  const SimulatedDay* cut = day_of(2, october_4);  // camp-3
  ASSERT_NE(cut, nullptr);
  EXPECT_GT(cut->allowed_micros, cut->budget_micros);
  EXPECT_LE(cut->spent_micros - cut->allowed_micros, cut->max_overspend_bound_micros);
}

TEST(BudgetSimulationTest, StorageServerKeepsEveryCampaignWithinItsBoundAndCurve) {
  storage::testing::StorageServerProcess server(TempDir("server"));
  ASSERT_TRUE(server.Start({"--apply-schemas"})) << server.Stderr();
  storage::HBaseStoreOptions store_options;
  store_options.endpoints = {server.endpoint()};
  auto store = storage::OpenHBaseStore(store_options);
  ASSERT_TRUE(store.ok()) << store.status();

  SimulationOptions options = Options();
  options.start_ms = UnixMillis(absl::CivilSecond(2026, 10, 4, 22, 0, 0), "UTC");
  options.duration_ms = 3 * kHourMs;
  options.restart_at_ms = options.start_ms + 90 * 60 * 1000 + 1234;
  auto clock = std::make_shared<storage::ManualClock>(0);
  BudgetSimulation simulation(TwentyCampaigns(/*asap_hours=*/1), options);
  CheckOutcome(simulation, simulation.Run(**store, clock));
  store->reset();
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
}

}  // namespace
}  // namespace rtb::pacing::testing
