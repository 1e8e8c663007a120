// The Kafka beacon log against a real broker, named by RTB_KAFKA_BROKERS
// (host:port): deploy/run-tests.sh sets it after `deploy/kafka/kafka.sh
// start` and `wait`. Without it the tests that need a broker skip, except
// under CI=true, where they fail: a test whose service did not start must
// not pass as skipped. The broker-restart test restarts that broker with
// deploy/kafka/kafka.sh (same RTB_KAFKA_* environment), so the broker must
// be the script's. Every test writes a topic of its own.
#include "beaconlog/kafka_log.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace rtb::beaconlog {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

class KafkaLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string brokers = Env("RTB_KAFKA_BROKERS");
    if (brokers.empty()) {
      if (Env("CI") == "true") {
        FAIL() << "RTB_KAFKA_BROKERS is not set under CI=true: Kafka did not start "
                  "(deploy/run-tests.sh starts it with deploy/kafka/kafka.sh)";
      }
      GTEST_SKIP() << "no Kafka: run `deploy/kafka/kafka.sh start && deploy/kafka/kafka.sh "
                      "wait`, then set RTB_KAFKA_BROKERS=127.0.0.1:9092";
    }
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    options_.brokers = brokers;
    options_.topic = absl::StrCat("rtb-beaconlog-test-", name, "-", ::getpid(), "-",
                                  absl::ToUnixMicros(absl::Now()));
    options_.group_id = absl::StrCat(options_.topic, "-stream");
    options_.partitions = 4;
    options_.request_timeout = absl::Seconds(30);
  }

  // The readers' options: rebalances within a second or two, not the
  // defaults' several.
  KafkaLogOptions ReaderOptions() const {
    KafkaLogOptions options = options_;
    options.properties["session.timeout.ms"] = "6000";
    options.properties["heartbeat.interval.ms"] = "500";
    return options;
  }

  static absl::Status AppendNow(LogWriter& writer, std::string_view key, std::string_view payload) {
    std::promise<absl::Status> answered;
    writer.Append(key, payload, [&](absl::Status s) { answered.set_value(std::move(s)); });
    return answered.get_future().get();
  }

  // Appends `count` records whose keys cycle through `keys` and whose
  // payloads are "<key>:<sequence within the key>"; all acknowledged.
  static void AppendAll(LogWriter& writer, int count, int keys) {
    std::atomic<int> acknowledged = 0;
    for (int i = 0; i < count; ++i) {
      const std::string key = absl::StrCat("imp-", i % keys);
      writer.Append(key, absl::StrCat(key, ":", i / keys), [&](absl::Status s) {
        EXPECT_TRUE(s.ok()) << s;
        if (s.ok()) ++acknowledged;
      });
    }
    ASSERT_TRUE(writer.Flush(absl::Seconds(60)).ok());
    ASSERT_EQ(acknowledged.load(), count);
  }

  // Polls until `count` records came (never more than that many) or
  // `timeout` passed.
  static std::vector<LogRecord> ReadUntil(LogReader& reader, size_t count, absl::Duration timeout) {
    std::vector<LogRecord> records;
    const absl::Time give_up = absl::Now() + timeout;
    while (records.size() < count && absl::Now() < give_up) {
      absl::StatusOr<std::vector<LogRecord>> polled =
          reader.Poll(count - records.size(), absl::Milliseconds(200));
      EXPECT_TRUE(polled.ok()) << polled.status();
      if (!polled.ok()) break;
      for (LogRecord& r : *polled) records.push_back(std::move(r));
    }
    return records;
  }

  static std::multiset<std::string> Payloads(const std::vector<LogRecord>& records) {
    std::multiset<std::string> payloads;
    for (const LogRecord& r : records) payloads.insert(r.payload);
    return payloads;
  }

  KafkaLogOptions options_;
};

TEST_F(KafkaLogTest, AppendedRecordsAreReadBackInOrderPerKey) {
  auto writer = OpenKafkaLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  AppendAll(**writer, 400, 10);
  const WriterStats stats = (*writer)->Stats();
  EXPECT_EQ(stats.appended, 400);
  EXPECT_EQ(stats.failed, 0);
  EXPECT_EQ(stats.pending_bytes, 0);

  auto reader = OpenKafkaLogReader(ReaderOptions());
  ASSERT_TRUE(reader.ok()) << reader.status();
  const std::vector<LogRecord> records = ReadUntil(**reader, 400, absl::Seconds(60));
  ASSERT_EQ(records.size(), 400u);
  std::map<std::string, int> next;  // per key, the sequence expected next
  for (const LogRecord& r : records) {
    EXPECT_EQ(r.payload, absl::StrCat(r.key, ":", next[r.key]++)) << "out of order";
  }
  EXPECT_EQ(next.size(), 10u);
}

