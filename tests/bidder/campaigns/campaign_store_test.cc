// Campaigns in the store: versions, conflicts, audit, change log, seeding,
// validation by the config file's rules.
#include "bidder/campaigns/campaign_store.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "storage/clock.h"
#include "tests/bidder/decision_fixtures.h"

namespace rtb::bidder::campaigns {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Campaign(std::string_view id, double max_bid = 2.5) {
  nlohmann::json c = {{"id", id},
                      {"advertiser_domains", {"northwind-travel.example"}},
                      {"daily_budget_micros", 1000000},
                      {"currency", "USD"},
                      {"max_bid_cpm", max_bid},
                      {"creatives",
                       {{{"id", "mrec"},
                         {"format", "banner"},
                         {"w", 300},
                         {"h", 250},
                         {"adm", "<a href=\"${CLICK_URL}\">x</a>"},
                         {"landing_url", "https://northwind-travel.example/"}}}}};
  return c.dump();
}

class CampaignStoreTest : public ::testing::Test {
 protected:
  CampaignStoreTest()
      : config_(testing::ExampleConfig()),
        clock_(std::make_shared<storage::ManualClock>(testing::kNoonUtcMillis)),
        campaigns_(temp_.store(), clock_,
                   [this](std::string_view json) { return config::ParseCampaign(json, config_); }) {
  }

  config::BidderConfig config_;
  testing::TempStore temp_;
  std::shared_ptr<storage::ManualClock> clock_;
  CampaignStore campaigns_;
};

TEST_F(CampaignStoreTest, CreateGetAndListRoundTripTheObject) {
  absl::StatusOr<CampaignRecord> created = campaigns_.Create(Campaign("c1"), "alice");
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->id, "c1");
  EXPECT_EQ(created->version, 1);
  EXPECT_EQ(created->state, CampaignState::kActive);
  EXPECT_EQ(created->updated_by, "alice");
  auto got = campaigns_.Get("c1");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ(nlohmann::json::parse((*got)->json), nlohmann::json::parse(Campaign("c1")));
  ASSERT_TRUE(campaigns_.Create(Campaign("c2"), "alice").ok());
  auto listed = campaigns_.List();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].id, "c1");
  EXPECT_EQ((*listed)[1].id, "c2");
  EXPECT_FALSE(campaigns_.Get("c3")->has_value());
}

TEST_F(CampaignStoreTest, InvalidCampaignsGetEveryProblemWithItsPath) {
  nlohmann::json bad = nlohmann::json::parse(Campaign("c1"));
  bad["max_bid_cpm"] = -1;
  bad["creatives"][0]["w"] = 0;
  bad["currency"] = "XXX";
  absl::StatusOr<CampaignRecord> created = campaigns_.Create(bad.dump(), "alice");
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(created.status().message());
  EXPECT_THAT(message, HasSubstr("max_bid_cpm: must be > 0"));
  EXPECT_THAT(message, HasSubstr("creatives[0].w"));
  EXPECT_THAT(message, HasSubstr("currency:"));
  EXPECT_FALSE(campaigns_.Get("c1")->has_value());
  EXPECT_FALSE(campaigns_.Create("[1]", "alice").ok());
  EXPECT_FALSE(campaigns_.Create("{", "alice").ok());
}

TEST_F(CampaignStoreTest, AStaleEditIsRefusedWithTheCurrentVersion) {
  ASSERT_TRUE(campaigns_.Create(Campaign("c1"), "alice").ok());
  auto first = campaigns_.Update("c1", Campaign("c1", 3.0), 1, "alice");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->version, 2);
  // Bob read version 1 too.
  auto stale = campaigns_.Update("c1", Campaign("c1", 4.0), 1, "bob");
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(std::string(stale.status().message()), HasSubstr("version 2"));
  EXPECT_EQ(nlohmann::json::parse((*campaigns_.Get("c1"))->json)["max_bid_cpm"], 3.0);
}

