// The bid handler end to end without network: parsing, deadlines, policies,
// the profile lookup against the embedded store, the auction and the
// response, and what the metrics say about each.
#include "bidder/bid/bid_handler.h"

#include <chrono>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "bidder/bid/beacon_url.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/bidder/bid_handler_harness.h"

namespace rtb::bidder {
namespace {

using std::chrono::milliseconds;
using testing::Answer;
using testing::ExampleConfig;
using testing::HandlerHarness;
using ::testing::HasSubstr;
using testing::kBeaconSecret;
using testing::ProfileRow;
using testing::Qualifier;
using ::testing::StartsWith;

constexpr std::string_view kIfa = "6d92078a-8246-4ba4-ae5b-76104861e7dc";

// A 300x250 banner on a neutral site from a device with an advertising id:
// northwind (2.5 USD, capped) wins contextually; litware (3.2 GBP) wins when
// the profile holds its segment.
std::string Mrec(std::string_view extra = "") {
  return absl::StrCat(R"({"id":"req-1","imp":[{"id":"1","banner":{"w":300,"h":250}}],)",
                      R"("site":{"domain":"news.example"},"device":{"ifa":")", std::string(kIfa),
                      R"("})", std::string(extra), "}");
}

TEST(BidHandlerTest, ResponseCarriesSignedBeaconsAndBidFields) {
  HandlerHarness harness(ExampleConfig());
  const Answer answer = harness.Call(Mrec());
  ASSERT_EQ(answer.response.status, 200u) << answer.response.body;
  EXPECT_EQ(answer.json["id"], "req-1");
  const std::string bidid = answer.json["bidid"];
  EXPECT_EQ(bidid.size(), 32u);
  const nlohmann::json& bid = answer.FirstBid();
  EXPECT_EQ(bid["id"], bidid + "-1");
  EXPECT_EQ(bid["adomain"], nlohmann::json::array({"northwind-travel.example"}));
  EXPECT_EQ(bid["cat"], nlohmann::json::array({"IAB20", "IAB20-18"}));

  // Every beacon verifies once the exchange substitutes the macros.
  BeaconSigner signer(kBeaconSecret);
  auto substitute = [&](std::string url) {
    url = absl::StrReplaceAll(url, {{"${AUCTION_ID}", "req-1"},
                                    {"${AUCTION_IMP_ID}", "1"},
                                    {"${AUCTION_BID_ID}", bid["id"].get<std::string>()},
                                    {"${AUCTION_PRICE}", "1.5"},
                                    {"${AUCTION_CURRENCY}", "USD"},
                                    {"${AUCTION_LOSS}", "102"}});
    return url.substr(url.find('?') + 1);
  };
  const std::pair<BeaconKind, std::string> beacons[] = {{BeaconKind::kWin, bid["nurl"]},
                                                        {BeaconKind::kBilling, bid["burl"]},
                                                        {BeaconKind::kLoss, bid["lurl"]}};
  for (const auto& [kind, url] : beacons) {
    absl::StatusOr<VerifiedBeacon> beacon = signer.Verify(kind, substitute(url));
    ASSERT_TRUE(beacon.ok()) << url << ": " << beacon.status();
    EXPECT_EQ(beacon->campaign_id, "northwind-travel-display");
    EXPECT_EQ(beacon->creative_id, "nw-mrec-summer");
    EXPECT_EQ(beacon->exchange, "sample-exchange");
    EXPECT_EQ(beacon->device_key, harness.KeyHexOf(kIfa));
    EXPECT_EQ(beacon->bid_price_micros, 2500000);
    EXPECT_EQ(beacon->bid_time_ms, testing::kNoonUtcMillis);
    EXPECT_FALSE(beacon->test);
  }
  // The markup's ${CLICK_URL} became the signed click beacon.
  const std::string adm = bid["adm"];
  EXPECT_EQ(adm.find("${CLICK_URL}"), std::string::npos);
  const size_t start = adm.find("http://127.0.0.1:8080/click?");
  ASSERT_NE(start, std::string::npos) << adm;
  const std::string click = adm.substr(start, adm.find('"', start) - start);
  EXPECT_TRUE(signer.Verify(BeaconKind::kClick, substitute(click)).ok()) << click;
  // Raw device ids never appear in the response.
  EXPECT_EQ(answer.response.body.find(std::string(kIfa)), std::string::npos);
}

