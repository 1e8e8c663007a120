// The embedded beacon log: what is acknowledged is read back, in order,
// after a restart and after a torn tail; commits move the start and free
// the segments; a full log refuses and drops nothing; one writer and one
// reader per directory.
#include "beaconlog/embedded_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "beaconlog/internal/segment_files.h"
#include "gtest/gtest.h"

namespace rtb::beaconlog {
namespace {

class EmbeddedLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("rtb-beaconlog-", ::getpid(), "-",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    options_.path = dir_.string();
    options_.segment_bytes = 4096;
    options_.max_bytes = 1 << 20;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Appends and waits for its answer.
  static absl::Status AppendNow(LogWriter& writer, std::string_view key, std::string_view payload) {
    std::promise<absl::Status> answered;
    writer.Append(key, payload, [&](absl::Status s) { answered.set_value(std::move(s)); });
    return answered.get_future().get();
  }

  // Every record the reader has, as payloads.
  static std::vector<std::string> ReadAll(LogReader& reader) {
    std::vector<std::string> payloads;
    for (int i = 0; i < 10000; ++i) {
      absl::StatusOr<std::vector<LogRecord>> records = reader.Poll(100, absl::Milliseconds(20));
      EXPECT_TRUE(records.ok()) << records.status();
      if (!records.ok() || records->empty()) break;
      for (LogRecord& r : *records) payloads.push_back(std::move(r.payload));
    }
    return payloads;
  }

  std::filesystem::path dir_;
  EmbeddedLogOptions options_;
};

TEST_F(EmbeddedLogTest, AcknowledgedRecordsAreReadBackInOrderAcrossSegments) {
  auto writer = OpenEmbeddedLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  auto reader = OpenEmbeddedLogReader(options_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::vector<std::string> sent;
  for (int i = 0; i < 300; ++i) {
    sent.push_back(absl::StrCat("beacon-", i, std::string(40, 'x')));
    ASSERT_TRUE(AppendNow(**writer, absl::StrCat("k", i % 7), sent.back()).ok());
  }
  EXPECT_GT(internal::ListSegments(options_.path)->size(), 2u) << "the records span segments";
  EXPECT_EQ(ReadAll(**reader), sent);
  EXPECT_EQ((*writer)->Stats().appended, 300);
}

TEST_F(EmbeddedLogTest, ConcurrentAppendsAreAllAcknowledgedAndReadOnce) {
  auto writer = OpenEmbeddedLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  std::atomic<int> acknowledged = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        (*writer)->Append("k", absl::StrCat(t, ":", i), [&](absl::Status s) {
          if (s.ok()) ++acknowledged;
        });
      }
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_TRUE((*writer)->Flush(absl::Seconds(30)).ok());
  EXPECT_EQ(acknowledged.load(), 2000);
  auto reader = OpenEmbeddedLogReader(options_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::vector<std::string> read = ReadAll(**reader);
  ASSERT_EQ(read.size(), 2000u);
  // Each thread's records keep their order.
  std::vector<int> next(4, 0);
  for (const std::string& payload : read) {
    const int t = payload[0] - '0';
    EXPECT_EQ(payload, absl::StrCat(t, ":", next[t]++));
  }
}

// group_wait_us holds a group open: no record of it is answered before the
// wait has passed since the first (a lower bound, so a slow machine cannot
// break it), and every record of the burst is answered and read back.
TEST_F(EmbeddedLogTest, AGroupWaitsForMoreBeforeItsSync) {
  options_.segment_bytes = 1 << 16;
  options_.group_wait_us = 50000;
  auto writer = OpenEmbeddedLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  std::atomic<int> acknowledged = 0;
  std::atomic<int64_t> earliest_us = INT64_MAX;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    (*writer)->Append("k", absl::StrCat("beacon-", i), [&](absl::Status s) {
      const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::steady_clock::now() - start)
                             .count();
      int64_t seen = earliest_us.load();
      while (us < seen && !earliest_us.compare_exchange_weak(seen, us)) {
      }
      if (s.ok()) ++acknowledged;
    });
  }
  ASSERT_TRUE((*writer)->Flush(absl::Seconds(30)).ok());
  EXPECT_EQ(acknowledged.load(), 20);
  EXPECT_GE(earliest_us.load(), 50000) << "a record was answered before the group's wait ended";
  auto reader = OpenEmbeddedLogReader(options_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ(ReadAll(**reader).size(), 20u);
  options_.group_wait_us = 100001;
  EXPECT_EQ(OpenEmbeddedLogWriter(options_).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(EmbeddedLogTest, AReaderResumesAfterItsCommitAndCommittedSegmentsAreDeleted) {
  auto writer = OpenEmbeddedLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(AppendNow(**writer, "k", absl::StrCat("r", i, std::string(50, '.'))).ok());
  }
  const size_t segments_before = internal::ListSegments(options_.path)->size();
  {
    auto reader = OpenEmbeddedLogReader(options_);
    ASSERT_TRUE(reader.ok()) << reader.status();
    auto first = (*reader)->Poll(150, absl::Milliseconds(20));
    ASSERT_TRUE(first.ok());
    ASSERT_EQ(first->size(), 150u);
    ASSERT_TRUE((*reader)->Commit().ok());
    // Read further without committing: a restart reads these again.
    auto more = (*reader)->Poll(10, absl::Milliseconds(20));
    ASSERT_TRUE(more.ok());
    ASSERT_EQ(more->size(), 10u);
  }
  EXPECT_LT(internal::ListSegments(options_.path)->size(), segments_before);
  auto reader = OpenEmbeddedLogReader(options_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  const std::vector<std::string> rest = ReadAll(**reader);
  ASSERT_EQ(rest.size(), 50u);
  EXPECT_EQ(rest.front(), absl::StrCat("r150", std::string(50, '.')));
}

TEST_F(EmbeddedLogTest, AWriterReopenedAfterATornTailCutsItAndGoesOn) {
  {
    auto writer = OpenEmbeddedLogWriter(options_);
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE(AppendNow(**writer, "k", "first").ok());
    ASSERT_TRUE(AppendNow(**writer, "k", "second").ok());
  }
  // A crash in the middle of a write: half a record at the end.
  const int64_t last = internal::ListSegments(options_.path)->back();
  std::string torn;
  internal::EncodeRecord("k", "never acknowledged", &torn);
  const int fd = ::open(internal::SegmentPath(options_.path, last).c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(internal::WriteAll(fd, std::string_view(torn).substr(0, torn.size() / 2)));
  ::close(fd);

  auto writer = OpenEmbeddedLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE(AppendNow(**writer, "k", "third").ok());
  auto reader = OpenEmbeddedLogReader(options_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ(ReadAll(**reader), (std::vector<std::string>{"first", "second", "third"}));
}

TEST_F(EmbeddedLogTest, AFullLogRefusesAppendsUntilTheReaderCommits) {
  options_.max_bytes = 8192;
  auto writer = OpenEmbeddedLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  const std::string payload(500, 'p');
  int accepted = 0;
  absl::Status refused;
  for (int i = 0; i < 100 && refused.ok(); ++i) {
    refused = AppendNow(**writer, "k", payload);
    if (refused.ok()) ++accepted;
  }
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
  EXPECT_GT(accepted, 10);
  EXPECT_EQ((*writer)->Stats().refused_full, 1);

  auto reader = OpenEmbeddedLogReader(options_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ(ReadAll(**reader).size(), static_cast<size_t>(accepted)) << "nothing accepted is lost";
  ASSERT_TRUE((*reader)->Commit().ok());
  // The writer rereads the committed position when an append is refused.
  absl::Status again = AppendNow(**writer, "k", payload);
  for (int i = 0; i < 50 && !again.ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    again = AppendNow(**writer, "k", payload);
  }
  EXPECT_TRUE(again.ok()) << again;
}

TEST_F(EmbeddedLogTest, ASecondWriterOrReaderOnOneDirectoryIsRefused) {
  auto writer = OpenEmbeddedLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  auto second_writer = OpenEmbeddedLogWriter(options_);
  EXPECT_EQ(second_writer.status().code(), absl::StatusCode::kFailedPrecondition);
  auto reader = OpenEmbeddedLogReader(options_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  auto second_reader = OpenEmbeddedLogReader(options_);
  EXPECT_EQ(second_reader.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(EmbeddedLogTest, LagIsTheBytesNotYetCommitted) {
  auto writer = OpenEmbeddedLogWriter(options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  auto reader = OpenEmbeddedLogReader(options_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  ASSERT_TRUE(AppendNow(**writer, "key", "payload").ok());
  auto lag = (*reader)->Lag();
  ASSERT_TRUE(lag.ok());
  EXPECT_EQ(lag->bytes, static_cast<int64_t>(internal::kRecordHeaderBytes + 3 + 7));
  ASSERT_EQ(ReadAll(**reader).size(), 1u);
  ASSERT_TRUE((*reader)->Commit().ok());
  EXPECT_EQ((*reader)->Lag()->bytes, 0);
}

TEST(SegmentRecordTest, ACorruptOrShortRecordIsNotReadAsOne) {
  std::string framed;
  internal::EncodeRecord("key", "payload", &framed);
  EXPECT_EQ(internal::DecodeRecord(framed.data(), framed.size()).state,
            internal::Decoded::kComplete);
  EXPECT_EQ(internal::DecodeRecord(framed.data(), framed.size() - 1).state,
            internal::Decoded::kIncomplete);
  framed.back() ^= 1;
  EXPECT_EQ(internal::DecodeRecord(framed.data(), framed.size()).state,
            internal::Decoded::kCorrupt);
}

}  // namespace
}  // namespace rtb::beaconlog
