// Device keys: HMAC-SHA256 vectors computed independently with
//   echo -n '<normalised id>' | openssl dgst -sha256 -hmac '<secret>'
// (first 32 hex digits), normalisation, known-invalid ids and the policies
// that skip the lookup.
#include "bidder/bid/device_key.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <random>
#include <string>

#include "bidder/bid/internal/hmac_sha256.h"
#include "bidder/events/events.h"
#include "gtest/gtest.h"
#include "tests/bidder/decision_fixtures.h"

namespace rtb::bidder {
namespace {

using testing::kDeviceKeySecret;

std::string Hex(const internal::HmacSha256::Digest& d) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : d) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0xf]);
  }
  return out;
}

// HMAC-SHA256 through OpenSSL's EVP_MAC, the reference for the pad-state
// implementation.
std::string EvpHmacHex(std::string_view key, std::string_view message) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
  char digest_name[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
                         OSSL_PARAM_construct_end()};
  EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params);
  EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(message.data()), message.size());
  internal::HmacSha256::Digest out;
  size_t size = 0;
  EVP_MAC_final(ctx, out.data(), &size, out.size());
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(mac);
  return Hex(out);
}

TEST(DeviceKeyTest, MatchesOpensslDgstVectors) {
  DeviceKeyHasher hasher(kDeviceKeySecret);
  EXPECT_EQ(hasher.Hash("aa000dfe74168477c70d291f574d344790e0bb11").Hex(),
            "937943015b835557c1b07fb6a9e8fa8b");
  EXPECT_EQ(hasher.Hash("6d92078a-8246-4ba4-ae5b-76104861e7dc").Hex(),
            "9bc38e10b2058c87388acbd40bb6a6a0");
  EXPECT_EQ(hasher.Hash("b-77d1a0c3").Hex(), "95d4b23506b2879bd1a03067d01aa93c");
}

TEST(DeviceKeyTest, NormalisesByTrimmingAndLowerCasing) {
  DeviceKeyHasher hasher(kDeviceKeySecret);
  // The mobile-app sample's ifa, as sent (mixed case).
  EXPECT_EQ(hasher.Hash("AA000DFE74168477C70D291f574D344790E0BB11").Hex(),
            "937943015b835557c1b07fb6a9e8fa8b");
  EXPECT_EQ(hasher.Hash(" \t6D92078A-8246-4BA4-AE5B-76104861E7DC\r\n").Hex(),
            "9bc38e10b2058c87388acbd40bb6a6a0");
  EXPECT_EQ(NormaliseDeviceId("  AbC-9\n"), "abc-9");
}

TEST(DeviceKeyTest, KeyIsSixteenBytesOfTheMac) {
  DeviceKeyHasher hasher(kDeviceKeySecret);
  const DeviceKey key = hasher.Hash("b-77d1a0c3");
  ASSERT_EQ(key.bytes().size(), events::kUserKeyBytes);
  EXPECT_EQ(static_cast<unsigned char>(key.bytes()[0]), 0x95);
  EXPECT_EQ(static_cast<unsigned char>(key.bytes()[15]), 0x3c);
}

TEST(DeviceKeyTest, DifferentSecretsGiveDifferentKeys) {
  DeviceKeyHasher a(kDeviceKeySecret);
  DeviceKeyHasher b("another-secret-of-at-least-32-bytes-xyz");
  EXPECT_NE(a.Hash("b-77d1a0c3"), b.Hash("b-77d1a0c3"));
}

TEST(HmacSha256Test, KeyLongerThanABlockIsHashedFirst) {
  // openssl dgst -sha256 -hmac "$(printf 'k%.0s' $(seq 1 100))" <<< -n abc
  internal::HmacSha256 hmac(std::string(100, 'k'));
  EXPECT_EQ(Hex(hmac.Mac("abc")),
            "b58b2b694fdba0dd76da3ebe99174f728d327560f36ece224e90867972479922");
}

