// The auction on the example configuration's campaigns: the shared IAB
// requests, floors and currencies, deals, caps, segments, pacing.
#include "bidder/bid/internal/auction.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bidder/bid/currency.h"
#include "bidder/bid/internal/campaign_index.h"
#include "bidder/bid/pacing_snapshot.h"
#include "gtest/gtest.h"
#include "tests/bidder/decision_fixtures.h"

namespace rtb::bidder {
namespace {

using testing::ExampleConfig;
using testing::FixtureRequest;
using testing::kNoonUtcMillis;
using testing::MustParse;
using testing::ProfileRow;
using testing::Qualifier;

// Refuses the campaigns it is told to, allows the rest. Asked at the
// auction's time (AuctionTest runs every auction at noon).
class StoppedCampaigns final : public PacingSnapshot {
 public:
  explicit StoppedCampaigns(std::vector<size_t> stopped) : stopped_(std::move(stopped)) {}
  bool MayBid(size_t campaign_index, double uniform, int64_t now_ms) const override {
    EXPECT_GE(uniform, 0.0);
    EXPECT_LT(uniform, 1.0);
    EXPECT_EQ(now_ms, kNoonUtcMillis);
    return std::find(stopped_.begin(), stopped_.end(), campaign_index) == stopped_.end();
  }

 private:
  std::vector<size_t> stopped_;
};

class AuctionTest : public ::testing::Test {
 protected:
  AuctionTest() : config_(ExampleConfig()) {
    absl::StatusOr<CurrencyTable> currencies = CurrencyTable::Create(config_.bid.currency_rates);
    EXPECT_TRUE(currencies.ok());
    currencies_ = *std::move(currencies);
    absl::StatusOr<CampaignIndex> index =
        CampaignIndex::Build(config_.campaigns, config_.bid.default_currency, currencies_);
    EXPECT_TRUE(index.ok()) << index.status();
    index_ = *std::move(index);
  }

  AuctionResult Run(std::string_view json, const ProfileRow* profile_row = nullptr,
                    const PacingSnapshot* pacing = nullptr) {
    request_ = MustParse(json);
    storage::RowResult row;
    Profile profile;
    if (profile_row != nullptr) {
      row = profile_row->Build();
      profile = Profile(row);
    }
    const UnpacedSnapshot unpaced;
    Auction auction(index_, currencies_, pacing != nullptr ? *pacing : unpaced);
    AuctionInput input;
    input.request = &request_;
    input.profile = &profile;
    input.now = absl::FromUnixMillis(kNoonUtcMillis);
    input.exchange_seat = "rtb-bidder";
    AuctionResult result;
    auction.Run(input, &result);
    return result;
  }

  size_t IndexOf(const std::string& campaign_id) const {
    for (const Campaign& c : index_.campaigns()) {
      if (c.id == campaign_id) return c.index;
    }
    ADD_FAILURE() << "no campaign " << campaign_id;
    return 0;
  }

  config::BidderConfig config_;
  CurrencyTable currencies_ = *CurrencyTable::Create({});
  CampaignIndex index_;
  openrtb::BidRequest request_;
};

// A 300x250 banner on a neutral site; northwind (2.5 USD) is the open-auction
// campaign that fits it, litware (3.2 GBP) too when the cart segment is held.
constexpr std::string_view kMrec = R"({"id":"r1","imp":[{"id":"1","banner":{"w":300,"h":250}}],
    "site":{"domain":"news.example","cat":["IAB12"]},"device":{"ifa":"6d92078a-8246-4ba4-ae5b-76104861e7dc"}})";

