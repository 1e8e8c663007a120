#include "bidder/beacons/internal/price_decryption.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <utility>

#include "absl/status/status.h"
#include "storage/key_bytes.h"

namespace rtb::bidder::beacons {
namespace {

constexpr size_t kIvBytes = 16;
constexpr size_t kPriceBytes = 8;
constexpr size_t kSignatureBytes = 4;
constexpr size_t kMessageBytes = kIvBytes + kPriceBytes + kSignatureBytes;

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

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
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const int value = Base64Value(c);
    if (value < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(value);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  return out;
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
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (unsigned char c : message) {
    bits = (bits << 8) | c;
    count += 8;
    while (count >= 6) {
      count -= 6;
      out.push_back(kAlphabet[(bits >> count) & 63]);
    }
  }
  if (count > 0) out.push_back(kAlphabet[(bits << (6 - count)) & 63]);
  return out;
}

}  // namespace rtb::bidder::beacons
