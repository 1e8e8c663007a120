// The rules of the campaigns section (config/campaign_validation.cc): a
// campaign's identity, budget, bid, goal, schedule, targeting and creatives,
// one behaviour per test, each checked through ParseConfig and the path it
// reports.
#include <string>

#include "config/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/config/sample_config.h"

namespace rtb::config {
namespace {

using testing::BannerCreative;
using testing::Campaign;
using testing::ConfigWithCampaigns;
using ::testing::HasSubstr;
using testing::kBeaconSecret;
using testing::kDeviceKeySecret;
using testing::MinimalConfig;
using ::testing::Not;
using testing::ParseError;
using json = nlohmann::json;

TEST(CampaignValidationTest, DuplicateCampaignIdIsRejected) {
  json doc = ConfigWithCampaigns(3);
  doc["campaigns"][2]["id"] = "camp-0";
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[2].id: duplicate of campaigns[0].id"));
}

TEST(CampaignValidationTest, CampaignIdThatWouldBreakRowKeysIsRejected) {
  json doc = ConfigWithCampaigns(3);
  doc["campaigns"][0]["id"] = "a|b";
  doc["campaigns"][1]["id"] = std::string(33, 'a');
  doc["campaigns"][2]["id"] = "";
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].id: must be 1-32 characters of [A-Za-z0-9_-]"));
  EXPECT_THAT(error, HasSubstr("campaigns[1].id: must be 1-32 characters"));
  EXPECT_THAT(error, HasSubstr("campaigns[2].id: must be 1-32 characters"));
}

TEST(CampaignValidationTest, CampaignIdOfThirtyTwoCharactersIsAccepted) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["id"] = std::string(30, 'A') + "_-";
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CampaignValidationTest, CampaignWithoutCreativesIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["creatives"] = json::array();
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].creatives: must list at least one"));
}

TEST(CampaignValidationTest, CampaignWithoutAdvertiserDomainIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0].erase("advertiser_domains");
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].advertiser_domains: must list at least one domain"));
}

TEST(CampaignValidationTest, AdvertiserDomainMustBeLowerCaseHostName) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["advertiser_domains"] = {"Example.com", "https://x.com", "nodot"};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].advertiser_domains[0]: must be a lower-case domain"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].advertiser_domains[1]: must be a lower-case domain"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].advertiser_domains[2]: must be a lower-case domain"));
}

TEST(CampaignValidationTest, MissingOrZeroDailyBudgetIsRejected) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][0].erase("daily_budget_micros");
  doc["campaigns"][1]["daily_budget_micros"] = 0;
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].daily_budget_micros: must be > 0"));
  EXPECT_THAT(error, HasSubstr("campaigns[1].daily_budget_micros: must be > 0"));
}

TEST(CampaignValidationTest, LifetimeBudgetIsOptionalAndPositiveWhenSet) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][0]["lifetime_budget_micros"] = -1;
  doc["campaigns"][1]["lifetime_budget_micros"] = 5000000000;
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].lifetime_budget_micros: must be > 0"));
  doc["campaigns"][0].erase("lifetime_budget_micros");
  absl::StatusOr<BidderConfig> config = testing::Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->campaigns[0].lifetime_budget_micros, 0);
  EXPECT_EQ(config->campaigns[1].lifetime_budget_micros, 5000000000);
  EXPECT_EQ(ParseCampaign(CampaignToJson(config->campaigns[1]), *config)->lifetime_budget_micros,
            5000000000);
}

TEST(CampaignValidationTest, CampaignCurrencyWithoutRateIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["currency"] = "JPY";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].currency: JPY has no rate in bid.currency_rates"));
}

TEST(CampaignValidationTest, UnknownTimeZoneIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["time_zone"] = "Mars/Olympus_Mons";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].time_zone: unknown time zone \"Mars/Olympus_Mons\""));
}

TEST(CampaignValidationTest, TimeZoneThatIsAFilePathIsRejected) {
  json doc = ConfigWithCampaigns(3);
  doc["campaigns"][0]["time_zone"] = "../../../etc/passwd";
  doc["campaigns"][1]["time_zone"] = "/usr/share/zoneinfo/UTC";
  doc["campaigns"][2]["time_zone"] = "EST5EDT,M3.2.0,M11.1.0";
  std::string error = ParseError(doc);
  for (int i = 0; i < 3; ++i) {
    EXPECT_THAT(error, HasSubstr("campaigns[" + std::to_string(i) +
                                 "].time_zone: must be an IANA time zone name"));
  }
}

