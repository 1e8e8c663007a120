// The shading simulation of issue 19 (tests/pricing/shading_simulation.h):
// three exchanges, two running first-price auctions (one whose notices
// carry the minimum bid to win, one whose do not) and one second-price,
// 60 sites x 3 sizes each, two CPM campaigns, 36 virtual hours at 40 000
// auctions an hour, the first 12 hours a learning phase.
//
// Asserted over the measured 24 hours, on each first-price exchange:
// shading keeps the win count within 5 % of flat bidding, pays at least
// 20 % less per impression, and earns at least 90 % of the surplus of an
// oracle that knows the price to beat. On the second-price exchange shading
// changes nothing: the same wins at the same cost.
#include "tests/pricing/shading_simulation.h"

#include <iostream>
#include <memory>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/pacing/pacing_test_support.h"

namespace rtb::pricing::testing {
namespace {

std::vector<SimulatedExchange> ThreeExchanges() {
  return {{"fp-mtw", /*first_price=*/true, /*min_to_win=*/true, 1.0},
          {"fp", /*first_price=*/true, /*min_to_win=*/false, 1.0},
          {"sp", /*first_price=*/false, /*min_to_win=*/false, 1.0}};
}

ShadingSimulationOptions Options() {
  ShadingSimulationOptions options;
  options.seed = 20261004;
  options.start_ms = pacing::testing::kNoon;
  return options;
}

void Print(const std::string& period, const std::vector<SimulatedExchange>& exchanges,
           const std::vector<ExchangeResult>& results) {
  for (size_t e = 0; e < exchanges.size(); ++e) {
    const ExchangeResult& r = results[e];
    std::cout << absl::StrFormat(
        "%-8s %-6s auctions %7d | wins flat %7d shaded %7d (%6.2f%%) oracle %7d | cost/win "
        "flat %.3f shaded %.3f (%+6.2f%%) oracle %.3f | surplus shaded/oracle %6.2f%%, "
        "flat/oracle %6.2f%%\n",
        period, exchanges[e].name, r.flat.auctions, r.flat.wins, r.shaded.wins,
        100.0 * r.shaded.wins / std::max<int64_t>(r.flat.wins, 1), r.oracle.wins,
        r.flat.cost_per_win(), r.shaded.cost_per_win(),
        100.0 * (r.shaded.cost_per_win() / std::max(r.flat.cost_per_win(), 1e-9) - 1),
        r.oracle.cost_per_win(), 100.0 * r.shaded.surplus / std::max(r.oracle.surplus, 1e-9),
        100.0 * r.flat.surplus / std::max(r.oracle.surplus, 1e-9));
  }
}

void PrintOutcomes(const ShadingSimulationResult& result) {
  std::cout << "shaded bids by outcome (measured):";
  for (size_t i = 0; i < result.outcomes.size(); ++i) {
    std::cout << " " << i << "=" << result.outcomes[i];
  }
  std::cout << absl::StrFormat("; %.1f s in fits\n", result.seconds_in_fits);
}

TEST(ShadingSimulationTest, FirstPriceShadingPaysLessForTheSameWinsAndSecondPriceIsUnchanged) {
  auto clock = std::make_shared<storage::ManualClock>(0);
  pacing::testing::TempStore temp(clock, storage::Durability::kSkipWal);
  ShadingSimulation simulation(ThreeExchanges(), Options());
  const ShadingSimulationResult result = simulation.Run(temp.store(), clock);
  ASSERT_EQ(result.measured.size(), 3u);
  Print("warm-up", simulation.exchanges(), result.warmup);
  Print("measured", simulation.exchanges(), result.measured);
  PrintOutcomes(result);
  for (size_t e = 0; e < 2; ++e) {
    const ExchangeResult& r = result.measured[e];
    SCOPED_TRACE(simulation.exchanges()[e].name);
    EXPECT_GE(r.shaded.wins, 0.95 * r.flat.wins);
    EXPECT_LE(r.shaded.wins, 1.05 * r.flat.wins);
    EXPECT_LE(r.shaded.cost_per_win(), 0.8 * r.flat.cost_per_win());
    EXPECT_GE(r.shaded.surplus, 0.9 * r.oracle.surplus);
  }
  const ExchangeResult& second = result.measured[2];
  EXPECT_EQ(second.shaded.wins, second.flat.wins);
  EXPECT_DOUBLE_EQ(second.shaded.spend, second.flat.spend);
  EXPECT_DOUBLE_EQ(second.shaded.surplus, second.flat.surplus);
}

}  // namespace
}  // namespace rtb::pricing::testing
