// The embedded log's writer: appends are framed into one buffer under a
// mutex on the caller's thread, and a thread of the writer's own writes
// each group with one write() (and one fdatasync()), then runs the group's
// callbacks.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "beaconlog/embedded_log.h"
#include "beaconlog/internal/segment_files.h"

namespace rtb::beaconlog {
namespace {

using internal::ErrnoStatus;

// How often the writer rereads the committed position while nothing asks
// for it sooner (a refused append does).
constexpr auto kCommittedRefresh = std::chrono::milliseconds(100);

// A group this large is written without waiting for more (group_wait_us).
constexpr size_t kFullGroupBytes = size_t{1} << 20;

// Records taken and not yet written, framed back to back.
struct Group {
  std::string bytes;
  std::vector<size_t> record_sizes;
  std::vector<LogWriter::Done> done;

  bool empty() const { return done.empty(); }
  void clear() {
    bytes.clear();
    record_sizes.clear();
    done.clear();
  }
};

// Cuts the last segment at its first record that is incomplete or corrupt;
// its valid length.
absl::StatusOr<int64_t> CutTornTail(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open", path);
  std::string data;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return ErrnoStatus("read", path);
    }
    if (n == 0) break;
    data.append(chunk, static_cast<size_t>(n));
  }
  size_t valid = 0;
  while (valid < data.size()) {
    const internal::DecodedRecord record =
        internal::DecodeRecord(data.data() + valid, data.size() - valid);
    if (record.state != internal::Decoded::kComplete) break;
    valid += record.framed_bytes;
  }
  if (valid < data.size() &&
      (::ftruncate(fd, static_cast<off_t>(valid)) != 0 || ::fsync(fd) != 0)) {
    ::close(fd);
    return ErrnoStatus("truncate the torn tail of", path);
  }
  ::close(fd);
  return static_cast<int64_t>(valid);
}

class EmbeddedLogWriter final : public LogWriter {
 public:
  EmbeddedLogWriter(EmbeddedLogOptions options, internal::DirectoryLock lock)
      : options_(std::move(options)), lock_(std::move(lock)) {}

  ~EmbeddedLogWriter() override {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }

  // Finds the end of the log (cutting a torn tail) and starts the thread.
  absl::Status Start() {
    absl::StatusOr<int64_t> committed = internal::ReadCommitted(options_.path);
    if (!committed.ok()) return committed.status();
    committed_ = std::max<int64_t>(*committed, 0);
    absl::StatusOr<std::vector<int64_t>> segments = internal::ListSegments(options_.path);
    if (!segments.ok()) return segments.status();
    if (!segments->empty()) {
      const std::string path = internal::SegmentPath(options_.path, segments->back());
      absl::StatusOr<int64_t> valid = CutTornTail(path);
      if (!valid.ok()) return valid.status();
      segment_start_ = segments->back();
      segment_size_ = *valid;
    }
    // After a machine crash the reader may have committed records that
    // never reached the disk: positions go on from its committed one.
    if (segments->empty() || segment_start_ + segment_size_ < committed_) {
      segment_start_ = committed_;
      segment_size_ = 0;
    }
    if (absl::Status opened = OpenSegment(); !opened.ok()) return opened;
    end_ = segment_start_ + segment_size_;
    thread_ = std::thread([this] { Run(); });
    return absl::OkStatus();
  }

