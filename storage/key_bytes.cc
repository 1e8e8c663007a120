#include "storage/key_bytes.h"

namespace rtb::storage {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

}  // namespace

uint64_t StableHash64(std::string_view bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return SplitMix64Finalize(h);
}

void AppendHex(std::string_view bytes, std::string* out) {
  // Grown once and written through a pointer: a push_back per digit checks
  // the capacity every time (the bid path writes ids of 32 and 64 digits).
  const size_t start = out->size();
  out->resize(start + 2 * bytes.size());
  WriteHex(bytes, out->data() + start);
}

void WriteHex(std::string_view bytes, char* out) {
  for (unsigned char c : bytes) {
    *out++ = kHexDigits[c >> 4];
    *out++ = kHexDigits[c & 15];
  }
}

std::string Hex(std::string_view bytes) {
  std::string out;
  out.reserve(2 * bytes.size());
  AppendHex(bytes, &out);
  return out;
}

std::optional<std::string> FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int high = HexDigitValue(hex[i]);
    const int low = HexDigitValue(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

}  // namespace rtb::storage
