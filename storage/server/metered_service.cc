#include "storage/server/metered_service.h"

#include <chrono>
#include <type_traits>
#include <utility>

namespace rtb::storage::server {
namespace {

namespace t2 = ::rtb::storage::thrift2;
using M = ThriftMethod;

// Records one call when it goes out of scope: its duration, and the outcome
// last set (internal_error unless the call returned or threw a Thrift
// exception the IDL declares).
class CallRecord {
 public:
  CallRecord(ServerMetrics& metrics, ThriftMethod method)
      : metrics_(metrics), method_(method), start_(std::chrono::steady_clock::now()) {}
  ~CallRecord() {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
    metrics_.RecordCall(method_, outcome_, elapsed.count());
  }
  CallRecord(const CallRecord&) = delete;
  CallRecord& operator=(const CallRecord&) = delete;

  void Set(CallOutcome outcome) { outcome_ = outcome; }

 private:
  ServerMetrics& metrics_;
  const ThriftMethod method_;
  const std::chrono::steady_clock::time_point start_;
  CallOutcome outcome_ = CallOutcome::kInternalError;
};

// Rows with cells, and their cells.
void CountRead(ServerMetrics& metrics, const t2::TResult& result) {
  const int64_t cells = static_cast<int64_t>(result.columnValues.size());
  metrics.CountRead(cells > 0 ? 1 : 0, cells);
}

void CountRead(ServerMetrics& metrics, const std::vector<t2::TResult>& results) {
  int64_t rows = 0;
  int64_t cells = 0;
  for (const t2::TResult& r : results) {
    rows += r.columnValues.empty() ? 0 : 1;
    cells += static_cast<int64_t>(r.columnValues.size());
  }
  metrics.CountRead(rows, cells);
}

int64_t CellsPut(const t2::TRowMutations& mutations) {
  int64_t cells = 0;
  for (const t2::TMutation& m : mutations.mutations) {
    if (m.__isset.put) cells += static_cast<int64_t>(m.put.columnValues.size());
  }
  return cells;
}

}  // namespace

MeteredService::MeteredService(std::shared_ptr<t2::THBaseServiceIf> service,
                               std::shared_ptr<ServerMetrics> metrics)
    : service_(std::move(service)), metrics_(std::move(metrics)) {}

template <typename Call>
decltype(auto) MeteredService::Run(ThriftMethod method, Call&& call) {
  CallRecord record(*metrics_, method);
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<Call>>) {
      call();
      record.Set(CallOutcome::kOk);
    } else {
      auto result = call();
      record.Set(CallOutcome::kOk);
      return result;
    }
  } catch (const t2::TIOError&) {
    record.Set(CallOutcome::kIoError);
    throw;
  } catch (const t2::TIllegalArgument&) {
    record.Set(CallOutcome::kIllegalArgument);
    throw;
  }
}

// ---- Data ------------------------------------------------------------------

bool MeteredService::exists(const std::string& table, const t2::TGet& tget) {
  return Run(M::kExists, [&] { return service_->exists(table, tget); });
}

void MeteredService::existsAll(std::vector<bool>& _return, const std::string& table,
                               const std::vector<t2::TGet>& tgets) {
  Run(M::kExistsAll, [&] { service_->existsAll(_return, table, tgets); });
}

void MeteredService::get(t2::TResult& _return, const std::string& table, const t2::TGet& tget) {
  Run(M::kGet, [&] { service_->get(_return, table, tget); });
  CountRead(*metrics_, _return);
}

void MeteredService::getMultiple(std::vector<t2::TResult>& _return, const std::string& table,
                                 const std::vector<t2::TGet>& tgets) {
  Run(M::kGetMultiple, [&] { service_->getMultiple(_return, table, tgets); });
  CountRead(*metrics_, _return);
}

void MeteredService::put(const std::string& table, const t2::TPut& tput) {
  Run(M::kPut, [&] { service_->put(table, tput); });
  metrics_->CountWritten(1, static_cast<int64_t>(tput.columnValues.size()));
}

