// Clearing prices encrypted the way Google's exchanges (Authorized Buyers,
// Ad Manager) send ${AUCTION_PRICE}: web-safe base64 of 28 bytes,
//
//   +---------------------------+----------------------+-----------------+
//   | initialization vector (16)| price XOR pad (8)    | signature (4)   |
//   +---------------------------+----------------------+-----------------+
//
// where pad = HMAC-SHA1(encryption key, iv)[0..8), the price is a big-endian
// 64-bit count of micro-units (of the currency the exchange bills in), and
// signature = HMAC-SHA1(integrity key, price || iv)[0..4). The keys are the
// exchange's, handed out as web-safe base64 (server.exchanges[].
// price_encryption).
//
// Thread-safety: a PriceDecrypter is immutable; use it from any thread.
#ifndef RTB_BIDDER_BEACONS_INTERNAL_PRICE_DECRYPTION_H_
#define RTB_BIDDER_BEACONS_INTERNAL_PRICE_DECRYPTION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace rtb::bidder::beacons {

// Base64 of either alphabet (standard or web-safe), padding optional;
// nullopt on any other character or an impossible length.
std::optional<std::string> DecodeBase64(std::string_view text);

class PriceDecrypter {
 public:
  // The keys as the exchange gives them (base64). InvalidArgument when one
  // does not decode; the message never holds a key.
  static absl::StatusOr<PriceDecrypter> Create(std::string_view encryption_key,
                                               std::string_view integrity_key);

  // The price in micro-units. InvalidArgument when `text` is not base64 of 28
  // bytes; Unauthenticated when the signature does not match (tampered, or
  // another key).
  absl::StatusOr<int64_t> DecryptMicros(std::string_view text) const;

  // The inverse, for tests and tools: `iv` must be 16 bytes (a
  // std::string_view of them, not a C string: they may hold NULs).
  std::string EncryptMicros(int64_t micros, std::string_view iv) const;

 private:
  PriceDecrypter(std::string encryption_key, std::string integrity_key)
      : encryption_key_(std::move(encryption_key)), integrity_key_(std::move(integrity_key)) {}

  std::string encryption_key_;
  std::string integrity_key_;
};

}  // namespace rtb::bidder::beacons

#endif  // RTB_BIDDER_BEACONS_INTERNAL_PRICE_DECRYPTION_H_
