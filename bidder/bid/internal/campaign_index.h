// Campaigns and creatives in memory, as the auction reads them, and the index
// that turns one impression into its candidate campaigns without looking at
// every campaign.
//
// The index keeps, per dimension, a bit set of the campaigns that accept a
// value (a posting list) and one of the campaigns that accept any value:
//
//   format   : (banner, w, h) per creative size; video; audio; native
//   country  : campaigns[].targeting.countries        (alpha-3 of device.geo.country)
//   device   : campaigns[].targeting.device_types     (device.devicetype)
//   deal     : campaigns[].targeting.deal_ids         (imp.pmp.deals[].id)
//
// The candidates of an impression are the intersection over the dimensions of
// (union of the posting lists of the values the impression offers) with the
// dimension's "any" set; e.g. for a banner impression offering 300x250 and
// 320x50 in Germany on a phone:
//
//   (banner 300x250 | banner 320x50) & (DEU | any country) & (phone | any device)
//   & (deals offered | open-auction campaigns, unless pmp.private_auction)
//
// That is a few hash lookups and word-wise ANDs of N/64 words, independent of
// how the campaigns' other rules look. A campaign with deal_ids is never an
// open-auction candidate; a disabled campaign is in no posting list. What the
// index cannot decide cheaply (creative details, floors, blocks, site
// targeting, segments, caps, pacing) the auction checks per candidate.
//
// Campaigns keep their position in the list given to Build as their index
// (metrics, pacing decisions and bit positions all use it): the config's
// order, then campaigns added while the bidder runs, appended
// (bidder/campaigns/campaign_follower.h).
//
// Thread-safety: immutable after Build(); share freely across threads.
#ifndef RTB_BIDDER_BID_INTERNAL_CAMPAIGN_INDEX_H_
#define RTB_BIDDER_BID_INTERNAL_CAMPAIGN_INDEX_H_

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bidder/bid/currency.h"
#include "bidder/bid/frequency_cap.h"
#include "bidder/openrtb/openrtb.h"
#include "bidder/privacy/dsa.h"
#include "config/bidding_schedule.h"
#include "config/config.h"
#include "taxonomy/category_taxonomy.h"

namespace rtb::bidder {

// Values are OpenRTB 2.6 bid.mtype.
enum class MediaType : int32_t { kBanner = 1, kVideo = 2, kAudio = 3, kNative = 4 };

// Categories (of a campaign, or of a creative with its campaign's) as a
// request in any taxonomy sees them: as configured, and translated into each
// taxonomy the tables hold (taxonomy/category_taxonomy.h), each code with
// the path above it.
struct CategorySet {
  int32_t taxonomy = taxonomy::kContent1;  // the campaign's cattax
  std::vector<std::string> codes;          // as configured
  std::array<std::vector<taxonomy::CategoryPath>, taxonomy::kKnownTaxonomyCount> translated;