TEST_F(KafkaLogTest, ANewReaderResumesAfterTheCommitAndRereadsWhatWasNotCommitted) {
  auto writer = OpenKafkaLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  AppendAll(**writer, 100, 7);
  std::vector<LogRecord> committed;
  std::vector<LogRecord> uncommitted;
  {
    auto reader = OpenKafkaLogReader(ReaderOptions());
    ASSERT_TRUE(reader.ok()) << reader.status();
    committed = ReadUntil(**reader, 60, absl::Seconds(60));
    ASSERT_EQ(committed.size(), 60u);
    ASSERT_TRUE((*reader)->Commit().ok());
    EXPECT_TRUE((*reader)->Commit().ok()) << "nothing new: a no-op";
    uncommitted = ReadUntil(**reader, 20, absl::Seconds(30));
    ASSERT_EQ(uncommitted.size(), 20u);
  }
  auto reader = OpenKafkaLogReader(ReaderOptions());
  ASSERT_TRUE(reader.ok()) << reader.status();
  const std::vector<LogRecord> rest = ReadUntil(**reader, 40, absl::Seconds(60));
  ASSERT_EQ(rest.size(), 40u);
  auto more = (*reader)->Poll(100, absl::Seconds(2));
  ASSERT_TRUE(more.ok()) << more.status();
  EXPECT_TRUE(more->empty()) << "nothing committed is read again";

  std::multiset<std::string> all = Payloads(committed);
  for (const std::string& p : Payloads(rest)) {
    EXPECT_EQ(all.count(p), 0u) << p << " was committed and is read again";
    all.insert(p);
  }
  EXPECT_EQ(all.size(), 100u);
  const std::multiset<std::string> again = Payloads(rest);
  for (const std::string& p : Payloads(uncommitted)) {
    EXPECT_EQ(again.count(p), 1u) << p << " was read, not committed, and is not read again";
  }
}

TEST_F(KafkaLogTest, TwoReadersOfOneGroupSplitThePartitionsAndMissNothing) {
  auto writer = OpenKafkaLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  auto first = OpenKafkaLogReader(ReaderOptions());
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = OpenKafkaLogReader(ReaderOptions());
  ASSERT_TRUE(second.ok()) << second.status();
  LogReader* readers[] = {first->get(), second->get()};
  // Both join the group (the rebalances run inside Poll) before the records come.
  const absl::Time settled = absl::Now() + absl::Seconds(5);
  while (absl::Now() < settled) {
    for (LogReader* reader : readers) ASSERT_TRUE(reader->Poll(100, absl::Milliseconds(100)).ok());
  }
  AppendAll(**writer, 400, 40);

  std::set<std::string> seen;
  size_t read_by[2] = {0, 0};
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  while (seen.size() < 400 && absl::Now() < give_up) {
    for (int i = 0; i < 2; ++i) {
      auto records = readers[i]->Poll(100, absl::Milliseconds(100));
      ASSERT_TRUE(records.ok()) << records.status();
      for (const LogRecord& r : *records) seen.insert(r.payload);
      read_by[i] += records->size();
      // May fail while a rebalance is going on; the records are read again.
      readers[i]->Commit().IgnoreError();
    }
  }
  EXPECT_EQ(seen.size(), 400u) << "every record is read by one reader or the other";
  EXPECT_GE(read_by[0] + read_by[1], 400u);
  EXPECT_GT(read_by[0], 0u) << "the partitions are split between the readers";
  EXPECT_GT(read_by[1], 0u) << "the partitions are split between the readers";
}

