// The per-key event counter behind hot-entity detection and rate limiting
// (bidder/events/internal/hot_keys.h).
#include "bidder/events/internal/hot_keys.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rtb::bidder::events::internal {
namespace {

constexpr int64_t kWindow = 60000;
constexpr int64_t kStart = 1791072000000;  // a window boundary

HotKeyOptions Options(int tracked, int reported, int64_t limit = 0) {
  HotKeyOptions o;
  o.window_ms = kWindow;
  o.tracked_keys = tracked;
  o.reported_keys = reported;
  o.max_events_per_window = limit;
  return o;
}

std::string Key(int n) { return "key-" + std::to_string(n); }

TEST(HotKeyCounterTest, ReportsTheTopKeysOfAWindowWhenItCloses) {
  HotKeyCounter counter(Options(8, 2));
  for (int i = 0; i < 30; ++i) EXPECT_FALSE(counter.Count(Key(1), kStart + i).window_closed);
  for (int i = 0; i < 10; ++i) counter.Count(Key(2), kStart + 100 + i);
  counter.Count(Key(3), kStart + 200);
  EXPECT_TRUE(counter.LastWindowTop().empty()) << "the window is still open";

  HotKeyCounter::Counted next = counter.Count(Key(4), kStart + kWindow);
  ASSERT_TRUE(next.window_closed);
  ASSERT_EQ(next.closed_top.size(), 2u);
  EXPECT_EQ(next.closed_top[0].user_key, Key(1));
  EXPECT_EQ(next.closed_top[0].events, 30);
  EXPECT_EQ(next.closed_top[0].guaranteed_events, 30);
  EXPECT_EQ(next.closed_top[1].user_key, Key(2));
  EXPECT_EQ(next.closed_top[1].events, 10);
  EXPECT_EQ(counter.LastWindowTop().size(), 2u);
}

TEST(HotKeyCounterTest, AHeavyKeyAmongManyRareOnesIsFoundWithBoundedError) {
  HotKeyCounter counter(Options(16, 3));
  // 2000 keys seen once, and one key 300 times, interleaved.
  int heavy = 0;
  for (int i = 0; i < 2000; ++i) {
    counter.Count(Key(1000 + i), kStart + i % 1000);
    if (i % 6 == 0 && heavy < 300) {
      counter.Count("heavy", kStart + i % 1000);
      ++heavy;
    }
  }
  while (heavy < 300) {
    counter.Count("heavy", kStart + 999);
    ++heavy;
  }
  HotKeyCounter::Counted next = counter.Count("later", kStart + kWindow);
  ASSERT_TRUE(next.window_closed);
  ASSERT_FALSE(next.closed_top.empty());
  const HotKey& top = next.closed_top[0];
  EXPECT_EQ(top.user_key, "heavy");
  // Space-Saving: the estimate never undercounts, and overcounts by at most
  // events / counters; the guaranteed count never overcounts.
  EXPECT_GE(top.events, 300);
  EXPECT_LE(top.events, 300 + 2300 / 16);
  EXPECT_LE(top.guaranteed_events, 300);
}

TEST(HotKeyCounterTest, RateLimitsAKeyOnlyAfterItReallyPassedTheLimit) {
  HotKeyCounter counter(Options(4, 1, 5));
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(counter.Count(Key(1), kStart + i).admitted) << i;
  EXPECT_FALSE(counter.Count(Key(1), kStart + 10).admitted);
  EXPECT_FALSE(counter.Count(Key(1), kStart + 11).admitted);
  EXPECT_TRUE(counter.Count(Key(2), kStart + 12).admitted) << "other keys are not affected";
  // Many keys taking over counters: each inherits a count as error, which
  // must not count against it.
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(counter.Count(Key(100 + i), kStart + 20).admitted);
  EXPECT_TRUE(counter.Count(Key(1), kStart + kWindow).admitted) << "a new window starts afresh";
}

TEST(HotKeyCounterTest, ZeroWindowTurnsCountingOff) {
  HotKeyOptions o = Options(4, 1, 1);
  o.window_ms = 0;
  HotKeyCounter counter(o);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(counter.Count(Key(1), kStart + i * kWindow).admitted);
  EXPECT_TRUE(counter.LastWindowTop().empty());
}

}  // namespace
}  // namespace rtb::bidder::events::internal
