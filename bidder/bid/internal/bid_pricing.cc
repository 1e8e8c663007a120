#include "bidder/bid/internal/bid_pricing.h"

#include "pricing/bucket.h"

namespace rtb::bidder {

bool FirstPriceAuction(const openrtb::BidRequest& request, const openrtb::Deal* deal) {
  if (deal != nullptr && deal->at.has_value()) return *deal->at == 1;
  return request.at == 1;
}

uint64_t RequestInventoryHash(const openrtb::BidRequest& request) {
  if (request.site.has_value()) {
    return pricing::InventoryHash(
        's', !request.site->domain.empty() ? request.site->domain : request.site->id);
  }
  if (request.app.has_value()) {
    return pricing::InventoryHash(
        'a', !request.app->bundle.empty() ? request.app->bundle : request.app->id);
  }
  return pricing::InventoryHash('-', "");
}

ImpressionPricing::ImpressionPricing(const openrtb::BidRequest& request, uint64_t exchange_bits,
                                     size_t exchange, double usd_per_unit, int64_t now_ms)
    : request_(request),
      exchange_bits_(exchange_bits),
      // Hashed only for first-price requests; a deal's `at` may still make a
      // bid first price, then it is hashed per bid (rare).
      inventory_hash_(request.at == 1 ? RequestInventoryHash(request) : 0),
      exchange_(exchange),
      usd_per_unit_(usd_per_unit),
      now_ms_(now_ms) {}

pricing::ShadeRequest ImpressionPricing::Request(const Creative& creative,
                                                 const openrtb::Deal* deal, double value,
                                                 double floor, double explore_draw,
                                                 double explore_offset) const {
  pricing::ShadeRequest shade;
  shade.exchange = exchange_;
  shade.first_price = FirstPriceAuction(request_, deal);
  shade.value = value;
  shade.floor = floor;
  shade.usd_per_unit = usd_per_unit_;
  shade.now_ms = now_ms_;
  shade.explore_draw = explore_draw;
  shade.explore_offset = explore_offset;
  if (shade.first_price && exchange_bits_ != 0) {
    const uint64_t inventory =
        inventory_hash_ != 0 ? inventory_hash_ : RequestInventoryHash(request_);
    shade.bucket = pricing::BucketOf(exchange_bits_, inventory, static_cast<int>(creative.media),
                                     creative.w, creative.h);
  }
  return shade;
}

}  // namespace rtb::bidder
