// THBaseService (HBase's Thrift2 gateway interface) served from a Store:
// the calls of storage/thrift/hbase.thrift, each translated with
// storage/server/convert.h, run on the store, and failed the way HBase's
// gateway fails them (storage/server/errors.h).
//
// Where HBase has state the Store has not, the handler keeps it: open
// scanners (storage/server/scanner_registry.h) and which tables are disabled
// in memory (tables come back enabled after a restart), namespaces in the
// store's table hbase:namespace (created on the first createNamespace). As in
// HBase, data calls on a disabled table fail, deleteTable and truncateTable
// need a disabled table, createTable fails for a table that exists or a
// namespace that does not, and only an empty namespace can be deleted. The
// system tables hbase:meta and hbase:namespace exist for tableExists and the
// listings. The one server answers every region location: one region per
// split key range, region id 0. Slow and large RPC logs are not kept, so
// those calls answer as HBase with its slow log buffer off. There is no
// access control: grant and revoke fail as HBase's master fails them without
// its AccessController. Implemented in service_handler.cc (data,
// scans) and service_handler_admin.cc (tables, families, namespaces, regions,
// cluster).
//
// Thread-safety: every call may run concurrently; the store must be safe
// for concurrent use and outlive the handler.
#ifndef RTB_STORAGE_SERVER_SERVICE_HANDLER_H_
#define RTB_STORAGE_SERVER_SERVICE_HANDLER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
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
  // The host name and port region locations name. Default 127.0.0.1, 9090.
  std::string host = "127.0.0.1";
  int port = 9090;
  // Answered by getClusterId. Default: a fixed id of this server's kind.
  std::string cluster_id = "00000000-0000-0000-0000-000000000000";
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

  bool exists(const std::string& table, const thrift2::TGet& tget) override;
  void existsAll(std::vector<bool>& _return, const std::string& table,
                 const std::vector<thrift2::TGet>& tgets) override;
  bool checkAndPut(const std::string& table, const std::string& row, const std::string& family,
                   const std::string& qualifier, const std::string& value,
                   const thrift2::TPut& tput) override;
  bool checkAndDelete(const std::string& table, const std::string& row, const std::string& family,
                      const std::string& qualifier, const std::string& value,
                      const thrift2::TDelete& tdelete) override;
  void append(thrift2::TResult& _return, const std::string& table,
              const thrift2::TAppend& tappend) override;
  void getRegionLocation(thrift2::THRegionLocation& _return, const std::string& table,
                         const std::string& row, bool reload) override;
  void getAllRegionLocations(std::vector<thrift2::THRegionLocation>& _return,
                             const std::string& table) override;
  void getTableDescriptors(std::vector<thrift2::TTableDescriptor>& _return,
                           const std::vector<thrift2::TTableName>& tables) override;
  void getTableDescriptorsByPattern(std::vector<thrift2::TTableDescriptor>& _return,
                                    const std::string& regex, bool includeSysTables) override;
  void getTableDescriptorsByNamespace(std::vector<thrift2::TTableDescriptor>& _return,
                                      const std::string& name) override;
  void getTableNamesByPattern(std::vector<thrift2::TTableName>& _return, const std::string& regex,
                              bool includeSysTables) override;
  void getTableNamesByNamespace(std::vector<thrift2::TTableName>& _return,
                                const std::string& name) override;
  void truncateTable(const thrift2::TTableName& tableName, bool preserveSplits) override;
  bool isTableDisabled(const thrift2::TTableName& tableName) override;
  bool isTableAvailable(const thrift2::TTableName& tableName) override;
  bool isTableAvailableWithSplit(const thrift2::TTableName& tableName,
                                 const std::vector<std::string>& splitKeys) override;
  void addColumnFamily(const thrift2::TTableName& tableName,
                       const thrift2::TColumnFamilyDescriptor& column) override;
  void deleteColumnFamily(const thrift2::TTableName& tableName, const std::string& column) override;
  void modifyColumnFamily(const thrift2::TTableName& tableName,
                          const thrift2::TColumnFamilyDescriptor& column) override;
  void modifyTable(const thrift2::TTableDescriptor& desc) override;
  void createNamespace(const thrift2::TNamespaceDescriptor& namespaceDesc) override;
  void modifyNamespace(const thrift2::TNamespaceDescriptor& namespaceDesc) override;
  void deleteNamespace(const std::string& name) override;
  void getNamespaceDescriptor(thrift2::TNamespaceDescriptor& _return,
                              const std::string& name) override;
  void listNamespaceDescriptors(std::vector<thrift2::TNamespaceDescriptor>& _return) override;
  void listNamespaces(std::vector<std::string>& _return) override;
  thrift2::TThriftServerType::type getThriftServerType() override;
  void getClusterId(std::string& _return) override;
  void getSlowLogResponses(std::vector<thrift2::TOnlineLogRecord>& _return,
                           const std::set<thrift2::TServerName>& serverNames,
                           const thrift2::TLogQueryFilter& logQueryFilter) override;
  void clearSlowLogResponses(std::vector<bool>& _return,
                             const std::set<thrift2::TServerName>& serverNames) override;
  // There is no access control here: both answer what HBase's master
  // answers without its AccessController.
  bool grant(const thrift2::TAccessControlEntity& info) override;
  bool revoke(const thrift2::TAccessControlEntity& info) override;

 private:
  // The table a data call names, checked to be enabled.
  std::string DataTable(const std::string& name);
  // The table an admin call names, checked to exist.
  std::string ExistingTable(const thrift2::TTableName& name);
  bool IsDisabled(const std::string& table);
  // How a missing table is worded: by HBase's client (the bare name) or by
  // its master (the exception class, then the name).
  enum class Missing { kClientWords, kMasterWords };
  // The schema of an existing table; a TIOError worded as `missing` says
  // when there is none.
  TableSchema ExistingSchema(const std::string& table, Missing missing);
  // User tables (and with `system` the system tables) sorted by name.
  std::vector<TableSchema> Tables(bool system);
  // The namespace descriptor, or nullopt when there is no such namespace.
  std::optional<thrift2::TNamespaceDescriptor> FindNamespace(const std::string& name);
  std::vector<thrift2::TNamespaceDescriptor> Namespaces();
  void WriteNamespace(const thrift2::TNamespaceDescriptor& descriptor)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(admin_mutex_);
  // Removes a namespace's row.
  void EraseNamespace(const std::string& name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(admin_mutex_);
  int64_t NextNamespaceTimestamp() ABSL_EXCLUSIVE_LOCKS_REQUIRED(admin_mutex_);

  Store& store_;
  const ServiceHandlerOptions options_;
  // Reads the time for namespace_clock_.
  const std::shared_ptr<Clock> clock_;
  // Serializes namespace and table administration, as HBase's master does.
  absl::Mutex admin_mutex_;
  // Timestamps of namespace rows, rising by at least 2 per write so a
  // rewrite's delete marker (one below) never masks its own cells.
  int64_t namespace_clock_ ABSL_GUARDED_BY(admin_mutex_) = 0;
  ScannerRegistry scanners_;

  // Lets data calls skip the lock while no table is disabled.
  std::atomic<bool> any_disabled_{false};
  absl::Mutex disabled_mutex_;
  absl::flat_hash_set<std::string> disabled_ ABSL_GUARDED_BY(disabled_mutex_);
};

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_SERVICE_HANDLER_H_
