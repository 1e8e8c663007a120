// The row layouts of `impressions` and `device_impressions` (ad-tech seed,
// "Impressions", "Attribution"): written by the beacons when an impression is
// claimed, read by click and conversion attribution, taken apart by privacy
// erasure. One home, so writer and eraser cannot drift apart.
//
//   impressions: row = impression id (16 bytes), family storage::kImpressionFamily
//     c        campaign id
//     cr       creative id
//     x        exchange
//     dk       device key, hex (absent for an erased or unknown device)
//     spend    8-byte counter: spend, micro-units of the campaign's currency
//     ts       8-byte counter: impression time, ms
//     clk      8-byte counter: first click time, ms (the click conversions
//              are attributed through)
//     cv.<hex conversion event id>
//              8-byte counter: when that conversion was first recorded
//     j        the row key of the claim's spend journal entry (10 bytes,
//              pacing/internal/spend_journal_layout.h); absent when spend
//              was recorded without a journal. Pacing reads it to tell a
//              claimed entry from an abandoned one after a crash.
//
//   device_impressions: family storage::kDeviceImpressionFamily, column c =
//   campaign id; the row key lists a device's impressions newest first:
//
//     +----------------+---------------------------+---------------+
//     | device key 16B | INT64_MAX - impression ms | impression id |
//     |                | 8 bytes, big-endian       |               |
//     +----------------+---------------------------+---------------+
//
// Thread-safety: constants and pure functions.
#ifndef RTB_BIDDER_EVENTS_IMPRESSIONS_H_
#define RTB_BIDDER_EVENTS_IMPRESSIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/schemas.h"

namespace rtb::bidder::events {

// Columns of an `impressions` row.
inline constexpr std::string_view kImpressionCampaignColumn = "c";
inline constexpr std::string_view kImpressionCreativeColumn = "cr";
inline constexpr std::string_view kImpressionExchangeColumn = "x";
inline constexpr std::string_view kImpressionDeviceKeyColumn = "dk";
inline constexpr std::string_view kImpressionSpendColumn = "spend";
inline constexpr std::string_view kImpressionTimeColumn = "ts";
inline constexpr std::string_view kImpressionFirstClickColumn = "clk";
inline constexpr std::string_view kImpressionConversionColumnPrefix = "cv.";
// Appended to a claim column (the first click's, a conversion's) once the
// claimed event is recorded: a claim without it is finished by the next
// beacon of the same event.
inline constexpr std::string_view kImpressionRecordedSuffix = ".ok";
inline constexpr std::string_view kImpressionJournalColumn = storage::kImpressionJournalColumn;

// The column of a `device_impressions` row.
inline constexpr std::string_view kDeviceImpressionCampaignColumn = "c";

// The `device_impressions` row of an impression of `device_key` at `time_ms`.
std::string DeviceImpressionRow(std::string_view device_key, int64_t time_ms,
                                std::string_view impression_id);
// The impression id a `device_impressions` row names; nullopt for a row too
// short to hold one.
std::optional<std::string_view> ImpressionIdOfDeviceImpressionRow(std::string_view row);

}  // namespace rtb::bidder::events

#endif  // RTB_BIDDER_EVENTS_IMPRESSIONS_H_
