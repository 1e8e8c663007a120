// The follower on the embedded store: positions kept for good, the table
// ruling over the config's list, changes read from the log only.
#include "bidder/campaigns/campaign_follower.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "tests/bidder/decision_fixtures.h"

namespace rtb::bidder::campaigns {
namespace {

std::string CampaignWithBudget(std::string_view id, int64_t budget = 1000000) {
  nlohmann::json c = {{"id", id},
                      {"advertiser_domains", {"northwind-travel.example"}},
                      {"daily_budget_micros", budget},
                      {"currency", "USD"},
                      {"max_bid_cpm", 2.5},
                      {"creatives",
                       {{{"id", "mrec"},
                         {"format", "banner"},
                         {"w", 300},
                         {"h", 250},
                         {"adm", "<a href=\"${CLICK_URL}\">x</a>"},
                         {"landing_url", "https://northwind-travel.example/"}}}}};
  return c.dump();
}

std::vector<std::string> Ids(const LiveCampaigns& live) {
  std::vector<std::string> ids;
  for (const LiveCampaign& c : live.by_position) ids.push_back(c.id);
  return ids;
}

class CampaignFollowerTest : public ::testing::Test {
 protected:
  CampaignFollowerTest()
      : config_(testing::ExampleConfig()),
        store_(temp_.store(), storage::SystemClock(), Decoder()) {}

  CampaignStore::Validator Decoder() {
    return [this](std::string_view json) { return config::ParseCampaign(json, config_); };
  }

  std::unique_ptr<CampaignFollower> Follower(const std::vector<config::CampaignConfig>& initial) {
    CampaignFollowerOptions options;
    options.registry = &registry_;
    options.max_campaigns = 4;
    return std::make_unique<CampaignFollower>(
        store_, initial, Decoder(), [this](const LiveCampaigns& live) { heard_.push_back(live); },
        options);
  }

  config::BidderConfig config_;
  testing::TempStore temp_;
  CampaignStore store_;
  prometheus::Registry registry_;
  std::vector<LiveCampaigns> heard_;
};

TEST_F(CampaignFollowerTest, PositionsNeverMoveAndTheTableRules) {
  config::CampaignConfig from_file;
  from_file.id = "file-only";
  config::CampaignConfig seeded;
  seeded.id = "b";
  // The file lists "file-only" and "b"; the table holds "b" and "a".
  ASSERT_TRUE(store_.Create(CampaignWithBudget("b"), "alice").ok());
  ASSERT_TRUE(store_.Create(CampaignWithBudget("a"), "alice").ok());
  std::unique_ptr<CampaignFollower> follower = Follower({from_file, seeded});
  EXPECT_EQ(follower->current()->generation, 0u);
  EXPECT_EQ(Ids(*follower->current()), (std::vector<std::string>{"file-only", "b"}));

  ASSERT_TRUE(follower->Poll().ok());
  ASSERT_EQ(heard_.size(), 1u);
  // Copies: heard_ grows below.
  const LiveCampaigns first = heard_.back();
  EXPECT_EQ(Ids(first), (std::vector<std::string>{"file-only", "b", "a"}));
  EXPECT_FALSE(first.by_position[0].config->enabled) << "not in the table: not bid on";
  EXPECT_TRUE(first.by_position[1].config->enabled);
  EXPECT_TRUE(first.by_position[2].config->enabled);

  // Nothing changed: nothing rebuilt.
  ASSERT_TRUE(follower->Poll().ok());
  EXPECT_EQ(heard_.size(), 1u);

  // A pause, a new budget and a new campaign: the new one appended.
  ASSERT_TRUE(store_.SetState("a", CampaignState::kPaused, 1, "alice").ok());
  ASSERT_TRUE(store_.Patch("b", R"({"daily_budget_micros": 5000000})", 1, "alice").ok());
  ASSERT_TRUE(store_.Create(CampaignWithBudget("0-new"), "alice").ok());
  ASSERT_TRUE(follower->Poll().ok());
  ASSERT_EQ(heard_.size(), 2u);
  const LiveCampaigns second = heard_.back();
  EXPECT_EQ(Ids(second), (std::vector<std::string>{"file-only", "b", "a", "0-new"}));
  EXPECT_EQ(second.by_position[1].config->daily_budget_micros, 5000000);
  EXPECT_EQ(second.by_position[1].version, 2);
  EXPECT_FALSE(second.by_position[2].config->enabled);
  EXPECT_EQ(second.by_position[2].state, CampaignState::kPaused);
  EXPECT_TRUE(second.by_position[3].config->enabled);
  EXPECT_EQ(second.generation, first.generation + 1);
  EXPECT_EQ(follower->current()->generation, second.generation);

  // Past max_campaigns (4): not given a position, counted.
  ASSERT_TRUE(store_.Create(CampaignWithBudget("one-too-many"), "alice").ok());
  ASSERT_TRUE(follower->Poll().ok());
  EXPECT_EQ(follower->current()->by_position.size(), 4u);
  EXPECT_TRUE(follower->Readiness().ok());
}

TEST_F(CampaignFollowerTest, ConfigsByPositionCarryTheStateAsEnabled) {
  ASSERT_TRUE(store_.Create(CampaignWithBudget("a"), "alice").ok());
  ASSERT_TRUE(store_.Create(CampaignWithBudget("b"), "alice").ok());
  ASSERT_TRUE(store_.SetState("b", CampaignState::kArchived, 1, "alice").ok());
  std::unique_ptr<CampaignFollower> follower = Follower({});
  ASSERT_TRUE(follower->Poll().ok());
  const std::vector<config::CampaignConfig> configs = follower->current()->Configs();
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].id, "a");
  EXPECT_TRUE(configs[0].enabled);
  EXPECT_EQ(configs[1].id, "b");
  EXPECT_FALSE(configs[1].enabled);
}

}  // namespace
}  // namespace rtb::bidder::campaigns
