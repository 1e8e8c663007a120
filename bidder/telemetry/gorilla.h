// Gorilla-style packed blocks (Pelkonen et al., VLDB 2015): the points of one
// closed bucket of one series, as a single cell of family `p` of `metrics`.
// Two formats, told apart by the first byte; EncodeGorillaBlock writes the
// smaller one for the points it gets, and the decoder reads both.
//
// Version 1, XOR values (the paper's), bits most significant first:
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
// Version 2, scaled-integer values: for blocks whose every value is k / 10^d
// exactly (bit for bit) for integers |k| <= 2^53 and one d in 0 .. 6, e.g.
// counters, kB gauges, load averages with two decimals. XORs of such doubles
// have few zero bits to share; differences of the k are small.
//
//   byte 0        version (kGorillaScaledVersion = 2)
//   16 bits       n, 14 bits first offset (as version 1)
//   3 bits        decimals d
//   1 bit         order: 0 codes the delta of k, 1 its delta-of-delta
//   64 bits       first k, two's complement
//   then for each further point: the timestamp as in version 1, then the
//   delta (or delta-of-delta) x of k:
//       '0'                              x == 0
//       '10'     + 4 bits (x + 7)        -7 .. 8
//       '110'    + 7 bits (x + 63)       -63 .. 64
//       '1110'   + 11 bits (x + 1023)    -1023 .. 1024
//       '11110'  + 17 bits (x + 65535)   -65535 .. 65536
//       '111110' + 24 bits (x + 2^23-1)  -(2^23-1) .. 2^23
//       '111111' + 64 bits (x, two's complement)
//   zero bits up to the next byte. A value decodes as (double)k / 10^d.
//
// Offsets are seconds from the bucket start, strictly increasing and below
// kGorillaMaxOffset (so one block can hold buckets of up to 4.5 hours).
// Values are compared bitwise: NaN payloads, -0.0 and infinities round-trip
// exactly (they keep a block in version 1).
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
#include "bidder/telemetry/internal/bit_buffer.h"

namespace rtb::bidder::telemetry {

inline constexpr uint8_t kGorillaVersion = 1;        // XOR values
inline constexpr uint8_t kGorillaScaledVersion = 2;  // scaled-integer values
inline constexpr int kGorillaMaxDecimals = 6;
// Offsets are written in 14 bits.
inline constexpr int64_t kGorillaMaxOffset = 1 << 14;
inline constexpr size_t kGorillaMaxPoints = 65535;

// One point of a series: event time in seconds since the Unix epoch.
struct Point {
  int64_t timestamp = 0;
  double value = 0;
};

// Builds one version-1 (XOR) block point by point. Append() requires
// increasing timestamps within [bucket_start, bucket_start + kGorillaMaxOffset).
class GorillaEncoder {
 public:
  explicit GorillaEncoder(int64_t bucket_start);

  absl::Status Append(int64_t timestamp, double value);
  size_t size() const { return count_; }
  // The block; empty when no point was appended. The encoder is spent after.
  std::string Finish();

 private:
  int64_t bucket_start_;
  size_t count_ = 0;
  internal::BitBuffer out_;  // version byte, placeholder count, then the points
  int64_t prev_offset_ = 0;
  int64_t prev_delta_ = 0;
  uint64_t prev_bits_ = 0;
  int prev_lead_ = 65;  // no reusable window yet
  int prev_trail_ = 0;
};

enum class GorillaFormat {
  kSmallest,  // version 2 when the values allow it and it is smaller, else 1
  kXorOnly,   // version 1 always (the paper's encoding, for comparisons)
};

// The block of `points` (sorted by strictly increasing timestamp), or
// InvalidArgument naming the first point that does not fit. The same points
// always give the same bytes.
absl::StatusOr<std::string> EncodeGorillaBlock(int64_t bucket_start, std::span<const Point> points,
                                               GorillaFormat format = GorillaFormat::kSmallest);

// Appends the points of `block` to `out`. DataLoss on a malformed block, in
// which case `out` keeps what it held before.
absl::Status DecodeGorillaBlock(int64_t bucket_start, std::string_view block,
                                std::vector<Point>* out);

// Convenience form of the above.
absl::StatusOr<std::vector<Point>> DecodeGorillaBlock(int64_t bucket_start, std::string_view block);

}  // namespace rtb::bidder::telemetry

#endif  // RTB_BIDDER_TELEMETRY_GORILLA_H_
