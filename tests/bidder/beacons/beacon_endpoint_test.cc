// The beacons over real HTTP: a whole BidderApp bids, and its own nurl,
// burl, lurl and click URL come back the way an exchange and a browser send
// them. What they write is read back from the store, the pacing recorder,
// the metrics and the admin API.
#include "tests/bidder/beacons/beacon_endpoint_fixture.h"

namespace rtb::bidder {
namespace {

using beacon_testing::BeaconEndpointTest;
using beacon_testing::kDeviceId;
using beacon_testing::kNorthwind;
using beacon_testing::WonBid;
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

TEST_F(BeaconEndpointTest, BillingRecordsTheImpressionOnceWithCapSpendAndEvents) {
  const WonBid bid = Bid("req-billing", kDeviceId);
  ASSERT_FALSE(bid.billing.empty());
  EXPECT_EQ(Send(GetRequest(bid.win)).status, 204u);
  // A retried win notice, a moment later, rewrites the same event.
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  EXPECT_EQ(Send(GetRequest(bid.win)).status, 204u);
  EXPECT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  // The exchange retries, and the pixel of the same impression fires too.
  EXPECT_EQ(Send(GetRequest(bid.billing)).status, 204u);

  const storage::RowResult row = ImpressionRow(bid);
  ASSERT_FALSE(row.empty());
  EXPECT_EQ(row.Value("i", "c"), kNorthwind);
  // 80 % of the bid CPM, per impression: CPM / 1000, in micro-dollars.
  const int64_t expected_spend = std::llround(bid.price * 0.8 * 1e6 / 1000);
  EXPECT_EQ(row.Counter("i", "spend"), expected_spend);
  // The spend went through the journal: committed, and its entry, named by
  // the impression row, is in the store until the pacing loop flushes it.
  ASSERT_NE(app_->pacer().journal(), nullptr);
  EXPECT_EQ(app_->pacer().journal()->Pending(NorthwindIndex()), expected_spend);
  EXPECT_EQ(app_->pacer().spend().Pending(NorthwindIndex()), 0);
  const std::optional<std::string_view> journal_key = row.Value("i", "j");
  ASSERT_TRUE(journal_key.has_value());
  storage::Get entry_get;
  entry_get.row = std::string(*journal_key);
  absl::StatusOr<storage::RowResult> entry =
      app_->store().Get(storage::kSpendJournalTable, entry_get);
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_EQ(entry->Counter("e", "a"), expected_spend);
  EXPECT_EQ(entry->Value("e", "c"), kNorthwind);
  EXPECT_EQ(CapCount(kDeviceId), 1);

  const std::string metrics = Metrics();
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="billing",outcome="recorded"} 1)"));
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="billing",outcome="duplicate"} 1)"));
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="win",outcome="recorded"} 2)"));
  // The claimed impression, once, with its spend, by exchange and campaign.
  EXPECT_THAT(metrics, HasSubstr(absl::StrCat(R"(bidder_wins_total{campaign=")", kNorthwind,
                                              R"(",exchange="sample-exchange"} 1)")));
  EXPECT_THAT(metrics,
              HasSubstr(absl::StrCat(R"(bidder_spend_micros_total{campaign=")", kNorthwind,
                                     R"(",exchange="sample-exchange"} )", expected_spend, "\n")));

  const TestResponse events = AdminGet(absl::StrCat("/api/devices/", kDeviceId, "/events"));
  ASSERT_EQ(events.status, 200u) << events.body;
  const nlohmann::json list = nlohmann::json::parse(events.body)["events"];
  std::vector<std::string> types;
  for (const nlohmann::json& e : list) types.push_back(e["type"]);
  std::sort(types.begin(), types.end());
  // One impression and one win: the replays added nothing.
  EXPECT_EQ(types, (std::vector<std::string>{"impression", "win"})) << events.body;
}

