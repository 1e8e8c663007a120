// The durable log between the beacon endpoints and the tables (event-tracking
// seed: "Events come from a durable, replayable log, so a crash between the
// two writes is repaired by replay"). A beacon is answered once its record
// is in the log; a stream worker (bidder/stream) reads the log, applies each
// batch to the store, flushes, and only then commits its position.
//
// Two backends behind these interfaces, as the storage layer has two:
//   - the embedded log (embedded_log.h, the default): segment files on the
//     bidder's local disk, one writer and one reader;
//   - Apache Kafka (kafka_log.h): a topic keyed by impression id, producers
//     with acks=all and idempotence, a consumer group whose offsets are
//     committed after the flush.
//
// Delivery is at least once: a record may be read again after a crash
// between the apply and the commit, or after a rebalance, so whatever
// applies records must be idempotent (the beacon records are: deterministic
// keys, claims and markers).
//
// Thread-safety: a LogWriter is used from every I/O thread at once; a
// LogReader from one thread (the stream worker's).
#ifndef RTB_BEACONLOG_BEACON_LOG_H_
#define RTB_BEACONLOG_BEACON_LOG_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace rtb::beaconlog {

// A record is at most this long (key and payload): a beacon's query string
// is bounded by the HTTP server's target limit well below it.
inline constexpr size_t kMaxRecordBytes = 64 * 1024;

// What the writer has done since it started, and what waits in the log.
struct WriterStats {
  int64_t appended = 0;       // records made durable
  int64_t refused_full = 0;   // appends refused because the log was full
  int64_t failed = 0;         // appends that failed otherwise
  int64_t pending_bytes = 0;  // taken, not yet durable
};

class LogWriter {
 public:
  // Called once per Append: OK when the record is durable, so its beacon
  // may be acknowledged; ResourceExhausted when the log is full (nothing was
  // kept: answer 503); another error when the record could not be made
  // durable (answer 503 too: it may or may not be read later, and applying
  // it twice is harmless). It runs on a thread of the log's own, or inside
  // Append when the record is refused at once; it must not block.
  using Done = std::function<void(absl::Status)>;

  virtual ~LogWriter() = default;

  // Takes one record keyed by `key` (the records of one key are read back in
  // the order they were appended). Never blocks on the disk or the network.
  virtual void Append(std::string_view key, std::string_view payload, Done done) = 0;
  // Waits (bounded by `timeout`) until every record taken so far is durable
  // or failed and its Done has run. OK when none is left pending.
  virtual absl::Status Flush(absl::Duration timeout) = 0;
  virtual WriterStats Stats() const = 0;
};

struct LogRecord {
  std::string key;
  std::string payload;
};

// How far the reader is behind the writers, as the log itself knows it.
struct LogLag {
  int64_t records = 0;  // appended but not yet committed (Kafka: summed over partitions)
  int64_t bytes = 0;    // on disk for them (embedded log; 0 for Kafka)
};

class LogReader {
 public:
  virtual ~LogReader() = default;

  // The next records after the last one returned (at start: after the last
  // committed position), up to `max_records`, waiting at most `wait` for the
  // first. Empty when none came in time.
  virtual absl::StatusOr<std::vector<LogRecord>> Poll(size_t max_records, absl::Duration wait) = 0;
  // Everything Poll has returned so far is applied: a reader started later
  // begins after it, and the log may drop it.
  virtual absl::Status Commit() = 0;
  virtual absl::StatusOr<LogLag> Lag() = 0;
};

}  // namespace rtb::beaconlog

#endif  // RTB_BEACONLOG_BEACON_LOG_H_
