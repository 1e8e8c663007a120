// The privacy decision end to end over HTTP: a whole BidderApp whose store
// records every call, bid requests with GDPR, US Privacy, GPP and DSA
// signals, and the beacons of the bids fired back as an exchange and a
// browser would. What the bidder read and wrote is read off the recording.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bidder/bid/device_key.h"
#include "bidder/bid/frequency_cap.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "storage/key_bytes.h"
#include "storage/schemas.h"
#include "tests/bidder/bidder_app_fixture.h"
#include "tests/bidder/decision_fixtures.h"
#include "tests/bidder/events/metric_value.h"
#include "tests/bidder/http_test_client.h"
#include "tests/bidder/privacy/privacy_encoder.h"
#include "tests/bidder/recording_store.h"

namespace rtb::bidder {
namespace {

using events::testing::CounterValue;
using testing::FixtureRequest;
using testing::GetRequest;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::PostRequest;
using testing::RecordingStore;
using testing::TestResponse;

constexpr char kDeviceId[] = "7c1e5a2b-9d3f-4b6a-8e0c-2f4d6b8a0c1e";
constexpr char kNorthwind[] = "northwind-travel-display";
constexpr char kLitware[] = "litware-retargeting";
constexpr char kLatitude[] = "53.5511";

// The bid of one impression with its beacon URLs as the exchange and the
// browser call them (macros substituted, paths relative to the bidder).
struct Bid {
  std::string campaign;
  std::string nurl, burl, lurl, click;
  nlohmann::json json;
};

class PrivacyEndpointTest : public testing::BidderAppTest {
 protected:
  void SetUp() override { BootRecording(nullptr); }

  // A bidder on a recording store, with the device's profile.
  void BootRecording(const std::function<void(config::BidderConfig&)>& change) {
    Boot("privacy-endpoint", change, [this](std::unique_ptr<storage::Store> inner) {
      auto store = std::make_unique<RecordingStore>(std::move(inner));
      recorder_ = store.get();
      return std::unique_ptr<storage::Store>(std::move(store));
    });
    device_key_ =
        std::string(DeviceKeyHasher(app_->config().bid.device_key_secret).Hash(kDeviceId).bytes());
    // The device's profile: the retargeting segment (litware outbids
    // northwind when it is read) and some of today's counters.
    storage::Put put;
    put.row = device_key_;
    put.values.push_back(
        {std::string(storage::kProfileSegmentFamily), "cart-abandoner-30d", "\x64", std::nullopt});
    ASSERT_TRUE(app_->store().Put(storage::kProfilesTable, put).ok());
    recorder_->Clear();
  }

  // The banner sample from a device in Germany (precise position included),
  // with `regs` and `user.consent` as given.
  nlohmann::json Request(std::string_view id, const nlohmann::json& regs,
                         std::string_view consent = "") {
    nlohmann::json request = nlohmann::json::parse(FixtureRequest("site-banner-mrec.json"));
    request["id"] = id;
    request["device"]["ifa"] = kDeviceId;
    request["device"]["geo"] = {{"country", "DEU"}, {"lat", 53.5511}, {"lon", 9.9937}, {"type", 1}};
    if (!regs.is_null()) request["regs"] = regs;
    if (!consent.empty()) request["user"]["consent"] = consent;
    return request;
  }

  TestResponse Post(const nlohmann::json& request) {
    return Send(PostRequest(app_->config().server.exchanges[0].bid_path, request.dump()));
  }

