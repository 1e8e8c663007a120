// A Store decorator for the bid-path tests: every call goes to a real Store
// (the embedded engine), and AsyncGet answers can be held back on a
// steady_timer to model a slow backend (AsyncScan answers too). It also
// counts AsyncGet and AsyncScan calls, so a test can see that no read was
// made. GetWithoutWaiting answers nothing unless a test asks it to forward
// (then the bid path's reads of rows the real store has at hand bypass
// AsyncGet, its delays and its count, as they do on the embedded store).
//
//   kKeepsDeadline   - the backend is slow but honours the Store contract: at
//                      the deadline it answers DeadlineExceeded, and the real
//                      answer, arriving `delay` later, is dropped;
//   kIgnoresDeadline - the backend answers only after `delay`, deadline or
//                      not (a misbehaving client); the bid handler must not
//                      wait for it.
#ifndef RTB_TESTS_BIDDER_FAULT_INJECTING_STORE_H_
#define RTB_TESTS_BIDDER_FAULT_INJECTING_STORE_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "storage/store.h"

namespace rtb::bidder::testing {

class FaultInjectingStore final : public storage::Store {
 public:
  enum class Mode { kKeepsDeadline, kIgnoresDeadline };

  explicit FaultInjectingStore(storage::Store& inner) : inner_(inner) {}

  // Holds AsyncGet and AsyncScan answers back by `delay` (0: none).
  void SetDelay(std::chrono::milliseconds delay, Mode mode) {
    delay_ = delay;
    mode_ = mode;
  }
  int async_gets() const { return async_gets_.load(); }
  void set_answer_without_waiting(bool on) { answer_without_waiting_ = on; }
  // The GetWithoutWaiting calls that answered.
  int gets_without_waiting() const { return gets_without_waiting_.load(); }
  int async_scans() const { return async_scans_.load(); }
  // The table and scan of the last AsyncScan (call between requests).
  const std::string& last_scan_table() const { return last_scan_table_; }
  const storage::Scan& last_scan() const { return last_scan_; }
  int late_answers_dropped() const { return late_answers_dropped_.load(); }

  absl::Status CreateTable(const storage::TableSchema& schema) override {
    return inner_.CreateTable(schema);
  }
  absl::StatusOr<bool> TableExists(std::string_view table) override {
    return inner_.TableExists(table);
  }
  absl::Status DeleteTable(std::string_view table) override { return inner_.DeleteTable(table); }
  absl::StatusOr<storage::RowResult> Get(std::string_view table, const storage::Get& get) override {
    return inner_.Get(table, get);
  }
  absl::StatusOr<std::vector<storage::RowResult>> MultiGet(
      std::string_view table, std::span<const storage::Get> gets) override {
    return inner_.MultiGet(table, gets);
  }
  absl::Status Put(std::string_view table, const storage::Put& put) override {
    return inner_.Put(table, put);
  }
  absl::Status PutBatch(std::string_view table, std::span<const storage::Put> puts) override {
    return inner_.PutBatch(table, puts);
  }
  absl::Status Delete(std::string_view table, const storage::Delete& del) override {
    return inner_.Delete(table, del);
  }
  absl::Status DeleteBatch(std::string_view table,
                           std::span<const storage::Delete> deletes) override {
    return inner_.DeleteBatch(table, deletes);
  }
  absl::StatusOr<storage::RowResult> Increment(std::string_view table,
                                               const storage::Increment& increment) override {
    return inner_.Increment(table, increment);
  }
  absl::StatusOr<bool> CheckAndMutate(std::string_view table,
                                      const storage::CheckAndMutate& cam) override {
    return inner_.CheckAndMutate(table, cam);
  }
  absl::StatusOr<std::vector<storage::RowResult>> Scan(std::string_view table,
                                                       const storage::Scan& scan) override {
    return inner_.Scan(table, scan);
  }
  absl::StatusOr<std::unique_ptr<storage::Scanner>> OpenScanner(
      std::string_view table, const storage::Scan& scan) override {
    return inner_.OpenScanner(table, scan);
  }
  absl::Status Flush(std::string_view table) override { return inner_.Flush(table); }
  absl::Status MajorCompact(std::string_view table) override { return inner_.MajorCompact(table); }
  absl::Status CheckHealth() override { return inner_.CheckHealth(); }

