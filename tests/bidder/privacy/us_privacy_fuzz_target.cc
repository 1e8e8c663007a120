// The US Privacy string decoder's fuzz entry point: tests/fuzz builds it
// into the libFuzzer target us_privacy_fuzzer (Fuzz build type) and replays
// its corpus, and privacy_fuzz_test.cc calls FuzzUsPrivacy on every
// compiler.
//
// Whatever the bytes, a value or an error; a value comes only from four
// characters starting with '1'.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "bidder/privacy/us_privacy.h"

namespace rtb::bidder::privacy {

int FuzzUsPrivacy(const uint8_t* data, size_t size) {
  auto* copy = static_cast<char*>(std::malloc(size == 0 ? 1 : size));
  if (size > 0) std::memcpy(copy, data, size);
  const std::string_view text(copy, size);
  absl::StatusOr<UsPrivacy> usp = DecodeUsPrivacy(text);
  if (usp.ok() && (text.size() != 4 || text[0] != '1' || usp->version != 1)) std::abort();
  std::free(copy);
  return 0;
}

}  // namespace rtb::bidder::privacy