TEST(BidHandlerTest, TestRequestsMarkTheirBeacons) {
  HandlerHarness harness(ExampleConfig());
  const Answer answer = harness.Call(Mrec(R"(,"test":1)"));
  ASSERT_EQ(answer.response.status, 200u);
  EXPECT_THAT(answer.FirstBid()["burl"].get<std::string>(), HasSubstr("&test=1&"));
}

TEST(BidHandlerTest, MalformedJsonIs400WithReasonAndNbr) {
  HandlerHarness harness(ExampleConfig());
  const Answer answer = harness.Call(R"({"id": "x", "imp": [)");
  EXPECT_EQ(answer.response.status, 400u);
  EXPECT_EQ(answer.response.content_type, "application/json");
  ASSERT_TRUE(answer.json.is_object()) << answer.response.body;
  EXPECT_FALSE(answer.json["error"].get<std::string>().empty());
  EXPECT_EQ(answer.json["nbr"], 2);
  EXPECT_EQ(harness.Requests(BidOutcome::kInvalid), 1);
  EXPECT_EQ(harness.store().async_gets(), 0);
}

TEST(BidHandlerTest, MissingRequiredFieldsAre400) {
  HandlerHarness harness(ExampleConfig());
  for (const char* body : {R"({"imp":[{"id":"1"}]})", R"({"id":"r","imp":[{"banner":{}}]})",
                           R"({"id":"r","imp":[]})", "", "[]"}) {
    SCOPED_TRACE(body);
    const Answer answer = harness.Call(body);
    EXPECT_EQ(answer.response.status, 400u);
    EXPECT_EQ(answer.json["nbr"], 2);
  }
  EXPECT_EQ(harness.Requests(BidOutcome::kInvalid), 5);
}

TEST(BidHandlerTest, ExpiredOnArrivalIs204WithoutLookup) {
  HandlerHarness harness(ExampleConfig());
  const auto arrival = std::chrono::steady_clock::now() - milliseconds(200);
  const Answer answer = harness.Call(Mrec(R"(,"tmax":100)"), arrival);
  EXPECT_EQ(answer.response.status, 204u);
  EXPECT_TRUE(answer.response.body.empty());
  EXPECT_EQ(harness.store().async_gets(), 0);
  EXPECT_EQ(harness.LookupsTotal(), 0);
  EXPECT_EQ(harness.Requests(BidOutcome::kNoBidExpired), 1);
}

TEST(BidHandlerTest, TmaxWithinNetworkAllowanceIs204WithoutLookup) {
  HandlerHarness harness(ExampleConfig());
  const Answer answer = harness.Call(Mrec(R"(,"tmax":15)"));  // allowance is 20 ms
  EXPECT_EQ(answer.response.status, 204u);
  EXPECT_EQ(harness.store().async_gets(), 0);
  EXPECT_EQ(harness.Requests(BidOutcome::kNoBidExpired), 1);
}

TEST(BidHandlerTest, NoTimeForTheLookupMeansContextualBid) {
  config::BidderConfig config = ExampleConfig();
  config.bid.auction_budget_us = 50000;
  HandlerHarness harness(config);
  harness.temp_store().PutProfile(harness.KeyOf(kIfa), ProfileRow{{"cart-abandoner-30d"}, {}});
  // 60 ms - 20 ms allowance leaves 40 ms, less than the 50 ms auction budget.
  const Answer answer = harness.Call(Mrec(R"(,"tmax":60)"));
  ASSERT_EQ(answer.response.status, 200u);
  EXPECT_EQ(answer.FirstBid()["cid"], "northwind-travel-display");
  EXPECT_EQ(harness.store().async_gets(), 0);
  EXPECT_EQ(harness.Lookups(LookupOutcome::kSkipped), 1);
}

