#include "bidder/bid/internal/campaign_index.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "bidder/bid/beacon_url.h"

namespace rtb::bidder {
namespace {

// ISO 3166-1 alpha-3 packed like a currency code; 0 when not three letters.
uint32_t PackCountry(std::string_view country) { return PackCurrencyCode(country); }

std::string Lower(std::string_view s) {
  return absl::AsciiStrToLower(absl::string_view(s.data(), s.size()));
}

MediaType MediaOf(config::CreativeFormat format) {
  switch (format) {
    case config::CreativeFormat::kBanner:
      return MediaType::kBanner;
    case config::CreativeFormat::kVideo:
      return MediaType::kVideo;
    case config::CreativeFormat::kAudio:
      return MediaType::kAudio;
    case config::CreativeFormat::kNative:
      return MediaType::kNative;
  }
  return MediaType::kBanner;
}

// The app-store id a landing URL opens, or "" (see Creative::promoted_app).
std::string PromotedApp(std::string_view url) {
  const std::string lower = Lower(url);
  const std::string_view u = lower;
  for (std::string_view play : {"https://play.google.com/store/apps/details?",
                                "http://play.google.com/store/apps/details?"}) {
    if (!u.starts_with(play)) continue;
    std::string_view query = std::string_view(url).substr(play.size());
    while (!query.empty()) {
      const size_t amp = query.find('&');
      std::string_view param = query.substr(0, amp);
      if (param.starts_with("id=")) {
        std::string_view id = param.substr(3);
        id = id.substr(0, id.find('#'));
        return std::string(id);
      }
      if (amp == std::string_view::npos) break;
      query.remove_prefix(amp + 1);
    }
    return "";
  }
  for (std::string_view apple : {"https://apps.apple.com/", "https://itunes.apple.com/"}) {
    if (!u.starts_with(apple)) continue;
    std::string_view path = u.substr(apple.size());
    path = path.substr(0, path.find_first_of("?#"));
    const size_t slash = path.rfind('/');
    std::string_view last = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (last.size() > 2 && last.starts_with("id") &&
        std::all_of(last.begin() + 2, last.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::string(last.substr(2));
    }
    return "";
  }
  return "";
}

void AddUnique(std::vector<std::string>* list, const std::string& value) {
  if (std::find(list->begin(), list->end(), value) == list->end()) list->push_back(value);
}

}  // namespace

CategorySet CategorySet::Of(int32_t taxonomy, std::vector<std::string> codes) {
  const taxonomy::CategoryTaxonomies& tables = taxonomy::CategoryTaxonomies::Iab();
  CategorySet set;
  set.taxonomy = taxonomy;
  set.codes = std::move(codes);
  for (size_t t = 0; t < taxonomy::kKnownTaxonomyCount; ++t) {
    for (const std::string& code : set.codes) {
      for (taxonomy::CategoryPath& path :
           tables.Translate(taxonomy, code, taxonomy::kKnownTaxonomies[t])) {
        if (std::find(set.translated[t].begin(), set.translated[t].end(), path) ==
            set.translated[t].end()) {
          set.translated[t].push_back(std::move(path));
        }
      }
    }
  }
  return set;
}

bool CampaignSet::empty() const {
  return std::all_of(words_.begin(), words_.end(), [](uint64_t w) { return w == 0; });
}

size_t CampaignSet::size() const {
  size_t n = 0;
  for (uint64_t w : words_) n += static_cast<size_t>(std::popcount(w));
  return n;
}

void CampaignSet::UnionWith(const CampaignSet& other) {
  for (size_t i = 0; i < words_.size() && i < other.words_.size(); ++i)
    words_[i] |= other.words_[i];
}

void CampaignSet::IntersectWith(const CampaignSet& other) {
  for (size_t i = 0; i < words_.size(); ++i) {
    words_[i] &= i < other.words_.size() ? other.words_[i] : 0;
  }
}

void CampaignSet::IntersectWithUnion(const CampaignSet& a, const CampaignSet& b) {
  for (size_t i = 0; i < words_.size(); ++i) {
    const uint64_t wa = i < a.words_.size() ? a.words_[i] : 0;
    const uint64_t wb = i < b.words_.size() ? b.words_[i] : 0;
    words_[i] &= wa | wb;
  }
}

uint64_t CampaignIndex::FormatKey(MediaType media, int w, int h) {
  if (media != MediaType::kBanner) w = h = 0;
  return (static_cast<uint64_t>(media) << 48) |
         (static_cast<uint64_t>(static_cast<uint32_t>(w) & 0xffffff) << 24) |
         (static_cast<uint64_t>(static_cast<uint32_t>(h) & 0xffffff));
}

namespace {

absl::StatusOr<Creative> CreativeOf(const config::CreativeConfig& cc,
                                    const config::CampaignConfig& c, const std::string& where) {
  Creative creative;
  creative.id = cc.id;
  creative.media = MediaOf(cc.format);
  creative.w = cc.w;
  creative.h = cc.h;
  if (creative.media == MediaType::kBanner && (cc.w <= 0 || cc.h <= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": banner creative ", cc.id, " needs w and h"));
  }
  for (const std::string& m : cc.mimes) creative.mimes.push_back(Lower(m));
  creative.duration_s = cc.duration_s;
  creative.adm = cc.adm;
  creative.has_impression_pixel = cc.adm.find(kImpressionUrlPlaceholder) != std::string::npos;
  creative.nurl_delivery = cc.nurl_delivery;
  creative.native = cc.native;
  for (config::NativeImageConfig& image : creative.native.images) image.mime = Lower(image.mime);
  for (std::string& m : creative.native.video_mimes) m = Lower(m);
  creative.attr.assign(cc.attr.begin(), cc.attr.end());
  creative.api.assign(cc.api.begin(), cc.api.end());
  creative.language = Lower(cc.language);
  creative.adid = cc.adid;
  creative.iurl = cc.iurl;
  creative.protocol = cc.protocol;
  creative.linearity = creative.media == MediaType::kVideo && cc.linearity == 0 ? 1 : cc.linearity;
  for (config::StartSlot slot : cc.start_slots) {
    creative.start_slots |= slot == config::StartSlot::kPre   ? kPreRoll
                            : slot == config::StartSlot::kMid ? kMidRoll
                                                              : kPostRoll;
  }
  for (int plcmt : cc.placements) {
    if (plcmt >= 1 && plcmt <= 7) creative.placements |= PlacementBit(plcmt);
  }
  creative.skippable = cc.skippable;
  creative.bitrate_kbps = cc.bitrate_kbps;
  // Native markup is built with the beacon URLs; its image URLs count.
  std::string urls = Lower(cc.adm);
  for (const config::NativeImageConfig& image : cc.native.images) urls += " " + Lower(image.url);
  urls += " " + Lower(cc.native.video_vast);
  creative.secure = urls.find("http://") == std::string::npos;
  std::vector<std::string> categories = c.iab_categories;
  for (const std::string& cat : cc.iab_categories) AddUnique(&categories, cat);
  creative.categories = CategorySet::Of(c.cattax, std::move(categories));
  creative.promoted_app = PromotedApp(cc.landing_url);
  creative.landing_url = cc.landing_url;
  return creative;
}

// Campaign number `i` as the auction reads it; InvalidArgument naming it
// when a value the bid path depends on is unusable.
absl::StatusOr<Campaign> CampaignOf(const config::CampaignConfig& c, size_t i,
                                    const std::string& default_currency,
                                    const CurrencyTable& currencies) {
  const std::string where = absl::StrCat("campaigns[", i, "] (", c.id, ")");
  Campaign campaign;
  campaign.index = i;
  campaign.id = c.id;
  campaign.enabled = c.enabled;
  campaign.seat = c.seat;
  for (const std::string& d : c.advertiser_domains) campaign.advertiser_domains.push_back(Lower(d));
  campaign.categories = CategorySet::Of(c.cattax, c.iab_categories);
  campaign.rewarded = c.targeting.rewarded;
  campaign.currency = absl::AsciiStrToUpper(c.currency.empty() ? default_currency : c.currency);
  campaign.currency_code = PackCurrencyCode(campaign.currency);
  if (!currencies.Has(campaign.currency_code)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": no exchange rate for currency ", campaign.currency));
  }
  if (!(c.max_bid_cpm > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": max_bid_cpm must be > 0"));
  }
  campaign.max_bid_cpm = c.max_bid_cpm;
  campaign.goal = c.goal;
  absl::TimeZone zone;
  if (!absl::LoadTimeZone(c.time_zone, &zone)) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": unknown time zone ", c.time_zone));
  }
  campaign.frequency_cap = FrequencyCap(c.frequency_cap_per_day, zone);
  absl::StatusOr<config::BiddingSchedule> schedule = config::BiddingSchedule::Of(c.schedule, zone);
  if (!schedule.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", schedule.status().message()));
  }
  campaign.schedule = *std::move(schedule);
  campaign.store_outage_policy = c.store_outage_policy;
  campaign.bids_without_profile = config::BidsWithoutProfile(c);
  const config::TargetingConfig& t = c.targeting;
  campaign.content_categories = t.content_categories;
  for (const std::string& d : t.domains_allow) campaign.domains_allow.push_back(Lower(d));
  for (const std::string& d : t.domains_deny) campaign.domains_deny.push_back(Lower(d));
  campaign.required_segments = t.required_segments;
  campaign.deal_ids = t.deal_ids;
  for (const std::string& country : t.countries) {
    if (PackCountry(country) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": bad country ", country));
    }
    campaign.countries.push_back(absl::AsciiStrToUpper(country));
  }
  campaign.device_types = t.device_types;
  if (c.creatives.empty()) return absl::InvalidArgumentError(absl::StrCat(where, ": no creatives"));
  for (const config::CreativeConfig& cc : c.creatives) {
    absl::StatusOr<Creative> creative = CreativeOf(cc, c, where);
    if (!creative.ok()) return creative.status();
    campaign.creatives.push_back(*std::move(creative));
  }
  campaign.dsa = c.dsa;
  campaign.dsa_offer.has_behalf_and_paid =
      c.dsa.has_value() && !c.dsa->behalf.empty() && !c.dsa->paid.empty();
  campaign.dsa_offer.renders_notice = c.dsa.has_value() && c.dsa->adrender == 1;
  return campaign;
}

}  // namespace

