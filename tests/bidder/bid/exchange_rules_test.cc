// What exchanges set for a bid, field by field. Each table starts from a
// request that bids, changes one field, and expects the answer the rule
// gives: a no-bid with its reason (as bidder_bid_requests_total{outcome}
// names it) or still a bid. Then what every answer carries (mtype in 2.5
// and 2.6, dur, protocol, attr, adid, iurl, language, cat and cattax), the
// native markup, pods, and the fields that are ignored and counted rather
// than refused.
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "config/config.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/bidder/bid_handler_harness.h"

namespace rtb::bidder {
namespace {

using testing::HandlerHarness;

// One campaign per media type, each with one creative carrying every
// property a request field is checked against.
constexpr char kRulesCampaigns[] = R"json([
  {"id": "rules-banner", "advertiser_domains": ["northwind-travel.example"],
   "iab_categories": ["IAB20"], "daily_budget_micros": 900000000, "currency": "USD",
   "pacing_mode": "asap", "time_zone": "UTC", "frequency_cap_per_day": 0, "max_bid_cpm": 2.0,
   "targeting": {"rewarded": "never"},
   "creatives": [
     {"id": "rules-mrec", "format": "banner", "w": 300, "h": 250,
      "adm": "<a href=\"${CLICK_URL}\"><img src=\"https://cdn.northwind-travel.example/m.png\"></a>",
      "landing_url": "https://www.northwind-travel.example/", "iab_categories": ["IAB20-18"],
      "attr": [3], "api": [5], "language": "en", "adid": "nw-ad-7",
      "iurl": "https://cdn.northwind-travel.example/m.png"}]},
  {"id": "rules-video", "advertiser_domains": ["tailspin-toys.example"],
   "iab_categories": ["IAB9"], "daily_budget_micros": 900000000, "currency": "USD",
   "pacing_mode": "asap", "time_zone": "UTC", "frequency_cap_per_day": 0, "max_bid_cpm": 5.0,
   "creatives": [
     {"id": "rules-preroll", "format": "video", "w": 640, "h": 360, "mimes": ["video/mp4"],
      "duration_s": 15,
      "adm": "<VAST version=\"3.0\"><Ad id=\"p\"><InLine><AdSystem>rtb-bidder</AdSystem><AdTitle>T</AdTitle><Creatives><Creative><Linear><Duration>00:00:15</Duration><VideoClicks><ClickThrough><![CDATA[${CLICK_URL}]]></ClickThrough></VideoClicks><MediaFiles><MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"640\" height=\"360\"><![CDATA[https://cdn.tailspin-toys.example/p.mp4]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>",
      "landing_url": "https://www.tailspin-toys.example/", "iab_categories": ["IAB9-5"],
      "attr": [2], "skippable": false, "start_slots": ["pre"], "placements": [1],
      "bitrate_kbps": 1500}]},
  {"id": "rules-audio", "advertiser_domains": ["fourth-coffee.example"],
   "iab_categories": ["IAB8"], "daily_budget_micros": 900000000, "currency": "USD",
   "pacing_mode": "asap", "time_zone": "UTC", "frequency_cap_per_day": 0, "max_bid_cpm": 3.0,
   "creatives": [
     {"id": "rules-spot", "format": "audio", "mimes": ["audio/mpeg"], "duration_s": 30,
      "adm": "<DAAST version=\"1.0\"><Ad id=\"a\"><InLine><AdSystem>rtb-bidder</AdSystem><AdTitle>C</AdTitle><Creatives><Creative><Linear><Duration>00:00:30</Duration><MediaFiles><MediaFile delivery=\"progressive\" type=\"audio/mpeg\"><![CDATA[https://cdn.fourth-coffee.example/s.mp3]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></DAAST>",
      "landing_url": "https://www.fourth-coffee.example/", "iab_categories": ["IAB8-5"]}]},
  {"id": "rules-native", "advertiser_domains": ["litware.example"],
   "iab_categories": ["IAB22"], "daily_budget_micros": 900000000, "currency": "USD",
   "pacing_mode": "asap", "time_zone": "UTC", "frequency_cap_per_day": 0, "max_bid_cpm": 3.2,
   "creatives": [
     {"id": "rules-card", "format": "native",
      "native": {"title": "Still thinking it over?",
                 "images": [{"type": 3, "url": "https://cdn.litware.example/main.png",
                             "w": 1200, "h": 627, "mime": "image/png"}],
                 "data": [{"type": 2, "value": "The items in your cart are waiting."}]},
      "landing_url": "https://www.litware.example/cart", "iab_categories": ["IAB22-4"]}]}
])json";

