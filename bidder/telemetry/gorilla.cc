#include "bidder/telemetry/gorilla.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "storage/key_bytes.h"

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
    const uint64_t word = Window();
    pos_ += static_cast<uint64_t>(n);
    return static_cast<uint32_t>(word >> (64 - n));
  }
  bool ReadBit() { return Read(1) != 0; }
  // How many of the next `max` bits (max in [1, 8]) are ones before the first
  // zero, consuming those ones and that zero (max ones consume just those).
  // Past the end reads as zeros, and consuming past it sets overrun.
  int ReadOnes(int max) {
    const int ones = std::min(std::countl_one(Window()), max);
    const uint64_t consumed = static_cast<uint64_t>(ones == max ? max : ones + 1);
    if (pos_ + consumed > size_bits_) {
      overrun_ = true;
      pos_ = size_bits_;
      return 0;
    }
    pos_ += consumed;
    return ones;
  }
  // n in [1, 64].
  uint64_t Read64(int n) {
    if (n <= 32) return Read(n);
    const uint64_t high = Read(n - 32);
    return (high << 32) | Read(32);
  }

  bool overrun() const { return overrun_; }
  uint64_t remaining_bits() const { return size_bits_ - pos_; }

 private:
  // The next 57 or more bits from pos_, most significant first, zeros past
  // the end.
  uint64_t Window() const {
    const size_t byte = pos_ >> 3;
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
    return word << (pos_ & 7);
  }

  const uint8_t* data_;
  size_t size_;
  uint64_t size_bits_;
  uint64_t pos_ = 0;
  bool overrun_ = false;
};

absl::Status Malformed(std::string_view what) {
  return absl::DataLossError(
      absl::StrCat("gorilla block: ", absl::string_view(what.data(), what.size())));
}

void WriteTimestampDod(internal::BitBuffer& out, int64_t dod) {
  if (dod == 0) {
    out.Write(0, 1);
  } else if (dod >= -63 && dod <= 64) {
    out.Write(0b10, 2);
    out.Write(static_cast<uint64_t>(dod + 63), 7);
  } else if (dod >= -255 && dod <= 256) {
    out.Write(0b110, 3);
    out.Write(static_cast<uint64_t>(dod + 255), 9);
  } else if (dod >= -2047 && dod <= 2048) {
    out.Write(0b1110, 4);
    out.Write(static_cast<uint64_t>(dod + 2047), 12);
  } else {
    out.Write(0b1111, 4);
    out.Write(static_cast<uint64_t>(dod) & 0xffffffffu, 32);
  }
}

int64_t ReadTimestampDod(BitReader& in) {
  switch (in.ReadOnes(4)) {
    case 0:
      return 0;
    case 1:
      return static_cast<int64_t>(in.Read(7)) - 63;
    case 2:
      return static_cast<int64_t>(in.Read(9)) - 255;
    case 3:
      return static_cast<int64_t>(in.Read(12)) - 2047;
    default:
      return static_cast<int32_t>(in.Read(32));
  }
}

// --- Version 2: scaled-integer values.

constexpr double kPowersOfTen[kGorillaMaxDecimals + 1] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
constexpr int64_t kMaxScaled = int64_t{1} << 53;  // every |k| up to it is an exact double

// The value codes after '0': prefix, its length, payload bits and bias; the
// payload is x + bias, so x spans [-bias, 2^bits - 1 - bias].
struct ScaledCode {
  uint64_t prefix;
  int prefix_bits;
  int bits;
  int64_t bias;
};
constexpr ScaledCode kScaledCodes[] = {{0b10, 2, 4, 7},
                                       {0b110, 3, 7, 63},
                                       {0b1110, 4, 11, 1023},
                                       {0b11110, 5, 17, 65535},
                                       {0b111110, 6, 24, (1 << 23) - 1}};
constexpr uint64_t kScaledEscape = 0b111111;  // 6 bits, then 64 bits of x

int ScaledCodeBits(int64_t x) {
  if (x == 0) return 1;
  for (const ScaledCode& c : kScaledCodes) {
    if (x >= -c.bias && x <= (int64_t{1} << c.bits) - 1 - c.bias) return c.prefix_bits + c.bits;
  }
  return 6 + 64;
}

void WriteScaledCode(internal::BitBuffer& out, int64_t x) {
  if (x == 0) {
    out.Write(0, 1);
    return;
  }
  for (const ScaledCode& c : kScaledCodes) {
    if (x >= -c.bias && x <= (int64_t{1} << c.bits) - 1 - c.bias) {
      out.Write(c.prefix, c.prefix_bits);
      out.Write(static_cast<uint64_t>(x + c.bias), c.bits);
      return;
    }
  }
  out.Write(kScaledEscape, 6);
  out.Write(static_cast<uint64_t>(x), 64);
}