  void Append(std::string_view key, std::string_view payload, Done done) override {
    const size_t framed = internal::kRecordHeaderBytes + key.size() + payload.size();
    if (key.size() + payload.size() > kMaxRecordBytes) {
      done(absl::InvalidArgumentError(
          absl::StrCat("beacon log: a record of ", framed, " bytes is over the limit")));
      return;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (!broken_.ok() || stopping_) {
      const absl::Status why =
          broken_.ok() ? absl::UnavailableError("beacon log: closing") : broken_;
      ++stats_.failed;
      lock.unlock();
      done(why);
      return;
    }
    if (end_ - committed_ + stats_.pending_bytes + static_cast<int64_t>(framed) >
        options_.max_bytes) {
      ++stats_.refused_full;
      refresh_committed_ = true;
      lock.unlock();
      wake_.notify_one();
      done(absl::ResourceExhaustedError(
          absl::StrCat("beacon log full: ", options_.max_bytes,
                       " bytes wait to be applied; the stream worker is behind")));
      return;
    }
    internal::EncodeRecord(key, payload, &taken_.bytes);
    taken_.record_sizes.push_back(framed);
    taken_.done.push_back(std::move(done));
    stats_.pending_bytes += static_cast<int64_t>(framed);
    const bool first = taken_.done.size() == 1;
    if (first) first_taken_ = std::chrono::steady_clock::now();
    lock.unlock();
    if (first) wake_.notify_one();
  }

  absl::Status Flush(absl::Duration timeout) override {
    std::unique_lock<std::mutex> lock(mutex_);
    const bool drained = flushed_.wait_for(lock, absl::ToChronoMilliseconds(timeout),
                                           [&] { return taken_.empty() && !writing_; });
    if (!drained) return absl::DeadlineExceededError("beacon log: appends still pending");
    return broken_;
  }

  WriterStats Stats() const override {
    std::lock_guard<std::mutex> guard(mutex_);
    return stats_;
  }

 private:
  absl::Status OpenSegment() {
    const std::string path = internal::SegmentPath(options_.path, segment_start_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) return ErrnoStatus("open", path);
    return internal::SyncDirectory(options_.path);
  }

  // Writes one group, rolling to a new segment at a record boundary when the
  // current one is full; on return every byte of it is written (and synced).
  absl::Status WriteGroup(const Group& group) {
    size_t begin = 0;
    size_t run = 0;  // bytes of the records [begin, begin + run) for this segment
    for (size_t size : group.record_sizes) {
      if (segment_size_ + static_cast<int64_t>(run + size) > options_.segment_bytes &&
          segment_size_ + static_cast<int64_t>(run) > 0) {
        if (absl::Status s = WriteRun(std::string_view(group.bytes).substr(begin, run)); !s.ok()) {
          return s;
        }
        if (::fsync(fd_) != 0) return ErrnoStatus("fsync", "the full segment");
        begin += run;
        run = 0;
        segment_start_ += segment_size_;
        segment_size_ = 0;
        if (absl::Status s = OpenSegment(); !s.ok()) return s;
      }
      run += size;
    }
    if (absl::Status s = WriteRun(std::string_view(group.bytes).substr(begin, run)); !s.ok()) {
      return s;
    }
    if (options_.sync == SyncPolicy::kEveryBatch && ::fdatasync(fd_) != 0) {
      return ErrnoStatus("fdatasync", internal::SegmentPath(options_.path, segment_start_));
    }
    return absl::OkStatus();
  }

  absl::Status WriteRun(std::string_view bytes) {
    if (bytes.empty()) return absl::OkStatus();
    if (!internal::WriteAll(fd_, bytes)) {
      return ErrnoStatus("write", internal::SegmentPath(options_.path, segment_start_));
    }
    segment_size_ += static_cast<int64_t>(bytes.size());
    return absl::OkStatus();
  }

  void RefreshCommitted() {
    absl::StatusOr<int64_t> committed = internal::ReadCommitted(options_.path);
    std::lock_guard<std::mutex> guard(mutex_);
    if (committed.ok() && *committed > committed_) committed_ = *committed;
    refresh_committed_ = false;
    last_refresh_ = std::chrono::steady_clock::now();
  }

  // Holds a group open for group_wait_us after its first record (a sync
  // costs the same for one record as for many), unless the group is large
  // already or the writer is stopping.
  void WaitForMore(std::unique_lock<std::mutex>& lock) {
    if (options_.group_wait_us <= 0 || options_.sync != SyncPolicy::kEveryBatch) return;
    const auto deadline = first_taken_ + std::chrono::microseconds(options_.group_wait_us);
    while (!stopping_ && taken_.bytes.size() < kFullGroupBytes &&
           std::chrono::steady_clock::now() < deadline) {
      lock.unlock();
      std::this_thread::sleep_until(deadline);
      lock.lock();
    }
  }

  void Run() {
    Group group;
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait_for(lock, kCommittedRefresh,
                     [&] { return !taken_.empty() || stopping_ || refresh_committed_; });
      const bool refresh = refresh_committed_ ||
                           std::chrono::steady_clock::now() - last_refresh_ >= kCommittedRefresh;
      if (taken_.empty() && stopping_) break;
      if (!taken_.empty()) WaitForMore(lock);
      std::swap(group, taken_);
      writing_ = !group.empty();
      lock.unlock();
      if (refresh) RefreshCommitted();
      if (group.empty()) continue;
      absl::Status written = WriteGroup(group);
      lock.lock();
      const auto bytes = static_cast<int64_t>(group.bytes.size());
      stats_.pending_bytes -= bytes;
      if (written.ok()) {
        end_ += bytes;
        stats_.appended += static_cast<int64_t>(group.done.size());
      } else {
        broken_ = written;
        stats_.failed += static_cast<int64_t>(group.done.size());
      }
      lock.unlock();
      for (Done& done : group.done) done(written);
      group.clear();
      lock.lock();
      writing_ = false;
      lock.unlock();
      flushed_.notify_all();
    }
  }

  const EmbeddedLogOptions options_;
  internal::DirectoryLock lock_;
  std::thread thread_;

  // The writer thread's own.
  int fd_ = -1;
  int64_t segment_start_ = 0;
  int64_t segment_size_ = 0;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable flushed_;
  Group taken_;
  std::chrono::steady_clock::time_point first_taken_;  // of taken_'s first record
  bool writing_ = false;
  bool stopping_ = false;
  bool refresh_committed_ = false;
  std::chrono::steady_clock::time_point last_refresh_ = std::chrono::steady_clock::now();
  absl::Status broken_;
  int64_t end_ = 0;        // position after the last written record
  int64_t committed_ = 0;  // the reader's, as last read
  WriterStats stats_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<LogWriter>> OpenEmbeddedLogWriter(
    const EmbeddedLogOptions& options) {
  if (options.segment_bytes < 4096 || options.max_bytes < options.segment_bytes ||
      options.group_wait_us < 0 || options.group_wait_us > 100000) {
    return absl::InvalidArgumentError(
        "beacon log: segment_bytes must be at least 4096, max_bytes at least segment_bytes, "
        "group_wait_us 0 to 100000");
  }
  absl::StatusOr<internal::DirectoryLock> lock =
      internal::DirectoryLock::CreateAndAcquire(options.path, "writer.lock", "writer");
  if (!lock.ok()) return lock.status();
  auto writer = std::make_unique<EmbeddedLogWriter>(options, *std::move(lock));
  if (absl::Status started = writer->Start(); !started.ok()) return started;
  return std::unique_ptr<LogWriter>(std::move(writer));
}

}  // namespace rtb::beaconlog
