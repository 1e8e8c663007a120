// The Kafka log's reader: a consumer group member that never commits by
// itself. Poll notes, per partition, the offset after the last record it
// returned; Commit commits those synchronously; a rebalance that takes
// partitions away forgets their notes (the rebalance callback runs inside
// rd_kafka_consumer_poll, on the reader's thread).
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "beaconlog/internal/kafka_client.h"
#include "beaconlog/kafka_log.h"

namespace rtb::beaconlog {
namespace {

using internal::KafkaStatus;
using internal::ToMilliseconds;

// A transient consumer error (a broker away, a coordinator moving) is
// printed at most this often; librdkafka retries by itself.
constexpr absl::Duration kErrorPrintInterval = absl::Seconds(10);

class KafkaLogReader final : public LogReader {
 public:
  explicit KafkaLogReader(KafkaLogOptions options) : options_(std::move(options)) {}

  ~KafkaLogReader() override {
    if (client_ == nullptr) return;
    if (subscribed_) rd_kafka_consumer_close(client_);
    if (commit_queue_ != nullptr) rd_kafka_queue_destroy(commit_queue_);
    rd_kafka_destroy(client_);
  }

  absl::Status Start(rd_kafka_conf_t* conf) {
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_rebalance_cb(conf, &KafkaLogReader::OnRebalance);
    absl::StatusOr<rd_kafka_t*> client = internal::NewKafkaClient(RD_KAFKA_CONSUMER, conf);
    if (!client.ok()) return client.status();
    client_ = *client;
    commit_queue_ = rd_kafka_queue_new(client_);
    if (absl::Status ready = internal::EnsureTopic(client_, options_); !ready.ok()) return ready;
    rd_kafka_poll_set_consumer(client_);
    rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, options_.topic.c_str(), RD_KAFKA_PARTITION_UA);
    const rd_kafka_resp_err_t err = rd_kafka_subscribe(client_, topics);
    rd_kafka_topic_partition_list_destroy(topics);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return KafkaStatus("subscribe", err);
    subscribed_ = true;
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<LogRecord>> Poll(size_t max_records, absl::Duration wait) override {
    if (!broken_.ok()) return broken_;
    if (!deferred_.ok()) return std::exchange(deferred_, absl::OkStatus());
    const absl::Time give_up = absl::Now() + wait;
    std::vector<LogRecord> records;
    while (records.size() < max_records) {
      // Wait for the first record only; then take what is there already.
      const int timeout_ms = records.empty() ? ToMilliseconds(give_up - absl::Now()) : 0;
      rd_kafka_message_t* message = rd_kafka_consumer_poll(client_, timeout_ms);
      if (message == nullptr) {
        if (!records.empty() || absl::Now() >= give_up) break;
        continue;
      }
      if (message->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        absl::Status error = ConsumerError(message);
        rd_kafka_message_destroy(message);
        if (error.ok()) continue;
        if (records.empty()) return error;
        // The records taken so far first; the error with the next Poll.
        deferred_ = std::move(error);
        break;
      }
      LogRecord& record = records.emplace_back();
      if (message->key != nullptr) {
        record.key.assign(static_cast<const char*>(message->key), message->key_len);
      }
      if (message->payload != nullptr) {
        record.payload.assign(static_cast<const char*>(message->payload), message->len);
      }
      next_[message->partition] = message->offset + 1;
      rd_kafka_message_destroy(message);
    }
    return records;
  }

