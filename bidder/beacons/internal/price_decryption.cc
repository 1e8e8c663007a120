#include "bidder/beacons/internal/price_decryption.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <utility>

#include "absl/status/status.h"
#include "codecs/base64url.h"
#include "storage/key_bytes.h"

namespace rtb::bidder::beacons {
namespace {

constexpr size_t kIvBytes = 16;
constexpr size_t kPriceBytes = 8;
constexpr size_t kSignatureBytes = 4;
constexpr size_t kMessageBytes = kIvBytes + kPriceBytes + kSignatureBytes;

using Sha1 = std::array<unsigned char, 20>;

Sha1 HmacSha1(std::string_view key, std::string_view data) {
  Sha1 digest{};
  unsigned int length = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest.data(), &length);
  return digest;
}

}  // namespace

std::optional<std::string> DecodeBase64(std::string_view text) {
  // Exchanges pad or not; any number of trailing '=' is dropped.
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  return codecs::DecodeBase64(text);
}

absl::StatusOr<PriceDecrypter> PriceDecrypter::Create(std::string_view encryption_key,
                                                      std::string_view integrity_key) {
  std::optional<std::string> encryption = DecodeBase64(encryption_key);
  std::optional<std::string> integrity = DecodeBase64(integrity_key);
  if (!encryption.has_value() || !integrity.has_value() || encryption->empty() ||
      integrity->empty()) {
    return absl::InvalidArgumentError("price encryption keys must be base64");
  }
  return PriceDecrypter(*std::move(encryption), *std::move(integrity));
}

absl::StatusOr<int64_t> PriceDecrypter::DecryptMicros(std::string_view text) const {
  const std::optional<std::string> message = DecodeBase64(text);
  if (!message.has_value() || message->size() != kMessageBytes) {
    return absl::InvalidArgumentError("encrypted price: not base64 of 28 bytes");
  }
  const std::string_view bytes = *message;
  const std::string_view iv = bytes.substr(0, kIvBytes);
  const Sha1 pad = HmacSha1(encryption_key_, iv);
  std::string price(kPriceBytes, '\0');
  for (size_t i = 0; i < kPriceBytes; ++i) {
    price[i] = static_cast<char>(static_cast<unsigned char>(bytes[kIvBytes + i]) ^ pad[i]);
  }
  std::string signed_text = price;
  signed_text.append(iv);
  const Sha1 signature = HmacSha1(integrity_key_, signed_text);
  if (CRYPTO_memcmp(signature.data(), bytes.data() + kIvBytes + kPriceBytes, kSignatureBytes) !=
      0) {
    return absl::UnauthenticatedError("encrypted price: integrity signature does not match");
  }
  const uint64_t micros = storage::ReadBigEndian64(price);
  if (micros > static_cast<uint64_t>(INT64_MAX)) {
    return absl::InvalidArgumentError("encrypted price: out of range");
  }
  return static_cast<int64_t>(micros);
}

std::string PriceDecrypter::EncryptMicros(int64_t micros, std::string_view iv) const {
  std::string price;
  storage::AppendBigEndian64(static_cast<uint64_t>(micros), &price);
  const Sha1 pad = HmacSha1(encryption_key_, iv);
  std::string message(iv);
  for (size_t i = 0; i < kPriceBytes; ++i) {
    message.push_back(static_cast<char>(static_cast<unsigned char>(price[i]) ^ pad[i]));
  }
  std::string signed_text = price;
  signed_text.append(iv);
  const Sha1 signature = HmacSha1(integrity_key_, signed_text);
  message.append(reinterpret_cast<const char*>(signature.data()), kSignatureBytes);
  // Web-safe base64 without padding, as the exchange sends it.
  return codecs::Base64Url(message);
}

}  // namespace rtb::bidder::beacons
