#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loadtest/request_mix.h"

namespace rtb::loadtest {
namespace {

double RequestShareOfSeeded(const std::vector<bool>& seeded, double exponent) {
  double total = 0;
  double hit = 0;
  for (size_t k = 0; k < seeded.size(); ++k) {
    const double w = 1.0 / std::pow(static_cast<double>(k + 1), exponent);
    total += w;
    if (seeded[k]) hit += w;
  }
  return hit / total;
}

TEST(DevicesToSeedTest, SeededDevicesDrawTheRequestedShareOfRequests) {
  for (double share : {0.1, 0.5, 0.9}) {
    const std::vector<bool> seeded = DevicesToSeed(100000, 1.1, share);
    ASSERT_EQ(seeded.size(), 100000u);
    EXPECT_NEAR(RequestShareOfSeeded(seeded, 1.1), share, 0.001) << "share " << share;
  }
}

TEST(DevicesToSeedTest, ExtremesSeedNothingOrEverything) {
  for (bool b : DevicesToSeed(1000, 1.1, 0.0)) EXPECT_FALSE(b);
  for (bool b : DevicesToSeed(1000, 1.1, 1.0)) EXPECT_TRUE(b);
}

TEST(DevicesToSeedTest, MeasuredHitShareOfASampledLoadIsNearTheTarget) {
  const std::vector<bool> seeded = DevicesToSeed(100000, 1.1, 0.5);
  ZipfSampler sampler(100000, 1.1);
  std::mt19937_64 rng(7);
  int hits = 0;
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) hits += seeded[static_cast<size_t>(sampler.Next(rng))];
  EXPECT_NEAR(static_cast<double>(hits) / kDraws, 0.5, 0.01);
}

TEST(DeviceIdForTest, IdsAreStableDistinctLowerCaseUuids) {
  EXPECT_EQ(DeviceIdFor(42), DeviceIdFor(42));
  std::set<std::string> ids;
  for (uint64_t i = 0; i < 10000; ++i) {
    const std::string id = DeviceIdFor(i);
    ASSERT_EQ(id.size(), 36u);
    for (char c : id) ASSERT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-') << id;
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 10000u);
}

}  // namespace
}  // namespace rtb::loadtest
