// The stream worker: applies the beacon log to the tables (event-tracking
// seed: "After each batch from the log: timeline.flush(); index.flush();
// then commit the log offset").
//
//   loop:
//     batch = log.Poll(batch_records)          (empty: sleep until woken or
//                                               idle_wait_ms, then again)
//     split the batch into apply_threads lanes by record key (one
//     impression's beacons share a lane, in log order); the lanes run at
//     once, each record of a lane in order:
//       lane.Apply(record)                      a storage error: back off
//                                               (retry_min_ms doubling to
//                                               retry_max_ms) and apply the
//                                               same record again, for ever;
//                                               nothing is skipped
//       lane.Flush()                            the lane's buffered writes
//                                               durable (retried the same way)
//     (every lane done)
//     log.Commit()                              only now
//
// Lanes are what makes a remote store drain fast: applying one beacon takes
// a dozen round trips, so one thread on HBase applies a few hundred a second;
// beacons of different impressions touch different rows or add to counters
// (caps, spend, rollups), so their order does not matter. Buffering is the
// other half: a lane may leave the writes nothing later checks to its Flush,
// which makes them for all its records at once (the beacon handler's lanes:
// notices' events, through EventStore::RecordBatch).
//
// A record the applier refuses as malformed (InvalidArgument) is counted and
// passed over; it cannot become valid by waiting. A crash anywhere before
// the commit makes the next worker apply the batch again from its first
// record, which the applier's idempotence makes harmless.
//
// Metrics: bidder_beacon_stream_records_total{result="applied|skipped"},
// bidder_beacon_stream_retries_total, bidder_beacon_stream_batches_total,
// bidder_beacon_log_lag_bytes, bidder_beacon_log_lag_records (-1: the
// backend does not count records), and
// bidder_beacon_stream_caught_up_timestamp_seconds: when the worker last
// found nothing left to read (its age is how far behind it is, at most).
//
// The worker's threads are named rtb-stream and rtb-stream-<lane>, and run
// at a lower priority than the bidder's I/O threads (`nice`).
//
// Thread-safety: the worker runs on a thread of its own and a thread per
// further lane, all started with it (the applier must be safe to call
// concurrently); Wake and AwaitCaughtUp may be called from any thread.
#ifndef RTB_BIDDER_STREAM_STREAM_WORKER_H_
#define RTB_BIDDER_STREAM_STREAM_WORKER_H_

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "beaconlog/beacon_log.h"
#include "prometheus/registry.h"

namespace rtb::bidder::stream {

class RecordApplier {
 public:
  // What one lane of the worker applies with: records in order, then Flush.
  // Used by one thread at a time.
  class Lane {
   public:
    virtual ~Lane() = default;
    // Applies one record; writes nothing later in the record's application
    // checks may be left buffered until Flush. InvalidArgument: malformed,
    // never applicable (skipped); any other error is retried.
    virtual absl::Status Apply(const beaconlog::LogRecord& record) = 0;
    // Makes the writes of every record applied since the last Flush durable;
    // an error is retried (what is buffered stays buffered).
    virtual absl::Status Flush() = 0;
  };

  virtual ~RecordApplier() = default;
  // One per lane, made when the worker starts.
  virtual std::unique_ptr<Lane> NewLane() = 0;
};

struct StreamWorkerOptions {
  // Records polled and applied per batch (and per commit). Default 512.
  size_t batch_records = 512;
  // Lanes a batch is applied in at once, records split by key. Default 4.
  int apply_threads = 4;
  // Steps the worker's threads' nice value is raised by (0-19), so the
  // kernel runs them when the bid path leaves CPU over: a backlog drains
  // in the bid path's idle time instead of in its tail. Default 10.
  int nice = 10;
  // Sleep when the log had nothing, unless woken sooner, ms. Default 20.
  int idle_wait_ms = 20;
  // Back-off between attempts at a record the store refused, ms: doubling
  // from the first to the second. Defaults 50 and 5000.
  int retry_min_ms = 50;
  int retry_max_ms = 5000;
};

class StreamWorker {
 public:
  // Starts the worker's thread. `reader` and `applier` must outlive it;
  // `registry` may be null (no metrics).
  static absl::StatusOr<std::unique_ptr<StreamWorker>> Start(beaconlog::LogReader* reader,
                                                             RecordApplier* applier,
                                                             prometheus::Registry* registry,
                                                             StreamWorkerOptions options = {});
  // Stops: the batch in hand is finished and committed first, unless the
  // store keeps failing, in which case it is left to the next worker.
  ~StreamWorker();
  StreamWorker(const StreamWorker&) = delete;
  StreamWorker& operator=(const StreamWorker&) = delete;

  // Something was appended: poll now instead of after the idle wait.
  void Wake();
  // Waits until everything appended before the call is applied and
  // committed; DeadlineExceeded after `timeout`.
  absl::Status AwaitCaughtUp(absl::Duration timeout);

 private:
  class Impl;
  explicit StreamWorker(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rtb::bidder::stream

#endif  // RTB_BIDDER_STREAM_STREAM_WORKER_H_
