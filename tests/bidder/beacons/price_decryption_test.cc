// Google's encrypted clearing prices: the sample keys and encrypted values of
// its "Decrypt Price Confirmations" documentation decrypt to the documented
// prices; anything altered, truncated or under other keys is refused.
#include "bidder/beacons/internal/price_decryption.h"

#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace rtb::bidder::beacons {
namespace {

constexpr char kEncryptionKey[] = "skU7Ax_NL5pPAFyKdkfZjZz2-VhIN8bjj1rVFOaJ_5o=";
constexpr char kIntegrityKey[] = "arO23ykdNqUQ5LEoQ0FVmPkBd7xB5CO89PDZlSjpFxo=";

PriceDecrypter SampleKeys() {
  absl::StatusOr<PriceDecrypter> keys = PriceDecrypter::Create(kEncryptionKey, kIntegrityKey);
  EXPECT_TRUE(keys.ok()) << keys.status();
  return *std::move(keys);
}

TEST(PriceDecryptionTest, DocumentedSamplesDecryptToTheirPrices) {
  const PriceDecrypter keys = SampleKeys();
  EXPECT_EQ(keys.DecryptMicros("YWJjMTIzZGVmNDU2Z2hpN7fhCuPemCce_6msaw").value(), 100);
  EXPECT_EQ(keys.DecryptMicros("YWJjMTIzZGVmNDU2Z2hpN7fhCuPemCAWJRxOgA").value(), 1900);
  EXPECT_EQ(keys.DecryptMicros("YWJjMTIzZGVmNDU2Z2hpN7fhCuPemC32prpWWw").value(), 2700);
  // Padding is optional.
  EXPECT_EQ(keys.DecryptMicros("YWJjMTIzZGVmNDU2Z2hpN7fhCuPemCce_6msaw==").value(), 100);
}

TEST(PriceDecryptionTest, EncryptionRoundTripsWithTheSamplesIv) {
  const PriceDecrypter keys = SampleKeys();
  // The samples' initialization vector is "abc123def456ghi7".
  EXPECT_EQ(keys.EncryptMicros(1900, "abc123def456ghi7"), "YWJjMTIzZGVmNDU2Z2hpN7fhCuPemCAWJRxOgA");
  for (int64_t micros : {int64_t{0}, int64_t{1}, int64_t{2500000}, int64_t{999999999999}}) {
    EXPECT_EQ(keys.DecryptMicros(keys.EncryptMicros(micros, "0123456789abcdef")).value(), micros);
  }
}

TEST(PriceDecryptionTest, AlteredOrForeignPricesAreRefused) {
  const PriceDecrypter keys = SampleKeys();
  const std::string good = "YWJjMTIzZGVmNDU2Z2hpN7fhCuPemCce_6msaw";
  for (size_t i = 0; i < good.size(); ++i) {
    std::string altered = good;
    altered[i] = altered[i] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(keys.DecryptMicros(altered).ok()) << i;
  }
  EXPECT_EQ(keys.DecryptMicros(good.substr(0, 30)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(keys.DecryptMicros("1.25").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(keys.DecryptMicros("").status().code(), absl::StatusCode::kInvalidArgument);
  // Swapped keys: the signature cannot match.
  absl::StatusOr<PriceDecrypter> swapped = PriceDecrypter::Create(kIntegrityKey, kEncryptionKey);
  ASSERT_TRUE(swapped.ok());
  EXPECT_EQ(swapped->DecryptMicros(good).status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_FALSE(PriceDecrypter::Create("not base64!", kIntegrityKey).ok());
}

TEST(PriceDecryptionTest, Base64ReadsBothAlphabets) {
  EXPECT_EQ(DecodeBase64("-_-_"), DecodeBase64("+/+/"));
  EXPECT_EQ(DecodeBase64("aGk"), std::optional<std::string>("hi"));
  EXPECT_EQ(DecodeBase64("aGk="), std::optional<std::string>("hi"));
  EXPECT_FALSE(DecodeBase64("a").has_value());
  EXPECT_FALSE(DecodeBase64("a*bc").has_value());
}

}  // namespace
}  // namespace rtb::bidder::beacons