bool MeteredService::checkAndPut(const std::string& table, const std::string& row,
                                 const std::string& family, const std::string& qualifier,
                                 const std::string& value, const t2::TPut& tput) {
  const bool applied = Run(M::kCheckAndPut, [&] {
    return service_->checkAndPut(table, row, family, qualifier, value, tput);
  });
  if (applied) metrics_->CountWritten(1, static_cast<int64_t>(tput.columnValues.size()));
  return applied;
}

void MeteredService::putMultiple(const std::string& table, const std::vector<t2::TPut>& tputs) {
  Run(M::kPutMultiple, [&] { service_->putMultiple(table, tputs); });
  int64_t cells = 0;
  for (const t2::TPut& p : tputs) cells += static_cast<int64_t>(p.columnValues.size());
  metrics_->CountWritten(static_cast<int64_t>(tputs.size()), cells);
}

void MeteredService::deleteSingle(const std::string& table, const t2::TDelete& tdelete) {
  Run(M::kDeleteSingle, [&] { service_->deleteSingle(table, tdelete); });
  metrics_->CountWritten(1, 0);
}

void MeteredService::deleteMultiple(std::vector<t2::TDelete>& _return, const std::string& table,
                                    const std::vector<t2::TDelete>& tdeletes) {
  Run(M::kDeleteMultiple, [&] { service_->deleteMultiple(_return, table, tdeletes); });
  // The deletes sent back are the ones not applied.
  metrics_->CountWritten(
      static_cast<int64_t>(tdeletes.size()) - static_cast<int64_t>(_return.size()), 0);
}

bool MeteredService::checkAndDelete(const std::string& table, const std::string& row,
                                    const std::string& family, const std::string& qualifier,
                                    const std::string& value, const t2::TDelete& tdelete) {
  const bool applied = Run(M::kCheckAndDelete, [&] {
    return service_->checkAndDelete(table, row, family, qualifier, value, tdelete);
  });
  if (applied) metrics_->CountWritten(1, 0);
  return applied;
}

void MeteredService::increment(t2::TResult& _return, const std::string& table,
                               const t2::TIncrement& tincrement) {
  Run(M::kIncrement, [&] { service_->increment(_return, table, tincrement); });
  metrics_->CountWritten(1, static_cast<int64_t>(tincrement.columns.size()));
}

void MeteredService::append(t2::TResult& _return, const std::string& table,
                            const t2::TAppend& tappend) {
  Run(M::kAppend, [&] { service_->append(_return, table, tappend); });
  metrics_->CountWritten(1, static_cast<int64_t>(tappend.columns.size()));
}

void MeteredService::mutateRow(const std::string& table, const t2::TRowMutations& trowMutations) {
  Run(M::kMutateRow, [&] { service_->mutateRow(table, trowMutations); });
  metrics_->CountWritten(1, CellsPut(trowMutations));
}

bool MeteredService::checkAndMutate(const std::string& table, const std::string& row,
                                    const std::string& family, const std::string& qualifier,
                                    t2::TCompareOperator::type compareOperator,
                                    const std::string& value,
                                    const t2::TRowMutations& rowMutations) {
  const bool applied = Run(M::kCheckAndMutate, [&] {
    return service_->checkAndMutate(table, row, family, qualifier, compareOperator, value,
                                    rowMutations);
  });
  if (applied) metrics_->CountWritten(1, CellsPut(rowMutations));
  return applied;
}

// ---- Scans -----------------------------------------------------------------

int32_t MeteredService::openScanner(const std::string& table, const t2::TScan& tscan) {
  return Run(M::kOpenScanner, [&] { return service_->openScanner(table, tscan); });
}

void MeteredService::getScannerRows(std::vector<t2::TResult>& _return, int32_t scannerId,
                                    int32_t numRows) {
  Run(M::kGetScannerRows, [&] { service_->getScannerRows(_return, scannerId, numRows); });
  CountRead(*metrics_, _return);
}

