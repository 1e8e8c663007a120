// What the Kafka log's writer and reader share: checking the options,
// building a librdkafka client, and creating the topic when it is missing.
#ifndef RTB_BEACONLOG_INTERNAL_KAFKA_CLIENT_H_
#define RTB_BEACONLOG_INTERNAL_KAFKA_CLIENT_H_

#include <librdkafka/rdkafka.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "beaconlog/kafka_log.h"

namespace rtb::beaconlog::internal {

using KafkaProperties = std::vector<std::pair<std::string, std::string>>;

// InvalidArgument when the options cannot make a client (no brokers or
// topic, a bad partition count, a property the guarantees rest on).
absl::Status CheckKafkaOptions(const KafkaLogOptions& options);

// A configuration with bootstrap.servers and client.id from `options`, then
// `role` (the writer's or the reader's own properties), then
// options.properties. The caller owns it (rd_kafka_conf_destroy, or
// rd_kafka_new takes it).
absl::StatusOr<rd_kafka_conf_t*> NewKafkaConf(const KafkaLogOptions& options,
                                              const KafkaProperties& role);

// rd_kafka_new; takes `conf` in every case.
absl::StatusOr<rd_kafka_t*> NewKafkaClient(rd_kafka_type_t type, rd_kafka_conf_t* conf);

// Creates options.topic when it is missing, then waits until the client's
// metadata shows it with a leader for every partition; both bounded by
// options.request_timeout.
absl::Status EnsureTopic(rd_kafka_t* client, const KafkaLogOptions& options);

// "kafka log <what>: <librdkafka's description of err>" with the code that
// fits `err` (Unavailable for most).
absl::Status KafkaStatus(const std::string& what, rd_kafka_resp_err_t err);

int ToMilliseconds(absl::Duration duration);

}  // namespace rtb::beaconlog::internal

#endif  // RTB_BEACONLOG_INTERNAL_KAFKA_CLIENT_H_
