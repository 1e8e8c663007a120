#include "bidder/stream/stream_worker.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "threads/threads.h"

namespace rtb::bidder::stream {

struct StreamMetrics {
  prometheus::Counter* applied = nullptr;
  prometheus::Counter* skipped = nullptr;
  prometheus::Counter* retries = nullptr;
  prometheus::Counter* batches = nullptr;
  prometheus::Gauge* lag_bytes = nullptr;
  prometheus::Gauge* lag_records = nullptr;
  prometheus::Gauge* caught_up = nullptr;

  void Declare(prometheus::Registry& registry) {
    auto& records = prometheus::BuildCounter()
                        .Name("bidder_beacon_stream_records_total")
                        .Help("Beacon log records the stream worker applied or skipped (malformed)")
                        .Register(registry);
    applied = &records.Add({{"result", "applied"}});
    skipped = &records.Add({{"result", "skipped"}});
    retries = &prometheus::BuildCounter()
                   .Name("bidder_beacon_stream_retries_total")
                   .Help("Attempts at a beacon log record the store refused, tried again")
                   .Register(registry)
                   .Add({});
    batches = &prometheus::BuildCounter()
                   .Name("bidder_beacon_stream_batches_total")
                   .Help("Batches of the beacon log applied, flushed and committed")
                   .Register(registry)
                   .Add({});
    lag_bytes = &prometheus::BuildGauge()
                     .Name("bidder_beacon_log_lag_bytes")
                     .Help("Bytes of the beacon log appended and not yet committed")
                     .Register(registry)
                     .Add({});
    lag_records = &prometheus::BuildGauge()
                       .Name("bidder_beacon_log_lag_records")
                       .Help(
                           "Records of the beacon log appended and not yet committed (-1: "
                           "the backend does not count them)")
                       .Register(registry)
                       .Add({});
    caught_up = &prometheus::BuildGauge()
                     .Name("bidder_beacon_stream_caught_up_timestamp_seconds")
                     .Help("When the stream worker last found the beacon log fully applied")
                     .Register(registry)
                     .Add({});
  }
};

class StreamWorker::Impl {
  // One per lane; lane 0 is the worker's own thread, the others have theirs.
  struct Lane {
    std::unique_ptr<RecordApplier::Lane> applier;
    std::vector<const beaconlog::LogRecord*> records;  // of the batch in hand
    bool busy = false;                                 // records to apply
    std::condition_variable has_work;
    std::thread thread;
  };

 public:
  Impl(beaconlog::LogReader* reader, RecordApplier* applier, prometheus::Registry* registry,
       StreamWorkerOptions options)
      : reader_(reader),
        applier_(applier),
        options_(options),
        lanes_(static_cast<size_t>(options.apply_threads)) {
    for (Lane& lane : lanes_) lane.applier = applier_->NewLane();
    if (registry != nullptr) {
      metrics_ = std::make_unique<StreamMetrics>();
      metrics_->Declare(*registry);
    }
  }

  // Starts the lane threads, then the worker's own; throws std::system_error
  // when a thread cannot be had (the destructor joins those started).
  void Start() {
    for (size_t i = 1; i < lanes_.size(); ++i) {
      lanes_[i].thread = std::thread([this, i] {
        threads::NameThisThread("rtb-stream-" + std::to_string(i));
        threads::LowerThisThreadPriority(options_.nice);
        LaneLoop(lanes_[i]);
      });
    }
    thread_ = std::thread([this] {
      threads::NameThisThread("rtb-stream");
      threads::LowerThisThreadPriority(options_.nice);
      Run();
    });
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    // The worker's thread is gone, so no batch is in hand: the lanes idle.
    {
      std::lock_guard<std::mutex> guard(lanes_mutex_);
      lanes_closed_ = true;
    }
    for (Lane& lane : lanes_) lane.has_work.notify_one();
    for (Lane& lane : lanes_) {
      if (lane.thread.joinable()) lane.thread.join();
    }
  }

  void Wake() {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      woken_ = true;
    }
    wake_.notify_all();
  }

  absl::Status AwaitCaughtUp(absl::Duration timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    // A poll that starts after this call sees everything appended before it.
    const uint64_t target = polls_started_ + 1;
    woken_ = true;
    ++awaiting_;
    wake_.notify_all();
    const bool done = caught_up_cv_.wait_for(lock, absl::ToChronoMilliseconds(timeout), [&] {
      return caught_up_poll_ >= target || stopping_;
    });
    --awaiting_;
    if (!done) return absl::DeadlineExceededError("the stream worker is still behind the log");
    return absl::OkStatus();
  }

