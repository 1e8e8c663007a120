// Bits written most significant first into a byte string: the writing side of
// the packed block formats of gorilla.h.
#ifndef RTB_BIDDER_TELEMETRY_INTERNAL_BIT_BUFFER_H_
#define RTB_BIDDER_TELEMETRY_INTERNAL_BIT_BUFFER_H_

#include <cstdint>
#include <string>

namespace rtb::bidder::telemetry::internal {

class BitBuffer {
 public:
  // The low `bits` bits of `value`, bits in [1, 64].
  void Write(uint64_t value, int bits) {
    if (bits > 32) {
      Write(value >> 32, bits - 32);
      Write(value & 0xffffffffu, 32);
      return;
    }
    acc_ = (acc_ << bits) | (value & ((uint64_t{1} << bits) - 1));
    acc_bits_ += bits;
    while (acc_bits_ >= 8) {
      acc_bits_ -= 8;
      bytes_.push_back(static_cast<char>(acc_ >> acc_bits_));
    }
    acc_ &= (uint64_t{1} << acc_bits_) - 1;
  }
  // Bytes already complete, for header fields patched before Finish().
  std::string& bytes() { return bytes_; }
  // The bytes, the last one padded with zero bits. The buffer is spent after.
  std::string Finish() {
    if (acc_bits_ > 0) bytes_.push_back(static_cast<char>(acc_ << (8 - acc_bits_)));
    acc_ = 0;
    acc_bits_ = 0;
    return std::move(bytes_);
  }

 private:
  std::string bytes_;
  uint64_t acc_ = 0;  // pending bits, right-aligned
  int acc_bits_ = 0;
};

}  // namespace rtb::bidder::telemetry::internal

#endif  // RTB_BIDDER_TELEMETRY_INTERNAL_BIT_BUFFER_H_
