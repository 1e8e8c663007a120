// What the tests of the hbase backend against a real Thrift2 gateway share
// (hbase_store_test.cc, hbase_admin_test.cc): the gateway from the
// environment, unique table names, a data table's schema, and the guard that
// skips a test without a gateway, or fails it under CI=true.
#ifndef RTB_TESTS_STORAGE_HBASE_HBASE_TEST_SUPPORT_H_
#define RTB_TESTS_STORAGE_HBASE_HBASE_TEST_SUPPORT_H_

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "storage/hbase/options.h"
#include "storage/hbase_store.h"

namespace rtb::storage::hbase_testing {

inline std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// Unique per process so reruns and parallel runs do not collide.
inline std::string UniqueName(const std::string& base) {
  static int counter = 0;
  return "rtb_test_" + base + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
}

inline HBaseStoreOptions BaseOptions() {
  HBaseStoreOptions o;
  o.endpoints = {Env("RTB_HBASE_THRIFT")};
  o.transport = Env("RTB_HBASE_THRIFT_TRANSPORT") == "framed" ? ThriftTransport::kFramed
                                                              : ThriftTransport::kBuffered;
  o.call_timeout_ms = 30000;
  return o;
}

inline TableSchema DataSchema(const std::string& name) {
  TableSchema s;
  s.name = name;
  FamilyOptions f;
  f.name = "f";
  f.max_versions = 5;
  FamilyOptions g;
  g.name = "g";
  g.max_versions = 5;
  FamilyOptions c;
  c.name = "c";
  s.families = {f, g, c};
  return s;
}

#define RTB_REQUIRE_HBASE()                                                         \
  do {                                                                              \
    if (::rtb::storage::hbase_testing::Env("RTB_HBASE_THRIFT").empty()) {           \
      if (::rtb::storage::hbase_testing::Env("CI") == "true") {                     \
        GTEST_FAIL() << "RTB_HBASE_THRIFT is not set under CI=true: HBase did not " \
                        "start (deploy/hbase/hbase.sh start && wait)";              \
      }                                                                             \
      GTEST_SKIP() << "RTB_HBASE_THRIFT is not set; run deploy/hbase/hbase.sh "     \
                      "start && deploy/hbase/hbase.sh wait and export it";          \
    }                                                                               \
  } while (0)

}  // namespace rtb::storage::hbase_testing

#endif  // RTB_TESTS_STORAGE_HBASE_HBASE_TEST_SUPPORT_H_
