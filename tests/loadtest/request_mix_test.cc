#include "loadtest/request_mix.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

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
    for (char c : id)
      ASSERT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-') << id;
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 10000u);
}

TEST(RequestMixTest, RequestsComeFromFilesAndDirectories) {
  const std::string fixtures = RTB_OPENRTB_FIXTURES_DIR;
  LoadOptions options;
  options.requests = {fixtures + "/site-banner-mrec.json", fixtures + "/site-pmp-deals.json"};
  absl::StatusOr<RequestMix> two = RequestMix::Load(options);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->templates(), 2u);
  std::mt19937_64 rng(7);
  std::set<std::string> ids;
  for (int i = 0; i < 20; ++i) {
    const std::string body = two->Next(rng);
    EXPECT_NE(body.find(R"("ifa":")"), std::string::npos) << body;
    ids.insert(body.substr(body.find(R"("id":")"), 20));
  }
  EXPECT_GT(ids.size(), 1u);  // a fresh id per body

  options.requests = {fixtures, fixtures + "/site-banner-mrec.json"};
  absl::StatusOr<RequestMix> all = RequestMix::Load(options);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_GE(all->templates(), 21u);

  options.requests = {fixtures + "/no-such-request.json"};
  absl::StatusOr<RequestMix> missing = RequestMix::Load(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(std::string(missing.status().message()).find("no-such-request.json"),
            std::string::npos);
}

}  // namespace
}  // namespace rtb::loadtest
