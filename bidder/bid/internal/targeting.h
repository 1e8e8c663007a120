// The per-candidate rules of the auction that the CampaignIndex does not
// decide: seats, the request's blocks, site/app targeting, segments and the
// fit of a creative to an impression. Floors, caps and pacing are in the
// auction itself (bidder/auction.h).
//
// Matching rules:
//   - Domains: an entry matches the domain itself and its subdomains
//     ("foobar.com" matches "www.foobar.com", not "notfoobar.com"), ignoring
//     ASCII case. The request's domain is site.domain, else app.domain, else
//     the host of site.page. domains_allow needs a domain; domains_deny passes
//     a request without one.
//   - badv: an advertiser domain of the campaign matched by a badv entry
//     (same domain rule) blocks the campaign.
//   - Categories (bcat, acat): in the request's cattax taxonomy, the
//     campaign's and creative's categories translated into it
//     (bidder/bid/internal/categories.h). A tier-1 code covers its
//     subcategories: bcat "IAB7" blocks a creative in "IAB7-39". bcat is
//     checked on the campaign's categories first, then on the creative's
//     (with the campaign's); acat on the creative's.
//   - Content targeting: a campaign targeting content "IAB15" matches a site
//     in "IAB15-10"; "IAB15-10" matches only itself. The content of a request
//     is site (or app) cat, sectioncat and pagecat; one match with
//     content_categories is enough.
//   - bapp: the app a creative promotes (Creative::promoted_app) must not be
//     listed.
//   - Seats: the campaign's seat (or the exchange's) must be in the request's
//     wseat when that is given and not in bseat; deals check their own wseat
//     in the auction.
//   - Segments: every required segment must be in the profile; without a
//     profile no campaign with required segments matches.
//   - Creative fit: banner - one of the sizes the impression offers
//     (banner.w/h or banner.format[]); a banner without any size fits
//     nothing, since we cannot know what fits. Video and audio - the rules of
//     bidder/bid/internal/media_fit.h (MIME types, durations, protocols,
//     placement, linearity, start delay, skip, bit rate); the player size is
//     not checked (VAST media scale to the player). Native - the native
//     request's assets and trackers (bidder/bid/internal/native_markup.h).
//     Every format: the APIs the creative needs in the format's api list;
//     imp.secure=1 needs markup without http:// references; with wlang or
//     wlangb, the creative's language among them (wlangb by its primary
//     subtag; a creative without a language does not fit).
//   - battr of the impression's format object blocks a creative with one of
//     those attributes.
//
// Thread-safety: pure functions over immutable inputs.
#ifndef RTB_BIDDER_BID_INTERNAL_TARGETING_H_
#define RTB_BIDDER_BID_INTERNAL_TARGETING_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bidder/bid/internal/campaign_index.h"
#include "bidder/bid/internal/categories.h"
#include "bidder/bid/internal/profile.h"
#include "bidder/openrtb/openrtb.h"

namespace rtb::bidder {

// Why a candidate did not bid, in the order the auction checks. A no-bid is
// reported with the furthest stage any candidate reached (see auction.h).
enum class Rejection : uint8_t {
  kNone = 0,
  kInsecure,      // a secure impression, and the exchange has no https beacon base
  kSchedule,      // outside the campaign's flight or dayparts
  kSeat,          // request wseat, or the deals' wseat, exclude the campaign's seat
  kBlocked,       // badv, bcat, acat, battr or bapp
  kTargeting,     // content categories or domains
  kSegments,      // required segments not in the profile
  kDsa,           // regs.ext.dsa requires what the campaign cannot give
  kCreative,      // no creative fits the impression
  kFloor,         // max bid below the floor (or a floor in an unknown currency)
  kStoreOutage,   // the profile could not be read and the campaign's policy forbids bidding blind
  kFrequencyCap,  // the device has seen the campaign often enough today
  kPacing,        // the pacing snapshot throttles or stops the campaign
};

// What every candidate of one request is checked against, computed once.
struct RequestFacts {
  const openrtb::BidRequest* request = nullptr;
  std::string domain;                                // lower case; "" when the request names none
  std::vector<std::string_view> content_categories;  // views into *request
  RequestTaxonomy taxonomy;                          // of bcat, acat and the bid's cat
  // wlang and the primary subtags of wlangb (views into *request); empty:
  // any language.
  std::vector<std::string_view> languages;

  // Fills the facts of `request`, reusing this object's capacity.
  void Reset(const openrtb::BidRequest& request);
};

// Seat, blocks on the campaign's own domains and categories, content and
// domain targeting, segments. `seat` is the campaign's effective seat.
Rejection CheckCampaign(const Campaign& campaign, std::string_view seat, const RequestFacts& facts,
                        const Profile& profile);

// kNone when `creative` can serve `imp`; kCreative when it does not fit,
// kBlocked when battr, bcat or acat (on the creative's categories) or bapp
// excludes it.
Rejection CheckCreative(const Creative& creative, const openrtb::Imp& imp,
                        const RequestFacts& facts);

bool DomainMatches(std::string_view domain, std::string_view entry);
bool CategoryBlocked(std::string_view category, const std::vector<std::string>& bcat);
bool ContentCategoryMatches(std::string_view content, std::string_view target);

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_TARGETING_H_
