// The embedded log's reader: reads the segments from its position with
// pread(), stops where the writer has not finished a record, commits by
// replacing the `committed` file, and deletes the segments wholly before it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "beaconlog/embedded_log.h"
#include "beaconlog/internal/segment_files.h"

namespace rtb::beaconlog {
namespace {

using internal::ErrnoStatus;

// Bytes read from a segment at a time.
constexpr size_t kReadChunk = size_t{1} << 20;
// How often Poll looks again for records while it waits.
constexpr auto kPollStep = std::chrono::milliseconds(2);

class EmbeddedLogReader final : public LogReader {
 public:
  EmbeddedLogReader(EmbeddedLogOptions options, internal::DirectoryLock lock)
      : options_(std::move(options)), lock_(std::move(lock)) {}
  ~EmbeddedLogReader() override {
    if (fd_ >= 0) ::close(fd_);
  }

  absl::Status Start() {
    absl::StatusOr<int64_t> committed = internal::ReadCommitted(options_.path);
    if (!committed.ok()) return committed.status();
    absl::StatusOr<std::vector<int64_t>> segments = internal::ListSegments(options_.path);
    if (!segments.ok()) return segments.status();
    position_ = *committed >= 0 ? *committed : (segments->empty() ? 0 : segments->front());
    committed_ = position_;
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<LogRecord>> Poll(size_t max_records, absl::Duration wait) override {
    const auto give_up = std::chrono::steady_clock::now() + absl::ToChronoMilliseconds(wait);
    std::vector<LogRecord> records;
    for (;;) {
      if (absl::Status read = ReadSome(max_records, &records); !read.ok()) return read;
      if (!records.empty() || std::chrono::steady_clock::now() >= give_up) return records;
      std::this_thread::sleep_for(kPollStep);
    }
  }

  absl::Status Commit() override {
    if (position_ == committed_) return absl::OkStatus();
    if (absl::Status s = internal::WriteCommitted(options_.path, position_); !s.ok()) return s;
    committed_ = position_;
    // Segments wholly before the committed position are done with.
    absl::StatusOr<std::vector<int64_t>> segments = internal::ListSegments(options_.path);
    if (!segments.ok()) return segments.status();
    for (size_t i = 0; i + 1 < segments->size(); ++i) {
      if ((*segments)[i + 1] > committed_) break;
      const std::string path = internal::SegmentPath(options_.path, (*segments)[i]);
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus("unlink", path);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<LogLag> Lag() override {
    absl::StatusOr<std::vector<int64_t>> segments = internal::ListSegments(options_.path);
    if (!segments.ok()) return segments.status();
    LogLag lag;
    lag.records = -1;  // not counted without reading them
    if (segments->empty()) return lag;
    struct stat st {};
    const std::string last = internal::SegmentPath(options_.path, segments->back());
    if (::stat(last.c_str(), &st) != 0) return ErrnoStatus("stat", last);
    lag.bytes = std::max<int64_t>(0, segments->back() + st.st_size - committed_);
    return lag;
  }

 private:
  // Opens the segment holding position_ (or, when the position is past the
  // end of its segment and a later one exists, moves to that one).
  absl::Status Locate() {
    absl::StatusOr<std::vector<int64_t>> segments = internal::ListSegments(options_.path);
    if (!segments.ok()) return segments.status();
    segments_ = *std::move(segments);
    int64_t start = -1;
    for (int64_t s : segments_) {
      if (s <= position_) start = s;
    }
    if (start < 0) {
      if (segments_.empty()) return absl::OkStatus();
      // Older segments are gone (or the committed file predates them).
      start = segments_.front();
      position_ = start;
    }
    if (start == segment_start_ && fd_ >= 0) return absl::OkStatus();
    if (fd_ >= 0) ::close(fd_);
    const std::string path = internal::SegmentPath(options_.path, start);
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return ErrnoStatus("open", path);
    segment_start_ = start;
    return absl::OkStatus();
  }

  // The start of the segment after the open one, or -1.
  int64_t NextSegment() const {
    for (int64_t s : segments_) {
      if (s > segment_start_) return s;
    }
    return -1;
  }

  absl::Status ReadSome(size_t max_records, std::vector<LogRecord>* records) {
    if (fd_ < 0) {
      if (absl::Status s = Locate(); !s.ok()) return s;
      if (fd_ < 0) return absl::OkStatus();
    }
    while (records->size() < max_records) {
      buffer_.resize(kReadChunk);
      const ssize_t n = ::pread(fd_, buffer_.data(), buffer_.size(), position_ - segment_start_);
      if (n < 0) return ErrnoStatus("read", internal::SegmentPath(options_.path, segment_start_));
      size_t used = 0;
      bool stuck = false;
      while (records->size() < max_records) {
        const internal::DecodedRecord record =
            internal::DecodeRecord(buffer_.data() + used, static_cast<size_t>(n) - used);
        if (record.state != internal::Decoded::kComplete) {
          stuck = true;
          break;
        }
        records->push_back({std::string(record.key), std::string(record.payload)});
        used += record.framed_bytes;
      }
      position_ += static_cast<int64_t>(used);
      if (!stuck) continue;                                                // max_records reached
      if (used > 0 && static_cast<size_t>(n) == buffer_.size()) continue;  // the chunk ended
      // Nothing more here now. A later segment means the writer moved on
      // (it rolls only at a record boundary): go to it; bytes left behind
      // here were a torn tail, counted. Otherwise the writer has not
      // finished the next record yet.
      const int64_t current = segment_start_;
      if (absl::Status s = Locate(); !s.ok()) return s;
      if (segment_start_ != current) continue;  // the position starts the next segment
      const int64_t next = NextSegment();
      if (next < 0) return absl::OkStatus();
      if (next > position_) {
        std::fprintf(stderr, "beacon log %s: %lld unreadable bytes before %lld skipped\n",
                     options_.path.c_str(), static_cast<long long>(next - position_),
                     static_cast<long long>(next));
      }
      position_ = next;
      if (absl::Status s = Locate(); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  const EmbeddedLogOptions options_;
  internal::DirectoryLock lock_;
  std::vector<int64_t> segments_;
  int fd_ = -1;
  int64_t segment_start_ = -1;
  int64_t position_ = 0;   // after the last record Poll returned
  int64_t committed_ = 0;  // as written to `committed`
  std::string buffer_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<LogReader>> OpenEmbeddedLogReader(
    const EmbeddedLogOptions& options) {
  absl::StatusOr<internal::DirectoryLock> lock =
      internal::DirectoryLock::CreateAndAcquire(options.path, "reader.lock", "reader");
  if (!lock.ok()) return lock.status();
  auto reader = std::make_unique<EmbeddedLogReader>(options, *std::move(lock));
  if (absl::Status started = reader->Start(); !started.ok()) return started;
  return std::unique_ptr<LogReader>(std::move(reader));
}

}  // namespace rtb::beaconlog
