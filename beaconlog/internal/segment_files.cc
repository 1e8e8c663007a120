#include "beaconlog/internal/segment_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "beaconlog/beacon_log.h"

namespace rtb::beaconlog::internal {
namespace {

constexpr std::string_view kSegmentSuffix = ".seg";
constexpr char kCommittedName[] = "committed";

void PutU32(uint32_t v, char* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

uint32_t GetU32(const char* in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  return v;
}

uint32_t Crc(const char* lengths, std::string_view key, std::string_view payload) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(lengths), 8);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(key.data()), static_cast<uInt>(key.size()));
  crc =
      crc32(crc, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
  return static_cast<uint32_t>(crc);
}

}  // namespace

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void EncodeRecord(std::string_view key, std::string_view payload, std::string* out) {
  char header[kRecordHeaderBytes];
  PutU32(static_cast<uint32_t>(key.size()), header);
  PutU32(static_cast<uint32_t>(payload.size()), header + 4);
  PutU32(Crc(header, key, payload), header + 8);
  out->append(header, kRecordHeaderBytes);
  out->append(key);
  out->append(payload);
}

DecodedRecord DecodeRecord(const char* data, size_t size) {
  DecodedRecord record;
  if (size < kRecordHeaderBytes) return record;
  const uint32_t key_size = GetU32(data);
  const uint32_t payload_size = GetU32(data + 4);
  if (uint64_t{key_size} + payload_size > kMaxRecordBytes) {
    record.state = Decoded::kCorrupt;
    return record;
  }
  const size_t framed = kRecordHeaderBytes + key_size + payload_size;
  if (size < framed) return record;
  record.key = std::string_view(data + kRecordHeaderBytes, key_size);
  record.payload = std::string_view(data + kRecordHeaderBytes + key_size, payload_size);
  if (Crc(data, record.key, record.payload) != GetU32(data + 8)) {
    record.state = Decoded::kCorrupt;
    return record;
  }
  record.state = Decoded::kComplete;
  record.framed_bytes = framed;
  return record;
}

absl::StatusOr<std::vector<int64_t>> ListSegments(const std::string& dir) {
  std::vector<int64_t> starts;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() != 20 + kSegmentSuffix.size() || !name.ends_with(kSegmentSuffix)) continue;
    int64_t start = 0;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + 20, start);
    if (ec != std::errc() || end != name.data() + 20) continue;
    starts.push_back(start);
  }
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("beacon log: cannot list ", dir, ": ", error.message()));
  }
  std::sort(starts.begin(), starts.end());
  return starts;
}

std::string SegmentPath(const std::string& dir, int64_t start) {
  return absl::StrFormat("%s/%020d%s", dir, start, kSegmentSuffix);
}

absl::StatusOr<int64_t> ReadCommitted(const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/", kCommittedName);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return -1;
    return ErrnoStatus("open", path);
  }
  char text[32];
  const ssize_t n = ::read(fd, text, sizeof(text));
  ::close(fd);
  int64_t position = -1;
  const auto [end, ec] = std::from_chars(text, text + std::max<ssize_t>(n, 0), position);
  if (n <= 0 || ec != std::errc() || position < 0 || (end != text + n && *end != '\n')) {
    return absl::DataLossError(absl::StrCat("beacon log: ", path, " holds no position"));
  }
  return position;
}

absl::Status WriteCommitted(const std::string& dir, int64_t position) {
  const std::string path = absl::StrCat(dir, "/", kCommittedName);
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("open", temporary);
  const bool written = WriteAll(fd, absl::StrCat(position, "\n")) && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  if (!written) {
    errno = saved;
    return ErrnoStatus("write", temporary);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) return ErrnoStatus("rename", temporary);
  return SyncDirectory(dir);
}

absl::StatusOr<DirectoryLock> DirectoryLock::Acquire(const std::string& dir, std::string_view name,
                                                     std::string_view holder) {
  const std::string path = absl::StrCat(dir, "/", std::string(name));
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("open", path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("beacon log ", dir, ": another ", std::string(holder), " has it open (", path,
                     " is locked); one ", std::string(holder), " per log directory"));
  }
  return DirectoryLock(fd);
}

absl::StatusOr<DirectoryLock> DirectoryLock::CreateAndAcquire(const std::string& dir,
                                                              std::string_view name,
                                                              std::string_view holder) {
  if (dir.empty()) return absl::InvalidArgumentError("beacon log: path is empty");
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("beacon log: cannot create ", dir, ": ", error.message()));
  }
  return Acquire(dir, name, holder);
}

DirectoryLock& DirectoryLock::operator=(DirectoryLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status ErrnoStatus(std::string_view what, const std::string& path) {
  return absl::UnavailableError(
      absl::StrCat("beacon log: ", std::string(what), " ", path, ": ", std::strerror(errno)));
}

absl::Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open", dir);
  const int synced = ::fsync(fd);
  ::close(fd);
  if (synced != 0) return ErrnoStatus("fsync", dir);
  return absl::OkStatus();
}

}  // namespace rtb::beaconlog::internal
