// Targeting rules (domains, categories, blocks, segments, creative fit) and
// the campaign index's candidate selection.
#include "bidder/bid/internal/targeting.h"

#include <vector>

#include "bidder/bid/internal/campaign_index.h"
#include "gtest/gtest.h"
#include "tests/bidder/decision_fixtures.h"

namespace rtb::bidder {
namespace {

using testing::MustParse;
using testing::ProfileRow;

TEST(DomainMatchesTest, DomainAndSubdomainsOnly) {
  EXPECT_TRUE(DomainMatches("foobar.com", "foobar.com"));
  EXPECT_TRUE(DomainMatches("www.foobar.com", "foobar.com"));
  EXPECT_TRUE(DomainMatches("a.b.FooBar.com", "foobar.COM"));
  EXPECT_FALSE(DomainMatches("notfoobar.com", "foobar.com"));
  EXPECT_FALSE(DomainMatches("foobar.com.evil", "foobar.com"));
  EXPECT_FALSE(DomainMatches("foobar.com", "www.foobar.com"));
  EXPECT_FALSE(DomainMatches("foobar.com", ""));
}

TEST(CategoryTest, TierOneCoversSubcategories) {
  EXPECT_TRUE(CategoryBlocked("IAB7-39", {"IAB7"}));
  EXPECT_TRUE(CategoryBlocked("IAB7", {"IAB7"}));
  EXPECT_TRUE(CategoryBlocked("IAB7-39", {"IAB7-39"}));
  EXPECT_FALSE(CategoryBlocked("IAB7", {"IAB7-39"}));
  EXPECT_FALSE(CategoryBlocked("IAB17", {"IAB1"}));
  EXPECT_FALSE(CategoryBlocked("IAB1-7", {"IAB17"}));
  EXPECT_TRUE(ContentCategoryMatches("IAB15-10", "IAB15"));
  EXPECT_FALSE(ContentCategoryMatches("IAB15", "IAB15-10"));
  EXPECT_FALSE(ContentCategoryMatches("IAB150", "IAB15"));
}

config::CampaignConfig BannerCampaign(const std::string& id) {
  config::CampaignConfig c;
  c.id = id;
  c.advertiser_domains = {"advertiser.example"};
  c.daily_budget_micros = 1000000;
  c.max_bid_cpm = 2.0;
  config::CreativeConfig creative;
  creative.id = id + "-300x250";
  creative.w = 300;
  creative.h = 250;
  creative.adm = "<a href=\"${CLICK_URL}\"><img src=\"https://cdn.example/a.png\"></a>";
  creative.landing_url = "https://advertiser.example/";
  c.creatives = {creative};
  return c;
}

CampaignIndex Build(const std::vector<config::CampaignConfig>& campaigns) {
  absl::StatusOr<CurrencyTable> currencies = CurrencyTable::Create({{"USD", 1.0}, {"EUR", 1.08}});
  EXPECT_TRUE(currencies.ok());
  absl::StatusOr<CampaignIndex> index = CampaignIndex::Build(campaigns, "USD", *currencies);
  EXPECT_TRUE(index.ok()) << index.status();
  return *std::move(index);
}

std::vector<size_t> CandidatesOf(const CampaignIndex& index, const openrtb::BidRequest& request,
                                 size_t imp = 0) {
  CampaignSet set;
  index.Candidates(request, request.imp[imp], &set);
  std::vector<size_t> out;
  set.ForEach([&](size_t i) { out.push_back(i); });
  return out;
}

TEST(CampaignIndexTest, SelectsBySizeCountryDeviceAndDeal) {
  std::vector<config::CampaignConfig> campaigns;
  campaigns.push_back(BannerCampaign("any"));      // 0
  campaigns.push_back(BannerCampaign("germany"));  // 1
  campaigns.back().targeting.countries = {"DEU"};
  campaigns.push_back(BannerCampaign("phones"));  // 2
  campaigns.back().targeting.device_types = {4};
  campaigns.push_back(BannerCampaign("deal"));  // 3
  campaigns.back().targeting.deal_ids = {"D1"};
  campaigns.push_back(BannerCampaign("leaderboard"));  // 4
  campaigns.back().creatives[0].w = 728;
  campaigns.back().creatives[0].h = 90;
  campaigns.push_back(BannerCampaign("off"));  // 5
  campaigns.back().enabled = false;
  const CampaignIndex index = Build(campaigns);

  const openrtb::BidRequest german_phone = MustParse(R"({"id":"r","imp":[{"id":"1",
      "banner":{"format":[{"w":300,"h":250}]}}],"device":{"devicetype":4,"geo":{"country":"DEU"}}})");
  EXPECT_EQ(CandidatesOf(index, german_phone), (std::vector<size_t>{0, 1, 2}));

  const openrtb::BidRequest french_pc = MustParse(R"({"id":"r","imp":[{"id":"1",
      "banner":{"w":300,"h":250}}],"device":{"devicetype":2,"geo":{"country":"FRA"}}})");
  EXPECT_EQ(CandidatesOf(index, french_pc), (std::vector<size_t>{0}));

  const openrtb::BidRequest no_device = MustParse(R"({"id":"r","imp":[{"id":"1",
      "banner":{"w":728,"h":90,"format":[{"w":300,"h":250}]}}]})");
  EXPECT_EQ(CandidatesOf(index, no_device), (std::vector<size_t>{0, 4}));

  const openrtb::BidRequest open_deal = MustParse(R"({"id":"r","imp":[{"id":"1",
      "banner":{"w":300,"h":250},"pmp":{"deals":[{"id":"D1"}]}}]})");
  EXPECT_EQ(CandidatesOf(index, open_deal), (std::vector<size_t>{0, 3}));

  const openrtb::BidRequest private_deal = MustParse(R"({"id":"r","imp":[{"id":"1",
      "banner":{"w":300,"h":250},"pmp":{"private_auction":1,"deals":[{"id":"D1"}]}}]})");
  EXPECT_EQ(CandidatesOf(index, private_deal), (std::vector<size_t>{3}));

  const openrtb::BidRequest other_deal = MustParse(R"({"id":"r","imp":[{"id":"1",
      "banner":{"w":300,"h":250},"pmp":{"private_auction":1,"deals":[{"id":"D2"}]}}]})");
  EXPECT_TRUE(CandidatesOf(index, other_deal).empty());

  const openrtb::BidRequest video = MustParse(R"({"id":"r","imp":[{"id":"1",
      "video":{"mimes":["video/mp4"]}}]})");
  EXPECT_TRUE(CandidatesOf(index, video).empty());
}

