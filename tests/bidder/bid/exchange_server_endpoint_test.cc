// The bid path as an exchange server (Prebid Server) uses it, over real HTTP
// in a whole BidderApp: requests gzip-compressed, with no x-openrtb-version
// header, bidder parameters in imp.ext.bidder, fields at their 2.6 places,
// `Accept-Encoding: gzip`, secure impressions.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bidder/app.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/bidder/bidder_app_fixture.h"
#include "tests/bidder/decision_fixtures.h"
#include "tests/bidder/http_test_client.h"

namespace rtb::bidder {
namespace {

using testing::Compress;
using testing::FixtureRequest;
using testing::Gunzip;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::PostRequest;
using ::testing::StartsWith;
using testing::TestConnection;
using testing::TestResponse;

// An exchange server's exchange: OpenRTB 2.6, gzip answers, beacons behind
// https with a path prefix.
constexpr char kPrebidPath[] = "/openrtb2/bid/prebid-server";
constexpr char kSecureBase[] = "https://rtb.example.com/b";
// An exchange whose beacon base is plain http on a public host, with no
// https base: its secure impressions get no bid.
constexpr char kInsecurePath[] = "/openrtb2/bid/plain-http";

// The corpus's request with every value at its 2.6 place, as an exchange
// server forwards it: the banner secure, and the bidder's parameters in
// imp.ext.bidder.
std::string ExchangeServerRequest(bool secure = true) {
  nlohmann::json request = nlohmann::json::parse(FixtureRequest("ext-openrtb-2.6-places.json"));
  request["imp"][0]["secure"] = secure ? 1 : 0;
  request["imp"][0]["ext"] = {{"bidder", {{"placementId", "pl-1"}, {"siteId", 4711}}},
                              {"tid", "tid-ext26-0001"}};
  return request.dump();
}

class ExchangeServerEndpointTest : public testing::BidderAppTest {
 protected:
  void SetUp() override {
    Boot("exchange-server-endpoint", [](config::BidderConfig& config) {
      config::ExchangeConfig prebid = config.server.exchanges[0];
      prebid.name = "prebid-server";
      prebid.bid_path = kPrebidPath;
      prebid.openrtb_version = "2.6";
      prebid.gzip_responses = true;
      prebid.secure_beacon_base_url = kSecureBase;
      config.server.exchanges.push_back(prebid);
      config::ExchangeConfig plain = config.server.exchanges[0];
      plain.name = "plain-http";
      plain.bid_path = kInsecurePath;
      plain.beacon_base_url = "http://rtb.example.com";
      config.server.exchanges.push_back(plain);
    });
  }

  TestResponse Post(std::string_view path, std::string_view body, std::string_view headers = "") {
    std::optional<TestResponse> response = connection_->RoundTrip(PostRequest(path, body, headers));
    EXPECT_TRUE(response.has_value());
    return response.value_or(TestResponse{});
  }

