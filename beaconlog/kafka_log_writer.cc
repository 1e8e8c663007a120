// The Kafka log's writer: Append hands each record to librdkafka with its
// Done as the message's opaque; delivery reports come as events on the
// client's main queue, which a thread of the writer's own serves, running
// each Done there. Flush is rd_kafka_flush, which in this event mode only
// waits for the reports to be served.
#include <librdkafka/rdkafka.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "beaconlog/internal/kafka_client.h"
#include "beaconlog/kafka_log.h"

namespace rtb::beaconlog {
namespace {

using internal::KafkaStatus;
using internal::ToMilliseconds;

// How long the poll thread waits for an event before it looks at stopping_.
constexpr int kPollMs = 100;
// At destruction: how long pending records may still be delivered before
// they are purged (their Done gets Unavailable), and how long the purged
// ones' reports may take.
constexpr absl::Duration kCloseFlush = absl::Seconds(5);
constexpr absl::Duration kCloseDrain = absl::Seconds(5);

// One record taken and not yet reported: the message's opaque.
struct Pending {
  LogWriter::Done done;
  int64_t bytes = 0;
};

class KafkaLogWriter final : public LogWriter {
 public:
  KafkaLogWriter(KafkaLogOptions options, rd_kafka_t* client)
      : options_(std::move(options)), client_(client) {}

  ~KafkaLogWriter() override {
    closing_ = true;
    if (thread_.joinable()) {
      rd_kafka_flush(client_, ToMilliseconds(kCloseFlush));
      rd_kafka_purge(client_, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
      WaitForReports(kCloseDrain);
      stopping_ = true;
      thread_.join();
    }
    if (topic_ != nullptr) rd_kafka_topic_destroy(topic_);
    if (queue_ != nullptr) rd_kafka_queue_destroy(queue_);
    rd_kafka_destroy(client_);
  }

  absl::Status Start() {
    if (absl::Status ready = internal::EnsureTopic(client_, options_); !ready.ok()) return ready;
    topic_ = rd_kafka_topic_new(client_, options_.topic.c_str(), nullptr);
    if (topic_ == nullptr) return KafkaStatus("topic handle", rd_kafka_last_error());
    queue_ = rd_kafka_queue_get_main(client_);
    thread_ = std::thread([this] { Run(); });
    return absl::OkStatus();
  }

  void Append(std::string_view key, std::string_view payload, Done done) override {
    const auto bytes = static_cast<int64_t>(key.size() + payload.size());
    if (key.size() + payload.size() > kMaxRecordBytes) {
      done(absl::InvalidArgumentError(
          absl::StrCat("kafka log: a record of ", bytes, " bytes is over the limit")));
      return;
    }
    if (closing_) {
      Count(&WriterStats::failed);
      done(absl::UnavailableError("kafka log: closing"));
      return;
    }
    auto* pending = new Pending{std::move(done), bytes};
    {
      std::lock_guard<std::mutex> guard(mutex_);
      stats_.pending_bytes += bytes;
      ++in_flight_;
    }
    const rd_kafka_resp_err_t err = rd_kafka_producev(
        client_, RD_KAFKA_V_RKT(topic_), RD_KAFKA_V_KEY(key.data(), key.size()),
        RD_KAFKA_V_VALUE(const_cast<char*>(payload.data()), payload.size()),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(pending), RD_KAFKA_V_END);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return;
    Done refused = std::move(pending->done);
    delete pending;
    absl::Status why = err == RD_KAFKA_RESP_ERR__FATAL ? FatalError() : KafkaStatus("append", err);
    if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      why = absl::ResourceExhaustedError(
          "kafka log full: the producer's local queue is full (the brokers are slow or away)");
    }
    {
      std::lock_guard<std::mutex> guard(mutex_);
      stats_.pending_bytes -= bytes;
      --in_flight_;
      ++(err == RD_KAFKA_RESP_ERR__QUEUE_FULL ? stats_.refused_full : stats_.failed);
    }
    reported_.notify_all();
    refused(std::move(why));
  }

  absl::Status Flush(absl::Duration timeout) override {
    const absl::Time give_up = absl::Now() + timeout;
    const rd_kafka_resp_err_t err = rd_kafka_flush(client_, ToMilliseconds(timeout));
    // rd_kafka_flush returns once librdkafka holds no message; the last
    // report's Done may still be running on the poll thread.
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR || !WaitForReports(give_up - absl::Now())) {
      return absl::DeadlineExceededError(
          absl::StrCat("kafka log: ", rd_kafka_outq_len(client_), " records still pending at ",
                       options_.brokers, " after ", absl::FormatDuration(timeout), LastError()));
    }
    char error[512];
    if (rd_kafka_fatal_error(client_, error, sizeof(error)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return FatalError();
    }
    return absl::OkStatus();
  }

