// THBaseService with metrics: every call is passed to the service it wraps
// (the StoreServiceHandler) and counted in ServerMetrics, by method and
// outcome, with its duration, and the rows and cells it read or wrote.
// Exceptions pass through unchanged, so the client sees exactly what the
// wrapped service answers.
//
// Cost per call: two clock reads and a few adds to the calling thread's own
// slots (metrics/sharded.h); no lock, no allocation.
//
// Thread-safety: as the wrapped service.
#ifndef RTB_STORAGE_SERVER_METERED_SERVICE_H_
#define RTB_STORAGE_SERVER_METERED_SERVICE_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "storage/server/server_metrics.h"
#include "storage/thrift/THBaseService.h"

namespace rtb::storage::server {

class MeteredService final : public thrift2::THBaseServiceIf {
 public:
  MeteredService(std::shared_ptr<thrift2::THBaseServiceIf> service,
                 std::shared_ptr<ServerMetrics> metrics);

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
  bool grant(const thrift2::TAccessControlEntity& info) override;
  bool revoke(const thrift2::TAccessControlEntity& info) override;

 private:
  // Runs `call` as `method`, timed, and records its outcome.
  template <typename Call>
  decltype(auto) Run(ThriftMethod method, Call&& call);

  const std::shared_ptr<thrift2::THBaseServiceIf> service_;
  const std::shared_ptr<ServerMetrics> metrics_;
};

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_METERED_SERVICE_H_
