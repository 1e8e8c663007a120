// A Store decorator for the events tests: every call goes to a real Store,
// and a hook runs before each write (Put, PutBatch, Delete, DeleteBatch,
// Increment, CheckAndMutate). The hook can fail the write (a crash or an
// outage at that point) or do something in between (an erasure landing in
// the middle of a Record).
#ifndef RTB_TESTS_BIDDER_EVENTS_HOOKED_STORE_H_
#define RTB_TESTS_BIDDER_EVENTS_HOOKED_STORE_H_

#include <functional>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "storage/store.h"

namespace rtb::bidder::events::testing {

class HookedStore final : public storage::Store {
 public:
  // `table` and the operation's name ("Put", "DeleteBatch", ...); a non-OK
  // answer fails the write without forwarding it.
  using WriteHook = std::function<absl::Status(std::string_view table, std::string_view op)>;

  explicit HookedStore(storage::Store& inner) : inner_(inner) {}
  void SetWriteHook(WriteHook hook) { hook_ = std::move(hook); }

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
    if (absl::Status s = Hook(table, "Put"); !s.ok()) return s;
    return inner_.Put(table, put);
  }
  absl::Status PutBatch(std::string_view table, std::span<const storage::Put> puts) override {
    if (absl::Status s = Hook(table, "PutBatch"); !s.ok()) return s;
    return inner_.PutBatch(table, puts);
  }
  absl::Status Delete(std::string_view table, const storage::Delete& del) override {
    if (absl::Status s = Hook(table, "Delete"); !s.ok()) return s;
    return inner_.Delete(table, del);
  }
  absl::Status DeleteBatch(std::string_view table,
                           std::span<const storage::Delete> deletes) override {
    if (absl::Status s = Hook(table, "DeleteBatch"); !s.ok()) return s;
    return inner_.DeleteBatch(table, deletes);
  }
  absl::StatusOr<storage::RowResult> Increment(std::string_view table,
                                               const storage::Increment& increment) override {
    if (absl::Status s = Hook(table, "Increment"); !s.ok()) return s;
    return inner_.Increment(table, increment);
  }
  absl::StatusOr<bool> CheckAndMutate(std::string_view table,
                                      const storage::CheckAndMutate& cam) override {
    if (absl::Status s = Hook(table, "CheckAndMutate"); !s.ok()) return s;
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
  void AsyncGet(std::string_view table, storage::Get get, storage::Deadline deadline,
                boost::asio::any_io_executor executor, storage::GetCallback done) override {
    inner_.AsyncGet(table, std::move(get), deadline, std::move(executor), std::move(done));
  }
  void AsyncScan(std::string_view table, storage::Scan scan, storage::Deadline deadline,
                 boost::asio::any_io_executor executor, storage::ScanCallback done) override {
    inner_.AsyncScan(table, std::move(scan), deadline, std::move(executor), std::move(done));
  }
  absl::Status Flush(std::string_view table) override { return inner_.Flush(table); }
  absl::Status MajorCompact(std::string_view table) override { return inner_.MajorCompact(table); }
  absl::Status CheckHealth() override { return inner_.CheckHealth(); }

 private:
  absl::Status Hook(std::string_view table, std::string_view op) {
    return hook_ ? hook_(table, op) : absl::OkStatus();
  }

  storage::Store& inner_;
  WriteHook hook_;
};

}  // namespace rtb::bidder::events::testing

#endif  // RTB_TESTS_BIDDER_EVENTS_HOOKED_STORE_H_
