// A beacon as the log keeps it: the endpoint, when it was received and its
// query (verified again when it is applied, so a record carries no trust of
// its own).
//
//   "b1" | endpoint (1 byte) | received ms (8 bytes, big-endian) | query
#ifndef RTB_BIDDER_BEACONS_INTERNAL_BEACON_RECORD_H_
#define RTB_BIDDER_BEACONS_INTERNAL_BEACON_RECORD_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "bidder/beacons/internal/beacon_context.h"

namespace rtb::bidder::beacons {

struct BeaconRecord {
  Endpoint endpoint = Endpoint::kWin;
  int64_t received_ms = 0;
  std::string query;
};

std::string EncodeBeaconRecord(Endpoint endpoint, int64_t received_ms, std::string_view query);
// InvalidArgument for a payload that is not a beacon record of this version.
absl::StatusOr<BeaconRecord> DecodeBeaconRecord(std::string_view payload);

}  // namespace rtb::bidder::beacons

#endif  // RTB_BIDDER_BEACONS_INTERNAL_BEACON_RECORD_H_