absl::StatusOr<CampaignIndex> CampaignIndex::Build(
    const std::vector<config::CampaignConfig>& configs, const std::string& default_currency,
    const CurrencyTable& currencies, std::vector<std::string>* refused) {
  CampaignIndex index;
  const size_t n = configs.size();
  index.any_country_.Reset(n);
  index.any_device_type_.Reset(n);
  index.open_auction_.Reset(n);
  for (size_t i = 0; i < n; ++i) {
    absl::StatusOr<Campaign> campaign = CampaignOf(configs[i], i, default_currency, currencies);
    if (!campaign.ok() && refused != nullptr) {
      refused->push_back(std::string(campaign.status().message()));
      Campaign disabled;
      disabled.index = i;
      disabled.id = configs[i].id;
      disabled.enabled = false;
      campaign = std::move(disabled);
    }
    if (!campaign.ok()) return campaign.status();
    if (campaign->enabled) index.Post(*campaign, n);
    index.campaigns_.push_back(*std::move(campaign));
  }
  return index;
}

void CampaignIndex::Post(const Campaign& campaign, size_t n) {
  const size_t i = campaign.index;
  auto posting = [n](auto& map, const auto& key) -> CampaignSet& {
    auto [it, inserted] = map.try_emplace(key);
    if (inserted) it->second.Reset(n);
    return it->second;
  };
  for (const Creative& creative : campaign.creatives) {
    posting(by_format_, FormatKey(creative.media, creative.w, creative.h)).Insert(i);
  }
  if (campaign.countries.empty()) {
    any_country_.Insert(i);
  } else {
    for (const std::string& country : campaign.countries) {
      posting(by_country_, PackCountry(country)).Insert(i);
    }
  }
  if (campaign.device_types.empty()) {
    any_device_type_.Insert(i);
  } else {
    for (int type : campaign.device_types) posting(by_device_type_, type).Insert(i);
  }
  if (campaign.deal_ids.empty()) {
    open_auction_.Insert(i);
  } else {
    for (const std::string& deal : campaign.deal_ids) posting(by_deal_, deal).Insert(i);
  }
}

