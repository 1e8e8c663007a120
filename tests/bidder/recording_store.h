// A Store decorator for the end-to-end tests of what a request may read and
// write: every call is recorded (operation, table, row key, the families it
// names and the bytes of every value it writes) and then forwarded to the
// real store it owns. A test asks which rows a bid and its beacons touched.
//
// Thread-safety: calls may come from any number of threads (the bidder's I/O
// and beacon threads); calls() copies under a lock.
#ifndef RTB_TESTS_BIDDER_RECORDING_STORE_H_
#define RTB_TESTS_BIDDER_RECORDING_STORE_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "storage/store.h"

namespace rtb::bidder::testing {

class RecordingStore final : public storage::Store {
 public:
  struct Call {
    std::string op;     // "Get", "AsyncGet", "Put", "Increment", ...
    std::string table;  // the caller's table name
    std::string row;    // the row key (a scan's start row or prefix)
    std::vector<std::string> families;
    std::vector<std::string> values;  // every value written, as bytes
  };

  explicit RecordingStore(std::unique_ptr<storage::Store> inner) : inner_(std::move(inner)) {}

  std::vector<Call> calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  void Clear() {
    absl::MutexLock lock(&mu_);
    calls_.clear();
  }

  absl::Status CreateTable(const storage::TableSchema& schema) override {
    return inner_->CreateTable(schema);
  }
  absl::StatusOr<bool> TableExists(std::string_view table) override {
    return inner_->TableExists(table);
  }
  absl::Status DeleteTable(std::string_view table) override { return inner_->DeleteTable(table); }
  absl::StatusOr<storage::RowResult> Get(std::string_view table, const storage::Get& get) override {
    Record({"Get", std::string(table), get.row, FamiliesOf(get.columns), {}});
    return inner_->Get(table, get);
  }
  absl::StatusOr<std::vector<storage::RowResult>> MultiGet(
      std::string_view table, std::span<const storage::Get> gets) override {
    for (const storage::Get& get : gets) {
      Record({"MultiGet", std::string(table), get.row, FamiliesOf(get.columns), {}});
    }
    return inner_->MultiGet(table, gets);
  }
  absl::Status Put(std::string_view table, const storage::Put& put) override {
    RecordPut("Put", table, put);
    return inner_->Put(table, put);
  }
  absl::Status PutBatch(std::string_view table, std::span<const storage::Put> puts) override {
    for (const storage::Put& put : puts) RecordPut("PutBatch", table, put);
    return inner_->PutBatch(table, puts);
  }
  absl::Status Delete(std::string_view table, const storage::Delete& del) override {
    Record({"Delete", std::string(table), del.row, {}, {}});
    return inner_->Delete(table, del);
  }
  absl::Status DeleteBatch(std::string_view table,
                           std::span<const storage::Delete> deletes) override {
    for (const storage::Delete& del : deletes) {
      Record({"DeleteBatch", std::string(table), del.row, {}, {}});
    }
    return inner_->DeleteBatch(table, deletes);
  }
  absl::StatusOr<storage::RowResult> Increment(std::string_view table,
                                               const storage::Increment& increment) override {
    Call call{"Increment", std::string(table), increment.row, {}, {}};
    for (const storage::IncrementColumn& c : increment.columns) {
      call.families.push_back(c.family);
      call.values.push_back(c.qualifier);
    }
    Record(std::move(call));
    return inner_->Increment(table, increment);
  }
  absl::StatusOr<bool> CheckAndMutate(std::string_view table,
                                      const storage::CheckAndMutate& cam) override {
    Call call{"CheckAndMutate", std::string(table), cam.row, {cam.family}, {}};
    for (const storage::Put& put : cam.puts) {
      for (const storage::PutValue& v : put.values) {
        call.families.push_back(v.family);
        call.values.push_back(v.value);
      }
    }
    Record(std::move(call));
    return inner_->CheckAndMutate(table, cam);
  }
  absl::StatusOr<std::vector<storage::RowResult>> Scan(std::string_view table,
                                                       const storage::Scan& scan) override {
    Record({"Scan",
            std::string(table),
            scan.prefix.value_or(scan.start_row),
            FamiliesOf(scan.columns),
            {}});
    return inner_->Scan(table, scan);
  }
  absl::StatusOr<std::unique_ptr<storage::Scanner>> OpenScanner(
      std::string_view table, const storage::Scan& scan) override {
    Record({"OpenScanner",
            std::string(table),
            scan.prefix.value_or(scan.start_row),
            FamiliesOf(scan.columns),
            {}});
    return inner_->OpenScanner(table, scan);
  }
  void AsyncGet(std::string_view table, storage::Get get, storage::Deadline deadline,
                boost::asio::any_io_executor executor, storage::GetCallback done) override {
    Record({"AsyncGet", std::string(table), get.row, FamiliesOf(get.columns), {}});
    inner_->AsyncGet(table, std::move(get), deadline, std::move(executor), std::move(done));
  }
  void AsyncScan(std::string_view table, storage::Scan scan, storage::Deadline deadline,
                 boost::asio::any_io_executor executor, storage::ScanCallback done) override {
    Record({"AsyncScan",
            std::string(table),
            scan.prefix.value_or(scan.start_row),
            FamiliesOf(scan.columns),
            {}});
    inner_->AsyncScan(table, std::move(scan), deadline, std::move(executor), std::move(done));
  }
  absl::Status Flush(std::string_view table) override { return inner_->Flush(table); }
  absl::Status MajorCompact(std::string_view table) override { return inner_->MajorCompact(table); }
  absl::Status CheckHealth() override { return inner_->CheckHealth(); }

 private:
  static std::vector<std::string> FamiliesOf(const std::vector<storage::Column>& columns) {
    std::vector<std::string> families;
    for (const storage::Column& c : columns) families.push_back(c.family);
    return families;
  }

  void RecordPut(std::string_view op, std::string_view table, const storage::Put& put) {
    Call call{std::string(op), std::string(table), put.row, {}, {}};
    for (const storage::PutValue& v : put.values) {
      call.families.push_back(v.family);
      call.values.push_back(v.value);
    }
    Record(std::move(call));
  }

  void Record(Call call) {
    absl::MutexLock lock(&mu_);
    calls_.push_back(std::move(call));
  }

  const std::unique_ptr<storage::Store> inner_;
  mutable absl::Mutex mu_;
  std::vector<Call> calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rtb::bidder::testing

#endif  // RTB_TESTS_BIDDER_RECORDING_STORE_H_
