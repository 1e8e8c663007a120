// The Increment nonce records' layout (storage/internal/nonce_record.h): keys
// as drawn, records read back, damaged records refused.
#include "storage/internal/nonce_record.h"

#include <string>

#include "gtest/gtest.h"

namespace rtb::storage::internal {
namespace {

using namespace std::string_literals;

TEST(NonceRecordTest, KeyIsNonceThenTableThenZeroThenRow) {
  EXPECT_EQ(NonceKey(0x0102030405060708, "ns:t", "r\0w"s),
            "\x01\x02\x03\x04\x05\x06\x07\x08ns:t\0r\0w"s);
}

TEST(NonceRecordTest, TheSameNonceOnAnotherTableOrRowIsAnotherKey) {
  EXPECT_NE(NonceKey(7, "t", "ab"), NonceKey(7, "t", "ac"));
  EXPECT_NE(NonceKey(7, "t", "ab"), NonceKey(7, "u", "ab"));
  EXPECT_NE(NonceKey(7, "t", "ab"), NonceKey(8, "t", "ab"));
}

TEST(NonceRecordTest, RecordsRoundTrip) {
  NonceRecord record;
  record.expires_ms = 1791072000000 + 1800000;
  record.result.cells.push_back(Cell("fc", "c1|20261004", 1791072000000, "\0\0\0\0\0\0\0\3"s));
  record.result.cells.push_back(Cell("fc", "", 1791072000001, ""));
  const std::string bytes = EncodeNonceRecord(record);
  std::optional<NonceRecord> back = DecodeNonceRecord(bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->expires_ms, record.expires_ms);
  EXPECT_EQ(back->result.cells.ToVector(), record.result.cells.ToVector());
  EXPECT_EQ(bytes.substr(0, 12), "\x00\x00\x01\xa1\x04\x51\x4f\x40\x00\x00\x00\x02"s)
      << "expiry (8 bytes) then the cell count (4)";
}

TEST(NonceRecordTest, ARecordWithNoCellsRoundTrips) {
  std::optional<NonceRecord> back = DecodeNonceRecord(EncodeNonceRecord(NonceRecord{42, {}}));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->expires_ms, 42);
  EXPECT_TRUE(back->result.cells.empty());
}

TEST(NonceRecordTest, TruncatedOrOverlongRecordsDoNotDecode) {
  NonceRecord record;
  record.expires_ms = 5;
  record.result.cells.push_back(Cell("f", "q", 1, "12345678"));
  const std::string bytes = EncodeNonceRecord(record);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeNonceRecord(bytes.substr(0, n))) << "cut at " << n;
  }
  EXPECT_FALSE(DecodeNonceRecord(bytes + "x"));
}

}  // namespace
}  // namespace rtb::storage::internal
