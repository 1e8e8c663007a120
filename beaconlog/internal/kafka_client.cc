#include "beaconlog/internal/kafka_client.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace rtb::beaconlog::internal {
namespace {

// Properties the delivery guarantees rest on: set by the writer and the
// reader themselves, never by options.properties.
constexpr const char* kFixedProperties[] = {
    "acks",     "request.required.acks", "enable.idempotence",
    "group.id", "enable.auto.commit",    "enable.auto.offset.store",
};

// How often EnsureTopic asks again for the new topic's metadata.
constexpr auto kMetadataStep = std::chrono::milliseconds(100);

absl::Status SetProperty(rd_kafka_conf_t* conf, const std::string& name, const std::string& value) {
  char error[512];
  if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), error, sizeof(error)) !=
      RD_KAFKA_CONF_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("kafka log: property ", name, "=", value, ": ", error));
  }
  return absl::OkStatus();
}

// Asks for the topic's creation; OK when it was created or already exists.
absl::Status CreateTopic(rd_kafka_t* client, const KafkaLogOptions& options) {
  char error[512];
  rd_kafka_NewTopic_t* topic = rd_kafka_NewTopic_new(
      options.topic.c_str(), options.partitions, options.replication_factor, error, sizeof(error));
  if (topic == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("kafka log: topic ", options.topic, ": ", error));
  }
  const int timeout_ms = ToMilliseconds(options.request_timeout);
  rd_kafka_AdminOptions_t* admin =
      rd_kafka_AdminOptions_new(client, RD_KAFKA_ADMIN_OP_CREATETOPICS);
  rd_kafka_AdminOptions_set_request_timeout(admin, timeout_ms, error, sizeof(error));
  rd_kafka_AdminOptions_set_operation_timeout(admin, timeout_ms, error, sizeof(error));
  rd_kafka_queue_t* queue = rd_kafka_queue_new(client);
  rd_kafka_CreateTopics(client, &topic, 1, admin, queue);
  rd_kafka_event_t* event = rd_kafka_queue_poll(queue, timeout_ms + 2000);
  absl::Status status;
  const std::string what =
      absl::StrCat("cannot create topic ", options.topic, " at ", options.brokers);
  if (event == nullptr) {
    status = absl::UnavailableError(absl::StrCat("kafka log: ", what, ": no answer"));
  } else if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    status = absl::UnavailableError(
        absl::StrCat("kafka log: ", what, ": ", rd_kafka_event_error_string(event)));
  } else {
    size_t count = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count);
    const rd_kafka_resp_err_t err =
        count == 1 ? rd_kafka_topic_result_error(results[0]) : RD_KAFKA_RESP_ERR__FAIL;
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
      const char* message = count == 1 ? rd_kafka_topic_result_error_string(results[0]) : nullptr;
      status = KafkaStatus(what, err);
      if (message != nullptr)
        status = absl::Status(status.code(), absl::StrCat(status.message(), " (", message, ")"));
    }
  }
  if (event != nullptr) rd_kafka_event_destroy(event);
  rd_kafka_queue_destroy(queue);
  rd_kafka_AdminOptions_destroy(admin);
  rd_kafka_NewTopic_destroy(topic);
  return status;
}

// OK when the metadata shows the topic with a leader for every partition.
absl::Status TopicIsReady(rd_kafka_t* client, rd_kafka_topic_t* topic, int timeout_ms) {
  const rd_kafka_metadata_t* metadata = nullptr;
  const rd_kafka_resp_err_t err = rd_kafka_metadata(client, 0, topic, &metadata, timeout_ms);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return KafkaStatus("metadata", err);
  absl::Status status;
  if (metadata->topic_cnt != 1 || metadata->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    status = KafkaStatus("metadata", metadata->topic_cnt == 1 ? metadata->topics[0].err
                                                              : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC);
  } else if (metadata->topics[0].partition_cnt == 0) {
    status = absl::UnavailableError("kafka log metadata: the topic has no partitions yet");
  } else {
    for (int i = 0; i < metadata->topics[0].partition_cnt; ++i) {
      if (metadata->topics[0].partitions[i].leader < 0) {
        status = absl::UnavailableError("kafka log metadata: a partition has no leader yet");
      }
    }
  }
  rd_kafka_metadata_destroy(metadata);
  return status;
}

}  // namespace