 private:
  bool Stopping() {
    std::lock_guard<std::mutex> guard(mutex_);
    return stopping_;
  }

  // Sleeps `ms` or until stopped; false when stopping.
  bool Sleep(int ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stopping_; });
    return !stopping_;
  }

  // Applies one record, retrying what the store refused until it is applied
  // (true), or until the worker stops (false: the batch stays uncommitted).
  bool ApplyRecord(RecordApplier::Lane& lane, const beaconlog::LogRecord& record) {
    return Retried(/*what=*/nullptr, [&] {
      const absl::Status applied = lane.Apply(record);
      if (applied.ok()) {
        if (metrics_) metrics_->applied->Increment();
      } else if (applied.code() == absl::StatusCode::kInvalidArgument) {
        std::fprintf(stderr, "beacon stream: record skipped: %s\n", applied.ToString().c_str());
        if (metrics_) metrics_->skipped->Increment();
        return absl::OkStatus();
      }
      return applied;
    });
  }

  // Applies one lane's records in order, then flushes what it buffered;
  // false when the worker stopped before all were applied and flushed.
  bool ApplyLane(Lane& lane) {
    for (const beaconlog::LogRecord* record : lane.records) {
      if (!ApplyRecord(*lane.applier, *record)) return false;
    }
    return Retried("flush", [&] { return lane.applier->Flush(); });
  }

  // Runs `step` until it succeeds (true), backing off after each failure,
  // or until the worker stops (false). Each failure is logged as `what`
  // failing, unless `what` is null (a record's: a store outage would log
  // every attempt at every record).
  template <typename Step>
  bool Retried(const char* what, Step step) {
    int backoff_ms = options_.retry_min_ms;
    for (;;) {
      const absl::Status s = step();
      if (s.ok()) return true;
      if (what != nullptr) {
        std::fprintf(stderr, "beacon stream: %s failed: %s\n", what, s.ToString().c_str());
      }
      if (metrics_) metrics_->retries->Increment();
      if (!Sleep(backoff_ms)) return false;
      backoff_ms = std::min(backoff_ms * 2, options_.retry_max_ms);
    }
  }

  // A lane thread: waits for its records of a batch, applies them, reports.
  void LaneLoop(Lane& lane) {
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(lanes_mutex_);
        lane.has_work.wait(lock, [&] { return lanes_closed_ || lane.busy; });
        if (lanes_closed_) return;
      }
      const bool applied = ApplyLane(lane);
      std::lock_guard<std::mutex> guard(lanes_mutex_);
      lane.busy = false;
      if (!applied) batch_applied_ = false;
      if (--lanes_pending_ == 0) lanes_done_.notify_one();
    }
  }

  // The batch's records in lanes by key, each lane in order, the first on
  // this thread and the others on the lane threads; true when every record
  // was applied.
  bool ApplyBatch(const std::vector<beaconlog::LogRecord>& batch) {
    for (Lane& lane : lanes_) lane.records.clear();
    for (const beaconlog::LogRecord& record : batch) {
      lanes_[std::hash<std::string>{}(record.key) % lanes_.size()].records.push_back(&record);
    }
    {
      std::lock_guard<std::mutex> guard(lanes_mutex_);
      batch_applied_ = true;
      for (size_t i = 1; i < lanes_.size(); ++i) {
        if (lanes_[i].records.empty()) continue;
        lanes_[i].busy = true;
        ++lanes_pending_;
        lanes_[i].has_work.notify_one();
      }
    }
    const bool first_applied = ApplyLane(lanes_[0]);
    std::unique_lock<std::mutex> lock(lanes_mutex_);
    lanes_done_.wait(lock, [&] { return lanes_pending_ == 0; });
    return first_applied && batch_applied_;
  }

  // Every lane applied and flushed: the commit, retried like a record.
  bool FinishBatch() {
    if (!Retried("commit", [&] { return reader_->Commit(); })) return false;
    if (metrics_) metrics_->batches->Increment();
    return true;
  }

  // After an empty poll: whether the log agrees nothing is left. Asked only
  // while someone awaits it (a Kafka reader asks the group coordinator):
  // an empty poll there may just mean the next fetch has not come back.
  bool NothingLeft() {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      if (awaiting_ == 0) return true;
    }
    absl::StatusOr<beaconlog::LogLag> lag = reader_->Lag();
    return !lag.ok() || lag->records <= 0;
  }

  void PublishLag() {
    if (!metrics_) return;
    absl::StatusOr<beaconlog::LogLag> lag = reader_->Lag();
    if (!lag.ok()) return;
    metrics_->lag_bytes->Set(static_cast<double>(lag->bytes));
    metrics_->lag_records->Set(static_cast<double>(lag->records));
  }

  void Run() {
    auto last_lag = std::chrono::steady_clock::time_point();
    while (!Stopping()) {
      uint64_t poll;
      {
        std::lock_guard<std::mutex> guard(mutex_);
        poll = ++polls_started_;
        woken_ = false;
      }
      absl::StatusOr<std::vector<beaconlog::LogRecord>> batch =
          reader_->Poll(options_.batch_records, absl::ZeroDuration());
      if (std::chrono::steady_clock::now() - last_lag >= std::chrono::seconds(1)) {
        PublishLag();
        last_lag = std::chrono::steady_clock::now();
      }
      if (!batch.ok()) {
        std::fprintf(stderr, "beacon stream: poll failed: %s\n", batch.status().ToString().c_str());
        if (!Sleep(options_.retry_max_ms)) return;
        continue;
      }
      if (batch->empty() && !NothingLeft()) {
        if (!Sleep(2)) return;
        continue;
      }
      if (batch->empty()) {
        if (metrics_) {
          metrics_->caught_up->Set(
              std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                  .count());
        }
        std::unique_lock<std::mutex> lock(mutex_);
        caught_up_poll_ = poll;
        caught_up_cv_.notify_all();
        wake_.wait_for(lock, std::chrono::milliseconds(options_.idle_wait_ms),
                       [&] { return stopping_ || woken_; });
        continue;
      }
      if (!ApplyBatch(*batch)) return;
      if (!FinishBatch()) return;
    }
  }

  beaconlog::LogReader* const reader_;
  RecordApplier* const applier_;
  const StreamWorkerOptions options_;
  std::unique_ptr<StreamMetrics> metrics_;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable caught_up_cv_;
  bool stopping_ = false;
  bool woken_ = false;
  uint64_t polls_started_ = 0;
  uint64_t caught_up_poll_ = 0;
  int awaiting_ = 0;
  std::thread thread_;

  std::vector<Lane> lanes_;
  std::mutex lanes_mutex_;
  std::condition_variable lanes_done_;
  int lanes_pending_ = 0;
  bool batch_applied_ = true;
  bool lanes_closed_ = false;
};

