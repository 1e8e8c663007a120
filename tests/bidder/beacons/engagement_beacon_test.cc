// Clicks, conversions and their events over real HTTP when the store fails
// between a claim and its record, and the configured ceiling of one device
// key's events (beacon_endpoint_fixture.h).
#include "tests/bidder/beacons/beacon_endpoint_fixture.h"

namespace rtb::bidder {
namespace {

using beacon_testing::BeaconEndpointTest;
using beacon_testing::kDeviceId;
using beacon_testing::WonBid;
using testing::GetRequest;
using ::testing::HasSubstr;
using testing::TestResponse;

// A HookedStore that owns the store it wraps, as BidderApp's decorator needs.
class OwningHookedStore final : public rtb::testing::HookedStore {
 public:
  explicit OwningHookedStore(std::unique_ptr<storage::Store> inner)
      : HookedStore(*inner), inner_(std::move(inner)) {}

 private:
  std::unique_ptr<storage::Store> inner_;
};

// The store fails between the claim of a click or conversion and the record
// of its event; the next beacon of the same event must record it, not take
// it for a duplicate.
class EngagementStoreFailureTest : public BeaconEndpointTest {
 protected:
  void SetUp() override {
    decorate_ = [this](std::unique_ptr<storage::Store> opened) -> std::unique_ptr<storage::Store> {
      auto hooked = std::make_unique<OwningHookedStore>(std::move(opened));
      hooked_ = hooked.get();
      return hooked;
    };
    BeaconEndpointTest::SetUp();
  }

  // Fails every write to the events timeline until Heal(): the store is out
  // right after the claim.
  void BreakTheTimeline() {
    hooked_->SetWriteHook([](std::string_view table, std::string_view) {
      return table == storage::kEventsTable ? absl::UnavailableError("timeline down")
                                            : absl::OkStatus();
    });
  }
  void Heal() { hooked_->SetWriteHook(nullptr); }

  // The device's events of `type`.
  std::vector<nlohmann::json> Events(std::string_view type) {
    const TestResponse events = AdminGet(absl::StrCat("/api/devices/", kDeviceId, "/events"));
    EXPECT_EQ(events.status, 200u);
    const nlohmann::json list = nlohmann::json::parse(events.body);
    std::vector<nlohmann::json> found;
    for (const nlohmann::json& e : list["events"]) {
      if (e["type"] == std::string(type)) found.push_back(e);
    }
    return found;
  }

  OwningHookedStore* hooked_ = nullptr;
};

// A beacon is acknowledged once logged: while the store fails, the stream
// worker keeps the record and tries it again; once the store is back the
// event is recorded without any other beacon. (Before the log, a click
// whose event write failed after its claim stayed unrecorded until the
// same impression was clicked again, and a conversion got 500.)
TEST_F(EngagementStoreFailureTest, AClickAnsweredDuringAnOutageIsRecordedWhenTheStoreIsBack) {
  const WonBid bid = Bid("req-click-outage", kDeviceId);
  ASSERT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  BreakTheTimeline();
  apply_timeout_ = absl::Milliseconds(300);
  EXPECT_EQ(Send(GetRequest(bid.click)).status, 302u);  // the browser lands at once
  EXPECT_TRUE(ImpressionRow(bid).Counter("i", "clk").has_value()) << "the click was claimed";
  EXPECT_TRUE(Events("click").empty());
  Heal();
  apply_timeout_ = absl::Seconds(10);
  ASSERT_TRUE(app_->AwaitBeaconsApplied(absl::Seconds(30)).ok());

  std::vector<nlohmann::json> clicks = Events("click");
  ASSERT_EQ(clicks.size(), 1u) << "recorded by the stream worker's retry, no second click needed";
  // At the time of the click that claimed it, as any replay would write it.
  EXPECT_EQ(clicks[0]["event_time_ms"].get<int64_t>(), *ImpressionRow(bid).Counter("i", "clk"))
      << clicks[0].dump();
  // Recorded: later clicks are duplicates and change nothing.
  EXPECT_EQ(Send(GetRequest(bid.click)).status, 302u);
  EXPECT_EQ(Events("click").size(), 1u);
  EXPECT_THAT(Metrics(), HasSubstr("kind=\"click\",outcome=\"duplicate\"} 1"));
  EXPECT_THAT(Metrics(), Not(HasSubstr("bidder_beacon_stream_retries_total 0")));
}

TEST_F(EngagementStoreFailureTest, AConversionAnsweredDuringAnOutageIsRecordedOnce) {
  const WonBid bid = Bid("req-conversion-outage", kDeviceId);
  ASSERT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  const TestResponse click = Send(GetRequest(bid.click));
  const std::string location = click.Header("location");
  const std::string token = location.substr(location.find("rtb_click=") + 10);
  const std::string conversion = absl::StrCat("/conversion?click=", token, "&oid=order-9&value=20");

  BreakTheTimeline();
  apply_timeout_ = absl::Milliseconds(300);
  EXPECT_EQ(Send(GetRequest(conversion)).status, 204u) << "acknowledged: it is in the log";
  EXPECT_TRUE(Events("conversion").empty());
  Heal();
  apply_timeout_ = absl::Seconds(10);
  ASSERT_TRUE(app_->AwaitBeaconsApplied(absl::Seconds(30)).ok());
  std::vector<nlohmann::json> conversions = Events("conversion");
  ASSERT_EQ(conversions.size(), 1u);
  EXPECT_EQ(conversions[0]["body"]["order_id"], "order-9");
  // The advertiser's retry of the same order changes nothing.
  EXPECT_EQ(Send(GetRequest(conversion)).status, 204u);
  EXPECT_EQ(Events("conversion").size(), 1u);
}

// events.hot_keys.max_events_per_window, as configured, skips a device's
// events past it in a window; billing and spend go on.
class HotKeyLimitTest : public BeaconEndpointTest {
 protected:
  void SetUp() override {
    configure_ = [](config::BidderConfig& config) {
      config.events.hot_keys.window_ms = 3600000;
      config.events.hot_keys.max_events_per_window = 2;
    };
    BeaconEndpointTest::SetUp();
  }
};

TEST_F(HotKeyLimitTest, EventsOfADevicePastTheConfiguredCeilingAreSkipped) {
  for (int i = 0; i < 4; ++i) {
    const WonBid bid = Bid(absl::StrCat("req-hot-", i), kDeviceId);
    ASSERT_EQ(Send(GetRequest(bid.billing)).status, 204u);
    EXPECT_TRUE(ImpressionRow(bid).Counter("i", "spend").has_value()) << i;
  }
  EXPECT_THAT(Metrics(), HasSubstr("bidder_events_rate_limited_total 2"));
  const TestResponse events = AdminGet(absl::StrCat("/api/devices/", kDeviceId, "/events"));
  EXPECT_EQ(nlohmann::json::parse(events.body)["events"].size(), 2u);
}

}  // namespace
}  // namespace rtb::bidder