TEST(CampaignIndexTest, ManyCampaignsSpanSeveralWords) {
  std::vector<config::CampaignConfig> campaigns;
  for (int i = 0; i < 200; ++i) {
    campaigns.push_back(BannerCampaign("c" + std::to_string(i)));
    if (i % 3 == 0) campaigns.back().targeting.countries = {"USA"};
    if (i % 3 == 1) campaigns.back().targeting.countries = {"CAN"};
  }
  const CampaignIndex index = Build(campaigns);
  const openrtb::BidRequest request = MustParse(R"({"id":"r","imp":[{"id":"1",
      "banner":{"w":300,"h":250}}],"device":{"geo":{"country":"CAN"}}})");
  const std::vector<size_t> candidates = CandidatesOf(index, request);
  ASSERT_EQ(candidates.size(), 133u);
  for (size_t i : candidates) EXPECT_NE(i % 3, 0u) << i;
  EXPECT_EQ(candidates.back(), 199u);
}

TEST(CampaignIndexTest, PromotedAppComesFromStoreLandingUrls) {
  std::vector<config::CampaignConfig> campaigns = {BannerCampaign("a"), BannerCampaign("b"),
                                                   BannerCampaign("c")};
  campaigns[0].creatives[0].landing_url =
      "https://play.google.com/store/apps/details?id=com.example.game&hl=en";
  campaigns[1].creatives[0].landing_url = "https://apps.apple.com/us/app/example-game/id628677149";
  const CampaignIndex index = Build(campaigns);
  EXPECT_EQ(index.campaign(0).creatives[0].promoted_app, "com.example.game");
  EXPECT_EQ(index.campaign(1).creatives[0].promoted_app, "628677149");
  EXPECT_EQ(index.campaign(2).creatives[0].promoted_app, "");
}