  // Posts `request`, expects a bid, and returns its first.
  Bid BidOn(const nlohmann::json& request) {
    const TestResponse response = Post(request);
    EXPECT_EQ(response.status, 200u) << response.body;
    if (response.status != 200) return {};
    const nlohmann::json json = nlohmann::json::parse(response.body)["seatbid"][0]["bid"][0];
    const std::string request_id = request["id"];
    const std::string imp_id = json["impid"];
    const std::string bid_id = json["id"];
    const std::string price = absl::StrCat(json["price"].get<double>());
    const std::string origin = absl::StrCat("http://127.0.0.1:", app_->port());
    auto fill = [&](std::string url) {
      url = absl::StrReplaceAll(url, {{"${AUCTION_ID}", request_id},
                                      {"${AUCTION_IMP_ID}", imp_id},
                                      {"${AUCTION_BID_ID}", bid_id},
                                      {"${AUCTION_PRICE}", price},
                                      {"${AUCTION_CURRENCY}", "USD"},
                                      {"${AUCTION_LOSS}", "102"}});
      EXPECT_TRUE(url.starts_with(origin)) << url;
      return url.substr(origin.size());
    };
    Bid bid;
    bid.json = json;
    bid.campaign = json["cid"];
    bid.nurl = fill(json["nurl"]);
    bid.burl = fill(json["burl"]);
    bid.lurl = fill(json["lurl"]);
    const std::string adm = json.value("adm", "");
    const size_t href = adm.find("href=\"");
    if (href != std::string::npos) {
      bid.click = fill(adm.substr(href + 6, adm.find('"', href + 6) - href - 6));
    }
    return bid;
  }

  // Win, billing (twice: a replay), click.
  void FireBeacons(const Bid& bid) {
    EXPECT_EQ(Send(GetRequest(bid.nurl)).status, 204u);
    EXPECT_EQ(Send(GetRequest(bid.burl)).status, 204u);
    EXPECT_EQ(Send(GetRequest(bid.burl)).status, 204u);
    ASSERT_FALSE(bid.click.empty());
    const TestResponse click = Send(GetRequest(bid.click));
    EXPECT_EQ(click.status, 302u);
    click_location_ = click.Header("location");
  }

  // Calls on `table` (all tables when empty) matching `op` (all when empty).
  std::vector<RecordingStore::Call> Calls(std::string_view table, std::string_view op = "") const {
    std::vector<RecordingStore::Call> out;
    for (RecordingStore::Call& call : recorder_->calls()) {
      if ((table.empty() || call.table == table) && (op.empty() || call.op == op)) {
        out.push_back(std::move(call));
      }
    }
    return out;
  }

  // Every call that names the device: by its row key, or by its key (raw or
  // hex) inside a row key or a written value.
  std::vector<RecordingStore::Call> CallsNamingTheDevice() const {
    const std::string hex =
        DeviceKeyHasher(app_->config().bid.device_key_secret).Hash(kDeviceId).Hex();
    std::vector<RecordingStore::Call> out;
    for (const RecordingStore::Call& call : recorder_->calls()) {
      bool names = call.row.find(device_key_) != std::string::npos ||
                   call.row.find(hex) != std::string::npos;
      for (const std::string& value : call.values) {
        names = names || value.find(device_key_) != std::string::npos ||
                value.find(hex) != std::string::npos;
      }
      if (names) out.push_back(call);
    }
    return out;
  }

  // The cap-only key of the device's count of `campaign` today, and that
  // count's column.
  std::pair<std::string, std::string> CapKeyToday(std::string_view campaign) const {
    const auto& campaigns = app_->config().campaigns;
    auto it = std::find_if(campaigns.begin(), campaigns.end(),
                           [&](const config::CampaignConfig& c) { return c.id == campaign; });
    absl::TimeZone zone;
    EXPECT_TRUE(it != campaigns.end() && absl::LoadTimeZone(it->time_zone, &zone));
    const std::string column = FrequencyCapQualifier(campaign, absl::Now(), zone);
    const DeviceKeyHasher hasher(app_->config().bid.device_key_secret);
    return {std::string(hasher.FrequencyCapKey(hasher.Hash(kDeviceId), column).bytes()), column};
  }

  // The count stored under `key`'s `column` (0 when absent).
  int64_t StoredCount(const std::string& key, const std::string& column) {
    storage::Get get;
    get.row = key;
    absl::StatusOr<storage::RowResult> row = app_->store().Get(storage::kProfilesTable, get);
    EXPECT_TRUE(row.ok());
    return row.ok() ? row->Counter(storage::kProfileFrequencyCapFamily, column).value_or(0) : 0;
  }