// kNoonUtcMillis is Sunday 2026-10-04 12:00 UTC, 08:00 in New York
// (northwind's time zone).
TEST_F(AuctionTest, ACampaignBidsOnlyInItsFlightAndDayparts) {
  const auto bids_with = [&](const config::CampaignScheduleConfig& schedule) {
    for (config::CampaignConfig& campaign : config_.campaigns) {
      if (campaign.id == "northwind-travel-display") campaign.schedule = schedule;
    }
    absl::StatusOr<CampaignIndex> index =
        CampaignIndex::Build(config_.campaigns, config_.bid.default_currency, currencies_);
    EXPECT_TRUE(index.ok()) << index.status();
    index_ = *std::move(index);
    const AuctionResult result = Run(kMrec);
    return !result.bids.empty() && result.bids[0].campaign->id == "northwind-travel-display";
  };
  EXPECT_TRUE(bids_with({}));
  EXPECT_TRUE(bids_with({.start = "2026-10-04T12:00:00Z", .end = "2026-10-04T12:00:00.001Z"}));
  EXPECT_FALSE(bids_with({.start = "2026-10-04T12:00:00.001Z"}));
  EXPECT_FALSE(bids_with({.end = "2026-10-04T08:00:00-04:00"}));  // the end is not in it
  // Dayparts in the campaign's time zone: Sunday 08:00 there.
  EXPECT_TRUE(bids_with({.dayparts = {{.days = {"sun"}, .from_hour = 8, .to_hour = 9}}}));
  EXPECT_FALSE(bids_with({.dayparts = {{.days = {"sun"}, .from_hour = 12, .to_hour = 13}}}));
  EXPECT_FALSE(bids_with({.dayparts = {{.days = {"mon", "sat"}, .from_hour = 0, .to_hour = 24}}}));
  EXPECT_TRUE(bids_with({.dayparts = {{.days = {"mon"}}, {.days = {"sat", "sun"}, .to_hour = 9}}}));
}

TEST_F(AuctionTest, SimpleBannerSampleGoesToNorthwindMrec) {
  const AuctionResult result = Run(FixtureRequest("site-banner-mrec.json"));
  ASSERT_EQ(result.bids.size(), 1u);
  const ImpBid& bid = result.bids[0];
  EXPECT_EQ(bid.campaign->id, "northwind-travel-display");
  EXPECT_EQ(bid.creative->id, "nw-mrec-summer");
  EXPECT_EQ(bid.creative->w, 300);
  EXPECT_EQ(bid.creative->h, 250);
  EXPECT_DOUBLE_EQ(bid.price, 2.5);
  EXPECT_EQ(bid.deal, nullptr);
  EXPECT_EQ(bid.seat, "rtb-bidder");
  EXPECT_EQ(result.currency, "USD");
}

TEST_F(AuctionTest, MobileAppSampleGoesToNorthwindLeaderboardOverFabrikam) {
  const AuctionResult result = Run(FixtureRequest("app-banner-leaderboard.json"));
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.bids[0].campaign->id, "northwind-travel-display");
  EXPECT_EQ(result.bids[0].creative->id, "nw-leader-summer");
  EXPECT_EQ(result.bids[0].creative->w, 728);
  EXPECT_EQ(result.bids[0].creative->h, 90);
  EXPECT_DOUBLE_EQ(result.bids[0].price, 2.5);
  EXPECT_EQ(result.currency, "USD");  // no `cur`: OpenRTB's default

  // Without northwind, fabrikam's app targeting (device type 1, IAB15 app)
  // makes it the winner at its 1.8.
  const StoppedCampaigns pacing({IndexOf("northwind-travel-display")});
  const AuctionResult paced = Run(FixtureRequest("app-banner-leaderboard.json"), nullptr, &pacing);
  ASSERT_EQ(paced.bids.size(), 1u);
  EXPECT_EQ(paced.bids[0].campaign->id, "fabrikam-mobile-apps");
  EXPECT_EQ(paced.bids[0].creative->id, "fab-leader-728x90");
  EXPECT_DOUBLE_EQ(paced.bids[0].price, 1.8);
}

TEST_F(AuctionTest, PrivateDealSampleGoesToContosoThroughItsDeal) {
  const AuctionResult result = Run(FixtureRequest("site-pmp-deals.json"));
  ASSERT_EQ(result.bids.size(), 1u);
  const ImpBid& bid = result.bids[0];
  EXPECT_EQ(bid.campaign->id, "contoso-agency1-deal");
  EXPECT_EQ(bid.creative->id, "contoso-mrec-deal");
  ASSERT_NE(bid.deal, nullptr);
  EXPECT_EQ(bid.deal->id, "AB-Agency1-0001");
  EXPECT_EQ(bid.seat, "Agency1");
  EXPECT_DOUBLE_EQ(bid.price, 4.0);
  EXPECT_TRUE(bid.creative->nurl_delivery);
}