// A process died after step 2 (the cap count) and before the claim; the
// store's nonce memory is gone (a restart, or a backend without nonces: the
// earlier Increment below carries none). The exchange's retry counts the cap
// once: the impression's marker column says it was counted already.
TEST_F(BeaconEndpointTest, BillingRetriedAfterACrashBeforeTheClaimCountsTheCapOnce) {
  const WonBid bid = Bid("req-cap-crash", kDeviceId);
  ASSERT_FALSE(bid.billing.empty());
  absl::TimeZone new_york;
  ASSERT_TRUE(absl::LoadTimeZone("America/New_York", &new_york));
  storage::Increment earlier;
  earlier.row = DeviceKey(kDeviceId);
  earlier.columns.push_back({"fc", FrequencyCapQualifier(kNorthwind, absl::Now(), new_york), 1});
  earlier.columns.push_back({"fc", FrequencyCapMarkerQualifier(ImpressionId(bid)), 1});
  ASSERT_TRUE(app_->store().Increment(storage::kProfilesTable, earlier).ok());
  ASSERT_EQ(CapCount(kDeviceId), 1);

  EXPECT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  EXPECT_EQ(CapCount(kDeviceId), 1);
  EXPECT_EQ(ImpressionRow(bid).Counter("i", "spend"), std::llround(bid.price * 0.8 * 1e6 / 1000));
  // A second impression of the device counts as usual.
  const WonBid next = Bid("req-cap-crash-2", kDeviceId);
  EXPECT_EQ(Send(GetRequest(next.billing)).status, 204u);
  EXPECT_EQ(CapCount(kDeviceId), 2);
}

TEST_F(BeaconEndpointTest, ClickRedirectsToTheConfiguredLandingPageAndConversionIsAttributed) {
  const WonBid bid = Bid("req-click", kDeviceId);
  ASSERT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  const TestResponse click = Send(GetRequest(bid.click));
  ASSERT_EQ(click.status, 302u);
  const std::string location = click.Header("location");
  EXPECT_THAT(location, StartsWith("https://www.northwind-travel.example/deals/summer?rtb_click="));
  const std::string token = location.substr(location.find("rtb_click=") + 10);
  // A second click redirects too and is not a second first click.
  EXPECT_EQ(Send(GetRequest(bid.click)).status, 302u);
  EXPECT_TRUE(ImpressionRow(bid).Counter("i", "clk").has_value());

  EXPECT_EQ(
      Send(GetRequest(absl::StrCat("/conversion?click=", token, "&oid=order-7&value=49.5&cur=USD")))
          .status,
      204u);
  // The advertiser's retry of the same order, a moment later, changes nothing.
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  EXPECT_EQ(Send(GetRequest(absl::StrCat("/conversion?click=", token, "&oid=order-7"))).status,
            204u);

  const TestResponse events = AdminGet(absl::StrCat("/api/devices/", kDeviceId, "/events"));
  ASSERT_EQ(events.status, 200u);
  const nlohmann::json list = nlohmann::json::parse(events.body)["events"];
  int clicks = 0, conversions = 0;
  for (const nlohmann::json& e : list) {
    if (e["type"] == "click") {
      ++clicks;
      EXPECT_GE(e["body"]["click_delay_ms"].get<int64_t>(), 0);
    }
    if (e["type"] == "conversion") {
      ++conversions;
      EXPECT_EQ(e["body"]["order_id"], "order-7");
      EXPECT_EQ(e["body"]["value"], 49.5);
      EXPECT_TRUE(e["body"].contains("click_delay_ms"));
    }
  }
  EXPECT_EQ(clicks, 1) << events.body;
  EXPECT_EQ(conversions, 1) << events.body;
}

