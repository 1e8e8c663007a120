// The decoder's fuzz entry point: tests/fuzz builds it into the libFuzzer
// target gorilla_fuzzer (Fuzz build type) and replays its corpus, and
// gorilla_fuzz_test.cc calls it on every compiler.
//
// Input: 8 bytes of bucket start, then the block. Whatever the bytes, the
// decoder returns points or an error without reading outside the input
// (ASan checks that); points it returns must survive encode -> decode
// bit for bit.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "bidder/telemetry/gorilla.h"

namespace rtb::bidder::telemetry {

int FuzzGorillaBlock(const uint8_t* data, size_t size) {
  int64_t bucket_start = 0;
  if (size >= 8) {
    std::memcpy(&bucket_start, data, 8);
    // Keeps bucket_start + offset free of overflow.
    bucket_start >>= 2;
    data += 8;
    size -= 8;
  }
  // A heap copy of exactly `size` bytes, so ASan sees a read one past it.
  auto* copy = static_cast<uint8_t*>(std::malloc(size == 0 ? 1 : size));
  if (size > 0) std::memcpy(copy, data, size);
  std::string_view block(reinterpret_cast<const char*>(copy), size);
  auto points = DecodeGorillaBlock(bucket_start, block);
  if (points.ok()) {
    auto again = EncodeGorillaBlock(bucket_start, *points);
    if (!again.ok()) std::abort();
    auto decoded = DecodeGorillaBlock(bucket_start, *again);
    if (!decoded.ok() || decoded->size() != points->size()) std::abort();
    for (size_t i = 0; i < points->size(); ++i) {
      if ((*decoded)[i].timestamp != (*points)[i].timestamp ||
          std::bit_cast<uint64_t>((*decoded)[i].value) !=
              std::bit_cast<uint64_t>((*points)[i].value)) {
        std::abort();
      }
    }
  }
  std::free(copy);
  return 0;
}

}  // namespace rtb::bidder::telemetry
