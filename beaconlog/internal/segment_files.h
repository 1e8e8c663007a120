// What the embedded log's writer and reader share: the record format, the
// segment names and the committed-position file (embedded_log.h).
#ifndef RTB_BEACONLOG_INTERNAL_SEGMENT_FILES_H_
#define RTB_BEACONLOG_INTERNAL_SEGMENT_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rtb::beaconlog::internal {

inline constexpr size_t kRecordHeaderBytes = 12;

// Appends one framed record to `out`.
void EncodeRecord(std::string_view key, std::string_view payload, std::string* out);

// Reads the record at `data` (at most `size` bytes). kComplete with its key,
// payload and framed length; kIncomplete when `size` ends inside it; kCorrupt
// when its lengths are impossible or its CRC does not match.
enum class Decoded { kComplete, kIncomplete, kCorrupt };
struct DecodedRecord {
  Decoded state = Decoded::kIncomplete;
  std::string_view key;
  std::string_view payload;
  size_t framed_bytes = 0;
};
DecodedRecord DecodeRecord(const char* data, size_t size);

// Segment start positions found in `dir`, ascending.
absl::StatusOr<std::vector<int64_t>> ListSegments(const std::string& dir);
std::string SegmentPath(const std::string& dir, int64_t start);

// The committed position, or -1 when none was written yet.
absl::StatusOr<int64_t> ReadCommitted(const std::string& dir);
// Replaces the committed position durably (write, fsync, rename, fsync the
// directory).
absl::Status WriteCommitted(const std::string& dir, int64_t position);

// Holds an exclusive flock on `dir`/`name` for as long as it lives.
class DirectoryLock {
 public:
  static absl::StatusOr<DirectoryLock> Acquire(const std::string& dir, std::string_view name,
                                               std::string_view holder);
  // Creates `dir` when missing, then Acquire.
  static absl::StatusOr<DirectoryLock> CreateAndAcquire(const std::string& dir,
                                                        std::string_view name,
                                                        std::string_view holder);
  DirectoryLock(DirectoryLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  DirectoryLock& operator=(DirectoryLock&& other) noexcept;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock();

 private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Writes all of `data` to `fd`; false on an error (errno tells).
bool WriteAll(int fd, std::string_view data);
// An errno as a status, naming what failed.
absl::Status ErrnoStatus(std::string_view what, const std::string& path);
// fsync of a directory, so a created, renamed or deleted name is durable.
absl::Status SyncDirectory(const std::string& dir);

}  // namespace rtb::beaconlog::internal

#endif  // RTB_BEACONLOG_INTERNAL_SEGMENT_FILES_H_