TEST(BidHandlerTest, ProfileHitLetsTheSegmentCampaignWin) {
  HandlerHarness harness(ExampleConfig());
  harness.temp_store().PutProfile(harness.KeyOf(kIfa), ProfileRow{{"cart-abandoner-30d"}, {}});
  const Answer answer = harness.Call(Mrec());
  ASSERT_EQ(answer.response.status, 200u) << answer.response.body;
  EXPECT_EQ(answer.FirstBid()["cid"], "litware-retargeting");
  EXPECT_EQ(answer.FirstBid()["crid"], "litware-mrec-cart");
  EXPECT_DOUBLE_EQ(answer.FirstBid()["price"].get<double>(), 3.2 * 1.27);
  EXPECT_EQ(harness.Lookups(LookupOutcome::kHit), 1);
  EXPECT_EQ(harness.store().async_gets(), 1);
  EXPECT_EQ(harness.metrics().bids(0, 4).Value(), 1);  // exchange 0, litware is campaigns[4]
  EXPECT_EQ(harness.metrics().profile_timeouts(0).Value(), 0);
  EXPECT_DOUBLE_EQ(harness.metrics().price_sum(4).Value(), 3.2 * 1.27);
}

TEST(BidHandlerTest, ProfileMissBidsContextually) {
  HandlerHarness harness(ExampleConfig());
  const Answer answer = harness.Call(Mrec());
  ASSERT_EQ(answer.response.status, 200u);
  EXPECT_EQ(answer.FirstBid()["cid"], "northwind-travel-display");
  EXPECT_EQ(harness.Lookups(LookupOutcome::kMiss), 1);
}

TEST(BidHandlerTest, StoredFrequencyCapStopsTheCampaign) {
  HandlerHarness harness(ExampleConfig());
  // 08:00 on 4 October in New York; northwind's cap is 12 a day.
  harness.temp_store().PutProfile(
      harness.KeyOf(kIfa),
      ProfileRow{{}, {{Qualifier("northwind-travel-display", 2026, 10, 4), 12}}});
  const Answer answer = harness.Call(Mrec());
  EXPECT_EQ(answer.response.status, 204u);
  EXPECT_EQ(harness.Requests(BidOutcome::kNoBidFrequencyCap), 1);

  // A different device has seen nothing today.
  const Answer other =
      harness.Call(absl::StrReplaceAll(Mrec(), {{std::string(kIfa), "other-device-id"}}));
  EXPECT_EQ(other.response.status, 200u);
}

// A profile the store has at hand is decided on at once, without waiting
// for AsyncGet's callback, and answers as it does through AsyncGet: the
// segment's campaign wins, a reached cap stops its campaign.
TEST(BidHandlerTest, ProfileAtHandAnswersAsThroughAsyncGet) {
  HandlerHarness harness(ExampleConfig());
  harness.temp_store().PutProfile(harness.KeyOf(kIfa), ProfileRow{{"cart-abandoner-30d"}, {}});
  const std::string capped_device = "3b0a7c8e-1f2d-4e5a-9b6c-7d8e9f0a1b2c";
  harness.temp_store().PutProfile(
      harness.KeyOf(capped_device),
      ProfileRow{{}, {{Qualifier("northwind-travel-display", 2026, 10, 4), 12}}});
  const std::string capped_request =
      absl::StrReplaceAll(Mrec(), {{std::string(kIfa), capped_device}});
  const Answer through_async = harness.Call(Mrec());
  const Answer capped_through_async = harness.Call(capped_request);
  ASSERT_EQ(harness.store().async_gets(), 2);

  harness.store().set_answer_without_waiting(true);
  const Answer at_once = harness.Call(Mrec());
  const Answer capped_at_once = harness.Call(capped_request);
  EXPECT_EQ(harness.store().async_gets(), 2);
  EXPECT_EQ(harness.store().gets_without_waiting(), 2);
  ASSERT_EQ(at_once.response.status, 200u) << at_once.response.body;
  EXPECT_EQ(at_once.FirstBid()["cid"], "litware-retargeting");
  EXPECT_EQ(at_once.FirstBid()["cid"], through_async.FirstBid()["cid"]);
  EXPECT_EQ(at_once.FirstBid()["price"], through_async.FirstBid()["price"]);
  EXPECT_EQ(capped_at_once.response.status, capped_through_async.response.status);
  EXPECT_EQ(capped_at_once.response.status, 204u);
  EXPECT_EQ(harness.Lookups(LookupOutcome::kHit), 4);
  EXPECT_EQ(harness.Requests(BidOutcome::kNoBidFrequencyCap), 2);
}