TEST_F(BeaconEndpointTest, FirstPriceNoticesReachPricingAndTheCampaignFigures) {
  // The sample is a first-price request: its beacons carry the bucket and
  // ask for the minimum bid to win (which Bid() fills with 2.1).
  const WonBid lost = Bid("req-priced-loss", kDeviceId);
  EXPECT_THAT(lost.loss, HasSubstr("&pb="));
  EXPECT_THAT(lost.loss, HasSubstr("&mtw=2.1&"));
  EXPECT_EQ(Send(GetRequest(lost.loss)).status, 204u);
  const WonBid won = Bid("req-priced-win", kDeviceId);
  EXPECT_EQ(Send(GetRequest(won.win)).status, 204u);

  const std::string exchange = app_->config().server.exchanges[0].name;
  const std::string metrics = Metrics();
  EXPECT_THAT(metrics, HasSubstr(absl::StrCat("bidder_pricing_notices_total{exchange=\"", exchange,
                                              "\",kind=\"price_loss\"} 1")));
  EXPECT_THAT(metrics, HasSubstr(absl::StrCat("bidder_pricing_notices_total{exchange=\"", exchange,
                                              "\",kind=\"win\"} 1")));
  // The first fit found no outcomes: both bids went out at the value.
  EXPECT_THAT(metrics, HasSubstr(absl::StrCat("bidder_pricing_bids_total{exchange=\"", exchange,
                                              "\",outcome=\"learning\"} 2")));

  const TestResponse campaigns = AdminGet("/api/campaigns");
  ASSERT_EQ(campaigns.status, 200u);
  const nlohmann::json all = nlohmann::json::parse(campaigns.body)["campaigns"];
  const auto northwind = std::find_if(
      all.begin(), all.end(), [](const nlohmann::json& c) { return c["id"] == kNorthwind; });
  ASSERT_NE(northwind, all.end());
  const nlohmann::json& pricing = (*northwind)["pricing"];
  EXPECT_EQ(pricing["goal"], "cpm");
  EXPECT_EQ(pricing["first_price_bids"], 2);
  EXPECT_EQ(pricing["wins"], 1);
  EXPECT_EQ(pricing["price_losses"], 1);
  EXPECT_DOUBLE_EQ(pricing["win_rate"].get<double>(), 0.5);
  EXPECT_NEAR(pricing["average_clearing_cpm"].get<double>(), won.price * 0.8, 1e-6);

  // The outcome rows hold both notices.
  storage::Scan scan;
  scan.limit = 100;
  absl::StatusOr<std::vector<storage::RowResult>> rows =
      app_->store().Scan(storage::kPricingTable, scan);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_FALSE(rows->empty());
}

TEST_F(BeaconEndpointTest, TheCampaignListCountsEachCampaignsBidsAndClaimedWins) {
  auto counts = [&]() {
    const TestResponse answer = AdminGet("/api/campaigns");
    EXPECT_EQ(answer.status, 200u) << answer.body;
    std::map<std::string, std::pair<int64_t, int64_t>> out;
    const nlohmann::json list = nlohmann::json::parse(answer.body);
    for (const nlohmann::json& c : list["campaigns"]) {
      out[c["id"].get<std::string>()] = {c["bids"].get<int64_t>(), c["wins"].get<int64_t>()};
    }
    return out;
  };
  const auto before = counts();
  ASSERT_TRUE(before.contains(kNorthwind));
  for (const auto& [id, count] : before) {
    EXPECT_EQ(count, std::make_pair(int64_t{0}, int64_t{0})) << id;
  }

  // Two bids; the first is won and billed (claimed, once, though the
  // exchange retries), the second only sent.
  const WonBid won = Bid("req-list-won", kDeviceId);
  const WonBid sent = Bid("req-list-sent", kDeviceId);
  ASSERT_FALSE(won.billing.empty());
  EXPECT_EQ(Send(GetRequest(won.win)).status, 204u);
  EXPECT_EQ(Send(GetRequest(won.billing)).status, 204u);
  EXPECT_EQ(Send(GetRequest(won.billing)).status, 204u);

  const auto after = counts();
  EXPECT_EQ(after.at(kNorthwind), std::make_pair(int64_t{2}, int64_t{1}));
  for (const auto& [id, count] : after) {
    if (id != kNorthwind) {
      EXPECT_EQ(count, std::make_pair(int64_t{0}, int64_t{0})) << id;
    }
  }
}

