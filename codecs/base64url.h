// Base64 with the URL- and filename-safe alphabet (RFC 4648 section 5), the
// one codec for every base64 text the bidder reads or writes: TC and GPP
// consent strings (bidder/privacy), encrypted win prices (bidder/beacons) and
// beacon signatures (bidder/bid).
//
//   'A'..'Z' 0..25, 'a'..'z' 26..51, '0'..'9' 52..61, '-' 62, '_' 63
//
// Readers also take the standard alphabet's '+' and '/' for 62 and 63: some
// senders produce them. Writers never pad. Padding ('=') is a rule of each
// format, so callers that accept it drop it before decoding.
//
// Thread-safety: pure functions.
#ifndef RTB_CODECS_BASE64URL_H_
#define RTB_CODECS_BASE64URL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rtb::codecs {

inline constexpr uint8_t kNotBase64 = 0xff;

// 0..63 for a character of either alphabet, kNotBase64 for anything else
// ('=' included). Constexpr: decoders build their lookup tables from it.
constexpr uint8_t Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return static_cast<uint8_t>(c - 'A');
  if (c >= 'a' && c <= 'z') return static_cast<uint8_t>(c - 'a' + 26);
  if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0' + 52);
  if (c == '-' || c == '+') return 62;
  if (c == '_' || c == '/') return 63;
  return kNotBase64;
}

// The number of characters `bytes` bytes take without padding.
constexpr size_t Base64UrlLength(size_t bytes) { return (bytes * 8 + 5) / 6; }

// Writes `bytes` as base64url without padding at `out`, which has room for
// Base64UrlLength(bytes.size()) characters: for fixed-size buffers.
void WriteBase64Url(std::string_view bytes, char* out);
std::string Base64Url(std::string_view bytes);

// The bytes `text` holds (either alphabet, no padding). nullopt for a
// character outside the alphabets or a length that leaves a single character
// (6 bits, less than a byte) over. The bits after the last whole byte are
// ignored.
std::optional<std::string> DecodeBase64(std::string_view text);

}  // namespace rtb::codecs

#endif  // RTB_CODECS_BASE64URL_H_
