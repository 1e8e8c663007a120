#include "bidder/telemetry/gorilla.h"

#include <bit>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace rtb::bidder::telemetry {
namespace {

uint64_t BitsOf(double v) { return std::bit_cast<uint64_t>(v); }
double DoubleOf(uint64_t bits) { return std::bit_cast<double>(bits); }

// Reads bits most significant first from a byte string it never reads past.
// A read beyond the end returns zeros and sets `overrun`, which the decoder
// checks once per point: cheaper than failing inside every read.
class BitReader {
 public:
  BitReader(const uint8_t* data, size_t size) : data_(data), size_(size), size_bits_(size * 8) {}

  // n in [1, 32].
  uint32_t Read(int n) {
    if (pos_ + static_cast<uint64_t>(n) > size_bits_) {
      overrun_ = true;
      pos_ = size_bits_;
      return 0;
    }
    const size_t byte = pos_ >> 3;
    const int shift = static_cast<int>(pos_ & 7);
    uint64_t word;
    if (byte + 8 <= size_) {
      std::memcpy(&word, data_ + byte, 8);
      if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
    } else {
      word = 0;
      for (size_t i = 0; i < 8; ++i) {
        word <<= 8;
        if (byte + i < size_) word |= data_[byte + i];
      }
    }
    pos_ += static_cast<uint64_t>(n);
    return static_cast<uint32_t>((word << shift) >> (64 - n));
  }
  bool ReadBit() { return Read(1) != 0; }
  // n in [1, 64].
  uint64_t Read64(int n) {
    if (n <= 32) return Read(n);
    const uint64_t high = Read(n - 32);
    return (high << 32) | Read(32);
  }

