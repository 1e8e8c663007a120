// The bid path over real HTTP: a whole BidderApp (server, embedded store,
// bid handler) on a loopback port, driven with raw HTTP/1.1 requests.
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bidder/app.h"
#include "bidder/bid/device_key.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/bidder/decision_fixtures.h"
#include "tests/bidder/http_test_client.h"

namespace rtb::bidder {
namespace {

using testing::Compress;
using testing::ExampleConfig;
using testing::FixtureRequest;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::PostRequest;
using ::testing::StartsWith;
using testing::TestConnection;
using testing::TestResponse;

class BidEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_dir_ =
        (std::filesystem::temp_directory_path() / absl::StrCat("rtb-bid-endpoint-", ::getpid()))
            .string();
    std::filesystem::remove_all(data_dir_);
    config::BidderConfig config = ExampleConfig();
    config.server.port = 0;
    config.server.io_threads = 2;
    config.storage.embedded.path = data_dir_;
    config.storage.embedded.block_cache_mib = 8;
    absl::StatusOr<std::unique_ptr<BidderApp>> app = BidderApp::Create(std::move(config));
    ASSERT_TRUE(app.ok()) << app.status();
    app_ = *std::move(app);
    ASSERT_TRUE(app_->Start().ok());
  }
  void TearDown() override {
    if (app_ != nullptr) app_->Shutdown();
    app_.reset();
    std::filesystem::remove_all(data_dir_);
  }

  const std::string& BidPath() const { return app_->config().server.exchanges[0].bid_path; }

  TestResponse Post(TestConnection& connection, std::string_view body,
                    std::string_view extra_headers = "") {
    std::optional<TestResponse> response =
        connection.RoundTrip(PostRequest(BidPath(), body, extra_headers));
    EXPECT_TRUE(response.has_value());
    return response.value_or(TestResponse{});
  }

  std::string data_dir_;
  std::unique_ptr<BidderApp> app_;
};

TEST_F(BidEndpointTest, SamplesOverOneKeepAliveConnection) {
  TestConnection connection(app_->port());
  ASSERT_TRUE(connection.connected());
  struct Case {
    const char* sample;
    const char* campaign;
  } cases[] = {{"site-banner-mrec.json", "northwind-travel-display"},
               {"app-banner-leaderboard.json", "northwind-travel-display"},
               {"site-pmp-deals.json", "contoso-agency1-deal"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sample);
    const TestResponse response = Post(connection, FixtureRequest(c.sample));
    ASSERT_EQ(response.status, 200u) << response.body;
    EXPECT_EQ(response.Header("content-type"), "application/json");
    EXPECT_EQ(response.Header("x-openrtb-version"), "2.5");
    const nlohmann::json json = nlohmann::json::parse(response.body);
    const nlohmann::json& bid = json["seatbid"][0]["bid"][0];
    EXPECT_EQ(bid["cid"], c.campaign);
    // Beacons point back at the port the server is bound to.
    EXPECT_THAT(bid["nurl"].get<std::string>(),
                StartsWith(absl::StrCat("http://127.0.0.1:", app_->port(), "/win?")));
  }
}

// The response model is reused from one answer to the next on a thread:
// nothing of a deal's bid may stay in the open-auction bid answered after it.
TEST_F(BidEndpointTest, AnAnswerCarriesNothingOfTheAnswerBeforeIt) {
  TestConnection connection(app_->port());
  ASSERT_TRUE(connection.connected());
  const auto bid_of = [&](const char* sample) {
    const TestResponse response = Post(connection, FixtureRequest(sample));
    EXPECT_EQ(response.status, 200u) << response.body;
    return nlohmann::json::parse(response.body)["seatbid"][0]["bid"][0];
  };
  const auto members = [](const nlohmann::json& bid) {
    std::vector<std::string> names;
    for (const auto& [name, value] : bid.items()) names.push_back(name);
    return names;
  };
  const nlohmann::json open_before = bid_of("site-banner-mrec.json");
  const nlohmann::json deal = bid_of("site-pmp-deals.json");
  const nlohmann::json open_after = bid_of("site-banner-mrec.json");
  ASSERT_TRUE(deal.contains("dealid"));
  EXPECT_FALSE(open_after.contains("dealid"));
  EXPECT_EQ(members(open_after), members(open_before));
  EXPECT_NE(open_after["id"], deal["id"]);
  // The deal bid's signed URLs name its bid id; none of them may linger.
  const std::string deal_bid_id = deal["id"];
  for (const char* member : {"adm", "nurl", "burl", "lurl"}) {
    EXPECT_THAT(open_after.value(member, ""), Not(HasSubstr(deal_bid_id))) << member;
  }
  EXPECT_EQ(open_after["cid"], open_before["cid"]);
  EXPECT_EQ(open_after["crid"], open_before["crid"]);
}