  nlohmann::json UsOptOut(std::string_view id) {
    nlohmann::json request = Request(id, {{"us_privacy", "1YYN"}});
    request["device"]["geo"]["country"] = "USA";
    return request;
  }

  double Metric(const std::string& name, const std::map<std::string, std::string>& labels) {
    return CounterValue(app_->registry(), name, labels);
  }
  double Decisions(std::string_view regime, std::string_view outcome) {
    return Metric("bidder_privacy_decisions_total",
                  {{"regime", std::string(regime)}, {"outcome", std::string(outcome)}});
  }
  double Requests(std::string_view outcome) {
    return Metric(
        "bidder_bid_requests_total",
        {{"exchange", app_->config().server.exchanges[0].name}, {"outcome", std::string(outcome)}});
  }

  // A TC string with consent to `purposes`, special feature 1 and, unless
  // told otherwise, consent for the configured vendor.
  std::string TcString(std::vector<int> purposes, bool our_vendor = true) const {
    privacy::testing::TcFields fields;
    fields.purpose_consents = std::move(purposes);
    fields.special_features = {1};
    fields.vendor_consents.ids = {7, 300};
    if (our_vendor) fields.vendor_consents.ids.push_back(app_->config().privacy.gvl_vendor_id);
    return privacy::testing::EncodeTcString(fields);
  }

