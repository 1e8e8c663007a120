#include "storage/internal/row_cache.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"

namespace rtb::storage::internal {
namespace {

constexpr uint32_t kFamily = 7;

// A cached row of `cells` one-byte cells.
std::shared_ptr<const CachedRow> RowOf(int cells) {
  PackedCells::Builder packer;
  for (int i = 0; i < cells; ++i) {
    const std::string qualifier = "q" + std::to_string(i);
    packer.Add(CellView{"f", qualifier, 1, "v"});
  }
  auto row = std::make_shared<CachedRow>();
  row->latest = *std::move(packer).Build();
  return row;
}

std::string RowKey(int n) { return "device-" + std::to_string(n); }

void InsertRow(RowCache& cache, int n, int cells = 4) {
  const std::string row = RowKey(n);
  cache.Insert(kFamily, row, cache.Generation(kFamily, row), RowOf(cells));
}

TEST(RowCacheTest, FindsWhatWasInsertedPerFamilyAndRow) {
  RowCache cache(1 << 20);
  InsertRow(cache, 1);
  ASSERT_NE(cache.Lookup(kFamily, RowKey(1)), nullptr);
  EXPECT_EQ(cache.Lookup(kFamily, RowKey(1))->latest.size(), 4u);
  EXPECT_EQ(cache.Lookup(kFamily + 1, RowKey(1)), nullptr);
  EXPECT_EQ(cache.Lookup(kFamily, RowKey(2)), nullptr);
  const RowCache::Reads reads = cache.reads();
  EXPECT_EQ(reads.hits, 2u);
  EXPECT_EQ(reads.misses, 2u);
}

TEST(RowCacheTest, RowsLongerThanTheInlineKeyAreFoundToo) {
  RowCache cache(1 << 20);
  const std::string long_row(100, 'r');
  cache.Insert(kFamily, long_row, cache.Generation(kFamily, long_row), RowOf(2));
  EXPECT_NE(cache.Lookup(kFamily, long_row), nullptr);
  EXPECT_EQ(cache.Lookup(kFamily, long_row.substr(0, 99)), nullptr);
}

TEST(RowCacheTest, StaysWithinItsCapacity) {
  const size_t capacity = 256 << 10;
  RowCache cache(capacity);
  for (int n = 0; n < 5000; ++n) InsertRow(cache, n, 8);
  EXPECT_LE(cache.bytes(), capacity);
  EXPECT_GT(cache.bytes(), capacity / 2);
}

TEST(RowCacheTest, ARowReadBetweenInsertsOutlivesRowsNeverReadAgain) {
  RowCache cache(256 << 10);
  InsertRow(cache, -1, 8);
  for (int n = 0; n < 20000; ++n) {
    ASSERT_NE(cache.Lookup(kFamily, RowKey(-1)), nullptr) << "evicted after " << n << " inserts";
    InsertRow(cache, n, 8);
  }
  int early_rows_left = 0;
  for (int n = 0; n < 1000; ++n) early_rows_left += cache.Lookup(kFamily, RowKey(n)) != nullptr;
  EXPECT_EQ(early_rows_left, 0);
}

TEST(RowCacheTest, AnInvalidatedRowIsGoneAndAReadBeforeTheWriteIsNotCached) {
  RowCache cache(1 << 20);
  InsertRow(cache, 1);
  const uint64_t read_began = cache.Generation(kFamily, RowKey(1));
  cache.Invalidate(kFamily, RowKey(1));
  EXPECT_EQ(cache.Lookup(kFamily, RowKey(1)), nullptr);
  cache.Insert(kFamily, RowKey(1), read_began, RowOf(4));
  EXPECT_EQ(cache.Lookup(kFamily, RowKey(1)), nullptr) << "the write came after the read began";
  InsertRow(cache, 1);
  EXPECT_NE(cache.Lookup(kFamily, RowKey(1)), nullptr);
}

TEST(RowCacheTest, ReinsertingARowReplacesItAndCountsItOnce) {
  RowCache cache(1 << 20);
  InsertRow(cache, 1, 4);
  const size_t one = cache.bytes();
  InsertRow(cache, 1, 4);
  EXPECT_EQ(cache.bytes(), one);
  InsertRow(cache, 1, 8);
  EXPECT_EQ(cache.Lookup(kFamily, RowKey(1))->latest.size(), 8u);
}

TEST(RowCacheTest, ClearEmptiesItAndSlotsAreReusedAfterwards) {
  RowCache cache(1 << 20);
  for (int n = 0; n < 100; ++n) InsertRow(cache, n);
  cache.Clear();
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_EQ(cache.Lookup(kFamily, RowKey(5)), nullptr);
  for (int n = 0; n < 100; ++n) InsertRow(cache, n);
  for (int n = 0; n < 100; ++n) EXPECT_NE(cache.Lookup(kFamily, RowKey(n)), nullptr) << n;
}

TEST(RowCacheTest, ARowLargerThanAShardIsNotCached) {
  RowCache cache(64 * 1024);  // 1 KiB per shard
  InsertRow(cache, 1, 100);
  EXPECT_EQ(cache.Lookup(kFamily, RowKey(1)), nullptr);
  EXPECT_EQ(cache.bytes(), 0u);
}

TEST(RowCacheTest, ADisabledCacheHoldsNothing) {
  RowCache cache(0);
  EXPECT_FALSE(cache.enabled());
  InsertRow(cache, 1);
  EXPECT_EQ(cache.Lookup(kFamily, RowKey(1)), nullptr);
}

}  // namespace
}  // namespace rtb::storage::internal
