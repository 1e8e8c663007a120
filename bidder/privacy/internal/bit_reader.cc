#include "bidder/privacy/internal/bit_reader.h"

#include <array>
#include <bit>
#include <cstring>
#include <limits>

#include "codecs/base64url.h"

namespace rtb::bidder::privacy::internal {
namespace {

// The alphabet is codecs/base64url.h's (both alphabets, as this file's
// header describes); the table makes a character one load.
static_assert(kNotBase64 == codecs::kNotBase64);
constexpr std::array<uint8_t, 256> MakeBase64Table() {
  std::array<uint8_t, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = codecs::Base64Value(static_cast<char>(c));
  return table;
}
constexpr std::array<uint8_t, 256> kBase64Table = MakeBase64Table();

// The table's values already shifted to their place in a group of four
// characters (24 bits), with bit 31 set for a character outside the
// alphabet: a group is then four loads and three ORs.
constexpr uint32_t kInvalidInGroup = uint32_t{1} << 31;
constexpr std::array<std::array<uint32_t, 256>, 4> MakeGroupTables() {
  std::array<std::array<uint32_t, 256>, 4> tables{};
  for (int place = 0; place < 4; ++place) {
    for (int c = 0; c < 256; ++c) {
      const uint8_t v = kBase64Table[c];
      tables[place][c] = v == kNotBase64 ? kInvalidInGroup : uint32_t{v} << (18 - 6 * place);
    }
  }
  return tables;
}
constexpr std::array<std::array<uint32_t, 256>, 4> kGroupTables = MakeGroupTables();

// Fibonacci terms F(2), F(3), ...: 1, 2, 3, 5, 8, ... Enough of them that a
// code longer than the table cannot fit 32 bits anyway.
constexpr int kFibonacciTerms = 48;
constexpr std::array<uint64_t, kFibonacciTerms> MakeFibonacci() {
  std::array<uint64_t, kFibonacciTerms> terms{};
  terms[0] = 1;
  terms[1] = 2;
  for (int i = 2; i < kFibonacciTerms; ++i) terms[i] = terms[i - 1] + terms[i - 2];
  return terms;
}
constexpr std::array<uint64_t, kFibonacciTerms> kFibonacci = MakeFibonacci();

}  // namespace

uint8_t Base64UrlValue(char c) { return kBase64Table[static_cast<unsigned char>(c)]; }

bool IsBase64Url(std::string_view text) {
  uint8_t all = 0;
  for (char c : text) all |= kBase64Table[static_cast<unsigned char>(c)];
  return (all & 0x80) == 0;
}

bool BitReader::Reset(std::string_view text) {
  for (int i = 0; i < 2 && !text.empty() && text.back() == '='; ++i) text.remove_suffix(1);
  position_ = 0;
  failed_ = false;
  size_bits_ = 0;
  const size_t n = text.size();
  bytes_.resize((n * 6 + 7) / 8 + 8);
  uint8_t* out = bytes_.data();
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  size_t i = 0;
  // Eight characters are six bytes, stored as one 8-byte word (the buffer's
  // zero tail leaves room for the two extra bytes, overwritten by the next
  // group). A character outside the alphabet is found once, after the loop.
  uint32_t invalid = 0;
  for (; i + 8 <= n; i += 8) {
    const uint32_t high = kGroupTables[0][in[i]] | kGroupTables[1][in[i + 1]] |
                          kGroupTables[2][in[i + 2]] | kGroupTables[3][in[i + 3]];
    const uint32_t low = kGroupTables[0][in[i + 4]] | kGroupTables[1][in[i + 5]] |
                         kGroupTables[2][in[i + 6]] | kGroupTables[3][in[i + 7]];
    invalid |= high | low;
    uint64_t word = (uint64_t{high} << 40) | (uint64_t{low} << 16);
    if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
    std::memcpy(out, &word, sizeof(word));
    out += 6;
  }
  if ((invalid & kInvalidInGroup) != 0) {
    bytes_.clear();
    return false;
  }
  // At most seven characters are left: 42 bits.
  uint64_t tail = 0;
  int tail_bits = 0;
  for (; i < n; ++i) {
    const uint8_t v = kBase64Table[in[i]];
    if (v & 0x80) {
      bytes_.clear();
      return false;
    }
    tail = (tail << 6) | v;
    tail_bits += 6;
  }
  if (tail_bits > 0) {
    // Left-align the leftover bits in whole bytes.
    const int padded = (tail_bits + 7) / 8 * 8;
    tail <<= padded - tail_bits;
    for (int shift = padded - 8; shift >= 0; shift -= 8)
      *out++ = static_cast<uint8_t>(tail >> shift);
  }
  for (uint8_t* end = bytes_.data() + bytes_.size(); out < end;) *out++ = 0;
  size_bits_ = n * 6;
  return true;
}

bool BitReader::ReadFibonacci(uint32_t* value) {
  uint64_t sum = 0;
  bool previous = false;
  for (int i = 0; i <= kFibonacciTerms; ++i) {
    if (remaining() == 0) {
      failed_ = true;
      return false;
    }
    const bool bit = ReadBool();
    if (bit && previous) {
      if (sum > std::numeric_limits<uint32_t>::max()) return false;
      *value = static_cast<uint32_t>(sum);
      return true;
    }
    if (bit) {
      if (i == kFibonacciTerms) return false;
      sum += kFibonacci[i];
    }
    previous = bit;
  }
  return false;
}

}  // namespace rtb::bidder::privacy::internal