TEST_F(AuctionTest, DealFloorAboveMaxBidIsNoBid) {
  const AuctionResult result = Run(R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},
      "pmp":{"private_auction":1,"deals":[{"id":"AB-Agency1-0001","bidfloor":4.5,"wseat":["Agency1"]}]}}]})");
  EXPECT_TRUE(result.bids.empty());
  EXPECT_EQ(result.rejection, Rejection::kFloor);
}

TEST_F(AuctionTest, DealWseatWithoutOurSeatIsNoBid) {
  const AuctionResult result = Run(R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},
      "pmp":{"private_auction":1,"deals":[{"id":"AB-Agency1-0001","wseat":["Agency2"]}]}}]})");
  EXPECT_TRUE(result.bids.empty());
  EXPECT_EQ(result.rejection, Rejection::kSeat);
}

TEST_F(AuctionTest, OpenImpressionWithDealsTakesTheBestOfDealAndOpenBids) {
  // Not private: northwind may bid in the open auction next to contoso's deal;
  // contoso's 4.0 wins.
  const AuctionResult result = Run(R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},
      "pmp":{"deals":[{"id":"AB-Agency1-0001","bidfloor":1}]}}]})");
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.bids[0].campaign->id, "contoso-agency1-deal");
  ASSERT_NE(result.bids[0].deal, nullptr);
}

TEST_F(AuctionTest, FloorInAnotherCurrencyIsConverted) {
  // 2.3 EUR = 2.484 USD: northwind's 2.5 USD clears it.
  AuctionResult result = Run(R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},
      "bidfloor":2.3,"bidfloorcur":"EUR"}],"site":{"domain":"news.example"}})");
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.bids[0].campaign->id, "northwind-travel-display");
  // 2.4 EUR = 2.592 USD does not.
  result = Run(R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},
      "bidfloor":2.4,"bidfloorcur":"EUR"}],"site":{"domain":"news.example"}})");
  EXPECT_TRUE(result.bids.empty());
  EXPECT_EQ(result.rejection, Rejection::kFloor);
}

TEST_F(AuctionTest, FloorEqualToPriceClears) {
  const AuctionResult result = Run(R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},
      "bidfloor":2.5}],"site":{"domain":"news.example"}})");
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_DOUBLE_EQ(result.bids[0].price, 2.5);
}

TEST_F(AuctionTest, FloorInUnknownCurrencyIsNoBid) {
  const AuctionResult result = Run(R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},
      "bidfloor":0.1,"bidfloorcur":"CHF"}],"site":{"domain":"news.example"}})");
  EXPECT_TRUE(result.bids.empty());
  EXPECT_EQ(result.rejection, Rejection::kFloor);
}

TEST_F(AuctionTest, RespondsInFirstAcceptableCurrency) {
  AuctionResult result = Run(R"({"id":"r","cur":["CHF","EUR","USD"],
      "imp":[{"id":"1","banner":{"w":300,"h":250}}],"site":{"domain":"news.example"}})");
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.currency, "EUR");
  EXPECT_DOUBLE_EQ(result.bids[0].price, 2.5 / 1.08);

  result = Run(R"({"id":"r","cur":["CHF"],"imp":[{"id":"1","banner":{"w":300,"h":250}}]})");
  EXPECT_TRUE(result.bids.empty());
  EXPECT_TRUE(result.no_currency);
}

TEST_F(AuctionTest, CampaignInEurBidsItsConvertedMax) {
  // tailspin: 9 EUR video in DEU on a PC.
  const AuctionResult result = Run(R"({"id":"r","imp":[{"id":"1",
      "video":{"mimes":["video/mp4"],"w":640,"h":360,"maxduration":30},"bidfloor":5}],
      "device":{"devicetype":2,"geo":{"country":"DEU"}}})");
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.bids[0].campaign->id, "tailspin-video-dach");
  EXPECT_EQ(result.bids[0].creative->media, MediaType::kVideo);
  EXPECT_DOUBLE_EQ(result.bids[0].price, 9.0 * 1.08);

  const AuctionResult france = Run(R"({"id":"r","imp":[{"id":"1",
      "video":{"mimes":["video/mp4"]}}],"device":{"devicetype":2,"geo":{"country":"FRA"}}})");
  EXPECT_TRUE(france.bids.empty());
  EXPECT_TRUE(france.no_candidates);
}

