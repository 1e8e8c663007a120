// The console's files, compiled into the binary from bidder/sessions/console/
// (embed_console.cmake), sorted by name.
#ifndef RTB_BIDDER_SESSIONS_INTERNAL_CONSOLE_ASSETS_H_
#define RTB_BIDDER_SESSIONS_INTERNAL_CONSOLE_ASSETS_H_

#include <span>
#include <string_view>

namespace rtb::bidder::sessions::internal {

struct ConsoleAsset {
  std::string_view name;
  std::string_view content;
};

std::span<const ConsoleAsset> ConsoleAssets();

}  // namespace rtb::bidder::sessions::internal

#endif  // RTB_BIDDER_SESSIONS_INTERNAL_CONSOLE_ASSETS_H_