  // Translates `codes` of `taxonomy` with the IAB tables.
  static CategorySet Of(int32_t taxonomy, std::vector<std::string> codes);
};

// Bits of Creative::start_slots and Creative::placements.
inline constexpr uint8_t kPreRoll = 1, kMidRoll = 2, kPostRoll = 4;
inline constexpr uint8_t PlacementBit(int plcmt) { return static_cast<uint8_t>(1u << plcmt); }

struct Creative {
  std::string id;
  MediaType media = MediaType::kBanner;
  int w = 0;  // 0: any (native)
  int h = 0;
  std::vector<std::string> mimes;  // lower-case
  int duration_s = 0;
  std::string adm;  // with the ${CLICK_URL} (and ${IMPRESSION_URL}) placeholders
  // Native: the assets the markup is built from (mimes lower case).
  config::NativeAssetsConfig native;
  std::vector<int32_t> attr;  // AdCOM creative attributes: battr
  std::vector<int32_t> api;   // API frameworks it needs
  std::string language;       // ISO 639-1, lower case; "" unknown
  std::string adid;
  std::string iurl;
  // Video and audio.
  int32_t protocol = 0;     // AdCOM creative subtype; 0: unknown
  int32_t linearity = 0;    // video: 1 linear, 2 non-linear
  uint8_t start_slots = 0;  // kPreRoll | kMidRoll | kPostRoll; 0: any
  uint8_t placements = 0;   // PlacementBit(plcmt) of the 2.6 plcmt values; 0: any
  bool skippable = true;
  int bitrate_kbps = 0;  // 0: unknown
  // The markup holds ${IMPRESSION_URL}: the bid signs an impression pixel URL.
  bool has_impression_pixel = false;
  bool nurl_delivery = false;
  // False when the markup references an http:// resource, so it may not
  // serve on imp.secure=1.
  bool secure = true;
  // The campaign's categories followed by the creative's own, without
  // duplicates: the bid's `cat`, and what bcat and acat are checked against.
  CategorySet categories;
  // The app the creative promotes when its landing URL is an app-store page
  // (Google Play `details?id=<bundle>`, Apple App Store `.../id<digits>`):
  // what bapp is checked against. Empty otherwise.
  std::string promoted_app;
  std::string landing_url;
};

struct Campaign {
  size_t index = 0;  // position (see the top of this file)
  std::string id;
  bool enabled = true;
  std::string seat;  // "" = the exchange's seat
  std::vector<std::string> advertiser_domains;
  CategorySet categories;
  std::string currency;             // ISO 4217, upper case
  uint32_t currency_code = 0;       // PackCurrencyCode(currency)
  double max_bid_cpm = 0;           // in `currency`
  config::CampaignGoalConfig goal;  // what an impression is worth (pricing/pricer.h)
  // campaigns[].schedule in the campaign's time_zone: MayBidAt(now).
  config::BiddingSchedule schedule;
  FrequencyCap frequency_cap{0, absl::UTCTimeZone()};
  config::StoreOutagePolicy store_outage_policy = config::StoreOutagePolicy::kContextualOnly;
  // config::BidsWithoutProfile: may bid while the profile cannot be read.
  bool bids_without_profile = false;
  std::vector<std::string> content_categories;
  std::vector<std::string> domains_allow;  // lower case
  std::vector<std::string> domains_deny;   // lower case
  std::vector<std::string> required_segments;
  std::vector<std::string> deal_ids;
  std::vector<std::string> countries;  // upper case alpha-3
  std::vector<int> device_types;
  config::RewardedPolicy rewarded = config::RewardedPolicy::kAny;
  std::vector<Creative> creatives;
  // campaigns[].dsa; absent: the campaign offers no DSA information.
  std::optional<config::CampaignDsaConfig> dsa;
  // What the campaign offers to regs.ext.dsa (bidder/privacy/dsa.h).
  privacy::DsaCampaign dsa_offer;
};

// A set of campaign indexes, one bit each.
class CampaignSet {
 public:
  CampaignSet() = default;
  explicit CampaignSet(size_t campaigns) : words_((campaigns + 63) / 64, 0) {}

  // Resizes to `campaigns` bits, all clear; keeps the capacity.
  void Reset(size_t campaigns) { words_.assign((campaigns + 63) / 64, 0); }
  void Insert(size_t i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
  bool Contains(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  bool empty() const;
  size_t size() const;

  void UnionWith(const CampaignSet& other);
  void IntersectWith(const CampaignSet& other);
  // this &= (a | b)
  void IntersectWithUnion(const CampaignSet& a, const CampaignSet& b);

  // Calls fn(index) for each member in increasing order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (size_t w = 0; w < words_.size(); ++w) {
      for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) {
        fn(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
      }
    }
  }

 private:
  std::vector<uint64_t> words_;
};

class CampaignIndex {
 public:
  // Builds the model and the index. Campaigns without a currency get
  // `default_currency`. InvalidArgument naming the campaign when a value the
  // bid path depends on is unusable (unknown currency or time zone, a creative
  // without size, ...); a config that passed ValidateConfig always builds.
  //
  // With `refused` set, such a campaign does not fail the build: it keeps its
  // position, disabled (in no posting list), and its error is appended to
  // `*refused`. That is how campaigns changed while the bidder runs are
  // built, since one bad row must not stop the others.
  static absl::StatusOr<CampaignIndex> Build(const std::vector<config::CampaignConfig>& campaigns,
                                             const std::string& default_currency,
                                             const CurrencyTable& currencies,
                                             std::vector<std::string>* refused = nullptr);

  size_t size() const { return campaigns_.size(); }
  const Campaign& campaign(size_t index) const { return campaigns_[index]; }
  const std::vector<Campaign>& campaigns() const { return campaigns_; }

  // Replaces `*out` with the candidates of `imp` of `request` (see the header
  // comment). Reuses the capacity of `*out`.
  void Candidates(const openrtb::BidRequest& request, const openrtb::Imp& imp,
                  CampaignSet* out) const;

 private:
  static uint64_t FormatKey(MediaType media, int w, int h);
  // Adds `campaign` to the posting lists of what it accepts; sets have `n`
  // bits.
  void Post(const Campaign& campaign, size_t n);

  std::vector<Campaign> campaigns_;
  absl::flat_hash_map<uint64_t, CampaignSet> by_format_;
  absl::flat_hash_map<uint32_t, CampaignSet> by_country_;
  CampaignSet any_country_;
  absl::flat_hash_map<int32_t, CampaignSet> by_device_type_;
  CampaignSet any_device_type_;
  absl::flat_hash_map<std::string, CampaignSet> by_deal_;
  CampaignSet open_auction_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_CAMPAIGN_INDEX_H_