TEST_F(BidEndpointTest, GzipBodyIsInflatedFirst) {
  TestConnection connection(app_->port());
  const std::string body = Compress(FixtureRequest("site-banner-mrec.json"));
  const TestResponse response = Post(connection, body, "Content-Encoding: gzip\r\n");
  ASSERT_EQ(response.status, 200u) << response.body;
  EXPECT_THAT(response.body, HasSubstr("\"cid\":\"northwind-travel-display\""));
}

TEST_F(BidEndpointTest, InvalidRequestIs400AndNoBidIs204) {
  TestConnection connection(app_->port());
  TestResponse invalid = Post(connection, R"({"id":"r","imp":[{"banner":{}}]})");
  EXPECT_EQ(invalid.status, 400u);
  EXPECT_EQ(nlohmann::json::parse(invalid.body)["nbr"], 2);
  const TestResponse no_bid =
      Post(connection, R"({"id":"r","imp":[{"id":"1","banner":{"w":1,"h":1}}]})");
  EXPECT_EQ(no_bid.status, 204u);
  EXPECT_TRUE(no_bid.body.empty());
}

TEST_F(BidEndpointTest, StoredProfileIsReadOnTheBidPath) {
  DeviceKeyHasher keys(app_->config().bid.device_key_secret);
  storage::Put put;
  put.row = std::string(keys.Hash("6d92078a-8246-4ba4-ae5b-76104861e7dc").bytes());
  put.values.push_back({"seg", "cart-abandoner-30d", "\x64", std::nullopt});
  ASSERT_TRUE(app_->store().Put(storage::kProfilesTable, put).ok());
  TestConnection connection(app_->port());
  const TestResponse response = Post(connection, R"({"id":"r","imp":[{"id":"1",
      "banner":{"w":300,"h":250}}],"site":{"domain":"news.example"},
      "device":{"ifa":"6D92078A-8246-4BA4-AE5B-76104861E7DC"}})");
  ASSERT_EQ(response.status, 200u) << response.body;
  EXPECT_THAT(response.body, HasSubstr("\"cid\":\"litware-retargeting\""));
}

TEST_F(BidEndpointTest, MetricsEndpointShowsBidOutcomes) {
  TestConnection connection(app_->port());
  ASSERT_EQ(Post(connection, FixtureRequest("site-banner-mrec.json")).status, 200u);
  ASSERT_EQ(Post(connection, "{").status, 400u);
  std::optional<TestResponse> metrics =
      connection.RoundTrip(testing::GetRequest(app_->config().metrics.path));
  ASSERT_TRUE(metrics.has_value());
  EXPECT_THAT(
      metrics->body,
      HasSubstr(R"(bidder_bid_requests_total{exchange="sample-exchange",outcome="bid"} 1)"));
  EXPECT_THAT(
      metrics->body,
      HasSubstr(R"(bidder_bid_requests_total{exchange="sample-exchange",outcome="invalid"} 1)"));
  EXPECT_THAT(
      metrics->body,
      HasSubstr(
          R"(bidder_bids_total{campaign="northwind-travel-display",exchange="sample-exchange"} 1)"));
  EXPECT_THAT(metrics->body, HasSubstr(R"(bidder_profile_lookups_total{outcome="miss"} 0)"));
  EXPECT_THAT(metrics->body,
              HasSubstr(R"(bidder_profile_timeouts_total{exchange="sample-exchange"} 0)"));
  EXPECT_THAT(metrics->body,
              HasSubstr("bidder_bid_latency_seconds_bucket{exchange=\"sample-exchange\""));
}

}  // namespace
}  // namespace rtb::bidder
