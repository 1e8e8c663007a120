// Row keys and cell names of the event tables (event-tracking seed). Every
// integer is big-endian, so rows sort as the numbers they hold; every field is
// fixed-width, so one user's prefix is never a prefix of another user's key.
//
// timeline (`events`), 42 bytes: one row per event, a user's events contiguous
// and newest first, so the last N events are the first N rows of the prefix.
//   +------+----------+-----------------------------+----------+
//   | salt | user key | reverse event time          | event id |
//   | 2 B  | 16 B     | 8 B: INT64_MAX - event ms   | 16 B     |
//   +------+----------+-----------------------------+----------+
//   salt = the first 2 bytes of StableHash64(user key): recomputable on every
//   read, and spreading users over the hash-split regions.
//
// index (`events_by_type`), 45 bytes: events of one type across users, newest
// first within a bucket; a query reads all 16 buckets and merges.
//   +--------+------+--------------------+----------+----------+
//   | bucket | type | reverse event time | user key | event id |
//   | 1 B    | 4 B  | 8 B                | 16 B     | 16 B     |
//   +--------+------+--------------------+----------+----------+
//   bucket = StableHash64(event id) mod 16, so even one hot user's or one hot
//   type's writes spread over the 16 salt-split regions.
//
// rollups (`event_rollups`), 26 bytes: one row per user and UTC day, days
// ascending; one 8-byte counter per event type (qualifier EventTypeName),
// and for a moment one marker counter per event being recorded (qualifier
// "#" + the event id in hex, RollupMarkerQualifier), which readers skip.
//   +------+----------+------------------+
//   | salt | user key | day "yyyymmdd"   |
//   | 2 B  | 16 B     | 8 B ASCII, UTC   |
//   +------+----------+------------------+
//
// erasures (`erasures`), 17 bytes: one status row per erased user, plus one
// pending row while the erasure still has steps to finish, so the periodic
// task scans only the pending rows, never the whole history of erasures.
//   +-------------------------------+----------+
//   | kind: 's' status, 'p' pending | user key |
//   | 1 B                           | 16 B     |
//   +-------------------------------+----------+
//
// StableHash64 feeds row keys: it must never change, or every stored event
// becomes unreachable.
#ifndef RTB_BIDDER_EVENTS_INTERNAL_KEYS_H_
#define RTB_BIDDER_EVENTS_INTERNAL_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bidder/events/events.h"
#include "storage/schemas.h"

namespace rtb::bidder::events::internal {

// kUserKeyBytes and kEventIdBytes: bidder/events/events.h.
inline constexpr size_t kSaltBytes = 2;
inline constexpr size_t kTimeBytes = 8;
inline constexpr size_t kTypeBytes = 4;
inline constexpr size_t kDayBytes = 8;
inline constexpr int kIndexBuckets = 16;

inline constexpr size_t kUserPrefixBytes = kSaltBytes + kUserKeyBytes;                      // 18
inline constexpr size_t kTimelineKeyBytes = kUserPrefixBytes + kTimeBytes + kEventIdBytes;  // 42
inline constexpr size_t kIndexKeyBytes =
    1 + kTypeBytes + kTimeBytes + kUserKeyBytes + kEventIdBytes;         // 45
inline constexpr size_t kRollupKeyBytes = kUserPrefixBytes + kDayBytes;  // 26
inline constexpr size_t kErasureKeyBytes = 1 + kUserKeyBytes;            // 17

// Families and qualifiers.
inline constexpr std::string_view kTimelineFamily = storage::kEventsTimelineFamily;
inline constexpr std::string_view kTypeColumn = "type";        // 4-byte type code
inline constexpr std::string_view kTimeColumn = "ts";          // 8-byte event time, ms
inline constexpr std::string_view kBodyColumn = "body";        // JSON record
inline constexpr std::string_view kSummaryColumn = "summary";  // copy of the index summary
// Written by Record after the rollup increment (only the rollup marker's
// delete follows): a replay that finds it knows every write of the event
// happened and changes nothing.
inline constexpr std::string_view kRolledUpColumn = "rolled";
inline constexpr std::string_view kIndexFamily = storage::kEventsByTypeIndexFamily;
inline constexpr std::string_view kIndexSummaryColumn = "s";
inline constexpr std::string_view kRollupFamily =
    storage::kEventRollupsCountFamily;  // qualifier = EventTypeName
// First byte of a rollup marker column's qualifier. No event type name starts
// with it, so a marker never collides with a count and readers tell them
// apart by name.
inline constexpr char kRollupMarkerPrefix = '#';
inline constexpr std::string_view kErasureFamily = storage::kErasuresFamily;
// Status row: when the erasure was requested, 8-byte ms. Its presence is what
// IsErased checks.
inline constexpr std::string_view kErasureRequestedColumn = "requested";
inline constexpr char kErasureStatusKind = 's';
inline constexpr char kErasurePendingKind = 'p';

// INT64_MAX - ms, for ms >= 0: newer events get smaller values.
uint64_t ReverseTime(int64_t event_time_ms);

std::string UserSalt(std::string_view user_key);
// salt + user: the prefix of a user's timeline and rollup rows.
std::string UserPrefix(std::string_view user_key);

std::string TimelineKey(std::string_view user_key, int64_t event_time_ms,
                        std::string_view event_id);

// Row range of a user's events with from_ms <= event time < to_ms (0 <= from < to):
// the newer bound is the start row, the older bound the exclusive stop row.
struct KeyRange {
  std::string start;  // inclusive
  std::string stop;   // exclusive
};
KeyRange TimelineWindow(std::string_view user_key, int64_t from_ms, int64_t to_ms);

int IndexBucket(std::string_view event_id);
std::string IndexKey(uint32_t type, int64_t event_time_ms, std::string_view user_key,
                     std::string_view event_id);
// Rows of one bucket and type with from_ms <= event time < to_ms.
KeyRange IndexWindow(int bucket, uint32_t type, int64_t from_ms, int64_t to_ms);

// "yyyymmdd" of the UTC day holding `ms`.
std::string UtcDay(int64_t ms);
std::string RollupKey(std::string_view user_key, int64_t event_time_ms);
// Rollup rows of the UTC days from the day of from_ms to the day of to_ms - 1.
KeyRange RollupWindow(std::string_view user_key, int64_t from_ms, int64_t to_ms);

// The marker column of one event in its rollup row: kRollupMarkerPrefix, then
// the event id in hex. Record adds 1 to it in the same Increment as the
// count, so the answer says how many attempts have added this event.
std::string RollupMarkerQualifier(std::string_view event_id);
// Whether a rollup row's qualifier is a marker, not a count.
bool IsRollupMarker(std::string_view qualifier);

std::string ErasureStatusKey(std::string_view user_key);
std::string ErasurePendingKey(std::string_view user_key);

struct TimelineKeyParts {
  std::string_view user_key;
  int64_t event_time_ms = 0;
  std::string_view event_id;
};
// Nullopt when `row` is not a well-formed timeline key (width, salt).
std::optional<TimelineKeyParts> ParseTimelineKey(std::string_view row);

struct IndexKeyParts {
  int bucket = 0;
  uint32_t type = 0;
  int64_t event_time_ms = 0;
  std::string_view user_key;
  std::string_view event_id;
};
// Nullopt when `row` is not a well-formed index key (width, bucket).
std::optional<IndexKeyParts> ParseIndexKey(std::string_view row);

}  // namespace rtb::bidder::events::internal

#endif  // RTB_BIDDER_EVENTS_INTERNAL_KEYS_H_