  bool overrun() const { return overrun_; }
  uint64_t remaining_bits() const { return size_bits_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  uint64_t size_bits_;
  uint64_t pos_ = 0;
  bool overrun_ = false;
};

absl::Status Malformed(std::string_view what) {
  return absl::DataLossError(absl::StrCat("gorilla block: ", absl::string_view(what.data(), what.size())));
}

}  // namespace

GorillaEncoder::GorillaEncoder(int64_t bucket_start) : bucket_start_(bucket_start) {
  bytes_.reserve(64);
  bytes_.push_back(static_cast<char>(kGorillaVersion));
  bytes_.append(2, '\0');  // the count, filled in by Finish()
}

void GorillaEncoder::WriteBits(uint64_t value, int bits) {
  if (bits > 32) {
    WriteBits(value >> 32, bits - 32);
    WriteBits(value & 0xffffffffu, 32);
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

absl::Status GorillaEncoder::Append(int64_t timestamp, double value) {
  const int64_t offset = timestamp - bucket_start_;
  if (offset < 0 || offset >= kGorillaMaxOffset) {
    return absl::InvalidArgumentError(absl::StrCat("gorilla block: timestamp ", timestamp,
                                                   " is outside the block starting at ",
                                                   bucket_start_));
  }
  if (count_ >= kGorillaMaxPoints) {
    return absl::InvalidArgumentError("gorilla block: more than 65535 points");
  }
  const uint64_t bits = BitsOf(value);
  if (count_ == 0) {
    WriteBits(static_cast<uint64_t>(offset), 14);
    WriteBits(bits, 64);
    prev_offset_ = offset;
    prev_delta_ = 0;
    prev_bits_ = bits;
    ++count_;
    return absl::OkStatus();
  }
  if (offset <= prev_offset_) {
    return absl::InvalidArgumentError(absl::StrCat("gorilla block: timestamp ", timestamp,
                                                   " does not follow ", bucket_start_ + prev_offset_));
  }
  const int64_t delta = offset - prev_offset_;
  const int64_t dod = delta - prev_delta_;
  if (dod == 0) {
    WriteBits(0, 1);
  } else if (dod >= -63 && dod <= 64) {
    WriteBits(0b10, 2);
    WriteBits(static_cast<uint64_t>(dod + 63), 7);
  } else if (dod >= -255 && dod <= 256) {
    WriteBits(0b110, 3);
    WriteBits(static_cast<uint64_t>(dod + 255), 9);
  } else if (dod >= -2047 && dod <= 2048) {
    WriteBits(0b1110, 4);
    WriteBits(static_cast<uint64_t>(dod + 2047), 12);
  } else {
    WriteBits(0b1111, 4);
    WriteBits(static_cast<uint64_t>(dod) & 0xffffffffu, 32);
  }
  prev_offset_ = offset;
  prev_delta_ = delta;

  const uint64_t x = bits ^ prev_bits_;
  if (x == 0) {
    WriteBits(0, 1);
  } else {
    int lead = std::countl_zero(x);
    if (lead > 31) lead = 31;
    const int trail = std::countr_zero(x);
    if (lead >= prev_lead_ && trail >= prev_trail_) {
      WriteBits(0b10, 2);
      WriteBits(x >> prev_trail_, 64 - prev_lead_ - prev_trail_);
    } else {
      const int sig = 64 - lead - trail;
      WriteBits(0b11, 2);
      WriteBits(static_cast<uint64_t>(lead), 5);
      WriteBits(static_cast<uint64_t>(sig - 1), 6);
      WriteBits(x >> trail, sig);
      prev_lead_ = lead;
      prev_trail_ = trail;
    }
  }
  prev_bits_ = bits;
  ++count_;
  return absl::OkStatus();
}

std::string GorillaEncoder::Finish() {
  if (count_ == 0) return std::string();
  if (acc_bits_ > 0) {
    bytes_.push_back(static_cast<char>(acc_ << (8 - acc_bits_)));
    acc_ = 0;
    acc_bits_ = 0;
  }
  bytes_[1] = static_cast<char>(count_ >> 8);
  bytes_[2] = static_cast<char>(count_);
  return std::move(bytes_);
}

absl::StatusOr<std::string> EncodeGorillaBlock(int64_t bucket_start, std::span<const Point> points) {
  GorillaEncoder encoder(bucket_start);
  for (const Point& p : points) {
    if (absl::Status s = encoder.Append(p.timestamp, p.value); !s.ok()) return s;
  }
  return encoder.Finish();
}

absl::Status DecodeGorillaBlock(int64_t bucket_start, std::string_view block,
                                std::vector<Point>* out) {
  if (block.empty()) return Malformed("empty");
  const auto* data = reinterpret_cast<const uint8_t*>(block.data());
  if (data[0] != kGorillaVersion) {
    return absl::DataLossError(absl::StrCat("gorilla block: unknown version ", data[0]));
  }
  BitReader in(data + 1, block.size() - 1);
  const uint32_t count = in.Read(16);
  if (in.overrun() || count == 0) return Malformed("no points");
  // Each point after the first takes at least two bits: a count the block
  // cannot hold is rejected before anything is reserved for it.
  if (in.remaining_bits() < 78 + 2 * (static_cast<uint64_t>(count) - 1)) {
    return Malformed("truncated");
  }
  const size_t restore = out->size();
  out->reserve(restore + count);

  int64_t offset = in.Read(14);
  uint64_t bits = in.Read64(64);
  out->push_back(Point{bucket_start + offset, DoubleOf(bits)});
  int64_t delta = 0;
  int lead = 65;
  int trail = 0;
  auto fail = [&](std::string_view what) {
    out->resize(restore);
    return Malformed(what);
  };
  for (uint32_t i = 1; i < count; ++i) {
    int64_t dod;
    if (!in.ReadBit()) {
      dod = 0;
    } else if (!in.ReadBit()) {
      dod = static_cast<int64_t>(in.Read(7)) - 63;
    } else if (!in.ReadBit()) {
      dod = static_cast<int64_t>(in.Read(9)) - 255;
    } else if (!in.ReadBit()) {
      dod = static_cast<int64_t>(in.Read(12)) - 2047;
    } else {
      dod = static_cast<int32_t>(in.Read(32));
    }
    delta += dod;
    offset += delta;
    if (delta <= 0 || offset >= kGorillaMaxOffset) return fail("timestamps not increasing within the block");

    if (in.ReadBit()) {
      if (!in.ReadBit()) {
        if (lead > 64) return fail("value window reused before one was set");
        bits ^= in.Read64(64 - lead - trail) << trail;
      } else {
        lead = static_cast<int>(in.Read(5));
        const int sig = static_cast<int>(in.Read(6)) + 1;
        if (lead + sig > 64) return fail("value window wider than 64 bits");
        trail = 64 - lead - sig;
        bits ^= in.Read64(sig) << trail;
      }
    }
    if (in.overrun()) return fail("truncated");
    out->push_back(Point{bucket_start + offset, DoubleOf(bits)});
  }
  if (in.overrun()) return fail("truncated");
  if (in.remaining_bits() >= 8) return fail("trailing bytes after the last point");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Point>> DecodeGorillaBlock(int64_t bucket_start, std::string_view block) {
  std::vector<Point> points;
  if (absl::Status s = DecodeGorillaBlock(bucket_start, block, &points); !s.ok()) return s;
  return points;
}

}  // namespace rtb::bidder::telemetry
