#include "bidder/events/impressions.h"

#include <limits>

#include "bidder/events/events.h"
#include "storage/key_bytes.h"

namespace rtb::bidder::events {
namespace {

constexpr size_t kImpressionIdOffset = kUserKeyBytes + 8;

}  // namespace

std::string DeviceImpressionRow(std::string_view device_key, int64_t time_ms,
                                std::string_view impression_id) {
  std::string row(device_key);
  storage::AppendBigEndian64(static_cast<uint64_t>(std::numeric_limits<int64_t>::max() - time_ms),
                             &row);
  row.append(impression_id);
  return row;
}

std::optional<std::string_view> ImpressionIdOfDeviceImpressionRow(std::string_view row) {
  if (row.size() <= kImpressionIdOffset) return std::nullopt;
  return row.substr(kImpressionIdOffset);
}

}  // namespace rtb::bidder::events