TEST(CampaignIndexTest, RejectsUnusableCampaigns) {
  absl::StatusOr<CurrencyTable> currencies = CurrencyTable::Create({{"USD", 1.0}});
  std::vector<config::CampaignConfig> campaigns = {BannerCampaign("x")};
  campaigns[0].currency = "CHF";
  absl::StatusOr<CampaignIndex> index = CampaignIndex::Build(campaigns, "USD", *currencies);
  ASSERT_FALSE(index.ok());
  EXPECT_NE(std::string(index.status().message()).find("campaigns[0] (x)"), std::string::npos);
  campaigns[0].currency = "";
  campaigns[0].time_zone = "Mars/Olympus_Mons";
  EXPECT_FALSE(CampaignIndex::Build(campaigns, "USD", *currencies).ok());
}

class CheckCampaignTest : public ::testing::Test {
 protected:
  Rejection Check(const config::CampaignConfig& config, std::string_view json,
                  const ProfileRow& profile_row = {}, std::string_view seat = "") {
    index_ = Build({config});
    request_ = MustParse(json);
    RequestFacts facts;
    facts.Reset(request_);
    row_ = profile_row.Build();
    const Profile profile =
        profile_row.segments.empty() && profile_row.counters.empty() ? Profile() : Profile(row_);
    return CheckCampaign(index_.campaign(0), seat, facts, profile);
  }

  CampaignIndex index_;
  openrtb::BidRequest request_;
  storage::RowResult row_;
};

TEST_F(CheckCampaignTest, BadvBlocksAdvertiserAndItsSubdomains) {
  config::CampaignConfig c = BannerCampaign("a");
  c.advertiser_domains = {"shop.advertiser.example"};
  EXPECT_EQ(Check(c, R"({"id":"r","imp":[{"id":"1"}],"badv":["advertiser.example"]})"),
            Rejection::kBlocked);
  EXPECT_EQ(Check(c, R"({"id":"r","imp":[{"id":"1"}],"badv":["other.example"]})"),
            Rejection::kNone);
}

TEST_F(CheckCampaignTest, BcatBlocksCampaignCategories) {
  config::CampaignConfig c = BannerCampaign("a");
  c.iab_categories = {"IAB8-5"};
  EXPECT_EQ(Check(c, R"({"id":"r","imp":[{"id":"1"}],"bcat":["IAB8"]})"), Rejection::kBlocked);
  EXPECT_EQ(Check(c, R"({"id":"r","imp":[{"id":"1"}],"bcat":["IAB8-18"]})"), Rejection::kNone);
}

TEST_F(CheckCampaignTest, ContentCategoriesOfSiteOrApp) {
  config::CampaignConfig c = BannerCampaign("a");
  c.targeting.content_categories = {"IAB15"};
  EXPECT_EQ(Check(c, R"({"id":"r","imp":[{"id":"1"}],"app":{"cat":["IAB15-10"]}})"),
            Rejection::kNone);
  EXPECT_EQ(Check(c, R"({"id":"r","imp":[{"id":"1"}],"site":{"pagecat":["IAB15"]}})"),
            Rejection::kNone);
  EXPECT_EQ(Check(c, R"({"id":"r","imp":[{"id":"1"}],"site":{"cat":["IAB3-1"]}})"),
            Rejection::kTargeting);
  EXPECT_EQ(Check(c, R"({"id":"r","imp":[{"id":"1"}]})"), Rejection::kTargeting);
}

