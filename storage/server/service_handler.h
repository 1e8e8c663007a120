// THBaseService (HBase's Thrift2 gateway interface) served from a Store:
// the calls of storage/thrift/hbase.thrift, each translated with
// storage/server/convert.h, run on the store, and failed the way HBase's
// gateway fails them (storage/server/errors.h).
//
// Where HBase has state the Store has not, the handler keeps it in memory:
// open scanners (storage/server/scanner_registry.h) and which tables are
// disabled (tables come back enabled after a restart). As in HBase, data
// calls on a disabled table fail, deleteTable needs a disabled table, and
// createTable fails for a table that exists. tableExists answers true for
// hbase:meta, which HBase clients probe to check the gateway's health.
//
// Thread-safety: every call may run concurrently; the store must be safe
// for concurrent use and outlive the handler.
#ifndef RTB_STORAGE_SERVER_SERVICE_HANDLER_H_
#define RTB_STORAGE_SERVER_SERVICE_HANDLER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "storage/clock.h"
#include "storage/server/scanner_registry.h"
#include "storage/store.h"
#include "storage/thrift/THBaseService.h"

namespace rtb::storage::server {

struct ServiceHandlerOptions {
  // Scanners open at once; openScanner fails beyond. Default 1000.
  int max_open_scanners = 1000;
  // A scanner unread for this long is closed, ms. Default 60000 (HBase's
  // hbase.client.scanner.timeout.period).
  int64_t scanner_idle_timeout_ms = 60000;
  // Rows one getScannerRows or getScannerResults returns at most, whatever
  // the client asks. Default kMaxScanRows.
  int max_rows_per_call = kMaxScanRows;
  // Measures scanner idleness. Default: the system clock.
  std::shared_ptr<Clock> clock;
};

class StoreServiceHandler final : public thrift2::THBaseServiceIf {
 public:
  StoreServiceHandler(Store& store, ServiceHandlerOptions options);

  // Closes scanners idle past the timeout; the server calls it periodically.
  int ExpireIdleScanners() { return scanners_.ExpireIdle(); }
  size_t open_scanners() const { return scanners_.open_count(); }

  void get(thrift2::TResult& _return, const std::string& table, const thrift2::TGet& tget) override;
  void getMultiple(std::vector<thrift2::TResult>& _return, const std::string& table,
                   const std::vector<thrift2::TGet>& tgets) override;
  void put(const std::string& table, const thrift2::TPut& tput) override;
  void putMultiple(const std::string& table, const std::vector<thrift2::TPut>& tputs) override;
  void deleteSingle(const std::string& table, const thrift2::TDelete& tdelete) override;
  void deleteMultiple(std::vector<thrift2::TDelete>& _return, const std::string& table,
                      const std::vector<thrift2::TDelete>& tdeletes) override;
  void increment(thrift2::TResult& _return, const std::string& table,
                 const thrift2::TIncrement& tincrement) override;
  int32_t openScanner(const std::string& table, const thrift2::TScan& tscan) override;
  void getScannerRows(std::vector<thrift2::TResult>& _return, int32_t scannerId,
                      int32_t numRows) override;
  void closeScanner(int32_t scannerId) override;
  void mutateRow(const std::string& table, const thrift2::TRowMutations& trowMutations) override;
  void getScannerResults(std::vector<thrift2::TResult>& _return, const std::string& table,
                         const thrift2::TScan& tscan, int32_t numRows) override;
  bool checkAndMutate(const std::string& table, const std::string& row, const std::string& family,
                      const std::string& qualifier, thrift2::TCompareOperator::type compareOperator,
                      const std::string& value,
                      const thrift2::TRowMutations& rowMutations) override;
  void getTableDescriptor(thrift2::TTableDescriptor& _return,
                          const thrift2::TTableName& table) override;
  bool tableExists(const thrift2::TTableName& tableName) override;
  void createTable(const thrift2::TTableDescriptor& desc,
                   const std::vector<std::string>& splitKeys) override;
  void deleteTable(const thrift2::TTableName& tableName) override;
  void enableTable(const thrift2::TTableName& tableName) override;
  void disableTable(const thrift2::TTableName& tableName) override;
  bool isTableEnabled(const thrift2::TTableName& tableName) override;

 private:
  // The table a data call names, checked to be enabled.
  std::string DataTable(const std::string& name);
  // The table an admin call names, checked to exist.
  std::string ExistingTable(const thrift2::TTableName& name);
  bool IsDisabled(const std::string& table);

  Store& store_;
  const ServiceHandlerOptions options_;
  ScannerRegistry scanners_;

  // Lets data calls skip the lock while no table is disabled.
  std::atomic<bool> any_disabled_{false};
  absl::Mutex disabled_mutex_;
  absl::flat_hash_set<std::string> disabled_ ABSL_GUARDED_BY(disabled_mutex_);
};

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_SERVICE_HANDLER_H_