TEST_F(CampaignStoreTest, ConcurrentEditsOfOneVersionLeaveExactlyOneWinner) {
  ASSERT_TRUE(campaigns_.Create(Campaign("c1"), "alice").ok());
  std::vector<std::thread> threads;
  std::atomic<int> won{0}, conflicted{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      auto r = campaigns_.Update("c1", Campaign("c1", 1.0 + t), 1, "op" + std::to_string(t));
      if (r.ok()) ++won;
      if (!r.ok() && r.status().code() == absl::StatusCode::kAborted) ++conflicted;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(conflicted.load(), 7);
  EXPECT_EQ((*campaigns_.Get("c1"))->version, 2);
}

TEST_F(CampaignStoreTest, PatchMergesAndKeepsTheId) {
  ASSERT_TRUE(campaigns_.Create(Campaign("c1"), "alice").ok());
  auto patched = campaigns_.Patch("c1", R"({"max_bid_cpm": 1.25, "seat": "Agency9"})", 1, "alice");
  ASSERT_TRUE(patched.ok()) << patched.status();
  const nlohmann::json json = nlohmann::json::parse(patched->json);
  EXPECT_EQ(json["max_bid_cpm"], 1.25);
  EXPECT_EQ(json["seat"], "Agency9");
  EXPECT_EQ(json["creatives"].size(), 1u);
  auto renamed = campaigns_.Patch("c1", R"({"id": "c9"})", 2, "alice");
  ASSERT_FALSE(renamed.ok());
  EXPECT_THAT(std::string(renamed.status().message()), HasSubstr("id: must stay c1"));
}

TEST_F(CampaignStoreTest, PauseResumeArchiveAndIdsAreNeverReused) {
  ASSERT_TRUE(campaigns_.Create(Campaign("c1"), "alice").ok());
  auto paused = campaigns_.SetState("c1", CampaignState::kPaused, 1, "alice");
  ASSERT_TRUE(paused.ok());
  EXPECT_EQ(paused->state, CampaignState::kPaused);
  auto resumed = campaigns_.SetState("c1", CampaignState::kActive, 2, "alice");
  ASSERT_TRUE(resumed.ok());
  auto archived = campaigns_.SetState("c1", CampaignState::kArchived, 3, "alice");
  ASSERT_TRUE(archived.ok());
  EXPECT_EQ(campaigns_.SetState("c1", CampaignState::kActive, 4, "alice").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(campaigns_.Update("c1", Campaign("c1"), 4, "alice").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(campaigns_.Create(Campaign("c1"), "bob").status().code(),
            absl::StatusCode::kAlreadyExists);
  CampaignFilter archived_only;
  archived_only.state = CampaignState::kArchived;
  EXPECT_EQ(campaigns_.List(archived_only)->size(), 1u);
}

TEST_F(CampaignStoreTest, EveryChangeIsAnAuditRecordNewestFirst) {
  ASSERT_TRUE(campaigns_.Create(Campaign("c1"), "alice").ok());
  clock_->Advance(1000);
  ASSERT_TRUE(campaigns_.Update("c1", Campaign("c1", 3.0), 1, "bob").ok());
  clock_->Advance(1000);
  ASSERT_TRUE(campaigns_.SetState("c1", CampaignState::kPaused, 2, "carol").ok());
  auto history = campaigns_.History("c1");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ((*history)[0].action, "pause");
  EXPECT_EQ((*history)[0].operator_name, "carol");
  EXPECT_EQ((*history)[0].version, 3);
  EXPECT_EQ((*history)[1].action, "update");
  EXPECT_EQ(nlohmann::json::parse((*history)[1].before)["max_bid_cpm"], 2.5);
  EXPECT_EQ(nlohmann::json::parse((*history)[1].after)["max_bid_cpm"], 3.0);
  EXPECT_EQ((*history)[2].action, "create");
  EXPECT_EQ((*history)[2].before, "");
  EXPECT_EQ((*history)[2].at_ms, testing::kNoonUtcMillis);
}

TEST_F(CampaignStoreTest, TheChangeLogNamesWhatChangedSinceAPoint) {
  ASSERT_TRUE(campaigns_.Create(Campaign("c1"), "alice").ok());
  ASSERT_TRUE(campaigns_.Create(Campaign("c2"), "alice").ok());
  auto all = campaigns_.ChangesSince(0);
  ASSERT_TRUE(all.ok());
  EXPECT_THAT(all->campaign_ids, ElementsAre("c1", "c2"));
  EXPECT_EQ(all->last_sequence, 2u);
  EXPECT_EQ(*campaigns_.LastSequence(), 2u);
  ASSERT_TRUE(campaigns_.Update("c1", Campaign("c1", 3.0), 1, "alice").ok());
  ASSERT_TRUE(campaigns_.SetState("c1", CampaignState::kPaused, 2, "alice").ok());
  auto since = campaigns_.ChangesSince(all->last_sequence);
  ASSERT_TRUE(since.ok());
  EXPECT_THAT(since->campaign_ids, ElementsAre("c1"));  // once, however often it changed
  EXPECT_EQ(since->last_sequence, 4u);
  EXPECT_TRUE(campaigns_.ChangesSince(4)->campaign_ids.empty());
  // A failed edit is not a change.
  ASSERT_FALSE(campaigns_.Update("c2", Campaign("c2"), 7, "alice").ok());
  EXPECT_EQ(*campaigns_.LastSequence(), 4u);
}

TEST_F(CampaignStoreTest, AHoleInTheChangeLogIsWaitedForThenSteppedOver) {
  ASSERT_TRUE(campaigns_.Create(Campaign("c1"), "alice").ok());
  // A writer that took sequence 2 and has not written its entry yet.
  storage::Increment take;
  take.row = "~changes";
  take.columns.push_back(storage::IncrementColumn{"c", "seq", 1});
  ASSERT_TRUE(temp_.store().Increment(storage::kCampaignsTable, take).ok());
  ASSERT_TRUE(campaigns_.Create(Campaign("c3"), "alice").ok());  // sequence 3
  auto waiting = campaigns_.ChangesSince(1);
  ASSERT_TRUE(waiting.ok());
  EXPECT_TRUE(waiting->campaign_ids.empty());
  EXPECT_EQ(waiting->last_sequence, 1u);
  clock_->Advance(11000);
  auto stepped = campaigns_.ChangesSince(1);
  EXPECT_THAT(stepped->campaign_ids, ElementsAre("c3"));
  EXPECT_EQ(stepped->last_sequence, 3u);
}

TEST_F(CampaignStoreTest, SeedingHappensOnceOnAnEmptyStore) {
  auto seeded = campaigns_.SeedIfEmpty({Campaign("a"), Campaign("b")}, "config");
  ASSERT_TRUE(seeded.ok()) << seeded.status();
  EXPECT_TRUE(*seeded);
  EXPECT_EQ(campaigns_.List()->size(), 2u);
  EXPECT_EQ((*campaigns_.History("a"))[0].action, "seed");
  EXPECT_FALSE(*campaigns_.SeedIfEmpty({Campaign("c")}, "config"));
  EXPECT_EQ(campaigns_.List()->size(), 2u);
}

TEST_F(CampaignStoreTest, AdvertiserFilterMatchesTheListedDomains) {
  ASSERT_TRUE(campaigns_.Create(Campaign("c1"), "alice").ok());
  nlohmann::json other = nlohmann::json::parse(Campaign("c2"));
  other["advertiser_domains"] = {"fabrikam.example"};
  ASSERT_TRUE(campaigns_.Create(other.dump(), "alice").ok());
  CampaignFilter filter;
  filter.advertiser = "fabrikam.example";
  auto listed = campaigns_.List(filter);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, "c2");
}

}  // namespace
}  // namespace rtb::bidder::campaigns