  WriterStats Stats() const override {
    std::lock_guard<std::mutex> guard(mutex_);
    return stats_;
  }

 private:
  void Count(int64_t WriterStats::*counter) {
    std::lock_guard<std::mutex> guard(mutex_);
    ++(stats_.*counter);
  }

  // True once every record taken has been reported and its Done has run.
  bool WaitForReports(absl::Duration timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return reported_.wait_for(lock,
                              absl::ToChronoMilliseconds(std::max(timeout, absl::ZeroDuration())),
                              [&] { return in_flight_ == 0; });
  }

  absl::Status FatalError() {
    char error[512];
    const rd_kafka_resp_err_t err = rd_kafka_fatal_error(client_, error, sizeof(error));
    return absl::UnavailableError(absl::StrCat("kafka log: the producer failed for good (",
                                               rd_kafka_err2name(err), ": ", error,
                                               "); reopen the writer"));
  }

  std::string LastError() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return last_error_.empty() ? "" : absl::StrCat(" (last error: ", last_error_, ")");
  }

  void Run() {
    while (!stopping_) {
      rd_kafka_event_t* event = rd_kafka_queue_poll(queue_, kPollMs);
      if (event == nullptr) continue;
      switch (rd_kafka_event_type(event)) {
        case RD_KAFKA_EVENT_DR:
          Report(event);
          break;
        case RD_KAFKA_EVENT_ERROR: {
          std::lock_guard<std::mutex> guard(mutex_);
          last_error_ = rd_kafka_event_error_string(event);
          break;
        }
        default:
          break;
      }
      rd_kafka_event_destroy(event);
    }
  }

  // Runs the Done of every message of a delivery report event.
  void Report(rd_kafka_event_t* event) {
    while (const rd_kafka_message_t* message = rd_kafka_event_message_next(event)) {
      auto* pending = static_cast<Pending*>(message->_private);
      absl::Status status;
      if (message->err == RD_KAFKA_RESP_ERR__PURGE_QUEUE ||
          message->err == RD_KAFKA_RESP_ERR__PURGE_INFLIGHT) {
        status = absl::UnavailableError("kafka log: closing before the record was delivered");
      } else if (message->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        status = KafkaStatus(
            absl::StrCat("record not delivered to ", options_.topic, " at ", options_.brokers),
            message->err);
        status = absl::UnavailableError(status.message());
      }
      {
        std::lock_guard<std::mutex> guard(mutex_);
        stats_.pending_bytes -= pending->bytes;
        ++(status.ok() ? stats_.appended : stats_.failed);
      }
      pending->done(std::move(status));
      delete pending;
      {
        std::lock_guard<std::mutex> guard(mutex_);
        --in_flight_;
      }
      reported_.notify_all();
    }
  }

  const KafkaLogOptions options_;
  rd_kafka_t* const client_;
  rd_kafka_topic_t* topic_ = nullptr;
  rd_kafka_queue_t* queue_ = nullptr;
  std::thread thread_;
  std::atomic<bool> closing_ = false;
  std::atomic<bool> stopping_ = false;

  mutable std::mutex mutex_;
  std::condition_variable reported_;
  int64_t in_flight_ = 0;  // taken, Done not yet run
  std::string last_error_;
  WriterStats stats_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<LogWriter>> OpenKafkaLogWriter(const KafkaLogOptions& options) {
  if (absl::Status valid = internal::CheckKafkaOptions(options); !valid.ok()) return valid;
  absl::StatusOr<rd_kafka_conf_t*> conf = internal::NewKafkaConf(
      options, {
                   {"acks", "all"},
                   {"enable.idempotence", "true"},
                   {"delivery.timeout.ms", absl::StrCat(options.delivery_timeout_ms)},
                   // The Java client's partitioner: one key, one partition,
                   // whichever language wrote it.
                   {"partitioner", "murmur2_random"},
               });
  if (!conf.ok()) return conf.status();
  // Delivery reports and errors as events on the main queue (the poll
  // thread's), so no Done runs on a thread calling Flush.
  rd_kafka_conf_set_events(*conf, RD_KAFKA_EVENT_DR | RD_KAFKA_EVENT_ERROR);
  absl::StatusOr<rd_kafka_t*> client = internal::NewKafkaClient(RD_KAFKA_PRODUCER, *conf);
  if (!client.ok()) return client.status();
  auto writer = std::make_unique<KafkaLogWriter>(options, *client);
  if (absl::Status started = writer->Start(); !started.ok()) return started;
  return std::unique_ptr<LogWriter>(std::move(writer));
}

}  // namespace rtb::beaconlog
