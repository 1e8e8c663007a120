// The `campaigns` and `campaign_store` sections: what the bidder bids for,
// and how each bidder follows the campaigns table.
// Part of config/config.h, which includes it; see there for the loading rules.
#ifndef RTB_CONFIG_CAMPAIGN_CONFIG_H_
#define RTB_CONFIG_CAMPAIGN_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rtb::config {

// ---------------------------------------------------------------------------
// campaigns: what we bid for. Held in memory by the bidder.

// What a campaign does while its profile cannot be read: the store is
// reported unhealthy, or the request's profile lookup failed or missed its
// deadline. Without the profile its frequency cap reads as 0 impressions and
// its segments as absent.
enum class StoreOutagePolicy {
  kContextualOnly,  // "contextual_only": bids only if it has no cap and no required segments
  kNoBid,           // "no_bid": does not bid at all
  kAsToday,         // "as_today": bids on the empty profile (caps are not enforced)
};

enum class PacingMode {
  kEven,  // "even": spread the daily budget over the remaining hours
  kAsap,  // "asap": spend as fast as bids win, up to the budget
};

enum class CreativeFormat {
  kBanner,  // "banner"
  kVideo,   // "video"
  kNative,  // "native"
  kAudio,   // "audio"
};

// Where in the content a video or audio creative may run (the request's
// startdelay): before it, during it, after it.
enum class StartSlot {
  kPre,   // "pre": startdelay 0
  kMid,   // "mid": startdelay > 0 or -1
  kPost,  // "post": startdelay -2
};

// A native image asset of a creative.
struct NativeImageConfig {
  // Native image asset type: 1 icon, 3 main image. Required.
  int type = 0;
  // https URL of the image. Required.
  std::string url;
  // Size in pixels. Required, > 0, at most 10000.
  int w = 0;
  int h = 0;
  // MIME type, e.g. "image/png". Default "" (unknown: fits an image asset
  // that lists mimes only when it lists none).
  std::string mime;
};

// A native data asset of a creative (sponsored-by text, description, rating,
// call to action, ...).
struct NativeDataConfig {
  // Native data asset type, 1-12 (1 sponsored, 2 desc, 3 rating, 4 likes,
  // 5 downloads, 6 price, 7 sale price, 8 phone, 9 address, 10 desc2,
  // 11 display url, 12 cta text). Required; each type at most once.
  int type = 0;
  // The text. Required, 1-1000 bytes.
  std::string value;
};

// The assets a native creative is built from; the bid's native response
// takes the ones the request asks for (see README, "Native").
struct NativeAssetsConfig {
  // The title text. Default "" (no title asset).
  std::string title;
  std::vector<NativeImageConfig> images;
  std::vector<NativeDataConfig> data;
  // A VAST document for a native video asset. Default "" (none).
  std::string video_vast;
  // With video_vast: its duration, seconds (1-3600), MIME types and protocol
  // (AdCOM "Creative Subtypes - Audio/Video"; 0: from the VAST version).
  int video_duration_s = 0;
  std::vector<std::string> video_mimes;
  int video_protocol = 0;
  // Third-party click trackers added to the link's clicktrackers, https
  // URLs. Default none.
  std::vector<std::string> click_trackers;
};

