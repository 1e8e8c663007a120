// The backends the storage conformance suite runs against, by name:
//   embedded         the embedded engine in this process, on a manual clock
//   server_buffered  a storage-server process (buffered transport), reached
//                    through the hbase backend
//   server_framed    the same on the framed transport
//   hbase            real HBase through the Thrift2 gateway named by
//                    RTB_HBASE_THRIFT (host:port; RTB_HBASE_THRIFT_TRANSPORT
//                    =framed when it runs framed), as deploy/hbase/hbase.sh
//                    starts it
// Each is created once per test process, with the suite's table, and shut
// down when the process ends.
#ifndef RTB_TESTS_STORAGE_CONFORMANCE_BACKEND_H_
#define RTB_TESTS_STORAGE_CONFORMANCE_BACKEND_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "storage/store.h"
#include "storage/types.h"

namespace rtb::storage::conformance {

// The one table of the suite. Families:
//   f  VERSIONS 1                  plain cells, scans, cell TTLs
//   v  VERSIONS 3                  versions and delete markers
//   t  TTL 1 day, VERSIONS 3       TTL against explicit timestamps
//   m  TTL 1 day, VERSIONS 3, MIN_VERSIONS 1
//   s  TTL 2 s                     TTL against server timestamps
//   c  VERSIONS 1                  counters
// The name is fixed, so the test processes against one HBase share the
// table (creating it is idempotent) rather than each paying for a create.
inline constexpr char kTable[] = "rtb_conformance_v1";
inline constexpr int64_t kShortTtlSeconds = 2;
TableSchema ConformanceSchema();

class Backend {
 public:
  virtual ~Backend() = default;
  virtual Store& store() = 0;
  // Wall-clock "now" of the store, ms: the embedded engine's manual clock,
  // or this machine's clock for the remote ones.
  virtual int64_t NowMillis() = 0;
  // Lets `ms` pass for the store: moves the manual clock, or sleeps.
  virtual void Pass(int64_t ms) = 0;
  // True when time passes by itself (remote backends), so an expiry may be
  // waited for; false when Pass moves it exactly.
  virtual bool RealTime() const = 0;
};

// The backend named `name`, created on first use. Non-OK means it cannot
// run here: `skip` tells whether the tests should be skipped (HBase not
// configured outside CI) rather than failed.
absl::Status GetBackend(const std::string& name, Backend** backend, bool* skip);

}  // namespace rtb::storage::conformance

#endif  // RTB_TESTS_STORAGE_CONFORMANCE_BACKEND_H_
