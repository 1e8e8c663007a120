// Leadership on the embedded store on the system clock (a lease's TTL runs
// in the store's time, and failover needs it to pass): a lone process leads
// from the start, two never lead at once, a clean stop hands over within a
// retry period, and a leader cut off from the store is replaced within its
// TTL plus a retry period, which the test measures and prints.
#include "leases/leadership.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "storage/schemas.h"
#include "tests/storage/hooked_store.h"
#include "tests/storage/test_store.h"

namespace rtb::leases {
namespace {

using Clock = std::chrono::steady_clock;

constexpr LeadershipOptions kFast{.ttl_ms = 2000, .retry_every_ms = 100};

class LeadershipTest : public storage::testing::EmbeddedStoreTest {
 protected:
  void SetUp() override {
    EmbeddedStoreTest::SetUp();
    // The system clock: the lease cells' TTL must run out by itself.
    clock_.reset();
    store_.reset();
    storage::EmbeddedStoreOptions options;
    options.path = path_;
    options.block_cache_bytes = 8 << 20;
    auto store = storage::OpenEmbeddedStore(options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    Create(Schema(std::string(storage::kLeasesTable), {Fam("l")}));
  }

  // Polls until `condition` holds, at most `limit`, checking meanwhile that
  // `a` and `b` never lead at once; the time it took.
  template <typename Condition>
  std::chrono::milliseconds Await(const Leadership& a, const Leadership& b, Condition condition,
                                  std::chrono::milliseconds limit) {
    const Clock::time_point start = Clock::now();
    while (!condition() && Clock::now() - start < limit) {
      EXPECT_FALSE(a.Leads() && b.Leads()) << "two leaders at once";
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  }
};

TEST_F(LeadershipTest, ALoneProcessLeadsFromTheStart) {
  auto only = Leadership::Start(*store_, "job/fleet", "A", kFast);
  ASSERT_TRUE(only.ok()) << only.status();
  EXPECT_TRUE((*only)->Leads());
  EXPECT_EQ((*only)->terms(), 1);
}

TEST_F(LeadershipTest, ACleanStopHandsOverWithinARetryPeriod) {
  auto a = Leadership::Start(*store_, "job/fleet", "A", kFast);
  auto b = Leadership::Start(*store_, "job/fleet", "B", kFast);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE((*a)->Leads());
  EXPECT_FALSE((*b)->Leads());
  a->reset();
  const Clock::time_point stopped = Clock::now();
  while (!(*b)->Leads() && Clock::now() - stopped < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE((*b)->Leads());
  EXPECT_LE(Clock::now() - stopped, std::chrono::milliseconds(kFast.retry_every_ms + 400));
}

TEST_F(LeadershipTest, ALeaderCutOffFromTheStoreIsReplacedWithinItsTtlAndARetryPeriod) {
  rtb::testing::HookedStore reachable(*store_);
  std::atomic<bool> cut_off = false;
  reachable.SetWriteHook([&](std::string_view, std::string_view) {
    return cut_off.load() ? absl::UnavailableError("cut off") : absl::OkStatus();
  });
  auto a = Leadership::Start(reachable, "job/fleet", "A", kFast);
  auto b = Leadership::Start(*store_, "job/fleet", "B", kFast);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->Leads());
  cut_off = true;
  const auto a_stepped_down = Await(
      **a, **b, [&] { return !(*a)->Leads(); }, std::chrono::seconds(10));
  const auto b_leads = Await(
      **a, **b, [&] { return (*b)->Leads(); }, std::chrono::seconds(10));
  EXPECT_TRUE((*b)->Leads());
  const auto failover = a_stepped_down + b_leads;
  std::printf(
      "leader cut off: stepped down after %lld ms, replaced after %lld ms (TTL %lld ms, "
      "retry %lld ms)\n",
      static_cast<long long>(a_stepped_down.count()), static_cast<long long>(failover.count()),
      static_cast<long long>(kFast.ttl_ms), static_cast<long long>(kFast.retry_every_ms));
  EXPECT_LE(a_stepped_down, std::chrono::milliseconds(kFast.ttl_ms));
  EXPECT_LE(failover, std::chrono::milliseconds(kFast.ttl_ms + kFast.retry_every_ms + 500));
  // Back in touch, the old leader stands by.
  cut_off = false;
  std::this_thread::sleep_for(std::chrono::milliseconds(3 * kFast.retry_every_ms));
  EXPECT_FALSE((*a)->Leads());
  EXPECT_TRUE((*b)->Leads());
}

}  // namespace
}  // namespace rtb::leases
