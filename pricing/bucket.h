// The bucket a first-price bid is shaded in: exchange x site or app x the
// creative's format and size, as one 64-bit id. The bid path computes it,
// the bid's signed beacon URLs carry it (hex), the beacon side counts each
// win and loss notice under it, and the fitter fits one win-rate curve per
// bucket.
//
//   bits 63..48  the top 16 bits of StableHash64(exchange name), so the
//                fitter can tell the exchange of a bucket (and the exchanges
//                of one config apart: PricingLoop refuses a collision)
//   bits 47..0   a mix of the inventory hash (InventoryHash) and the format
//                code: media type (OpenRTB mtype) << 32 | w << 16 | h
//
// 0 is never a bucket; it means "none". Ids are stored (outcome rows, the
// published model): a change here orphans what was learnt.
//
// Thread-safety: pure functions.
#ifndef RTB_PRICING_BUCKET_H_
#define RTB_PRICING_BUCKET_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rtb::pricing {

// The exchange part of a bucket id (bits 63..48 set, the rest 0).
uint64_t ExchangeBucketBits(std::string_view exchange);
// The exchange part of `bucket`, as ExchangeBucketBits returns it.
inline uint64_t ExchangeBitsOf(uint64_t bucket) { return bucket & 0xffff000000000000ULL; }

// The inventory's hash: `kind` tells the namespaces apart ('s' site, 'a' app,
// 'd' digital out-of-home, '-' none), `id` is the site's domain or the app's
// bundle (or their ids when those are empty).
uint64_t InventoryHash(char kind, std::string_view id);

// The bucket of an exchange, an inventory and a creative (`media` is the
// OpenRTB mtype, 1 banner .. 4 native; `w` and `h` 0 when not sized).
uint64_t BucketOf(uint64_t exchange_bits, uint64_t inventory_hash, int media, int w, int h);

// 16 lower-case hex digits; parsing takes either case and refuses anything
// else (and 0).
std::string BucketText(uint64_t bucket);
// The same digits without a string of their own (BucketText's allocates):
// for the bid path, which writes them into beacon URLs.
std::array<char, 16> BucketDigits(uint64_t bucket);
std::optional<uint64_t> ParseBucket(std::string_view text);

}  // namespace rtb::pricing

#endif  // RTB_PRICING_BUCKET_H_
