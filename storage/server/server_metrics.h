// The storage server's metrics, declared once and resolved at start-up. A
// call only adds to its own thread's slots (metrics/sharded.h, allocated at
// a thread's first call): no lock and no allocation per call, however many
// connection threads count the same series. What the server and its store hold now (connections,
// scanners, the engine's figures) is read when Prometheus scrapes.
//
//   storage_server_requests_total{method,outcome}    calls answered, by THBaseService
//                                                    method and what the client got back
//   storage_server_request_duration_seconds{method}  time in the handler: request decoded
//                                                    -> answer ready to write
//   storage_server_rows_read_total                   rows sent back with cells by get,
//                                                    getMultiple and the scanner calls
//   storage_server_cells_read_total                  cells in those rows
//   storage_server_rows_written_total                rows changed by the mutation calls
//   storage_server_cells_written_total               cells put, incremented or appended
//   storage_server_connections                       connections open (one thread each)
//   storage_server_connections_limit                 --threads
//   storage_server_open_scanners                     scanners open
//   storage_server_open_scanners_limit               --max-scanners
//   storage_server_store_memory_bytes{part}          Store::MemoryUsage
//   storage_server_store_row_cache_reads_total{result}  Store::RowCacheReadCounts
//   storage_server_store_live_data_bytes, _sst_files_bytes,
//   _pending_compaction_bytes, _running_compactions, _running_flushes,
//   _delayed_write_rate_bytes_per_second, _writes_stopped,
//   _background_errors                               Store::EngineStats
//
// `method` is one of the IDL's 52 method names, `outcome` one of "ok",
// "io_error" (TIOError), "illegal_argument" (TIllegalArgument) and
// "internal_error" (anything else, which the client gets as a
// TApplicationException); every series exists from the start at 0.
//
// Thread-safety: RecordCall, CountRead and CountWritten from any thread;
// Collect from any thread (serialised inside).
#ifndef RTB_STORAGE_SERVER_SERVER_METRICS_H_
#define RTB_STORAGE_SERVER_SERVER_METRICS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "metrics/sharded.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/metric_family.h"
#include "prometheus/registry.h"
#include "storage/store.h"

namespace rtb::storage::server {

// THBaseService's methods, in the IDL's order (storage/thrift/hbase.thrift).
enum class ThriftMethod : uint8_t {
  kExists,
  kExistsAll,
  kGet,
  kGetMultiple,
  kPut,
  kCheckAndPut,
  kPutMultiple,
  kDeleteSingle,
  kDeleteMultiple,
  kCheckAndDelete,
  kIncrement,
  kAppend,
  kOpenScanner,
  kGetScannerRows,
  kCloseScanner,
  kMutateRow,
  kGetScannerResults,
  kGetRegionLocation,
  kGetAllRegionLocations,
  kCheckAndMutate,
  kGetTableDescriptor,
  kGetTableDescriptors,
  kTableExists,
  kGetTableDescriptorsByPattern,
  kGetTableDescriptorsByNamespace,
  kGetTableNamesByPattern,
  kGetTableNamesByNamespace,
  kCreateTable,
  kDeleteTable,
  kTruncateTable,
  kEnableTable,
  kDisableTable,
  kIsTableEnabled,
  kIsTableDisabled,
  kIsTableAvailable,
  kIsTableAvailableWithSplit,
  kAddColumnFamily,
  kDeleteColumnFamily,
  kModifyColumnFamily,
  kModifyTable,
  kCreateNamespace,
  kModifyNamespace,
  kDeleteNamespace,
  kGetNamespaceDescriptor,
  kListNamespaceDescriptors,
  kListNamespaces,
  kGetThriftServerType,
  kGetClusterId,
  kGetSlowLogResponses,
  kClearSlowLogResponses,
  kGrant,
  kRevoke,
};
inline constexpr size_t kThriftMethodCount = 52;
// The method's name on the wire, the `method` label.
const char* ThriftMethodName(ThriftMethod method);

enum class CallOutcome : uint8_t { kOk, kIoError, kIllegalArgument, kInternalError };
inline constexpr size_t kCallOutcomeCount = 4;
const char* CallOutcomeName(CallOutcome outcome);

// What a scrape reads besides the counters. Each is called from the scrape's
// thread; a missing one reads as 0.
struct ServerMetricsSources {
  // The store served, for its memory and engine figures; none when null.
  Store* store = nullptr;
  std::function<int64_t()> connections;
  int64_t connection_limit = 0;
  std::function<int64_t()> open_scanners;
  int64_t open_scanner_limit = 0;
};

class ServerMetrics final : public prometheus::Collectable {
 public:
  // Declares every series in a registry of its own. Whatever `sources`
  // reach must outlive the last Collect.
  explicit ServerMetrics(ServerMetricsSources sources);
  ~ServerMetrics() override;
  ServerMetrics(const ServerMetrics&) = delete;
  ServerMetrics& operator=(const ServerMetrics&) = delete;

  void RecordCall(ThriftMethod method, CallOutcome outcome, double seconds) {
    const size_t m = static_cast<size_t>(method);
    calls_[m * kCallOutcomeCount + static_cast<size_t>(outcome)]->Increment();
    durations_[m]->Observe(seconds);
  }
  void CountRead(int64_t rows, int64_t cells) {
    rows_read_.Increment(static_cast<double>(rows));
    cells_read_.Increment(static_cast<double>(cells));
  }
  void CountWritten(int64_t rows, int64_t cells) {
    rows_written_.Increment(static_cast<double>(rows));
    cells_written_.Increment(static_cast<double>(cells));
  }

  // Reads the sources into the gauges, passes on what the threads counted,
  // and collects every series: what /metrics serves.
  std::vector<prometheus::MetricFamily> Collect() const override;

  // Bucket boundaries of the call durations, seconds: 25 µs to 1 s.
  static prometheus::Histogram::BucketBoundaries DurationBuckets();

 private:
  struct Gauges;
  void Refresh() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ServerMetricsSources sources_;
  // Declared first: every handle below points into it.
  const std::unique_ptr<prometheus::Registry> registry_;
  std::array<std::unique_ptr<metrics::ShardedCounter>, kThriftMethodCount * kCallOutcomeCount>
      calls_;
  std::array<std::unique_ptr<metrics::ShardedHistogram>, kThriftMethodCount> durations_;
  metrics::ShardedCounter rows_read_;
  metrics::ShardedCounter cells_read_;
  metrics::ShardedCounter rows_written_;
  metrics::ShardedCounter cells_written_;

  mutable absl::Mutex mu_;
  const std::unique_ptr<Gauges> gauges_ ABSL_PT_GUARDED_BY(mu_);
};

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_SERVER_METRICS_H_
