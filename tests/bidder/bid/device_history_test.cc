// A device's engagement history on the bid path: the bid handler reads the
// device's event_rollups rows (written by the real EventStore, as the
// beacons write them) for cpc and cpa candidates, and the Pricer moves the
// campaign's click rate toward the device's own.
#include <chrono>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "bidder/bid/bid_handler.h"
#include "bidder/events/events.h"
#include "gtest/gtest.h"
#include "storage/schemas.h"
#include "tests/bidder/bid_handler_harness.h"

namespace rtb::bidder {
namespace {

using std::chrono::milliseconds;
using testing::Answer;
using testing::ExampleConfig;
using testing::HandlerHarness;
using testing::kNoonUtcMillis;

constexpr std::string_view kIfa = "0b7c58a4-6a53-4f0e-9d55-3f3c2f6a9e21";
constexpr int64_t kDayMs = 24LL * 3600 * 1000;

// northwind is the only campaign for a 300x250 banner on a neutral site.
std::string Mrec(std::string_view extra = "") {
  return absl::StrCat(R"({"id":"req-1","imp":[{"id":"1","banner":{"w":300,"h":250}}],)",
                      R"("site":{"domain":"news.example"},"device":{"ifa":")", std::string(kIfa),
                      R"("})", std::string(extra), "}");
}

// The example config with northwind bought per click: 0.50 USD per click,
// 1 click per 1000 impressions assumed, so 0.50 USD CPM for a device without
// history (under its max_bid_cpm of 2.50).
config::BidderConfig CpcConfig() {
  config::BidderConfig config = ExampleConfig();
  config.pricing.exploration_rate = 0;
  for (config::CampaignConfig& campaign : config.campaigns) {
    if (campaign.id != "northwind-travel-display") continue;
    campaign.goal.type = config::CampaignGoal::kCpc;
    campaign.goal.target_cpc = 0.5;
    campaign.goal.prior_ctr = 0.001;
  }
  return config;
}

class DeviceHistoryTest : public ::testing::Test {
 protected:
  DeviceHistoryTest() : DeviceHistoryTest(CpcConfig()) {}
  explicit DeviceHistoryTest(config::BidderConfig config)
      : harness_(std::move(config), nullptr, /*with_pricer=*/true),
        events_(harness_.temp_store().store(), harness_.wall_clock(), nullptr) {}

  // `count` events of `type` for the test device, at `time_ms`.
  void Record(events::EventType type, int count, int64_t time_ms) {
    for (int i = 0; i < count; ++i) {
      events::Event event;
      event.user_key = harness_.KeyOf(kIfa);
      event.event_id = absl::StrCat("event-", absl::Dec(++events_recorded_, absl::kZeroPad10));
      event.type = type;
      event.event_time_ms = time_ms;
      event.body = "{}";
      event.summary = std::string(events::EventTypeName(type));
      ASSERT_TRUE(events_.Record(event).ok());
    }
  }

  double Price(const Answer& answer) const {
    EXPECT_EQ(answer.response.status, 200u) << answer.response.body;
    if (answer.response.status != 200u) return 0;
    EXPECT_EQ(answer.FirstBid()["cid"], "northwind-travel-display");
    return answer.FirstBid()["price"].get<double>();
  }

  double HistoryReads(LookupOutcome outcome) {
    return harness_.metrics().history_reads(outcome).Value();
  }

  HandlerHarness harness_;
  events::EventStore events_;
  int events_recorded_ = 0;
};

TEST_F(DeviceHistoryTest, ADeviceThatClicksIsWorthMoreToACpcCampaign) {
  // 100 impressions and 3 clicks over three days: its click rate is
  // (3 + 1000 x 0.001) / (100 + 1000), pricing.device_prior_impressions 1000.
  Record(events::EventType::kImpression, 40, kNoonUtcMillis - 2 * kDayMs);
  Record(events::EventType::kImpression, 60, kNoonUtcMillis - kDayMs);
  Record(events::EventType::kClick, 2, kNoonUtcMillis - kDayMs);
  Record(events::EventType::kClick, 1, kNoonUtcMillis - 60000);
  Record(events::EventType::kWin, 5, kNoonUtcMillis - 60000);  // not engagement

  const Answer answer = harness_.Call(Mrec());
  EXPECT_NEAR(Price(answer), 1000 * 0.5 * 4.0 / 1100, 1e-9);
  EXPECT_EQ(HistoryReads(LookupOutcome::kHit), 1);
  EXPECT_EQ(harness_.store().async_scans(), 1);
  EXPECT_EQ(harness_.store().last_scan_table(), storage::kEventRollupsTable);
  // One row per day at most, over pricing.device_history_days.
  EXPECT_EQ(harness_.store().last_scan().limit, harness_.config().pricing.device_history_days);
}