// The example configuration with `campaigns` (by default those above) and an
// exchange that speaks 2.6.
config::BidderConfig RulesConfig(
    nlohmann::json campaigns = nlohmann::json::parse(kRulesCampaigns)) {
  setenv("RTB_DEVICE_KEY_SECRET", testing::kDeviceKeySecret.c_str(), 1);
  setenv("RTB_BEACON_SECRET", testing::kBeaconSecret.c_str(), 1);
  nlohmann::json doc = nlohmann::json::parse(
      testing::ReadFile(std::string(RTB_CONFIG_DIR) + "/bidder.example.json"));
  doc["campaigns"] = std::move(campaigns);
  doc["server"]["exchanges"][0]["openrtb_version"] = "2.6";
  absl::StatusOr<config::BidderConfig> config = config::ParseConfig(doc.dump());
  if (!config.ok()) {
    ADD_FAILURE() << config.status();
    return config::BidderConfig{};
  }
  return *std::move(config);
}

nlohmann::json SiteRequest(nlohmann::json imp) {
  imp["id"] = "1";
  imp["bidfloor"] = 0.05;
  imp["bidfloorcur"] = "USD";
  return {{"id", "rules-request"},
          {"at", 1},
          {"tmax", 150},
          {"cur", {"USD"}},
          {"imp", {imp}},
          {"site",
           {{"id", "s-1"},
            {"domain", "riverside-daily.example"},
            {"page", "https://riverside-daily.example/a"}}},
          {"device", {{"ua", "Mozilla/5.0"}, {"ip", "198.51.100.23"}, {"devicetype", 2}}},
          {"user", {{"id", "u-1"}}}};
}

nlohmann::json BannerRequest() {
  return SiteRequest({{"banner", {{"w", 300}, {"h", 250}, {"api", {5, 6}}}}});
}

nlohmann::json VideoRequest() {
  return SiteRequest({{"video",
                       {{"mimes", {"video/mp4"}},
                        {"w", 640},
                        {"h", 360},
                        {"minduration", 5},
                        {"maxduration", 30},
                        {"protocols", {2, 3, 7}},
                        {"plcmt", 1},
                        {"linearity", 1},
                        {"startdelay", 0},
                        {"skip", 0}}}});
}

nlohmann::json AudioRequest() {
  return SiteRequest({{"audio",
                       {{"mimes", {"audio/mpeg"}},
                        {"minduration", 5},
                        {"maxduration", 60},
                        {"protocols", {9, 10}},
                        {"startdelay", 0}}}});
}

nlohmann::json NativeAssets() {
  return {{"ver", "1.2"},
          {"assets",
           {{{"id", 1}, {"required", 1}, {"title", {{"len", 90}}}},
            {{"id", 2}, {"required", 1}, {"img", {{"type", 3}, {"wmin", 600}, {"hmin", 300}}}},
            {{"id", 3}, {"required", 0}, {"data", {{"type", 2}, {"len", 140}}}}}},
          {"eventtrackers", {{{"event", 1}, {"methods", {1, 2}}}}}};
}

nlohmann::json NativeRequest(const nlohmann::json& assets = NativeAssets()) {
  return SiteRequest({{"native", {{"ver", "1.2"}, {"request", assets.dump()}}}});
}

// One change to a request and the outcome it must give.
struct Change {
  std::string field;
  std::function<void(nlohmann::json&)> apply;
  std::string outcome;
};

class ExchangeRulesTest : public ::testing::Test {
 protected:
  explicit ExchangeRulesTest(config::BidderConfig config = RulesConfig())
      : harness_(std::move(config)) {}

