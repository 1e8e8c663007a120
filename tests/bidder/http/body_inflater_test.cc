// Tests of bidder/internal/body_inflater.
#include "bidder/http/internal/body_inflater.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/bidder/http_test_client.h"

namespace rtb::bidder::internal {
namespace {

using testing::Compress;

std::string Sample(size_t n) {
  std::string s;
  for (size_t i = 0; s.size() < n; ++i) s += "{\"imp\":" + std::to_string(i * 7919 % 1000) + "},";
  s.resize(n);
  return s;
}

TEST(BodyInflaterTest, RoundTripsGzipAndDeflate) {
  BodyInflater inflater;
  std::string out;
  const std::string data = Sample(50000);
  ASSERT_TRUE(inflater.Inflate(Compress(data, true), BodyEncoding::kGzip, 1 << 20, out).ok());
  EXPECT_EQ(out, data);
  ASSERT_TRUE(inflater.Inflate(Compress(data, false), BodyEncoding::kDeflate, 1 << 20, out).ok());
  EXPECT_EQ(out, data);
  // The same instance is reused across formats and calls.
  ASSERT_TRUE(inflater.Inflate(Compress("x", true), BodyEncoding::kGzip, 10, out).ok());
  EXPECT_EQ(out, "x");
}

TEST(BodyInflaterTest, OutputExactlyAtTheLimitIsAccepted) {
  BodyInflater inflater;
  std::string out;
  const std::string data = Sample(4096);
  EXPECT_TRUE(inflater.Inflate(Compress(data), BodyEncoding::kGzip, 4096, out).ok());
  EXPECT_EQ(out.size(), 4096u);
}

TEST(BodyInflaterTest, OutputOverTheLimitIsResourceExhausted) {
  BodyInflater inflater;
  std::string out;
  absl::Status s = inflater.Inflate(Compress(Sample(4097)), BodyEncoding::kGzip, 4096, out);
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  // A bomb stops at the limit instead of expanding fully.
  const std::string bomb = Compress(std::string(64 << 20, 'a'));
  s = inflater.Inflate(bomb, BodyEncoding::kGzip, 256 << 10, out);
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_LE(out.capacity(), size_t{1} << 20);
}

TEST(BodyInflaterTest, ConcatenatedGzipMembersAreOneBody) {
  BodyInflater inflater;
  std::string out;
  ASSERT_TRUE(
      inflater.Inflate(Compress("hello ") + Compress("world"), BodyEncoding::kGzip, 100, out).ok());
  EXPECT_EQ(out, "hello world");
}

TEST(BodyInflaterTest, CorruptTruncatedOrTrailingInputIsInvalid) {
  BodyInflater inflater;
  std::string out;
  const std::string gz = Compress(Sample(1000));
  std::string corrupt = gz;
  corrupt[12] ^= 0x77;
  EXPECT_TRUE(
      absl::IsInvalidArgument(inflater.Inflate(corrupt, BodyEncoding::kGzip, 1 << 20, out)));
  EXPECT_TRUE(absl::IsInvalidArgument(
      inflater.Inflate(gz.substr(0, gz.size() - 1), BodyEncoding::kGzip, 1 << 20, out)));
  EXPECT_TRUE(
      absl::IsInvalidArgument(inflater.Inflate(gz + "junk", BodyEncoding::kGzip, 1 << 20, out)));
  EXPECT_TRUE(absl::IsInvalidArgument(
      inflater.Inflate(Compress("abc", false) + "x", BodyEncoding::kDeflate, 1 << 20, out)));
  EXPECT_TRUE(absl::IsInvalidArgument(inflater.Inflate("", BodyEncoding::kGzip, 1 << 20, out)));
  EXPECT_TRUE(
      absl::IsInvalidArgument(inflater.Inflate("plain text", BodyEncoding::kGzip, 1 << 20, out)));
  // A gzip body announced as deflate is not accepted either.
  EXPECT_TRUE(absl::IsInvalidArgument(inflater.Inflate(gz, BodyEncoding::kDeflate, 1 << 20, out)));
  // And the inflater still works after errors.
  ASSERT_TRUE(inflater.Inflate(gz, BodyEncoding::kGzip, 1 << 20, out).ok());
  EXPECT_EQ(out, Sample(1000));
}

}  // namespace
}  // namespace rtb::bidder::internal