  std::optional<storage::RowResult> GetWithoutWaiting(std::string_view table,
                                                      const storage::Get& get) override {
    if (!answer_without_waiting_) return std::nullopt;
    std::optional<storage::RowResult> row = inner_.GetWithoutWaiting(table, get);
    if (row.has_value()) gets_without_waiting_.fetch_add(1);
    return row;
  }
  void AsyncGet(std::string_view table, storage::Get get, storage::Deadline deadline,
                boost::asio::any_io_executor executor, storage::GetCallback done) override {
    async_gets_.fetch_add(1);
    Delay<storage::RowResult>(
        deadline, std::move(executor), std::move(done),
        [&](storage::Deadline d, boost::asio::any_io_executor ex, storage::GetCallback cb) {
          inner_.AsyncGet(table, std::move(get), d, std::move(ex), std::move(cb));
        });
  }
  void AsyncScan(std::string_view table, storage::Scan scan, storage::Deadline deadline,
                 boost::asio::any_io_executor executor, storage::ScanCallback done) override {
    async_scans_.fetch_add(1);
    last_scan_table_ = std::string(table);
    last_scan_ = scan;
    Delay<std::vector<storage::RowResult>>(
        deadline, std::move(executor), std::move(done),
        [&](storage::Deadline d, boost::asio::any_io_executor ex, storage::ScanCallback cb) {
          inner_.AsyncScan(table, std::move(scan), d, std::move(ex), std::move(cb));
        });
  }

 private:
  // Sends the read with `read(deadline, executor, callback)` and, with a
  // delay set, holds its answer back as SetDelay says.
  template <typename T, typename Read>
  void Delay(storage::Deadline deadline, boost::asio::any_io_executor executor,
             std::function<void(absl::StatusOr<T>)> done, Read read) {
    if (delay_.count() == 0) {
      read(deadline, std::move(executor), std::move(done));
      return;
    }
    struct State {
      State(boost::asio::any_io_executor ex, std::function<void(absl::StatusOr<T>)> cb)
          : done(std::move(cb)), deadline_timer(ex), delay_timer(ex) {}
      std::atomic<bool> finished{false};
      std::function<void(absl::StatusOr<T>)> done;
      boost::asio::steady_timer deadline_timer;
      boost::asio::steady_timer delay_timer;
    };
    auto state = std::make_shared<State>(executor, std::move(done));
    if (mode_ == Mode::kKeepsDeadline) {
      state->deadline_timer.expires_at(deadline);
      state->deadline_timer.async_wait([state](const boost::system::error_code& error) {
        if (error || state->finished.exchange(true)) return;
        state->done(absl::DeadlineExceededError("storage read missed its deadline"));
      });
    }
    // The real read gets all the time it needs; its answer is then held back.
    const std::chrono::milliseconds delay = delay_;
    read(std::chrono::steady_clock::now() + delay + std::chrono::seconds(10), executor,
         [this, state, delay](absl::StatusOr<T> answer) {
           state->delay_timer.expires_after(delay);
           state->delay_timer.async_wait(
               [this, state, answer = std::move(answer)](const boost::system::error_code&) mutable {
                 if (state->finished.exchange(true)) {
                   late_answers_dropped_.fetch_add(1);
                   return;
                 }
                 state->deadline_timer.cancel();
                 state->done(std::move(answer));
               });
         });
  }

  storage::Store& inner_;
  std::chrono::milliseconds delay_{0};
  Mode mode_ = Mode::kKeepsDeadline;
  std::atomic<int> async_gets_{0};
  std::atomic<bool> answer_without_waiting_{false};
  std::atomic<int> gets_without_waiting_{0};
  std::atomic<int> async_scans_{0};
  std::string last_scan_table_;
  storage::Scan last_scan_;
  std::atomic<int> late_answers_dropped_{0};
};

}  // namespace rtb::bidder::testing

#endif  // RTB_TESTS_BIDDER_FAULT_INJECTING_STORE_H_
