#include "bidder/sessions/internal/state_codec.h"

#include "nlohmann/json.hpp"

namespace rtb::bidder::sessions::internal {

std::string EncodeState(const SessionState& state) {
  nlohmann::json doc = {
      {"v", 1},
      {"user", state.user},
      {"privileges", state.privileges},
      {"created_ms", state.created_ms},
      {"last_seen_ms", state.last_seen_ms},
      {"attributes", state.attributes},
  };
  return doc.dump();
}

absl::StatusOr<SessionState> DecodeState(std::string_view cell) {
  nlohmann::json doc = nlohmann::json::parse(cell, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || doc.value("v", 0) != 1) {
    return absl::DataLossError("session state cell is not a version 1 state");
  }
  // Exceptions stay here: a malformed field becomes a status.
  try {
    SessionState state;
    state.user = doc.at("user").get<std::string>();
    state.privileges = doc.at("privileges").get<std::set<std::string>>();
    state.created_ms = doc.at("created_ms").get<int64_t>();
    state.last_seen_ms = doc.at("last_seen_ms").get<int64_t>();
    state.attributes = doc.at("attributes").get<std::map<std::string, std::string>>();
    return state;
  } catch (const nlohmann::json::exception& e) {
    return absl::DataLossError(std::string("session state cell: ") + e.what());
  }
}

}  // namespace rtb::bidder::sessions::internal
