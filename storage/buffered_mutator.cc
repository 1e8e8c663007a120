#include "storage/buffered_mutator.h"

#include <chrono>
#include <vector>

namespace rtb::storage {
namespace {

size_t SizeOf(const Put& p) {
  size_t n = p.row.size();
  for (const PutValue& v : p.values)
    n += v.family.size() + v.qualifier.size() + v.value.size() + 16;
  return n;
}

size_t SizeOf(const Delete& d) {
  size_t n = d.row.size() + 16;
  for (const DeleteTarget& t : d.targets) n += t.family.size() + t.qualifier.value_or("").size();
  return n;
}

}  // namespace

BufferedMutator::BufferedMutator(Store* store, std::string table, BufferedMutatorOptions options)
    : store_(store), table_(std::move(table)), options_(options) {
  if (options_.flush_interval_ms > 0) timer_ = std::thread([this] { TimerLoop(); });
}

BufferedMutator::~BufferedMutator() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (timer_.joinable()) timer_.join();
  Flush().IgnoreError();
}

absl::Status BufferedMutator::Mutate(Put put) {
  size_t bytes = SizeOf(put);
  return Add(std::move(put), bytes);
}

absl::Status BufferedMutator::Mutate(Delete del) {
  size_t bytes = SizeOf(del);
  return Add(std::move(del), bytes);
}

absl::Status BufferedMutator::Add(Mutation m, size_t bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  buffer_.push_back(std::move(m));
  bytes_ += bytes;
  absl::Status status = std::exchange(unreported_, absl::OkStatus());
  if (bytes_ >= options_.max_buffer_bytes) {
    absl::Status flushed = FlushLocked(lock);
    if (status.ok()) status = flushed;
  }
  return status;
}

absl::Status BufferedMutator::Flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  absl::Status status = FlushLocked(lock);
  absl::Status earlier = std::exchange(unreported_, absl::OkStatus());
  return earlier.ok() ? status : earlier;
}

size_t BufferedMutator::buffered_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

absl::Status BufferedMutator::FlushLocked(std::unique_lock<std::mutex>& lock) {
  // One flusher at a time keeps mutations in order.
  cv_.wait(lock, [this] { return !flushing_; });
  if (buffer_.empty()) return absl::OkStatus();
  flushing_ = true;
  std::deque<Mutation> pending;
  pending.swap(buffer_);
  bytes_ = 0;
  lock.unlock();

  absl::Status status;
  size_t done = 0;
  while (done < pending.size()) {
    size_t end = done + 1;
    while (end < pending.size() && pending[end].index() == pending[done].index()) ++end;
    status = WriteRun(pending, done, end);
    if (!status.ok() && !absl::IsInvalidArgument(status)) break;
    done = end;
  }

  lock.lock();
  if (done < pending.size()) {
    // Transient failure: keep the unwritten tail in front of newer mutations.
    for (size_t i = pending.size(); i > done; --i) {
      bytes_ += std::visit([](const auto& m) { return SizeOf(m); }, pending[i - 1]);
      buffer_.push_front(std::move(pending[i - 1]));
    }
  }
  flushing_ = false;
  cv_.notify_all();
  return status;
}

absl::Status BufferedMutator::WriteRun(std::deque<Mutation>& pending, size_t begin, size_t end) {
  auto write = [&](size_t from, size_t to) -> absl::Status {
    if (std::holds_alternative<Put>(pending[from])) {
      std::vector<Put> puts;
      for (size_t i = from; i < to; ++i) puts.push_back(std::get<Put>(pending[i]));
      return store_->PutBatch(table_, puts);
    }
    std::vector<Delete> deletes;
    for (size_t i = from; i < to; ++i) deletes.push_back(std::get<Delete>(pending[i]));
    return store_->DeleteBatch(table_, deletes);
  };
  absl::Status status = write(begin, end);
  if (!absl::IsInvalidArgument(status) || end - begin == 1) return status;
  // One bad mutation must not take the valid ones with it: write them one by one.
  absl::Status first_invalid;
  for (size_t i = begin; i < end; ++i) {
    absl::Status s = write(i, i + 1);
    if (absl::IsInvalidArgument(s)) {
      if (first_invalid.ok()) first_invalid = s;
      continue;
    }
    if (!s.ok()) return s;
  }
  return first_invalid;
}

void BufferedMutator::TimerLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::milliseconds(options_.flush_interval_ms),
                 [this] { return stopping_; });
    if (stopping_) break;
    absl::Status s = FlushLocked(lock);
    if (!s.ok() && unreported_.ok()) unreported_ = s;
  }
}

}  // namespace rtb::storage
