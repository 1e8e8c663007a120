#include "codecs/base64url.h"

#include <array>

namespace rtb::codecs {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr std::array<uint8_t, 256> kValues = [] {
  std::array<uint8_t, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = Base64Value(static_cast<char>(c));
  return table;
}();

}  // namespace

void WriteBase64Url(std::string_view bytes, char* out) {
  uint32_t bits = 0;
  int count = 0;
  for (unsigned char c : bytes) {
    bits = (bits << 8) | c;
    count += 8;
    while (count >= 6) {
      count -= 6;
      *out++ = kAlphabet[(bits >> count) & 63];
    }
  }
  if (count > 0) *out = kAlphabet[(bits << (6 - count)) & 63];
}

std::string Base64Url(std::string_view bytes) {
  std::string out(Base64UrlLength(bytes.size()), '\0');
  WriteBase64Url(bytes, out.data());
  return out;
}

std::optional<std::string> DecodeBase64(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const uint8_t value = kValues[static_cast<unsigned char>(c)];
    if (value == kNotBase64) return std::nullopt;
    bits = (bits << 6) | value;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  return out;
}

}  // namespace rtb::codecs