absl::StatusOr<std::unique_ptr<StreamWorker>> StreamWorker::Start(beaconlog::LogReader* reader,
                                                                  RecordApplier* applier,
                                                                  prometheus::Registry* registry,
                                                                  StreamWorkerOptions options) {
  if (reader == nullptr || applier == nullptr) {
    return absl::InvalidArgumentError("stream worker: a log reader and an applier are required");
  }
  if (options.batch_records < 1 || options.apply_threads < 1 || options.idle_wait_ms < 1 ||
      options.retry_min_ms < 1 || options.retry_max_ms < options.retry_min_ms || options.nice < 0 ||
      options.nice > 19) {
    return absl::InvalidArgumentError(
        "stream worker: batch_records, apply_threads, idle_wait_ms and retry_min_ms must be "
        "positive, retry_max_ms at least retry_min_ms, nice 0 to 19");
  }
  std::unique_ptr<Impl> impl;
  try {
    impl = std::make_unique<Impl>(reader, applier, registry, options);
  } catch (const std::exception& e) {
    return absl::InternalError(std::string("cannot declare the stream metrics: ") + e.what());
  }
  try {
    impl->Start();
  } catch (const std::system_error& e) {
    return absl::ResourceExhaustedError(std::string("stream worker: cannot start its threads: ") +
                                        e.what());
  }
  return std::unique_ptr<StreamWorker>(new StreamWorker(std::move(impl)));
}

StreamWorker::StreamWorker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamWorker::~StreamWorker() = default;

void StreamWorker::Wake() { impl_->Wake(); }

absl::Status StreamWorker::AwaitCaughtUp(absl::Duration timeout) {
  return impl_->AwaitCaughtUp(timeout);
}

}  // namespace rtb::bidder::stream
