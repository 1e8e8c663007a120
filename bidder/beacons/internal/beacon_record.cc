#include "bidder/beacons/internal/beacon_record.h"

#include "absl/status/status.h"
#include "storage/key_bytes.h"

namespace rtb::bidder::beacons {
namespace {

constexpr std::string_view kVersion = "b1";
constexpr size_t kHeaderBytes = 2 + 1 + 8;

}  // namespace

std::string EncodeBeaconRecord(Endpoint endpoint, int64_t received_ms, std::string_view query) {
  std::string out;
  out.reserve(kHeaderBytes + query.size());
  out.append(kVersion);
  out.push_back(static_cast<char>(endpoint));
  storage::AppendBigEndian64(static_cast<uint64_t>(received_ms), &out);
  out.append(query);
  return out;
}

absl::StatusOr<BeaconRecord> DecodeBeaconRecord(std::string_view payload) {
  if (payload.size() < kHeaderBytes || payload.substr(0, 2) != kVersion ||
      static_cast<unsigned char>(payload[2]) >= static_cast<unsigned char>(Endpoint::kCount)) {
    return absl::InvalidArgumentError("not a beacon record of version b1");
  }
  BeaconRecord record;
  record.endpoint = static_cast<Endpoint>(payload[2]);
  record.received_ms = static_cast<int64_t>(storage::ReadBigEndian64(payload.substr(3, 8)));
  record.query = std::string(payload.substr(kHeaderBytes));
  return record;
}

}  // namespace rtb::bidder::beacons
