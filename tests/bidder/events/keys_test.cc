// Byte layouts of the event tables' keys (bidder/events/internal/keys.h) and
// the event type names.
#include "bidder/events/internal/keys.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "bidder/events/events.h"
#include "gtest/gtest.h"
#include "storage/key_bytes.h"
#include "storage/types.h"

namespace rtb::bidder::events::internal {
namespace {

// 2026-10-04T00:00:00Z.
constexpr int64_t kNow = 1791072000000;

std::string Bytes16(char fill, char last) {
  std::string s(16, fill);
  s[15] = last;
  return s;
}

std::string BigEndian64(uint64_t v) {
  std::string s;
  storage::AppendBigEndian64(v, &s);
  return s;
}

TEST(EventKeysTest, TimelineKeyIsSaltUserReverseTimeEventId) {
  const std::string user = Bytes16('u', '1');
  const std::string event = Bytes16('e', '1');
  const std::string key = TimelineKey(user, kNow, event);
  ASSERT_EQ(key.size(), 42u);
  EXPECT_EQ(key.substr(0, 2), UserSalt(user));
  EXPECT_EQ(key.substr(2, 16), user);
  EXPECT_EQ(key.substr(18, 8), BigEndian64(0x7fffffffffffffffull - kNow));
  EXPECT_EQ(key.substr(26, 16), event);
  EXPECT_EQ(key.substr(0, 18), UserPrefix(user));
}

TEST(EventKeysTest, SaltIsTheTopTwoBytesOfTheStableHash) {
  const std::string user = Bytes16('\x42', '\x07');
  const uint64_t h = storage::StableHash64(user);
  EXPECT_EQ(static_cast<unsigned char>(UserSalt(user)[0]), h >> 56);
  EXPECT_EQ(static_cast<unsigned char>(UserSalt(user)[1]), (h >> 48) & 0xff);
  // Pinned: keys already stored depend on this exact function.
  EXPECT_EQ(storage::StableHash64(""), storage::StableHash64(std::string_view()));
  EXPECT_EQ(storage::StableHash64("rtb"), storage::StableHash64("rtb"));
  EXPECT_NE(storage::StableHash64("rtb"), storage::StableHash64("rtc"));
}

TEST(EventKeysTest, SaltsSpreadUsersOverTheFirstByte) {
  std::set<int> first_bytes;
  for (int i = 0; i < 4096; ++i) {
    std::string user(16, '\0');
    user[14] = static_cast<char>(i >> 8);
    user[15] = static_cast<char>(i);
    first_bytes.insert(static_cast<unsigned char>(UserSalt(user)[0]));
  }
  // 4096 sequential ids over 256 first bytes: all of the 16 region ranges hit.
  std::set<int> regions;
  for (int b : first_bytes) regions.insert(b / 16);
  EXPECT_EQ(regions.size(), 16u);
  EXPECT_GT(first_bytes.size(), 200u);
}

TEST(EventKeysTest, TimelineRowsOfAUserSortNewestFirst) {
  const std::string user = Bytes16('u', '1');
  std::vector<std::string> keys;
  const std::vector<int64_t> times = {0, 1, 1000, kNow - 86400000, kNow, kNow + 1};
  for (int64_t t : times) keys.push_back(TimelineKey(user, t, Bytes16('e', 'a')));
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> newest_first(keys.rbegin(), keys.rend());
  EXPECT_EQ(sorted, newest_first);
  // Same millisecond: the event id breaks the tie, so neither overwrites the other.
  EXPECT_LT(TimelineKey(user, kNow, Bytes16('e', 'a')), TimelineKey(user, kNow, Bytes16('e', 'b')));
}

TEST(EventKeysTest, FixedWidthKeepsOneUsersPrefixOffAnotherUsersRows) {
  const std::string a = Bytes16('u', '1');
  const std::string b = Bytes16('u', '2');
  const std::string prefix = UserPrefix(a);
  const std::string key_b = TimelineKey(b, kNow, Bytes16('e', '1'));
  EXPECT_NE(key_b.compare(0, prefix.size(), prefix), 0);
}

TEST(EventKeysTest, TimelineWindowIsHalfOpenOnEventTime) {
  const std::string user = Bytes16('u', '1');
  const KeyRange w = TimelineWindow(user, 1000, 2000);
  auto inside = [&](int64_t t, const std::string& id) {
    const std::string k = TimelineKey(user, t, id);
    return k >= w.start && k < w.stop;
  };
  for (const std::string& id : {std::string(16, '\0'), std::string(16, '\xff')}) {
    EXPECT_TRUE(inside(1000, id)) << "the older bound is included, for every event id";
    EXPECT_TRUE(inside(1999, id));
    EXPECT_FALSE(inside(2000, id)) << "the newer bound is excluded";
    EXPECT_FALSE(inside(999, id));
  }
  const KeyRange from_zero = TimelineWindow(user, 0, 1);
  EXPECT_TRUE(TimelineKey(user, 0, std::string(16, '\xff')) < from_zero.stop);
}

TEST(EventKeysTest, IndexKeyIsBucketTypeReverseTimeUserEventId) {
  const std::string user = Bytes16('u', '1');
  const std::string event = Bytes16('e', '1');
  const std::string key = IndexKey(2, kNow, user, event);
  ASSERT_EQ(key.size(), 45u);
  EXPECT_EQ(static_cast<int>(key[0]), IndexBucket(event));
  EXPECT_EQ(key.substr(1, 4), std::string("\0\0\0\2", 4));
  EXPECT_EQ(key.substr(5, 8), BigEndian64(0x7fffffffffffffffull - kNow));
  EXPECT_EQ(key.substr(13, 16), user);
  EXPECT_EQ(key.substr(29, 16), event);
  std::optional<IndexKeyParts> parts = ParseIndexKey(key);
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->bucket, IndexBucket(event));
  EXPECT_EQ(parts->type, 2u);
  EXPECT_EQ(parts->event_time_ms, kNow);
  EXPECT_EQ(parts->user_key, user);
  EXPECT_EQ(parts->event_id, event);
}

TEST(EventKeysTest, BucketsComeFromTheEventIdAndCoverAllSixteen) {
  std::set<int> buckets;
  for (int i = 0; i < 256; ++i) {
    const int b = IndexBucket(Bytes16('e', static_cast<char>(i)));
    EXPECT_GE(b, 0);
    EXPECT_LT(b, kIndexBuckets);
    buckets.insert(b);
  }
  EXPECT_EQ(buckets.size(), 16u);
}

TEST(EventKeysTest, IndexRowsOfABucketAndTypeSortNewestFirstInsideTheWindow) {
  const std::string event = Bytes16('e', '1');
  const int bucket = IndexBucket(event);
  const KeyRange w = IndexWindow(bucket, 1, 1000, 2000);
  const std::string newer = IndexKey(1, 1999, Bytes16('u', '1'), event);
  const std::string older = IndexKey(1, 1000, Bytes16('u', '1'), event);
  EXPECT_LT(newer, older);
  EXPECT_GE(newer, w.start);
  EXPECT_LT(older, w.stop);
  EXPECT_LT(IndexKey(1, 2000, Bytes16('u', '1'), event), w.start);
  EXPECT_GE(IndexKey(1, 999, Bytes16('u', '1'), event), w.stop);
  EXPECT_GE(IndexKey(2, 1500, Bytes16('u', '1'), event), w.stop) << "another type is outside";
}

TEST(EventKeysTest, RollupKeyIsSaltUserAndUtcDay) {
  const std::string user = Bytes16('u', '1');
  const std::string key = RollupKey(user, kNow + 3600 * 1000);
  ASSERT_EQ(key.size(), 26u);
  EXPECT_EQ(key.substr(0, 18), UserPrefix(user));
  EXPECT_EQ(key.substr(18), "20261004");
  EXPECT_EQ(UtcDay(kNow - 1), "20261003");
  EXPECT_EQ(UtcDay(0), "19700101");
  EXPECT_EQ(UtcDay(951782400000), "20000229");      // a leap day
  EXPECT_EQ(UtcDay(1798761599999), "20261231");     // the last ms of a year
  EXPECT_EQ(UtcDay(253402300799999), "99991231");   // the last day with four digits
  EXPECT_EQ(UtcDay(253402300800000), "100000101");  // past it, as FormatTime writes it
  const KeyRange w = RollupWindow(user, kNow - 86400000, kNow + 1);
  EXPECT_EQ(w.start, UserPrefix(user) + "20261003");
  EXPECT_GT(w.stop, RollupKey(user, kNow));
  EXPECT_LE(w.stop, RollupKey(user, kNow + 86400000)) << "the stop row is exclusive";
}

TEST(EventKeysTest, RollupMarkerIsHashThenTheEventIdInHexAndNoTypeName) {
  const std::string event = std::string("\x00\x01\xab\xff", 4) + std::string(12, 'e');
  const std::string marker = RollupMarkerQualifier(event);
  EXPECT_EQ(marker, "#0001abff656565656565656565656565");
  EXPECT_TRUE(IsRollupMarker(marker));
  for (EventType type : kEventTypes) {
    EXPECT_FALSE(IsRollupMarker(EventTypeName(type))) << EventTypeName(type);
  }
  EXPECT_FALSE(ParseEventType(marker).has_value());
  EXPECT_FALSE(IsRollupMarker(""));
}

TEST(EventKeysTest, ErasureKeysSeparateStatusFromPending) {
  const std::string user = Bytes16('u', '1');
  EXPECT_EQ(ErasureStatusKey(user), "s" + user);
  EXPECT_EQ(ErasurePendingKey(user), "p" + user);
  EXPECT_EQ(ErasureStatusKey(user).size(), kErasureKeyBytes);
}

TEST(EventKeysTest, TimelineKeysRoundTripAndRejectMalformedRows) {
  const std::string user = Bytes16('u', '9');
  const std::string event = Bytes16('e', '9');
  const std::string key = TimelineKey(user, 123456789, event);
  std::optional<TimelineKeyParts> parts = ParseTimelineKey(key);
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->user_key, user);
  EXPECT_EQ(parts->event_time_ms, 123456789);
  EXPECT_EQ(parts->event_id, event);
  EXPECT_FALSE(ParseTimelineKey(key.substr(0, 41)));
  std::string bad_salt = key;
  bad_salt[0] = static_cast<char>(bad_salt[0] ^ 1);
  EXPECT_FALSE(ParseTimelineKey(bad_salt));
  std::string bad_bucket = IndexKey(1, 5, user, event);
  bad_bucket[0] = static_cast<char>((bad_bucket[0] + 1) % kIndexBuckets);
  EXPECT_FALSE(ParseIndexKey(bad_bucket));
}

TEST(EventTypeTest, NamesRoundTrip) {
  for (EventType type : kEventTypes) {
    EXPECT_EQ(events::ParseEventType(events::EventTypeName(type)), type);
  }
  EXPECT_EQ(events::EventTypeName(EventType::kConversion), "conversion");
  EXPECT_EQ(events::ParseEventType("pageview"), std::nullopt);
  EXPECT_EQ(events::EventTypeName(static_cast<EventType>(42)), "unknown");
}

}  // namespace
}  // namespace rtb::bidder::events::internal