  // "bid" or the no-bid reason of `request`; the answer stays in last_.
  std::string OutcomeOf(const nlohmann::json& request, std::string_view version = "2.6") {
    std::vector<double> before;
    for (size_t i = 0; i < kBidOutcomeCount; ++i) {
      before.push_back(harness_.Requests(static_cast<BidOutcome>(i)));
    }
    last_ = harness_.Call(request.dump(), std::nullopt, version);
    std::string moved;
    for (size_t i = 0; i < kBidOutcomeCount; ++i) {
      const auto outcome = static_cast<BidOutcome>(i);
      if (harness_.Requests(outcome) != before[i]) moved = BidOutcomeName(outcome);
    }
    return moved;
  }

  void ExpectChanges(const nlohmann::json& base, const std::vector<Change>& changes) {
    ASSERT_EQ(OutcomeOf(base), "bid") << base.dump();
    for (const Change& change : changes) {
      nlohmann::json request = base;
      change.apply(request);
      EXPECT_EQ(OutcomeOf(request), change.outcome) << change.field << ": " << request.dump();
    }
  }

  double Ignored(bidder::Ignored what) { return harness_.metrics().ignored(0, what).Value(); }

  HandlerHarness harness_;
  testing::Answer last_;
};

// Shorthands: set a member of the first impression's media object, of the
// first impression, or of the request.
std::function<void(nlohmann::json&)> Media(const std::string& media, const std::string& key,
                                           nlohmann::json value) {
  return [=](nlohmann::json& r) { r["imp"][0][media][key] = value; };
}
std::function<void(nlohmann::json&)> Imp(const std::string& key, nlohmann::json value) {
  return [=](nlohmann::json& r) { r["imp"][0][key] = value; };
}
std::function<void(nlohmann::json&)> Top(const std::string& key, nlohmann::json value) {
  return [=](nlohmann::json& r) { r[key] = value; };
}
std::function<void(nlohmann::json&)> Both(std::function<void(nlohmann::json&)> a,
                                          std::function<void(nlohmann::json&)> b) {
  return [=](nlohmann::json& r) {
    a(r);
    b(r);
  };
}

