// Parsing and checking of HBaseStoreOptions.
#ifndef RTB_STORAGE_HBASE_OPTIONS_H_
#define RTB_STORAGE_HBASE_OPTIONS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace rtb::storage::hbase {

struct HostPort {
  std::string host;  // without IPv6 brackets
  uint16_t port = 0;
};

// "host:port" or "[v6addr]:port".
absl::StatusOr<HostPort> ParseEndpoint(std::string_view endpoint);

}  // namespace rtb::storage::hbase

#endif  // RTB_STORAGE_HBASE_OPTIONS_H_
