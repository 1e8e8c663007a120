// Frequency caps read from the profile's fc counters for "today" in the
// campaign's time zone.
#include "bidder/bid/frequency_cap.h"

#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "bidder/bid/internal/profile.h"
#include "gtest/gtest.h"
#include "tests/bidder/decision_fixtures.h"

namespace rtb::bidder {
namespace {

using testing::ProfileRow;
using testing::Qualifier;

absl::TimeZone Zone(const std::string& name) {
  absl::TimeZone zone;
  EXPECT_TRUE(absl::LoadTimeZone(name, &zone)) << name;
  return zone;
}

absl::Time At(const std::string& rfc3339) {
  absl::Time t;
  std::string error;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &error)) << error;
  return t;
}

TEST(FrequencyCapQualifierTest, DayInTheCampaignsZone) {
  const absl::Time t = At("2026-10-04T02:30:00Z");
  EXPECT_EQ(FrequencyCapQualifier("c8812", t, absl::UTCTimeZone()), "c8812|20261004");
  // 22:30 the evening before in New York.
  EXPECT_EQ(FrequencyCapQualifier("c8812", t, Zone("America/New_York")), "c8812|20261003");
  // 04:30 in Berlin, same day.
  EXPECT_EQ(FrequencyCapQualifier("c8812", t, Zone("Europe/Berlin")), "c8812|20261004");
}

TEST(FrequencyCapTest, CounterAtCapIsReached) {
  const FrequencyCap cap(3, absl::UTCTimeZone());
  const storage::RowResult row = ProfileRow{{}, {{Qualifier("camp", 2026, 10, 4), 3}}}.Build();
  const Profile profile(row);
  const absl::Time now = At("2026-10-04T12:00:00Z");
  EXPECT_EQ(cap.CountToday(profile, "camp", now), 3);
  EXPECT_TRUE(cap.Reached(profile, "camp", now));
}

TEST(FrequencyCapTest, CounterBelowCapIsNotReached) {
  const FrequencyCap cap(3, absl::UTCTimeZone());
  const storage::RowResult row = ProfileRow{{}, {{Qualifier("camp", 2026, 10, 4), 2}}}.Build();
  const Profile profile(row);
  const absl::Time now = At("2026-10-04T12:00:00Z");
  EXPECT_FALSE(cap.Reached(profile, "camp", now));
  // One more impression already won in the same request reaches it.
  EXPECT_TRUE(cap.Reached(profile, "camp", now, /*pending=*/1));
}

TEST(FrequencyCapTest, YesterdaysCounterIsIgnored) {
  const FrequencyCap cap(3, absl::UTCTimeZone());
  const storage::RowResult row = ProfileRow{{}, {{Qualifier("camp", 2026, 10, 3), 50}}}.Build();
  const Profile profile(row);
  EXPECT_EQ(cap.CountToday(profile, "camp", At("2026-10-04T00:00:01Z")), 0);
  EXPECT_FALSE(cap.Reached(profile, "camp", At("2026-10-04T00:00:01Z")));
}

TEST(FrequencyCapTest, OtherCampaignsCountersAreIgnored) {
  const FrequencyCap cap(1, absl::UTCTimeZone());
  const storage::RowResult row =
      ProfileRow{{}, {{Qualifier("camp-2", 2026, 10, 4), 9}, {Qualifier("cam", 2026, 10, 4), 9}}}
          .Build();
  const Profile profile(row);
  EXPECT_FALSE(cap.Reached(profile, "camp", At("2026-10-04T12:00:00Z")));
}

TEST(FrequencyCapTest, ImpressionMarkersNeverReadAsACount) {
  const std::string impression("\x01\xab\x00\xff", 4);
  EXPECT_EQ(FrequencyCapMarkerQualifier(impression), "#01ab00ff");
  const FrequencyCap cap(2, absl::UTCTimeZone());
  // Markers sort before every count ('#' < any id character) and are skipped.
  const storage::RowResult row = ProfileRow{
      {},
      {{FrequencyCapMarkerQualifier(impression), 7},
       {FrequencyCapMarkerQualifier("camp"), 7},
       {Qualifier("camp", 2026, 10, 4),
        1}}}.Build();
  const Profile profile(row);
  EXPECT_EQ(cap.CountToday(profile, "camp", At("2026-10-04T12:00:00Z")), 1);
  EXPECT_FALSE(cap.Reached(profile, "camp", At("2026-10-04T12:00:00Z")));
}

