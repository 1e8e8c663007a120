// The stream worker over a real embedded log: every record is applied once
// and committed only after every lane's flush; one key's records are
// applied in log order whatever the lanes; lanes overlap; a refused record
// is retried, never skipped, and a malformed one is passed over.
#include "bidder/stream/stream_worker.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "beaconlog/embedded_log.h"
#include "gtest/gtest.h"

namespace rtb::bidder::stream {
namespace {

// Payloads are "<key>:<sequence number within the key>"; the applier notes
// each key's sequence numbers in the order it applied them, and counts a
// record flushed once its lane's Flush succeeded.
class RecordingApplier : public RecordApplier {
 public:
  class Lane final : public RecordApplier::Lane {
   public:
    explicit Lane(RecordingApplier& applier) : applier_(applier) {}
    absl::Status Apply(const beaconlog::LogRecord& record) override {
      absl::Status s = applier_.Apply(record);
      if (s.ok()) ++unflushed_;
      return s;
    }
    absl::Status Flush() override {
      if (absl::Status s = applier_.Flushed(unflushed_); !s.ok()) return s;
      unflushed_ = 0;
      return absl::OkStatus();
    }

   private:
    RecordingApplier& applier_;
    int unflushed_ = 0;
  };

  std::unique_ptr<RecordApplier::Lane> NewLane() override { return std::make_unique<Lane>(*this); }

  absl::Status Apply(const beaconlog::LogRecord& record) {
    if (record.payload == "malformed") return absl::InvalidArgumentError("not a beacon");
    const int in_flight = ++in_flight_;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      most_in_flight_ = std::max(most_in_flight_, in_flight);
      if (refusals_left_ > 0) {
        --refusals_left_;
        --in_flight_;
        return absl::UnavailableError("the store is down");
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    std::vector<std::string> parts = absl::StrSplit(record.payload, ':');
    int sequence = -1;
    EXPECT_EQ(parts.size(), 2u);
    EXPECT_TRUE(absl::SimpleAtoi(parts.back(), &sequence)) << record.payload;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      applied_[parts.front()].push_back(sequence);
      ++total_applied_;
    }
    --in_flight_;
    return absl::OkStatus();
  }

  absl::Status Flushed(int records) {
    std::lock_guard<std::mutex> guard(mutex_);
    if (refuse_flushes_) return absl::UnavailableError("the store is down");
    flushed_ += records;
    return absl::OkStatus();
  }

  void RefuseFlushes(bool refuse) {
    std::lock_guard<std::mutex> guard(mutex_);
    refuse_flushes_ = refuse;
  }
  int total_applied() {
    std::lock_guard<std::mutex> guard(mutex_);
    return total_applied_;
  }

  void RefuseNext(int n) {
    std::lock_guard<std::mutex> guard(mutex_);
    refusals_left_ = n;
  }
  void SleepPerRecord(int us) { sleep_us_ = us; }

  std::map<std::string, std::vector<int>> applied() {
    std::lock_guard<std::mutex> guard(mutex_);
    return applied_;
  }
  int flushed() {
    std::lock_guard<std::mutex> guard(mutex_);
    return flushed_;
  }
  int most_in_flight() {
    std::lock_guard<std::mutex> guard(mutex_);
    return most_in_flight_;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::vector<int>> applied_;
  std::atomic<int> in_flight_ = 0;
  std::atomic<int> sleep_us_ = 0;
  int most_in_flight_ = 0;
  int refusals_left_ = 0;
  bool refuse_flushes_ = false;
  int total_applied_ = 0;
  int flushed_ = 0;
};

class StreamWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("rtb-stream-worker-", ::getpid(), "-",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    log_options_.path = dir_.string();
    auto writer = beaconlog::OpenEmbeddedLogWriter(log_options_);
    ASSERT_TRUE(writer.ok()) << writer.status();
    writer_ = *std::move(writer);
    OpenReader();
  }
  void TearDown() override {
    writer_.reset();
    reader_.reset();
    std::filesystem::remove_all(dir_);
  }