  RecordingStore* recorder_ = nullptr;
  std::string device_key_;
  std::string click_location_;
};

const nlohmann::json kGdpr = {{"gdpr", 1}};

TEST_F(PrivacyEndpointTest, GdprWithoutDeviceAccessReadsAndWritesNoDeviceRow) {
  // Purpose 2 (basic ads) but not purpose 1 (device access): a contextual bid.
  const Bid bid = BidOn(Request("gdpr-no-p1", kGdpr, TcString({2})));
  // The profile was not read: litware, whose segment the profile holds, did
  // not bid.
  EXPECT_EQ(bid.campaign, kNorthwind);
  for (const std::string* url : {&bid.nurl, &bid.burl, &bid.lurl, &bid.click}) {
    EXPECT_THAT(*url, Not(HasSubstr("dk="))) << *url;
    // No frequency-cap count and no measurement for the beacons either.
    EXPECT_THAT(*url, HasSubstr("&pf=3&")) << *url;
  }
  FireBeacons(bid);
  EXPECT_EQ(Send(GetRequest(bid.lurl)).status, 204u);

  EXPECT_TRUE(Calls(storage::kProfilesTable).empty());
  EXPECT_TRUE(Calls(storage::kDeviceImpressionsTable).empty());
  EXPECT_TRUE(CallsNamingTheDevice().empty());
  // No events without measurement; the impression row and spend are kept.
  EXPECT_TRUE(Calls(storage::kEventsTable, "Put").empty());
  EXPECT_TRUE(Calls(storage::kEventsTable, "PutBatch").empty());
  // The billing notice claims the row; its replay finds it.
  EXPECT_EQ(Calls(storage::kImpressionsTable, "CheckAndMutate").size(), 1u);
  EXPECT_EQ(click_location_, "https://www.northwind-travel.example/deals/summer");
  // Nothing stored holds the precise position.
  for (const RecordingStore::Call& call : recorder_->calls()) {
    for (const std::string& value : call.values) EXPECT_THAT(value, Not(HasSubstr(kLatitude)));
  }

  EXPECT_EQ(Decisions("gdpr", "contextual"), 1);
  EXPECT_EQ(Requests("bid"), 1);
  EXPECT_EQ(Metric("bidder_beacons_total", {{"kind", "win"}, {"outcome", "not_measured"}}), 1);
  EXPECT_EQ(Metric("bidder_beacons_total", {{"kind", "click"}, {"outcome", "not_measured"}}), 1);
  EXPECT_EQ(Metric("bidder_beacons_total", {{"kind", "billing"}, {"outcome", "recorded"}}), 1);
  EXPECT_EQ(Metric("bidder_wins_total", {{"exchange", app_->config().server.exchanges[0].name},
                                         {"campaign", kNorthwind}}),
            1);
}

TEST_F(PrivacyEndpointTest, GdprWithConsentBehavesAsWithoutSignals) {
  // The same request twice: without any privacy signal (outside the EEA),
  // and with GDPR and a TC string that consents to everything.
  nlohmann::json plain = Request("no-signals", nullptr);
  plain["device"]["geo"]["country"] = "USA";
  const Bid without = BidOn(plain);
  FireBeacons(without);
  const std::vector<RecordingStore::Call> before = recorder_->calls();
  recorder_->Clear();
  const Bid with = BidOn(Request("gdpr-consent", kGdpr, TcString({1, 2, 3, 4, 7, 9})));
  FireBeacons(with);
  const std::vector<RecordingStore::Call> after = recorder_->calls();

  // The profile was read and used: litware's segment made it win.
  EXPECT_EQ(without.campaign, kLitware);
  EXPECT_EQ(with.campaign, kLitware);
  EXPECT_THAT(with.nurl, HasSubstr("dk="));
  EXPECT_THAT(with.nurl, Not(HasSubstr("pf=")));
  // The same store calls on the device's tables, in the same order.
  auto device_calls = [](const std::vector<RecordingStore::Call>& calls) {
    std::vector<std::string> out;
    for (const RecordingStore::Call& call : calls) {
      if (call.table == storage::kProfilesTable || call.table == storage::kDeviceImpressionsTable ||
          call.table == storage::kImpressionsTable || call.table == storage::kEventsTable) {
        out.push_back(absl::StrCat(call.op, " ", call.table, " ", call.families.size()));
      }
    }
    return out;
  };
  EXPECT_EQ(device_calls(after), device_calls(before));
  EXPECT_THAT(device_calls(after),
              ::testing::IsSupersetOf({"AsyncGet profiles 2", "Put device_impressions 1",
                                       // the cap count and the impression's marker (pacing/pacer.h)
                                       "Increment profiles 2"}));
  EXPECT_FALSE(CallsNamingTheDevice().empty());
  EXPECT_THAT(click_location_, HasSubstr("rtb_click="));
  EXPECT_EQ(Decisions("none", "not_applicable"), 1);
  EXPECT_EQ(Decisions("gdpr", "personalized"), 1);
}

TEST_F(PrivacyEndpointTest, GdprWithoutSegmentPurposesReadsOnlyFrequencyCaps) {
  // Purposes 1, 2, 7, 9: device access, but no segment targeting (3, 4).
  const Bid bid = BidOn(Request("gdpr-no-segments", kGdpr, TcString({1, 2, 7, 9})));
  EXPECT_EQ(bid.campaign, kNorthwind);  // the segment was not read
  EXPECT_THAT(bid.nurl, HasSubstr("dk="));
  EXPECT_THAT(bid.nurl, Not(HasSubstr("pf=")));
  const std::vector<RecordingStore::Call> gets = Calls(storage::kProfilesTable, "AsyncGet");
  ASSERT_EQ(gets.size(), 1u);
  EXPECT_EQ(gets[0].families,
            std::vector<std::string>{std::string(storage::kProfileFrequencyCapFamily)});
  FireBeacons(bid);
  EXPECT_EQ(Calls(storage::kProfilesTable, "Increment").size(), 1u);
  EXPECT_EQ(Calls(storage::kDeviceImpressionsTable, "Put").size(), 1u);
  EXPECT_EQ(Decisions("gdpr", "restricted"), 1);
}

TEST_F(PrivacyEndpointTest, GdprWithoutBasicAdsOrOurVendorGetsNoBid) {
  const struct {
    const char* id;
    std::string consent;
    const char* outcome;
  } cases[] = {
      {"no-p2", TcString({1, 3, 4, 7, 9}), "no_basic_ads"},
      {"no-vendor", TcString({1, 2, 3, 4, 7, 9}, /*our_vendor=*/false), "no_basic_ads"},
      {"no-string", "", "missing_consent"},
      {"garbage", "not a TC string", "malformed"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.id);
    const TestResponse response = Post(Request(c.id, kGdpr, c.consent));
    EXPECT_EQ(response.status, 204u) << response.body;
    EXPECT_GE(Decisions("gdpr", c.outcome), 1);
  }
  EXPECT_EQ(Decisions("gdpr", "no_basic_ads"), 2);
  EXPECT_EQ(Decisions("gdpr", "missing_consent"), 1);
  EXPECT_EQ(Decisions("gdpr", "malformed"), 1);
  EXPECT_EQ(Requests("nobid_privacy"), 4);
  EXPECT_TRUE(Calls(storage::kProfilesTable).empty());
  EXPECT_TRUE(CallsNamingTheDevice().empty());

  // The reason of each privacy no-bid, as a scrape of the metrics endpoint
  // shows it; a request refused for another reason first is not one.
  nlohmann::json nobody = Request("gdpr-no-candidates", kGdpr);
  nobody["imp"][0]["banner"]["format"] = {{{"w", 1}, {"h", 1}}};
  nobody["imp"][0]["banner"].erase("w");
  nobody["imp"][0]["banner"].erase("h");
  EXPECT_EQ(Post(nobody).status, 204u);
  EXPECT_EQ(Requests("nobid_no_candidates"), 1);
  const TestResponse scrape = Send(GetRequest(app_->config().metrics.path));
  ASSERT_EQ(scrape.status, 200u);
  for (const char* line : {
           "bidder_privacy_nobids_total{outcome=\"no_basic_ads\",regime=\"gdpr\"} 2\n",
           "bidder_privacy_nobids_total{outcome=\"missing_consent\",regime=\"gdpr\"} 1\n",
           "bidder_privacy_nobids_total{outcome=\"malformed\",regime=\"gdpr\"} 1\n",
           "bidder_privacy_nobids_total{outcome=\"outdated_policy\",regime=\"gdpr\"} 0\n",
           "bidder_privacy_nobids_total{outcome=\"malformed\",regime=\"us\"} 0\n",
       }) {
    EXPECT_THAT(scrape.body, HasSubstr(line));
  }
  // Only the outcomes that refuse a bid have series: 3 regimes x 4.
  EXPECT_THAT(scrape.body, Not(HasSubstr("bidder_privacy_nobids_total{outcome=\"opted_out\"")));
  size_t series = 0;
  for (size_t at = scrape.body.find("\nbidder_privacy_nobids_total{"); at != std::string::npos;
       at = scrape.body.find("\nbidder_privacy_nobids_total{", at + 1)) {
    ++series;
  }
  EXPECT_EQ(series, 12u);
  // Every decision is still counted once, the one without candidates too.
  EXPECT_EQ(Decisions("gdpr", "missing_consent"), 2);
}

TEST_F(PrivacyEndpointTest, UsPrivacyAndGppOptOutsGetAContextualBid) {
  nlohmann::json usp = Request("usp-opt-out", {{"us_privacy", "1YYN"}});
  usp["device"]["geo"]["country"] = "USA";
  nlohmann::json gpp = nlohmann::json::parse(FixtureRequest("regs-gpp-usnat-opt-out.json"));
  gpp["device"]["ifa"] = kDeviceId;
  for (const nlohmann::json& request : {usp, gpp}) {
    SCOPED_TRACE(request["id"].get<std::string>());
    const Bid bid = BidOn(request);
    EXPECT_EQ(bid.campaign, kNorthwind);  // no segments
    EXPECT_THAT(bid.nurl, Not(HasSubstr("dk=")));
    FireBeacons(bid);
    // Measurement stays allowed; northwind's cap is counted under its
    // cap-only key (pf bit 4), never under the device.
    EXPECT_THAT(bid.nurl, HasSubstr("&pf=4&fk="));
    EXPECT_THAT(click_location_, HasSubstr("rtb_click="));
  }
  // Only cap counts were read and written: `fc` columns of rows that are
  // not the device's.
  for (const RecordingStore::Call& call : Calls(storage::kProfilesTable)) {
    EXPECT_NE(call.row, device_key_);
    for (const std::string& family : call.families) {
      EXPECT_EQ(family, storage::kProfileFrequencyCapFamily) << call.op;
    }
  }
  EXPECT_EQ(Calls(storage::kProfilesTable, "Increment").size(), 2u);
  EXPECT_TRUE(Calls(storage::kDeviceImpressionsTable).empty());
  EXPECT_TRUE(CallsNamingTheDevice().empty());
  EXPECT_FALSE(Calls(storage::kEventsTable).empty());
  EXPECT_EQ(Decisions("us", "opted_out"), 2);
  EXPECT_EQ(Requests("bid"), 2);
}

TEST_F(PrivacyEndpointTest, GppSidDecidesWhichSectionsCount) {
  // A Texas section (16) with a sale opt-out: contextual, as US National.
  privacy::testing::UsFields texas;
  texas.processing_notice = 1;
  texas.sale_opt_out_notice = 1;
  texas.targeted_advertising_opt_out_notice = 1;
  texas.sale_opt_out = 1;
  texas.targeted_advertising_opt_out = 2;
  const std::string opted_out = privacy::testing::EncodeUsSection(16, texas);
  texas.sale_opt_out = 2;
  const std::string not_opted_out = privacy::testing::EncodeUsSection(16, texas);
  auto us_request = [&](std::string_view id, const std::string& gpp, std::vector<int> sid) {
    nlohmann::json request = Request(id, {{"gpp", gpp}, {"gpp_sid", sid}});
    request["device"]["geo"] = {{"country", "USA"}};
    return request;
  };
  const Bid contextual =
      BidOn(us_request("ustx-opt-out", privacy::testing::EncodeGppString({{16, opted_out}}), {16}));
  EXPECT_EQ(contextual.campaign, kNorthwind);  // no segments
  EXPECT_THAT(contextual.nurl, Not(HasSubstr("dk=")));
  EXPECT_EQ(Decisions("us", "opted_out"), 1);
  EXPECT_TRUE(CallsNamingTheDevice().empty());  // cap counts only, under cap-only keys

  // A broken TCF section (2) that gpp_sid does not list spoils nothing: the
  // Texas section without an opt-out gives a personalised bid, and the broken
  // section is counted as ignored.
  const std::string ignored_label = "unused_malformed_gpp";
  auto ignored = [&] {
    return Metric("bidder_bid_requests_ignored_total",
                  {{"exchange", app_->config().server.exchanges[0].name}, {"what", ignored_label}});
  };
  EXPECT_EQ(ignored(), 0);
  const Bid personalized = BidOn(us_request(
      "ustx-broken-tcf",
      privacy::testing::EncodeGppString({{2, "not-a-tc-string"}, {16, not_opted_out}}), {16}));
  EXPECT_EQ(personalized.campaign, kLitware);  // the profile's segment was read
  EXPECT_THAT(personalized.nurl, HasSubstr("dk="));
  EXPECT_EQ(Decisions("us", "personalized"), 1);
  EXPECT_EQ(Decisions("us", "malformed"), 0);
  EXPECT_EQ(ignored(), 1);
}

// A US opt-out still counts frequency caps (us_opt_out_counts_frequency_caps,
// the default): each capped candidate's count of today is read under its
// cap-only key, the capped bid's beacon URLs carry that key and nothing else
// naming the device, and its billing notice increments it.
TEST_F(PrivacyEndpointTest, UsOptOutCountsFrequencyCapsUnderCapOnlyKeys) {
  const auto [northwind_key, northwind_column] = CapKeyToday(kNorthwind);
  const Bid bid = BidOn(UsOptOut("usp-caps-1"));
  EXPECT_EQ(bid.campaign, kNorthwind);
  const std::string fk = absl::StrCat("&fk=", storage::Hex(northwind_key), "&");
  for (const std::string* url : {&bid.nurl, &bid.burl, &bid.lurl, &bid.click}) {
    EXPECT_THAT(*url, HasSubstr("&pf=4" + fk)) << *url;
    EXPECT_THAT(*url, Not(HasSubstr("dk="))) << *url;
  }
  // The reads: one Get of one `fc` column per capped candidate, northwind's
  // among them; no row of the device, no segment, no history.
  const std::vector<RecordingStore::Call> reads = Calls(storage::kProfilesTable, "AsyncGet");
  ASSERT_FALSE(reads.empty());
  bool northwind_read = false;
  for (const RecordingStore::Call& read : reads) {
    EXPECT_EQ(read.families,
              std::vector<std::string>{std::string(storage::kProfileFrequencyCapFamily)});
    northwind_read = northwind_read || read.row == northwind_key;
  }
  EXPECT_TRUE(northwind_read);
  // Nothing else of a device: no other profiles call, no history.
  EXPECT_EQ(Calls(storage::kProfilesTable).size(), reads.size());
  EXPECT_TRUE(Calls(storage::kEventRollupsTable).empty());
  EXPECT_TRUE(CallsNamingTheDevice().empty());

  recorder_->Clear();
  FireBeacons(bid);
  // The billing notice counted once (its replay is a duplicate), under the
  // cap-only key: the count and the impression's marker.
  const std::vector<RecordingStore::Call> increments = Calls(storage::kProfilesTable, "Increment");
  ASSERT_EQ(increments.size(), 1u);
  EXPECT_EQ(increments[0].row, northwind_key);
  EXPECT_EQ(increments[0].values[0], northwind_column);
  EXPECT_EQ(Calls(storage::kProfilesTable).size(), 1u);
  EXPECT_EQ(StoredCount(northwind_key, northwind_column), 1);
  EXPECT_TRUE(Calls(storage::kDeviceImpressionsTable).empty());
  EXPECT_TRUE(CallsNamingTheDevice().empty());
  // The impression row names no device.
  for (const RecordingStore::Call& call : Calls(storage::kImpressionsTable, "CheckAndMutate")) {
    for (const std::string& value : call.values) EXPECT_NE(value, storage::Hex(northwind_key));
  }

  // The next opt-out request reads the count it left.
  recorder_->Clear();
  EXPECT_EQ(BidOn(UsOptOut("usp-caps-2")).campaign, kNorthwind);
  EXPECT_EQ(Decisions("us", "opted_out"), 2);
}

TEST_F(PrivacyEndpointTest, UsOptOutDeviceAtItsCapGetsNoBidFromTheCappedCampaign) {
  const auto [northwind_key, northwind_column] = CapKeyToday(kNorthwind);
  // Northwind's cap is 12 a day: the device has had them under the key.
  storage::Put put;
  put.row = northwind_key;
  put.values.push_back({std::string(storage::kProfileFrequencyCapFamily), northwind_column,
                        storage::EncodeCounter(12), std::nullopt});
  ASSERT_TRUE(app_->store().Put(storage::kProfilesTable, put).ok());
  // Northwind was the only campaign that could bid (litware needs its
  // segment): no bid, and the cap is the reason.
  const TestResponse response = Post(UsOptOut("usp-capped"));
  EXPECT_EQ(response.status, 204u) << response.body;
  EXPECT_EQ(Requests("nobid_frequency_cap"), 1);
  // The same device without the opt-out is counted under its profile row,
  // where it has no count: the two never mix.
  nlohmann::json plain = Request("no-signals", nullptr);
  plain["device"]["geo"]["country"] = "USA";
  EXPECT_EQ(Post(plain).status, 200u);
}

// With us_opt_out_counts_frequency_caps off an opt-out reads and writes no
// cap at all.
TEST_F(PrivacyEndpointTest, UsOptOutWithCapsSwitchedOffReadsAndCountsNothing) {
  Stop();
  BootRecording([](config::BidderConfig& config) {
    config.privacy.us_opt_out_counts_frequency_caps = false;
  });
  const Bid bid = BidOn(UsOptOut("usp-no-caps"));
  EXPECT_EQ(bid.campaign, kNorthwind);
  EXPECT_THAT(bid.nurl, HasSubstr("&pf=1&"));
  EXPECT_THAT(bid.nurl, Not(HasSubstr("fk=")));
  EXPECT_THAT(bid.nurl, Not(HasSubstr("dk=")));
  FireBeacons(bid);
  EXPECT_TRUE(Calls(storage::kProfilesTable).empty());
  EXPECT_TRUE(Calls(storage::kDeviceImpressionsTable).empty());
  EXPECT_TRUE(CallsNamingTheDevice().empty());
  EXPECT_EQ(Metric("bidder_beacons_total", {{"kind", "billing"}, {"outcome", "recorded"}}), 1);
}

TEST_F(PrivacyEndpointTest, DsaRequiredWithoutACampaignDsaBlockIsNoBidFromThatCampaign) {
  // Only fabrikam, which has no dsa block, fits this request.
  TestResponse response =
      Post(nlohmann::json::parse(FixtureRequest("regs-dsa-required-without-campaign-dsa.json")));
  EXPECT_EQ(response.status, 204u) << response.body;
  EXPECT_EQ(Requests("nobid_dsa"), 1);
  // The same request without the DSA signal gets fabrikam's bid.
  nlohmann::json without =
      nlohmann::json::parse(FixtureRequest("regs-dsa-required-without-campaign-dsa.json"));
  without["regs"].erase("ext");
  const Bid fabrikam = BidOn(without);
  EXPECT_EQ(fabrikam.campaign, "fabrikam-mobile-apps");
  // (A 2.5 answer may still carry the 2.6-only members in ext.)
  EXPECT_FALSE(fabrikam.json.contains("ext") && fabrikam.json["ext"].contains("dsa"));

  // Campaigns with a dsa block bid and say who paid.
  response = Post(nlohmann::json::parse(FixtureRequest("regs-dsa-required.json")));
  ASSERT_EQ(response.status, 200u) << response.body;
  const nlohmann::json answer = nlohmann::json::parse(response.body);
  ASSERT_EQ(answer["seatbid"][0]["bid"].size(), 2u);
  for (const nlohmann::json& bid : answer["seatbid"][0]["bid"]) {
    ASSERT_TRUE(bid.contains("ext")) << bid.dump();
    EXPECT_FALSE(bid["ext"]["dsa"]["behalf"].get<std::string>().empty());
    EXPECT_FALSE(bid["ext"]["dsa"]["paid"].get<std::string>().empty());
  }

  // The DSA decisions, counted: the skipped campaign of the first request,
  // the bid without a signal, the two that supplied ext.dsa.
  auto dsa = [&](const char* outcome) {
    return Metric("bidder_dsa_decisions_total", {{"outcome", outcome}});
  };
  EXPECT_GE(dsa("required_missing_campaign_skipped"), 1);
  EXPECT_EQ(dsa("not_required"), 1);
  EXPECT_EQ(dsa("required_and_supplied"), 2);
  EXPECT_EQ(dsa("supported_and_supplied"), 0);
  EXPECT_EQ(dsa("supported_not_supplied"), 0);
  // dsarequired 1 (supported): a campaign that cannot supply it still bids.
  nlohmann::json supported =
      nlohmann::json::parse(FixtureRequest("regs-dsa-required-without-campaign-dsa.json"));
  supported["regs"]["ext"]["dsa"]["dsarequired"] = 1;
  EXPECT_EQ(BidOn(supported).campaign, "fabrikam-mobile-apps");
  EXPECT_EQ(dsa("supported_not_supplied"), 1);
  const TestResponse scrape = Send(GetRequest(app_->config().metrics.path));
  EXPECT_THAT(scrape.body,
              HasSubstr("bidder_dsa_decisions_total{outcome=\"required_and_supplied\"} 2\n"));
}

}  // namespace
}  // namespace rtb::bidder
