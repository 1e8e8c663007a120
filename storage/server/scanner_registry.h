// The scanners clients opened with openScanner, by id, as HBase's gateway
// keeps them: ids count up from 0 in this process, a scanner nobody read for
// the idle timeout is closed and its id forgotten (HBase's
// hbase.client.scanner.timeout.period), and at most `max_open` are open at
// once, so clients that never close their scanners cannot pin unbounded
// snapshots of the store.
//
// Thread-safety: safe for concurrent use. Calls on one scanner are
// serialized; a scanner being read is never expired under its reader.
#ifndef RTB_STORAGE_SERVER_SCANNER_REGISTRY_H_
#define RTB_STORAGE_SERVER_SCANNER_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/clock.h"
#include "storage/store.h"

namespace rtb::storage::server {

class ScannerRegistry {
 public:
  // `max_open` >= 1; `idle_timeout_ms` > 0. The clock measures idleness.
  ScannerRegistry(int max_open, int64_t idle_timeout_ms, std::shared_ptr<Clock> clock);

  // The new scanner's id. ResourceExhausted when `max_open` scanners stay
  // open after the idle ones are closed.
  absl::StatusOr<int32_t> Add(std::unique_ptr<Scanner> scanner);

  // Up to `max_rows` further rows (none when `max_rows` <= 0). NotFound for
  // an id that is unknown, closed or expired.
  absl::StatusOr<std::vector<RowResult>> Next(int32_t id, int max_rows);

  // False when the id is unknown (closed or expired already).
  bool Close(int32_t id);

  // Closes the scanners idle for longer than the timeout; returns how many.
  int ExpireIdle();

  size_t open_count() const;

 private:
  struct Entry {
    absl::Mutex mutex;
    std::unique_ptr<Scanner> scanner ABSL_GUARDED_BY(mutex);
    // Both guarded by the registry's mutex_.
    int64_t last_used_ms = 0;
    int readers = 0;  // calls inside Next
  };

  // Moves the expired entries out, so they are destroyed without the lock.
  std::vector<std::shared_ptr<Entry>> TakeIdleLocked(int64_t now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const int max_open_;
  const int64_t idle_timeout_ms_;
  const std::shared_ptr<Clock> clock_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<int32_t, std::shared_ptr<Entry>> open_ ABSL_GUARDED_BY(mutex_);
  uint32_t next_id_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_SCANNER_REGISTRY_H_