TEST_F(ExchangeRulesTest, BannerFields) {
  ExpectChanges(
      BannerRequest(),
      {
          {"battr lists the creative's attribute", Media("banner", "battr", {1, 3}),
           "nobid_blocked"},
          {"battr lists others", Media("banner", "battr", {1, 4}), "bid"},
          {"api without the creative's MRAID 2.0", Media("banner", "api", {3, 6}),
           "nobid_creative"},
          {"no api: none supported", Media("banner", "api", nlohmann::json::array()),
           "nobid_creative"},
          {"bcat, Content 1.0 tier 1", Top("bcat", {"IAB20"}), "nobid_blocked"},
          {"bcat, Content 1.0 other", Top("bcat", {"IAB19"}), "bid"},
          {"bcat, Content 2.0 id of IAB20-18", Both(Top("cattax", 2), Top("bcat", {"668"})),
           "nobid_blocked"},
          {"bcat, Content 2.0 parent", Both(Top("cattax", 2), Top("bcat", {"664"})),
           "nobid_blocked"},
          {"bcat, a 1.0 code in 2.0", Both(Top("cattax", 2), Top("bcat", {"IAB20"})), "bid"},
          {"bcat, Content 3.0 tier 1", Both(Top("cattax", 7), Top("bcat", {"653"})),
           "nobid_blocked"},
          {"bcat, Ad Product 2.0", Both(Top("cattax", 8), Top("bcat", {"1533"})), "nobid_blocked"},
          {"bcat, Ad Product 2.0 other", Both(Top("cattax", 8), Top("bcat", {"1000"})), "bid"},
          {"bcat, Content 3.1 tier 1", Both(Top("cattax", 9), Top("bcat", {"653"})),
           "nobid_blocked"},
          {"bcat, Content 3.1 id only 3.1 has", Both(Top("cattax", 9), Top("bcat", {"700"})),
           "bid"},
          // Ad Product 1.0 through Ad Product 2.0: Hotels (IAB20-18) is Hotels
          // and Resorts (1533), whose nearest ancestor in the 1.0 -> 2.0 table
          // is Travel and Tourism (833); Air Travel is not above it.
          {"bcat, Ad Product 1.0 Travel and Tourism", Both(Top("cattax", 3), Top("bcat", {"833"})),
           "nobid_blocked"},
          {"bcat, Ad Product 1.0 Air Travel", Both(Top("cattax", 3), Top("bcat", {"835"})), "bid"},
          {"acat, Ad Product 1.0 Travel and Tourism", Both(Top("cattax", 3), Top("acat", {"833"})),
           "bid"},
          {"acat, Ad Product 1.0 Air Travel", Both(Top("cattax", 3), Top("acat", {"835"})),
           "nobid_blocked"},
          {"bcat, unknown taxonomy, exact code",
           Both(Top("cattax", 500), Top("bcat", {"IAB20-18"})), "nobid_blocked"},
          {"bcat, unknown taxonomy, no translation", Both(Top("cattax", 500), Top("bcat", {"668"})),
           "bid"},
          {"acat allows the tier 1", Top("acat", {"IAB20"}), "bid"},
          {"acat allows others only", Top("acat", {"IAB19"}), "nobid_blocked"},
          {"acat in Ad Product 2.0", Both(Top("cattax", 8), Top("acat", {"1529", "1533"})), "bid"},
          {"acat in Content 3.1", Both(Top("cattax", 9), Top("acat", {"653"})), "bid"},
          {"badv", Top("badv", {"northwind-travel.example"}), "nobid_blocked"},
          {"bseat lists our seat", Top("bseat", {"rtb-bidder"}), "nobid_seat"},
          {"bseat lists another", Top("bseat", {"other-seat"}), "bid"},
          {"wseat without our seat", Top("wseat", {"other-seat"}), "nobid_seat"},
          {"wlang without the creative's", Top("wlang", {"de", "fr"}), "nobid_creative"},
          {"wlang with it", Top("wlang", {"de", "en"}), "bid"},
          {"wlangb with it (primary subtag)", Top("wlangb", {"en-GB"}), "bid"},
          {"wlangb without it", Top("wlangb", {"fr-CA"}), "nobid_creative"},
          {"rwdd on a campaign that is never rewarded", Imp("rwdd", 1), "nobid_targeting"},
          {"rwdd 0", Imp("rwdd", 0), "bid"},
          {"a size no creative has", Media("banner", "w", 320), "nobid_no_candidates"},
      });
}

// The banner campaign declared in Ad Product 2.0 (cattax 8): Automotive
// Ownership, its creative New Vehicle Ownership (1554), which the Ad Product
// 1.0 -> 2.0 table pairs with New Vehicles (54, under Automotive Ownership 53).
class BannerInAdProduct2Test : public ExchangeRulesTest {
 protected:
  BannerInAdProduct2Test() : ExchangeRulesTest(RulesConfig(Campaigns())) {}

  static nlohmann::json Campaigns() {
    nlohmann::json campaigns = nlohmann::json::parse(kRulesCampaigns);
    campaigns[0]["cattax"] = 8;
    campaigns[0]["iab_categories"] = {"1553"};
    campaigns[0]["creatives"][0]["iab_categories"] = {"1554"};
    return campaigns;
  }
};

TEST_F(BannerInAdProduct2Test, BcatAndAcatInAdProduct1) {
  ExpectChanges(BannerRequest(),
                {
                    {"bcat, Ad Product 1.0 Automotive Ownership",
                     Both(Top("cattax", 3), Top("bcat", {"53"})), "nobid_blocked"},
                    {"bcat, Ad Product 1.0 New Vehicles",
                     Both(Top("cattax", 3), Top("bcat", {"54"})), "nobid_blocked"},
                    {"bcat, Ad Product 1.0 Pre-Owned Vehicles",
                     Both(Top("cattax", 3), Top("bcat", {"77"})), "bid"},
                    {"bcat, Ad Product 1.0 Sedan, below New Vehicles",
                     Both(Top("cattax", 3), Top("bcat", {"56"})), "bid"},
                    {"bcat, Ad Product 1.0 Automotive Products",
                     Both(Top("cattax", 3), Top("bcat", {"100"})), "bid"},
                    {"acat, Ad Product 1.0 Automotive Ownership",
                     Both(Top("cattax", 3), Top("acat", {"53"})), "bid"},
                    {"acat, Ad Product 1.0 Travel and Tourism",
                     Both(Top("cattax", 3), Top("acat", {"833"})), "nobid_blocked"},
                    {"bcat, Ad Product 2.0 Vehicles", Both(Top("cattax", 8), Top("bcat", {"1551"})),
                     "nobid_blocked"},
                    {"bcat, Content 1.0 Automotive", Top("bcat", {"IAB2"}), "nobid_blocked"},
                    {"bcat, Content 1.0 Travel", Top("bcat", {"IAB20"}), "bid"},
                });
}

