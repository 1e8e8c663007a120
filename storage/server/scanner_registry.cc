#include "storage/server/scanner_registry.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace rtb::storage::server {

ScannerRegistry::ScannerRegistry(int max_open, int64_t idle_timeout_ms,
                                 std::shared_ptr<Clock> clock)
    : max_open_(max_open), idle_timeout_ms_(idle_timeout_ms), clock_(std::move(clock)) {}

absl::StatusOr<int32_t> ScannerRegistry::Add(std::unique_ptr<Scanner> scanner) {
  auto entry = std::make_shared<Entry>();
  {
    absl::MutexLock entry_lock(&entry->mutex);
    entry->scanner = std::move(scanner);
  }
  std::vector<std::shared_ptr<Entry>> expired;
  absl::MutexLock lock(&mutex_);
  const int64_t now = clock_->NowMillis();
  if (static_cast<int>(open_.size()) >= max_open_) expired = TakeIdleLocked(now);
  if (static_cast<int>(open_.size()) >= max_open_) {
    return absl::ResourceExhaustedError(absl::StrCat("the storage server has ", open_.size(),
                                                     " open scanners, its limit; close some"));
  }
  entry->last_used_ms = now;
  // Ids stay non-negative and skip ones still open after a wrap-around.
  int32_t id;
  do {
    id = static_cast<int32_t>(next_id_ & 0x7fffffff);
    ++next_id_;
  } while (open_.contains(id));
  open_.emplace(id, std::move(entry));
  return id;
}

absl::StatusOr<std::vector<RowResult>> ScannerRegistry::Next(int32_t id, int max_rows) {
  std::shared_ptr<Entry> entry;
  {
    absl::MutexLock lock(&mutex_);
    auto it = open_.find(id);
    if (it == open_.end()) {
      return absl::NotFoundError(absl::StrCat("no open scanner ", id));
    }
    if (max_rows <= 0) {
      it->second->last_used_ms = clock_->NowMillis();
      return std::vector<RowResult>();
    }
    entry = it->second;
    ++entry->readers;
  }
  absl::StatusOr<std::vector<RowResult>> rows;
  {
    absl::MutexLock entry_lock(&entry->mutex);
    rows = entry->scanner->Next(max_rows);
  }
  absl::MutexLock lock(&mutex_);
  --entry->readers;
  entry->last_used_ms = clock_->NowMillis();
  return rows;
}

bool ScannerRegistry::Close(int32_t id) {
  std::shared_ptr<Entry> entry;
  {
    absl::MutexLock lock(&mutex_);
    auto it = open_.find(id);
    if (it == open_.end()) return false;
    entry = std::move(it->second);
    open_.erase(it);
  }
  // A reader still inside Next holds the entry; the scanner goes with it.
  return true;
}

int ScannerRegistry::ExpireIdle() {
  std::vector<std::shared_ptr<Entry>> expired;
  {
    absl::MutexLock lock(&mutex_);
    expired = TakeIdleLocked(clock_->NowMillis());
  }
  return static_cast<int>(expired.size());
}

std::vector<std::shared_ptr<ScannerRegistry::Entry>> ScannerRegistry::TakeIdleLocked(int64_t now) {
  std::vector<std::shared_ptr<Entry>> expired;
  for (auto it = open_.begin(); it != open_.end();) {
    const Entry& e = *it->second;
    if (e.readers == 0 && now - e.last_used_ms > idle_timeout_ms_) {
      expired.push_back(std::move(it->second));
      open_.erase(it++);
    } else {
      ++it;
    }
  }
  return expired;
}

size_t ScannerRegistry::open_count() const {
  absl::MutexLock lock(&mutex_);
  return open_.size();
}

}  // namespace rtb::storage::server