  absl::Status Commit() override {
    rd_kafka_topic_partition_list_t* offsets =
        rd_kafka_topic_partition_list_new(static_cast<int>(next_.size()));
    for (const auto& [partition, next] : next_) {
      const auto committed = committed_.find(partition);
      if (committed != committed_.end() && committed->second == next) continue;
      rd_kafka_topic_partition_list_add(offsets, options_.topic.c_str(), partition)->offset = next;
    }
    if (offsets->cnt == 0) {
      rd_kafka_topic_partition_list_destroy(offsets);
      return absl::OkStatus();
    }
    const rd_kafka_resp_err_t err = CommitNow(offsets);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      for (int i = 0; i < offsets->cnt; ++i) {
        committed_[offsets->elems[i].partition] = offsets->elems[i].offset;
      }
    }
    rd_kafka_topic_partition_list_destroy(offsets);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return KafkaStatus(absl::StrCat("commit of group ", options_.group_id, " on ", options_.topic,
                                      " at ", options_.brokers),
                         err);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<LogLag> Lag() override {
    rd_kafka_topic_partition_list_t* assigned = nullptr;
    rd_kafka_resp_err_t err = rd_kafka_assignment(client_, &assigned);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return KafkaStatus("assignment", err);
    const int timeout_ms = ToMilliseconds(options_.request_timeout);
    LogLag lag;
    if (assigned->cnt > 0) err = rd_kafka_committed(client_, assigned, timeout_ms);
    for (int i = 0; i < assigned->cnt && err == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
      const rd_kafka_topic_partition_t& partition = assigned->elems[i];
      // The high watermark as the last fetch response gave it (fetches go
      // on all the time); asked of the leader when there is none yet, or
      // when the low one is needed. Asking always would cost a fetch's long
      // poll (fetch.wait.max.ms) per partition: requests on one connection
      // are answered in turn.
      int64_t low = -1;
      int64_t high = -1;
      rd_kafka_get_watermark_offsets(client_, partition.topic, partition.partition, &low, &high);
      if (high < 0 || partition.offset < 0) {
        err = rd_kafka_query_watermark_offsets(client_, partition.topic, partition.partition, &low,
                                               &high, timeout_ms);
      }
      const int64_t committed = partition.offset >= 0 ? partition.offset : low;
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) lag.records += std::max<int64_t>(0, high - committed);
    }
    rd_kafka_topic_partition_list_destroy(assigned);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return KafkaStatus(absl::StrCat("lag of group ", options_.group_id, " on ", options_.topic),
                         err);
    }
    return lag;
  }

 private:
  // Commits `offsets` and waits for the answer, at most request_timeout
  // (rd_kafka_commit would wait for as long as the coordinator is away). A
  // commit that timed out may still be made later: harmless, it commits
  // records that were applied, and commits are made in order.
  rd_kafka_resp_err_t CommitNow(rd_kafka_topic_partition_list_t* offsets) {
    const uint64_t id = ++commits_;
    rd_kafka_resp_err_t err = rd_kafka_commit_queue(
        client_, offsets, commit_queue_,
        [](rd_kafka_t*, rd_kafka_resp_err_t, rd_kafka_topic_partition_list_t*, void*) {},
        reinterpret_cast<void*>(id));
    const absl::Time give_up = absl::Now() + options_.request_timeout;
    while (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_event_t* event =
          rd_kafka_queue_poll(commit_queue_, ToMilliseconds(give_up - absl::Now()));
      if (event == nullptr) return RD_KAFKA_RESP_ERR__TIMED_OUT;
      // An answer to an earlier commit that timed out is passed over.
      const bool ours = rd_kafka_event_type(event) == RD_KAFKA_EVENT_OFFSET_COMMIT &&
                        rd_kafka_event_opaque(event) == reinterpret_cast<void*>(id);
      if (ours) {
        err = rd_kafka_event_error(event);
        const rd_kafka_topic_partition_list_t* answered =
            rd_kafka_event_topic_partition_list(event);
        for (int i = 0; answered != nullptr && i < answered->cnt && err == 0; ++i) {
          err = answered->elems[i].err;
        }
      }
      rd_kafka_event_destroy(event);
      if (ours) break;
    }
    return err;
  }

  static void OnRebalance(rd_kafka_t* client, rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t* partitions, void* opaque) {
    static_cast<KafkaLogReader*>(opaque)->Rebalance(client, err, partitions);
  }

