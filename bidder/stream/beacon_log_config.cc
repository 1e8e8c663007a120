#include "bidder/stream/beacon_log_config.h"

#include "absl/status/status.h"
#include "beaconlog/embedded_log.h"
#include "beaconlog/kafka_log.h"

namespace rtb::bidder::stream {
namespace {

beaconlog::EmbeddedLogOptions EmbeddedOptionsOf(const config::BidderConfig& config) {
  const config::EmbeddedBeaconLogConfig& embedded = config.beacon_log.embedded;
  beaconlog::EmbeddedLogOptions options;
  options.path = EmbeddedLogPath(config);
  options.segment_bytes = embedded.segment_mib << 20;
  options.max_bytes = embedded.max_mib << 20;
  options.sync = embedded.sync == config::BeaconLogSync::kNone ? beaconlog::SyncPolicy::kNone
                                                               : beaconlog::SyncPolicy::kEveryBatch;
  options.group_wait_us = embedded.group_wait_us;
  return options;
}

beaconlog::KafkaLogOptions KafkaOptionsOf(const config::BidderConfig& config,
                                          std::string_view client) {
  const config::KafkaBeaconLogConfig& kafka = config.beacon_log.kafka;
  beaconlog::KafkaLogOptions options;
  options.brokers = kafka.brokers;
  options.topic = kafka.topic;
  options.group_id = kafka.group_id;
  options.client_id = std::string(client);
  options.partitions = kafka.partitions;
  options.replication_factor = kafka.replication_factor;
  options.delivery_timeout_ms = kafka.delivery_timeout_ms;
  return options;
}

bool OnKafka(const config::BidderConfig& config) {
  return config.beacon_log.backend == config::BeaconLogBackend::kKafka;
}

}  // namespace

std::string EmbeddedLogPath(const config::BidderConfig& config) {
  const std::string& path = config.beacon_log.embedded.path;
  if (!path.empty()) return path;
  std::string store = config.storage.embedded.path;
  while (store.size() > 1 && store.back() == '/') store.pop_back();
  return store + "-beacon-log";
}

absl::StatusOr<std::unique_ptr<beaconlog::LogWriter>> OpenBeaconLogWriter(
    const config::BidderConfig& config) {
  return OnKafka(config) ? beaconlog::OpenKafkaLogWriter(KafkaOptionsOf(config, "rtb-bidder"))
                         : beaconlog::OpenEmbeddedLogWriter(EmbeddedOptionsOf(config));
}

absl::StatusOr<std::unique_ptr<beaconlog::LogReader>> OpenBeaconLogReader(
    const config::BidderConfig& config) {
  return OnKafka(config) ? beaconlog::OpenKafkaLogReader(KafkaOptionsOf(config, "rtb-stream"))
                         : beaconlog::OpenEmbeddedLogReader(EmbeddedOptionsOf(config));
}

StreamWorkerOptions StreamWorkerOptionsOf(const config::BidderConfig& config) {
  StreamWorkerOptions options;
  options.batch_records = static_cast<size_t>(config.beacon_log.stream.batch_records);
  options.apply_threads = config.beacon_log.stream.apply_threads;
  options.nice = config.beacon_log.stream.nice;
  options.retry_max_ms = config.beacon_log.stream.retry_max_ms;
  options.retry_min_ms = std::min(options.retry_min_ms, options.retry_max_ms);
  return options;
}

}  // namespace rtb::bidder::stream