TEST_F(BeaconEndpointTest, ForgedOrAlteredBeaconsAreRefusedAndCounted) {
  const WonBid bid = Bid("req-forged", kDeviceId);
  const std::string altered =
      absl::StrReplaceAll(bid.billing, {{"c=northwind-travel-display", "c=fabrikam-mobile-apps"}});
  ASSERT_NE(altered, bid.billing);
  EXPECT_EQ(Send(GetRequest(altered)).status, 403u);
  const std::string unsigned_click = bid.click.substr(0, bid.click.find("&sig="));
  EXPECT_EQ(Send(GetRequest(unsigned_click)).status, 403u);
  // A click URL cannot be replayed as a billing notice.
  const std::string as_billing = absl::StrReplaceAll(bid.click, {{"/click?", "/billing?"}});
  EXPECT_EQ(Send(GetRequest(as_billing)).status, 403u);
  EXPECT_EQ(
      Send(GetRequest("/conversion?click=00112233445566778899aabbccddeeff.AAAAAAAAAAAAAAAAAAAAAA"))
          .status,
      403u);
  EXPECT_TRUE(ImpressionRow(bid).empty());
  const std::string metrics = Metrics();
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="billing",outcome="forged"} 2)"));
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="click",outcome="forged"} 1)"));
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="conversion",outcome="forged"} 1)"));
}

TEST_F(BeaconEndpointTest, ImplausibleClearingPriceIsRejectedAndTheBidPriceRecorded) {
  const WonBid bid = Bid("req-price", kDeviceId, /*test=*/false, /*clearing_share=*/3.0);
  ASSERT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  EXPECT_EQ(ImpressionRow(bid).Counter("i", "spend"), std::llround(bid.price * 1e6 / 1000));
  EXPECT_THAT(Metrics(), HasSubstr(R"(bidder_beacon_price_rejected_total{kind="billing",)"
                                   R"(reason="implausible"} 1)"));

  const WonBid text_price = Bid("req-price-text", kDeviceId);
  const std::string garbage = absl::StrReplaceAll(
      text_price.billing, {{absl::StrCat("&p=", text_price.price * 0.8), "&p=abc"}});
  ASSERT_NE(garbage, text_price.billing);
  ASSERT_EQ(Send(GetRequest(garbage)).status, 204u);
  EXPECT_EQ(ImpressionRow(text_price).Counter("i", "spend"),
            std::llround(text_price.price * 1e6 / 1000));
}

TEST_F(BeaconEndpointTest, WinNoticeServesTheMarkupOfAWinNoticeDeliveredCreative) {
  const TestResponse response = Send(PostRequest(app_->config().server.exchanges[0].bid_path,
                                                 FixtureRequest("site-pmp-deals.json")));
  ASSERT_EQ(response.status, 200u) << response.body;
  const nlohmann::json bid = nlohmann::json::parse(response.body)["seatbid"][0]["bid"][0];
  ASSERT_EQ(bid["cid"], "contoso-agency1-deal");
  EXPECT_FALSE(bid.contains("adm"));
  const std::string nurl = absl::StrReplaceAll(
      bid["nurl"].get<std::string>(),
      {{"${AUCTION_ID}", nlohmann::json::parse(FixtureRequest("site-pmp-deals.json"))["id"]},
       {"${AUCTION_IMP_ID}", bid["impid"].get<std::string>()},
       {"${AUCTION_BID_ID}", bid["id"].get<std::string>()},
       {"${AUCTION_PRICE}", "1"},
       {"${AUCTION_CURRENCY}", "USD"}});
  const TestResponse win = Send(GetRequest(Target(nurl)));
  ASSERT_EQ(win.status, 200u) << win.body;
  EXPECT_THAT(win.Header("content-type"), StartsWith("text/html"));
  EXPECT_THAT(win.body, HasSubstr(absl::StrCat("http://127.0.0.1:", app_->port(), "/click?")));
  EXPECT_THAT(win.body, Not(HasSubstr("${CLICK_URL}")));
}