// x as unsigned: the decoder adds with wrap-around, then checks the range.
uint64_t ReadScaledCode(BitReader& in) {
  // Code i is i + 1 one bits and a zero; six ones are the escape.
  const int ones = in.ReadOnes(6);
  if (ones == 0) return 0;
  if (ones == 6) return in.Read64(64);
  const ScaledCode& c = kScaledCodes[ones - 1];
  return static_cast<uint64_t>(static_cast<int64_t>(in.Read(c.bits)) - c.bias);
}

// The fewest decimals d with every value == k / 10^d bit for bit (|k| <=
// 2^53), filling `scaled` with the k; nullopt when no d fits.
std::optional<int> ScaledDecimals(std::span<const Point> points, std::vector<int64_t>* scaled) {
  for (int d = 0; d <= kGorillaMaxDecimals; ++d) {
    scaled->clear();
    bool fits = true;
    for (const Point& p : points) {
      const double s = p.value * kPowersOfTen[d];
      if (!(std::fabs(s) <= static_cast<double>(kMaxScaled))) {  // also NaN
        fits = false;
        break;
      }
      const int64_t k = std::llround(s);
      if (BitsOf(static_cast<double>(k) / kPowersOfTen[d]) != BitsOf(p.value)) {
        fits = false;
        break;
      }
      scaled->push_back(k);
    }
    if (fits) return d;
  }
  return std::nullopt;
}

// The version-2 block of `points`, already checked by the XOR encoder and
// ScaledDecimals; the order (delta or delta-of-delta) that codes smaller.
std::string EncodeScaledBlock(int64_t bucket_start, std::span<const Point> points, int decimals,
                              const std::vector<int64_t>& scaled) {
  int64_t delta_bits = 0, dod_bits = 0;
  for (size_t i = 1; i < scaled.size(); ++i) {
    const int64_t delta = scaled[i] - scaled[i - 1];
    const int64_t before = i >= 2 ? scaled[i - 1] - scaled[i - 2] : 0;
    delta_bits += ScaledCodeBits(delta);
    dod_bits += ScaledCodeBits(delta - before);
  }
  const bool by_dod = dod_bits < delta_bits;
  internal::BitBuffer out;
  out.Write(kGorillaScaledVersion, 8);
  out.Write(points.size(), 16);
  int64_t prev_offset = points[0].timestamp - bucket_start;
  out.Write(static_cast<uint64_t>(prev_offset), 14);
  out.Write(static_cast<uint64_t>(decimals), 3);
  out.Write(by_dod ? 1 : 0, 1);
  out.Write(static_cast<uint64_t>(scaled[0]), 64);
  int64_t prev_delta = 0, prev_value_delta = 0;
  for (size_t i = 1; i < points.size(); ++i) {
    const int64_t offset = points[i].timestamp - bucket_start;
    WriteTimestampDod(out, (offset - prev_offset) - prev_delta);
    prev_delta = offset - prev_offset;
    prev_offset = offset;
    const int64_t value_delta = scaled[i] - scaled[i - 1];
    WriteScaledCode(out, by_dod ? value_delta - prev_value_delta : value_delta);
    prev_value_delta = value_delta;
  }
  return out.Finish();
}

absl::Status DecodeScaledBlock(int64_t bucket_start, std::string_view block,
                               std::vector<Point>* out) {
  const auto* data = reinterpret_cast<const uint8_t*>(block.data());
  BitReader in(data + 1, block.size() - 1);
  const uint32_t count = in.Read(16);
  if (in.overrun() || count == 0) return Malformed("no points");
  // Each point after the first takes at least two bits.
  if (in.remaining_bits() < 82 + 2 * (static_cast<uint64_t>(count) - 1))
    return Malformed("truncated");
  int64_t offset = in.Read(14);
  const uint32_t decimals = in.Read(3);
  const bool by_dod = in.ReadBit();
  uint64_t k = in.Read64(64);
  if (decimals > kGorillaMaxDecimals) return Malformed("more than 6 decimals");
  const double scale = kPowersOfTen[decimals];
  const size_t restore = out->size();
  auto fail = [&](std::string_view what) {
    out->resize(restore);
    return Malformed(what);
  };
  auto in_range = [](uint64_t bits) {
    const auto signed_k = static_cast<int64_t>(bits);
    return signed_k >= -kMaxScaled && signed_k <= kMaxScaled;
  };
  // Integers need no division (most blocks: counters, kB gauges).
  auto value_of = [&](uint64_t bits) {
    const auto signed_k = static_cast<double>(static_cast<int64_t>(bits));
    return decimals == 0 ? signed_k : signed_k / scale;
  };
  if (!in_range(k)) return fail("scaled value out of range");
  out->reserve(restore + count);
  out->push_back(Point{bucket_start + offset, value_of(k)});
  int64_t delta = 0;
  uint64_t value_delta = 0;
  for (uint32_t i = 1; i < count; ++i) {
    delta += ReadTimestampDod(in);
    offset += delta;
    if (delta <= 0 || offset >= kGorillaMaxOffset)
      return fail("timestamps not increasing within the block");
    const uint64_t x = ReadScaledCode(in);
    value_delta = by_dod ? value_delta + x : x;
    k += value_delta;
    if (in.overrun()) return fail("truncated");
    if (!in_range(k)) return fail("scaled value out of range");
    out->push_back(Point{bucket_start + offset, value_of(k)});
  }
  if (in.remaining_bits() >= 8) return fail("trailing bytes after the last point");
  return absl::OkStatus();
}

}  // namespace