absl::Status CheckKafkaOptions(const KafkaLogOptions& options) {
  if (options.brokers.empty()) return absl::InvalidArgumentError("kafka log: brokers is empty");
  if (options.topic.empty()) return absl::InvalidArgumentError("kafka log: topic is empty");
  if (options.partitions < 1 || options.replication_factor < 1) {
    return absl::InvalidArgumentError(
        "kafka log: partitions and replication_factor must be at least 1");
  }
  if (options.delivery_timeout_ms < 1) {
    return absl::InvalidArgumentError("kafka log: delivery_timeout_ms must be positive");
  }
  if (options.request_timeout < absl::Milliseconds(1)) {
    return absl::InvalidArgumentError("kafka log: request_timeout must be positive");
  }
  for (const auto& [name, value] : options.properties) {
    for (const char* fixed : kFixedProperties) {
      if (name == fixed) {
        return absl::InvalidArgumentError(absl::StrCat(
            "kafka log: property ", name, " is set by the log itself (its guarantees rest on it)"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<rd_kafka_conf_t*> NewKafkaConf(const KafkaLogOptions& options,
                                              const KafkaProperties& role) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  KafkaProperties all = {{"bootstrap.servers", options.brokers}, {"client.id", options.client_id}};
  all.insert(all.end(), role.begin(), role.end());
  all.insert(all.end(), options.properties.begin(), options.properties.end());
  for (const auto& [name, value] : all) {
    if (absl::Status set = SetProperty(conf, name, value); !set.ok()) {
      rd_kafka_conf_destroy(conf);
      return set;
    }
  }
  return conf;
}

absl::StatusOr<rd_kafka_t*> NewKafkaClient(rd_kafka_type_t type, rd_kafka_conf_t* conf) {
  char error[512];
  rd_kafka_t* client = rd_kafka_new(type, conf, error, sizeof(error));
  if (client == nullptr) {
    rd_kafka_conf_destroy(conf);  // rd_kafka_new takes it only when it succeeds
    return absl::InvalidArgumentError(absl::StrCat("kafka log: cannot make a client: ", error));
  }
  return client;
}

absl::Status EnsureTopic(rd_kafka_t* client, const KafkaLogOptions& options) {
  const absl::Time give_up = absl::Now() + options.request_timeout;
  if (absl::Status created = CreateTopic(client, options); !created.ok()) return created;
  // A new topic's partitions get their leaders a moment after it is created.
  rd_kafka_topic_t* topic = rd_kafka_topic_new(client, options.topic.c_str(), nullptr);
  if (topic == nullptr) {
    return KafkaStatus(absl::StrCat("topic ", options.topic), rd_kafka_last_error());
  }
  absl::Status ready;
  for (;;) {
    const int left_ms = std::max(1, ToMilliseconds(give_up - absl::Now()));
    ready = TopicIsReady(client, topic, left_ms);
    if (ready.ok() || absl::Now() >= give_up) break;
    std::this_thread::sleep_for(kMetadataStep);
  }
  rd_kafka_topic_destroy(topic);
  if (!ready.ok()) {
    return absl::UnavailableError(absl::StrCat("kafka log: topic ", options.topic, " at ",
                                               options.brokers, " not ready: ", ready.message()));
  }
  return absl::OkStatus();
}

absl::Status KafkaStatus(const std::string& what, rd_kafka_resp_err_t err) {
  const std::string message = absl::StrCat("kafka log ", what, ": ", rd_kafka_err2str(err));
  switch (err) {
    case RD_KAFKA_RESP_ERR__QUEUE_FULL:
      return absl::ResourceExhaustedError(message);
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR_INVALID_PARTITIONS:
    case RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR:
    case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
      return absl::InvalidArgumentError(message);
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
      return absl::PermissionDeniedError(message);
    default:
      return absl::UnavailableError(message);
  }
}

int ToMilliseconds(absl::Duration duration) {
  const int64_t ms = absl::ToInt64Milliseconds(duration);
  return static_cast<int>(std::clamp<int64_t>(ms, 0, 1 << 30));
}

}  // namespace rtb::beaconlog::internal