TEST_F(BeaconEndpointTest, TestBidsRecordNothingBillable) {
  const WonBid bid = Bid("req-test", kDeviceId, /*test=*/true);
  ASSERT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  EXPECT_TRUE(ImpressionRow(bid).empty());
  EXPECT_EQ(CapCount(kDeviceId), 0);
  EXPECT_EQ(app_->pacer().journal()->Pending(NorthwindIndex()), 0);
  const std::string metrics = Metrics();
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="billing",outcome="test"} 1)"));
  EXPECT_THAT(metrics, HasSubstr(absl::StrCat(R"(bidder_wins_total{campaign=")", kNorthwind,
                                              R"(",exchange="sample-exchange"} 0)")));
  EXPECT_THAT(metrics, HasSubstr(absl::StrCat(R"(bidder_spend_micros_total{campaign=")", kNorthwind,
                                              R"(",exchange="sample-exchange"} 0)")));
}

TEST_F(BeaconEndpointTest, ErasedDeviceKeepsSpendButGetsNoDeviceData) {
  const WonBid before = Bid("req-before-erasure", kDeviceId);
  ASSERT_EQ(Send(GetRequest(before.billing)).status, 204u);
  ASSERT_EQ(CapCount(kDeviceId), 1);

  const TestResponse erased = AdminDelete(absl::StrCat("/api/devices/", kDeviceId));
  ASSERT_EQ(erased.status, 202u) << erased.body;
  EXPECT_EQ(nlohmann::json::parse(erased.body)["step"], "tombstoned") << erased.body;
  EXPECT_EQ(CapCount(kDeviceId), 0);
  EXPECT_TRUE(ImpressionRow(before).empty());

  // A replayed or late beacon of the erased device: spend counts, the device does not.
  const WonBid after = Bid("req-after-erasure", kDeviceId);
  ASSERT_EQ(Send(GetRequest(after.billing)).status, 204u);
  const storage::RowResult row = ImpressionRow(after);
  ASSERT_FALSE(row.empty());
  EXPECT_FALSE(row.Value("i", "dk").has_value());
  EXPECT_EQ(CapCount(kDeviceId), 0);
  const TestResponse events = AdminGet(absl::StrCat("/api/devices/", kDeviceId, "/events"));
  ASSERT_EQ(events.status, 200u);
  EXPECT_TRUE(nlohmann::json::parse(events.body)["events"].empty()) << events.body;
  const TestResponse status = AdminGet(absl::StrCat("/api/devices/", kDeviceId, "/erasure"));
  EXPECT_EQ(status.status, 200u);
  EXPECT_THAT(Metrics(), HasSubstr(R"(bidder_beacons_total{kind="billing",outcome="erased"} 1)"));
}

TEST_F(BeaconEndpointTest, UnknownImpressionClickStillRedirectsAndIsCounted) {
  const WonBid bid = Bid("req-unknown", kDeviceId);
  // No billing notice: there is no impression row to attribute the click to.
  const TestResponse click = Send(GetRequest(bid.click));
  EXPECT_EQ(click.status, 302u);
  EXPECT_THAT(Metrics(),
              HasSubstr(R"(bidder_beacons_total{kind="click",outcome="unknown_impression"} 1)"));
}

TEST_F(BeaconEndpointTest, BadRequestsGetClearErrors) {
  EXPECT_EQ(Send(GetRequest("/billing?x=a")).status, 400u);
  EXPECT_EQ(Send(GetRequest("/conversion")).status, 400u);
  EXPECT_EQ(Send(GetRequest("/conversion?click=nothex")).status, 400u);
  EXPECT_EQ(AdminGet("/api/events?type=nope&from=0&to=1").status, 400u);
  EXPECT_EQ(AdminGet("/api/devices/00000000-0000-0000-0000-000000000000/events").status, 400u);
  EXPECT_EQ(AdminGet("/api/devices/never-seen-device/erasure").status, 404u);
  const TestResponse by_type = AdminGet("/api/events?type=impression&from=0&to=9999999999999");
  EXPECT_EQ(by_type.status, 200u);
  EXPECT_THAT(by_type.body, Not(HasSubstr(kDeviceId)));
}

