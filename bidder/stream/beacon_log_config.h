// The beacon log and the stream worker as the configuration's `beacon_log`
// section describes them (config/operations_config.h), for the bidder and
// for rtb-stream alike.
#ifndef RTB_BIDDER_STREAM_BEACON_LOG_CONFIG_H_
#define RTB_BIDDER_STREAM_BEACON_LOG_CONFIG_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "beaconlog/beacon_log.h"
#include "bidder/stream/stream_worker.h"
#include "config/config.h"

namespace rtb::bidder::stream {

// The embedded log's directory: beacon_log.embedded.path, else the embedded
// store's path with "-beacon-log" appended.
std::string EmbeddedLogPath(const config::BidderConfig& config);

// Errors name the log (its directory or brokers) and what failed; the
// callers say which side they opened.
absl::StatusOr<std::unique_ptr<beaconlog::LogWriter>> OpenBeaconLogWriter(
    const config::BidderConfig& config);
absl::StatusOr<std::unique_ptr<beaconlog::LogReader>> OpenBeaconLogReader(
    const config::BidderConfig& config);

StreamWorkerOptions StreamWorkerOptionsOf(const config::BidderConfig& config);

}  // namespace rtb::bidder::stream

#endif  // RTB_BIDDER_STREAM_BEACON_LOG_CONFIG_H_