TEST(CampaignValidationTest, IanaTimeZonesAreAccepted) {
  json doc = ConfigWithCampaigns(4);
  doc["campaigns"][0]["time_zone"] = "America/New_York";
  doc["campaigns"][1]["time_zone"] = "Asia/Kolkata";
  doc["campaigns"][2]["time_zone"] = "Etc/GMT+5";
  doc["campaigns"][3]["time_zone"] = "UTC";
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CampaignValidationTest, MaxBidCpmMustBePositiveAndSane) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][0]["max_bid_cpm"] = -1;
  doc["campaigns"][1]["max_bid_cpm"] = 5000;
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].max_bid_cpm: must be > 0"));
  EXPECT_THAT(error, HasSubstr("campaigns[1].max_bid_cpm: must be at most 1000"));
}

TEST(CampaignValidationTest, NegativeFrequencyCapIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["frequency_cap_per_day"] = -1;
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].frequency_cap_per_day: must be in [0, "));
}

TEST(CampaignValidationTest, CountryMustBeIsoAlpha3) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"]["countries"] = {"USA", "US", "usa", "XXX"};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, Not(HasSubstr("countries[0]")));
  EXPECT_THAT(error, HasSubstr("campaigns[0].targeting.countries[1]: must be an ISO 3166-1 "
                               "alpha-3 country code such as USA; got \"US\""));
  EXPECT_THAT(error, HasSubstr("targeting.countries[2]"));
  EXPECT_THAT(error, HasSubstr("targeting.countries[3]"));
}

TEST(CampaignValidationTest, DeviceTypeOutsideOpenRtbListIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"]["device_types"] = {1, 8, 9, 0};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].targeting.device_types[2]: must be an OpenRTB "
                               "device type in [1, 8], got 9"));
  EXPECT_THAT(error, HasSubstr("targeting.device_types[3]"));
  EXPECT_THAT(error, Not(HasSubstr("device_types[1]")));
}

TEST(CampaignValidationTest, DomainBothAllowedAndDeniedIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"]["domains_allow"] = {"news.example.com", "a.example.com"};
  doc["campaigns"][0]["targeting"]["domains_deny"] = {"a.example.com"};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].targeting.domains_deny[0]: is also in domains_allow"));
}

TEST(CampaignValidationTest, ContentCategoryMustBeIabCode) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"]["content_categories"] = {"IAB3-1", "sports"};
  doc["campaigns"][0]["iab_categories"] = {"IAB-1"};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].targeting.content_categories[1]: must be an IAB "
                               "Content 1.0 category code"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].iab_categories[0]: must be an IAB Content 1.0"));
}

TEST(CampaignValidationTest, SegmentAndDealIdsMustBePrintableTokens) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"]["required_segments"] = {"has space"};
  doc["campaigns"][0]["targeting"]["deal_ids"] = {""};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].targeting.required_segments[0]: must be 1-64"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].targeting.deal_ids[0]: must be 1-64"));
}

TEST(CreativeValidationTest, CreativeWidthMustBePositive) {
  json doc = ConfigWithCampaigns(4);
  doc["campaigns"][3]["creatives"][0]["w"] = 0;
  EXPECT_EQ(ParseError(doc), "campaigns[3].creatives[0].w: must be > 0");
}

TEST(CreativeValidationTest, BannerWithoutSizeIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["creatives"][0].erase("h");
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].creatives[0].h: must be > 0"));
}

TEST(CreativeValidationTest, DuplicateCreativeIdWithinCampaignIsRejected) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][1]["creatives"].push_back(BannerCreative("c1"));
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[1].creatives[1].id: duplicate of campaigns[1].creatives[0].id"));
}

TEST(CreativeValidationTest, SameCreativeIdInTwoCampaignsIsAccepted) {
  EXPECT_EQ(ParseError(ConfigWithCampaigns(2)), "OK");
}

TEST(CreativeValidationTest, LandingUrlMustBeHttps) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["creatives"][0]["landing_url"] = "http://www.example.com/";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].creatives[0].landing_url: must start with https://"));
}