  void OpenReader() {
    reader_.reset();
    auto reader = beaconlog::OpenEmbeddedLogReader(log_options_);
    ASSERT_TRUE(reader.ok()) << reader.status();
    reader_ = *std::move(reader);
  }

  // Appends `per_key` records to each of `keys` keys, interleaved.
  void AppendRecords(int keys, int per_key) {
    for (int i = 0; i < per_key; ++i) {
      for (int k = 0; k < keys; ++k) Append(absl::StrCat("imp", k), absl::StrCat("imp", k, ":", i));
    }
  }
  void Append(const std::string& key, const std::string& payload) {
    std::promise<absl::Status> done;
    writer_->Append(key, payload, [&](absl::Status s) { done.set_value(s); });
    ASSERT_TRUE(done.get_future().get().ok());
  }

  std::unique_ptr<StreamWorker> StartWorker(StreamWorkerOptions options) {
    options.retry_min_ms = 1;
    options.retry_max_ms = 5;
    auto worker = StreamWorker::Start(reader_.get(), &applier_, nullptr, options);
    EXPECT_TRUE(worker.ok()) << worker.status();
    return worker.ok() ? *std::move(worker) : nullptr;
  }

  static void ExpectEveryKeyInOrder(const std::map<std::string, std::vector<int>>& applied,
                                    int keys, int per_key) {
    ASSERT_EQ(applied.size(), static_cast<size_t>(keys));
    for (const auto& [key, sequence] : applied) {
      ASSERT_EQ(sequence.size(), static_cast<size_t>(per_key)) << key;
      for (int i = 0; i < per_key; ++i) ASSERT_EQ(sequence[i], i) << key;
    }
  }

