// Batches Puts and Deletes for one table, as HBase's BufferedMutator does:
// mutations are buffered and written when the buffer passes a size, when a
// flush interval elapses, or on an explicit Flush(). Order is preserved.
//
// Nothing is lost silently. A write that fails for a transient reason stays
// buffered and is retried on the next flush; one the store rejects as
// invalid is dropped, and the error is reported by the next Mutate or Flush.
// Callers that must know their writes are durable (e.g. before committing a
// log offset or acknowledging a beacon) call Flush() and check it.
//
// Thread-safety: safe for concurrent use.
#ifndef RTB_STORAGE_BUFFERED_MUTATOR_H_
#define RTB_STORAGE_BUFFERED_MUTATOR_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <variant>

#include "absl/status/status.h"
#include "storage/store.h"

namespace rtb::storage {

struct BufferedMutatorOptions {
  // Flush once this many bytes of keys and values are buffered. Default 2 MiB.
  size_t max_buffer_bytes = size_t{2} << 20;
  // Flush at least this often, ms; 0 disables the timer. Default 1000.
  int flush_interval_ms = 1000;
};

class BufferedMutator {
 public:
  BufferedMutator(Store* store, std::string table, BufferedMutatorOptions options = {});
  // Flushes what is left.
  ~BufferedMutator();

  BufferedMutator(const BufferedMutator&) = delete;
  BufferedMutator& operator=(const BufferedMutator&) = delete;

  // Buffers one mutation; flushes when the buffer is full. Returns the error
  // of an earlier flush that has not been reported yet.
  absl::Status Mutate(Put put);
  absl::Status Mutate(Delete del);
  // Writes everything buffered. OK only when all of it is in the store.
  absl::Status Flush();

  size_t buffered_bytes() const;

 private:
  using Mutation = std::variant<Put, Delete>;

  absl::Status Add(Mutation m, size_t bytes);
  absl::Status FlushLocked(std::unique_lock<std::mutex>& lock);
  absl::Status WriteRun(std::deque<Mutation>& pending, size_t begin, size_t end);
  void TimerLoop();

  Store* const store_;
  const std::string table_;
  const BufferedMutatorOptions options_;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Mutation> buffer_;
  size_t bytes_ = 0;
  bool flushing_ = false;
  absl::Status unreported_;
  bool stopping_ = false;
  std::thread timer_;
};

}  // namespace rtb::storage

#endif  // RTB_STORAGE_BUFFERED_MUTATOR_H_