TEST_F(BeaconEndpointTest, OpenTsdbApiStoresAndChartsPoints) {
  const int64_t now_s = ::time(nullptr);
  const std::string points = nlohmann::json::array({
                                                       {{"metric", "ops.cpu"},
                                                        {"timestamp", now_s - 120},
                                                        {"value", 0.5},
                                                        {"tags", {{"host", "a"}}}},
                                                       {{"metric", "ops.cpu"},
                                                        {"timestamp", now_s - 60},
                                                        {"value", 0.75},
                                                        {"tags", {{"host", "a"}}}},
                                                   })
                                 .dump();
  const TestResponse put = AdminPost("/api/put", points);
  ASSERT_EQ(put.status, 200u) << put.body;
  const std::string query =
      nlohmann::json{
          {"start", now_s - 600},
          {"end", now_s},
          {"queries", {{{"aggregator", "sum"}, {"metric", "ops.cpu"}, {"tags", {{"host", "a"}}}}}}}
          .dump();
  const TestResponse answer = AdminPost("/api/query", query);
  ASSERT_EQ(answer.status, 200u) << answer.body;
  const nlohmann::json series = nlohmann::json::parse(answer.body);
  ASSERT_EQ(series.size(), 1u) << answer.body;
  EXPECT_EQ(series[0]["dps"].size(), 2u) << answer.body;
  const TestResponse suggest = AdminGet("/api/suggest?type=metrics&q=ops");
  ASSERT_EQ(suggest.status, 200u) << suggest.body;
  EXPECT_THAT(suggest.body, HasSubstr("ops.cpu"));
  // What Grafana's OpenTSDB data source asks for its pickers.
  const TestResponse lookup = AdminGet("/api/search/lookup?m=ops.cpu%7Bhost%3D*%7D&limit=10");
  ASSERT_EQ(lookup.status, 200u) << lookup.body;
  EXPECT_EQ(nlohmann::json::parse(lookup.body)["results"][0]["tags"]["host"], "a") << lookup.body;
  const TestResponse aggregators = AdminGet("/api/aggregators");
  ASSERT_EQ(aggregators.status, 200u);
  EXPECT_EQ(nlohmann::json::parse(aggregators.body),
            nlohmann::json({"avg", "count", "max", "min", "sum"}));
  // A tag that holds a request id is refused with a reason.
  const TestResponse refused = AdminPost(
      "/api/put", nlohmann::json{{"metric", "ops.cpu"},
                                 {"timestamp", now_s},
                                 {"value", 1},
                                 {"tags", {{"request", "6d92078a-8246-4ba4-ae5b-76104861e7dc"}}}}
                      .dump());
  EXPECT_EQ(refused.status, 400u) << refused.body;
}

TEST_F(BeaconEndpointTest, LossNoticeRecordsTheReasonAndTheMinimumToWin) {
  const WonBid bid = Bid("req-loss", kDeviceId);
  ASSERT_EQ(Send(GetRequest(bid.loss)).status, 204u);
  const TestResponse events = AdminGet(absl::StrCat("/api/devices/", kDeviceId, "/events"));
  ASSERT_EQ(events.status, 200u);
  const nlohmann::json list = nlohmann::json::parse(events.body)["events"];
  ASSERT_EQ(list.size(), 1u) << events.body;
  EXPECT_EQ(list[0]["type"], "loss");
  EXPECT_EQ(list[0]["body"]["loss_reason"], 102);
  EXPECT_EQ(list[0]["body"]["min_to_win"], 2.1);
  EXPECT_EQ(list[0]["body"]["min_to_win_currency"], "USD");
}

