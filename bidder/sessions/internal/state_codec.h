// The `state` cell of a session row: the whole SessionState as one JSON
// object, so one Put rewrites every field at once (seeds/sessions.txt: one
// rewritten cell, never one cell per field).
//   {"v":1,"user":"ops","privileges":["read"],"created_ms":..,
//    "last_seen_ms":..,"attributes":{"k":"v"}}
#ifndef RTB_BIDDER_SESSIONS_INTERNAL_STATE_CODEC_H_
#define RTB_BIDDER_SESSIONS_INTERNAL_STATE_CODEC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "bidder/sessions/session_store.h"

namespace rtb::bidder::sessions::internal {

std::string EncodeState(const SessionState& state);
// DataLoss when the cell is not a state this code wrote.
absl::StatusOr<SessionState> DecodeState(std::string_view cell);

}  // namespace rtb::bidder::sessions::internal

#endif  // RTB_BIDDER_SESSIONS_INTERNAL_STATE_CODEC_H_
