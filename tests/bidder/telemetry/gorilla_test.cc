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

// Encodes `points` in `format`, decodes them bit for bit, re-encodes the same
// bytes; returns the block's version byte (0 on failure).
uint8_t RoundTrip(const std::vector<Point>& points, GorillaFormat format) {
  auto block = EncodeGorillaBlock(kBucket, points, format);
  EXPECT_TRUE(block.ok()) << block.status();
  if (!block.ok() || block->empty()) {
    ADD_FAILURE() << "no block";
    return 0;
  }
  auto decoded = DecodeGorillaBlock(kBucket, *block);
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  if (!decoded.ok()) return 0;
  EXPECT_EQ(decoded->size(), points.size());
  for (size_t i = 0; i < points.size() && i < decoded->size(); ++i) {
    EXPECT_EQ((*decoded)[i].timestamp, points[i].timestamp) << "point " << i;
    EXPECT_EQ(std::bit_cast<uint64_t>((*decoded)[i].value),
              std::bit_cast<uint64_t>(points[i].value))
        << "point " << i << ": " << points[i].value << " came back as " << (*decoded)[i].value;
  }
  auto again = EncodeGorillaBlock(kBucket, *decoded, format);
  EXPECT_TRUE(again.ok());
  if (again.ok()) {
    EXPECT_EQ(*again, *block) << "encoding is deterministic";
  }
  return static_cast<uint8_t>((*block)[0]);
}

// Both formats round-trip; the XOR-only one is version 1. Returns the
// version the smallest encoding chose.
uint8_t ExpectRoundTrip(const std::vector<Point>& points) {
  EXPECT_EQ(RoundTrip(points, GorillaFormat::kXorOnly), kGorillaVersion);
  return RoundTrip(points, GorillaFormat::kSmallest);
}

TEST(GorillaTest, SinglePointRoundTrips) {
  ExpectRoundTrip({{kBucket + 17, 42.5}});
  ExpectRoundTrip({{kBucket, 0.0}});
  ExpectRoundTrip({{kBucket + kGorillaMaxOffset - 1, -1.0}});
}

TEST(GorillaTest, ScaledIntegersRoundTripInVersionTwoAndCostLess) {
  std::mt19937_64 rng(3);
  // A counter, a kB gauge, a two-decimal load average, a six-decimal ratio,
  // negatives, and values at the edge of the exact-integer range.
  std::vector<Point> counter, gauge, load, ratio, negative, edge;
  double c = 1e9, g = 23000000, l = 1.5;
  for (int64_t s = 0; s < 3600; s += 10) {
    c += 400 + static_cast<double>(rng() % 40);
    g += static_cast<double>(static_cast<int>(rng() % 2001) - 1000);
    l = std::max(0.0, std::round((l + (static_cast<double>(rng() % 11) - 5) / 100) * 100) / 100);
    counter.push_back({kBucket + s, c});
    gauge.push_back({kBucket + s, g});
    load.push_back({kBucket + s, l});
    ratio.push_back({kBucket + s, static_cast<double>(rng() % 1000000) / 1e6});
    negative.push_back({kBucket + s, -static_cast<double>(rng() % 5000) / 10});
  }
  const double max_exact = 9007199254740992.0;  // 2^53
  for (int64_t i = 0; i < 100; ++i)
    edge.push_back({kBucket + i, max_exact - static_cast<double>(3 * i)});
  edge.push_back({kBucket + 100, -max_exact});
  edge.push_back({kBucket + 101, -max_exact + 5});
  for (const auto* points : {&counter, &gauge, &load, &ratio, &negative, &edge}) {
    EXPECT_EQ(ExpectRoundTrip(*points), kGorillaScaledVersion);
    EXPECT_LT(EncodeGorillaBlock(kBucket, *points)->size(),
              EncodeGorillaBlock(kBucket, *points, GorillaFormat::kXorOnly)->size());
  }
}

TEST(GorillaTest, ValuesThatAreNotScaledIntegersStayInVersionOne) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const std::vector<Point>& points : std::vector<std::vector<Point>>{
           {{kBucket, 1}, {kBucket + 10, -0.0}},  // -0.0 is not an integer's double
           {{kBucket, 1}, {kBucket + 10, nan}},
           {{kBucket, 1}, {kBucket + 10, std::numeric_limits<double>::infinity()}},
           {{kBucket, 1}, {kBucket + 10, 1.0 / 3}},                 // no finite decimals
           {{kBucket, 1}, {kBucket + 10, 0.0000001}},               // seven decimals
           {{kBucket, 1}, {kBucket + 10, 18014398509481984.0}}}) {  // 2^54
    EXPECT_EQ(ExpectRoundTrip(points), kGorillaVersion) << points[1].value;
  }
  // A constant costs a bit per point either way: the XOR block is kept on a tie.
  std::vector<Point> constant;
  for (int64_t s = 0; s < 3600; s += 10) constant.push_back({kBucket + s, 7});
  EXPECT_EQ(ExpectRoundTrip(constant), kGorillaVersion);
}