GorillaEncoder::GorillaEncoder(int64_t bucket_start) : bucket_start_(bucket_start) {
  out_.bytes().reserve(64);
  out_.Write(kGorillaVersion, 8);
  out_.Write(0, 16);  // the count, filled in by Finish()
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
    out_.Write(static_cast<uint64_t>(offset), 14);
    out_.Write(bits, 64);
    prev_offset_ = offset;
    prev_delta_ = 0;
    prev_bits_ = bits;
    ++count_;
    return absl::OkStatus();
  }
  if (offset <= prev_offset_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gorilla block: timestamp ", timestamp, " does not follow ", bucket_start_ + prev_offset_));
  }
  const int64_t delta = offset - prev_offset_;
  WriteTimestampDod(out_, delta - prev_delta_);
  prev_offset_ = offset;
  prev_delta_ = delta;

  const uint64_t x = bits ^ prev_bits_;
  if (x == 0) {
    out_.Write(0, 1);
  } else {
    int lead = std::countl_zero(x);
    if (lead > 31) lead = 31;
    const int trail = std::countr_zero(x);
    if (lead >= prev_lead_ && trail >= prev_trail_) {
      out_.Write(0b10, 2);
      out_.Write(x >> prev_trail_, 64 - prev_lead_ - prev_trail_);
    } else {
      const int sig = 64 - lead - trail;
      out_.Write(0b11, 2);
      out_.Write(static_cast<uint64_t>(lead), 5);
      out_.Write(static_cast<uint64_t>(sig - 1), 6);
      out_.Write(x >> trail, sig);
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
  std::string bytes = out_.Finish();
  storage::StoreBigEndian(count_, 2, bytes.data() + 1);  // after the version byte
  return bytes;
}

absl::StatusOr<std::string> EncodeGorillaBlock(int64_t bucket_start, std::span<const Point> points,
                                               GorillaFormat format) {
  GorillaEncoder encoder(bucket_start);
  for (const Point& p : points) {
    if (absl::Status s = encoder.Append(p.timestamp, p.value); !s.ok()) return s;
  }
  std::string xor_block = encoder.Finish();
  if (format == GorillaFormat::kXorOnly || points.empty()) return xor_block;
  std::vector<int64_t> scaled;
  const std::optional<int> decimals = ScaledDecimals(points, &scaled);
  if (!decimals) return xor_block;
  std::string scaled_block = EncodeScaledBlock(bucket_start, points, *decimals, scaled);
  return scaled_block.size() < xor_block.size() ? scaled_block : xor_block;
}

absl::Status DecodeGorillaBlock(int64_t bucket_start, std::string_view block,
                                std::vector<Point>* out) {
  if (block.empty()) return Malformed("empty");
  const auto* data = reinterpret_cast<const uint8_t*>(block.data());
  if (data[0] == kGorillaScaledVersion) return DecodeScaledBlock(bucket_start, block, out);
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
    delta += ReadTimestampDod(in);
    offset += delta;
    if (delta <= 0 || offset >= kGorillaMaxOffset)
      return fail("timestamps not increasing within the block");

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

absl::StatusOr<std::vector<Point>> DecodeGorillaBlock(int64_t bucket_start,
                                                      std::string_view block) {
  std::vector<Point> points;
  if (absl::Status s = DecodeGorillaBlock(bucket_start, block, &points); !s.ok()) return s;
  return points;
}

}  // namespace rtb::bidder::telemetry