TEST(CreativeValidationTest, LandingUrlThatCouldMisleadIsRejected) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["landing_url"] = "https://www.example.com@evil.example/";
  EXPECT_THAT(ParseError(doc), HasSubstr("landing_url: must not contain user information"));
  creative["landing_url"] = "https://www.example.com/a b";
  EXPECT_THAT(ParseError(doc), HasSubstr("landing_url: must be printable ASCII without spaces"));
  creative["landing_url"] = "https:///path";
  EXPECT_THAT(ParseError(doc), HasSubstr("landing_url: has no host"));
  creative["landing_url"] = "https://www.example.com:99999/";
  EXPECT_THAT(ParseError(doc), HasSubstr("landing_url: has an invalid port"));
  creative["landing_url"] = "https://www.example.com/landing?utm_source=rtb#top";
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CreativeValidationTest, VideoCreativeNeedsMimesAndDuration) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "video";
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].creatives[0].mimes: required for video"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].creatives[0].duration_s: must be > 0"));
  creative["mimes"] = {"video/mp4"};
  creative["duration_s"] = 30;
  // The HTML markup names no VAST version.
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].creatives[0].protocol: required"));
  creative["adm"] = R"(<VAST version="3.0"><Ad><InLine></InLine></Ad></VAST>)";
  EXPECT_EQ(ParseError(doc), "OK");
  creative["mimes"] = {"mp4"};
  EXPECT_THAT(ParseError(doc), HasSubstr("creatives[0].mimes[0]: must be a MIME type"));
}

TEST(CreativeValidationTest, AudioCreativeMustNotHaveASize) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "audio";
  creative["mimes"] = {"audio/mpeg"};
  creative["duration_s"] = 30;
  creative["adm"] = R"(<DAAST version="1.0"><Ad><InLine></InLine></Ad></DAAST>)";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].creatives[0].w: must be 0 (or absent) for audio"));
  creative.erase("w");
  creative.erase("h");
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CreativeValidationTest, BannerMustNotHaveMimesOrDuration) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["creatives"][0]["duration_s"] = 15;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].creatives[0].duration_s: must be 0 (or absent) for banner"));
}

TEST(CreativeValidationTest, NativeCreativeSizeIsOptional) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "native";
  creative.erase("w");
  creative.erase("h");
  creative.erase("adm");
  creative["native"] = {{"title", "A title"}};
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CreativeValidationTest, NativeCreativeIsBuiltFromItsAssetsNotMarkup) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "native";
  creative.erase("w");
  creative.erase("h");
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("creatives[0].adm: must be empty for native"));
  EXPECT_THAT(error, HasSubstr("creatives[0].native: needs a title, an image, a data or a video"));
  creative.erase("adm");
  creative["native"] = {
      {"title", "Title"},
      {"images", {{{"type", 2}, {"url", "http://cdn.example.com/i.png"}, {"w", 0}, {"h", 10}}}},
      {"data", {{{"type", 2}, {"value", "x"}}, {{"type", 2}, {"value", ""}}}},
      {"click_trackers", {"http://t.example.com/c"}}};
  error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("native.images[0].type: must be a native image asset type"));
  EXPECT_THAT(error, HasSubstr("native.images[0].url: "));
  EXPECT_THAT(error, HasSubstr("native.images[0].w: must be > 0"));
  EXPECT_THAT(error, HasSubstr("native.data[1].type: duplicate of "));
  EXPECT_THAT(error, HasSubstr("native.data[1].value: must be 1-1000 bytes"));
  EXPECT_THAT(error, HasSubstr("native.click_trackers[0]: "));
  creative["native"] = {
      {"title", "Title"},
      {"images",
       {{{"type", 3}, {"url", "https://cdn.example.com/i.png"}, {"w", 1200}, {"h", 627}}}},
      {"data", {{{"type", 2}, {"value", "Description"}}}},
      {"video_vast", R"(<VAST version="4.1"><Ad></Ad></VAST>)"},
      {"video_duration_s", 15},
      {"video_mimes", {"video/mp4"}}};
  ASSERT_EQ(ParseError(doc), "OK");
  EXPECT_EQ(testing::Parse(doc)->campaigns[0].creatives[0].native.video_protocol, 11);
  // Native assets on a banner are a mistake, not ignored.
  json banner = ConfigWithCampaigns(1);
  banner["campaigns"][0]["creatives"][0]["native"] = {{"title", "x"}};
  EXPECT_THAT(ParseError(banner), HasSubstr("creatives[0].native: must be absent for banner"));
}

