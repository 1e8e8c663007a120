#include "config/internal/campaign_validation.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "config/internal/iso_codes.h"
#include "config/internal/value_syntax.h"
#include "taxonomy/category_taxonomy.h"

namespace rtb::config::internal {
namespace {

constexpr int kMaxCreativePixels = 10000;
constexpr int kMaxCreativeSeconds = 3600;
constexpr size_t kMaxAdmBytes = 64 << 10;
constexpr double kMaxBidCpm = 1000.0;
constexpr int kMaxBitrateKbps = 100000;
constexpr size_t kMaxNativeDataBytes = 1000;

// Each of `values` in [min, max] and none twice.
void CheckCodes(const Checker& at, std::string_view key, const std::vector<int>& values, int min,
                int max, const char* what) {
  std::map<int, size_t> seen;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string element = ElementPath(std::string(key), i);
    if (values[i] < min || values[i] > max) {
      at.Fail(element,
              absl::StrCat("must be ", what, " in [", min, ", ", max, "], got ", values[i]));
    } else if (auto [it, inserted] = seen.emplace(values[i], i); !inserted) {
      at.Fail(element, Checker::DuplicateOf(at.ElementAt(key, it->second)));
    }
  }
}

// The taxonomies the tables hold, in cattax order, e.g. "1, 2, 3".
std::string KnownTaxonomiesListed() {
  std::vector<int32_t> known(std::begin(taxonomy::kKnownTaxonomies),
                             std::end(taxonomy::kKnownTaxonomies));
  std::sort(known.begin(), known.end());
  return absl::StrJoin(known, ", ");
}

// Category codes of taxonomy `cattax`: Content 1.0 codes, ids of a taxonomy
// the tables hold, tokens of a vendor taxonomy.
void CheckCategories(const Checker& at, std::string_view key, const std::vector<std::string>& codes,
                     int cattax) {
  const taxonomy::CategoryTaxonomies& tables = taxonomy::CategoryTaxonomies::Iab();
  if (cattax >= taxonomy::kFirstVendor) {
    at.EachString(
        key, codes, [](const std::string& c) { return internal::IsPrintableToken(c, 64); },
        "must be 1-64 printable ASCII characters without spaces");
  } else if (cattax == taxonomy::kContent1) {
    at.EachString(
        key, codes,
        [&](const std::string& c) {
          return internal::IsIabCategory(c) && tables.Contains(taxonomy::kContent1, c);
        },
        "must be an IAB Content 1.0 category code such as IAB3-1");
  } else if (tables.Known(cattax)) {
    at.EachString(
        key, codes, [&](const std::string& c) { return tables.Contains(cattax, c); },
        absl::StrCat("must be an id of taxonomy ", cattax,
                     " (cattax) as taxonomy/data/README.md lists them"));
  }
}

// An https URL, or nothing wrong when empty and optional.
void CheckHttpsUrl(const Checker& at, std::string_view key, const std::string& url) {
  const std::string problem =
      internal::UrlProblem(url, /*allow_http=*/false, /*allow_query_and_fragment=*/true);
  if (!problem.empty()) at.Fail(key, problem);
}

void ValidateNativeAssets(const NativeAssetsConfig& native, const Checker& at) {
  if (native.title.empty() && native.images.empty() && native.data.empty() &&
      native.video_vast.empty()) {
    at.Fail("", "needs a title, an image, a data or a video asset");
  }
  if (native.title.size() > kMaxNativeDataBytes) {
    at.Fail("title", absl::StrCat("must be at most ", kMaxNativeDataBytes, " bytes"));
  }
  for (size_t i = 0; i < native.images.size(); ++i) {
    const NativeImageConfig& image = native.images[i];
    Checker img = at.Element("images", i);
    if (image.type != 1 && image.type != 3) {
      img.Fail("type", "must be a native image asset type: 1 (icon) or 3 (main image)");
    }
    CheckHttpsUrl(img, "url", image.url);
    img.InRange("w", image.w, 1, kMaxCreativePixels);
    img.InRange("h", image.h, 1, kMaxCreativePixels);
    if (!image.mime.empty() && !internal::IsMimeType(image.mime)) {
      img.Fail("mime", "must be a MIME type such as image/png");
    }
  }
  std::map<int, size_t> data_types;
  for (size_t i = 0; i < native.data.size(); ++i) {
    const NativeDataConfig& data = native.data[i];
    Checker d = at.Element("data", i);
    if (d.InRange("type", data.type, 1, 12)) {
      if (auto [it, inserted] = data_types.emplace(data.type, i); !inserted) {
        d.Fail("type", Checker::DuplicateOf(at.ElementAt("data", it->second) + ".type"));
      }
    }
    if (data.value.empty() || data.value.size() > kMaxNativeDataBytes) {
      d.Fail("value", absl::StrCat("must be 1-", kMaxNativeDataBytes, " bytes"));
    }
  }
  if (!native.video_vast.empty()) {
    if (native.video_vast.size() > kMaxAdmBytes) {
      at.Fail("video_vast", absl::StrCat("must be at most ", kMaxAdmBytes, " bytes"));
    }
    at.InRange("video_duration_s", native.video_duration_s, 1, kMaxCreativeSeconds);
    if (native.video_mimes.empty()) at.Fail("video_mimes", "required with video_vast");
    at.EachString(
        "video_mimes", native.video_mimes,
        [](const std::string& m) { return internal::IsMimeType(m); },
        "must be a MIME type such as video/mp4");
    if (native.video_protocol == 0) {
      at.Fail("video_protocol", "required: video_vast carries no VAST version this bidder reads");
    } else {
      at.InRange("video_protocol", native.video_protocol, 1, 16);
    }
  } else if (native.video_duration_s != 0 || !native.video_mimes.empty() ||
             native.video_protocol != 0) {
    at.Fail("video_vast", "required when video_duration_s, video_mimes or video_protocol is set");
  }
  for (size_t i = 0; i < native.click_trackers.size(); ++i) {
    CheckHttpsUrl(at, ElementPath("click_trackers", i), native.click_trackers[i]);
  }
}

bool NativeAssetsEmpty(const NativeAssetsConfig& native) {
  return native.title.empty() && native.images.empty() && native.data.empty() &&
         native.video_vast.empty() && native.video_duration_s == 0 && native.video_mimes.empty() &&
         native.click_trackers.empty();
}

// What only video or audio creatives may carry.
void ValidateMediaFields(const CreativeConfig& creative, const Checker& at) {
  const bool video = creative.format == CreativeFormat::kVideo;
  const bool media = video || creative.format == CreativeFormat::kAudio;
  const std::string format = CreativeFormatName(creative.format);
  if (media) {
    if (creative.protocol == 0) {
      at.Fail("protocol",
              "required: the markup carries no VAST or DAAST version this bidder reads "
              "(AdCOM Creative Subtypes - Audio/Video, e.g. 3 for VAST 3.0)");
    } else {
      at.InRange("protocol", creative.protocol, 1, 16);
    }
    at.InRange("bitrate_kbps", creative.bitrate_kbps, 0, kMaxBitrateKbps);
  } else {
    if (creative.protocol != 0) at.Fail("protocol", absl::StrCat("must be absent for ", format));
    if (!creative.start_slots.empty()) {
      at.Fail("start_slots", absl::StrCat("must be absent for ", format));
    }
    if (creative.bitrate_kbps != 0) {
      at.Fail("bitrate_kbps", absl::StrCat("must be absent for ", format));
    }
  }
  if (video) {
    if (creative.linearity != 1 && creative.linearity != 2) {
      at.Fail("linearity", "must be 1 (linear) or 2 (non-linear)");
    }
    CheckCodes(at, "placements", creative.placements, 1, 4, "an OpenRTB 2.6 plcmt value");
  } else {
    if (creative.linearity != 0) at.Fail("linearity", absl::StrCat("must be absent for ", format));
    if (!creative.placements.empty()) {
      at.Fail("placements", absl::StrCat("must be absent for ", format));
    }
    if (!creative.skippable) at.Fail("skippable", "applies to video only");
  }
}

void ValidateCreative(const CreativeConfig& creative, const Checker& at, int cattax) {
  if (!internal::IsIdentifier(creative.id, 64, "_-")) {
    at.Fail("id", "must be 1-64 characters of [A-Za-z0-9_-]");
  }
  bool sized =
      creative.format == CreativeFormat::kBanner || creative.format == CreativeFormat::kVideo;
  bool timed =
      creative.format == CreativeFormat::kVideo || creative.format == CreativeFormat::kAudio;
  std::string format = CreativeFormatName(creative.format);
  for (const auto& [key, value] : {std::pair{"w", creative.w}, std::pair{"h", creative.h}}) {
    if (sized) {
      at.InRange(key, value, 1, kMaxCreativePixels);
    } else if (creative.format == CreativeFormat::kAudio) {
      if (value != 0) at.Fail(key, "must be 0 (or absent) for audio");
    } else {
      at.InRange(key, value, 0, kMaxCreativePixels);
    }
  }
  if (timed) {
    if (creative.mimes.empty()) at.Fail("mimes", absl::StrCat("required for ", format));
    at.InRange("duration_s", creative.duration_s, 1, kMaxCreativeSeconds);
  } else {
    if (!creative.mimes.empty()) at.Fail("mimes", absl::StrCat("must be empty for ", format));
    if (creative.duration_s != 0) {
      at.Fail("duration_s", absl::StrCat("must be 0 (or absent) for ", format));
    }
  }
  at.EachString(
      "mimes", creative.mimes, [](const std::string& m) { return internal::IsMimeType(m); },
      "must be a MIME type such as video/mp4");
  if (creative.format == CreativeFormat::kNative) {
    if (!creative.adm.empty()) {
      at.Fail("adm", "must be empty for native: the markup is built from `native`");
    }
    if (creative.nurl_delivery) {
      at.Fail("nurl_delivery",
              "must be false for native: the markup answers the impression's native request");
    }
    ValidateNativeAssets(creative.native, at.Member("native"));
  } else {
    if (creative.adm.empty()) {
      at.Fail("adm",
              creative.nurl_delivery ? "required: the win notice returns this markup" : "required");
    } else if (creative.adm.size() > kMaxAdmBytes) {
      at.Fail("adm", absl::StrCat("must be at most ", kMaxAdmBytes, " bytes"));
    }
    if (!NativeAssetsEmpty(creative.native)) {
      at.Fail("native", absl::StrCat("must be absent for ", format));
    }
  }
  CheckHttpsUrl(at, "landing_url", creative.landing_url);
  CheckCategories(at, "iab_categories", creative.iab_categories, cattax);
  CheckCodes(at, "attr", creative.attr, 1, 18, "an AdCOM creative attribute");
  CheckCodes(at, "api", creative.api, 1, 9, "an AdCOM API framework");
  if (!creative.language.empty() && !internal::IsLanguageCode(creative.language)) {
    at.Fail("language", "must be an ISO 639-1 code of two lower-case letters such as de");
  }
  if (!creative.adid.empty() && !internal::IsPrintableToken(creative.adid, 64)) {
    at.Fail("adid", "must be at most 64 printable ASCII characters without spaces");
  }
  if (!creative.iurl.empty()) CheckHttpsUrl(at, "iurl", creative.iurl);
  ValidateMediaFields(creative, at);
}

void ValidateTargeting(const TargetingConfig& targeting, const Checker& at) {
  at.EachString(
      "countries", targeting.countries,
      [](const std::string& c) { return internal::IsIsoCountryAlpha3(c); },
      "must be an ISO 3166-1 alpha-3 country code such as USA");
  for (size_t i = 0; i < targeting.device_types.size(); ++i) {
    int type = targeting.device_types[i];
    if (type < 1 || type > 8) {
      at.Fail(ElementPath("device_types", i),
              absl::StrCat("must be an OpenRTB device type in [1, 8], got ", type));
    }
  }
  at.EachString(
      "content_categories", targeting.content_categories,
      [](const std::string& c) { return internal::IsIabCategory(c); },
      "must be an IAB Content 1.0 category code such as IAB3-1");
  auto is_domain = [](const std::string& d) { return internal::IsLowerCaseDomain(d); };
  constexpr const char* kDomain = "must be a lower-case domain name such as example.com";
  at.EachString("domains_allow", targeting.domains_allow, is_domain, kDomain);
  at.EachString("domains_deny", targeting.domains_deny, is_domain, kDomain);
  std::set<std::string> allowed(targeting.domains_allow.begin(), targeting.domains_allow.end());
  for (size_t i = 0; i < targeting.domains_deny.size(); ++i) {
    if (allowed.count(targeting.domains_deny[i]) != 0) {
      at.Fail(ElementPath("domains_deny", i), "is also in domains_allow");
    }
  }
  auto is_token = [](const std::string& s) { return internal::IsPrintableToken(s, 64); };
  constexpr const char* kToken = "must be 1-64 printable ASCII characters without spaces";
  at.EachString("required_segments", targeting.required_segments, is_token, kToken);
  at.EachString("deal_ids", targeting.deal_ids, is_token, kToken);
  if (targeting.rewarded != RewardedPolicy::kAny && targeting.rewarded != RewardedPolicy::kOnly &&
      targeting.rewarded != RewardedPolicy::kNever) {
    at.Fail("rewarded", "must be any, only or never");
  }
}

// Printable text of 1 to `max` bytes: no control characters (UTF-8 allowed).
bool IsShortText(const std::string& text, size_t max) {
  if (text.empty() || text.size() > max) return false;
  return std::none_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

void ValidateCampaignDsa(const CampaignDsaConfig& dsa, const Checker& at) {
  constexpr size_t kMaxDsaText = 100;
  constexpr const char* kText = "required: 1-100 bytes of text without control characters";
  if (!IsShortText(dsa.behalf, kMaxDsaText)) at.Fail("behalf", kText);
  if (!IsShortText(dsa.paid, kMaxDsaText)) at.Fail("paid", kText);
  at.InRange("adrender", dsa.adrender, 0, 1);
  for (size_t i = 0; i < dsa.transparency.size(); ++i) {
    const DsaTransparencyConfig& entry = dsa.transparency[i];
    Checker t = at.Element("transparency", i);
    if (!internal::IsLowerCaseDomain(entry.domain)) {
      t.Fail("domain", absl::StrCat("must be a lower-case domain name such as example.com; got \"",
                                    Checker::Shown(entry.domain), "\""));
    }
    std::map<int, size_t> seen;
    for (size_t j = 0; j < entry.dsaparams.size(); ++j) {
      const std::string element = ElementPath("dsaparams", j);
      const int param = entry.dsaparams[j];
      if (param < 1 || param > 3) {
        t.Fail(element, absl::StrCat("must be 1 (profiling), 2 (basic advertising) or 3 "
                                     "(precise geolocation), got ",
                                     param));
      } else if (auto [it, inserted] = seen.emplace(param, j); !inserted) {
        t.Fail(element, Checker::DuplicateOf(t.ElementAt("dsaparams", it->second)));
      }
    }
  }
}

void ValidateGoal(const CampaignGoalConfig& goal, const Checker& at) {
  switch (goal.type) {
    case CampaignGoal::kCpm:
      break;
    case CampaignGoal::kCpc:
      at.InRealRange("target_cpc", goal.target_cpc, 0, 1000, /*min_open=*/true);
      break;
    case CampaignGoal::kCpa:
      at.InRealRange("target_cpa", goal.target_cpa, 0, 100000, /*min_open=*/true);
      break;
    default:
      at.Fail("type", "must be cpm, cpc or cpa");
  }
  if (goal.type != CampaignGoal::kCpc && goal.target_cpc != 0) {
    at.Fail("target_cpc", "must be 0 unless type is cpc");
  }
  if (goal.type != CampaignGoal::kCpa && goal.target_cpa != 0) {
    at.Fail("target_cpa", "must be 0 unless type is cpa");
  }
  at.InRealRange("prior_ctr", goal.prior_ctr, 0, 1, /*min_open=*/true);
  at.InRealRange("prior_cvr", goal.prior_cvr, 0, 1, /*min_open=*/true);
}

void ValidateSchedule(const CampaignScheduleConfig& schedule, const Checker& at) {
  std::optional<int64_t> start;
  std::optional<int64_t> end;
  for (auto [key, text, instant] :
       {std::tuple("start", &schedule.start, &start), std::tuple("end", &schedule.end, &end)}) {
    if (text->empty()) continue;
    *instant = ScheduleInstantMillis(*text);
    if (!instant->has_value()) {
      at.Fail(key, absl::StrCat("must be an RFC 3339 instant with an offset, such as "
                                "2026-12-01T00:00:00Z, from 1970 to 9999; got \"",
                                Checker::Shown(*text), "\""));
    }
  }
  if (start.has_value() && end.has_value() && *end <= *start) {
    at.Fail("end", "must be after start");
  }
  for (size_t i = 0; i < schedule.dayparts.size(); ++i) {
    const DaypartConfig& part = schedule.dayparts[i];
    Checker daypart = at.Element("dayparts", i);
    if (part.days.empty()) daypart.Fail("days", "must list at least one day");
    std::set<std::string> seen;
    for (size_t d = 0; d < part.days.size(); ++d) {
      if (!ScheduleDayIndex(part.days[d]).has_value()) {
        daypart.Fail(ElementPath("days", d), absl::StrCat("must be mon, tue, wed, thu, fri, sat "
                                                          "or sun; got \"",
                                                          Checker::Shown(part.days[d]), "\""));
      } else if (!seen.insert(part.days[d]).second) {
        daypart.Fail(ElementPath("days", d), "is listed twice");
      }
    }
    if (daypart.InRange("from_hour", part.from_hour, 0, 23)) {
      daypart.InRange("to_hour", part.to_hour, part.from_hour + 1, 24);
    }
  }
}

}  // namespace

void ValidateCampaign(const CampaignConfig& campaign, const BidderConfig& config,
                      const Checker& at) {
  if (!internal::IsIdentifier(campaign.id, 32, "_-")) {
    at.Fail("id", "must be 1-32 characters of [A-Za-z0-9_-] (it is part of storage row keys)");
  }
  if (!campaign.seat.empty() && !internal::IsPrintableToken(campaign.seat, 64)) {
    at.Fail("seat", "must be at most 64 printable ASCII characters without spaces");
  }
  if (campaign.advertiser_domains.empty()) {
    at.Fail("advertiser_domains", "must list at least one domain");
  }
  at.EachString(
      "advertiser_domains", campaign.advertiser_domains,
      [](const std::string& d) { return internal::IsLowerCaseDomain(d); },
      "must be a lower-case domain name such as example.com");
  const bool cattax_usable = campaign.cattax >= taxonomy::kFirstVendor ||
                             taxonomy::CategoryTaxonomies::Iab().Known(campaign.cattax);
  if (!cattax_usable) {
    at.Fail("cattax",
            absl::StrCat("must be a taxonomy the bidder has tables for (", KnownTaxonomiesListed(),
                         ") or a vendor taxonomy (500 and above); got ", campaign.cattax));
  }
  CheckCategories(at, "iab_categories", campaign.iab_categories, campaign.cattax);
  if (campaign.daily_budget_micros <= 0) at.Fail("daily_budget_micros", "must be > 0");
  if (campaign.lifetime_budget_micros < 0) {
    at.Fail("lifetime_budget_micros", "must be > 0 when set (0 or absent: no lifetime budget)");
  }
  if (!internal::IsIsoCurrencyCode(campaign.currency)) {
    at.Fail("currency", absl::StrCat("must be an ISO 4217 currency code; got \"",
                                     Checker::Shown(campaign.currency), "\""));
  } else if (config.bid.currency_rates.count(campaign.currency) == 0) {
    at.Fail("currency", absl::StrCat(campaign.currency, " has no rate in bid.currency_rates"));
  }
  if (campaign.pacing_mode != PacingMode::kEven && campaign.pacing_mode != PacingMode::kAsap) {
    at.Fail("pacing_mode", "must be even or asap");
  }
  if (!internal::IsTimeZoneName(campaign.time_zone)) {
    at.Fail("time_zone", absl::StrCat("must be an IANA time zone name such as "
                                      "America/New_York; got \"",
                                      Checker::Shown(campaign.time_zone), "\""));
  } else if (!internal::TimeZoneExists(campaign.time_zone)) {
    at.Fail("time_zone", absl::StrCat("unknown time zone \"", campaign.time_zone,
                                      "\" (not in the time zone database)"));
  }
  at.InRange("frequency_cap_per_day", campaign.frequency_cap_per_day, 0, 10000);
  if (!(campaign.max_bid_cpm > 0)) {
    at.Fail("max_bid_cpm", "must be > 0");
  } else if (!(campaign.max_bid_cpm <= kMaxBidCpm)) {
    at.Fail("max_bid_cpm", absl::StrCat("must be at most ", kMaxBidCpm));
  }
  ValidateGoal(campaign.goal, at.Member("goal"));
  ValidateSchedule(campaign.schedule, at.Member("schedule"));
  ValidateTargeting(campaign.targeting, at.Member("targeting"));
  if (campaign.dsa.has_value()) ValidateCampaignDsa(*campaign.dsa, at.Member("dsa"));
  if (campaign.creatives.empty()) at.Fail("creatives", "must list at least one creative");
  std::map<std::string, size_t> creative_ids;
  for (size_t j = 0; j < campaign.creatives.size(); ++j) {
    const CreativeConfig& creative = campaign.creatives[j];
    Checker cr = at.Element("creatives", j);
    ValidateCreative(creative, cr, campaign.cattax);
    if (auto [it, inserted] = creative_ids.emplace(creative.id, j);
        !inserted && !creative.id.empty()) {
      cr.Fail("id", Checker::DuplicateOf(at.ElementAt("creatives", it->second) + ".id"));
    }
  }
}

void ValidateCampaigns(const BidderConfig& config, ErrorList* errors) {
  Checker root("", errors);
  std::map<std::string, size_t> ids;
  for (size_t i = 0; i < config.campaigns.size(); ++i) {
    const CampaignConfig& campaign = config.campaigns[i];
    Checker at = root.Element("campaigns", i);
    ValidateCampaign(campaign, config, at);
    if (!internal::IsIdentifier(campaign.id, 32, "_-")) continue;
    if (auto [it, inserted] = ids.emplace(campaign.id, i); !inserted) {
      at.Fail("id", Checker::DuplicateOf(root.ElementAt("campaigns", it->second) + ".id"));
    }
  }
}

}  // namespace rtb::config::internal