  // Requests of `exchange` counted with `outcome` so far.
  double Counted(const std::string& exchange, const std::string& outcome) {
    std::optional<TestResponse> metrics =
        connection_->RoundTrip(testing::GetRequest(app_->config().metrics.path));
    EXPECT_TRUE(metrics.has_value());
    const std::string series = absl::StrCat("bidder_bid_requests_total{exchange=\"", exchange,
                                            "\",outcome=\"", outcome, "\"} ");
    const std::string& text = metrics.has_value() ? metrics->body : std::string();
    const size_t at = text.find(series);
    return at == std::string::npos ? 0 : std::stod(text.substr(at + series.size()));
  }
};

TEST_F(ExchangeServerEndpointTest, AnswersAsPrebidServerReadsIt) {
  const TestResponse response = Post(kPrebidPath, Compress(ExchangeServerRequest()),
                                     "Content-Encoding: gzip\r\nAccept-Encoding: gzip\r\n");
  ASSERT_EQ(response.status, 200u) << response.body;
  // No version header in the request: the exchange's configured 2.6.
  EXPECT_EQ(response.Header("x-openrtb-version"), "2.6");
  ASSERT_EQ(response.Header("content-encoding"), "gzip");
  const std::string body = Gunzip(response.body);
  const nlohmann::json answer = nlohmann::json::parse(body, nullptr, false);
  ASSERT_FALSE(answer.is_discarded()) << body;
  const nlohmann::json& bid = answer["seatbid"][0]["bid"][0];
  EXPECT_EQ(bid["mtype"], 1);
  EXPECT_FALSE(bid.contains("ext")) << "a 2.6 answer repeats nothing in ext";
  EXPECT_EQ(bid["crid"], "nw-leader-summer");
  EXPECT_GT(bid["price"].get<double>(), 0);
  // Secure inventory: https notices, click and pixel, and no http in the markup.
  for (const char* member : {"nurl", "burl", "lurl"}) {
    EXPECT_THAT(bid[member].get<std::string>(), StartsWith(absl::StrCat(kSecureBase, "/")))
        << member;
  }
  EXPECT_THAT(bid["adm"].get<std::string>(), HasSubstr(absl::StrCat(kSecureBase, "/click?")));
  EXPECT_THAT(bid["adm"].get<std::string>(), Not(HasSubstr("http:")));
  EXPECT_LT(response.body.size(), body.size());

  // The notice comes back through the https base's TLS terminator, which
  // forwards the path as it is: the beacon routes are served under /b too.
  const std::string nurl = bid["nurl"].get<std::string>();
  std::string target = nurl.substr(std::string("https://rtb.example.com").size());
  const std::pair<std::string, std::string> macros[] = {
      {"${AUCTION_PRICE}", "1.5"},
      {"${AUCTION_CURRENCY}", "USD"},
      {"${AUCTION_ID}", "708192a3-ext-26"},
      {"${AUCTION_IMP_ID}", "1"},
      {"${AUCTION_BID_ID}", bid["id"].get<std::string>()},
      {"${AUCTION_MIN_TO_WIN}", ""}};
  for (const auto& [macro, value] : macros) {
    for (size_t at = target.find(macro); at != std::string::npos; at = target.find(macro)) {
      target.replace(at, macro.size(), value);
    }
  }
  ASSERT_THAT(target, StartsWith("/b/win?"));
  std::optional<TestResponse> win = connection_->RoundTrip(testing::GetRequest(target));
  ASSERT_TRUE(win.has_value());
  EXPECT_TRUE(win->status == 200 || win->status == 204) << win->status << " " << win->body;
}

TEST_F(ExchangeServerEndpointTest, PlainAnswerWhenTheRequestDoesNotAcceptGzip) {
  for (const char* accept :
       {"", "Accept-Encoding: identity\r\n", "Accept-Encoding: gzip;q=0\r\n"}) {
    SCOPED_TRACE(accept);
    const TestResponse response = Post(kPrebidPath, ExchangeServerRequest(), accept);
    ASSERT_EQ(response.status, 200u) << response.body;
    EXPECT_EQ(response.Header("content-encoding"), "");
    EXPECT_EQ(nlohmann::json::parse(response.body)["seatbid"][0]["bid"][0]["mtype"], 1);
  }
  // An exchange without the switch answers plainly whatever the request accepts.
  const TestResponse plain = Post(app_->config().server.exchanges[0].bid_path,
                                  ExchangeServerRequest(), "Accept-Encoding: gzip\r\n");
  ASSERT_EQ(plain.status, 200u);
  EXPECT_EQ(plain.Header("content-encoding"), "");
}

TEST_F(ExchangeServerEndpointTest, TheRequestsOwnVersionHeaderDecides) {
  const TestResponse response =
      Post(kPrebidPath, ExchangeServerRequest(), "x-openrtb-version: 2.5\r\n");
  ASSERT_EQ(response.status, 200u) << response.body;
  EXPECT_EQ(response.Header("x-openrtb-version"), "2.5");
  const nlohmann::json bid = nlohmann::json::parse(response.body)["seatbid"][0]["bid"][0];
  // A 2.5 answer: mtype at its 2.6 place, and in ext for 2.5 readers.
  EXPECT_EQ(bid["mtype"], 1);
  EXPECT_EQ(bid["ext"]["mtype"], 1);
}

TEST_F(ExchangeServerEndpointTest, SecureImpressionWithoutAnHttpsBaseIsANoBid) {
  const double before = Counted("plain-http", "nobid_insecure");
  const TestResponse secure = Post(kInsecurePath, ExchangeServerRequest(/*secure=*/true));
  EXPECT_EQ(secure.status, 204u) << secure.body;
  EXPECT_EQ(Counted("plain-http", "nobid_insecure"), before + 1);
  // The same impression, not secure, gets its http beacons.
  const TestResponse plain = Post(kInsecurePath, ExchangeServerRequest(/*secure=*/false));
  ASSERT_EQ(plain.status, 200u) << plain.body;
  const nlohmann::json bid = nlohmann::json::parse(plain.body)["seatbid"][0]["bid"][0];
  EXPECT_THAT(bid["nurl"].get<std::string>(), StartsWith("http://rtb.example.com/win?"));
}

TEST_F(ExchangeServerEndpointTest, InvalidRequestIsStill400WithItsReason) {
  const TestResponse response = Post(kPrebidPath, Compress(R"({"id":"r","imp":[]})"),
                                     "Content-Encoding: gzip\r\nAccept-Encoding: gzip\r\n");
  EXPECT_EQ(response.status, 400u);
  EXPECT_EQ(response.Header("content-encoding"), "");
  EXPECT_THAT(response.body, HasSubstr("\"nbr\":2"));
}

}  // namespace
}  // namespace rtb::bidder