TEST(CreativeValidationTest, MediaProtocolComesFromTheMarkupOrTheConfig) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "video";
  creative["mimes"] = {"video/mp4"};
  creative["duration_s"] = 15;
  const std::pair<const char*, int> cases[] = {
      {R"(<VAST version="2.0"><Ad><InLine/></Ad></VAST>)", 2},
      {R"(<?xml version="1.0"?><VAST xmlns:x="y" version='4.0'><Ad><InLine/></Ad></VAST>)", 7},
      {R"(<VAST version="4.2"><Ad><Wrapper/></Ad></VAST>)", 14},
      {R"(<VAST version="3"><Ad><Wrapper/></Ad></VAST>)", 6},
  };
  for (const auto& [markup, protocol] : cases) {
    creative["adm"] = markup;
    absl::StatusOr<BidderConfig> parsed = testing::Parse(doc);
    ASSERT_TRUE(parsed.ok()) << markup << ": " << parsed.status();
    EXPECT_EQ(parsed->campaigns[0].creatives[0].protocol, protocol) << markup;
    EXPECT_EQ(parsed->campaigns[0].creatives[0].linearity, 1);
  }
  creative["adm"] = R"(<VAST version="9.9"></VAST>)";
  EXPECT_THAT(ParseError(doc), HasSubstr("creatives[0].protocol: required"));
  creative["protocol"] = 3;
  EXPECT_EQ(ParseError(doc), "OK");
  creative["protocol"] = 17;
  EXPECT_THAT(ParseError(doc), HasSubstr("creatives[0].protocol: must be in [1, 16], got 17"));
  // Banners carry no protocol.
  json banner = ConfigWithCampaigns(1);
  banner["campaigns"][0]["creatives"][0]["protocol"] = 3;
  EXPECT_THAT(ParseError(banner), HasSubstr("creatives[0].protocol: must be absent for banner"));
}

TEST(CreativeValidationTest, VideoPlacementFieldsAreChecked) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "video";
  creative["mimes"] = {"video/mp4"};
  creative["duration_s"] = 15;
  creative["adm"] = R"(<VAST version="3.0"></VAST>)";
  creative["start_slots"] = {"pre", "sometime"};
  EXPECT_THAT(ParseError(doc), HasSubstr("creatives[0].start_slots[1]: must be one of pre, mid, "
                                         "post; got \"sometime\""));
  creative["start_slots"] = {"pre"};
  creative["linearity"] = 3;
  creative["placements"] = {1, 5, 1};
  creative["bitrate_kbps"] = -1;
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("creatives[0].linearity: must be 1 (linear) or 2 (non-linear)"));
  EXPECT_THAT(error, HasSubstr("creatives[0].placements[1]: must be an OpenRTB 2.6 plcmt value"));
  EXPECT_THAT(error, HasSubstr("creatives[0].placements[2]: duplicate of "));
  EXPECT_THAT(error, HasSubstr("creatives[0].bitrate_kbps: must be in [0, 100000], got -1"));
  creative["linearity"] = 2;
  creative["placements"] = {1, 2};
  creative["start_slots"] = {"pre", "mid"};
  creative["bitrate_kbps"] = 1200;
  creative["skippable"] = false;
  ASSERT_EQ(ParseError(doc), "OK");
  const CreativeConfig parsed = testing::Parse(doc)->campaigns[0].creatives[0];
  EXPECT_EQ(parsed.start_slots, (std::vector<StartSlot>{StartSlot::kPre, StartSlot::kMid}));
  EXPECT_FALSE(parsed.skippable);
  // On a banner these say nothing and are refused.
  json banner = ConfigWithCampaigns(1);
  banner["campaigns"][0]["creatives"][0]["placements"] = {1};
  banner["campaigns"][0]["creatives"][0]["skippable"] = false;
  error = ParseError(banner);
  EXPECT_THAT(error, HasSubstr("creatives[0].placements: must be absent for banner"));
  EXPECT_THAT(error, HasSubstr("creatives[0].skippable: applies to video only"));
}

