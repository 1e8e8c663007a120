// The real HBase that the HBase variants of module tests run against: the
// Thrift2 gateway named by RTB_HBASE_THRIFT (host:port), framed when
// RTB_HBASE_THRIFT_TRANSPORT=framed. Without it such a test skips, except
// under CI=true, where it fails: deploy/run-tests.sh starts HBase and sets
// the variable, so a missing one there means HBase did not start.
#ifndef RTB_TESTS_STORAGE_TEST_HBASE_H_
#define RTB_TESTS_STORAGE_TEST_HBASE_H_

#include <cstdlib>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "storage/hbase_store.h"
#include "storage/store.h"

namespace rtb::testing {

inline std::string EnvOrEmpty(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// The gateway's host:port, or empty when none is named.
inline std::string TestHBaseEndpoint() { return EnvOrEmpty("RTB_HBASE_THRIFT"); }

// Whether a missing gateway fails the test rather than skipping it.
inline bool TestHBaseRequired() { return EnvOrEmpty("CI") == "true"; }

// A store over the gateway, with deadlines for a loaded test machine (table
// creation and first calls to a fresh region take seconds there).
// The cluster's endpoint; "" when there is none, which under CI=true is
// also a test failure (HBase did not start). For a test that then skips.
inline std::string TestHBaseEndpointOrReportItMissing() {
  const std::string cluster = TestHBaseEndpoint();
  if (cluster.empty() && TestHBaseRequired()) {
    ADD_FAILURE() << "RTB_HBASE_THRIFT is not set under CI=true: HBase did not start";
  }
  return cluster;
}

inline absl::StatusOr<std::unique_ptr<storage::Store>> OpenTestHBase() {
  storage::HBaseStoreOptions options;
  options.endpoints = {TestHBaseEndpoint()};
  options.transport = EnvOrEmpty("RTB_HBASE_THRIFT_TRANSPORT") == "framed"
                          ? storage::ThriftTransport::kFramed
                          : storage::ThriftTransport::kBuffered;
  options.call_timeout_ms = 30000;
  return storage::OpenHBaseStore(options);
}

}  // namespace rtb::testing

// Skips the calling test, or fails it under CI=true, when no gateway is
// named; either way it returns from the calling function (SetUp).
#define RTB_SKIP_OR_FAIL_WITHOUT_TEST_HBASE()                                             \
  do {                                                                                    \
    if (::rtb::testing::TestHBaseEndpoint().empty()) {                                    \
      if (::rtb::testing::TestHBaseRequired()) {                                          \
        GTEST_FAIL() << "RTB_HBASE_THRIFT is not set under CI=true: HBase did not start " \
                        "(deploy/hbase/hbase.sh start && wait)";                          \
      }                                                                                   \
      GTEST_SKIP() << "RTB_HBASE_THRIFT is not set; run deploy/hbase/hbase.sh start && "  \
                      "deploy/hbase/hbase.sh wait and export it";                         \
    }                                                                                     \
  } while (0)

#endif  // RTB_TESTS_STORAGE_TEST_HBASE_H_
