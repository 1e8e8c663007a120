// Requests of the differential test's script (thrift2_script.h), built
// field by field as a Thrift2 client sets them.
#ifndef RTB_TESTS_STORAGE_DIFFERENTIAL_THRIFT2_REQUESTS_H_
#define RTB_TESTS_STORAGE_DIFFERENTIAL_THRIFT2_REQUESTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storage/thrift/hbase_types.h"

namespace rtb::storage::testing {

inline thrift2::TTableName Name(const std::string& table, const std::string& ns = "") {
  thrift2::TTableName out;
  if (!ns.empty()) out.__set_ns(ns);
  out.qualifier = table;
  return out;
}

inline thrift2::TColumnValue Value(const std::string& family, const std::string& qualifier,
                                   const std::string& value,
                                   std::optional<int64_t> ts = std::nullopt) {
  thrift2::TColumnValue out;
  out.family = family;
  out.qualifier = qualifier;
  out.value = value;
  if (ts) out.__set_timestamp(*ts);
  return out;
}

inline thrift2::TPut PutOf(const std::string& row, std::vector<thrift2::TColumnValue> values) {
  thrift2::TPut out;
  out.row = row;
  out.columnValues = std::move(values);
  return out;
}

inline thrift2::TColumn Column(const std::string& family,
                               std::optional<std::string> qualifier = std::nullopt,
                               std::optional<int64_t> ts = std::nullopt) {
  thrift2::TColumn out;
  out.family = family;
  if (qualifier) out.__set_qualifier(*qualifier);
  if (ts) out.__set_timestamp(*ts);
  return out;
}

inline thrift2::TGet GetOf(const std::string& row, std::vector<thrift2::TColumn> columns = {}) {
  thrift2::TGet out;
  out.row = row;
  if (!columns.empty()) out.__set_columns(std::move(columns));
  return out;
}

inline thrift2::TDelete DeleteOf(const std::string& row, std::vector<thrift2::TColumn> columns,
                                 thrift2::TDeleteType::type type) {
  thrift2::TDelete out;
  out.row = row;
  if (!columns.empty()) out.__set_columns(std::move(columns));
  out.__set_deleteType(type);
  return out;
}

inline thrift2::TColumnFamilyDescriptor FamilyOf(const std::string& name, int versions = 0) {
  thrift2::TColumnFamilyDescriptor out;
  out.name = name;
  if (versions > 0) out.__set_maxVersions(versions);
  return out;
}

inline thrift2::TScan ScanOf(const std::string& start = "", const std::string& stop = "") {
  thrift2::TScan out;
  if (!start.empty()) out.__set_startRow(start);
  if (!stop.empty()) out.__set_stopRow(stop);
  return out;
}

inline thrift2::TScan FilterScan(const std::string& filter, int versions = 1) {
  thrift2::TScan out;
  out.__set_filterString(filter);
  out.__set_maxVersions(versions);
  return out;
}

inline std::string Bool(bool b) { return b ? "true" : "false"; }

}  // namespace rtb::storage::testing

#endif  // RTB_TESTS_STORAGE_DIFFERENTIAL_THRIFT2_REQUESTS_H_
