#include "storage/server/server_metrics.h"

#include <optional>
#include <utility>

#include "prometheus/family.h"
#include "prometheus/histogram.h"

namespace rtb::storage::server {
namespace {

constexpr std::array<const char*, kThriftMethodCount> kMethodNames = {
    "exists",
    "existsAll",
    "get",
    "getMultiple",
    "put",
    "checkAndPut",
    "putMultiple",
    "deleteSingle",
    "deleteMultiple",
    "checkAndDelete",
    "increment",
    "append",
    "openScanner",
    "getScannerRows",
    "closeScanner",
    "mutateRow",
    "getScannerResults",
    "getRegionLocation",
    "getAllRegionLocations",
    "checkAndMutate",
    "getTableDescriptor",
    "getTableDescriptors",
    "tableExists",
    "getTableDescriptorsByPattern",
    "getTableDescriptorsByNamespace",
    "getTableNamesByPattern",
    "getTableNamesByNamespace",
    "createTable",
    "deleteTable",
    "truncateTable",
    "enableTable",
    "disableTable",
    "isTableEnabled",
    "isTableDisabled",
    "isTableAvailable",
    "isTableAvailableWithSplit",
    "addColumnFamily",
    "deleteColumnFamily",
    "modifyColumnFamily",
    "modifyTable",
    "createNamespace",
    "modifyNamespace",
    "deleteNamespace",
    "getNamespaceDescriptor",
    "listNamespaceDescriptors",
    "listNamespaces",
    "getThriftServerType",
    "getClusterId",
    "getSlowLogResponses",
    "clearSlowLogResponses",
    "grant",
    "revoke",
};
static_assert(static_cast<size_t>(ThriftMethod::kRevoke) + 1 == kThriftMethodCount,
              "one name per method");

constexpr std::array<const char*, kCallOutcomeCount> kOutcomeNames = {
    "ok", "io_error", "illegal_argument", "internal_error"};

prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& registry,
                                                       const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

prometheus::Gauge& Gauge(prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry).Add({});
}

int64_t Read(const std::function<int64_t()>& source) { return source ? source() : 0; }

}  // namespace

const char* ThriftMethodName(ThriftMethod method) {
  return kMethodNames[static_cast<size_t>(method)];
}

const char* CallOutcomeName(CallOutcome outcome) {
  return kOutcomeNames[static_cast<size_t>(outcome)];
}

prometheus::Histogram::BucketBoundaries ServerMetrics::DurationBuckets() {
  return {0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
          0.005,    0.01,    0.025,  0.05,    0.1,    0.25,  1.0};
}

// The series a scrape sets from the sources.
struct ServerMetrics::Gauges {
  explicit Gauges(prometheus::Registry& r)
      : connections(Gauge(r, "storage_server_connections",
                          "Thrift connections open, each holding a thread of the server")),
        connection_limit(Gauge(r, "storage_server_connections_limit",
                               "Connections served at once (--threads); more wait to be accepted")),
        open_scanners(Gauge(r, "storage_server_open_scanners", "Scanners open")),
        open_scanner_limit(Gauge(r, "storage_server_open_scanners_limit",
                                 "Scanners open at once (--max-scanners); openScanner fails "
                                 "beyond")),
        memory(prometheus::BuildGauge()
                   .Name("storage_server_store_memory_bytes")
                   .Help("Memory the embedded store holds, by part")
                   .Register(r)),
        row_cache_reads(CounterFamily(r, "storage_server_store_row_cache_reads_total",
                                      "Whole-family reads the row cache answered (hit) or sent "
                                      "on to the engine (miss)")),
        row_cache_hits(row_cache_reads.Add({{"result", "hit"}})),
        row_cache_misses(row_cache_reads.Add({{"result", "miss"}})),
        live_data(Gauge(r, "storage_server_store_live_data_bytes",
                        "Estimated live data of every table, what a full compaction keeps")),
        sst_files(Gauge(r, "storage_server_store_sst_files_bytes",
                        "Table files on disk, obsolete ones still being read included")),
        pending_compaction(Gauge(r, "storage_server_store_pending_compaction_bytes",
                                 "Estimated bytes compaction has to rewrite to reach its "
                                 "targets; writes slow down, then stop, as it grows")),
        running_compactions(
            Gauge(r, "storage_server_store_running_compactions", "Compactions running")),
        running_flushes(Gauge(r, "storage_server_store_running_flushes", "Flushes running")),
        delayed_write_rate(Gauge(r, "storage_server_store_delayed_write_rate_bytes_per_second",
                                 "Rate writes are slowed to while compaction or flushes lag "
                                 "behind; 0 when they are not")),
        writes_stopped(Gauge(r, "storage_server_store_writes_stopped",
                             "1 while writes wait until compaction or a flush catches up")),
        background_errors(Gauge(r, "storage_server_store_background_errors",
                                "Flushes and compactions that failed since the store opened; "
                                "after one the engine refuses writes")) {}

