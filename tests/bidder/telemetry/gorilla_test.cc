#include "bidder/telemetry/gorilla.h"

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace rtb::bidder::telemetry {
namespace {

constexpr int64_t kBucket = 1791072000;  // 2026-10-04T00:00:00Z

void ExpectRoundTrip(const std::vector<Point>& points) {
  auto block = EncodeGorillaBlock(kBucket, points);
  ASSERT_TRUE(block.ok()) << block.status();
  ASSERT_FALSE(block->empty());
  EXPECT_EQ(static_cast<uint8_t>((*block)[0]), kGorillaVersion);
  auto decoded = DecodeGorillaBlock(kBucket, *block);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->size(), points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ((*decoded)[i].timestamp, points[i].timestamp) << "point " << i;
    EXPECT_EQ(std::bit_cast<uint64_t>((*decoded)[i].value), std::bit_cast<uint64_t>(points[i].value))
        << "point " << i << ": " << points[i].value << " came back as " << (*decoded)[i].value;
  }
  auto again = EncodeGorillaBlock(kBucket, *decoded);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *block) << "encoding is deterministic";
}

TEST(GorillaTest, SinglePointRoundTrips) {
  ExpectRoundTrip({{kBucket + 17, 42.5}});
  ExpectRoundTrip({{kBucket, 0.0}});
  ExpectRoundTrip({{kBucket + kGorillaMaxOffset - 1, -1.0}});
}

TEST(GorillaTest, SpecialValuesRoundTripBitForBit) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double payload_nan = std::bit_cast<double>(uint64_t{0x7ff4000000000123});
  ExpectRoundTrip({{kBucket, nan},
                   {kBucket + 10, -0.0},
                   {kBucket + 20, 0.0},
                   {kBucket + 30, inf},
                   {kBucket + 40, -inf},
                   {kBucket + 50, payload_nan},
                   {kBucket + 60, -nan},
                   {kBucket + 70, std::numeric_limits<double>::denorm_min()},
                   {kBucket + 80, std::numeric_limits<double>::max()},
                   {kBucket + 90, std::numeric_limits<double>::lowest()},
                   {kBucket + 100, 1.0},
                   {kBucket + 110, -0.0}});
}

TEST(GorillaTest, IrregularGapsUseEveryTimestampBranch) {
  // Deltas chosen so dod hits 0, +-63/64, +-255/256, +-2047/2048 and beyond.
  std::vector<int64_t> deltas = {10, 10, 74, 11, 267, 12, 2060, 13, 5000, 1, 1, 64, 1, 256, 1, 2048, 1};
  std::vector<Point> points;
  int64_t t = kBucket + 3;
  for (size_t i = 0; i < deltas.size() && t < kBucket + kGorillaMaxOffset; ++i) {
    points.push_back({t, static_cast<double>(i) * 1.5});
    t += deltas[i];
  }
  ExpectRoundTrip(points);
}

TEST(GorillaTest, FullHourBucketAtOneSecondRoundTrips) {
  std::mt19937_64 rng(1);
  std::vector<Point> points;
  double v = 1000;
  for (int64_t s = 0; s < 3600; ++s) {
    v += static_cast<double>(static_cast<int>(rng() % 21) - 10) / 4;
    points.push_back({kBucket + s, v});
  }
  ExpectRoundTrip(points);
}

TEST(GorillaTest, RegularGaugeCostsAboutABitForTimestamps) {
  std::vector<Point> points;
  for (int64_t s = 0; s < 3600; s += 10) points.push_back({kBucket + s, 7.0});
  auto block = EncodeGorillaBlock(kBucket, points);
  ASSERT_TRUE(block.ok());
  // 360 points: header 1+2 bytes, first point 78 bits, the rest 2 bits each.
  EXPECT_LE(block->size(), 3u + (78 + 359 * 2 + 7) / 8 + 1);
  ExpectRoundTrip(points);
}

TEST(GorillaTest, RandomValuesRoundTrip) {
  std::mt19937_64 rng(2);
  for (int round = 0; round < 200; ++round) {
    std::vector<Point> points;
    int64_t t = kBucket + static_cast<int64_t>(rng() % 100);
    while (t < kBucket + kGorillaMaxOffset && points.size() < 1000) {
      points.push_back({t, std::bit_cast<double>(rng() & (round % 2 ? ~uint64_t{0} : 0xfff00000000fffff))});
      t += 1 + static_cast<int64_t>(rng() % 50);
    }
    ExpectRoundTrip(points);
  }
}

TEST(GorillaTest, EncoderRefusesPointsOutsideOrOutOfOrder) {
  EXPECT_FALSE(EncodeGorillaBlock(kBucket, std::vector<Point>{{kBucket - 1, 1}}).ok());
  EXPECT_FALSE(EncodeGorillaBlock(kBucket, std::vector<Point>{{kBucket + kGorillaMaxOffset, 1}}).ok());
  EXPECT_FALSE(EncodeGorillaBlock(kBucket, std::vector<Point>{{kBucket + 5, 1}, {kBucket + 5, 2}}).ok());
  EXPECT_FALSE(EncodeGorillaBlock(kBucket, std::vector<Point>{{kBucket + 5, 1}, {kBucket + 4, 2}}).ok());
  auto empty = EncodeGorillaBlock(kBucket, std::vector<Point>{});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(GorillaTest, DecoderRejectsUnknownVersionTrailingBytesAndEmptyBlocks) {
  auto block = EncodeGorillaBlock(kBucket, std::vector<Point>{{kBucket, 1}, {kBucket + 10, 2}});
  ASSERT_TRUE(block.ok());
  std::string wrong_version = *block;
  wrong_version[0] = 2;
  EXPECT_EQ(DecodeGorillaBlock(kBucket, wrong_version).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeGorillaBlock(kBucket, *block + "x").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeGorillaBlock(kBucket, "").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeGorillaBlock(kBucket, std::string("\x01\x00\x00", 3)).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(GorillaTest, FailedDecodeLeavesTheOutputAsItWas) {
  std::vector<Point> out = {{1, 1}};
  auto block = EncodeGorillaBlock(kBucket, std::vector<Point>{{kBucket, 1}, {kBucket + 10, 2}, {kBucket + 25, 9}});
  ASSERT_TRUE(block.ok());
  EXPECT_FALSE(DecodeGorillaBlock(kBucket, block->substr(0, block->size() - 1), &out).ok());
  EXPECT_EQ(out.size(), 1u);
  EXPECT_TRUE(DecodeGorillaBlock(kBucket, *block, &out).ok());
  EXPECT_EQ(out.size(), 4u);
}

}  // namespace
}  // namespace rtb::bidder::telemetry
