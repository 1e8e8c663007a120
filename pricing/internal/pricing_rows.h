// The rows of the `pricing` table (storage/schemas.cc), in one place: what
// the beacon side counts, what the fitter reads, and where the fitted model
// is published.
//
// Auction outcomes, family "o" (8 days): one row per bucket and hour, so the
// fitter reads a window of hours with one bounded scan per salt, and a
// notice is one Increment (nonce from its event id, so a replay counts once
// where the store keeps nonces).
//
//   row        salt(1) + hour(4) + bucket(8)
//                salt   = bucket mod 16 (spreads the writes of one hour)
//                hour   = hours since the Unix epoch of the bid time, uint32
//                bucket = pricing/bucket.h, uint64
//   qualifier  kind(1) + price bin(2)        (internal/price_grid.h)
//                'b'  bids sent at that bin (the bidders' tallies, flushed
//                     by their pricing loops)
//                'n'  notices of any kind received for bids at that bin
//                'w'  a win at our bid's bin, the price to beat unknown
//                'l'  a price loss at our bid's bin, the price to beat unknown
//                'x'  a win whose price to beat (minimum bid to win) is known:
//                     the bin of that price
//                'y'  a price loss whose price to beat is known: its bin
//              Bids without any notice ('b' - 'n') are taken as price
//              losses: exchanges that send no loss notices, or lose some,
//              then still show their losses.
//              kind 's' alone (1 byte): the sum of win clearing prices,
//                micro-USD CPM
//   value      8-byte big-endian counter
//
// Campaign engagement, family "r" (62 days): what the campaign's click and
// conversion rates are counted from, sharded as the budget rows are so no
// row is hot.
//
//   row        campaign id + '|' + shard (2 decimal digits, 00-15: the event
//              id's hash mod 16)
//   qualifier  kind(1) + UTC day (8 digits, yyyymmdd)
//                'i' impression, 'c' first click, 'v' conversion
//   value      8-byte big-endian counter
//
// The model, family "m" (2 days): written whole by the fitter that publishes
// (rtb-pacer), read by bidders. Chunks first, then the pointer, so a reader
// that follows the pointer finds every chunk:
//
//   row "|model"                        qualifier "current": version(8) +
//                                       chunks(2), version = computed_at ms
//   row "|model|" + version(8) + chunk(2) qualifier "c": the chunk's bytes
//                                       (internal/model_codec.h)
//
// Campaign ids hold no '|' and start with [A-Za-z0-9_-]; salts are 0x00-0x0f:
// the three kinds of rows never share a prefix.
//
// Thread-safety: pure functions.
#ifndef RTB_PRICING_INTERNAL_PRICING_ROWS_H_
#define RTB_PRICING_INTERNAL_PRICING_ROWS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/schemas.h"

namespace rtb::pricing::internal {

inline constexpr std::string_view kOutcomeFamily = storage::kPricingOutcomeFamily;
inline constexpr std::string_view kEngagementFamily = storage::kPricingEngagementFamily;
inline constexpr std::string_view kModelFamily = storage::kPricingModelFamily;

inline constexpr int kSalts = 16;

enum class OutcomeKind : char {
  kBids = 'b',
  kNotices = 'n',
  kWinAtBid = 'w',
  kLossAtBid = 'l',
  kWinPriceToBeat = 'x',
  kLossPriceToBeat = 'y',
};
inline constexpr char kClearingSumQualifier = 's';

// Hours since the Unix epoch of `unix_ms` (0 before the epoch).
uint32_t HourOf(int64_t unix_ms);

std::string OutcomeRow(uint64_t bucket, uint32_t hour);
// The first row of `salt`'s hour `hour` (a scan start or stop).
std::string OutcomeRowStart(int salt, uint32_t hour);
struct OutcomeRowKey {
  uint32_t hour = 0;
  uint64_t bucket = 0;
};
std::optional<OutcomeRowKey> ParseOutcomeRow(std::string_view row);

std::string OutcomeQualifier(OutcomeKind kind, int bin);
// kind and bin of an outcome qualifier; nullopt for the clearing sum and
// anything malformed.
struct OutcomeCell {
  OutcomeKind kind = OutcomeKind::kWinAtBid;
  int bin = 0;
};
std::optional<OutcomeCell> ParseOutcomeQualifier(std::string_view qualifier);

enum class EngagementKind : char { kImpression = 'i', kClick = 'c', kConversion = 'v' };

// `shard` in [0, 16).
std::string EngagementRow(std::string_view campaign_id, int shard);
// The prefix of every engagement row of a campaign.
std::string EngagementRowPrefix(std::string_view campaign_id);
// `yyyymmdd` is the UTC day of the event.
std::string EngagementQualifier(EngagementKind kind, std::string_view yyyymmdd);

inline constexpr std::string_view kModelPointerRow = "|model";
inline constexpr std::string_view kModelPointerQualifier = "current";
inline constexpr std::string_view kModelChunkQualifier = "c";
inline constexpr int64_t kModelTtlMs = int64_t{2} * 24 * 3600 * 1000;

std::string ModelChunkRow(int64_t version, int chunk);
std::string ModelPointerValue(int64_t version, int chunks);
struct ModelPointer {
  int64_t version = 0;
  int chunks = 0;
};
std::optional<ModelPointer> ParseModelPointer(std::string_view value);

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_PRICING_ROWS_H_
