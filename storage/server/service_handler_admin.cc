// StoreServiceHandler's administration calls: tables, families, namespaces,
// region locations and the cluster (storage/server/service_handler.h).
#include <algorithm>
#include <limits>
#include <regex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "storage/server/convert.h"
#include "storage/server/descriptors.h"
#include "storage/server/errors.h"
#include "storage/server/service_handler.h"

namespace rtb::storage::server {
namespace {

namespace t2 = ::rtb::storage::thrift2;

// Namespaces live as rows of this table: the row is the namespace's name,
// kNameColumn marks it, every configuration entry is a column of its own.
constexpr char kNamespaceTable[] = "hbase:namespace";
constexpr char kNamespaceFamily[] = "info";
constexpr char kNameColumn[] = "name";
constexpr char kConfigurationPrefix[] = "conf:";
constexpr char kDefaultNamespace[] = "default";
constexpr char kSystemNamespace[] = "hbase";
// HBase's own system tables, always there.
constexpr const char* kSystemTables[] = {"hbase:meta", "hbase:namespace"};

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  if (!value.ok()) ThrowStatus(value.status(), IllegalArgument::kNotDeclared);
  return *std::move(value);
}

void OkOrThrow(const absl::Status& status) {
  if (!status.ok()) ThrowStatus(status, IllegalArgument::kNotDeclared);
}

bool IsSystemTable(std::string_view name) { return NamespaceOf(name) == kSystemNamespace; }

// HBase 2.6's system tables as its master describes them with the default
// configuration (hbase.meta.versions 3, hbase.meta.blocksize 8 KiB): the
// families and their settings, and IS_META. The coprocessor and store file
// tracker attributes HBase adds follow its configuration, not the table.
FamilyOptions SystemFamily(std::string name, int versions, int block_size, BloomType bloom,
                           const char* encoding) {
  FamilyOptions f{.name = std::move(name), .max_versions = versions, .in_memory = true};
  f.bloom = bloom;
  f.descriptor_values = {{"BLOCKSIZE", absl::StrCat(block_size)},
                         {"DATA_BLOCK_ENCODING", encoding}};
  return f;
}

TableSchema SystemTable(std::string_view name) {
  TableSchema schema;
  schema.name = std::string(name);
  if (name == "hbase:meta") {
    constexpr int kAllVersions = std::numeric_limits<int32_t>::max();
    schema.families = {
        SystemFamily("info", 3, 8192, BloomType::kRowCol, "ROW_INDEX_V1"),
        SystemFamily("rep_barrier", kAllVersions, 65536, BloomType::kRowCol, "ROW_INDEX_V1"),
        SystemFamily("table", 3, 8192, BloomType::kRowCol, "ROW_INDEX_V1")};
    schema.descriptor_values = {{"IS_META", "true"}};
  } else {
    schema.families = {SystemFamily("info", 10, 8192, BloomType::kRow, "NONE")};
  }
  return schema;
}

// HBase's master matches the whole name, and a default-namespace table by
// "default:name" too.
bool MatchesPattern(const std::regex& pattern, const std::string& name) {
  if (std::regex_match(name, pattern)) return true;
  return NamespaceOf(name) == kDefaultNamespace &&
         std::regex_match(absl::StrCat(kDefaultNamespace, ":", name), pattern);
}

std::regex CompilePattern(const std::string& regex) {
  try {
    return std::regex(regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    ThrowIOError(kDoNotRetry, absl::StrCat("bad table name pattern '", regex, "': ", e.what()),
                 false);
  }
}

t2::TTableName NameToThrift(const std::string& table) {
  t2::TTableName out;
  const size_t colon = table.find(':');
  out.__set_ns(colon == std::string::npos ? kDefaultNamespace : table.substr(0, colon));
  out.qualifier = colon == std::string::npos ? table : table.substr(colon + 1);
  return out;
}

}  // namespace

// ---- Tables ----------------------------------------------------------------

TableSchema StoreServiceHandler::ExistingSchema(const std::string& table, Missing missing) {
  if (IsSystemTable(table)) {
    for (const char* system : kSystemTables) {
      if (table == system) return SystemTable(table);
    }
  }
  std::vector<TableSchema> schemas = ValueOrThrow(store_.ListTables());
  auto it = std::find_if(schemas.begin(), schemas.end(),
                         [&](const TableSchema& s) { return s.name == table; });
  if (it == schemas.end()) {
    if (missing == Missing::kClientWords) ThrowTableNotFound(table);
    ThrowIOError(kTableNotFound, table, false);
  }
  return *it;
}

std::vector<TableSchema> StoreServiceHandler::Tables(bool system) {
  std::vector<TableSchema> out;
  for (TableSchema& s : ValueOrThrow(store_.ListTables())) {
    if (!IsSystemTable(s.name)) out.push_back(std::move(s));
  }
  if (system) {
    for (const char* name : kSystemTables) out.push_back(SystemTable(name));
  }
  std::sort(out.begin(), out.end(),
            [](const TableSchema& a, const TableSchema& b) { return a.name < b.name; });
  return out;
}

void StoreServiceHandler::getTableDescriptor(t2::TTableDescriptor& _return,
                                             const t2::TTableName& table) {
  _return = ValueOrThrow(
      DescriptorToThrift(ExistingSchema(TableFromThrift(table), Missing::kClientWords)));
}

void StoreServiceHandler::getTableDescriptors(std::vector<t2::TTableDescriptor>& _return,
                                              const std::vector<t2::TTableName>& tables) {
  // As HBase's master: the tables that exist, the others left out.
  _return.clear();
  for (const TableSchema& schema : Tables(true)) {
    for (const t2::TTableName& name : tables) {
      if (TableFromThrift(name) == schema.name) {
        _return.push_back(ValueOrThrow(DescriptorToThrift(schema)));
        break;
      }
    }
  }
}

void StoreServiceHandler::getTableDescriptorsByPattern(std::vector<t2::TTableDescriptor>& _return,
                                                       const std::string& regex,
                                                       bool includeSysTables) {
  const std::regex pattern = CompilePattern(regex.empty() ? ".*" : regex);
  _return.clear();
  for (const TableSchema& schema : Tables(includeSysTables)) {
    if (MatchesPattern(pattern, schema.name)) {
      _return.push_back(ValueOrThrow(DescriptorToThrift(schema)));
    }
  }
}

void StoreServiceHandler::getTableDescriptorsByNamespace(std::vector<t2::TTableDescriptor>& _return,
                                                         const std::string& name) {
  if (!FindNamespace(name)) ThrowIOError(kNamespaceNotFound, name, false);
  _return.clear();
  for (const TableSchema& schema : Tables(true)) {
    if (NamespaceOf(schema.name) == name) {
      _return.push_back(ValueOrThrow(DescriptorToThrift(schema)));
    }
  }
}

void StoreServiceHandler::getTableNamesByPattern(std::vector<t2::TTableName>& _return,
                                                 const std::string& regex, bool includeSysTables) {
  const std::regex pattern = CompilePattern(regex.empty() ? ".*" : regex);
  _return.clear();
  for (const TableSchema& schema : Tables(includeSysTables)) {
    if (MatchesPattern(pattern, schema.name)) _return.push_back(NameToThrift(schema.name));
  }
}

void StoreServiceHandler::getTableNamesByNamespace(std::vector<t2::TTableName>& _return,
                                                   const std::string& name) {
  if (!FindNamespace(name)) ThrowIOError(kNamespaceNotFound, name, false);
  _return.clear();
  for (const TableSchema& schema : Tables(true)) {
    if (NamespaceOf(schema.name) == name) _return.push_back(NameToThrift(schema.name));
  }
}

bool StoreServiceHandler::tableExists(const t2::TTableName& tableName) {
  const std::string name = TableFromThrift(tableName);
  if (IsSystemTable(name)) {
    return std::any_of(std::begin(kSystemTables), std::end(kSystemTables),
                       [&](const char* system) { return name == system; });
  }
  return ValueOrThrow(store_.TableExists(name));
}

void StoreServiceHandler::createTable(const t2::TTableDescriptor& desc,
                                      const std::vector<std::string>& splitKeys) {
  TableSchema schema = ValueOrThrow(SchemaFromThrift(desc, splitKeys));
  absl::MutexLock admin(&admin_mutex_);
  const std::string ns = NamespaceOf(schema.name);
  if (!FindNamespace(ns)) ThrowIOError(kNamespaceNotFound, ns, false);
  if (IsSystemTable(schema.name) || ValueOrThrow(store_.TableExists(schema.name))) {
    ThrowIOError(kTableExists, schema.name, false);
  }
  // HBase's master records the store file tracker of a new table; a later
  // modifyTable replaces the values with the client's, as in HBase.
  schema.descriptor_values.emplace("hbase.store.file-tracker.impl", "DEFAULT");
  OkOrThrow(store_.CreateTable(schema));
}

void StoreServiceHandler::deleteTable(const t2::TTableName& tableName) {
  const std::string name = TableFromThrift(tableName);
  if (!ValueOrThrow(store_.TableExists(name))) ThrowIOError(kTableNotFound, name, false);
  {
    absl::MutexLock lock(&disabled_mutex_);
    if (!disabled_.contains(name)) {
      ThrowIOError(kTableNotDisabled,
                   absl::StrCat("Not DISABLED; tableName=", name, ", state=ENABLED"), false);
    }
  }
  OkOrThrow(store_.DeleteTable(name));
  absl::MutexLock lock(&disabled_mutex_);
  disabled_.erase(name);
  any_disabled_.store(!disabled_.empty(), std::memory_order_release);
}

// The table must be disabled; HBase enables it again once it is empty.
void StoreServiceHandler::truncateTable(const t2::TTableName& tableName, bool preserveSplits) {
  const std::string name = TableFromThrift(tableName);
  if (!ValueOrThrow(store_.TableExists(name))) ThrowIOError(kTableNotFound, name, false);
  {
    absl::MutexLock lock(&disabled_mutex_);
    if (!disabled_.contains(name)) ThrowIOError(kTableNotDisabled, name, false);
  }
  OkOrThrow(store_.TruncateTable(name));
  if (!preserveSplits) {
    TableSchema schema = ExistingSchema(name, Missing::kMasterWords);
    if (!schema.split_keys.empty()) {
      schema.split_keys.clear();
      OkOrThrow(store_.AlterTable(schema));
    }
  }
  absl::MutexLock lock(&disabled_mutex_);
  disabled_.erase(name);
  any_disabled_.store(!disabled_.empty(), std::memory_order_release);
}

void StoreServiceHandler::enableTable(const t2::TTableName& tableName) {
  const std::string name = ExistingTable(tableName);
  absl::MutexLock lock(&disabled_mutex_);
  // HBase's client checks the state itself and words it so.
  if (!disabled_.erase(name))
    ThrowTableNotFound(absl::StrCat("tableName=", name, ", state=ENABLED"));
  any_disabled_.store(!disabled_.empty(), std::memory_order_release);
}

void StoreServiceHandler::disableTable(const t2::TTableName& tableName) {
  const std::string name = TableFromThrift(tableName);
  if (!ValueOrThrow(store_.TableExists(name))) ThrowIOError(kTableNotFound, name, false);
  absl::MutexLock lock(&disabled_mutex_);
  if (!disabled_.insert(name).second) ThrowIOError(kTableNotEnabled, name, false);
  any_disabled_.store(true, std::memory_order_release);
}

bool StoreServiceHandler::isTableEnabled(const t2::TTableName& tableName) {
  const std::string name = TableFromThrift(tableName);
  if (IsSystemTable(name) && tableExists(tableName)) return true;
  return !IsDisabled(ExistingTable(tableName));
}

bool StoreServiceHandler::isTableDisabled(const t2::TTableName& tableName) {
  return !isTableEnabled(tableName);
}

// False, not an error, for a missing table, as HBase answers.
bool StoreServiceHandler::isTableAvailable(const t2::TTableName& tableName) {
  if (!tableExists(tableName)) return false;
  return !IsDisabled(TableFromThrift(tableName));
}

bool StoreServiceHandler::isTableAvailableWithSplit(const t2::TTableName& tableName,
                                                    const std::vector<std::string>&) {
  return isTableAvailable(tableName);
}

// ---- Families ----------------------------------------------------------------

void StoreServiceHandler::addColumnFamily(const t2::TTableName& tableName,
                                          const t2::TColumnFamilyDescriptor& column) {
  const std::string name = TableFromThrift(tableName);
  FamilyOptions family = ValueOrThrow(FamilyFromThrift(column));
  absl::MutexLock admin(&admin_mutex_);
  TableSchema schema = ExistingSchema(name, Missing::kMasterWords);
  if (schema.Family(family.name) != nullptr) {
    ThrowIOError(kInvalidFamilyOperation,
                 absl::StrCat("Column family '", family.name, "' in table '", name,
                              "' already exists so cannot be added"),
                 false);
  }
  schema.families.push_back(std::move(family));
  OkOrThrow(store_.AlterTable(schema));
}

void StoreServiceHandler::deleteColumnFamily(const t2::TTableName& tableName,
                                             const std::string& column) {
  const std::string name = TableFromThrift(tableName);
  absl::MutexLock admin(&admin_mutex_);
  TableSchema schema = ExistingSchema(name, Missing::kMasterWords);
  if (schema.Family(column) == nullptr) {
    ThrowIOError(kInvalidFamilyOperation,
                 absl::StrCat("Family '", column, "' does not exist, so it cannot be deleted"),
                 false);
  }
  if (schema.families.size() == 1) {
    ThrowIOError(kInvalidFamilyOperation,
                 absl::StrCat("Family '", column,
                              "' is the only column family in the table, so it cannot be deleted"),
                 false);
  }
  std::erase_if(schema.families, [&](const FamilyOptions& f) { return f.name == column; });
  OkOrThrow(store_.AlterTable(schema));
}

// The family's descriptor is replaced whole, as HBase's master replaces it.
void StoreServiceHandler::modifyColumnFamily(const t2::TTableName& tableName,
                                             const t2::TColumnFamilyDescriptor& column) {
  const std::string name = TableFromThrift(tableName);
  FamilyOptions family = ValueOrThrow(FamilyFromThrift(column));
  absl::MutexLock admin(&admin_mutex_);
  TableSchema schema = ExistingSchema(name, Missing::kMasterWords);
  auto it = std::find_if(schema.families.begin(), schema.families.end(),
                         [&](const FamilyOptions& f) { return f.name == family.name; });
  if (it == schema.families.end()) {
    ThrowIOError(
        kInvalidFamilyOperation,
        absl::StrCat("Family '", family.name, "' does not exist, so it cannot be modified"), false);
  }
  *it = std::move(family);
  OkOrThrow(store_.AlterTable(schema));
}

void StoreServiceHandler::modifyTable(const t2::TTableDescriptor& desc) {
  const std::string name = TableFromThrift(desc.tableName);
  absl::MutexLock admin(&admin_mutex_);
  TableSchema existing = ExistingSchema(name, Missing::kMasterWords);
  TableSchema schema = ValueOrThrow(SchemaFromThrift(desc, existing.split_keys));
  OkOrThrow(store_.AlterTable(schema));
}

// ---- Namespaces ----------------------------------------------------------------

std::optional<t2::TNamespaceDescriptor> StoreServiceHandler::FindNamespace(
    const std::string& name) {
  if (name == kDefaultNamespace || name == kSystemNamespace) {
    t2::TNamespaceDescriptor builtin;
    builtin.name = name;
    return builtin;
  }
  if (!ValueOrThrow(store_.TableExists(kNamespaceTable))) return std::nullopt;
  Get get;
  get.row = name;
  RowResult row = ValueOrThrow(store_.Get(kNamespaceTable, get));
  if (row.empty()) return std::nullopt;
  t2::TNamespaceDescriptor out;
  out.name = name;
  for (const Cell& c : row.cells) {
    if (c.qualifier.starts_with(kConfigurationPrefix)) {
      out.configuration[c.qualifier.substr(sizeof(kConfigurationPrefix) - 1)] = c.value;
      out.__isset.configuration = true;
    }
  }
  return out;
}

std::vector<t2::TNamespaceDescriptor> StoreServiceHandler::Namespaces() {
  std::vector<t2::TNamespaceDescriptor> out;
  for (const char* builtin : {kDefaultNamespace, kSystemNamespace}) {
    out.push_back(*FindNamespace(builtin));
  }
  if (ValueOrThrow(store_.TableExists(kNamespaceTable))) {
    Scan scan;
    std::unique_ptr<Scanner> scanner = ValueOrThrow(store_.OpenScanner(kNamespaceTable, scan));
    for (;;) {
      std::vector<RowResult> rows = ValueOrThrow(scanner->Next(1000));
      if (rows.empty()) break;
      for (const RowResult& r : rows) out.push_back(*FindNamespace(r.row));
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

void StoreServiceHandler::WriteNamespace(const t2::TNamespaceDescriptor& descriptor) {
  TableSchema table;
  table.name = kNamespaceTable;
  table.families = {FamilyOptions{.name = kNamespaceFamily}};
  OkOrThrow(store_.CreateTable(table));
  const int64_t ts = NextNamespaceTimestamp();
  Delete old;
  old.row = descriptor.name;
  old.timestamp = ts - 1;
  OkOrThrow(store_.Delete(kNamespaceTable, old));
  Put put;
  put.row = descriptor.name;
  put.values.push_back(PutValue{kNamespaceFamily, kNameColumn, descriptor.name, ts});
  for (const auto& [key, value] : descriptor.configuration) {
    put.values.push_back(
        PutValue{kNamespaceFamily, absl::StrCat(kConfigurationPrefix, key), value, ts});
  }
  OkOrThrow(store_.Put(kNamespaceTable, put));
}

void StoreServiceHandler::EraseNamespace(const std::string& name) {
  Delete del;
  del.row = name;
  del.timestamp = NextNamespaceTimestamp() - 1;
  OkOrThrow(store_.Delete(kNamespaceTable, del));
}

int64_t StoreServiceHandler::NextNamespaceTimestamp() {
  namespace_clock_ = std::max(clock_->NowMillis(), namespace_clock_ + 2);
  return namespace_clock_;
}

void StoreServiceHandler::createNamespace(const t2::TNamespaceDescriptor& namespaceDesc) {
  absl::MutexLock admin(&admin_mutex_);
  if (FindNamespace(namespaceDesc.name)) {
    ThrowIOError(kNamespaceExist, absl::StrCat("Namespace ", namespaceDesc.name, " already exists"),
                 false);
  }
  TableSchema probe;
  probe.name = absl::StrCat(namespaceDesc.name, ":t");
  probe.families = {FamilyOptions{.name = "f"}};
  OkOrThrow(ValidateSchema(probe));
  WriteNamespace(namespaceDesc);
}

void StoreServiceHandler::modifyNamespace(const t2::TNamespaceDescriptor& namespaceDesc) {
  absl::MutexLock admin(&admin_mutex_);
  if (!FindNamespace(namespaceDesc.name))
    ThrowIOError(kNamespaceNotFound, namespaceDesc.name, false);
  if (namespaceDesc.name == kDefaultNamespace || namespaceDesc.name == kSystemNamespace) {
    ThrowIOError(kConstraint,
                 absl::StrCat("Reserved namespace ", namespaceDesc.name, " cannot be modified"),
                 false);
  }
  WriteNamespace(namespaceDesc);
}

void StoreServiceHandler::deleteNamespace(const std::string& name) {
  absl::MutexLock admin(&admin_mutex_);
  if (name == kDefaultNamespace || name == kSystemNamespace) {
    ThrowIOError(kConstraint, absl::StrCat("Reserved namespace ", name, " cannot be removed."),
                 false);
  }
  if (!FindNamespace(name)) ThrowIOError(kNamespaceNotFound, name, false);
  size_t tables = 0;
  for (const TableSchema& schema : Tables(false)) {
    if (NamespaceOf(schema.name) == name) ++tables;
  }
  if (tables > 0) {
    ThrowIOError(kConstraint,
                 absl::StrCat("Only empty namespaces can be removed. Namespace ", name, " has ",
                              tables, " tables"),
                 false);
  }
  EraseNamespace(name);
}

void StoreServiceHandler::getNamespaceDescriptor(t2::TNamespaceDescriptor& _return,
                                                 const std::string& name) {
  std::optional<t2::TNamespaceDescriptor> found = FindNamespace(name);
  if (!found) ThrowIOError(kNamespaceNotFound, name, false);
  _return = *std::move(found);
}

void StoreServiceHandler::listNamespaceDescriptors(std::vector<t2::TNamespaceDescriptor>& _return) {
  _return = Namespaces();
}

void StoreServiceHandler::listNamespaces(std::vector<std::string>& _return) {
  _return.clear();
  for (const t2::TNamespaceDescriptor& d : Namespaces()) _return.push_back(d.name);
}

// ---- Regions and the cluster ---------------------------------------------------

void StoreServiceHandler::getAllRegionLocations(std::vector<t2::THRegionLocation>& _return,
                                                const std::string& table) {
  const std::string name = TableFromThrift(table);
  TableSchema schema = ExistingSchema(name, Missing::kClientWords);
  std::vector<std::string> bounds = schema.split_keys;
  std::sort(bounds.begin(), bounds.end());
  _return.clear();
  for (size_t i = 0; i <= bounds.size(); ++i) {
    t2::THRegionLocation location;
    location.serverName.hostName = options_.host;
    location.serverName.__set_port(options_.port);
    location.serverName.__set_startCode(0);
    location.regionInfo.regionId = 0;
    location.regionInfo.tableName = name;
    location.regionInfo.__set_startKey(i == 0 ? std::string() : bounds[i - 1]);
    location.regionInfo.__set_endKey(i == bounds.size() ? std::string() : bounds[i]);
    location.regionInfo.__set_offline(false);
    location.regionInfo.__set_split(false);
    location.regionInfo.__set_replicaId(0);
    _return.push_back(std::move(location));
  }
}

void StoreServiceHandler::getRegionLocation(t2::THRegionLocation& _return, const std::string& table,
                                            const std::string& row, bool) {
  std::vector<t2::THRegionLocation> all;
  getAllRegionLocations(all, table);
  for (t2::THRegionLocation& location : all) {
    const std::string& end = location.regionInfo.endKey;
    if (end.empty() || row < end) {
      _return = std::move(location);
      return;
    }
  }
  _return = std::move(all.back());
}

t2::TThriftServerType::type StoreServiceHandler::getThriftServerType() {
  return t2::TThriftServerType::TWO;
}

void StoreServiceHandler::getClusterId(std::string& _return) { _return = options_.cluster_id; }

void StoreServiceHandler::getSlowLogResponses(std::vector<t2::TOnlineLogRecord>& _return,
                                              const std::set<t2::TServerName>&,
                                              const t2::TLogQueryFilter&) {
  _return.clear();
}

void StoreServiceHandler::clearSlowLogResponses(std::vector<bool>& _return,
                                                const std::set<t2::TServerName>& serverNames) {
  // HBase's Admin answers one flag per server named, and nothing at all for
  // an empty set. A region server whose slow log buffer is off (HBase's
  // default) answers false: there was nothing to clear. This server keeps
  // no slow log.
  _return.assign(serverNames.size(), false);
}

bool StoreServiceHandler::grant(const t2::TAccessControlEntity&) {
  ThrowIOError(kDoNotRetry,
               "java.lang.UnsupportedOperationException: "
               "org.apache.hadoop.hbase.security.access.AccessController is not loaded",
               false);
}

bool StoreServiceHandler::revoke(const t2::TAccessControlEntity&) {
  ThrowIOError(kDoNotRetry,
               "java.lang.UnsupportedOperationException: "
               "org.apache.hadoop.hbase.security.access.AccessController is not loaded",
               false);
}

}  // namespace rtb::storage::server
