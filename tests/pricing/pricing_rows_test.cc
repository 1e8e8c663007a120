// Byte layouts of the pricing table (pricing/internal/pricing_rows.h), the
// model (pricing/internal/model_codec.h) and bucket ids (pricing/bucket.h).
#include "pricing/internal/pricing_rows.h"

#include <string>

#include "gtest/gtest.h"
#include "pricing/bucket.h"
#include "pricing/internal/model_codec.h"

namespace rtb::pricing::internal {
namespace {

TEST(PricingRowsTest, OutcomeRowsRoundTripAndSortByHourWithinASalt) {
  const uint64_t bucket = 0x1234567890abcdefULL;
  const std::string row = OutcomeRow(bucket, 490000);
  ASSERT_EQ(row.size(), 13u);
  EXPECT_EQ(static_cast<uint64_t>(row[0]), bucket % 16);
  const std::optional<OutcomeRowKey> key = ParseOutcomeRow(row);
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->hour, 490000u);
  EXPECT_EQ(key->bucket, bucket);
  EXPECT_LT(OutcomeRowStart(static_cast<int>(bucket % 16), 490000), row);
  EXPECT_LT(row, OutcomeRowStart(static_cast<int>(bucket % 16), 490001));
  std::string wrong_salt = row;
  wrong_salt[0] = static_cast<char>((bucket + 1) % 16);
  EXPECT_FALSE(ParseOutcomeRow(wrong_salt).has_value());
  EXPECT_FALSE(ParseOutcomeRow(row.substr(1)).has_value());
}

TEST(PricingRowsTest, OutcomeQualifiersRoundTripAndRefuseOtherKinds) {
  const std::optional<OutcomeCell> cell =
      ParseOutcomeQualifier(OutcomeQualifier(OutcomeKind::kLossPriceToBeat, 300));
  ASSERT_TRUE(cell.has_value());
  EXPECT_EQ(cell->kind, OutcomeKind::kLossPriceToBeat);
  EXPECT_EQ(cell->bin, 300);
  EXPECT_FALSE(ParseOutcomeQualifier("s").has_value());
  EXPECT_FALSE(ParseOutcomeQualifier(std::string("q\x01\x02", 3)).has_value());
  EXPECT_FALSE(ParseOutcomeQualifier(OutcomeQualifier(OutcomeKind::kWinAtBid, 60000)).has_value());
}

TEST(PricingRowsTest, EngagementRowsAreShardedUnderTheCampaignPrefix) {
  EXPECT_EQ(EngagementRow("camp-1", 7), "camp-1|07");
  EXPECT_EQ(EngagementRowPrefix("camp-1"), "camp-1|");
  EXPECT_EQ(EngagementQualifier(EngagementKind::kClick, "20261004"), "c20261004");
  EXPECT_EQ(HourOf(3600 * 1000 * 5 + 1), 5u);
}

TEST(PricingRowsTest, ModelPointerRoundTrips) {
  const std::optional<ModelPointer> pointer =
      ParseModelPointer(ModelPointerValue(1791115200000, 3));
  ASSERT_TRUE(pointer.has_value());
  EXPECT_EQ(pointer->version, 1791115200000);
  EXPECT_EQ(pointer->chunks, 3);
  EXPECT_FALSE(ParseModelPointer("short").has_value());
  EXPECT_LT(ModelChunkRow(5, 0), ModelChunkRow(5, 1));
}

PricingModel SampleModel() {
  PricingModel model;
  model.computed_at_ms = 1791115200000;
  model.campaigns.push_back({"camp-1", 0.002, 0.03, 100000, 200, 6});
  model.exchanges.push_back({ExchangeBucketBits("adx"), 900, 100, 1234567, 2});
  for (int i = 0; i < 300; ++i) {
    BucketCurve curve;
    curve.bucket = 0x0102030405060708ULL + i;
    curve.samples = 1000 + i;
    curve.start = 200;
    for (int v = 0; v < 20; ++v) curve.values.push_back(static_cast<uint16_t>(v * 3000 + i));
    model.curves.push_back(curve);
  }
  return model;
}

TEST(ModelCodecTest, ModelRoundTripsWholeAndInChunks) {
  const PricingModel model = SampleModel();
  const std::optional<PricingModel> decoded = DecodeModel(EncodeModel(model));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(*decoded, model);
  const std::vector<std::string> chunks = EncodeModelChunks(model, 1000);
  ASSERT_GT(chunks.size(), 5u);
  std::string joined;
  for (const std::string& chunk : chunks) {
    EXPECT_LE(chunk.size(), 1000u);
    joined += chunk;
  }
  EXPECT_EQ(DecodeModel(joined), model);
}

TEST(ModelCodecTest, BrokenModelsDoNotDecode) {
  const std::string bytes = EncodeModel(SampleModel());
  EXPECT_FALSE(DecodeModel(bytes.substr(0, bytes.size() - 1)).has_value());
  EXPECT_FALSE(DecodeModel(bytes + "x").has_value());
  std::string other_version = bytes;
  other_version[0] = 2;
  EXPECT_FALSE(DecodeModel(other_version).has_value());
  PricingModel decreasing = SampleModel();
  decreasing.curves[3].values[5] = 0;
  EXPECT_FALSE(DecodeModel(EncodeModel(decreasing)).has_value());
}

TEST(BucketTest, BucketsSeparateExchangesInventoryAndFormats) {
  const uint64_t adx = ExchangeBucketBits("adx");
  const uint64_t other = ExchangeBucketBits("openx");
  const uint64_t site = InventoryHash('s', "news.example.com");
  const uint64_t bucket = BucketOf(adx, site, 1, 300, 250);
  EXPECT_EQ(ExchangeBitsOf(bucket), adx);
  EXPECT_NE(bucket, BucketOf(other, site, 1, 300, 250));
  EXPECT_NE(bucket, BucketOf(adx, InventoryHash('a', "news.example.com"), 1, 300, 250));
  EXPECT_NE(bucket, BucketOf(adx, site, 1, 320, 50));
  EXPECT_NE(bucket, BucketOf(adx, site, 2, 300, 250));
  EXPECT_EQ(bucket, BucketOf(adx, site, 1, 300, 250));
  EXPECT_EQ(ParseBucket(BucketText(bucket)), bucket);
  EXPECT_EQ(BucketText(0x00ff00000000000aULL), "00ff00000000000a");
  EXPECT_EQ(BucketText(0xfedcba9876543210ULL), "fedcba9876543210");
  EXPECT_EQ(BucketText(1), "0000000000000001");
  EXPECT_FALSE(ParseBucket("0000000000000000").has_value());
  EXPECT_FALSE(ParseBucket("12345").has_value());
  EXPECT_FALSE(ParseBucket("zz00000000000001").has_value());
}

// Buckets are row keys of the pricing tables: the same inputs give the same
// bucket in every build. Taken before the finaliser moved to storage/key_bytes.
TEST(BucketTest, BucketsArePinned) {
  EXPECT_EQ(ExchangeBucketBits("adx"), 0x778d000000000000ULL);
  EXPECT_EQ(InventoryHash('s', "news.example.com"), 0x5e99105254368ebeULL);
  EXPECT_EQ(InventoryHash('a', "news.example.com"), 0x8b5cb78b81ceb493ULL);
  EXPECT_EQ(
      BucketOf(ExchangeBucketBits("adx"), InventoryHash('s', "news.example.com"), 1, 300, 250),
      0x778dd01d3c8891bcULL);
  EXPECT_EQ(
      BucketOf(ExchangeBucketBits("adx"), InventoryHash('a', "com.example.game"), 2, 640, 480),
      0x778d4a078c597e48ULL);
}

}  // namespace
}  // namespace rtb::pricing::internal
