// The bit layer under TC strings and GPP strings: base64url text read as one
// string of bits, and the integer encodings the two formats build on. Every
// field of both formats is read through this file; nothing else decodes
// base64 or counts bits.
//
// Text to bits: each character carries 6 bits (RFC 4648 section 5 alphabet,
// 'A'..'Z' 0..25, 'a'..'z' 26..51, '0'..'9' 52..61, '-' 62, '_' 63), most
// significant bit first, characters left to right:
//
//   text     'D'      'B'      'A'      'B'      'M'
//   values   3        1        0        1        12
//   bits     000011   000001   000000   000001   001100
//   offset   0     5  6    11  12   17  18   23  24   29
//
// A field of n bits is the next n bits read as a big-endian unsigned integer.
// Writers pad the last character with zero bits; readers ignore what is left
// after the last field they need. '+' and '/' (standard base64) are read as
// '-' and '_', and up to two trailing '=' are dropped: some senders produce
// them, and they change no bit.
//
// Fibonacci integer (GPP): the Zeckendorf representation of n >= 1, least
// significant term first, terms F(2)=1, F(3)=2, F(4)=3, 5, 8, ..., followed by
// one extra '1', so every code ends in "11" and no "11" occurs before:
//
//   1 = 11      2 = 011      3 = 0011      4 = 1011      5 = 00011
//
// Thread-safety: a BitReader is used by one thread at a time.
#ifndef RTB_BIDDER_PRIVACY_INTERNAL_BIT_READER_H_
#define RTB_BIDDER_PRIVACY_INTERNAL_BIT_READER_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "absl/container/inlined_vector.h"

namespace rtb::bidder::privacy::internal {

// 0..63 for a character of the alphabet (with '+' and '/' as '-' and '_'),
// kNotBase64 for anything else.
inline constexpr uint8_t kNotBase64 = 0xff;
uint8_t Base64UrlValue(char c);

// Whether every character of `text` is in the alphabet.
bool IsBase64Url(std::string_view text);

class BitReader {
 public:
  // Decodes `text` (without the padding rule above applied by the caller:
  // Reset drops trailing '=' itself). False when a character is outside the
  // alphabet; the reader is then empty.
  bool Reset(std::string_view text);

  // Reads the next `bits` bits, 1 <= bits <= 56, as an unsigned integer. Past
  // the end it returns 0 and the reader stays failed: check failed() before
  // trusting what was read.
  uint64_t Read(int bits) {
    if (bits > static_cast<int>(size_bits_ - position_)) {
      failed_ = true;
      position_ = size_bits_;
      return 0;
    }
    const uint64_t value = Peek(bytes_.data(), position_, bits);
    position_ += static_cast<size_t>(bits);
    return value;
  }
  bool ReadBool() { return Read(1) != 0; }

  // A Fibonacci-coded integer (see above) into *value. False on a code that
  // runs past the end or past the largest value of 32 bits.
  bool ReadFibonacci(uint32_t* value);

  bool failed() const { return failed_; }
  size_t position() const { return position_; }
  size_t remaining() const { return size_bits_ - position_; }

  // For a hot loop that keeps the position in a local: the decoded bits
  // (valid up to size_bits(), then at least 8 zero bytes), reads with Peek,
  // and hands the position back with Seek.
  const uint8_t* data() const { return bytes_.data(); }
  size_t size_bits() const { return size_bits_; }
  void Seek(size_t position) { position_ = position; }

  // The `bits` bits (1 <= bits <= 56) at bit `position` of `data`, which must
  // hold 8 bytes from byte position / 8 on. No bounds check.
  static uint64_t Peek(const uint8_t* data, size_t position, int bits) {
    uint64_t word;
    std::memcpy(&word, data + (position >> 3), sizeof(word));
    if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
    return (word << (position & 7)) >> (64 - bits);
  }

 private:
  // Decoded bits, whole bytes, then 8 zero bytes. 1 KiB holds a string of
  // about 1,350 characters without touching the heap.
  absl::InlinedVector<uint8_t, 1024> bytes_;
  size_t size_bits_ = 0;
  size_t position_ = 0;
  bool failed_ = false;
};

}  // namespace rtb::bidder::privacy::internal

#endif  // RTB_BIDDER_PRIVACY_INTERNAL_BIT_READER_H_