TEST_F(AuctionTest, BlockedAdvertiserAndCategory) {
  AuctionResult result = Run(R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],
      "badv":["northwind-travel.example"],"site":{"domain":"news.example"}})");
  EXPECT_TRUE(result.bids.empty());
  EXPECT_EQ(result.rejection, Rejection::kSegments);  // litware got further: it lacks the segment

  result = Run(R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],
      "bcat":["IAB20-18"],"site":{"domain":"foobar.com"}})");
  EXPECT_TRUE(result.bids.empty());
  // northwind's creatives are all IAB20-18; litware is denied on foobar.com.
  EXPECT_EQ(result.rejection, Rejection::kTargeting);
}

TEST_F(AuctionTest, SegmentTargetedCampaignWinsWithTheSegment) {
  const ProfileRow with_segment{{"cart-abandoner-30d"}, {}};
  AuctionResult result = Run(kMrec, &with_segment);
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.bids[0].campaign->id, "litware-retargeting");
  EXPECT_EQ(result.bids[0].creative->id, "litware-mrec-cart");
  EXPECT_DOUBLE_EQ(result.bids[0].price, 3.2 * 1.27);

  const ProfileRow other_segment{{"sports-fan"}, {}};
  result = Run(kMrec, &other_segment);
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.bids[0].campaign->id, "northwind-travel-display");
}

TEST_F(AuctionTest, CampaignAtItsCapIsSkipped) {
  // Noon UTC is 08:00 on 4 October in New York (northwind's zone), cap 12.
  const ProfileRow at_cap{{}, {{Qualifier("northwind-travel-display", 2026, 10, 4), 12}}};
  AuctionResult result = Run(kMrec, &at_cap);
  EXPECT_TRUE(result.bids.empty());
  EXPECT_EQ(result.rejection, Rejection::kFrequencyCap);

  const ProfileRow below_cap{{}, {{Qualifier("northwind-travel-display", 2026, 10, 4), 11}}};
  result = Run(kMrec, &below_cap);
  ASSERT_EQ(result.bids.size(), 1u);

  const ProfileRow yesterday{{}, {{Qualifier("northwind-travel-display", 2026, 10, 3), 12}}};
  result = Run(kMrec, &yesterday);
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.bids[0].campaign->id, "northwind-travel-display");
}

TEST_F(AuctionTest, CapInTheCampaignsZoneNotUtc) {
  // tailspin (Europe/Berlin, cap 4): at 2026-10-04T22:30Z it is already the
  // 5th in Berlin, so a counter for the 4th no longer applies, and one for
  // the 5th does.
  const std::string video = R"({"id":"r","imp":[{"id":"1","video":{"mimes":["video/mp4"]}}],
      "device":{"devicetype":3,"geo":{"country":"AUT"}}})";
  request_ = MustParse(video);
  const UnpacedSnapshot unpaced;
  Auction auction(index_, currencies_, unpaced);
  AuctionInput input;
  input.request = &request_;
  input.now = absl::FromUnixMillis(kNoonUtcMillis) + absl::Hours(10) + absl::Minutes(30);
  AuctionResult result;

  const storage::RowResult fourth =
      ProfileRow{{}, {{Qualifier("tailspin-video-dach", 2026, 10, 4), 4}}}.Build();
  const Profile p4(fourth);
  input.profile = &p4;
  auction.Run(input, &result);
  EXPECT_EQ(result.bids.size(), 1u);

  const storage::RowResult fifth =
      ProfileRow{{}, {{Qualifier("tailspin-video-dach", 2026, 10, 5), 4}}}.Build();
  const Profile p5(fifth);
  input.profile = &p5;
  auction.Run(input, &result);
  EXPECT_TRUE(result.bids.empty());
  EXPECT_EQ(result.rejection, Rejection::kFrequencyCap);
}