struct CreativeConfig {
  // Creative id (bid `crid`). Required. 1-64 characters of [A-Za-z0-9_-],
  // unique within its campaign.
  std::string id;
  // Media type. Default banner.
  CreativeFormat format = CreativeFormat::kBanner;
  // Size in pixels. Required (> 0, at most 10000) for banner and video;
  // optional (0 = any) for native; must be 0 for audio.
  int w = 0;
  int h = 0;
  // MIME types of the asset, e.g. "video/mp4". Required for video and audio,
  // must be empty for banner and native.
  std::vector<std::string> mimes;
  // Duration of the asset, seconds. Required (> 0, at most 3600) for video
  // and audio; must be 0 for banner and native.
  int duration_s = 0;
  // Markup: HTML for banner, VAST for video and audio. Required for them,
  // at most 65536 bytes; must be empty for native, whose markup the bidder
  // builds from `native`. Clicks should go through the placeholder
  // ${CLICK_URL}, which the bidder replaces with its signed click beacon URL
  // (that redirects to landing_url); ${IMPRESSION_URL} becomes the signed
  // impression pixel.
  std::string adm;
  // Native assets. Required (a title, an image or a data asset at least) for
  // native, must be absent otherwise.
  NativeAssetsConfig native;
  // Creative attributes (AdCOM list "Creative Attributes", 1-18), e.g. 3
  // expandable, 6 in-banner autoplay video, 16 skip button: checked against
  // the impression's battr and sent in the bid's attr. Default none.
  std::vector<int> attr;
  // API frameworks the creative needs (AdCOM "API Frameworks", 1-9: 1 VPAID
  // 1.0, 2 VPAID 2.0, 3 MRAID 1.0, 5 MRAID 2.0, 6 MRAID 3.0, 7 OMID 1.0, ...):
  // every one must be in the impression's api list. Default none.
  std::vector<int> api;
  // Language of the creative, ISO 639-1 alpha-2 lower case ("de"): checked
  // against wlang/wlangb and sent in the bid's language. Default "" (none:
  // such a creative does not bid where wlang or wlangb is given).
  std::string language;
  // The bid's adid (an ad the exchange has on file) and iurl (an https image
  // of the creative for ad-quality review). Default "" (omitted). adid: at
  // most 64 printable ASCII characters.
  std::string adid;
  std::string iurl;
  // Video and audio: the markup's subtype (AdCOM "Creative Subtypes -
  // Audio/Video": 2 VAST 2.0, 3 VAST 3.0, 7 VAST 4.0, 9 DAAST 1.0, 11 VAST
  // 4.1, 13 VAST 4.2, wrappers 5, 6, 8, 10, 12, 14), matched against the
  // impression's protocols and sent as the bid's protocol. Default: read from
  // the markup's <VAST version="..."> (or <DAAST version="...">) root; without
  // either it is required. Must be 0 (absent) for banner and native.
  int protocol = 0;
  // Video: 1 linear (in-stream), 2 non-linear (overlay). Default 1 for
  // video; must be 0 (absent) otherwise.
  int linearity = 0;
  // Video and audio: where in the content it may run. Default: anywhere.
  std::vector<StartSlot> start_slots;
  // Video: the placements it may run in (OpenRTB 2.6 plcmt: 1 instream,
  // 2 accompanying content, 3 interstitial, 4 no content / standalone; a 2.5
  // placement is read as its plcmt, see README). Default: any.
  std::vector<int> placements;
  // Video: false keeps the creative out of impressions where the player
  // would let the user skip it (skip=1, the creative longer than skipmin and
  // than skipafter). Default true.
  bool skippable = true;
  // Video and audio: bit rate of the media, Kbps, checked against
  // minbitrate/maxbitrate. Default 0 (unknown: not checked). At most 100000.
  int bitrate_kbps = 0;
  // When true the bid carries no `adm`: the markup is returned by our win
  // notice (`nurl`) instead. Default false; must be false for native.
  bool nurl_delivery = false;
  // Where a click is redirected: an absolute https URL. Required.
  std::string landing_url;
  // Categories of the creative (bid `cat`), in the campaign's `cattax`
  // taxonomy, e.g. "IAB3-1" in Content 1.0. Default none.
  std::vector<std::string> iab_categories;
};

// Rewarded impressions (imp.rwdd) a campaign takes.
enum class RewardedPolicy {
  kAny,    // "any": rewarded or not
  kOnly,   // "only": rwdd=1 only
  kNever,  // "never": never rwdd=1
};

// Every list that is empty places no restriction.
struct TargetingConfig {
  // device.geo.country, ISO 3166-1 alpha-3 as OpenRTB uses ("USA", "DEU").
  // A request without a country does not match a non-empty list.
  std::vector<std::string> countries;
  // device.devicetype, OpenRTB/AdCOM device type codes 1-8
  // (1 mobile/tablet, 2 PC, 3 CTV, 4 phone, 5 tablet, 6 connected device,
  // 7 set-top box, 8 OOH).
  std::vector<int> device_types;
  // Site or app content categories (site.cat / site.sectioncat /
  // site.pagecat / app.cat), IAB 1.0 codes; one match is enough.
  std::vector<std::string> content_categories;
  // site.domain / app.domain, lower-case host names; an entry matches the
  // domain and its subdomains. A domain may not be in both lists.
  std::vector<std::string> domains_allow;
  std::vector<std::string> domains_deny;
  // User segment ids the device's profile must all hold (family `seg`).
  // A profile lookup that was skipped or failed matches no such campaign.
  // 1-64 printable ASCII characters each.
  std::vector<std::string> required_segments;
  // pmp.deals[].id this campaign bids through; when non-empty it bids only
  // on impressions offering one of them. 1-64 printable ASCII characters.
  std::vector<std::string> deal_ids;
  // imp.rwdd. Default any.
  RewardedPolicy rewarded = RewardedPolicy::kAny;
};

