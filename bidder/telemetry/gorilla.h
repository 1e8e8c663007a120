// Gorilla-style packed blocks (Pelkonen et al., VLDB 2015): the points of one
// closed bucket of one series, as a single cell of family `p` of `metrics`.
//
// Layout of a block (bits are written most significant first):
//
//   byte 0        version (kGorillaVersion = 1)
//   16 bits       number of points n (1 .. 65535)
//   14 bits       offset of the first point from the bucket start, seconds
//   64 bits       first value, IEEE-754 bits
//   then for each further point:
//     timestamp, as delta-of-delta `dod` of the offsets:
//       '0'                          dod == 0
//       '10'   + 7 bits (dod + 63)   -63 .. 64
//       '110'  + 9 bits (dod + 255)  -255 .. 256
//       '1110' + 12 bits (dod+2047)  -2047 .. 2048
//       '1111' + 32 bits (dod, two's complement)
//     value, as XOR with the previous value's bits:
//       '0'                          unchanged
//       '10'   + meaningful bits     fits the previous leading/trailing window
//       '11'   + 5 bits leading zeros (capped at 31) + 6 bits (length - 1)
//              + length meaningful bits
//   zero bits up to the next byte.
//
// Offsets are seconds from the bucket start, strictly increasing and below
// kGorillaMaxOffset (so one block can hold buckets of up to 4.5 hours).
// Values are compared bitwise: NaN payloads, -0.0 and infinities round-trip
// exactly.
//
// The decoder treats the block as untrusted: any input, truncated or random,
// yields either points or a DataLoss status, never a read outside the block.
//
// Thread-safety: the functions are pure; a GorillaEncoder is a value owned by
// one thread.
#ifndef RTB_BIDDER_TELEMETRY_GORILLA_H_
#define RTB_BIDDER_TELEMETRY_GORILLA_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rtb::bidder::telemetry {

inline constexpr uint8_t kGorillaVersion = 1;
// Offsets are written in 14 bits.
inline constexpr int64_t kGorillaMaxOffset = 1 << 14;
inline constexpr size_t kGorillaMaxPoints = 65535;

// One point of a series: event time in seconds since the Unix epoch.
struct Point {
  int64_t timestamp = 0;
  double value = 0;
};

// Builds one block point by point. Append() requires increasing timestamps
// within [bucket_start, bucket_start + kGorillaMaxOffset).
class GorillaEncoder {
 public:
  explicit GorillaEncoder(int64_t bucket_start);

  absl::Status Append(int64_t timestamp, double value);
  size_t size() const { return count_; }
  // The block; empty when no point was appended. The encoder is spent after.
  std::string Finish();

 private:
  void WriteBits(uint64_t value, int bits);

  int64_t bucket_start_;
  size_t count_ = 0;
  std::string bytes_;     // version byte, placeholder count, full bytes
  uint64_t acc_ = 0;      // pending bits, right-aligned
  int acc_bits_ = 0;
  int64_t prev_offset_ = 0;
  int64_t prev_delta_ = 0;
  uint64_t prev_bits_ = 0;
  int prev_lead_ = 65;  // no reusable window yet
  int prev_trail_ = 0;
};

// The block of `points` (sorted by strictly increasing timestamp), or
// InvalidArgument naming the first point that does not fit.
absl::StatusOr<std::string> EncodeGorillaBlock(int64_t bucket_start,
                                               std::span<const Point> points);

// Appends the points of `block` to `out`. DataLoss on a malformed block, in
// which case `out` keeps what it held before.
absl::Status DecodeGorillaBlock(int64_t bucket_start, std::string_view block,
                                std::vector<Point>* out);

// Convenience form of the above.
absl::StatusOr<std::vector<Point>> DecodeGorillaBlock(int64_t bucket_start,
                                                      std::string_view block);

}  // namespace rtb::bidder::telemetry

#endif  // RTB_BIDDER_TELEMETRY_GORILLA_H_