TEST(CreativeValidationTest, AttributesApisLanguageAdidAndIurlAreChecked) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["attr"] = {3, 19};
  creative["api"] = {0};
  creative["language"] = "DE";
  creative["adid"] = "has space";
  creative["iurl"] = "http://cdn.example.com/a.png";
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("creatives[0].attr[1]: must be an AdCOM creative attribute in "
                               "[1, 18], got 19"));
  EXPECT_THAT(error, HasSubstr("creatives[0].api[0]: must be an AdCOM API framework in [1, 9]"));
  EXPECT_THAT(error, HasSubstr("creatives[0].language: must be an ISO 639-1 code"));
  EXPECT_THAT(error, HasSubstr("creatives[0].adid: must be at most 64 printable"));
  EXPECT_THAT(error, HasSubstr("creatives[0].iurl: "));
  creative["attr"] = {3, 18};
  creative["api"] = {5, 7};
  creative["language"] = "de";
  creative["adid"] = "ad-77";
  creative["iurl"] = "https://cdn.example.com/a.png";
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CampaignValidationTest, CategoriesFollowTheCampaignTaxonomy) {
  json doc = ConfigWithCampaigns(1);
  json& campaign = doc["campaigns"][0];
  campaign["iab_categories"] = {"IAB3", "IAB99"};
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].iab_categories[1]: must be an IAB "
                                         "Content 1.0 category code such as IAB3-1"));
  campaign["cattax"] = 7;
  campaign["iab_categories"] = {"483", "IAB3"};
  campaign["creatives"][0]["iab_categories"] = {"v9i3On"};
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].iab_categories[1]: must be an id of "
                                         "taxonomy 7"));
  campaign["iab_categories"] = {"483"};
  EXPECT_EQ(ParseError(doc), "OK");
  campaign["cattax"] = 8;
  campaign["iab_categories"] = {"1533"};
  campaign["creatives"][0]["iab_categories"] = {"1530"};
  EXPECT_EQ(ParseError(doc), "OK");
  // A vendor taxonomy: any token; one the bidder has no tables for: refused.
  campaign["cattax"] = 501;
  campaign["iab_categories"] = {"travel/hotels"};
  campaign["creatives"][0]["iab_categories"] = {"x"};
  EXPECT_EQ(ParseError(doc), "OK");
  // Ad Product 1.0 and Content 3.1 ids (Thriller is new in 3.1).
  campaign["cattax"] = 3;
  campaign["iab_categories"] = {"850", "IAB20-18"};
  campaign["creatives"][0]["iab_categories"] = {"833"};
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].iab_categories[1]: must be an id of "
                                         "taxonomy 3"));
  campaign["iab_categories"] = {"850"};
  EXPECT_EQ(ParseError(doc), "OK");
  campaign["cattax"] = 9;
  campaign["iab_categories"] = {"700"};
  campaign["creatives"][0]["iab_categories"] = {"SPSHQ5"};
  EXPECT_EQ(ParseError(doc), "OK");
  campaign["cattax"] = 7;
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].iab_categories[0]: must be an id of "
                                         "taxonomy 7"));
  // Audience 1.1 is not a category taxonomy the tables hold.
  campaign["cattax"] = 4;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].cattax: must be a taxonomy the bidder has tables for "
                        "(1, 2, 3, 5, 6, 7, 8, 9) or a vendor taxonomy (500 and above); got 4"));
}

TEST(CampaignValidationTest, RewardedPolicyIsDecoded) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"] = {{"rewarded", "only"}};
  ASSERT_EQ(ParseError(doc), "OK");
  EXPECT_EQ(testing::Parse(doc)->campaigns[0].targeting.rewarded, RewardedPolicy::kOnly);
  doc["campaigns"][0]["targeting"]["rewarded"] = "sometimes";
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].targeting.rewarded"));
}

TEST(CreativeValidationTest, MarkupIsRequiredEvenForNurlDelivery) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative.erase("adm");
  creative["nurl_delivery"] = true;
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].creatives[0].adm: required: the win "
                                         "notice returns this markup"));
}

