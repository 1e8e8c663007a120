#include "bidder/events/internal/keys.h"

#include <limits>

#include "absl/time/time.h"
#include "storage/key_bytes.h"
#include "storage/types.h"

namespace rtb::bidder::events::internal {
namespace {

constexpr uint64_t kMaxTime = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

}  // namespace

uint64_t ReverseTime(int64_t event_time_ms) {
  return kMaxTime - static_cast<uint64_t>(event_time_ms);
}

std::string UserSalt(std::string_view user_key) {
  const uint64_t h = storage::StableHash64(user_key);
  std::string salt;
  storage::AppendBigEndian16(static_cast<uint16_t>(h >> 48), &salt);  // the hash's top two bytes
  return salt;
}

std::string UserPrefix(std::string_view user_key) {
  std::string key = UserSalt(user_key);
  key.append(user_key);
  return key;
}

std::string TimelineKey(std::string_view user_key, int64_t event_time_ms,
                        std::string_view event_id) {
  std::string key = UserPrefix(user_key);
  key.reserve(kTimelineKeyBytes);
  storage::AppendBigEndian64(ReverseTime(event_time_ms), &key);
  key.append(event_id);
  return key;
}

KeyRange TimelineWindow(std::string_view user_key, int64_t from_ms, int64_t to_ms) {
  KeyRange range{UserPrefix(user_key), UserPrefix(user_key)};
  // Newest included event is to_ms - 1; the oldest is from_ms, whose reverse
  // time + 1 stops the scan after every event id at that millisecond.
  storage::AppendBigEndian64(ReverseTime(to_ms - 1), &range.start);
  storage::AppendBigEndian64(ReverseTime(from_ms) + 1, &range.stop);
  return range;
}

int IndexBucket(std::string_view event_id) {
  return static_cast<int>(storage::StableHash64(event_id) % kIndexBuckets);
}

std::string IndexKey(uint32_t type, int64_t event_time_ms, std::string_view user_key,
                     std::string_view event_id) {
  std::string key;
  key.reserve(kIndexKeyBytes);
  key.push_back(static_cast<char>(IndexBucket(event_id)));
  storage::AppendBigEndian32(type, &key);
  storage::AppendBigEndian64(ReverseTime(event_time_ms), &key);
  key.append(user_key);
  key.append(event_id);
  return key;
}

KeyRange IndexWindow(int bucket, uint32_t type, int64_t from_ms, int64_t to_ms) {
  std::string prefix(1, static_cast<char>(bucket));
  storage::AppendBigEndian32(type, &prefix);
  KeyRange range{prefix, prefix};
  storage::AppendBigEndian64(ReverseTime(to_ms - 1), &range.start);
  storage::AppendBigEndian64(ReverseTime(from_ms) + 1, &range.stop);
  return range;
}

std::string UtcDay(int64_t ms) {
  const absl::Time time = absl::FromUnixMillis(ms);
  const absl::CivilDay day = absl::ToCivilDay(time, absl::UTCTimeZone());
  // Digits by hand: this runs on the bid path (a device's history), where
  // FormatTime's general formatter costs more than the rest of the key.
  if (day.year() < 0 || day.year() > 9999)
    return absl::FormatTime("%Y%m%d", time, absl::UTCTimeZone());
  const auto year = static_cast<int>(day.year());
  const int month = day.month();
  const int dom = day.day();
  return std::string{
      static_cast<char>('0' + year / 1000),    static_cast<char>('0' + year / 100 % 10),
      static_cast<char>('0' + year / 10 % 10), static_cast<char>('0' + year % 10),
      static_cast<char>('0' + month / 10),     static_cast<char>('0' + month % 10),
      static_cast<char>('0' + dom / 10),       static_cast<char>('0' + dom % 10)};
}

std::string RollupKey(std::string_view user_key, int64_t event_time_ms) {
  std::string key = UserPrefix(user_key);
  key.append(UtcDay(event_time_ms));
  return key;
}

KeyRange RollupWindow(std::string_view user_key, int64_t from_ms, int64_t to_ms) {
  KeyRange range{RollupKey(user_key, from_ms), ""};
  range.stop = storage::PrefixSuccessor(RollupKey(user_key, to_ms - 1));
  return range;
}

std::string RollupMarkerQualifier(std::string_view event_id) {
  std::string qualifier(1, kRollupMarkerPrefix);
  storage::AppendHex(event_id, &qualifier);
  return qualifier;
}

bool IsRollupMarker(std::string_view qualifier) {
  return !qualifier.empty() && qualifier.front() == kRollupMarkerPrefix;
}

std::string ErasureStatusKey(std::string_view user_key) {
  std::string key(1, kErasureStatusKind);
  key.append(user_key);
  return key;
}

std::string ErasurePendingKey(std::string_view user_key) {
  std::string key(1, kErasurePendingKind);
  key.append(user_key);
  return key;
}

std::optional<TimelineKeyParts> ParseTimelineKey(std::string_view row) {
  if (row.size() != kTimelineKeyBytes) return std::nullopt;
  TimelineKeyParts parts;
  parts.user_key = row.substr(kSaltBytes, kUserKeyBytes);
  if (row.substr(0, kSaltBytes) != UserSalt(parts.user_key)) return std::nullopt;
  const uint64_t reverse = storage::ReadBigEndian64(row.substr(kUserPrefixBytes, kTimeBytes));
  if (reverse > kMaxTime) return std::nullopt;
  parts.event_time_ms = static_cast<int64_t>(kMaxTime - reverse);
  parts.event_id = row.substr(kUserPrefixBytes + kTimeBytes, kEventIdBytes);
  return parts;
}

std::optional<IndexKeyParts> ParseIndexKey(std::string_view row) {
  if (row.size() != kIndexKeyBytes) return std::nullopt;
  IndexKeyParts parts;
  parts.bucket = static_cast<unsigned char>(row[0]);
  parts.type = storage::ReadBigEndian32(row.substr(1, kTypeBytes));
  const uint64_t reverse = storage::ReadBigEndian64(row.substr(1 + kTypeBytes, kTimeBytes));
  if (reverse > kMaxTime) return std::nullopt;
  parts.event_time_ms = static_cast<int64_t>(kMaxTime - reverse);
  parts.user_key = row.substr(1 + kTypeBytes + kTimeBytes, kUserKeyBytes);
  parts.event_id = row.substr(1 + kTypeBytes + kTimeBytes + kUserKeyBytes, kEventIdBytes);
  if (parts.bucket != IndexBucket(parts.event_id)) return std::nullopt;
  return parts;
}

}  // namespace rtb::bidder::events::internal