TEST(HmacSha256Test, Rfc4231TestCase2) {
  internal::HmacSha256 hmac("Jefe");
  EXPECT_EQ(Hex(hmac.Mac("what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Sha256Test, Fips180Vectors) {
  EXPECT_EQ(Hex(internal::Sha256({"abc"})),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Hex(internal::Sha256({})),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // Parts hash as their concatenation.
  EXPECT_EQ(Hex(internal::Sha256({"abcdbcdecdefdefgefghfghighijhijk", "ijkljklmklmnlmnomnopnopq"})),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(HmacSha256Test, AgreesWithEvpMacOnRandomInputs) {
  std::mt19937 random(20261004);
  for (int round = 0; round < 200; ++round) {
    std::string key(random() % 150, '\0');
    std::string message(random() % 300, '\0');
    for (char& c : key) c = static_cast<char>(random());
    for (char& c : message) c = static_cast<char>(random());
    internal::HmacSha256 hmac(key);
    ASSERT_EQ(Hex(hmac.Mac(message)), EvpHmacHex(key, message)) << "round " << round;
    const size_t cut = message.size() / 3;
    ASSERT_EQ(Hex(hmac.Mac({std::string_view(message).substr(0, cut),
                            std::string_view(message).substr(cut)})),
              EvpHmacHex(key, message));
  }
}

TEST(HmacSha256Test, SharedPrefixFinishesLikeWholeMessages) {
  internal::HmacSha256 hmac(kDeviceKeySecret);
  const std::string prefix(150, 'p');
  internal::HmacSha256::Partial partial = hmac.Begin();
  partial.Update(prefix);
  for (std::string_view tail : {"", "/win", "/billing", "/click"}) {
    internal::HmacSha256::Partial copy = partial;
    copy.Update(tail);
    EXPECT_EQ(Hex(hmac.Finish(copy)), EvpHmacHex(kDeviceKeySecret, prefix + std::string(tail)));
  }
}

TEST(DeviceKeyTest, KnownInvalidIdsAreRecognised) {
  for (const char* id : {"", "   ", "00000000-0000-0000-0000-000000000000", "0000000000000000",
                         " 00000000-0000-0000-0000-000000000000 ", "null", "NULL", "(null)",
                         "undefined", "Unknown", "none"}) {
    EXPECT_TRUE(IsKnownInvalidDeviceId(id)) << "'" << id << "'";
  }
  for (const char* id : {"6d92078a-8246-4ba4-ae5b-76104861e7dc",
                         "00000000-0000-0000-0000-000000000001", "b-77d1a0c3", "nullable"}) {
    EXPECT_FALSE(IsKnownInvalidDeviceId(id)) << id;
  }
}

openrtb::BidRequest RequestWith(const std::string& ifa, const std::string& buyeruid) {
  openrtb::BidRequest request;
  request.id = "r";
  request.imp.emplace_back();
  request.imp.back().id = "1";
  if (!ifa.empty()) {
    request.device.emplace();
    request.device->ifa = ifa;
  }
  if (!buyeruid.empty()) {
    request.user.emplace();
    request.user->buyeruid = buyeruid;
  }
  return request;
}

TEST(ResolveDeviceIdentityTest, IfaComesFirstThenBuyerUid) {
  DeviceKeyHasher hasher(kDeviceKeySecret);
  DeviceKeyPolicy policy;
  DeviceIdentity both = ResolveDeviceIdentity(
      RequestWith("6d92078a-8246-4ba4-ae5b-76104861e7dc", "b-77d1a0c3"), policy, hasher);
  ASSERT_TRUE(both.key.has_value());
  EXPECT_EQ(both.source, DeviceIdSource::kIfa);
  EXPECT_EQ(both.key->Hex(), "9bc38e10b2058c87388acbd40bb6a6a0");

  DeviceIdentity zero_ifa = ResolveDeviceIdentity(
      RequestWith("00000000-0000-0000-0000-000000000000", "b-77d1a0c3"), policy, hasher);
  ASSERT_TRUE(zero_ifa.key.has_value());
  EXPECT_EQ(zero_ifa.source, DeviceIdSource::kBuyerUid);
  EXPECT_EQ(zero_ifa.key->Hex(), "95d4b23506b2879bd1a03067d01aa93c");
}

TEST(ResolveDeviceIdentityTest, InvalidOrMissingIdsSkipTheLookup) {
  DeviceKeyHasher hasher(kDeviceKeySecret);
  DeviceKeyPolicy policy;
  DeviceIdentity zeros = ResolveDeviceIdentity(
      RequestWith("00000000-0000-0000-0000-000000000000", ""), policy, hasher);
  EXPECT_FALSE(zeros.key.has_value());
  EXPECT_EQ(zeros.skip, LookupSkipReason::kInvalidDeviceId);

  DeviceIdentity none = ResolveDeviceIdentity(RequestWith("", ""), policy, hasher);
  EXPECT_FALSE(none.key.has_value());
  EXPECT_EQ(none.skip, LookupSkipReason::kNoDeviceId);
}

TEST(ResolveDeviceIdentityTest, LmtDntAndCoppaFollowPolicy) {
  DeviceKeyHasher hasher(kDeviceKeySecret);
  openrtb::BidRequest request = RequestWith("6d92078a-8246-4ba4-ae5b-76104861e7dc", "");
  request.device->lmt = true;
  DeviceKeyPolicy policy;
  EXPECT_EQ(ResolveDeviceIdentity(request, policy, hasher).skip,
            LookupSkipReason::kLimitAdTracking);
  EXPECT_FALSE(ResolveDeviceIdentity(request, policy, hasher).key.has_value());
  policy.skip_lookup_on_lmt = false;
  EXPECT_TRUE(ResolveDeviceIdentity(request, policy, hasher).key.has_value());

  request.device->lmt = false;
  request.device->dnt = true;
  policy.skip_lookup_on_dnt = true;
  EXPECT_EQ(ResolveDeviceIdentity(request, policy, hasher).skip, LookupSkipReason::kDoNotTrack);
  policy.skip_lookup_on_dnt = false;
  EXPECT_TRUE(ResolveDeviceIdentity(request, policy, hasher).key.has_value());

  request.regs.emplace();
  request.regs->coppa = true;
  policy.coppa_contextual = true;
  EXPECT_EQ(ResolveDeviceIdentity(request, policy, hasher).skip, LookupSkipReason::kCoppa);
}

// The cap-only key of one count: the MAC of the domain tag, the device key
// and the count's column; one per campaign and day, none a device key.
TEST(DeviceKeyTest, FrequencyCapKeyNamesOneCountOnly) {
  DeviceKeyHasher hasher(kDeviceKeySecret);
  const DeviceKey device = hasher.Hash("6d92078a-8246-4ba4-ae5b-76104861e7dc");
  const DeviceKey key = hasher.FrequencyCapKey(device, "northwind-travel-display|20261204");
  const std::string message = std::string("\0rtb-frequency-cap-key-v1\0", 26) +
                              std::string(device.bytes()) + "northwind-travel-display|20261204";
  EXPECT_EQ(key.Hex(), EvpHmacHex(kDeviceKeySecret, message).substr(0, 32));
  EXPECT_EQ(hasher.FrequencyCapKey(device, "northwind-travel-display|20261204"), key);
  EXPECT_NE(hasher.FrequencyCapKey(device, "northwind-travel-display|20261205"), key);
  EXPECT_NE(hasher.FrequencyCapKey(device, "litware-retargeting|20261204"), key);
  EXPECT_NE(
      hasher.FrequencyCapKey(hasher.Hash("another-device"), "northwind-travel-display|20261204"),
      key);
  EXPECT_NE(key, device);
  EXPECT_NE(DeviceKeyHasher("another secret of the bidder, 32+ bytes")
                .FrequencyCapKey(device, "northwind-travel-display|20261204"),
            key);
}

}  // namespace
}  // namespace rtb::bidder
