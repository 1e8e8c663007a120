// The byte codecs that row keys, counters and packed layouts are built from:
// big-endian unsigned integers (so that keys sort as the numbers they hold),
// the stable 64-bit hash that salts rows over regions, and lower-case hex.
//
// One home for each: these bytes are stored, and a second copy that wrote
// them differently would orphan every row written by the first. A change here
// is a change of the on-disk format of every table that uses it.
//
// Thread-safety: pure functions.
#ifndef RTB_STORAGE_KEY_BYTES_H_
#define RTB_STORAGE_KEY_BYTES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rtb::storage {

// Appends the low `width` bytes of `value` (1 to 8), most significant first.
// Inline: row keys and counters are built and read on every request.
inline void AppendBigEndian(uint64_t value, int width, std::string* out) {
  for (int i = width - 1; i >= 0; --i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
inline void AppendBigEndian64(uint64_t value, std::string* out) { AppendBigEndian(value, 8, out); }
inline void AppendBigEndian32(uint32_t value, std::string* out) { AppendBigEndian(value, 4, out); }
inline void AppendBigEndian16(uint16_t value, std::string* out) { AppendBigEndian(value, 2, out); }
// Writes the low `width` bytes of `value` (1 to 8) at `out`, most significant
// first: for fixed-size buffers and for a field filled in after what follows
// it was written.
inline void StoreBigEndian(uint64_t value, int width, char* out) {
  for (int i = 0; i < width; ++i)
    out[i] = static_cast<char>((value >> (8 * (width - 1 - i))) & 0xff);
}

// The number `bytes` holds, most significant byte first; `bytes` has 1 to 8
// bytes (callers check the size of what they read: a short field is theirs to
// report).
inline uint64_t ReadBigEndian(std::string_view bytes) {
  uint64_t value = 0;
  for (char c : bytes) value = (value << 8) | static_cast<unsigned char>(c);
  return value;
}
inline uint64_t ReadBigEndian64(std::string_view bytes) {
  return ReadBigEndian(bytes.substr(0, 8));
}
inline uint32_t ReadBigEndian32(std::string_view bytes) {
  return static_cast<uint32_t>(ReadBigEndian(bytes.substr(0, 4)));
}

// splitmix64's finaliser: a bijection that spreads every input bit over all
// 64 output bits. Inline: pricing buckets are mixed for every impression.
// Row keys (pricing buckets, row salts) are built from it: it must never
// change.
inline uint64_t SplitMix64Finalize(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// FNV-1a over `bytes` with splitmix64's finaliser (FNV's low bits, which pick
// a salt, are weak on their own). The same in every process and build: row
// salts and series ids are derived from it.
uint64_t StableHash64(std::string_view bytes);

// Lower-case hex, two digits a byte.
std::string Hex(std::string_view bytes);
void AppendHex(std::string_view bytes, std::string* out);
// The same digits written at `out`, which has room for 2 * bytes.size():
// for fixed-size buffers.
void WriteHex(std::string_view bytes, char* out);
// The bytes of `hex` (either case); nullopt for an odd length or a non-hex
// character.
std::optional<std::string> FromHex(std::string_view hex);
// The value of one hex digit (either case), or -1 for any other character:
// for decoders of formats that mix hex with other text (percent-escapes).
inline int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace rtb::storage

#endif  // RTB_STORAGE_KEY_BYTES_H_
