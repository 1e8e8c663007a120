// Runs the fuzz entry point over random, truncated and bit-flipped blocks, so
// builds without libFuzzer (GCC) exercise it too. Deterministic seeds.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bidder/telemetry/gorilla.h"
#include "gtest/gtest.h"

namespace rtb::bidder::telemetry {

int FuzzGorillaBlock(const uint8_t* data, size_t size);

namespace {

constexpr int64_t kFuzzBucket = 1791072000;

int RunFuzzInput(int64_t bucket_start, const std::string& block) {
  std::string input(8, '\0');
  int64_t shifted = bucket_start << 2;
  std::memcpy(input.data(), &shifted, 8);
  input += block;
  return FuzzGorillaBlock(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

// A block of up to n points: half of them with arbitrary doubles (version 1),
// half with integers and two-decimal values (often version 2).
std::string ValidBlock(std::mt19937_64& rng, int n) {
  const bool scaled = rng() % 2 == 0;
  std::vector<Point> points;
  int64_t t = kFuzzBucket + static_cast<int64_t>(rng() % 30);
  double v = 100;
  for (int i = 0; i < n && t < kFuzzBucket + kGorillaMaxOffset; ++i) {
    points.push_back({t, v});
    t += 1 + static_cast<int64_t>(rng() % (rng() % 4 == 0 ? 3000 : 20));
    switch (rng() % 4) {
      case 0:
        break;
      case 1:
        v += 1;
        break;
      case 2:
        v = scaled ? static_cast<double>(static_cast<int64_t>(rng() % 200000) - 100000) / 100
                   : static_cast<double>(rng() % 1000) / 7;
        break;
      default: {
        if (scaled) {
          // Mostly small steps; now and then a jump past every short code.
          v += rng() % 8 == 0
                   ? static_cast<double>(static_cast<int64_t>(rng() >> 12) - (int64_t{1} << 51))
                   : static_cast<double>(rng() % 100000);
        } else {
          const uint64_t bits = rng();
          std::memcpy(&v, &bits, 8);
        }
        break;
      }
    }
  }
  auto block = EncodeGorillaBlock(kFuzzBucket, points);
  EXPECT_TRUE(block.ok()) << block.status();
  return block.ok() ? *block : std::string();
}

TEST(GorillaFuzzTest, RandomBytesNeverCrashTheDecoder) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string block(rng() % 64, '\0');
    for (char& c : block) c = static_cast<char>(rng());
    if (!block.empty() && rng() % 2 == 0) {
      block[0] = static_cast<char>(rng() % 2 ? kGorillaVersion : kGorillaScaledVersion);
    }
    EXPECT_EQ(RunFuzzInput(static_cast<int64_t>(rng() % (int64_t{1} << 40)), block), 0);
  }
}

TEST(GorillaFuzzTest, EveryTruncationOfValidBlocksIsAnErrorNotACrash) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 50; ++round) {
    const std::string block = ValidBlock(rng, 1 + static_cast<int>(rng() % 400));
    for (size_t len = 0; len < block.size(); ++len) {
      const std::string cut = block.substr(0, len);
      EXPECT_EQ(RunFuzzInput(kFuzzBucket, cut), 0);
      // Losing a whole byte always loses at least one bit of a point.
      EXPECT_FALSE(DecodeGorillaBlock(kFuzzBucket, cut).ok())
          << "length " << len << " of " << block.size();
    }
  }
}

TEST(GorillaFuzzTest, ValidBlocksCoverBothVersions) {
  std::mt19937_64 rng(17);
  int versions[3] = {0, 0, 0};
  for (int round = 0; round < 100; ++round) {
    const std::string block = ValidBlock(rng, 2 + static_cast<int>(rng() % 100));
    ASSERT_FALSE(block.empty());
    const auto version = static_cast<uint8_t>(block[0]);
    ASSERT_TRUE(version == kGorillaVersion || version == kGorillaScaledVersion);
    ++versions[version];
  }
  EXPECT_GT(versions[kGorillaVersion], 10);
  EXPECT_GT(versions[kGorillaScaledVersion], 10);
}

TEST(GorillaFuzzTest, BitFlipsInValidBlocksNeverCrashTheDecoder) {
  std::mt19937_64 rng(13);
  for (int round = 0; round < 200; ++round) {
    std::string block = ValidBlock(rng, 1 + static_cast<int>(rng() % 200));
    for (int flip = 0; flip < 50; ++flip) {
      std::string mutated = block;
      const size_t bit = rng() % (mutated.size() * 8);
      mutated[bit / 8] = static_cast<char>(mutated[bit / 8] ^ (1 << (bit % 8)));
      EXPECT_EQ(RunFuzzInput(kFuzzBucket, mutated), 0);
    }
  }
}

}  // namespace
}  // namespace rtb::bidder::telemetry
