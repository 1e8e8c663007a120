// The decision for one bid request: per impression, the best eligible
// campaign and creative and its price, or no bid with the reason.
//
// For each impression, in order:
//   0. a secure impression (imp.secure = 1) of an exchange without an https
//      beacon base gets no bid (Rejection::kInsecure): its beacon URLs would
//      be http;
//   1. candidates from the CampaignIndex (format/size, country, device type,
//      deals or the open auction);
//   2. per candidate, in this order: its schedule (flight and dayparts,
//      campaign_index.h Campaign::schedule); seat (request wseat and bseat), blocks
//      (badv, bcat on the campaign's categories), content and domain
//      targeting, required segments (bidder/targeting.h); rewarded
//      impressions (imp.rwdd against the campaign's `rewarded`); then the DSA
//      signal (regs.ext.dsa, bidder/privacy/dsa.h: dsarequired 2 or 3 and the
//      campaign has no dsa block, or nobody can render the notice); then the
//      first creative that fits the impression (preferring banner.w/h when
//      it is offered) and is not blocked (battr, bcat and acat on its
//      categories, bapp); then the floor; then, when the profile could not be
//      read, the campaign's store_outage_policy (config.h StoreOutagePolicy);
//      then the frequency cap; then the pacing snapshot;
//   3. the candidate with the highest value wins; on equal values a deal bid
//      beats an open-auction bid, then the campaign listed first in the config;
//   4. with a Pricer, the winner's price (bidder/bid/internal/bid_pricing.h):
//      its value in second price, shaded in first price (the deal's `at`,
//      else the request's).
// At most one bid per impression, so one per slot of an ad pod (impressions
// sharing video.podid or audio.podid); a creative that won one slot of a pod
// does not bid on its other slots. A campaign may win several impressions of
// one request, but no more than its frequency cap leaves for today.
//
// Money:
//   - The response currency is the first entry of the request's `cur` we have
//     a rate for, or USD when `cur` is empty (OpenRTB's default). None usable:
//     no bid.
//   - The value is the campaign's max_bid_cpm, or with a Pricer what its
//     goal makes the impression worth (at most max_bid_cpm), converted to
//     the response currency. Without a Pricer the price is the value.
//   - The floor: on a deal, the deal's bidfloor/bidfloorcur (the deal's terms
//     replace the open-market floor); otherwise imp.bidfloor/bidfloorcur. A
//     floor above our value, or a non-zero floor in a currency without a rate,
//     rejects the candidate. Prices equal to the floor up to rounding pass.
//   - Deals: a campaign with deal_ids bids only through an offered deal whose
//     id it lists and whose wseat (when given) holds the campaign's seat; the
//     first such deal in the request's order with a floor the price meets is
//     used. pmp.private_auction=1 admits deal bids only.
//
// When nothing bids, `rejection` is the largest Rejection any candidate got
// (so "floor" means some campaign fitted everything up to the floor), and
// `no_candidates` says the index returned nothing for any impression.
//
// Thread-safety: Run() is const and may be called from many threads at once;
// it uses per-thread scratch space.
#ifndef RTB_BIDDER_BID_INTERNAL_AUCTION_H_
#define RTB_BIDDER_BID_INTERNAL_AUCTION_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "bidder/bid/currency.h"
#include "bidder/bid/internal/campaign_index.h"
#include "bidder/bid/internal/profile.h"
#include "bidder/bid/internal/targeting.h"
#include "bidder/bid/pacing_snapshot.h"
#include "bidder/openrtb/openrtb.h"
#include "bidder/privacy/dsa.h"
#include "pricing/pricer.h"

