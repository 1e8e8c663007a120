// Thrift2 request values for the storage server's tests, which call
// THBaseService directly (in process through MeteredService, or over a
// socket) so that each test knows every call made. Their tables have the one
// family "f", so a cell names only its qualifier.
#ifndef RTB_TESTS_STORAGE_SERVER_THRIFT_TEST_VALUES_H_
#define RTB_TESTS_STORAGE_SERVER_THRIFT_TEST_VALUES_H_

#include <string>
#include <utility>
#include <vector>

#include "storage/thrift/hbase_types.h"

namespace rtb::storage::testing {

// A cell of family "f".
inline thrift2::TColumnValue ThriftCell(const std::string& qualifier, const std::string& value) {
  thrift2::TColumnValue c;
  c.family = "f";
  c.qualifier = qualifier;
  c.value = value;
  return c;
}

inline thrift2::TPut ThriftPut(const std::string& row, std::vector<thrift2::TColumnValue> cells) {
  thrift2::TPut p;
  p.row = row;
  p.columnValues = std::move(cells);
  return p;
}

// A Get of the whole row.
inline thrift2::TGet ThriftGet(const std::string& row) {
  thrift2::TGet g;
  g.row = row;
  return g;
}

}  // namespace rtb::storage::testing

#endif  // RTB_TESTS_STORAGE_SERVER_THRIFT_TEST_VALUES_H_
