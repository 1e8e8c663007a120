#include "storage/schemas.h"

#include <string>

#include "absl/container/flat_hash_set.h"
#include "tests/storage/test_store.h"

namespace rtb::storage::testing {
namespace {

const TableSchema& Find(const std::vector<TableSchema>& tables, std::string_view name) {
  for (const TableSchema& t : tables) {
    if (t.name == name) return t;
  }
  ADD_FAILURE() << "no table " << name;
  static TableSchema none;
  return none;
}

TEST(SchemasTest, EveryTableIsValidAndNamedOnce) {
  absl::flat_hash_set<std::string> names;
  for (const TableSchema& t : BidderTables()) {
    EXPECT_TRUE(ValidateSchema(t).ok()) << t.name;
    EXPECT_TRUE(names.insert(t.name).second) << t.name;
  }
  for (std::string_view name : {kProfilesTable, kImpressionsTable, kBudgetTable, kSpendJournalTable,
                                kEventsTable, kEventsByTypeTable, kEventRollupsTable, kMetricsTable,
                                kSessionsTable, kUserSessionsTable}) {
    EXPECT_TRUE(names.contains(std::string(name))) << name;
  }
}

// Every table's families by name and TTL, written out as literals: family
// names are stored in every cell, so renaming a constant must not rename a
// family.
TEST(SchemasTest, FamilyNamesAndTtlsArePinned) {
  constexpr int64_t kDay = 86400;
  std::string listing;
  for (const TableSchema& t : BidderTables(TableOptions())) {
    listing += t.name + ":";
    for (const FamilyOptions& f : t.families) {
      listing += " " + f.name + "/" + std::to_string(f.ttl_seconds / kDay) + "d" +
                 std::to_string(f.ttl_seconds % kDay) + "s";
    }
    listing += "\n";
  }
  EXPECT_EQ(listing,
            "profiles: seg/30d0s fc/2d0s\n"
            "impressions: i/7d0s\n"
            "device_impressions: x/7d0s\n"
            "budget: spend/400d0s\n"
            "spend_journal: e/7d0s n/0d0s\n"
            "events: d/90d0s\n"
            "events_by_type: i/30d0s\n"
            "event_rollups: c/730d0s\n"
            "erasures: e/0d0s\n"
            "metrics: d/2d0s p/0d0s\n"
            "metric_ids: i/0d0s\n"
            "metric_series: s/0d0s\n"
            "metric_rollups: m/400d0s h/0d0s\n"
            "sessions: s/0d28800s\n"
            "user_sessions: s/0d28800s\n"
            "campaigns: c/0d0s\n"
            "campaign_changes: x/7d0s\n"
            "campaign_audit: a/0d0s\n"
            "pricing: o/8d0s r/62d0s m/2d0s\n"
            "leases: l/0d0s\n"
            "fleet_jobs: j/0d0s\n");
}

TEST(SchemasTest, ProfilesMatchTheAdTechDesign) {
  const auto tables = BidderTables();
  const TableSchema& t = Find(tables, kProfilesTable);
  const FamilyOptions* seg = t.Family("seg");
  const FamilyOptions* fc = t.Family("fc");
  ASSERT_TRUE(seg && fc);
  EXPECT_EQ(seg->ttl_seconds, 30 * 24 * 3600);
  EXPECT_EQ(seg->max_versions, 1);
  EXPECT_EQ(seg->bloom, BloomType::kRow);
  EXPECT_EQ(fc->ttl_seconds, 2 * 24 * 3600);
  EXPECT_TRUE(fc->in_memory);
  EXPECT_EQ(t.region_replication, 2);
  EXPECT_EQ(t.split_keys.size(), 15u);
}

TEST(SchemasTest, SpendJournalEntriesExpireAsABackstopAndItsCountersNever) {
  const auto tables = BidderTables();
  const TableSchema& t = Find(tables, kSpendJournalTable);
  ASSERT_TRUE(t.Family("e") && t.Family("n"));
  EXPECT_EQ(t.Family("e")->ttl_seconds, 7 * 24 * 3600);
  EXPECT_EQ(t.Family("n")->ttl_seconds, kForever);
}

TEST(SchemasTest, EventRetentionTiersAre90And30DaysAndTwoYears) {
  auto tables = BidderTables();
  EXPECT_EQ(Find(tables, kEventsTable).Family("d")->ttl_seconds, 90 * 24 * 3600);
  EXPECT_EQ(Find(tables, kEventsByTypeTable).Family("i")->ttl_seconds, 30 * 24 * 3600);
  EXPECT_EQ(Find(tables, kEventRollupsTable).Family("c")->ttl_seconds, 730 * 24 * 3600);
}

TEST(SchemasTest, RawMetricsAreFifoCompactedForTwoDays) {
  const auto tables = BidderTables();
  const TableSchema& t = Find(tables, kMetricsTable);
  EXPECT_TRUE(t.Family("d")->fifo_compaction);
  EXPECT_EQ(t.Family("d")->ttl_seconds, 2 * 24 * 3600);
  EXPECT_EQ(t.Family("p")->compression, Compression::kNone);
  EXPECT_EQ(t.split_keys.size(), 15u);
}

TEST(SchemasTest, ConfiguredRetentionReachesImpressionsAndSessions) {
  TableOptions options;
  options.attribution_window_seconds = 3 * 24 * 3600;
  options.session_lifetime_seconds = 3600;
  auto tables = BidderTables(options);
  EXPECT_EQ(Find(tables, kImpressionsTable).Family("i")->ttl_seconds, 3 * 24 * 3600);
  EXPECT_EQ(Find(tables, kSessionsTable).Family("s")->ttl_seconds, 3600);
  EXPECT_EQ(Find(tables, kUserSessionsTable).Family("s")->ttl_seconds, 3600);
}

class SchemasStoreTest : public EmbeddedStoreTest {};

TEST_F(SchemasStoreTest, AllTablesApplyToTheEmbeddedEngineAndSurviveReopen) {
  auto tables = BidderTables();
  ASSERT_TRUE(ApplySchemas(*store_, tables).ok());
  Reopen();
  ASSERT_TRUE(ApplySchemas(*store_, tables).ok()) << "reapplying the same schemas is a no-op";
  for (const TableSchema& t : tables) EXPECT_TRUE(*store_->TableExists(t.name)) << t.name;
}

}  // namespace
}  // namespace rtb::storage::testing