TEST(BidHandlerTest, LmtDntAndInvalidIdsSkipTheLookup) {
  HandlerHarness harness(ExampleConfig());
  harness.temp_store().PutProfile(harness.KeyOf(kIfa), ProfileRow{{"cart-abandoner-30d"}, {}});
  for (std::string_view device : {R"(,"lmt":1)", R"(,"dnt":1)"}) {
    std::string body = Mrec();
    body.insert(body.find(R"("}})") + 1, device);
    SCOPED_TRACE(body);
    const Answer answer = harness.Call(body);
    ASSERT_EQ(answer.response.status, 200u);
    EXPECT_EQ(answer.FirstBid()["cid"], "northwind-travel-display");
    // Untracked: no device key in the beacons.
    EXPECT_EQ(answer.FirstBid()["nurl"].get<std::string>().find("&dk="), std::string::npos);
  }
  const Answer zeros = harness.Call(
      absl::StrReplaceAll(Mrec(), {{std::string(kIfa), "00000000-0000-0000-0000-000000000000"}}));
  ASSERT_EQ(zeros.response.status, 200u);
  EXPECT_EQ(harness.store().async_gets(), 0);
  EXPECT_EQ(harness.Lookups(LookupOutcome::kSkipped), 3);
}

TEST(BidHandlerTest, LmtLookupWhenPolicyAllows) {
  config::BidderConfig config = ExampleConfig();
  config.bid.skip_lookup_on_lmt = false;
  HandlerHarness harness(config);
  harness.temp_store().PutProfile(harness.KeyOf(kIfa), ProfileRow{{"cart-abandoner-30d"}, {}});
  std::string body = Mrec();
  body.insert(body.find(R"("}})") + 1, R"(,"lmt":1)");
  const Answer answer = harness.Call(body);
  ASSERT_EQ(answer.response.status, 200u);
  EXPECT_EQ(answer.FirstBid()["cid"], "litware-retargeting");
}

TEST(BidHandlerTest, CoppaPolicy) {
  {
    HandlerHarness harness(ExampleConfig());  // no-bid
    const Answer answer = harness.Call(Mrec(R"(,"regs":{"coppa":1})"));
    EXPECT_EQ(answer.response.status, 204u);
    EXPECT_EQ(harness.Requests(BidOutcome::kNoBidCoppa), 1);
  }
  {
    config::BidderConfig config = ExampleConfig();
    config.bid.coppa_policy = config::CoppaPolicy::kContextual;
    HandlerHarness harness(config);
    harness.temp_store().PutProfile(harness.KeyOf(kIfa), ProfileRow{{"cart-abandoner-30d"}, {}});
    const Answer answer = harness.Call(Mrec(R"(,"regs":{"coppa":1})"));
    ASSERT_EQ(answer.response.status, 200u);
    EXPECT_EQ(answer.FirstBid()["cid"], "northwind-travel-display");
    EXPECT_EQ(harness.store().async_gets(), 0);
  }
}

TEST(BidHandlerTest, UnacceptableCurrencyOrNoCandidatesSkipTheLookup) {
  HandlerHarness harness(ExampleConfig());
  EXPECT_EQ(harness.Call(Mrec(R"(,"cur":["CHF"])")).response.status, 204u);
  EXPECT_EQ(harness.Requests(BidOutcome::kNoBidCurrency), 1);
  const Answer odd_size = harness.Call(absl::StrReplaceAll(Mrec(), {{"\"w\":300", "\"w\":301"}}));
  EXPECT_EQ(odd_size.response.status, 204u);
  EXPECT_EQ(harness.Requests(BidOutcome::kNoBidNoCandidates), 1);
  EXPECT_EQ(harness.store().async_gets(), 0);
}