TEST_F(ExchangeRulesTest, VideoFields) {
  const auto drop = [](const std::string& key) {
    return [=](nlohmann::json& r) { r["imp"][0]["video"].erase(key); };
  };
  ExpectChanges(
      VideoRequest(),
      {
          {"protocols without VAST 3.0", Media("video", "protocols", {2, 7}), "nobid_creative"},
          {"protocols with it", Media("video", "protocols", {3}), "bid"},
          {"2.5 protocol", Both(drop("protocols"), Media("video", "protocol", 2)),
           "nobid_creative"},
          {"plcmt 4 (no content)", Media("video", "plcmt", 4), "nobid_creative"},
          {"2.5 placement 1 (in-stream)", Both(drop("plcmt"), Media("video", "placement", 1)),
           "bid"},
          {"2.5 placement 3 (in-article)", Both(drop("plcmt"), Media("video", "placement", 3)),
           "nobid_creative"},
          {"linearity 2 (overlay)", Media("video", "linearity", 2), "nobid_creative"},
          {"startdelay 10 (mid-roll)", Media("video", "startdelay", 10), "nobid_creative"},
          {"startdelay -1 (generic mid-roll)", Media("video", "startdelay", -1), "nobid_creative"},
          {"startdelay -2 (post-roll)", Media("video", "startdelay", -2), "nobid_creative"},
          {"skip 1: the user could skip it", Media("video", "skip", 1), "nobid_creative"},
          {"skip 1 after 20 s", Both(Media("video", "skip", 1), Media("video", "skipafter", 20)),
           "bid"},
          {"skip 1 for ads over 20 s",
           Both(Media("video", "skip", 1), Media("video", "skipmin", 20)), "bid"},
          {"mimes", Media("video", "mimes", {"video/webm"}), "nobid_creative"},
          {"maxduration", Media("video", "maxduration", 10), "nobid_creative"},
          {"minduration", Media("video", "minduration", 20), "nobid_creative"},
          {"rqddurs without 15", Media("video", "rqddurs", {6, 30}), "nobid_creative"},
          {"rqddurs with 15", Media("video", "rqddurs", {15, 30}), "bid"},
          {"poddur", Media("video", "poddur", 10), "nobid_creative"},
          {"minbitrate", Media("video", "minbitrate", 2000), "nobid_creative"},
          {"maxbitrate", Media("video", "maxbitrate", 1000), "nobid_creative"},
          {"bitrate range",
           Both(Media("video", "minbitrate", 1000), Media("video", "maxbitrate", 2000)), "bid"},
          {"battr", Media("video", "battr", {2}), "nobid_blocked"},
      });
}

TEST_F(ExchangeRulesTest, AudioFields) {
  ExpectChanges(
      AudioRequest(),
      {
          {"protocols without DAAST 1.0", Media("audio", "protocols", {10}), "nobid_creative"},
          {"mimes", Media("audio", "mimes", {"audio/ogg"}), "nobid_creative"},
          {"maxduration", Media("audio", "maxduration", 20), "nobid_creative"},
          {"rqddurs", Media("audio", "rqddurs", {15}), "nobid_creative"},
          {"poddur", Media("audio", "poddur", 20), "nobid_creative"},
          {"api: the creative needs none", Media("audio", "api", {7}), "bid"},
          {"bcat", Top("bcat", {"IAB8"}), "nobid_blocked"},
      });
}