TEST_F(AuctionTest, OneRequestDoesNotBidPastTheCap) {
  // Two 300x250 impressions; northwind has one impression left today, so it
  // takes the first and nothing else fits the second.
  const ProfileRow one_left{{}, {{Qualifier("northwind-travel-display", 2026, 10, 4), 11}}};
  const AuctionResult result = Run(R"({"id":"r","imp":[{"id":"a","banner":{"w":300,"h":250}},
      {"id":"b","banner":{"w":300,"h":250}}],"site":{"domain":"news.example"}})",
                                   &one_left);
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.bids[0].imp_index, 0u);
}

TEST_F(AuctionTest, OneBidPerImpressionAcrossSeveralImpressions) {
  const AuctionResult result = Run(R"({"id":"r","imp":[
      {"id":"a","banner":{"w":728,"h":90}},
      {"id":"b","banner":{"w":300,"h":600}},
      {"id":"c","banner":{"format":[{"w":320,"h":50}]}}],
      "device":{"devicetype":4},"app":{"cat":["IAB19"]}})");
  ASSERT_EQ(result.bids.size(), 2u);
  EXPECT_EQ(result.bids[0].imp_index, 0u);
  EXPECT_EQ(result.bids[0].campaign->id, "northwind-travel-display");
  EXPECT_EQ(result.bids[1].imp_index, 2u);
  EXPECT_EQ(result.bids[1].campaign->id, "fabrikam-mobile-apps");
  EXPECT_EQ(result.bids[1].creative->id, "fab-banner-320x50");
}

TEST_F(AuctionTest, PreferredBannerSizeChoosesTheCreative) {
  // Both northwind creatives fit; banner.w/h names the preferred one.
  const AuctionResult result = Run(R"({"id":"r","imp":[{"id":"1","banner":{"w":728,"h":90,
      "format":[{"w":300,"h":250},{"w":728,"h":90}]}}],"site":{"domain":"foobar.com"}})");
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_EQ(result.bids[0].creative->id, "nw-leader-summer");
}

TEST_F(AuctionTest, PacingStopsAllMeansNoBidForPacing) {
  std::vector<size_t> all;
  for (size_t i = 0; i < index_.size(); ++i) all.push_back(i);
  const StoppedCampaigns pacing(all);
  const AuctionResult result = Run(kMrec, nullptr, &pacing);
  EXPECT_TRUE(result.bids.empty());
  EXPECT_EQ(result.rejection, Rejection::kPacing);
}

// A 300x250 banner with regs.ext.dsa as given.
std::string MrecWithDsa(std::string_view dsa) {
  return R"({"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],)"
         R"("site":{"domain":"news.example"},"regs":{"ext":{"dsa":)" +
         std::string(dsa) + "}}}";
}

TEST_F(AuctionTest, DsaRequiredBidsCarryTheCampaignsDsa) {
  // northwind has a dsa block whose creatives do not render the notice.
  for (const char* required : {"2", "3"}) {
    SCOPED_TRACE(required);
    const AuctionResult result =
        Run(MrecWithDsa(absl::StrCat(R"({"dsarequired":)", required, R"(,"pubrender":2})")));
    ASSERT_EQ(result.bids.size(), 1u);
    EXPECT_EQ(result.bids[0].campaign->id, "northwind-travel-display");
    EXPECT_TRUE(result.bids[0].dsa.attach);
    EXPECT_EQ(result.bids[0].dsa.adrender, 0);
  }
  // Supported but not required: attached all the same.
  AuctionResult result = Run(MrecWithDsa(R"({"dsarequired":1})"));
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_TRUE(result.bids[0].dsa.attach);
  // No signal, or not required: nothing attached.
  result = Run(MrecWithDsa(R"({"dsarequired":0})"));
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_FALSE(result.bids[0].dsa.attach);
  result = Run(kMrec);
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_FALSE(result.bids[0].dsa.attach);
}