  std::filesystem::path dir_;
  beaconlog::EmbeddedLogOptions log_options_;
  std::unique_ptr<beaconlog::LogWriter> writer_;
  std::unique_ptr<beaconlog::LogReader> reader_;
  RecordingApplier applier_;
};

TEST_F(StreamWorkerTest, EveryRecordIsAppliedOnceInKeyOrderAcrossLanes) {
  AppendRecords(/*keys=*/37, /*per_key=*/40);
  std::unique_ptr<StreamWorker> worker = StartWorker({.batch_records = 100, .apply_threads = 6});
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(worker->AwaitCaughtUp(absl::Seconds(60)).ok());
  ExpectEveryKeyInOrder(applier_.applied(), 37, 40);
  EXPECT_EQ(applier_.flushed(), 37 * 40);
}

TEST_F(StreamWorkerTest, LanesApplyAtOnce) {
  applier_.SleepPerRecord(2000);
  AppendRecords(/*keys=*/64, /*per_key=*/2);
  std::unique_ptr<StreamWorker> worker = StartWorker({.batch_records = 128, .apply_threads = 4});
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(worker->AwaitCaughtUp(absl::Seconds(60)).ok());
  ExpectEveryKeyInOrder(applier_.applied(), 64, 2);
  EXPECT_GT(applier_.most_in_flight(), 1) << "the lanes of a batch ran one after another";
  EXPECT_LE(applier_.most_in_flight(), 4);
}

// The nice value of the thread named `name` in this process, or -100.
int NiceOfThread(const std::string& name) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string comm_name;
    std::getline(comm, comm_name);
    if (comm_name != name) continue;
    std::ifstream stat(task.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    // After "(comm) ", the fields from the third on; nice is the 19th.
    std::vector<std::string> fields = absl::StrSplit(text.substr(text.rfind(')') + 2), ' ');
    int nice = -100;
    if (fields.size() > 16 && absl::SimpleAtoi(fields[16], &nice)) return nice;
  }
  return -100;
}

TEST_F(StreamWorkerTest, TheWorkerRunsNamedAndAtALowerPriority) {
  std::unique_ptr<StreamWorker> worker = StartWorker({.nice = 7});
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(worker->AwaitCaughtUp(absl::Seconds(60)).ok());
  const int process_nice = NiceOfThread(
      std::filesystem::read_symlink("/proc/self/exe").filename().string().substr(0, 15));
  EXPECT_EQ(NiceOfThread("rtb-stream"), std::min(19, process_nice + 7));
}

TEST_F(StreamWorkerTest, OneLaneKeepsLogOrder) {
  AppendRecords(/*keys=*/5, /*per_key=*/30);
  std::unique_ptr<StreamWorker> worker = StartWorker({.batch_records = 7, .apply_threads = 1});
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(worker->AwaitCaughtUp(absl::Seconds(60)).ok());
  EXPECT_EQ(applier_.most_in_flight(), 1);
  ExpectEveryKeyInOrder(applier_.applied(), 5, 30);
}

TEST_F(StreamWorkerTest, RefusedRecordsAreRetriedAndMalformedOnesPassedOver) {
  applier_.RefuseNext(25);
  AppendRecords(/*keys=*/3, /*per_key=*/10);
  Append("imp0", "malformed");
  std::unique_ptr<StreamWorker> worker = StartWorker({.batch_records = 8, .apply_threads = 3});
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(worker->AwaitCaughtUp(absl::Seconds(60)).ok());
  ExpectEveryKeyInOrder(applier_.applied(), 3, 10);
}

// What was committed is not read again by the next reader; what was
// appended after the worker stopped is.
TEST_F(StreamWorkerTest, ANewReaderStartsAfterTheCommittedBatches) {
  AppendRecords(/*keys=*/4, /*per_key=*/5);
  {
    std::unique_ptr<StreamWorker> worker = StartWorker({.batch_records = 6, .apply_threads = 2});
    ASSERT_NE(worker, nullptr);
    ASSERT_TRUE(worker->AwaitCaughtUp(absl::Seconds(60)).ok());
  }
  Append("imp9", "imp9:0");
  OpenReader();
  std::unique_ptr<StreamWorker> worker = StartWorker({.batch_records = 6, .apply_threads = 2});
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(worker->AwaitCaughtUp(absl::Seconds(60)).ok());
  std::map<std::string, std::vector<int>> applied = applier_.applied();
  EXPECT_EQ(applied["imp9"], std::vector<int>{0});
  applied.erase("imp9");
  ExpectEveryKeyInOrder(applied, 4, 5);
}

// A lane whose flush keeps failing holds the commit back: the records are
// applied but the batch is not committed, so the next worker applies them
// again (which the applier's idempotence makes harmless).
TEST_F(StreamWorkerTest, NothingIsCommittedUntilEveryLaneFlushed) {
  AppendRecords(/*keys=*/8, /*per_key=*/3);
  applier_.RefuseFlushes(true);
  {
    std::unique_ptr<StreamWorker> worker = StartWorker({.batch_records = 64, .apply_threads = 4});
    ASSERT_NE(worker, nullptr);
    for (int i = 0; i < 2000 && applier_.total_applied() < 24; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(applier_.total_applied(), 24);
    EXPECT_FALSE(worker->AwaitCaughtUp(absl::Milliseconds(200)).ok());
    EXPECT_EQ(applier_.flushed(), 0);
  }
  applier_.RefuseFlushes(false);
  OpenReader();
  std::unique_ptr<StreamWorker> worker = StartWorker({.batch_records = 64, .apply_threads = 4});
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(worker->AwaitCaughtUp(absl::Seconds(60)).ok());
  EXPECT_EQ(applier_.total_applied(), 48) << "the uncommitted batch is applied again";
  EXPECT_EQ(applier_.flushed(), 24);
}

TEST_F(StreamWorkerTest, RefusesOptionsThatCannotWork) {
  for (StreamWorkerOptions options :
       {StreamWorkerOptions{.batch_records = 0}, StreamWorkerOptions{.apply_threads = 0},
        StreamWorkerOptions{.retry_min_ms = 10, .retry_max_ms = 5},
        StreamWorkerOptions{.nice = 20}}) {
    absl::StatusOr<std::unique_ptr<StreamWorker>> worker =
        StreamWorker::Start(reader_.get(), &applier_, nullptr, options);
    EXPECT_EQ(worker.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace rtb::bidder::stream