TEST(CreativeValidationTest, OversizedMarkupIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["creatives"][0]["adm"] = std::string(70000, 'x');
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].creatives[0].adm: must be at most 65536 bytes"));
}

TEST(CampaignValidationTest, CpcAndCpaGoalsNeedTheirTarget) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][0]["goal"] = {{"type", "cpc"}};
  doc["campaigns"][1]["goal"] = {{"type", "cpa"}, {"target_cpa", -1}};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].goal.target_cpc: must be in (0, 1000]"));
  EXPECT_THAT(error, HasSubstr("campaigns[1].goal.target_cpa: must be in (0, 100000]"));
}

TEST(CampaignValidationTest, GoalTargetOfAnotherGoalTypeIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["goal"] = {{"target_cpc", 0.5}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].goal.target_cpc: must be 0 unless type is cpc"));
}

TEST(CampaignValidationTest, GoalPriorsMustBeRates) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["goal"] = {{"prior_ctr", 0}, {"prior_cvr", 1.5}};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].goal.prior_ctr: must be in (0, 1]"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].goal.prior_cvr: must be in (0, 1]"));
}

TEST(CampaignValidationTest, DsaNeedsBehalfAndPaidOfAtMost100Bytes) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["dsa"] = json::object();
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.behalf: required: 1-100 bytes"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.paid: required: 1-100 bytes"));
  doc["campaigns"][0]["dsa"] = {{"behalf", std::string(101, 'b')}, {"paid", "line\nbreak"}};
  error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.behalf: required"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.paid: required"));
  doc["campaigns"][0]["dsa"] = {{"behalf", std::string(100, 'b')},
                                {"paid", "Zahlende GmbH & Co. KG"}};
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CampaignValidationTest, DsaAdrenderAndTransparencyAreChecked) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["dsa"] = {{"behalf", "B"},
                                {"paid", "P"},
                                {"adrender", 2},
                                {"transparency",
                                 {{{"domain", "Not A Domain"}, {"dsaparams", {1, 4}}},
                                  {{"domain", "ok.example"}, {"dsaparams", {3, 3}}}}}};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.adrender: must be in [0, 1], got 2"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.transparency[0].domain: must be a lower-case "
                               "domain name"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.transparency[0].dsaparams[1]: must be 1 "
                               "(profiling), 2 (basic advertising) or 3 (precise geolocation), "
                               "got 4"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.transparency[1].dsaparams[1]: duplicate of "
                               "campaigns[0].dsa.transparency[1].dsaparams[0]"));
}

TEST(CampaignValidationTest, ScheduleProblemsAreAllReportedWithTheirPaths) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["schedule"] = {
      {"start", "2026-12-01 00:00"},
      {"end", "2026-11-01T00:00:00Z"},
      {"dayparts",
       {{{"days", {"mon", "funday", "mon"}}, {"from_hour", 9}, {"to_hour", 9}},
        {{"days", json::array()}, {"from_hour", 24}}}}};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.start: must be an RFC 3339 instant"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.dayparts[0].days[1]: must be mon, tue"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.dayparts[0].days[2]: is listed twice"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.dayparts[0].to_hour: must be in [10, 24]"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.dayparts[1].days: must list at least one"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.dayparts[1].from_hour: must be in [0, 23]"));

  doc["campaigns"][0]["schedule"] = {{"start", "2026-12-01T00:00:00+01:00"},
                                     {"end", "2026-11-30T23:00:00Z"}};
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].schedule.end: must be after start"));
  doc["campaigns"][0]["schedule"]["end"] = "2026-12-31T23:00:00Z";
  doc["campaigns"][0]["schedule"]["dayparts"] = {
      {{"days", {"sat", "sun"}}, {"from_hour", 0}, {"to_hour", 24}}};
  absl::StatusOr<BidderConfig> config = testing::Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->campaigns[0].schedule.dayparts[0].days,
            (std::vector<std::string>{"sat", "sun"}));
  EXPECT_EQ(ScheduleInstantMillis("2026-12-01T00:00:00+01:00"), int64_t{1796079600000});
  EXPECT_EQ(ScheduleDayIndex("sun"), 6);
  EXPECT_EQ(ScheduleDayIndex("Sun"), std::nullopt);
}

}  // namespace
}  // namespace rtb::config