TEST(BidHandlerTest, RespondsInTheRequestedCurrency) {
  HandlerHarness harness(ExampleConfig());
  const Answer answer = harness.Call(Mrec(R"(,"cur":["GBP"])"));
  ASSERT_EQ(answer.response.status, 200u);
  EXPECT_EQ(answer.json["cur"], "GBP");
  EXPECT_DOUBLE_EQ(answer.FirstBid()["price"].get<double>(), 2.5 / 1.27);
  // The price metric is in the default currency.
  EXPECT_DOUBLE_EQ(harness.metrics().price_sum(0).Value(), 2.5);
}

TEST(BidHandlerTest, OpenRtbVersionIsTheRequestsElseTheExchanges) {
  for (const char* configured : {"2.5", "2.6"}) {
    SCOPED_TRACE(configured);
    config::BidderConfig config = ExampleConfig();
    config.server.exchanges[0].openrtb_version = configured;
    HandlerHarness harness(config);
    // No header (as Prebid Server sends): the exchange's version.
    Answer answer = harness.Call(Mrec());
    ASSERT_EQ(answer.response.status, 200u);
    EXPECT_EQ(answer.Header("x-openrtb-version"), configured);
    EXPECT_EQ(answer.FirstBid()["mtype"], 1);
    // The request's own header decides, above or below the exchange's.
    answer = harness.Call(Mrec(), std::nullopt, "2.6");
    EXPECT_EQ(answer.Header("x-openrtb-version"), "2.6");
    EXPECT_EQ(answer.FirstBid()["mtype"], 1);
    EXPECT_FALSE(answer.FirstBid().contains("ext"));
    answer = harness.Call(Mrec(), std::nullopt, "2.5");
    EXPECT_EQ(answer.Header("x-openrtb-version"), "2.5");
    EXPECT_EQ(answer.FirstBid()["mtype"], 1);
    EXPECT_EQ(answer.FirstBid()["ext"]["mtype"], 1);
  }
}

// Pacing that takes longer than the request has: a fault injected into the
// auction so the response is ready only after the deadline.
class SlowPacing final : public PacingSnapshot {
 public:
  bool MayBid(size_t, double, int64_t) const override {
    std::this_thread::sleep_for(milliseconds(40));
    return true;
  }
};

TEST(BidHandlerTest, ResponseReadyAfterTheDeadlineIs204Late) {
  const SlowPacing pacing;
  HandlerHarness harness(ExampleConfig(), &pacing);
  const Answer answer = harness.Call(Mrec(R"(,"tmax":50)"));  // 30 ms after allowance
  EXPECT_EQ(answer.response.status, 204u);
  EXPECT_EQ(harness.Requests(BidOutcome::kLate), 1);
  EXPECT_EQ(harness.Requests(BidOutcome::kBid), 0);
}

TEST(BidHandlerTest, ForExchangeKnowsOnlyConfiguredExchanges) {
  HandlerHarness harness(ExampleConfig());
  EXPECT_TRUE(harness.handler().ForExchange(harness.config().server.exchanges[0]).ok());
  config::ExchangeConfig unknown;
  unknown.name = "nobody";
  EXPECT_EQ(harness.handler().ForExchange(unknown).status().code(), absl::StatusCode::kNotFound);
}

TEST(BidHandlerTest, LatencyIsObservedForEveryAnswer) {
  HandlerHarness harness(ExampleConfig());
  harness.Call(Mrec());
  harness.Call("{");
  const prometheus::ClientMetric metric = harness.metrics().latency(0).Collect();
  EXPECT_EQ(metric.histogram.sample_count, 2u);
  EXPECT_GT(metric.histogram.sample_sum, 0);
}

}  // namespace
}  // namespace rtb::bidder