TEST_F(ExchangeRulesTest, NativeFields) {
  const auto assets = [](const std::function<void(nlohmann::json&)>& change) {
    return [=](nlohmann::json& r) {
      nlohmann::json a = NativeAssets();
      change(a);
      r["imp"][0]["native"]["request"] = a.dump();
    };
  };
  ExpectChanges(
      NativeRequest(),
      {
          {"title shorter than the creative's",
           assets([](nlohmann::json& a) { a["assets"][0]["title"]["len"] = 10; }),
           "nobid_creative"},
          {"main image larger than the creative's",
           assets([](nlohmann::json& a) { a["assets"][1]["img"]["wmin"] = 2000; }),
           "nobid_creative"},
          {"an icon image required",
           assets([](nlohmann::json& a) { a["assets"][1]["img"]["type"] = 1; }), "nobid_creative"},
          {"a required rating", assets([](nlohmann::json& a) {
             a["assets"].push_back({{"id", 4}, {"required", 1}, {"data", {{"type", 3}}}});
           }),
           "nobid_creative"},
          {"an optional rating", assets([](nlohmann::json& a) {
             a["assets"].push_back({{"id", 4}, {"required", 0}, {"data", {{"type", 3}}}});
           }),
           "bid"},
          {"impression trackers by JavaScript only",
           assets([](nlohmann::json& a) { a["eventtrackers"][0]["methods"] = {2}; }),
           "nobid_creative"},
          {"the request as an object",
           [](nlohmann::json& r) { r["imp"][0]["native"]["request"] = NativeAssets(); }, "bid"},
          {"Native 1.1 wrapper",
           [](nlohmann::json& r) {
             nlohmann::json a = NativeAssets();
             a.erase("eventtrackers");
             a["ver"] = "1.1";
             r["imp"][0]["native"]["request"] = nlohmann::json{{"native", a}}.dump();
           },
           "bid"},
          {"a native request that is not JSON",
           [](nlohmann::json& r) { r["imp"][0]["native"]["request"] = "{not json"; },
           "nobid_creative"},
          {"bcat", Top("bcat", {"IAB22"}), "nobid_blocked"},
      });
}

TEST_F(ExchangeRulesTest, AnswersCarryWhatTheCreativeIs) {
  ASSERT_EQ(OutcomeOf(BannerRequest(), "2.6"), "bid");
  nlohmann::json bid = last_.FirstBid();
  EXPECT_EQ(bid["mtype"], 1);
  EXPECT_EQ(bid["attr"], nlohmann::json({3}));
  EXPECT_EQ(bid["adid"], "nw-ad-7");
  EXPECT_EQ(bid["iurl"], "https://cdn.northwind-travel.example/m.png");
  EXPECT_EQ(bid["language"], "en");
  EXPECT_NE(std::find(bid["cat"].begin(), bid["cat"].end(), "IAB20-18"), bid["cat"].end());
  EXPECT_FALSE(bid.contains("cattax")) << "Content 1.0 is the default";

  // 2.5 has no mtype: it stays at its 2.6 place, for 2.6 readers, and is
  // repeated in ext.
  ASSERT_EQ(OutcomeOf(BannerRequest(), "2.5"), "bid");
  bid = last_.FirstBid();
  EXPECT_EQ(bid["mtype"], 1);
  EXPECT_EQ(bid["ext"]["mtype"], 1);

  // cat in the request's taxonomy.
  nlohmann::json request = BannerRequest();
  request["cattax"] = 2;
  ASSERT_EQ(OutcomeOf(request), "bid");
  bid = last_.FirstBid();
  EXPECT_EQ(bid["cattax"], 2);
  EXPECT_NE(std::find(bid["cat"].begin(), bid["cat"].end(), "668"), bid["cat"].end());
  request["cattax"] = 3;
  ASSERT_EQ(OutcomeOf(request), "bid");
  bid = last_.FirstBid();
  EXPECT_EQ(bid["cattax"], 3);
  EXPECT_NE(std::find(bid["cat"].begin(), bid["cat"].end(), "833"), bid["cat"].end());

  ASSERT_EQ(OutcomeOf(VideoRequest()), "bid");
  bid = last_.FirstBid();
  EXPECT_EQ(bid["mtype"], 2);
  EXPECT_EQ(bid["dur"], 15);
  EXPECT_EQ(bid["protocol"], 3);
  EXPECT_EQ(bid["attr"], nlohmann::json({2}));

  ASSERT_EQ(OutcomeOf(AudioRequest()), "bid");
  bid = last_.FirstBid();
  EXPECT_EQ(bid["mtype"], 3);
  EXPECT_EQ(bid["dur"], 30);
  EXPECT_EQ(bid["protocol"], 9);

  ASSERT_EQ(OutcomeOf(NativeRequest()), "bid");
  EXPECT_EQ(last_.FirstBid()["mtype"], 4);
}