void CampaignIndex::Candidates(const openrtb::BidRequest& request, const openrtb::Imp& imp,
                               CampaignSet* out) const {
  const size_t n = campaigns_.size();
  out->Reset(n);
  if (n == 0) return;

  // Format: the union over what the impression offers.
  auto add_format = [&](MediaType media, int w, int h) {
    auto it = by_format_.find(FormatKey(media, w, h));
    if (it != by_format_.end()) out->UnionWith(it->second);
  };
  if (imp.banner.has_value()) {
    const openrtb::Banner& banner = *imp.banner;
    if (banner.w.has_value() && banner.h.has_value())
      add_format(MediaType::kBanner, *banner.w, *banner.h);
    for (const openrtb::Format& f : banner.format) {
      if (f.w.has_value() && f.h.has_value()) add_format(MediaType::kBanner, *f.w, *f.h);
    }
  }
  if (imp.video.has_value()) add_format(MediaType::kVideo, 0, 0);
  if (imp.audio.has_value()) add_format(MediaType::kAudio, 0, 0);
  if (imp.native.has_value()) add_format(MediaType::kNative, 0, 0);
  if (out->empty()) return;

  // Country.
  static const CampaignSet kNone;
  const CampaignSet* country = &kNone;
  if (request.device.has_value() && request.device->geo.has_value()) {
    auto it = by_country_.find(PackCountry(request.device->geo->country));
    if (it != by_country_.end()) country = &it->second;
  }
  out->IntersectWithUnion(*country, any_country_);

  // Device type.
  const CampaignSet* device = &kNone;
  if (request.device.has_value() && request.device->devicetype.has_value()) {
    auto it = by_device_type_.find(*request.device->devicetype);
    if (it != by_device_type_.end()) device = &it->second;
  }
  out->IntersectWithUnion(*device, any_device_type_);

  // Deals, and the open auction unless the impression is private.
  const bool private_auction = imp.pmp.has_value() && imp.pmp->private_auction;
  if (imp.pmp.has_value() && !imp.pmp->deals.empty() && !by_deal_.empty()) {
    // A scratch set per thread: the union of the offered deals' postings.
    thread_local CampaignSet offered;
    offered.Reset(n);
    for (const openrtb::Deal& deal : imp.pmp->deals) {
      auto it = by_deal_.find(deal.id);
      if (it != by_deal_.end()) offered.UnionWith(it->second);
    }
    out->IntersectWithUnion(offered, private_auction ? kNone : open_auction_);
  } else {
    out->IntersectWithUnion(private_auction ? kNone : open_auction_, kNone);
  }
}

}  // namespace rtb::bidder