// One entry of campaigns[].dsa.transparency: a party that holds DSA
// transparency information about the ad, sent in ext.dsa.transparency.
struct DsaTransparencyConfig {
  // Its domain. Required, a lower-case domain name.
  std::string domain;
  // The user parameters it uses: 1 profiling, 2 basic advertising, 3 precise
  // geolocation. Each at most once. Default none.
  std::vector<int> dsaparams;
};

// campaigns[].dsa: what a bid of the campaign carries in ext.dsa when the
// request carries the EU Digital Services Act signal (regs.ext.dsa,
// dsarequired 1 to 3; bidder/privacy/dsa.h decides).
struct CampaignDsaConfig {
  // On whose behalf the ad is shown (ext.dsa.behalf). Required, 1-100
  // bytes of printable text (the DSA extension's limit is 100 characters).
  std::string behalf;
  // Who paid for the ad (ext.dsa.paid). Required, 1-100 bytes, as behalf.
  std::string paid;
  // 1 when every creative of the campaign renders the DSA transparency
  // notice itself (an "about this ad" mark), 0 when none does. A publisher
  // that cannot render the notice (pubrender 0) is served only by
  // campaigns with 1. Default 0. Range [0, 1].
  int adrender = 0;
  // Sent as ext.dsa.transparency when the request does not say datatopub 0.
  // Default none.
  std::vector<DsaTransparencyConfig> transparency;
};

// What a campaign pays for, and so what one impression is worth to it (see
// README "Pricing"). The value of an impression, CPM in the campaign's
// currency, is:
//   cpm: max_bid_cpm;
//   cpc: 1000 x target_cpc x predicted clicks per impression;
//   cpa: 1000 x target_cpa x predicted clicks per impression x predicted
//        conversions per click;
// never above max_bid_cpm. Predicted rates start from the campaign's own
// observed rates (shrunk toward prior_ctr / prior_cvr while it has few
// clicks or conversions) and are moved by the device's history when the
// bid path read it (pricing.device_history_days; device_prior_impressions and
// pricing.device_prior_clicks say how much history weighs as much as the
// campaign mean).
enum class CampaignGoal {
  kCpm,  // "cpm": a fixed price per thousand impressions
  kCpc,  // "cpc": a target cost per click
  kCpa,  // "cpa": a target cost per conversion (attributed through a click)
};

// One part of the week a campaign bids in: `days` ("mon" .. "sun"), from
// from_hour (inclusive) to to_hour (exclusive), in the campaign's time_zone.
struct DaypartConfig {
  // Required, at least one, no repeats.
  std::vector<std::string> days;
  // Range [0, 23]. Default 0.
  int from_hour = 0;
  // Range [from_hour + 1, 24]. Default 24.
  int to_hour = 24;
};

// When a campaign bids (README "Campaigns"). Default: always.
struct CampaignScheduleConfig {
  // The flight: RFC 3339 instants ("2026-12-01T00:00:00Z", an offset or Z
  // required); bids from `start` (inclusive) until `end` (exclusive). "":
  // unbounded on that side. `end` after `start`.
  std::string start;
  std::string end;
  // Hours of the week it bids. Empty: every hour.
  std::vector<DaypartConfig> dayparts;
};

struct CampaignGoalConfig {
  // Default cpm.
  CampaignGoal type = CampaignGoal::kCpm;
  // Cost per click aimed at, in the campaign's currency. Required (> 0, at
  // most 1000) for cpc; must be 0 otherwise.
  double target_cpc = 0;
  // Cost per conversion aimed at, in the campaign's currency. Required (> 0,
  // at most 100000) for cpa; must be 0 otherwise.
  double target_cpa = 0;
  // Clicks per impression assumed before the campaign has its own.
  // Default 0.001. Range (0, 1].
  double prior_ctr = 0.001;
  // Conversions per click assumed before the campaign has its own.
  // Default 0.02. Range (0, 1].
  double prior_cvr = 0.02;
};