void MeteredService::closeScanner(int32_t scannerId) {
  Run(M::kCloseScanner, [&] { service_->closeScanner(scannerId); });
}

void MeteredService::getScannerResults(std::vector<t2::TResult>& _return, const std::string& table,
                                       const t2::TScan& tscan, int32_t numRows) {
  Run(M::kGetScannerResults, [&] { service_->getScannerResults(_return, table, tscan, numRows); });
  CountRead(*metrics_, _return);
}

// ---- Tables, namespaces, regions, the cluster -------------------------------

void MeteredService::getRegionLocation(t2::THRegionLocation& _return, const std::string& table,
                                       const std::string& row, bool reload) {
  Run(M::kGetRegionLocation, [&] { service_->getRegionLocation(_return, table, row, reload); });
}

void MeteredService::getAllRegionLocations(std::vector<t2::THRegionLocation>& _return,
                                           const std::string& table) {
  Run(M::kGetAllRegionLocations, [&] { service_->getAllRegionLocations(_return, table); });
}

void MeteredService::getTableDescriptor(t2::TTableDescriptor& _return,
                                        const t2::TTableName& table) {
  Run(M::kGetTableDescriptor, [&] { service_->getTableDescriptor(_return, table); });
}

void MeteredService::getTableDescriptors(std::vector<t2::TTableDescriptor>& _return,
                                         const std::vector<t2::TTableName>& tables) {
  Run(M::kGetTableDescriptors, [&] { service_->getTableDescriptors(_return, tables); });
}

bool MeteredService::tableExists(const t2::TTableName& tableName) {
  return Run(M::kTableExists, [&] { return service_->tableExists(tableName); });
}

void MeteredService::getTableDescriptorsByPattern(std::vector<t2::TTableDescriptor>& _return,
                                                  const std::string& regex, bool includeSysTables) {
  Run(M::kGetTableDescriptorsByPattern,
      [&] { service_->getTableDescriptorsByPattern(_return, regex, includeSysTables); });
}

void MeteredService::getTableDescriptorsByNamespace(std::vector<t2::TTableDescriptor>& _return,
                                                    const std::string& name) {
  Run(M::kGetTableDescriptorsByNamespace,
      [&] { service_->getTableDescriptorsByNamespace(_return, name); });
}

void MeteredService::getTableNamesByPattern(std::vector<t2::TTableName>& _return,
                                            const std::string& regex, bool includeSysTables) {
  Run(M::kGetTableNamesByPattern,
      [&] { service_->getTableNamesByPattern(_return, regex, includeSysTables); });
}

void MeteredService::getTableNamesByNamespace(std::vector<t2::TTableName>& _return,
                                              const std::string& name) {
  Run(M::kGetTableNamesByNamespace, [&] { service_->getTableNamesByNamespace(_return, name); });
}

void MeteredService::createTable(const t2::TTableDescriptor& desc,
                                 const std::vector<std::string>& splitKeys) {
  Run(M::kCreateTable, [&] { service_->createTable(desc, splitKeys); });
}

void MeteredService::deleteTable(const t2::TTableName& tableName) {
  Run(M::kDeleteTable, [&] { service_->deleteTable(tableName); });
}

void MeteredService::truncateTable(const t2::TTableName& tableName, bool preserveSplits) {
  Run(M::kTruncateTable, [&] { service_->truncateTable(tableName, preserveSplits); });
}

void MeteredService::enableTable(const t2::TTableName& tableName) {
  Run(M::kEnableTable, [&] { service_->enableTable(tableName); });
}

void MeteredService::disableTable(const t2::TTableName& tableName) {
  Run(M::kDisableTable, [&] { service_->disableTable(tableName); });
}

bool MeteredService::isTableEnabled(const t2::TTableName& tableName) {
  return Run(M::kIsTableEnabled, [&] { return service_->isTableEnabled(tableName); });
}

