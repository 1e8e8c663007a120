#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "pacing/pacer.h"

namespace rtb::pacing {
namespace {

TEST(SpendRecorderTest, SumsPerCampaignUntilTaken) {
  SpendRecorder recorder(3);
  EXPECT_TRUE(recorder.Record(0, 1500));
  EXPECT_TRUE(recorder.Record(0, 500));
  EXPECT_TRUE(recorder.Record(2, 7));
  EXPECT_EQ(recorder.Pending(0), 2000);
  EXPECT_EQ(recorder.Take(0), 2000);
  EXPECT_EQ(recorder.Take(0), 0);
  EXPECT_EQ(recorder.Take(1), 0);
  EXPECT_EQ(recorder.Take(2), 7);
}

TEST(SpendRecorderTest, RefusesUnknownCampaignsAndNonPositiveAmounts) {
  SpendRecorder recorder(2);
  EXPECT_FALSE(recorder.Record(2, 100));
  EXPECT_FALSE(recorder.Record(0, 0));
  EXPECT_FALSE(recorder.Record(0, -5));
  EXPECT_EQ(recorder.Take(0), 0);
  EXPECT_EQ(recorder.Take(2), 0);
}

// Many threads on few campaigns: nothing lost, nothing counted twice, even
// while the flusher takes concurrently.
TEST(SpendRecorderTest, ConcurrentRecordsAndTakesLoseNothing) {
  constexpr int kThreads = 24;  // more than the stripes: some share
  constexpr int kRecords = 20000;
  constexpr size_t kCampaigns = 5;
  SpendRecorder recorder(kCampaigns);
  std::atomic<bool> done{false};
  std::vector<int64_t> taken(kCampaigns, 0);
  std::thread taker([&] {
    while (!done.load()) {
      for (size_t c = 0; c < kCampaigns; ++c) taken[c] += recorder.Take(c);
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRecords; ++i) recorder.Record((t + i) % kCampaigns, 3);
    });
  }
  for (std::thread& thread : threads) thread.join();
  done = true;
  taker.join();
  int64_t total = 0;
  for (size_t c = 0; c < kCampaigns; ++c) total += taken[c] + recorder.Take(c);
  EXPECT_EQ(total, int64_t{kThreads} * kRecords * 3);
}

}  // namespace
}  // namespace rtb::pacing