TEST_F(CheckCampaignTest, DomainAllowAndDenyLists) {
  config::CampaignConfig deny = BannerCampaign("a");
  deny.targeting.domains_deny = {"foobar.com"};
  EXPECT_EQ(Check(deny, R"({"id":"r","imp":[{"id":"1"}],"site":{"domain":"www.foobar.com"}})"),
            Rejection::kTargeting);
  EXPECT_EQ(
      Check(deny,
            R"({"id":"r","imp":[{"id":"1"}],"site":{"page":"https://WWW.FOOBAR.COM:8443/x"}})"),
      Rejection::kTargeting);
  EXPECT_EQ(Check(deny, R"({"id":"r","imp":[{"id":"1"}],"site":{"domain":"news.example"}})"),
            Rejection::kNone);
  EXPECT_EQ(Check(deny, R"({"id":"r","imp":[{"id":"1"}]})"), Rejection::kNone);

  config::CampaignConfig allow = BannerCampaign("a");
  allow.targeting.domains_allow = {"news.example"};
  EXPECT_EQ(Check(allow, R"({"id":"r","imp":[{"id":"1"}],"app":{"domain":"sport.news.example"}})"),
            Rejection::kNone);
  EXPECT_EQ(Check(allow, R"({"id":"r","imp":[{"id":"1"}],"site":{"domain":"foobar.com"}})"),
            Rejection::kTargeting);
  EXPECT_EQ(Check(allow, R"({"id":"r","imp":[{"id":"1"}]})"), Rejection::kTargeting);
}

TEST_F(CheckCampaignTest, RequiredSegmentsComeFromTheProfile) {
  config::CampaignConfig c = BannerCampaign("a");
  c.targeting.required_segments = {"cart-abandoner-30d", "uk"};
  const std::string request = R"({"id":"r","imp":[{"id":"1"}],
      "user":{"data":[{"segment":[{"id":"cart-abandoner-30d"},{"id":"uk"}]}]}})";
  EXPECT_EQ(Check(c, request), Rejection::kSegments);  // request segments do not count
  EXPECT_EQ(Check(c, request, ProfileRow{{"cart-abandoner-30d"}, {}}), Rejection::kSegments);
  EXPECT_EQ(Check(c, request, ProfileRow{{"cart-abandoner-30d", "uk", "other"}, {}}),
            Rejection::kNone);
}

TEST_F(CheckCampaignTest, RequestWseatMustHoldTheSeat) {
  config::CampaignConfig c = BannerCampaign("a");
  EXPECT_EQ(Check(c, R"({"id":"r","imp":[{"id":"1"}],"wseat":["s1"]})", {}, "s2"),
            Rejection::kSeat);
  EXPECT_EQ(Check(c, R"({"id":"r","imp":[{"id":"1"}],"wseat":["s1","s2"]})", {}, "s2"),
            Rejection::kNone);
}

Creative MakeCreative(MediaType media, int w, int h) {
  Creative c;
  c.id = "cr";
  c.media = media;
  c.w = w;
  c.h = h;
  return c;
}

Rejection Fit(const Creative& creative, std::string_view json) {
  const openrtb::BidRequest request = MustParse(json);
  RequestFacts facts;
  facts.Reset(request);
  return CheckCreative(creative, request.imp[0], facts);
}

TEST(CheckCreativeTest, BannerSizeFromWhOrFormat) {
  const Creative mrec = MakeCreative(MediaType::kBanner, 300, 250);
  EXPECT_EQ(Fit(mrec, R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}]})"),
            Rejection::kNone);
  EXPECT_EQ(
      Fit(mrec,
          R"({"id":"r","imp":[{"id":"1","banner":{"w":728,"h":90,"format":[{"w":300,"h":250}]}}]})"),
      Rejection::kNone);
  EXPECT_EQ(Fit(mrec, R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":600}}]})"),
            Rejection::kCreative);
  EXPECT_EQ(Fit(mrec, R"({"id":"r","imp":[{"id":"1","banner":{}}]})"), Rejection::kCreative);
  EXPECT_EQ(Fit(mrec, R"({"id":"r","imp":[{"id":"1","video":{"mimes":["video/mp4"]}}]})"),
            Rejection::kCreative);
}

