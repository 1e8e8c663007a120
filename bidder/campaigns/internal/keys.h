// Row layouts of the campaign tables (storage/schemas.h).
//
//   campaigns         row = campaign id ([A-Za-z0-9_-]{1,32}), family c:
//                       json   the campaign's JSON object
//                       ver    8-byte counter: version, 1 when created
//                       state  "active" | "paused" | "archived"
//                       at     8-byte counter: ms of the last change
//                       by     operator of the last change
//                     plus one row "~changes" (no campaign id holds '~'),
//                     column c:seq: the change log's last sequence
//                     (Increment).
//   campaign_changes  row = sequence, 8 bytes big-endian; family x:
//                       id     the campaign changed
//                       at     8-byte counter: ms the entry was written
//   campaign_audit    row = campaign id | 0x00 | INT64_MAX - ms (8 bytes BE)
//                           | version (8 bytes BE): a campaign's history,
//                     newest first; family a: op, action, ver, before, after
//
// Thread-safety: constants and pure functions.
#ifndef RTB_BIDDER_CAMPAIGNS_INTERNAL_KEYS_H_
#define RTB_BIDDER_CAMPAIGNS_INTERNAL_KEYS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/schemas.h"

namespace rtb::bidder::campaigns::internal {

inline constexpr std::string_view kCampaignFamily = storage::kCampaignsFamily;
inline constexpr std::string_view kJsonColumn = "json";
inline constexpr std::string_view kVersionColumn = "ver";
inline constexpr std::string_view kStateColumn = "state";
inline constexpr std::string_view kUpdatedAtColumn = "at";
inline constexpr std::string_view kUpdatedByColumn = "by";
inline constexpr std::string_view kChangeCounterRow = "~changes";
inline constexpr std::string_view kChangeCounterColumn = "seq";

inline constexpr std::string_view kChangeFamily = storage::kCampaignChangesFamily;
inline constexpr std::string_view kChangeIdColumn = "id";
inline constexpr std::string_view kChangeAtColumn = "at";

inline constexpr std::string_view kAuditFamily = storage::kCampaignAuditFamily;
inline constexpr std::string_view kAuditOperatorColumn = "op";
inline constexpr std::string_view kAuditActionColumn = "action";
inline constexpr std::string_view kAuditVersionColumn = "ver";
inline constexpr std::string_view kAuditBeforeColumn = "before";
inline constexpr std::string_view kAuditAfterColumn = "after";

std::string ChangeRow(uint64_t sequence);
std::optional<uint64_t> SequenceOfChangeRow(std::string_view row);

std::string AuditPrefix(std::string_view campaign_id);
std::string AuditRow(std::string_view campaign_id, int64_t at_ms, int64_t version);
// The time in an audit row; nullopt for a row of another shape.
std::optional<int64_t> AuditTime(std::string_view row);

}  // namespace rtb::bidder::campaigns::internal

#endif  // RTB_BIDDER_CAMPAIGNS_INTERNAL_KEYS_H_