// What a producer and a consumer see of a broker restart: appends go on the
// whole time; every one acknowledged OK is read afterwards, and the reader,
// polling and committing throughout, recovers without being reopened.
TEST_F(KafkaLogTest, ABrokerRestartLosesNoAcknowledgedRecord) {
  auto writer = OpenKafkaLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  KafkaLogOptions reader_options = ReaderOptions();
  reader_options.request_timeout = absl::Seconds(5);  // a Commit gives up soon while it is away
  auto reader = OpenKafkaLogReader(reader_options);
  ASSERT_TRUE(reader.ok()) << reader.status();

  std::mutex mutex;
  std::set<int> acknowledged;
  std::set<int> read;
  std::atomic<int> failed = 0;
  std::atomic<bool> stop_writing = false;
  std::atomic<bool> stop_reading = false;
  std::thread producer([&] {
    for (int i = 0; !stop_writing; ++i) {
      (*writer)->Append(absl::StrCat("imp-", i % 20), absl::StrCat(i), [&, i](absl::Status s) {
        if (!s.ok()) ++failed;
        if (!s.ok()) return;
        std::lock_guard<std::mutex> guard(mutex);
        acknowledged.insert(i);
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  std::thread consumer([&] {
    while (!stop_reading) {
      auto records = (*reader)->Poll(500, absl::Milliseconds(200));
      ASSERT_TRUE(records.ok()) << records.status();
      {
        std::lock_guard<std::mutex> guard(mutex);
        for (const LogRecord& r : *records) {
          int i = 0;
          if (absl::SimpleAtoi(r.payload, &i)) read.insert(i);
        }
      }
      (*reader)->Commit().IgnoreError();  // fails while the broker is away; the next one goes on
    }
  });

  std::this_thread::sleep_for(std::chrono::seconds(2));
  const std::string restart =
      absl::StrCat("bash '", RTB_SOURCE_DIR, "/deploy/kafka/kafka.sh' restart");
  const int rc = std::system(restart.c_str());
  size_t acknowledged_before_restart_ended = 0;
  {
    std::lock_guard<std::mutex> guard(mutex);
    acknowledged_before_restart_ended = acknowledged.size();
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  stop_writing = true;
  producer.join();
  EXPECT_TRUE((*writer)->Flush(absl::Seconds(60)).ok());

  std::set<int> missing;
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::lock_guard<std::mutex> guard(mutex);
    missing.clear();
    for (int i : acknowledged) {
      if (read.count(i) == 0) missing.insert(i);
    }
  } while (!missing.empty() && absl::Now() < give_up);
  stop_reading = true;
  consumer.join();

  ASSERT_EQ(rc, 0) << restart << " failed";
  EXPECT_GT(acknowledged.size(), acknowledged_before_restart_ended)
      << "appends after the restart are acknowledged";
  EXPECT_TRUE(missing.empty()) << missing.size() << " acknowledged records never read, first "
                               << *missing.begin();
  EXPECT_EQ(failed.load(), 0) << "a restart shorter than delivery_timeout_ms fails no append";
}

TEST_F(KafkaLogTest, ARecordOverTheLimitIsRefusedAtOnce) {
  auto writer = OpenKafkaLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  absl::Status answer = absl::UnknownError("no answer inside Append");
  (*writer)->Append("k", std::string(kMaxRecordBytes, 'x'), [&](absl::Status s) { answer = s; });
  EXPECT_EQ(answer.code(), absl::StatusCode::kInvalidArgument) << answer;
  EXPECT_TRUE(AppendNow(**writer, "k", std::string(kMaxRecordBytes - 1, 'x')).ok());
}

TEST_F(KafkaLogTest, AFullLocalQueueRefusesAtOnceAndKeepsWhatItTook) {
  options_.properties["queue.buffering.max.messages"] = "5";
  options_.properties["linger.ms"] = "3000";  // the five wait in the queue
  auto writer = OpenKafkaLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  std::atomic<int> acknowledged = 0;
  for (int i = 0; i < 5; ++i) {
    (*writer)->Append("k", absl::StrCat(i), [&](absl::Status s) {
      EXPECT_TRUE(s.ok()) << s;
      ++acknowledged;
    });
  }
  absl::Status answer = absl::UnknownError("no answer inside Append");
  (*writer)->Append("k", "sixth", [&](absl::Status s) { answer = s; });
  EXPECT_EQ(answer.code(), absl::StatusCode::kResourceExhausted) << answer;
  EXPECT_EQ((*writer)->Stats().refused_full, 1);
  EXPECT_GT((*writer)->Stats().pending_bytes, 0);
  ASSERT_TRUE((*writer)->Flush(absl::Seconds(30)).ok());
  EXPECT_EQ(acknowledged.load(), 5);
  EXPECT_EQ((*writer)->Stats().appended, 5);
}

TEST_F(KafkaLogTest, LagCountsTheRecordsNotYetCommitted) {
  auto writer = OpenKafkaLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  AppendAll(**writer, 10, 3);
  auto reader = OpenKafkaLogReader(ReaderOptions());
  ASSERT_TRUE(reader.ok()) << reader.status();
  ASSERT_EQ(ReadUntil(**reader, 10, absl::Seconds(60)).size(), 10u);
  auto lag = (*reader)->Lag();
  ASSERT_TRUE(lag.ok()) << lag.status();
  EXPECT_EQ(lag->records, 10);
  EXPECT_EQ(lag->bytes, 0);
  ASSERT_TRUE((*reader)->Commit().ok());
  lag = (*reader)->Lag();
  ASSERT_TRUE(lag.ok()) << lag.status();
  EXPECT_EQ(lag->records, 0);
}

// These need no broker.
TEST(KafkaLogOptionsTest, BadOptionsAreRefused) {
  KafkaLogOptions options;
  options.brokers = "127.0.0.1:9";
  EXPECT_EQ(OpenKafkaLogWriter(options).status().code(), absl::StatusCode::kInvalidArgument);
  options.topic = "t";
  options.properties["enable.auto.commit"] = "true";
  EXPECT_EQ(OpenKafkaLogReader(options).status().code(), absl::StatusCode::kInvalidArgument);
  options.properties = {{"no.such.property", "1"}};
  EXPECT_EQ(OpenKafkaLogWriter(options).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(KafkaLogOptionsTest, OpeningWithoutABrokerFailsInTime) {
  KafkaLogOptions options;
  options.brokers = "127.0.0.1:9";  // discard: nothing listens
  options.topic = "t";
  options.request_timeout = absl::Seconds(2);
  const absl::Time start = absl::Now();
  auto writer = OpenKafkaLogWriter(options);
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kUnavailable) << writer.status();
  auto reader = OpenKafkaLogReader(options);
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kUnavailable) << reader.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(15));
}

}  // namespace
}  // namespace rtb::beaconlog
