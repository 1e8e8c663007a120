#include "storage/hbase/options.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "storage/hbase/absl_compat.h"
#include "storage/hbase_store.h"

namespace rtb::storage {
namespace hbase {

absl::StatusOr<HostPort> ParseEndpoint(std::string_view endpoint) {
  HostPort out;
  std::string_view port;
  if (!endpoint.empty() && endpoint.front() == '[') {
    size_t close = endpoint.find(']');
    if (close == std::string_view::npos || close + 1 >= endpoint.size() ||
        endpoint[close + 1] != ':') {
      return absl::InvalidArgumentError(
          absl::StrCat("'", AsAbsl(endpoint), "' is not [address]:port"));
    }
    out.host = std::string(endpoint.substr(1, close - 1));
    port = endpoint.substr(close + 2);
  } else {
    size_t colon = endpoint.rfind(':');
    if (colon == std::string_view::npos || endpoint.find(':') != colon) {
      return absl::InvalidArgumentError(absl::StrCat("'", AsAbsl(endpoint), "' is not host:port"));
    }
    out.host = std::string(endpoint.substr(0, colon));
    port = endpoint.substr(colon + 1);
  }
  if (out.host.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("'", AsAbsl(endpoint), "' has no host"));
  }
  uint32_t number = 0;
  if (port.empty() || !absl::SimpleAtoi(AsAbsl(port), &number) || number == 0 || number > 65535 ||
      port.find_first_not_of("0123456789") != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", AsAbsl(endpoint), "' has no valid port (1-65535)"));
  }
  out.port = static_cast<uint16_t>(number);
  return out;
}

}  // namespace hbase

namespace {

absl::Status Bad(std::string_view field, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("HBaseStoreOptions.", hbase::AsAbsl(field), ": ", hbase::AsAbsl(why)));
}

}  // namespace

absl::Status ValidateHBaseStoreOptions(const HBaseStoreOptions& options) {
  if (options.endpoints.empty()) return Bad("endpoints", "at least one gateway is required");
  for (size_t i = 0; i < options.endpoints.size(); ++i) {
    absl::StatusOr<hbase::HostPort> parsed = hbase::ParseEndpoint(options.endpoints[i]);
    if (!parsed.ok()) {
      return Bad(absl::StrCat("endpoints[", i, "]"), hbase::AsStd(parsed.status().message()));
    }
  }
  if (options.transport != ThriftTransport::kBuffered &&
      options.transport != ThriftTransport::kFramed) {
    return Bad("transport", "must be kBuffered or kFramed");
  }
  if (options.connect_timeout_ms <= 0) return Bad("connect_timeout_ms", "must be > 0");
  if (options.call_timeout_ms <= 0) return Bad("call_timeout_ms", "must be > 0");
  if (options.admin_timeout_ms <= 0) return Bad("admin_timeout_ms", "must be > 0");
  if (options.pool_size_per_endpoint < 1 || options.pool_size_per_endpoint > 1024) {
    return Bad("pool_size_per_endpoint", "must be in [1, 1024]");
  }
  if (options.hedge_delay_ms < 0) return Bad("hedge_delay_ms", "must be >= 0 (0 = no hedging)");
  if (options.io_threads < 1 || options.io_threads > 64) {
    return Bad("io_threads", "must be in [1, 64]");
  }
  // The upper bound is the Thrift library's own limit on a message it reads.
  if (options.max_message_bytes < 4096 || options.max_message_bytes > (int64_t{100} << 20)) {
    return Bad("max_message_bytes", "must be in [4096, 100 MiB]");
  }
  switch (options.default_durability) {
    case Durability::kUseDefault:
    case Durability::kSkipWal:
    case Durability::kAsyncWal:
    case Durability::kSyncWal:
    case Durability::kFsyncWal:
      break;
    default:
      return Bad("default_durability", "is not a Durability value");
  }
  return absl::OkStatus();
}

}  // namespace rtb::storage