TEST(GorillaTest, ScaledBlocksUseEveryValueCode) {
  // Deltas of k hitting 0, each bucket's edges and the 64-bit escape, both
  // as deltas (irregular) and as deltas-of-deltas (a steady slope first).
  const std::vector<int64_t> steps = {0,
                                      7,
                                      8,
                                      -7,
                                      63,
                                      64,
                                      -63,
                                      1023,
                                      1024,
                                      -1023,
                                      65535,
                                      65536,
                                      -65535,
                                      8388607,
                                      8388608,
                                      -8388607,
                                      8388609,
                                      -8388608,
                                      int64_t{1} << 40,
                                      -(int64_t{1} << 41)};
  std::vector<Point> points;
  int64_t k = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    k += steps[i];
    points.push_back({kBucket + static_cast<int64_t>(i) * 10, static_cast<double>(k) / 1000});
  }
  EXPECT_EQ(ExpectRoundTrip(points), kGorillaScaledVersion);
  std::vector<Point> slope;
  for (int64_t i = 0; i < 300; ++i)
    slope.push_back({kBucket + i * 10, static_cast<double>(1000000 + i * 417)});
  EXPECT_EQ(ExpectRoundTrip(slope), kGorillaScaledVersion);
}

TEST(GorillaTest, DecoderRejectsMalformedScaledBlocks) {
  std::vector<Point> points = {
      {kBucket, 1}, {kBucket + 10, 2}, {kBucket + 20, 4}, {kBucket + 30, 8}};
  auto block = EncodeGorillaBlock(kBucket, points);
  ASSERT_TRUE(block.ok());
  ASSERT_EQ(static_cast<uint8_t>((*block)[0]), kGorillaScaledVersion);
  for (size_t len = 0; len < block->size(); ++len) {
    EXPECT_EQ(DecodeGorillaBlock(kBucket, block->substr(0, len)).status().code(),
              absl::StatusCode::kDataLoss)
        << "length " << len;
  }
  EXPECT_EQ(DecodeGorillaBlock(kBucket, *block + "x").status().code(), absl::StatusCode::kDataLoss);
  // After the version byte: count (bytes 1-2), offset (byte 3, top 6 bits of
  // byte 4), decimals (low 2 bits of byte 4, top bit of byte 5), order, then
  // the first k from the third bit of byte 5. Decimals 7:
  std::string decimals = *block;
  decimals[4] = static_cast<char>(decimals[4] | 0x03);
  decimals[5] = static_cast<char>(decimals[5] | 0x80);
  EXPECT_EQ(DecodeGorillaBlock(kBucket, decimals).status().code(), absl::StatusCode::kDataLoss);
  // The first k's sign bit set: a k far below -2^53.
  std::string huge = *block;
  huge[5] = static_cast<char>(huge[5] | 0x20);
  EXPECT_EQ(DecodeGorillaBlock(kBucket, huge).status().code(), absl::StatusCode::kDataLoss);
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
  std::vector<int64_t> deltas = {10, 10, 74, 11, 267, 12, 2060, 13, 5000,
                                 1,  1,  64, 1,  256, 1,  2048, 1};
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
      points.push_back(
          {t, std::bit_cast<double>(rng() & (round % 2 ? ~uint64_t{0} : 0xfff00000000fffff))});
      t += 1 + static_cast<int64_t>(rng() % 50);
    }
    ExpectRoundTrip(points);
  }
}

TEST(GorillaTest, EncoderRefusesPointsOutsideOrOutOfOrder) {
  EXPECT_FALSE(EncodeGorillaBlock(kBucket, std::vector<Point>{{kBucket - 1, 1}}).ok());
  EXPECT_FALSE(
      EncodeGorillaBlock(kBucket, std::vector<Point>{{kBucket + kGorillaMaxOffset, 1}}).ok());
  EXPECT_FALSE(
      EncodeGorillaBlock(kBucket, std::vector<Point>{{kBucket + 5, 1}, {kBucket + 5, 2}}).ok());
  EXPECT_FALSE(
      EncodeGorillaBlock(kBucket, std::vector<Point>{{kBucket + 5, 1}, {kBucket + 4, 2}}).ok());
  auto empty = EncodeGorillaBlock(kBucket, std::vector<Point>{});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(GorillaTest, DecoderRejectsUnknownVersionTrailingBytesAndEmptyBlocks) {
  auto block = EncodeGorillaBlock(kBucket, std::vector<Point>{{kBucket, 1}, {kBucket + 10, 2}});
  ASSERT_TRUE(block.ok());
  std::string wrong_version = *block;
  wrong_version[0] = 3;
  EXPECT_EQ(DecodeGorillaBlock(kBucket, wrong_version).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeGorillaBlock(kBucket, *block + "x").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeGorillaBlock(kBucket, "").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeGorillaBlock(kBucket, std::string("\x01\x00\x00", 3)).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(GorillaTest, FailedDecodeLeavesTheOutputAsItWas) {
  std::vector<Point> out = {{1, 1}};
  auto block = EncodeGorillaBlock(
      kBucket, std::vector<Point>{{kBucket, 1}, {kBucket + 10, 2}, {kBucket + 25, 9}});
  ASSERT_TRUE(block.ok());
  EXPECT_FALSE(DecodeGorillaBlock(kBucket, block->substr(0, block->size() - 1), &out).ok());
  EXPECT_EQ(out.size(), 1u);
  EXPECT_TRUE(DecodeGorillaBlock(kBucket, *block, &out).ok());
  EXPECT_EQ(out.size(), 4u);
}

}  // namespace
}  // namespace rtb::bidder::telemetry