struct CampaignConfig {
  // The campaign's JSON object as it was read (ParseConfig, ParseCampaign);
  // empty for a campaign built in code. CampaignToJson writes over it, so
  // every field survives seeding the campaigns table.
  std::string source_json;
  // Campaign id (bid `cid`), part of storage row keys (`campaignId|NN`,
  // `campaignId|yyyymmdd`). Required. 1-32 characters of [A-Za-z0-9_-];
  // unique.
  std::string id;
  // Bids only while true. Default true.
  bool enabled = true;
  // Seat the campaign buys under (seatbid[].seat, matched against a deal's
  // wseat). Default "": the exchange's seat. At most 64 printable ASCII
  // characters.
  std::string seat;
  // Advertiser domains (bid `adomain`, checked against `badv`). Required, at
  // least one lower-case host name.
  std::vector<std::string> advertiser_domains;
  // Categories of the campaign (checked against `bcat` and `acat`, sent in
  // `cat` together with the creative's), in the taxonomy `cattax` names.
  // Default none.
  std::vector<std::string> iab_categories;
  // Taxonomy of iab_categories here and in the creatives (AdCOM list
  // "Category Taxonomies"): 1 Content 1.0, 2 Content 2.0, 5 Content 2.1,
  // 6 Content 2.2, 7 Content 3.0, 8 Ad Product 2.0 (the ones the bidder has
  // tables for, taxonomy/data/README.md; codes must be in the table), or a
  // vendor taxonomy (500 and above; codes of printable ASCII, matched only
  // as equal codes). Requests in another taxonomy get the categories
  // translated (see README, "Categories"). Default 1.
  int cattax = 1;
  // Daily budget in micro-units of `currency` (1 USD = 1000000). Required,
  // > 0.
  int64_t daily_budget_micros = 0;
  // Budget for the campaign's whole life beside the daily one, micro-units
  // of `currency`: each day may spend the smaller of daily_budget_micros and
  // what the lifetime budget has left (the spend of the days before, as the
  // `budget` table keeps them: 400 days). 0: none. Default 0; > 0 when set.
  int64_t lifetime_budget_micros = 0;
  // ISO 4217 code of the budget and max bid, present in bid.currency_rates.
  // Default bid.default_currency.
  std::string currency;
  // Default even.
  PacingMode pacing_mode = PacingMode::kEven;
  // IANA time zone whose midnight starts the budget and frequency-cap day,
  // e.g. "America/New_York". Default "UTC". Checked to exist in the zone
  // database (absl::LoadTimeZone: $TZDIR or /usr/share/zoneinfo).
  std::string time_zone = "UTC";
  // Impressions per device per day; 0 means no cap. Default 0.
  // Range [0, 10000].
  int frequency_cap_per_day = 0;
  // See StoreOutagePolicy. Default "contextual_only": a storage outage never
  // makes a capped or segment-targeted campaign bid blind.
  StoreOutagePolicy store_outage_policy = StoreOutagePolicy::kContextualOnly;
  // Highest bid, `currency` per thousand impressions. Required, > 0 and at
  // most 1000.
  double max_bid_cpm = 0;
  // How the bid price is valued. Default: a fixed CPM of max_bid_cpm.
  CampaignGoalConfig goal;
  // Flight and dayparting. Default: always.
  CampaignScheduleConfig schedule;
  TargetingConfig targeting;
  // Required, at least one.
  std::vector<CreativeConfig> creatives;
  // The campaign's DSA transparency information. Absent (the default): the
  // campaign does not bid on requests whose regs.ext.dsa.dsarequired is 2 or
  // 3 (exchanges drop bids without ext.dsa there), and bids without ext.dsa
  // elsewhere.
  std::optional<CampaignDsaConfig> dsa;
};

// ---------------------------------------------------------------------------
// campaign_store: how each bidder follows the campaigns table (the source of
// truth once seeded; see README "Campaigns").

struct CampaignStoreConfig {
  // How often the change log is read, ms. Default 500. Range [50, 1000], so
  // a change reaches every worker within 2 s.
  int follow_interval_ms = 500;
  // /readyz answers 503 once the table has not been readable for this long;
  // bidding goes on with the last index. Seconds. Default 30.
  // Range [1, 86400].
  int unreadable_after_s = 30;
  // Campaign positions (pacing, metrics) a worker holds; campaigns created
  // past it are not bid on (logged and counted). Default 4096. Range
  // [number of campaigns[], 1000000].
  int max_campaigns = 4096;
};

}  // namespace rtb::config

#endif  // RTB_CONFIG_CAMPAIGN_CONFIG_H_