namespace rtb::bidder {

struct AuctionInput {
  const openrtb::BidRequest* request = nullptr;
  // Empty when the lookup was skipped, failed, missed its deadline or found
  // no row.
  const Profile* profile = nullptr;
  // The profile could not be read (store unhealthy, lookup failed or late):
  // each candidate's store_outage_policy decides whether it may bid on the
  // empty profile.
  bool profile_unavailable = false;
  // The device's engagement over pricing.device_history_days, when the bid
  // path read it (zeros: every cpc and cpa value uses its campaign's rates).
  pricing::DeviceHistory history;
  // Wall-clock time: picks the frequency-cap day.
  absl::Time now;
  // seatbid[].seat of campaigns without their own seat (exchange seat).
  std::string_view exchange_seat;
  // Position of the request's exchange in config.server.exchanges.
  size_t exchange = 0;
  // The exchange has an https beacon base (ExchangeBeaconBases): without
  // one a secure impression (imp.secure = 1) gets no bid (Rejection::kInsecure).
  bool secure_beacons = true;
};

struct ImpBid {
  size_t imp_index = 0;
  const Campaign* campaign = nullptr;
  const Creative* creative = nullptr;
  const openrtb::Deal* deal = nullptr;  // null: open auction
  std::string_view seat;                // the campaign's, else the exchange's
  double price = 0;                     // CPM in AuctionResult::currency
  privacy::DsaDecision dsa;             // whether the bid carries ext.dsa, and its adrender
  double value = 0;                     // the unshaded price, same currency
  double floor = 0;                     // the floor it met (deal's or imp's)
  // How the price was chosen (with a Pricer); shade.bucket is the pricing
  // bucket the beacons carry (0: none).
  pricing::ShadeRequest shade;
  pricing::PriceOutcome outcome = pricing::PriceOutcome::kSecondPrice;
};

struct AuctionResult {
  std::string currency;      // ISO 4217 upper case; "" when none was acceptable
  std::vector<ImpBid> bids;  // in impression order
  bool no_currency = false;
  bool no_candidates = true;
  Rejection rejection = Rejection::kNone;
  // With profile_unavailable: each candidate that reached the outage policy
  // (campaign index, true when the policy withheld its bid).
  std::vector<std::pair<size_t, bool>> outage_decisions;
  // Candidates skipped on an impression because the DSA signal requires
  // ext.dsa and the campaign cannot supply it (per impression and campaign).
  int dsa_skipped = 0;

  void Clear();
};

// What the handler needs to know before deciding on a profile lookup.
struct AuctionPreview {
  bool currency_acceptable = false;   // `cur` names a currency we have a rate for (or is empty)
  bool any_candidates = false;        // some impression has index candidates
  bool needs_segments = false;        // some candidate has required segments
  bool needs_frequency_caps = false;  // some candidate has a frequency cap
  bool needs_profile = false;         // either of the two
  // Some candidate's value depends on the device's history (a cpc or cpa
  // goal, with a Pricer).
  bool needs_history = false;
  // Some secure impression with candidates was left out for want of https
  // beacons.
  bool insecure_skipped = false;
};

class Auction {
 public:
  // All must outlive the Auction. `pricer` null: every bid is the campaign's
  // max_bid_cpm.
  Auction(const CampaignIndex& index, const CurrencyTable& currencies, const PacingSnapshot& pacing,
          const pricing::Pricer* pricer = nullptr);

  // Cheap checks on `request` alone (currency, index candidates), so that
  // a request nobody can bid on costs no lookup. Without `secure_beacons`
  // (AuctionInput) secure impressions have no candidates.
  // With `capped` set, it is replaced by the positions of the candidates
  // with a frequency cap, each once (for reads of their cap-only keys).
  AuctionPreview Preview(const openrtb::BidRequest& request, bool secure_beacons = true,
                         std::vector<size_t>* capped = nullptr) const;

  // Replaces `*result` (reusing its capacity).
  void Run(const AuctionInput& input, AuctionResult* result) const;

 private:
  const CampaignIndex& index_;
  const CurrencyTable& currencies_;
  const PacingSnapshot& pacing_;
  const pricing::Pricer* pricer_;
  uint32_t usd_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_AUCTION_H_