TEST_F(DeviceHistoryTest, ADeviceThatNeverClicksIsWorthLess) {
  Record(events::EventType::kImpression, 300, kNoonUtcMillis - kDayMs);
  const Answer answer = harness_.Call(Mrec());
  EXPECT_NEAR(Price(answer), 1000 * 0.5 * 1.0 / 1300, 1e-9);
}

TEST_F(DeviceHistoryTest, ADeviceWithoutHistoryGetsTheCampaignsRate) {
  const Answer answer = harness_.Call(Mrec());
  EXPECT_NEAR(Price(answer), 0.5, 1e-9);
  EXPECT_EQ(HistoryReads(LookupOutcome::kMiss), 1);
}

TEST_F(DeviceHistoryTest, HistoryOlderThanTheWindowIsNotRead) {
  const int days = harness_.config().pricing.device_history_days;
  Record(events::EventType::kClick, 5, kNoonUtcMillis - days * kDayMs);
  Record(events::EventType::kImpression, 10, kNoonUtcMillis - (days - 1) * kDayMs);
  const Answer answer = harness_.Call(Mrec());
  // Only the impressions of the oldest day inside the window count.
  EXPECT_NEAR(Price(answer), 1000 * 0.5 * 1.0 / 1010, 1e-9);
}

TEST_F(DeviceHistoryTest, AnOptOutOfTargetedAdvertisingLeavesTheHistoryUnread) {
  Record(events::EventType::kClick, 5, kNoonUtcMillis - kDayMs);
  const Answer answer = harness_.Call(Mrec(R"(,"regs":{"us_privacy":"1YYN"})"));
  EXPECT_NEAR(Price(answer), 0.5, 1e-9);
  EXPECT_EQ(harness_.store().async_scans(), 0);
  EXPECT_EQ(HistoryReads(LookupOutcome::kSkipped), 1);
}

TEST_F(DeviceHistoryTest, CpmCampaignsReadNoHistory) {
  HandlerHarness cpm(ExampleConfig(), nullptr, /*with_pricer=*/true);
  const Answer answer = cpm.Call(Mrec());
  ASSERT_EQ(answer.response.status, 200u);
  EXPECT_DOUBLE_EQ(answer.FirstBid()["price"].get<double>(), 2.5);
  EXPECT_EQ(cpm.store().async_scans(), 0);
  EXPECT_EQ(cpm.store().async_gets(), 1);  // the profile, for the frequency cap
}

class NoDeviceHistoryTest : public DeviceHistoryTest {
 protected:
  static config::BidderConfig WithoutHistory() {
    config::BidderConfig config = CpcConfig();
    config.pricing.device_history_days = 0;
    return config;
  }
  NoDeviceHistoryTest() : DeviceHistoryTest(WithoutHistory()) {}
};

TEST_F(NoDeviceHistoryTest, ZeroDaysReadsNothing) {
  Record(events::EventType::kClick, 5, kNoonUtcMillis - kDayMs);
  const Answer answer = harness_.Call(Mrec());
  EXPECT_NEAR(Price(answer), 0.5, 1e-9);
  EXPECT_EQ(harness_.store().async_scans(), 0);
}

// A history read that misses the lookup deadline costs no answer: the bid
// goes out in time at the campaign's rate (the profile read, held back as
// well, times out too).
class SlowHistoryTest : public DeviceHistoryTest,
                        public ::testing::WithParamInterface<testing::FaultInjectingStore::Mode> {
 protected:
  // A profile that misses its deadline is a store outage to the bid path;
  // here northwind bids without it, as before store outage policies.
  static config::BidderConfig BidsWithoutProfile() {
    config::BidderConfig config = CpcConfig();
    for (config::CampaignConfig& campaign : config.campaigns) {
      campaign.store_outage_policy = config::StoreOutagePolicy::kAsToday;
    }
    return config;
  }
  SlowHistoryTest() : DeviceHistoryTest(BidsWithoutProfile()) {}
};

TEST_P(SlowHistoryTest, ALateHistoryFallsBackToTheCampaignsRate) {
  Record(events::EventType::kClick, 5, kNoonUtcMillis - kDayMs);
  // Reads answer long after the request's deadline; the deadline is wide
  // enough that a busy machine does not make the answer itself late.
  harness_.store().SetDelay(milliseconds(1000), GetParam());
  const auto arrival = std::chrono::steady_clock::now();
  const Answer answer = harness_.Call(Mrec(R"(,"tmax":300)"), arrival);
  EXPECT_NEAR(Price(answer), 0.5, 1e-9);
  EXPECT_LT(answer.answered_at - arrival, milliseconds(300));
  EXPECT_EQ(HistoryReads(LookupOutcome::kTimeout), 1);
  EXPECT_EQ(harness_.Lookups(LookupOutcome::kTimeout), 1);
}

INSTANTIATE_TEST_SUITE_P(BothBackends, SlowHistoryTest,
                         ::testing::Values(testing::FaultInjectingStore::Mode::kKeepsDeadline,
                                           testing::FaultInjectingStore::Mode::kIgnoresDeadline));

}  // namespace
}  // namespace rtb::bidder