  void Rebalance(rd_kafka_t* client, rd_kafka_resp_err_t err,
                 rd_kafka_topic_partition_list_t* partitions) {
    const bool cooperative = std::string(rd_kafka_rebalance_protocol(client)) == "COOPERATIVE";
    rd_kafka_error_t* error = nullptr;
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      if (cooperative) {
        error = rd_kafka_incremental_assign(client, partitions);
      } else {
        rd_kafka_assign(client, partitions);
      }
    } else {
      // Revoked (or lost, or a rebalance error): what was polled from these
      // partitions is their next owner's to read again, not ours to commit.
      for (int i = 0; i < partitions->cnt; ++i) {
        next_.erase(partitions->elems[i].partition);
        committed_.erase(partitions->elems[i].partition);
      }
      if (cooperative) {
        error = rd_kafka_incremental_unassign(client, partitions);
      } else {
        rd_kafka_assign(client, nullptr);
        next_.clear();
        committed_.clear();
      }
    }
    if (error != nullptr) {
      std::fprintf(stderr, "kafka log %s: rebalance: %s\n", options_.topic.c_str(),
                   rd_kafka_error_string(error));
      rd_kafka_error_destroy(error);
    }
  }

  // The status a consumer error message stands for: OK for a transient one
  // (printed now and then), which librdkafka recovers from by itself.
  absl::Status ConsumerError(const rd_kafka_message_t* message) {
    const rd_kafka_resp_err_t err = message->err;
    char fatal[512];
    if (err == RD_KAFKA_RESP_ERR__FATAL) {
      rd_kafka_fatal_error(client_, fatal, sizeof(fatal));
      broken_ = absl::UnavailableError(
          absl::StrCat("kafka log: the consumer failed for good: ", fatal, "; reopen the reader"));
      return broken_;
    }
    const absl::Status status =
        KafkaStatus(absl::StrCat("reader of ", options_.topic, " at ", options_.brokers), err);
    if (status.code() == absl::StatusCode::kPermissionDenied) return status;
    const absl::Time now = absl::Now();
    if (now - last_error_print_ >= kErrorPrintInterval) {
      last_error_print_ = now;
      std::fprintf(stderr, "%s (%s); retrying\n", std::string(status.message()).c_str(),
                   rd_kafka_message_errstr(message));
    }
    return absl::OkStatus();
  }

  const KafkaLogOptions options_;
  rd_kafka_t* client_ = nullptr;
  rd_kafka_queue_t* commit_queue_ = nullptr;  // commits' answers
  uint64_t commits_ = 0;                      // commits asked for
  bool subscribed_ = false;
  absl::Status broken_;    // a fatal error: every Poll returns it
  absl::Status deferred_;  // returned by the next Poll, once
  // Per assigned partition: the offset after the last record Poll returned,
  // and the one this reader last committed.
  std::map<int32_t, int64_t> next_;
  std::map<int32_t, int64_t> committed_;
  absl::Time last_error_print_ = absl::InfinitePast();
};

}  // namespace

absl::StatusOr<std::unique_ptr<LogReader>> OpenKafkaLogReader(const KafkaLogOptions& options) {
  if (absl::Status valid = internal::CheckKafkaOptions(options); !valid.ok()) return valid;
  if (options.group_id.empty()) return absl::InvalidArgumentError("kafka log: group_id is empty");
  absl::StatusOr<rd_kafka_conf_t*> conf =
      internal::NewKafkaConf(options, {
                                          {"group.id", options.group_id},
                                          {"enable.auto.commit", "false"},
                                          {"enable.auto.offset.store", "false"},
                                          {"auto.offset.reset", "earliest"},
                                          {"enable.partition.eof", "false"},
                                      });
  if (!conf.ok()) return conf.status();
  auto reader = std::make_unique<KafkaLogReader>(options);
  if (absl::Status started = reader->Start(*conf); !started.ok()) return started;
  return std::unique_ptr<LogReader>(std::move(reader));
}

}  // namespace rtb::beaconlog
