// The bit layer: base64url characters as 6 bits each, fields across
// character and byte boundaries, the end of the input, Fibonacci codes.
#include "bidder/privacy/internal/bit_reader.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/bidder/privacy/privacy_encoder.h"

namespace rtb::bidder::privacy::internal {
namespace {

TEST(BitReaderTest, CharactersAreSixBitsMostSignificantFirst) {
  BitReader reader;
  // "DBABM": 000011 000001 000000 000001 001100, the GPP specification's
  // first header example.
  ASSERT_TRUE(reader.Reset("DBABM"));
  EXPECT_EQ(reader.remaining(), 30u);
  EXPECT_EQ(reader.Read(6), 3u);
  EXPECT_EQ(reader.Read(6), 1u);
  EXPECT_EQ(reader.Read(12), 1u);
  EXPECT_EQ(reader.Read(3), 1u);  // 001
  EXPECT_EQ(reader.Read(3), 4u);  // 100
  EXPECT_FALSE(reader.failed());
  EXPECT_EQ(reader.remaining(), 0u);
}

TEST(BitReaderTest, AlphabetMapsToItsValues) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  BitReader reader;
  ASSERT_TRUE(reader.Reset(alphabet));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(reader.Read(6), static_cast<uint64_t>(i)) << i;
  EXPECT_EQ(Base64UrlValue('+'), 62);
  EXPECT_EQ(Base64UrlValue('/'), 63);
  EXPECT_EQ(Base64UrlValue('='), kNotBase64);
  EXPECT_EQ(Base64UrlValue('.'), kNotBase64);
  EXPECT_TRUE(IsBase64Url(alphabet));
  EXPECT_FALSE(IsBase64Url("AB~C"));
}

TEST(BitReaderTest, WideFieldsCrossCharactersAndBytes) {
  testing::BitWriter w;
  w.Write(5, 3);
  w.Write(0x9abcdef01ULL, 36);
  w.Write(0xffffffffffffffULL, 56);
  w.Write(1, 1);
  BitReader reader;
  ASSERT_TRUE(reader.Reset(w.ToBase64Url()));
  EXPECT_EQ(reader.Read(3), 5u);
  EXPECT_EQ(reader.Read(36), 0x9abcdef01ULL);
  EXPECT_EQ(reader.Read(56), 0xffffffffffffffULL);
  EXPECT_TRUE(reader.ReadBool());
  EXPECT_FALSE(reader.failed());
}

TEST(BitReaderTest, ReadingPastTheEndFailsAndStaysFailed) {
  BitReader reader;
  ASSERT_TRUE(reader.Reset("AB"));  // 12 bits
  EXPECT_EQ(reader.Read(10), 0u);
  EXPECT_EQ(reader.Read(3), 0u);
  EXPECT_TRUE(reader.failed());
  EXPECT_EQ(reader.Read(1), 0u);
  EXPECT_TRUE(reader.failed());
}

TEST(BitReaderTest, CharactersOutsideTheAlphabetAreRefused) {
  BitReader reader;
  EXPECT_FALSE(reader.Reset("ABC!"));
  EXPECT_FALSE(reader.Reset("ABCDE.FG"));
  EXPECT_FALSE(reader.Reset(std::string("AB\0C", 4)));
  EXPECT_TRUE(reader.Reset("ABC="));
  EXPECT_EQ(reader.remaining(), 18u);
  EXPECT_TRUE(reader.Reset("AB=="));
  EXPECT_EQ(reader.remaining(), 12u);
  EXPECT_FALSE(reader.Reset("A=B"));
}

TEST(BitReaderTest, FibonacciCodesOfTheSpecificationTable) {
  // 1 = 11, 2 = 011, 3 = 0011, 4 = 1011, 5 = 00011, 6 = 10011, 7 = 01011.
  testing::BitWriter w;
  for (const char* code : {"11", "011", "0011", "1011", "00011", "10011", "01011"}) {
    for (const char* c = code; *c; ++c) w.WriteBool(*c == '1');
  }
  BitReader reader;
  ASSERT_TRUE(reader.Reset(w.ToBase64Url()));
  for (uint32_t expected = 1; expected <= 7; ++expected) {
    uint32_t value = 0;
    ASSERT_TRUE(reader.ReadFibonacci(&value));
    EXPECT_EQ(value, expected);
  }
}

TEST(BitReaderTest, FibonacciRoundTripsAndRefusesUnterminatedOrHugeCodes) {
  testing::BitWriter w;
  const uint32_t values[] = {1, 8, 12, 100, 4095, 65535, 1000000, 4000000000u};
  for (uint32_t v : values) w.WriteFibonacci(v);
  BitReader reader;
  ASSERT_TRUE(reader.Reset(w.ToBase64Url()));
  for (uint32_t v : values) {
    uint32_t value = 0;
    ASSERT_TRUE(reader.ReadFibonacci(&value)) << v;
    EXPECT_EQ(value, v);
  }
  // "010101..." never closes.
  ASSERT_TRUE(reader.Reset("VVVV"));
  uint32_t value = 0;
  EXPECT_FALSE(reader.ReadFibonacci(&value));
  EXPECT_TRUE(reader.failed());
  // A code above 2^32 - 1.
  testing::BitWriter huge;
  huge.WriteFibonacci(uint64_t{1} << 40);
  ASSERT_TRUE(reader.Reset(huge.ToBase64Url()));
  EXPECT_FALSE(reader.ReadFibonacci(&value));
}

}  // namespace
}  // namespace rtb::bidder::privacy::internal