TEST_F(BeaconEndpointTest, NoticeOlderThanTheAttributionWindowIsRefused) {
  const WonBid bid = Bid("req-old", kDeviceId);
  // The same notice, signed at a bid time past the window (one signed by us:
  // only its age is wrong).
  BeaconSigner signer(testing::kBeaconSecret);
  BeaconParams params;
  params.exchange = app_->config().server.exchanges[0].name;
  params.campaign_id = kNorthwind;
  params.creative_id = "nw-mrec-summer";
  params.bid_price_micros = std::llround(bid.price * 1e6);
  params.bid_currency = "USD";
  params.bid_time_ms = static_cast<int64_t>(::time(nullptr)) * 1000 -
                       (app_->config().bid.attribution_window_s + 60) * 1000;
  params.request_id = bid.request_id;
  params.imp_id = bid.imp_id;
  params.bid_id = bid.bid_id;
  const std::string base = absl::StrCat("http://127.0.0.1:", app_->port());
  for (BeaconKind kind : {BeaconKind::kBilling, BeaconKind::kWin, BeaconKind::kLoss}) {
    const std::string url =
        absl::StrReplaceAll(signer.Url(kind, base, params), {{"${AUCTION_ID}", bid.request_id},
                                                             {"${AUCTION_IMP_ID}", bid.imp_id},
                                                             {"${AUCTION_BID_ID}", bid.bid_id},
                                                             {"${AUCTION_PRICE}", "1"}});
    EXPECT_EQ(Send(GetRequest(Target(url))).status, 410u) << url;
  }
  EXPECT_TRUE(ImpressionRow(bid).empty());
  EXPECT_EQ(app_->pacer().spend().Pending(NorthwindIndex()), 0);
  EXPECT_EQ(app_->pacer().journal()->Pending(NorthwindIndex()), 0);
  const std::string metrics = Metrics();
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="billing",outcome="expired"} 1)"));
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="win",outcome="expired"} 1)"));
  // The current notice of the same bid still books.
  EXPECT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  EXPECT_FALSE(ImpressionRow(bid).empty());
}

// An exchange whose notices differ from the example's: which one bills, and
// encrypted prices. Each test boots its own bidder.
class ExchangeNoticeTest : public BeaconEndpointTest {
 protected:
  void SetUp() override {}

  void BootWith(config::BillingNotice notice, bool encrypted_prices = false) {
    Boot("exchange-notices", [&](config::BidderConfig& config) {
      config.server.exchanges[0].billing_notice = notice;
      if (encrypted_prices) {
        // The sample keys of Google's price decryption documentation.
        config.server.exchanges[0].price_encryption.encryption_key = kGoogleEncryptionKey;
        config.server.exchanges[0].price_encryption.integrity_key = kGoogleIntegrityKey;
      }
      // A pixel in the northwind markups, for the pixel-billed exchange.
      for (config::CampaignConfig& campaign : config.campaigns) {
        if (campaign.id != kNorthwind) continue;
        for (config::CreativeConfig& creative : campaign.creatives) {
          creative.adm += "<img src=\"${IMPRESSION_URL}\" width=\"1\" height=\"1\">";
        }
      }
    });
    operator_ = testing::LogIn(*connection_);
    ASSERT_EQ(operator_.status, 200);
  }

  static constexpr char kGoogleEncryptionKey[] = "skU7Ax_NL5pPAFyKdkfZjZz2-VhIN8bjj1rVFOaJ_5o=";
  static constexpr char kGoogleIntegrityKey[] = "arO23ykdNqUQ5LEoQ0FVmPkBd7xB5CO89PDZlSjpFxo=";
};

TEST_F(ExchangeNoticeTest, NurlBilledExchangeBooksOnTheWinNotice) {
  BootWith(config::BillingNotice::kNurl);
  const WonBid bid = Bid("req-nurl", kDeviceId);
  ASSERT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  EXPECT_TRUE(ImpressionRow(bid).empty()) << "a burl on a nurl-billed exchange books nothing";
  ASSERT_EQ(Send(GetRequest(bid.win)).status, 204u);
  ASSERT_EQ(Send(GetRequest(bid.win)).status, 204u);  // a retry
  const int64_t expected_spend = std::llround(bid.price * 0.8 * 1e6 / 1000);
  EXPECT_EQ(ImpressionRow(bid).Counter("i", "spend"), expected_spend);
  ASSERT_NE(app_->pacer().journal(), nullptr);
  EXPECT_EQ(app_->pacer().journal()->Pending(NorthwindIndex()), expected_spend);
  EXPECT_EQ(CapCount(kDeviceId), 1);
  const std::string metrics = Metrics();
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="billing",outcome="unbilled"} 1)"));
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="win",outcome="recorded"} 1)"));
  EXPECT_THAT(metrics, HasSubstr(R"(bidder_beacons_total{kind="win",outcome="duplicate"} 1)"));
}