TEST_F(AuctionTest, DsaRequiredWithoutWhatTheCampaignMustGiveIsNoBidForDsa) {
  // The publisher cannot render the notice and northwind's creatives do not:
  // required, so no bid; merely supported, so a bid without ext.dsa.
  AuctionResult result = Run(MrecWithDsa(R"({"dsarequired":3,"pubrender":0})"));
  EXPECT_TRUE(result.bids.empty());
  EXPECT_EQ(result.rejection, Rejection::kDsa);
  result = Run(MrecWithDsa(R"({"dsarequired":1,"pubrender":0})"));
  ASSERT_EQ(result.bids.size(), 1u);
  EXPECT_FALSE(result.bids[0].dsa.attach);

  // fabrikam has no dsa block: with DSA required it leaves the 320x50 to nobody.
  const std::string app = R"({"id":"r","imp":[{"id":"1","banner":{"w":320,"h":50}}],)"
                          R"("app":{"id":"a","cat":["IAB19"]},"device":{"devicetype":4},)"
                          R"("regs":{"ext":{"dsa":{"dsarequired":2}}}})";
  result = Run(app);
  EXPECT_TRUE(result.bids.empty());
  EXPECT_EQ(result.rejection, Rejection::kDsa);
  // Unknown values read as the strictest.
  result = Run(MrecWithDsa(R"({"dsarequired":9,"pubrender":7})"));
  EXPECT_TRUE(result.bids.empty());
  EXPECT_EQ(result.rejection, Rejection::kDsa);
}

TEST_F(AuctionTest, PreviewSaysWhetherAProfileCouldMatter) {
  const UnpacedSnapshot unpaced;
  Auction auction(index_, currencies_, unpaced);
  // northwind has a cap: a profile matters.
  AuctionPreview preview = auction.Preview(MustParse(kMrec));
  EXPECT_TRUE(preview.currency_acceptable);
  EXPECT_TRUE(preview.any_candidates);
  EXPECT_TRUE(preview.needs_profile);
  // ... and litware's required segment too.
  EXPECT_TRUE(preview.needs_frequency_caps);
  EXPECT_TRUE(preview.needs_segments);
  // A leaderboard: northwind and fabrikam, capped, none with segments.
  preview = auction.Preview(MustParse(FixtureRequest("app-banner-leaderboard.json")));
  EXPECT_TRUE(preview.needs_frequency_caps);
  EXPECT_FALSE(preview.needs_segments);
  // Only contoso (no cap, no segments) can serve a private Agency1 deal.
  preview = auction.Preview(MustParse(FixtureRequest("site-pmp-deals.json")));
  EXPECT_TRUE(preview.any_candidates);
  EXPECT_FALSE(preview.needs_profile);
  preview = auction.Preview(MustParse(R"({"id":"r","imp":[{"id":"1","banner":{"w":1,"h":1}}]})"));
  EXPECT_FALSE(preview.any_candidates);
  preview = auction.Preview(MustParse(R"({"id":"r","cur":["XXX"],"imp":[{"id":"1"}]})"));
  EXPECT_FALSE(preview.currency_acceptable);
}

// The capped candidates, for reads under cap-only keys: each once, however
// many impressions it is a candidate for.
TEST_F(AuctionTest, PreviewListsTheCappedCandidates) {
  const UnpacedSnapshot unpaced;
  Auction auction(index_, currencies_, unpaced);
  auto ids = [&](const std::vector<size_t>& positions) {
    std::vector<std::string> out;
    for (size_t position : positions) out.push_back(index_.campaign(position).id);
    std::sort(out.begin(), out.end());
    return out;
  };
  std::vector<size_t> capped = {99};  // replaced
  auction.Preview(MustParse(kMrec), true, &capped);
  EXPECT_EQ(ids(capped),
            (std::vector<std::string>{"litware-retargeting", "northwind-travel-display"}));
  openrtb::BidRequest two = MustParse(FixtureRequest("app-banner-leaderboard.json"));
  two.imp.push_back(two.imp[0]);
  two.imp.back().id = "2";
  auction.Preview(two, true, &capped);
  EXPECT_EQ(ids(capped),
            (std::vector<std::string>{"fabrikam-mobile-apps", "northwind-travel-display"}));
  // contoso has no cap.
  auction.Preview(MustParse(FixtureRequest("site-pmp-deals.json")), true, &capped);
  EXPECT_TRUE(capped.empty());
}

}  // namespace
}  // namespace rtb::bidder