bool MeteredService::isTableDisabled(const t2::TTableName& tableName) {
  return Run(M::kIsTableDisabled, [&] { return service_->isTableDisabled(tableName); });
}

bool MeteredService::isTableAvailable(const t2::TTableName& tableName) {
  return Run(M::kIsTableAvailable, [&] { return service_->isTableAvailable(tableName); });
}

bool MeteredService::isTableAvailableWithSplit(const t2::TTableName& tableName,
                                               const std::vector<std::string>& splitKeys) {
  return Run(M::kIsTableAvailableWithSplit,
             [&] { return service_->isTableAvailableWithSplit(tableName, splitKeys); });
}

void MeteredService::addColumnFamily(const t2::TTableName& tableName,
                                     const t2::TColumnFamilyDescriptor& column) {
  Run(M::kAddColumnFamily, [&] { service_->addColumnFamily(tableName, column); });
}

void MeteredService::deleteColumnFamily(const t2::TTableName& tableName,
                                        const std::string& column) {
  Run(M::kDeleteColumnFamily, [&] { service_->deleteColumnFamily(tableName, column); });
}

void MeteredService::modifyColumnFamily(const t2::TTableName& tableName,
                                        const t2::TColumnFamilyDescriptor& column) {
  Run(M::kModifyColumnFamily, [&] { service_->modifyColumnFamily(tableName, column); });
}

void MeteredService::modifyTable(const t2::TTableDescriptor& desc) {
  Run(M::kModifyTable, [&] { service_->modifyTable(desc); });
}

void MeteredService::createNamespace(const t2::TNamespaceDescriptor& namespaceDesc) {
  Run(M::kCreateNamespace, [&] { service_->createNamespace(namespaceDesc); });
}

void MeteredService::modifyNamespace(const t2::TNamespaceDescriptor& namespaceDesc) {
  Run(M::kModifyNamespace, [&] { service_->modifyNamespace(namespaceDesc); });
}

void MeteredService::deleteNamespace(const std::string& name) {
  Run(M::kDeleteNamespace, [&] { service_->deleteNamespace(name); });
}

void MeteredService::getNamespaceDescriptor(t2::TNamespaceDescriptor& _return,
                                            const std::string& name) {
  Run(M::kGetNamespaceDescriptor, [&] { service_->getNamespaceDescriptor(_return, name); });
}

void MeteredService::listNamespaceDescriptors(std::vector<t2::TNamespaceDescriptor>& _return) {
  Run(M::kListNamespaceDescriptors, [&] { service_->listNamespaceDescriptors(_return); });
}

void MeteredService::listNamespaces(std::vector<std::string>& _return) {
  Run(M::kListNamespaces, [&] { service_->listNamespaces(_return); });
}

t2::TThriftServerType::type MeteredService::getThriftServerType() {
  return Run(M::kGetThriftServerType, [&] { return service_->getThriftServerType(); });
}

void MeteredService::getClusterId(std::string& _return) {
  Run(M::kGetClusterId, [&] { service_->getClusterId(_return); });
}

void MeteredService::getSlowLogResponses(std::vector<t2::TOnlineLogRecord>& _return,
                                         const std::set<t2::TServerName>& serverNames,
                                         const t2::TLogQueryFilter& logQueryFilter) {
  Run(M::kGetSlowLogResponses,
      [&] { service_->getSlowLogResponses(_return, serverNames, logQueryFilter); });
}

void MeteredService::clearSlowLogResponses(std::vector<bool>& _return,
                                           const std::set<t2::TServerName>& serverNames) {
  Run(M::kClearSlowLogResponses, [&] { service_->clearSlowLogResponses(_return, serverNames); });
}

bool MeteredService::grant(const t2::TAccessControlEntity& info) {
  return Run(M::kGrant, [&] { return service_->grant(info); });
}

bool MeteredService::revoke(const t2::TAccessControlEntity& info) {
  return Run(M::kRevoke, [&] { return service_->revoke(info); });
}

}  // namespace rtb::storage::server
