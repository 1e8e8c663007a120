#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "bidder/openrtb/internal/nlohmann_reader.h"
#include "bidder/openrtb/openrtb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/bidder/openrtb/fixture_requests.h"
#include "tests/bidder/openrtb/parser_expectations.h"

namespace rtb::openrtb {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

using testing::ExpectMalformed;
using testing::ExpectRejected;
using testing::ParseOrDie;
using testing::WithImp;
using testing::WithTop;

TEST(BidRequestParserTest, EveryFixtureRequestParsesAndMatchesTheBaseline) {
  auto files = testing::LoadFixtureRequests();
  ASSERT_GE(files.size(), 20u) << "no fixture requests under " << RTB_OPENRTB_FIXTURES_DIR;
  for (const auto& file : files) {
    SCOPED_TRACE(file.name);
    absl::StatusOr<BidRequest> parsed = ParseBidRequest(file.json);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_FALSE(parsed->id.empty());
    EXPECT_FALSE(parsed->imp.empty());
    absl::StatusOr<BidRequest> baseline = internal::ParseBidRequestWithNlohmann(file.json);
    ASSERT_TRUE(baseline.ok()) << baseline.status();
    EXPECT_EQ(*parsed, *baseline);
  }
}

TEST(BidRequestParserTest, SiteBannerFixtureKeyFields) {
  std::string json = testing::ReadFixtureRequest("site-banner-mrec.json");
  ASSERT_FALSE(json.empty());
  BidRequest request = ParseOrDie(json);
  EXPECT_EQ(request.id, "3f1c9a2e-site-banner-mrec");
  EXPECT_EQ(request.at, 1);
  EXPECT_EQ(request.tmax, 150);
  EXPECT_THAT(request.cur, ElementsAre("USD"));
  ASSERT_EQ(request.imp.size(), 1u);
  const Imp& imp = request.imp[0];
  EXPECT_EQ(imp.id, "1");
  EXPECT_EQ(imp.tagid, "article-mid-1");
  EXPECT_DOUBLE_EQ(imp.bidfloor, 0.05);
  EXPECT_EQ(imp.bidfloorcur, "USD");
  EXPECT_TRUE(imp.secure);
  ASSERT_TRUE(imp.banner.has_value());
  EXPECT_EQ(imp.banner->w, 300);
  EXPECT_EQ(imp.banner->h, 250);
  EXPECT_TRUE(imp.banner->format.empty());
  ASSERT_TRUE(request.site.has_value());
  EXPECT_EQ(request.site->id, "s-48213");
  EXPECT_EQ(request.site->domain, "riverside-daily.example");
  EXPECT_EQ(request.site->page, "https://riverside-daily.example/local/2026/bridge-reopens");
  EXPECT_THAT(request.site->cat, ElementsAre("IAB12"));
  EXPECT_THAT(request.site->pagecat, ElementsAre("IAB12-3"));
  ASSERT_TRUE(request.site->publisher.has_value());
  EXPECT_EQ(request.site->publisher->id, "p-771");
  EXPECT_EQ(request.site->publisher->domain, "riverside-media.example");
  ASSERT_TRUE(request.device.has_value());
  EXPECT_EQ(request.device->devicetype, 2);
  ASSERT_TRUE(request.device->geo.has_value());
  EXPECT_EQ(request.device->geo->country, "USA");
  ASSERT_TRUE(request.user.has_value());
  EXPECT_EQ(request.user->id, "u-5d0f3e6a9b");
  EXPECT_FALSE(request.app.has_value());
  EXPECT_FALSE(request.test);
  EXPECT_FALSE(request.has_openrtb_2_6_fields);
}

TEST(BidRequestParserTest, AppBannerFixtureKeyFields) {
  std::string json = testing::ReadFixtureRequest("app-banner-leaderboard.json");
  ASSERT_FALSE(json.empty());
  BidRequest request = ParseOrDie(json);
  EXPECT_EQ(request.id, "b81e77d0-app-leaderboard");
  EXPECT_EQ(request.at, 2);
  EXPECT_THAT(request.bcat, ElementsAre("IAB25", "IAB26", "IAB7-39", "IAB8-5"));
  EXPECT_THAT(request.badv, ElementsAre("rival-airline.example", "coupons.example"));
  ASSERT_EQ(request.imp.size(), 1u);
  EXPECT_DOUBLE_EQ(request.imp[0].bidfloor, 0.4);
  EXPECT_FALSE(request.imp[0].instl);
  EXPECT_EQ(request.imp[0].tagid, "tablet-top-banner");
  ASSERT_TRUE(request.imp[0].banner.has_value());
  EXPECT_EQ(request.imp[0].banner->w, 728);
  EXPECT_EQ(request.imp[0].banner->h, 90);
  ASSERT_TRUE(request.app.has_value());
  EXPECT_EQ(request.app->bundle, "com.cloudwatch.forecast");
  EXPECT_EQ(request.app->storeurl,
            "https://play.google.com/store/apps/details?id=com.cloudwatch.forecast");
  EXPECT_THAT(request.app->cat, ElementsAre("IAB15", "IAB15-10"));
  ASSERT_TRUE(request.app->publisher.has_value());
  EXPECT_EQ(request.app->publisher->domain, "cloudwatch-apps.example");
  ASSERT_TRUE(request.device.has_value());
  const Device& device = *request.device;
  EXPECT_EQ(device.ifa, "9a4c2d7e-31b8-4f0a-8c61-2e5b9d04f713");
  EXPECT_THAT(device.ua, HasSubstr("Android 14"));
  EXPECT_EQ(device.dnt, false);
  EXPECT_EQ(device.lmt, false);
  EXPECT_EQ(device.devicetype, 5);
  EXPECT_EQ(device.connectiontype, 2);
  EXPECT_EQ(device.make, "Samsung");
  EXPECT_EQ(device.os, "Android");
  EXPECT_EQ(device.osv, "14");
  EXPECT_EQ(device.language, "en");
  EXPECT_FALSE(request.site.has_value());
}

TEST(BidRequestParserTest, PmpDealsFixtureKeyFields) {
  std::string json = testing::ReadFixtureRequest("site-pmp-deals.json");
  ASSERT_FALSE(json.empty());
  BidRequest request = ParseOrDie(json);
  ASSERT_EQ(request.imp.size(), 1u);
  ASSERT_TRUE(request.imp[0].pmp.has_value());
  const Pmp& pmp = *request.imp[0].pmp;
  EXPECT_TRUE(pmp.private_auction);
  ASSERT_EQ(pmp.deals.size(), 3u);
  EXPECT_EQ(pmp.deals[0].id, "QX-Agency7-0042");
  EXPECT_DOUBLE_EQ(pmp.deals[0].bidfloor, 6.0);
  EXPECT_EQ(pmp.deals[0].bidfloorcur, "USD");
  EXPECT_THAT(pmp.deals[0].wseat, ElementsAre("Agency7"));
  EXPECT_EQ(pmp.deals[1].id, "AB-Agency1-0001");
  EXPECT_DOUBLE_EQ(pmp.deals[1].bidfloor, 3.0);
  EXPECT_EQ(pmp.deals[1].at, 1);
  EXPECT_THAT(pmp.deals[1].wseat, ElementsAre("Agency1", "Agency3"));
  EXPECT_EQ(pmp.deals[2].id, "ZZ-Open-0100");
  EXPECT_EQ(pmp.deals[2].at, 3);
  EXPECT_TRUE(pmp.deals[2].wseat.empty());
  ASSERT_TRUE(request.device.has_value());
  EXPECT_THAT(request.device->ua, HasSubstr("Macintosh"));
}

TEST(BidRequestParserTest, NativeRequestAsStringOrObjectIsReadIntoTheModel) {
  BidRequest as_string = ParseOrDie(testing::ReadFixtureRequest("site-native-request-string.json"));
  ASSERT_TRUE(as_string.imp[0].native.has_value());
  ASSERT_TRUE(as_string.imp[0].native->request.has_value());
  const NativeRequest& from_string = *as_string.imp[0].native->request;
  EXPECT_EQ(from_string.ver, "1.2");
  EXPECT_EQ(from_string.context, 2);
  EXPECT_FALSE(from_string.wrapped);
  ASSERT_GE(from_string.assets.size(), 2u);
  EXPECT_EQ(from_string.assets[0].id, 1);
  EXPECT_TRUE(from_string.assets[0].required);
  ASSERT_TRUE(from_string.assets[0].title.has_value());
  EXPECT_EQ(from_string.assets[0].title->len, 90);
  EXPECT_EQ(from_string.assets[3].data->type, 12);
  EXPECT_FALSE(from_string.eventtrackers.empty());
  BidRequest as_object = ParseOrDie(testing::ReadFixtureRequest("site-native-request-object.json"));
  ASSERT_TRUE(as_object.imp[0].native.has_value());
  EXPECT_EQ(as_object.imp[0].native->ver, "1.2");
  ASSERT_TRUE(as_object.imp[0].native->request.has_value());
  const NativeRequest& from_object = *as_object.imp[0].native->request;
  ASSERT_EQ(from_object.assets.size(), 3u);
  EXPECT_EQ(from_object.assets[1].img->wmin, 1200);
  EXPECT_EQ(from_object.assets[2].data->len, 25);
  EXPECT_EQ(as_object.ignored, IgnoredInRequest{});
  // The object is part of the request: malformed inside it, or too deep,
  // rejects the request as anywhere else.
  ExpectMalformed(WithImp(R"("native":{"request":{"a":tru}})"));
  ExpectMalformed(WithImp(R"("native":{"request":{"assets":[{"id":1}, x]}})"));
  // Also past a wrong type that already made it unusable.
  ExpectMalformed(WithImp(R"("native":{"request":{"assets":[{"id":"1"}],"b":nul}})"));
  BidRequestParser shallow(BidRequestParser::Options{.max_depth = 5});
  EXPECT_TRUE(shallow.Parse(WithImp(R"("native":{"request":{"ver":"1.2"}})")).ok());
  EXPECT_FALSE(shallow.Parse(WithImp(R"("native":{"request":{"assets":[{}]}})")).ok());
  EXPECT_FALSE(
      shallow.Parse(WithImp(R"("native":{"request":{"ver":2,"assets":[{"title":[[]]}]}})")).ok());
}

TEST(BidRequestParserTest, Native11WrapperAndNumericVersionAreRead) {
  BidRequest r = ParseOrDie(
      WithImp(R"("native":{"ver":1.1,"request":"{\"native\":{\"ver\":\"1.1\",\"layout\":3,)"
              R"(\"assets\":[{\"id\":7,\"img\":{\"type\":3,\"wmin\":300,\"hmin\":200}}]}}"})"));
  ASSERT_TRUE(r.imp[0].native->request.has_value());
  const NativeRequest& request = *r.imp[0].native->request;
  EXPECT_TRUE(request.wrapped);
  EXPECT_EQ(request.ver, "1.1");
  EXPECT_EQ(r.imp[0].native->ver, "1.1");
  ASSERT_EQ(request.assets.size(), 1u);
  EXPECT_EQ(request.assets[0].img->wmin, 300);
  EXPECT_EQ(
      r,
      internal::ParseBidRequestWithNlohmann(
          WithImp(R"("native":{"ver":1.1,"request":"{\"native\":{\"ver\":\"1.1\",\"layout\":3,)"
                  R"(\"assets\":[{\"id\":7,\"img\":{\"type\":3,\"wmin\":300,\"hmin\":200}}]}}"})"))
          .value());
}

TEST(BidRequestParserTest, UnusableNativeRequestIsCountedNotRefused) {
  for (std::string_view native : {
           R"("native":{"request":"not json"})",
           R"("native":{"request":"{\"assets\":\"x\"}"})",
           R"("native":{"request":"[1]"})",
           R"("native":{"request":"{} {}"})",
           R"("native":{"request":7})",
           R"("native":{"request":{"assets":[{"id":"one"}]}})",
           R"("native":{"ver":"1.2"})",
       }) {
    SCOPED_TRACE(std::string(native));
    BidRequest r = ParseOrDie(WithImp(native));
    ASSERT_TRUE(r.imp[0].native.has_value());
    EXPECT_FALSE(r.imp[0].native->request.has_value());
    EXPECT_EQ(r.ignored.unusable_native_requests, 1);
    EXPECT_EQ(r, internal::ParseBidRequestWithNlohmann(WithImp(native)).value());
  }
}

TEST(BidRequestParserTest, IgnoredFieldsAndValuesAreCounted) {
  const std::string json =
      WithTop(R"("future":1,"ext":"x","site":{"ext":[],"mobile":1,"extra":{}},)"
              R"("device":{"devicetype":99,"connectiontype":42,"pos":1})");
  BidRequest r = ParseOrDie(json);
  EXPECT_EQ(r.ignored.unknown_fields, 3);  // future, site.extra, device.pos
  EXPECT_EQ(r.ignored.ext_not_object, 2);  // ext, site.ext
  EXPECT_EQ(r.ignored.unknown_values, 2);  // devicetype 99, connectiontype 42
  // A single unknown value is dropped; list values are kept.
  EXPECT_FALSE(r.device->devicetype.has_value());
  BidRequest video = ParseOrDie(WithImp(R"("video":{"plcmt":9,"protocols":[3,99],"battr":[600]})"));
  EXPECT_FALSE(video.imp[0].video->plcmt.has_value());
  EXPECT_THAT(video.imp[0].video->protocols, ElementsAre(3, 99));
  EXPECT_EQ(video.ignored.unknown_values, 3);
  EXPECT_EQ(r, internal::ParseBidRequestWithNlohmann(json).value());
}

TEST(BidRequestParserTest, ExtThatIsNotAnObjectIsSkipped) {
  BidRequest r = ParseOrDie(WithTop(
      R"("regs":{"ext":[],"coppa":1},"user":{"ext":"x","id":"u"},"source":{"ext":7,"tid":"t"})"));
  ASSERT_TRUE(r.regs.has_value());
  EXPECT_EQ(r.regs->coppa, true);
  EXPECT_EQ(r.user->id, "u");
  EXPECT_EQ(r.source->tid, "t");
  EXPECT_EQ(r.ignored.ext_not_object, 3);
  EXPECT_EQ(
      r,
      internal::ParseBidRequestWithNlohmann(
          WithTop(
              R"("regs":{"ext":[],"coppa":1},"user":{"ext":"x","id":"u"},"source":{"ext":7,"tid":"t"})"))
          .value());
  // Skipped, but still JSON.
  ExpectMalformed(WithTop(R"("regs":{"ext":[tru]})"));
}

TEST(BidRequestParserTest, FullOpenRtb26RequestFillsEveryMember) {
  BidRequest r = ParseOrDie(testing::kFullRequest26);
  EXPECT_EQ(r.id, "req-26-full");
  EXPECT_EQ(r.at, 1);
  EXPECT_EQ(r.tmax, 120);
  EXPECT_TRUE(r.test);
  EXPECT_FALSE(r.allimps);
  EXPECT_THAT(r.cur, ElementsAre("USD", "EUR"));
  EXPECT_THAT(r.bcat, ElementsAre("IAB25", "IAB26"));
  EXPECT_THAT(r.badv, ElementsAre("blocked.example"));
  EXPECT_THAT(r.bapp, ElementsAre("com.blocked.app"));
  EXPECT_THAT(r.wseat, ElementsAre("seat-1"));
  EXPECT_THAT(r.bseat, ElementsAre("seat-9"));
  EXPECT_THAT(r.wlang, ElementsAre("de", "en"));
  EXPECT_THAT(r.wlangb, ElementsAre("de-DE"));
  EXPECT_EQ(r.cattax, 2);
  EXPECT_THAT(r.acat, ElementsAre("52"));
  EXPECT_TRUE(r.has_openrtb_2_6_fields);
  EXPECT_EQ(r.ignored, IgnoredInRequest{});

  ASSERT_EQ(r.imp.size(), 4u);
  const Imp& banner_imp = r.imp[0];
  EXPECT_EQ(banner_imp.tagid, "tag-1");
  EXPECT_DOUBLE_EQ(banner_imp.bidfloor, 1.25);
  EXPECT_EQ(banner_imp.bidfloorcur, "EUR");
  EXPECT_EQ(banner_imp.secure, true);
  EXPECT_TRUE(banner_imp.instl);
  ASSERT_TRUE(banner_imp.banner.has_value());
  EXPECT_EQ(banner_imp.banner->w, 320);
  ASSERT_EQ(banner_imp.banner->format.size(), 2u);
  EXPECT_EQ(banner_imp.banner->format[1].w, 300);
  EXPECT_EQ(banner_imp.banner->format[1].h, 250);
  EXPECT_THAT(banner_imp.banner->battr, ElementsAre(3, 8));
  EXPECT_THAT(banner_imp.banner->api, ElementsAre(3, 5));
  EXPECT_EQ(banner_imp.rwdd, true);
  ASSERT_TRUE(banner_imp.pmp.has_value());
  ASSERT_EQ(banner_imp.pmp->deals.size(), 1u);
  EXPECT_EQ(banner_imp.pmp->deals[0].bidfloorcur, "EUR");
  EXPECT_EQ(banner_imp.pmp->deals[0].at, 3);
  EXPECT_THAT(banner_imp.pmp->deals[0].wseat, ElementsAre("seat-1", "seat-2"));

  ASSERT_TRUE(r.imp[1].video.has_value());
  const Video& video = *r.imp[1].video;
  EXPECT_THAT(video.mimes, ElementsAre("video/mp4", "video/webm"));
  EXPECT_EQ(video.w, 640);
  EXPECT_EQ(video.h, 480);
  EXPECT_EQ(video.minduration, 5);
  EXPECT_EQ(video.maxduration, 30);
  EXPECT_THAT(video.protocols, ElementsAre(2, 3, 7));
  EXPECT_EQ(video.protocol, 3);
  EXPECT_EQ(video.placement, 1);
  EXPECT_EQ(video.plcmt, 2);
  EXPECT_EQ(video.linearity, 1);
  EXPECT_EQ(video.startdelay, -1);
  EXPECT_EQ(video.skip, true);
  EXPECT_EQ(video.skipmin, 15);
  EXPECT_EQ(video.skipafter, 5);
  EXPECT_THAT(video.battr, ElementsAre(16));
  EXPECT_THAT(video.api, ElementsAre(2, 7));
  EXPECT_EQ(video.minbitrate, 300);
  EXPECT_EQ(video.maxbitrate, 1500);
  EXPECT_THAT(video.rqddurs, ElementsAre(15, 30));
  EXPECT_EQ(video.podid, "pod-1");
  EXPECT_EQ(video.maxseq, 3);
  EXPECT_EQ(video.poddur, 60);
  EXPECT_FALSE(r.imp[1].banner.has_value());

  ASSERT_TRUE(r.imp[2].audio.has_value());
  const Audio& audio = *r.imp[2].audio;
  EXPECT_THAT(audio.mimes, ElementsAre("audio/mp4"));
  EXPECT_EQ(audio.minduration, 10);
  EXPECT_EQ(audio.maxduration, 60);
  EXPECT_THAT(audio.protocols, ElementsAre(9));
  EXPECT_EQ(audio.startdelay, 0);
  EXPECT_THAT(audio.battr, ElementsAre(1));
  EXPECT_THAT(audio.api, ElementsAre(7));
  EXPECT_EQ(audio.minbitrate, 64);
  EXPECT_EQ(audio.maxbitrate, 320);
  EXPECT_THAT(audio.rqddurs, ElementsAre(30));
  EXPECT_EQ(audio.podid, "pod-a");
  EXPECT_EQ(audio.maxseq, 2);
  EXPECT_EQ(audio.poddur, 90);

  ASSERT_TRUE(r.imp[3].native.has_value());
  const Native& native = *r.imp[3].native;
  EXPECT_EQ(native.ver, "1.2");
  EXPECT_THAT(native.battr, ElementsAre(9));
  EXPECT_THAT(native.api, ElementsAre(5));
  ASSERT_TRUE(native.request.has_value());
  EXPECT_EQ(native.request->context, 2);
  EXPECT_EQ(native.request->plcmttype, 1);
  ASSERT_EQ(native.request->assets.size(), 4u);
  EXPECT_EQ(native.request->assets[0].title->len, 90);
  const NativeImageRequest& img = *native.request->assets[1].img;
  EXPECT_EQ(img.type, 3);
  EXPECT_EQ(img.w, 1200);
  EXPECT_EQ(img.h, 627);
  EXPECT_EQ(img.wmin, 600);
  EXPECT_EQ(img.hmin, 314);
  EXPECT_THAT(img.mimes, ElementsAre("image/png"));
  EXPECT_EQ(native.request->assets[2].data->type, 2);
  EXPECT_EQ(native.request->assets[2].data->len, 140);
  EXPECT_THAT(native.request->assets[3].video->protocols, ElementsAre(3));
  ASSERT_EQ(native.request->eventtrackers.size(), 1u);
  EXPECT_EQ(native.request->eventtrackers[0].event, 1);
  EXPECT_THAT(native.request->eventtrackers[0].methods, ElementsAre(1, 2));

  ASSERT_TRUE(r.site.has_value());
  EXPECT_EQ(r.site->name, "Example News");
  EXPECT_EQ(r.site->page, "https://news.example/a?b=1");
  EXPECT_EQ(r.site->cattax, 1);
  EXPECT_EQ(r.site->publisher->cattax, 1);
  EXPECT_THAT(r.site->sectioncat, ElementsAre("IAB12-1"));
  EXPECT_THAT(r.site->pagecat, ElementsAre("IAB12-2"));
  EXPECT_EQ(r.site->publisher->name, "Example");

  ASSERT_TRUE(r.device.has_value());
  const Device& d = *r.device;
  EXPECT_EQ(d.ip, "192.0.2.1");
  EXPECT_EQ(d.ipv6, "2001:db8::1");
  EXPECT_EQ(d.ifa, "6d92078a-8246-4ba4-ae5b-76104861e7dc");
  EXPECT_EQ(d.didsha1, "didsha1-value");
  EXPECT_EQ(d.didmd5, "didmd5-value");
  EXPECT_EQ(d.dpidsha1, "dpidsha1-value");
  EXPECT_EQ(d.dpidmd5, "dpidmd5-value");
  ASSERT_TRUE(d.geo.has_value());
  EXPECT_DOUBLE_EQ(*d.geo->lat, 52.52);
  EXPECT_DOUBLE_EQ(*d.geo->lon, -13.405);
  EXPECT_EQ(d.geo->type, 2);
  EXPECT_EQ(d.geo->country, "DEU");
  EXPECT_EQ(d.geo->region, "BE");
  EXPECT_EQ(d.geo->city, "Berlin");
  EXPECT_EQ(d.devicetype, 4);
  EXPECT_EQ(d.model, "Pixel 7");
  EXPECT_EQ(d.lmt, false);
  EXPECT_EQ(d.dnt, true);
  EXPECT_EQ(d.connectiontype, 2);
  EXPECT_EQ(d.langb, "de-DE");

  ASSERT_TRUE(r.user.has_value());
  const User& u = *r.user;
  EXPECT_EQ(u.buyeruid, "buyer-1");
  EXPECT_EQ(u.yob, 1985);
  EXPECT_EQ(u.gender, "F");
  EXPECT_EQ(u.consent, "CONSENT-26");
  ASSERT_EQ(u.data.size(), 1u);
  EXPECT_EQ(u.data[0].name, "provider");
  ASSERT_EQ(u.data[0].segment.size(), 2u);
  EXPECT_EQ(u.data[0].segment[1].id, "seg-2");
  ASSERT_EQ(u.eids.size(), 1u);
  EXPECT_EQ(u.eids[0].source, "id5-sync.com");
  ASSERT_EQ(u.eids[0].uids.size(), 1u);
  EXPECT_EQ(u.eids[0].uids[0].id, "ID5-abc");
  EXPECT_EQ(u.eids[0].uids[0].atype, 1);

  ASSERT_TRUE(r.regs.has_value());
  EXPECT_EQ(r.regs->coppa, false);
  EXPECT_EQ(r.regs->gdpr, true);
  EXPECT_EQ(r.regs->us_privacy, "1YNN");
  EXPECT_THAT(r.regs->gpp, HasSubstr("DBABMA"));
  EXPECT_THAT(r.regs->gpp_sid, ElementsAre(2, 6));

  ASSERT_TRUE(r.source.has_value());
  EXPECT_EQ(r.source->fd, true);
  EXPECT_EQ(r.source->tid, "tid-1");
  ASSERT_TRUE(r.source->schain.has_value());
  EXPECT_EQ(r.source->schain->complete, true);
  EXPECT_EQ(r.source->schain->ver, "1.0");
  ASSERT_EQ(r.source->schain->nodes.size(), 1u);
  EXPECT_EQ(r.source->schain->nodes[0].asi, "exchange.example");
  EXPECT_EQ(r.source->schain->nodes[0].sid, "1234");
  EXPECT_EQ(r.source->schain->nodes[0].hp, true);
  EXPECT_EQ(r.source->schain->nodes[0].rid, "req-26-full");

  absl::StatusOr<BidRequest> baseline =
      internal::ParseBidRequestWithNlohmann(testing::kFullRequest26);
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  EXPECT_EQ(r, *baseline);
}

TEST(BidRequestParserTest, DoohIsReadAndMarksTheRequestAs26) {
  BidRequest r = ParseOrDie(
      WithTop(R"("dooh":{"id":"screen-9","name":"Station","venuetype":["transit"],)"
              R"("venuetypetax":1,"domain":"screens.example","publisher":{"id":"p9"}})"));
  ASSERT_TRUE(r.dooh.has_value());
  EXPECT_EQ(r.dooh->id, "screen-9");
  EXPECT_EQ(r.dooh->name, "Station");
  EXPECT_THAT(r.dooh->venuetype, ElementsAre("transit"));
  EXPECT_EQ(r.dooh->venuetypetax, 1);
  EXPECT_EQ(r.dooh->domain, "screens.example");
  EXPECT_EQ(r.dooh->publisher->id, "p9");
  EXPECT_TRUE(r.has_openrtb_2_6_fields);
}

TEST(BidRequestParserTest, OpenRtb25ExtLocationsFillTheModel) {
  BidRequest r = ParseOrDie(WithTop(
      R"("regs":{"coppa":1,"ext":{"gdpr":1,"us_privacy":"1YYN"}},)"
      R"("user":{"id":"u","ext":{"consent":"CONSENT-25","eids":[{"source":"s","uids":[{"id":"x"}]}]}},)"
      R"("source":{"tid":"t","ext":{"schain":{"complete":0,"ver":"1.0","nodes":[{"asi":"a","sid":"b","hp":1}]}}})"));
  EXPECT_EQ(r.regs->coppa, true);
  EXPECT_EQ(r.regs->gdpr, true);
  EXPECT_EQ(r.regs->us_privacy, "1YYN");
  EXPECT_EQ(r.user->consent, "CONSENT-25");
  ASSERT_EQ(r.user->eids.size(), 1u);
  EXPECT_EQ(r.user->eids[0].uids[0].id, "x");
  ASSERT_TRUE(r.source->schain.has_value());
  EXPECT_EQ(r.source->schain->complete, false);
  EXPECT_EQ(r.source->schain->nodes[0].asi, "a");
  EXPECT_FALSE(r.has_openrtb_2_6_fields);
}

TEST(BidRequestParserTest, OpenRtb26LocationWinsOverExtInEitherOrder) {
  BidRequest ext_last =
      ParseOrDie(WithTop(R"("regs":{"gdpr":0,"ext":{"gdpr":1,"us_privacy":"1YYN"}})"));
  EXPECT_EQ(ext_last.regs->gdpr, false);
  EXPECT_EQ(ext_last.regs->us_privacy, "1YYN");
  BidRequest ext_first = ParseOrDie(WithTop(R"("regs":{"ext":{"gdpr":1},"gdpr":0})"));
  EXPECT_EQ(ext_first.regs->gdpr, false);
  BidRequest consent = ParseOrDie(WithTop(R"("user":{"ext":{"consent":"old"},"consent":"new"})"));
  EXPECT_EQ(consent.user->consent, "new");
}

TEST(BidRequestParserTest, DsaIsReadFromRegsExtByBothReaders) {
  const std::string json = WithTop(
      R"("regs":{"gdpr":1,"ext":{"dsa":{"dsarequired":3,"pubrender":0,"datatopub":2,)"
      R"("transparency":[{"domain":"platform.example","dsaparams":[1,2]},{"domain":"x.example"}]}}})");
  BidRequest r = ParseOrDie(json);
  ASSERT_TRUE(r.regs.has_value());
  ASSERT_TRUE(r.regs->dsa.has_value());
  const Dsa& dsa = *r.regs->dsa;
  EXPECT_EQ(dsa.dsarequired, 3);
  EXPECT_EQ(dsa.pubrender, 0);
  EXPECT_EQ(dsa.datatopub, 2);
  ASSERT_EQ(dsa.transparency.size(), 2u);
  EXPECT_EQ(dsa.transparency[0].domain, "platform.example");
  EXPECT_THAT(dsa.transparency[0].dsaparams, ElementsAre(1, 2));
  EXPECT_EQ(dsa.transparency[1].domain, "x.example");
  EXPECT_TRUE(dsa.transparency[1].dsaparams.empty());
  absl::StatusOr<BidRequest> baseline = internal::ParseBidRequestWithNlohmann(json);
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  EXPECT_EQ(r, *baseline);

  // Absent values stay absent; only the ext location is read.
  BidRequest sparse = ParseOrDie(WithTop(R"("regs":{"ext":{"dsa":{"dsarequired":1}}})"));
  ASSERT_TRUE(sparse.regs->dsa.has_value());
  EXPECT_EQ(sparse.regs->dsa->dsarequired, 1);
  EXPECT_FALSE(sparse.regs->dsa->pubrender.has_value());
  EXPECT_FALSE(ParseOrDie(WithTop(R"("regs":{"dsa":{"dsarequired":3}})")).regs->dsa.has_value());
  ExpectRejected(WithTop(R"("regs":{"ext":{"dsa":{"dsarequired":"3"}}})"),
                 "regs.ext.dsa.dsarequired: expected integer");
  ExpectRejected(WithTop(R"("regs":{"ext":{"dsa":[]}})"), "regs.ext.dsa: expected object");
}

TEST(BidRequestParserTest, TwoSixOnlyFieldsMarkTheRequest) {
  EXPECT_FALSE(ParseOrDie(WithImp(R"("banner":{"w":1,"h":1})")).has_openrtb_2_6_fields);
  EXPECT_TRUE(ParseOrDie(WithImp(R"("rwdd":1)")).has_openrtb_2_6_fields);
  EXPECT_TRUE(ParseOrDie(WithImp(R"("video":{"plcmt":1})")).has_openrtb_2_6_fields);
  EXPECT_TRUE(ParseOrDie(WithTop(R"("regs":{"gpp":"x"})")).has_openrtb_2_6_fields);
  EXPECT_TRUE(ParseOrDie(WithTop(R"("device":{"sua":{}})")).has_openrtb_2_6_fields);
  EXPECT_TRUE(ParseOrDie(WithTop(R"("cattax":1)")).has_openrtb_2_6_fields);
}

TEST(BidRequestParserTest, NullMeansAbsent) {
  BidRequest r = ParseOrDie(
      R"({"id":"r","imp":[{"id":"1","bidfloor":null,"bidfloorcur":null,"banner":null,"secure":null}],)"
      R"("site":null,"tmax":null,"bcat":null,"device":{"geo":{"lat":null},"ua":null}})");
  EXPECT_DOUBLE_EQ(r.imp[0].bidfloor, 0);
  EXPECT_EQ(r.imp[0].bidfloorcur, "USD");
  EXPECT_FALSE(r.imp[0].banner.has_value());
  EXPECT_FALSE(r.imp[0].secure.has_value());
  EXPECT_FALSE(r.site.has_value());
  EXPECT_FALSE(r.tmax.has_value());
  EXPECT_TRUE(r.bcat.empty());
  ASSERT_TRUE(r.device.has_value());
  EXPECT_FALSE(r.device->geo->lat.has_value());
  EXPECT_TRUE(r.device->ua.empty());
}

}  // namespace
}  // namespace rtb::openrtb
