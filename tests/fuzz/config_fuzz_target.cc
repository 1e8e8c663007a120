// A configuration document into ParseConfig (config/config.h): whatever the
// bytes, a configuration or InvalidArgument naming what is wrong; a
// configuration it accepts passes ValidateConfig again.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "absl/status/status.h"
#include "config/config.h"
#include "tests/fuzz/fuzz_targets.h"

namespace rtb::fuzz {

int FuzzConfig(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<config::BidderConfig> parsed = config::ParseConfig(json);
  if (!parsed.ok()) {
    if (!absl::IsInvalidArgument(parsed.status()) || parsed.status().message().empty()) {
      std::fprintf(stderr, "config fuzz target: refusal without InvalidArgument and a reason\n");
      std::abort();
    }
    return 0;
  }
  if (!config::ValidateConfig(*parsed).ok()) {
    std::fprintf(stderr, "config fuzz target: an accepted config fails validation\n");
    std::abort();
  }
  return 0;
}

}  // namespace rtb::fuzz