  prometheus::Gauge& connections;
  prometheus::Gauge& connection_limit;
  prometheus::Gauge& open_scanners;
  prometheus::Gauge& open_scanner_limit;
  prometheus::Family<prometheus::Gauge>& memory;
  prometheus::Family<prometheus::Counter>& row_cache_reads;
  prometheus::Counter& row_cache_hits;
  prometheus::Counter& row_cache_misses;
  prometheus::Gauge& live_data;
  prometheus::Gauge& sst_files;
  prometheus::Gauge& pending_compaction;
  prometheus::Gauge& running_compactions;
  prometheus::Gauge& running_flushes;
  prometheus::Gauge& delayed_write_rate;
  prometheus::Gauge& writes_stopped;
  prometheus::Gauge& background_errors;
  // The store's parts by name, declared on first sight.
  absl::flat_hash_map<std::string, prometheus::Gauge*> memory_parts;
  // The store's counts at the last scrape: the counters grow by the rest.
  Store::RowCacheReads row_cache_counted;
};

ServerMetrics::ServerMetrics(ServerMetricsSources sources)
    : sources_(std::move(sources)),
      registry_(std::make_unique<prometheus::Registry>()),
      rows_read_(CounterFamily(*registry_, "storage_server_rows_read_total",
                               "Rows sent back with cells by get, getMultiple and the scanner "
                               "calls"),
                 {}),
      cells_read_(CounterFamily(*registry_, "storage_server_cells_read_total",
                                "Cells in the rows sent back by get, getMultiple and the scanner "
                                "calls"),
                  {}),
      rows_written_(CounterFamily(*registry_, "storage_server_rows_written_total",
                                  "Rows changed by put, delete, increment, append and mutation "
                                  "calls (a check-and-mutate only when it applied)"),
                    {}),
      cells_written_(CounterFamily(*registry_, "storage_server_cells_written_total",
                                   "Cells put, incremented or appended (deletes count rows only)"),
                     {}),
      gauges_(std::make_unique<Gauges>(*registry_)) {
  auto& calls = CounterFamily(*registry_, "storage_server_requests_total",
                              "THBaseService calls answered, by method and outcome");
  auto& durations = prometheus::BuildHistogram()
                        .Name("storage_server_request_duration_seconds")
                        .Help("Time from a call decoded to its answer ready to write, by method")
                        .Register(*registry_);
  for (size_t m = 0; m < kThriftMethodCount; ++m) {
    for (size_t o = 0; o < kCallOutcomeCount; ++o) {
      calls_[m * kCallOutcomeCount + o] = std::make_unique<metrics::ShardedCounter>(
          calls, metrics::Labels{{"method", kMethodNames[m]}, {"outcome", kOutcomeNames[o]}});
    }
    durations_[m] = std::make_unique<metrics::ShardedHistogram>(
        durations, metrics::Labels{{"method", kMethodNames[m]}}, DurationBuckets());
  }
  gauges_->connection_limit.Set(static_cast<double>(sources_.connection_limit));
  gauges_->open_scanner_limit.Set(static_cast<double>(sources_.open_scanner_limit));
}

ServerMetrics::~ServerMetrics() = default;

void ServerMetrics::Refresh() const {
  Gauges& g = *gauges_;
  g.connections.Set(static_cast<double>(Read(sources_.connections)));
  g.open_scanners.Set(static_cast<double>(Read(sources_.open_scanners)));
  if (sources_.store == nullptr) return;
  Store& store = *sources_.store;
  for (const Store::MemoryPart& part : store.MemoryUsage()) {
    prometheus::Gauge*& gauge = g.memory_parts[part.part];
    if (gauge == nullptr) gauge = &g.memory.Add({{"part", part.part}});
    gauge->Set(static_cast<double>(part.bytes));
  }
  const Store::RowCacheReads reads = store.RowCacheReadCounts();
  const auto catch_up = [](int64_t now, int64_t& counted, prometheus::Counter& counter) {
    if (now <= counted) return;
    counter.Increment(static_cast<double>(now - counted));
    counted = now;
  };
  catch_up(reads.hits, g.row_cache_counted.hits, g.row_cache_hits);
  catch_up(reads.misses, g.row_cache_counted.misses, g.row_cache_misses);
  const std::optional<Store::EngineStats> engine = store.ReadEngineStats();
  if (!engine.has_value()) return;
  g.live_data.Set(static_cast<double>(engine->live_data_bytes));
  g.sst_files.Set(static_cast<double>(engine->sst_files_bytes));
  g.pending_compaction.Set(static_cast<double>(engine->pending_compaction_bytes));
  g.running_compactions.Set(static_cast<double>(engine->running_compactions));
  g.running_flushes.Set(static_cast<double>(engine->running_flushes));
  g.delayed_write_rate.Set(static_cast<double>(engine->delayed_write_rate));
  g.writes_stopped.Set(engine->writes_stopped ? 1 : 0);
  g.background_errors.Set(static_cast<double>(engine->background_errors));
}

std::vector<prometheus::MetricFamily> ServerMetrics::Collect() const {
  absl::MutexLock lock(&mu_);
  Refresh();
  return metrics::Collect(*registry_);
}

}  // namespace rtb::storage::server
