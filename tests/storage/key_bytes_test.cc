#include "storage/key_bytes.h"

#include <string>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"

namespace rtb::storage {
namespace {

TEST(KeyBytesTest, BigEndianWritesMostSignificantFirstAndReadsBack) {
  std::string out;
  AppendBigEndian32(0x01020304u, &out);
  AppendBigEndian64(0x05060708090a0b0cull, &out);
  AppendBigEndian16(0xfffe, &out);
  AppendBigEndian(0x123456, 3, &out);
  EXPECT_EQ(
      out, std::string("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\xff\xfe\x12\x34\x56", 17));
  EXPECT_EQ(ReadBigEndian32(out), 0x01020304u);
  EXPECT_EQ(ReadBigEndian64(out.substr(4)), 0x05060708090a0b0cull);
  EXPECT_EQ(ReadBigEndian(out.substr(12, 2)), 0xfffeu);
  EXPECT_EQ(ReadBigEndian(out.substr(14)), 0x123456u);
}

TEST(KeyBytesTest, BigEndianKeysSortAsTheirNumbers) {
  std::string small, large;
  AppendBigEndian64(255, &small);
  AppendBigEndian64(256, &large);
  EXPECT_LT(small, large);
}

// These values are stored (row salts, series ids): they must never change.
TEST(KeyBytesTest, StableHashIsPinned) {
  EXPECT_EQ(StableHash64(""), 0xf52a15e9a9b5e89bull);
  EXPECT_EQ(StableHash64("a"), 0x02c0bdbf481420f8ull);
  EXPECT_EQ(StableHash64("bidder_bid_requests_total{exchange=x}"), 0xa8a2c2e5a50990d3ull);
}

// Pricing buckets (row keys) and spend nonces are built from the finaliser;
// these values were taken from the copies it replaced.
TEST(KeyBytesTest, SplitMix64FinalizeIsPinned) {
  EXPECT_EQ(SplitMix64Finalize(0), 0u);
  EXPECT_EQ(SplitMix64Finalize(1), 0x5692161d100b05e5ull);
  EXPECT_EQ(SplitMix64Finalize(0x0123456789abcdefull), 0xb2c058e4ebb5112cull);
  EXPECT_EQ(SplitMix64Finalize(~0ull), 0xb4d055fcf2cbbd7bull);
  // The spend flusher's nonces: a splitmix64 step (golden-ratio increment first).
  constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;
  EXPECT_EQ(SplitMix64Finalize(0 + kGoldenGamma), 0xe220a8397b1dcdafull);
  EXPECT_EQ(SplitMix64Finalize(1 + kGoldenGamma), 0x910a2dec89025cc1ull);
  EXPECT_EQ(SplitMix64Finalize(0x0123456789abcdefull + kGoldenGamma), 0x157a3807a48faa9dull);
  EXPECT_EQ(SplitMix64Finalize(~0ull + kGoldenGamma), 0xe4d971771b652c20ull);
}

TEST(KeyBytesTest, HexRoundTripsAndRefusesWhatIsNotHex) {
  const std::string bytes("\x00\x7f\x80\xff\xab", 5);
  EXPECT_EQ(Hex(bytes), "007f80ffab");
  EXPECT_EQ(FromHex("007f80ffab"), bytes);
  EXPECT_EQ(FromHex("007F80FFAB"), bytes);
  EXPECT_EQ(FromHex(""), std::string());
  EXPECT_FALSE(FromHex("abc").has_value());
  EXPECT_FALSE(FromHex("zz").has_value());
  EXPECT_FALSE(FromHex("0g").has_value());
}

TEST(KeyBytesTest, WriteHexWritesInPlaceWhatAppendHexAppends) {
  const std::string bytes("\x00\x7f\x80\xff\xab", 5);
  std::string written = "x" + std::string(10, '?') + "x";
  WriteHex(bytes, written.data() + 1);
  EXPECT_EQ(written, "x007f80ffabx");
}

TEST(KeyBytesTest, StoreBigEndianWritesInPlaceWhatAppendBigEndianAppends) {
  std::string appended;
  AppendBigEndian(0x0102030405ull, 5, &appended);
  std::string stored = "xxxxxxx";
  StoreBigEndian(0x0102030405ull, 5, stored.data() + 1);
  EXPECT_EQ(stored, "x" + appended + "x");
  StoreBigEndian(0xabcd, 2, stored.data());
  EXPECT_EQ(stored.substr(0, 2), "\xab\xcd");
}

TEST(KeyBytesTest, HexDigitValueReadsEitherCaseAndNothingElse) {
  EXPECT_EQ(HexDigitValue('0'), 0);
  EXPECT_EQ(HexDigitValue('9'), 9);
  EXPECT_EQ(HexDigitValue('a'), 10);
  EXPECT_EQ(HexDigitValue('F'), 15);
  EXPECT_EQ(HexDigitValue('g'), -1);
  EXPECT_EQ(HexDigitValue('%'), -1);
  EXPECT_EQ(HexDigitValue('\0'), -1);
}

// Device keys, session ids and hot-key prefixes were shown with
// absl::BytesToHexString before Hex served them: the same text.
TEST(KeyBytesTest, HexIsTheTextAbslShowedForEveryByte) {
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte.push_back(static_cast<char>(b));
  EXPECT_EQ(Hex(every_byte), absl::BytesToHexString(every_byte));
}

}  // namespace
}  // namespace rtb::storage