TEST(CheckCreativeTest, VideoMimesAndDuration) {
  Creative video = MakeCreative(MediaType::kVideo, 640, 360);
  video.mimes = {"video/mp4"};
  video.duration_s = 15;
  EXPECT_EQ(
      Fit(video,
          R"({"id":"r","imp":[{"id":"1","video":{"mimes":["video/webm","VIDEO/MP4"],"minduration":5,"maxduration":30}}]})"),
      Rejection::kNone);
  EXPECT_EQ(Fit(video, R"({"id":"r","imp":[{"id":"1","video":{"mimes":["video/webm"]}}]})"),
            Rejection::kCreative);
  EXPECT_EQ(
      Fit(video,
          R"({"id":"r","imp":[{"id":"1","video":{"mimes":["video/mp4"],"maxduration":10}}]})"),
      Rejection::kCreative);
  EXPECT_EQ(
      Fit(video,
          R"({"id":"r","imp":[{"id":"1","video":{"mimes":["video/mp4"],"minduration":20}}]})"),
      Rejection::kCreative);
}

TEST(CheckCreativeTest, AudioAndNative) {
  Creative audio = MakeCreative(MediaType::kAudio, 0, 0);
  audio.mimes = {"audio/mp4"};
  audio.duration_s = 30;
  EXPECT_EQ(
      Fit(audio,
          R"({"id":"r","imp":[{"id":"1","audio":{"mimes":["audio/mp4"],"maxduration":30}}]})"),
      Rejection::kNone);
  EXPECT_EQ(Fit(audio, R"({"id":"r","imp":[{"id":"1","audio":{"mimes":["audio/mpeg"]}}]})"),
            Rejection::kCreative);
  Creative native = MakeCreative(MediaType::kNative, 0, 0);
  native.native.title = "Title";
  EXPECT_EQ(
      Fit(native,
          R"({"id":"r","imp":[{"id":"1","native":{"request":"{\"assets\":[{\"id\":1,\"title\":{}}]}"}}]})"),
      Rejection::kNone);
  // A native request it serves nothing of, or none at all.
  EXPECT_EQ(Fit(native, R"({"id":"r","imp":[{"id":"1","native":{"request":"{}"}}]})"),
            Rejection::kCreative);
  EXPECT_EQ(Fit(native, R"({"id":"r","imp":[{"id":"1","native":{"request":"not json"}}]})"),
            Rejection::kCreative);
  EXPECT_EQ(Fit(native, R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}]})"),
            Rejection::kCreative);
}

TEST(CheckCreativeTest, SecureImpressionNeedsHttpsMarkup) {
  Creative insecure = MakeCreative(MediaType::kBanner, 300, 250);
  insecure.secure = false;
  EXPECT_EQ(Fit(insecure, R"({"id":"r","imp":[{"id":"1","secure":1,"banner":{"w":300,"h":250}}]})"),
            Rejection::kCreative);
  EXPECT_EQ(Fit(insecure, R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}]})"),
            Rejection::kNone);
}

TEST(CheckCreativeTest, BcatOnCreativeCategoriesAndBapp) {
  Creative c = MakeCreative(MediaType::kBanner, 300, 250);
  c.categories = CategorySet::Of(1, {"IAB9", "IAB9-9"});
  c.promoted_app = "com.example.game";
  EXPECT_EQ(Fit(c, R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"bcat":["IAB9-9"]})"),
            Rejection::kBlocked);
  EXPECT_EQ(
      Fit(c,
          R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"bapp":["com.example.game"]})"),
      Rejection::kBlocked);
  EXPECT_EQ(
      Fit(c,
          R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"bapp":["com.other"],"bcat":["IAB9-5"]})"),
      Rejection::kNone);
}

}  // namespace
}  // namespace rtb::bidder
