// The fixture of the beacon endpoint tests (beacon_endpoint_test.cc,
// engagement_beacon_test.cc): a whole BidderApp on loopback with a logged-in
// operator, that bids on the banner sample and hands back the bid's beacon
// URLs with their macros substituted as an exchange would, and reads back
// what the beacons wrote.
#ifndef RTB_TESTS_BIDDER_BEACONS_BEACON_ENDPOINT_FIXTURE_H_
#define RTB_TESTS_BIDDER_BEACONS_BEACON_ENDPOINT_FIXTURE_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "bidder/app.h"
#include "bidder/beacons/beacon_handler.h"
#include "bidder/beacons/internal/price_decryption.h"
#include "bidder/bid/beacon_url.h"
#include "bidder/bid/device_key.h"
#include "bidder/bid/frequency_cap.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "pacing/pacer.h"
#include "storage/schemas.h"
#include "tests/bidder/bidder_app_fixture.h"
#include "tests/bidder/decision_fixtures.h"
#include "tests/bidder/http_test_client.h"
#include "tests/bidder/operator_login.h"
#include "tests/storage/hooked_store.h"

namespace rtb::bidder::beacon_testing {

using testing::DeleteRequest;
using testing::FixtureRequest;
using testing::GetRequest;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::OperatorSession;
using testing::PostRequest;
using testing::SessionHeaders;
using ::testing::StartsWith;
using testing::TestResponse;

inline constexpr char kDeviceId[] = "3f1c2a9e-77b4-4c1d-9e0f-5a6b7c8d9e01";
inline constexpr char kNorthwind[] = "northwind-travel-display";

// What one bid gave us, its macros substituted as an exchange would.
struct WonBid {
  std::string request_id;
  std::string imp_id;
  std::string bid_id;
  double price = 0;
  std::string win, billing, loss, click;
  std::string pixel;  // when the markup carries ${IMPRESSION_URL}
};

class BeaconEndpointTest : public testing::BidderAppTest {
 protected:
  void SetUp() override {
    // No exploration: the pricing outcomes a test counts do not depend on
    // a random draw (a default 5 % of first-price bids would be explored).
    Boot(
        "beacon-endpoint",
        [this](config::BidderConfig& config) {
          config.pricing.exploration_rate = 0;
          if (configure_) configure_(config);
        },
        decorate_);
    operator_ = testing::LogIn(*connection_);
    ASSERT_EQ(operator_.status, 200);
  }

  // The path and query of one of our absolute beacon URLs.
  std::string Target(std::string_view url) const {
    const std::string origin = absl::StrCat("http://127.0.0.1:", app_->port());
    EXPECT_THAT(std::string(url), StartsWith(origin));
    return std::string(url.substr(origin.size()));
  }

  // Bids on the banner sample for `device_id` ("" for none) and returns the
  // bid with its beacon URLs as the exchange would call them.
  WonBid Bid(std::string_view request_id, std::string_view device_id, bool test = false,
             double clearing_share = 0.8, std::optional<std::string> price_text = std::nullopt) {
    nlohmann::json request = nlohmann::json::parse(FixtureRequest("site-banner-mrec.json"));
    request["id"] = request_id;
    if (!device_id.empty()) request["device"]["ifa"] = device_id;
    request["device"].erase("lmt");
    request["device"].erase("dnt");
    if (test) request["test"] = 1;
    const TestResponse response =
        Send(PostRequest(app_->config().server.exchanges[0].bid_path, request.dump()));
    EXPECT_EQ(response.status, 200u) << response.body;
    if (response.status != 200) return {};
    const nlohmann::json bid = nlohmann::json::parse(response.body)["seatbid"][0]["bid"][0];
    WonBid won;
    won.request_id = std::string(request_id);
    won.imp_id = bid["impid"];
    won.bid_id = bid["id"];
    won.price = bid["price"];
    const std::string price = price_text.value_or(absl::StrCat(won.price * clearing_share));
    auto fill = [&](std::string url) {
      return Target(absl::StrReplaceAll(url, {{"${AUCTION_ID}", won.request_id},
                                              {"${AUCTION_IMP_ID}", won.imp_id},
                                              {"${AUCTION_BID_ID}", won.bid_id},
                                              {"${AUCTION_PRICE}", price},
                                              {"${AUCTION_CURRENCY}", "USD"},
                                              {"${AUCTION_LOSS}", "102"},
                                              {"${AUCTION_MIN_TO_WIN}", "2.1"}}));
    };
    won.win = fill(bid["nurl"]);
    won.billing = fill(bid["burl"]);
    won.loss = fill(bid["lurl"]);
    const std::string adm = bid["adm"];
    const size_t href = adm.find("href=\"");
    EXPECT_NE(href, std::string::npos) << adm;
    const size_t end = adm.find('"', href + 6);
    won.click = fill(adm.substr(href + 6, end - href - 6));
    if (const size_t pixel = adm.find("src=\"http://"); pixel != std::string::npos) {
      const size_t close = adm.find('"', pixel + 5);
      won.pixel = fill(adm.substr(pixel + 5, close - pixel - 5));
    }
    return won;
  }

  std::string Metrics() { return Send(GetRequest(app_->config().metrics.path)).body; }

  // Admin API calls, as the logged-in operator.
  TestResponse AdminGet(std::string_view target) {
    return Send(GetRequest(target, SessionHeaders(operator_)));
  }
  TestResponse AdminPost(std::string_view target, std::string_view body) {
    return Send(PostRequest(target, body, SessionHeaders(operator_)));
  }
  TestResponse AdminDelete(std::string_view target) {
    return Send(DeleteRequest(target, SessionHeaders(operator_)));
  }

  std::string ImpressionId(const WonBid& b) const {
    return BeaconHandler::ImpressionId(app_->config().server.exchanges[0].name, b.request_id,
                                       b.imp_id, b.bid_id);
  }

  storage::RowResult ImpressionRow(const WonBid& b) {
    storage::Get get;
    get.row = ImpressionId(b);
    absl::StatusOr<storage::RowResult> row = app_->store().Get(storage::kImpressionsTable, get);
    EXPECT_TRUE(row.ok()) << row.status();
    return row.value_or(storage::RowResult{});
  }

  std::string DeviceKey(std::string_view id) const {
    return std::string(DeviceKeyHasher(app_->config().bid.device_key_secret).Hash(id).bytes());
  }

  // Today's frequency-cap count of northwind on the device.
  int64_t CapCount(std::string_view device_id) {
    storage::Get get;
    get.row = DeviceKey(device_id);
    absl::StatusOr<storage::RowResult> row = app_->store().Get(storage::kProfilesTable, get);
    EXPECT_TRUE(row.ok());
    int64_t total = 0;
    for (const storage::Cell& c : row->cells) {
      if (c.family == "fc" && c.qualifier.starts_with(kNorthwind)) {
        total += storage::DecodeCounter(c.value).value_or(0);
      }
    }
    return total;
  }

  size_t NorthwindIndex() const {
    const auto& campaigns = app_->config().campaigns;
    for (size_t i = 0; i < campaigns.size(); ++i) {
      if (campaigns[i].id == kNorthwind) return i;
    }
    ADD_FAILURE() << "no northwind campaign";
    return 0;
  }

  OperatorSession operator_;
  // Wraps the store the bidder opens, and changes its config; set before SetUp.
  BidderApp::StoreDecorator decorate_;
  std::function<void(config::BidderConfig&)> configure_;
};

}  // namespace rtb::bidder::beacon_testing

#endif  // RTB_TESTS_BIDDER_BEACONS_BEACON_ENDPOINT_FIXTURE_H_