TEST(FrequencyCapTest, NonUtcZoneDayBoundary) {
  // Los Angeles is UTC-7 in October: its 4 October runs from 07:00Z on the
  // 4th to 07:00Z on the 5th.
  const FrequencyCap cap(2, Zone("America/Los_Angeles"));
  const storage::RowResult row = ProfileRow{{}, {{Qualifier("camp", 2026, 10, 4), 2}}}.Build();
  const Profile profile(row);
  EXPECT_FALSE(cap.Reached(profile, "camp", At("2026-10-04T06:59:59Z")));  // still the 3rd
  EXPECT_TRUE(cap.Reached(profile, "camp", At("2026-10-04T07:00:00Z")));
  EXPECT_TRUE(cap.Reached(profile, "camp", At("2026-10-05T06:59:59Z")));
  EXPECT_FALSE(cap.Reached(profile, "camp", At("2026-10-05T07:00:00Z")));  // the 5th
}

TEST(FrequencyCapTest, UncappedAndEmptyProfileNeverReach) {
  const storage::RowResult row = ProfileRow{{}, {{Qualifier("camp", 2026, 10, 4), 1000}}}.Build();
  EXPECT_FALSE(FrequencyCap(0, absl::UTCTimeZone())
                   .Reached(Profile(row), "camp", At("2026-10-04T12:00:00Z")));
  EXPECT_FALSE(
      FrequencyCap(1, absl::UTCTimeZone()).Reached(Profile(), "camp", At("2026-10-04T12:00:00Z")));
}

TEST(ProfileTest, SegmentsAndCountersByQualifier) {
  const storage::RowResult row =
      ProfileRow{{"b-seg", "a-seg", "cart-abandoner-30d"}, {{"x|20261004", 7}}}.Build();
  const Profile profile(row);
  EXPECT_TRUE(profile.present());
  EXPECT_TRUE(profile.HasSegment("cart-abandoner-30d"));
  EXPECT_TRUE(profile.HasSegment("a-seg"));
  EXPECT_FALSE(profile.HasSegment("c-seg"));
  EXPECT_FALSE(profile.HasSegment("x|20261004"));  // an fc qualifier is not a segment
  EXPECT_EQ(profile.Counter("x|20261004"), 7);
  EXPECT_EQ(profile.Counter("cart-abandoner-30d"), 0);
  EXPECT_FALSE(Profile().present());
}

TEST(ProfileTest, FindsEachFamilyInALongRowOfSharedSegments) {
  // As the bid handler builds it under cap-only keys: the counts first, then
  // the profile's own cells shared, a seeded profile's 80 segments among them.
  std::vector<std::string> segments;
  for (int i = 0; i < 80; ++i) segments.push_back(absl::StrFormat("s%07d", i * 37));
  const storage::RowResult profile_row = ProfileRow{segments, {}}.Build();
  storage::RowResult row;
  row.cells.push_back(storage::Cell("fc", "camp|20261004", 0, storage::EncodeCounter(3)));
  row.cells.AppendShared(profile_row.cells);

  const Profile profile(row);
  EXPECT_EQ(profile.Counter("camp|20261004"), 3);
  for (const std::string& segment : segments) EXPECT_TRUE(profile.HasSegment(segment)) << segment;
  EXPECT_FALSE(profile.HasSegment("s0000001"));
  EXPECT_FALSE(profile.HasSegment("camp|20261004"));
  EXPECT_EQ(profile.Counter("s0000037"), 0);
}

TEST(ProfileTest, AFamilyTheRowLacksIsEmpty) {
  const storage::RowResult segments_only = ProfileRow{{"a-seg"}, {}}.Build();
  EXPECT_TRUE(Profile(segments_only).HasSegment("a-seg"));
  EXPECT_EQ(Profile(segments_only).Counter("a-seg"), 0);
  const storage::RowResult counters_only = ProfileRow{{}, {{"x|20261004", 2}}}.Build();
  EXPECT_EQ(Profile(counters_only).Counter("x|20261004"), 2);
  EXPECT_FALSE(Profile(counters_only).HasSegment("x|20261004"));
}

TEST(ProfileTest, CounterOfWrongWidthCountsZero) {
  storage::RowResult row;
  row.cells.emplace_back("fc", "x|20261004", 1, "abc");
  EXPECT_EQ(Profile(row).Counter("x|20261004"), 0);
}

}  // namespace
}  // namespace rtb::bidder
