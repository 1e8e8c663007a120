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
  options.compact_every_ms = 60 * 1000;
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
      const int64_t over = day.spent_micros - campaign.daily_budget_micros;
      std::cout << absl::StrFormat(
          "%-8s %-5s %-19s %s %s spent %6.2f%% of %5d USD, over %+9d (bound %7d) micros, "
          "worst hour %5.2f%% over %2d marks\n",
          campaign.id, config::PacingModeName(campaign.mode), campaign.zone,
          absl::FormatCivilTime(day.day), day.complete ? "ended" : "open ",
          100.0 * day.spent_micros / campaign.daily_budget_micros,
          campaign.daily_budget_micros / 1000000, over, day.max_overspend_bound_micros,
          100 * day.worst_hour_deviation, day.hour_marks);
      EXPECT_LE(over, day.max_overspend_bound_micros)
          << campaign.id << " " << absl::FormatCivilTime(day.day);
      if (campaign.mode == config::PacingMode::kEven && day.end_ms - day.begin_ms >= kHourMs) {
        EXPECT_LE(day.worst_hour_deviation, 0.05)
            << campaign.id << " " << absl::FormatCivilTime(day.day);
      }
      if (campaign.mode == config::PacingMode::kAsap && day.complete &&
          day.end_ms - day.begin_ms >= 8 * kHourMs) {
        // Demand spends the budget in about four hours: it reaches the cap.
        EXPECT_GE(day.spent_micros, campaign.daily_budget_micros * 95 / 100)
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
