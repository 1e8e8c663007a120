#include "pacing/internal/decision_board.h"

#include <memory>

#include "gtest/gtest.h"
#include "tests/pacing/pacing_test_support.h"

namespace rtb::pacing::internal {
namespace {

TEST(DecisionBoardTest, EntryRoundTrips) {
  const BoardEntry entry{.computed_at_ms = 1791115200123,
                         .day = absl::CivilDay(2026, 10, 4),
                         .throttle = 0.3125,
                         .stopped = false,
                         .spent_today_micros = 123456789,
                         .overspend_bound_micros = 4242};
  const std::string bytes = EncodeBoardEntry(entry);
  EXPECT_EQ(bytes.size(), 38u);
  EXPECT_EQ(bytes[0], 1);
  EXPECT_EQ(DecodeBoardEntry(bytes), entry);
  BoardEntry stopped = entry;
  stopped.stopped = true;
  stopped.throttle = 0;
  EXPECT_EQ(DecodeBoardEntry(EncodeBoardEntry(stopped)), stopped);
}

TEST(DecisionBoardTest, ForeignValuesAreRejected) {
  std::string bytes = EncodeBoardEntry(BoardEntry{.computed_at_ms = 1, .throttle = 0.5});
  EXPECT_EQ(DecodeBoardEntry(bytes.substr(0, 37)), std::nullopt);
  std::string other_version = bytes;
  other_version[0] = 2;
  EXPECT_EQ(DecodeBoardEntry(other_version), std::nullopt);
  EXPECT_EQ(DecodeBoardEntry(EncodeBoardEntry(BoardEntry{.throttle = 1.5})), std::nullopt);
}

TEST(DecisionBoardTest, BoardRoundTripsAndSkipsEntriesThatDoNotDecode) {
  const BoardEntry a{.computed_at_ms = 5, .day = absl::CivilDay(2026, 10, 4), .throttle = 1.0};
  const BoardEntry b{.computed_at_ms = 6, .day = absl::CivilDay(2026, 10, 3), .stopped = true};
  const std::string bytes = EncodeBoard({{"camp-a", a}, {"b", b}});
  auto decoded = DecodeBoard(bytes);
  ASSERT_TRUE(decoded.has_value());
  ASSERT_EQ(decoded->size(), 2u);
  EXPECT_EQ((*decoded)[0].first, "camp-a");
  EXPECT_EQ((*decoded)[0].second, a);
  EXPECT_EQ((*decoded)[1].first, "b");
  EXPECT_EQ((*decoded)[1].second, b);

  BoardEntry bad = b;
  bad.throttle = 7;
  auto partly = DecodeBoard(EncodeBoard({{"camp-a", a}, {"b", bad}}));
  ASSERT_TRUE(partly.has_value());
  EXPECT_EQ(partly->size(), 1u);
  EXPECT_EQ(DecodeBoard(bytes.substr(0, bytes.size() - 1)), std::nullopt);
  EXPECT_EQ(DecodeBoard(bytes + "x"), std::nullopt);
  EXPECT_EQ(DecodeBoard(""), std::nullopt);
}

}  // namespace
}  // namespace rtb::pacing::internal
