// A Store decorator for the tests of modules above storage: every call goes
// to a real Store (embedded or HBase), with two seams.
//
//   - A write hook runs before each write (Put, PutBatch, Delete,
//     DeleteBatch, Increment, CheckAndMutate). A non-OK answer fails the
//     write without forwarding it (a crash or an outage at that point); the
//     hook may also do something in between (a concurrent update, an erasure
//     landing in the middle of a Record).
//   - A table prefix, put in front of every table name on the way to the
//     inner store, lets code with fixed table names (the session store) run
//     on a shared HBase under names of one test's own. The hook and the
//     caller see the caller's names.
//
// Thread-safety: calls may come from any number of threads; set the hook and
// the prefix while no call is in flight.
#ifndef RTB_TESTS_STORAGE_HOOKED_STORE_H_
#define RTB_TESTS_STORAGE_HOOKED_STORE_H_

#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/store.h"

namespace rtb::testing {

class HookedStore : public storage::Store {
 public:
  // `table` (the caller's name) and the operation's name ("Put",
  // "DeleteBatch", ...); a non-OK answer fails the write without forwarding
  // it.
  using WriteHook = std::function<absl::Status(std::string_view table, std::string_view op)>;

  explicit HookedStore(storage::Store& inner, std::string table_prefix = {})
      : inner_(inner), prefix_(std::move(table_prefix)) {}

  void SetWriteHook(WriteHook hook) { hook_ = std::move(hook); }
  // The name the inner store knows `table` by. It stays valid as long as
  // this store does (an asynchronous call may keep it).
  std::string_view InnerName(std::string_view table) {
    if (prefix_.empty()) return table;
    std::string name = prefix_;
    name.append(table);
    absl::MutexLock lock(&names_mu_);
    return *inner_names_.insert(std::move(name)).first;
  }

  absl::Status CreateTable(const storage::TableSchema& schema) override {
    storage::TableSchema renamed = schema;
    renamed.name = std::string(InnerName(schema.name));
    return inner_.CreateTable(renamed);
  }
  absl::StatusOr<bool> TableExists(std::string_view table) override {
    return inner_.TableExists(InnerName(table));
  }
  absl::Status DeleteTable(std::string_view table) override {
    return inner_.DeleteTable(InnerName(table));
  }
  absl::StatusOr<storage::RowResult> Get(std::string_view table, const storage::Get& get) override {
    return inner_.Get(InnerName(table), get);
  }
  absl::StatusOr<std::vector<storage::RowResult>> MultiGet(
      std::string_view table, std::span<const storage::Get> gets) override {
    return inner_.MultiGet(InnerName(table), gets);
  }
  absl::Status Put(std::string_view table, const storage::Put& put) override {
    if (absl::Status s = Hook(table, "Put"); !s.ok()) return s;
    return inner_.Put(InnerName(table), put);
  }
  absl::Status PutBatch(std::string_view table, std::span<const storage::Put> puts) override {
    if (absl::Status s = Hook(table, "PutBatch"); !s.ok()) return s;
    return inner_.PutBatch(InnerName(table), puts);
  }
  absl::Status Delete(std::string_view table, const storage::Delete& del) override {
    if (absl::Status s = Hook(table, "Delete"); !s.ok()) return s;
    return inner_.Delete(InnerName(table), del);
  }
  absl::Status DeleteBatch(std::string_view table,
                           std::span<const storage::Delete> deletes) override {
    if (absl::Status s = Hook(table, "DeleteBatch"); !s.ok()) return s;
    return inner_.DeleteBatch(InnerName(table), deletes);
  }
  absl::StatusOr<storage::RowResult> Increment(std::string_view table,
                                               const storage::Increment& increment) override {
    if (absl::Status s = Hook(table, "Increment"); !s.ok()) return s;
    return inner_.Increment(InnerName(table), increment);
  }
  absl::StatusOr<bool> CheckAndMutate(std::string_view table,
                                      const storage::CheckAndMutate& cam) override {
    if (absl::Status s = Hook(table, "CheckAndMutate"); !s.ok()) return s;
    return inner_.CheckAndMutate(InnerName(table), cam);
  }
  absl::StatusOr<std::vector<storage::RowResult>> Scan(std::string_view table,
                                                       const storage::Scan& scan) override {
    return inner_.Scan(InnerName(table), scan);
  }
  absl::StatusOr<std::unique_ptr<storage::Scanner>> OpenScanner(
      std::string_view table, const storage::Scan& scan) override {
    return inner_.OpenScanner(InnerName(table), scan);
  }
  void AsyncGet(std::string_view table, storage::Get get, storage::Deadline deadline,
                boost::asio::any_io_executor executor, storage::GetCallback done) override {
    inner_.AsyncGet(InnerName(table), std::move(get), deadline, std::move(executor),
                    std::move(done));
  }
  void AsyncScan(std::string_view table, storage::Scan scan, storage::Deadline deadline,
                 boost::asio::any_io_executor executor, storage::ScanCallback done) override {
    inner_.AsyncScan(InnerName(table), std::move(scan), deadline, std::move(executor),
                     std::move(done));
  }
  absl::Status Flush(std::string_view table) override { return inner_.Flush(InnerName(table)); }
  absl::Status MajorCompact(std::string_view table) override {
    return inner_.MajorCompact(InnerName(table));
  }
  absl::Status CheckHealth() override { return inner_.CheckHealth(); }

 private:
  absl::Status Hook(std::string_view table, std::string_view op) {
    // Copied so a hook may replace itself.
    WriteHook hook = hook_;
    return hook ? hook(table, op) : absl::OkStatus();
  }

  storage::Store& inner_;
  const std::string prefix_;
  WriteHook hook_;
  absl::Mutex names_mu_;
  // A set's elements do not move: the views InnerName hands out stay valid.
  std::set<std::string, std::less<>> inner_names_ ABSL_GUARDED_BY(names_mu_);
};

}  // namespace rtb::testing

#endif  // RTB_TESTS_STORAGE_HOOKED_STORE_H_
