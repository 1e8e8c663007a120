#include "codecs/base64url.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace rtb::codecs {
namespace {

TEST(Base64UrlTest, WritesTheRfc4648VectorsWithoutPadding) {
  EXPECT_EQ(Base64Url(""), "");
  EXPECT_EQ(Base64Url("f"), "Zg");
  EXPECT_EQ(Base64Url("fo"), "Zm8");
  EXPECT_EQ(Base64Url("foo"), "Zm9v");
  EXPECT_EQ(Base64Url("foob"), "Zm9vYg");
  EXPECT_EQ(Base64Url("fooba"), "Zm9vYmE");
  EXPECT_EQ(Base64Url("foobar"), "Zm9vYmFy");
  // 62 and 63 are '-' and '_', never '+' and '/'.
  EXPECT_EQ(Base64Url("\xfb\xff"), "-_8");
}

TEST(Base64UrlTest, WritesIntoAFixedBuffer) {
  char out[Base64UrlLength(16) + 1];
  out[Base64UrlLength(16)] = '#';
  WriteBase64Url("0123456789abcdef", out);
  EXPECT_EQ(std::string(out, sizeof(out)), "MDEyMzQ1Njc4OWFiY2RlZg#");
  EXPECT_EQ(Base64UrlLength(16), 22u);
  EXPECT_EQ(Base64UrlLength(28), 38u);
}

TEST(Base64UrlTest, ReadsEitherAlphabetAndNothingElse) {
  EXPECT_EQ(DecodeBase64("Zm9vYmFy"), std::optional<std::string>("foobar"));
  EXPECT_EQ(DecodeBase64("Zm9vYg"), std::optional<std::string>("foob"));
  EXPECT_EQ(DecodeBase64("-_8"), std::optional<std::string>("\xfb\xff"));
  EXPECT_EQ(DecodeBase64("+/8"), std::optional<std::string>("\xfb\xff"));
  EXPECT_EQ(DecodeBase64(""), std::optional<std::string>(""));
  EXPECT_FALSE(DecodeBase64("Zm9vYg==").has_value());  // padding is the caller's to drop
  EXPECT_FALSE(DecodeBase64("a").has_value());
  EXPECT_FALSE(DecodeBase64("Zm9vY").has_value());
  EXPECT_FALSE(DecodeBase64("a*bc").has_value());
  EXPECT_FALSE(DecodeBase64("ab c").has_value());
}

TEST(Base64UrlTest, ValuesCoverBothAlphabets) {
  const std::string url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (size_t i = 0; i < url.size(); ++i) EXPECT_EQ(Base64Value(url[i]), i) << url[i];
  EXPECT_EQ(Base64Value('+'), 62);
  EXPECT_EQ(Base64Value('/'), 63);
  EXPECT_EQ(Base64Value('='), kNotBase64);
  EXPECT_EQ(Base64Value('.'), kNotBase64);
  EXPECT_EQ(Base64Value('\x80'), kNotBase64);
}

TEST(Base64UrlTest, EveryByteStringRoundTrips) {
  std::string bytes;
  for (int n = 0; n < 300; ++n) {
    EXPECT_EQ(DecodeBase64(Base64Url(bytes)), std::optional<std::string>(bytes)) << n;
    bytes.push_back(static_cast<char>(n * 7 + 3));
  }
}

}  // namespace
}  // namespace rtb::codecs
