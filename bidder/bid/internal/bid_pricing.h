// The price of the bid an impression's auction chose (pricing/pricer.h):
// the auction ranks candidates by value and hands the winner here.
//
//   auction type  the deal's `at` when the bid goes through a deal that has
//                 one, else the request's `at`; 1 is first price, anything
//                 else (2, exchange-specific types) is priced as second price:
//                 the value.
//   bucket        exchange x site (domain, else id) or app (bundle, else id)
//                 x the creative's media type and size (pricing/bucket.h);
//                 first price only.
//   price         Pricer::Shade on the value and the floor the bid must meet
//                 (the deal's, else the impression's), in the response
//                 currency, so never above the value (at most max_bid_cpm)
//                 nor under the floor.
//
// Thread-safety: immutable after construction; per impression on one thread.
#ifndef RTB_BIDDER_BID_INTERNAL_BID_PRICING_H_
#define RTB_BIDDER_BID_INTERNAL_BID_PRICING_H_

#include <cstddef>
#include <cstdint>

#include "bidder/bid/internal/campaign_index.h"
#include "bidder/openrtb/openrtb.h"
#include "pricing/pricer.h"

namespace rtb::bidder {

// Whether a bid on `request`, through `deal` (null: the open auction), is
// sold in a first-price auction.
bool FirstPriceAuction(const openrtb::BidRequest& request, const openrtb::Deal* deal);

// The inventory hash of the request's site or app (pricing::InventoryHash).
uint64_t RequestInventoryHash(const openrtb::BidRequest& request);

class ImpressionPricing {
 public:
  // `exchange_bits` is Pricer::ExchangeBits of the request's exchange;
  // `usd_per_unit` the USD worth of one unit of the response currency.
  ImpressionPricing(const openrtb::BidRequest& request, uint64_t exchange_bits, size_t exchange,
                    double usd_per_unit, int64_t now_ms);

  // The request Pricer::Shade takes for `creative` of a campaign worth
  // `value` (response currency) through `deal`, whose floor is `floor`.
  // `explore_draw` and `explore_offset` are uniform draws in [0, 1).
  pricing::ShadeRequest Request(const Creative& creative, const openrtb::Deal* deal, double value,
                                double floor, double explore_draw, double explore_offset) const;

 private:
  const openrtb::BidRequest& request_;
  uint64_t exchange_bits_;
  uint64_t inventory_hash_;
  size_t exchange_;
  double usd_per_unit_;
  int64_t now_ms_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_BID_PRICING_H_