TEST_F(ExchangeRulesTest, NativeMarkupIsBuiltFromTheCreativesAssets) {
  ASSERT_EQ(OutcomeOf(NativeRequest()), "bid");
  const nlohmann::json markup = nlohmann::json::parse(last_.FirstBid()["adm"].get<std::string>(),
                                                      nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(markup.is_object()) << last_.FirstBid()["adm"];
  ASSERT_EQ(markup["assets"].size(), 3u);
  EXPECT_EQ(markup["assets"][0]["id"], 1);
  EXPECT_EQ(markup["assets"][0]["title"]["text"], "Still thinking it over?");
  EXPECT_EQ(markup["assets"][1]["id"], 2);
  EXPECT_EQ(markup["assets"][1]["img"]["url"], "https://cdn.litware.example/main.png");
  EXPECT_EQ(markup["assets"][2]["data"]["value"], "The items in your cart are waiting.");
  EXPECT_NE(markup["link"]["url"].get<std::string>().find("/click?"), std::string::npos);
  ASSERT_EQ(markup["eventtrackers"].size(), 1u);
  EXPECT_EQ(markup["eventtrackers"][0]["event"], 1);
  EXPECT_EQ(markup["eventtrackers"][0]["method"], 1);
  EXPECT_NE(markup["eventtrackers"][0]["url"].get<std::string>().find("/imp?"), std::string::npos);
}

TEST_F(ExchangeRulesTest, APodGetsOneSlotPerCreative) {
  nlohmann::json request = VideoRequest();
  nlohmann::json second = request["imp"][0];
  second["id"] = "2";
  request["imp"].push_back(second);
  ASSERT_EQ(OutcomeOf(request), "bid");
  EXPECT_EQ(last_.json["seatbid"][0]["bid"].size(), 2u) << "two independent impressions";

  request["imp"][0]["video"]["podid"] = "pod-1";
  request["imp"][1]["video"]["podid"] = "pod-1";
  request["imp"][1]["video"]["slotinpod"] = 2;
  ASSERT_EQ(OutcomeOf(request), "bid");
  ASSERT_EQ(last_.json["seatbid"][0]["bid"].size(), 1u) << "the same creative twice in one pod";
  EXPECT_EQ(last_.FirstBid()["impid"], "1");
}

TEST_F(ExchangeRulesTest, IgnoredFieldsAreCountedNeverRefused) {
  nlohmann::json request = BannerRequest();
  request["source"] = {{"tid", "t-1"}, {"ext", "a string"}};
  request["a_field_of_tomorrow"] = {{"x", 1}};
  request["device"]["devicetype"] = 99;
  ASSERT_EQ(OutcomeOf(request), "bid");
  EXPECT_EQ(Ignored(Ignored::kExtNotObject), 1);
  EXPECT_GE(Ignored(Ignored::kUnknownField), 1);
  EXPECT_EQ(Ignored(Ignored::kUnknownValue), 1);
  EXPECT_EQ(Ignored(Ignored::kUnknownTaxonomy), 0);

  request = BannerRequest();
  request["cattax"] = 500;
  ASSERT_EQ(OutcomeOf(request), "bid");
  EXPECT_EQ(Ignored(Ignored::kUnknownTaxonomy), 1);

  request = NativeRequest();
  request["imp"][0]["native"]["request"] = "{not json";
  EXPECT_EQ(OutcomeOf(request), "nobid_creative");
  EXPECT_EQ(Ignored(Ignored::kUnusableNativeRequest), 1);
}

}  // namespace
}  // namespace rtb::bidder