TEST_F(ExchangeNoticeTest, PixelBilledExchangeBooksOnTheImpressionPixel) {
  BootWith(config::BillingNotice::kPixel);
  const WonBid bid = Bid("req-pixel", kDeviceId);
  ASSERT_FALSE(bid.pixel.empty());
  ASSERT_EQ(Send(GetRequest(bid.win)).status, 204u);
  ASSERT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  EXPECT_TRUE(ImpressionRow(bid).empty());
  const TestResponse pixel = Send(GetRequest(bid.pixel));
  ASSERT_EQ(pixel.status, 200u);
  EXPECT_EQ(pixel.Header("content-type"), "image/gif");
  // The pixel carries no price: the impression is booked at our bid.
  EXPECT_EQ(ImpressionRow(bid).Counter("i", "spend"), std::llround(bid.price * 1e6 / 1000));
  EXPECT_EQ(CapCount(kDeviceId), 1);
  EXPECT_THAT(Metrics(),
              HasSubstr(R"(bidder_beacons_total{kind="impression",outcome="recorded"} 1)"));
}

TEST_F(ExchangeNoticeTest, BurlBilledExchangeTakesThePixelAsAnEventOnly) {
  BootWith(config::BillingNotice::kBurl);
  const WonBid bid = Bid("req-burl", kDeviceId);
  ASSERT_EQ(Send(GetRequest(bid.pixel)).status, 200u);
  EXPECT_TRUE(ImpressionRow(bid).empty());
  EXPECT_EQ(CapCount(kDeviceId), 0);
  ASSERT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  EXPECT_FALSE(ImpressionRow(bid).empty());
  EXPECT_EQ(CapCount(kDeviceId), 1);
  EXPECT_THAT(Metrics(),
              HasSubstr(R"(bidder_beacons_total{kind="impression",outcome="unbilled"} 1)"));
}

TEST_F(ExchangeNoticeTest, EncryptedClearingPriceIsDecryptedAndABadOneRefused) {
  BootWith(config::BillingNotice::kBurl, /*encrypted_prices=*/true);
  absl::StatusOr<beacons::PriceDecrypter> keys =
      beacons::PriceDecrypter::Create(kGoogleEncryptionKey, kGoogleIntegrityKey);
  ASSERT_TRUE(keys.ok());
  // 1.9 CPM in micro-units, with an initialization vector of a timestamp's shape.
  const std::string iv("\x5c\xe9\x38\x00\x00\x0b\x38\x15\x00\x00\x00\x00\x00\x00\x00\x01", 16);
  const std::string encrypted = keys->EncryptMicros(1900000, iv);
  const WonBid bid = Bid("req-encrypted", kDeviceId, false, 0.8, encrypted);
  ASSERT_EQ(Send(GetRequest(bid.billing)).status, 204u);
  EXPECT_EQ(ImpressionRow(bid).Counter("i", "spend"), 1900);  // 1.9 CPM / 1000, micro-dollars

  // Tampered (one byte of the price changed) and plain prices do not decrypt:
  // refused, counted, and the impression booked at our bid price.
  std::string tampered = encrypted;
  tampered[22] = tampered[22] == 'A' ? 'B' : 'A';
  const WonBid second = Bid("req-tampered", kDeviceId, false, 0.8, tampered);
  ASSERT_EQ(Send(GetRequest(second.billing)).status, 204u);
  EXPECT_EQ(ImpressionRow(second).Counter("i", "spend"), std::llround(second.price * 1e6 / 1000));
  const WonBid third = Bid("req-plain", kDeviceId, false, 0.8, "1.5");
  ASSERT_EQ(Send(GetRequest(third.billing)).status, 204u);
  EXPECT_EQ(ImpressionRow(third).Counter("i", "spend"), std::llround(third.price * 1e6 / 1000));
  EXPECT_TRUE(absl::StrContains(Metrics(), R"(bidder_beacon_price_rejected_total{kind="billing",)"
                                           R"(reason="undecryptable"} 2)"));
}

}  // namespace
}  // namespace rtb::bidder
