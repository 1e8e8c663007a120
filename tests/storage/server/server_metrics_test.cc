// The storage server's metrics: every THBaseService method counted under its
// own name through MeteredService, outcomes as the client sees them, rows and
// cells over a real handler and store, and the gauges read at each collect.
#include "storage/server/server_metrics.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/server/metered_service.h"
#include "storage/server/service_handler.h"
#include "storage/server/storage_server.h"
#include "tests/storage/server/thrift_test_values.h"
#include "tests/storage/test_store.h"

namespace rtb::storage::server {
namespace {

namespace t2 = ::rtb::storage::thrift2;
using testing::ThriftCell;
using testing::ThriftGet;
using testing::ThriftPut;

// The value of the series of `family` with exactly `labels`: a counter's or
// gauge's value, a histogram's sample count; -1 when there is none.
double SeriesOf(const std::vector<prometheus::MetricFamily>& families, const std::string& family,
                const std::map<std::string, std::string>& labels = {}) {
  for (const prometheus::MetricFamily& f : families) {
    if (f.name != family) continue;
    for (const prometheus::ClientMetric& m : f.metric) {
      std::map<std::string, std::string> have;
      for (const prometheus::ClientMetric::Label& l : m.label) have[l.name] = l.value;
      if (have != labels) continue;
      switch (f.type) {
        case prometheus::MetricType::Counter:
          return m.counter.value;
        case prometheus::MetricType::Gauge:
          return m.gauge.value;
        case prometheus::MetricType::Histogram:
          return static_cast<double>(m.histogram.sample_count);
        default:
          return -1;
      }
    }
  }
  return -1;
}

double CallCount(const std::vector<prometheus::MetricFamily>& families, const std::string& method,
                 const std::string& outcome) {
  return SeriesOf(families, "storage_server_requests_total",
                  {{"method", method}, {"outcome", outcome}});
}

// Calls every method of `service` once, with empty arguments.
void CallEveryMethod(t2::THBaseServiceIf& s) {
  std::string text;
  t2::TGet get;
  t2::TResult result;
  std::vector<t2::TResult> results;
  std::vector<bool> flags;
  t2::TTableName name;
  t2::TTableDescriptor descriptor;
  std::vector<t2::TTableDescriptor> descriptors;
  std::vector<t2::TTableName> names;
  t2::TNamespaceDescriptor ns;
  std::vector<t2::TNamespaceDescriptor> namespaces;
  std::vector<std::string> strings;
  t2::THRegionLocation location;
  std::vector<t2::THRegionLocation> locations;
  std::vector<t2::TDelete> deletes;
  std::vector<t2::TOnlineLogRecord> records;
  s.exists("t", get);
  s.existsAll(flags, "t", {});
  s.get(result, "t", get);
  s.getMultiple(results, "t", {});
  s.put("t", t2::TPut());
  s.checkAndPut("t", "r", "f", "q", "v", t2::TPut());
  s.putMultiple("t", {});
  s.deleteSingle("t", t2::TDelete());
  s.deleteMultiple(deletes, "t", {});
  s.checkAndDelete("t", "r", "f", "q", "v", t2::TDelete());
  s.increment(result, "t", t2::TIncrement());
  s.append(result, "t", t2::TAppend());
  s.openScanner("t", t2::TScan());
  s.getScannerRows(results, 1, 1);
  s.closeScanner(1);
  s.mutateRow("t", t2::TRowMutations());
  s.getScannerResults(results, "t", t2::TScan(), 1);
  s.getRegionLocation(location, "t", "r", false);
  s.getAllRegionLocations(locations, "t");
  s.checkAndMutate("t", "r", "f", "q", t2::TCompareOperator::EQUAL, "v", t2::TRowMutations());
  s.getTableDescriptor(descriptor, name);
  s.getTableDescriptors(descriptors, {});
  s.tableExists(name);
  s.getTableDescriptorsByPattern(descriptors, ".*", false);
  s.getTableDescriptorsByNamespace(descriptors, "default");
  s.getTableNamesByPattern(names, ".*", false);
  s.getTableNamesByNamespace(names, "default");
  s.createTable(descriptor, {});
  s.deleteTable(name);
  s.truncateTable(name, false);
  s.enableTable(name);
  s.disableTable(name);
  s.isTableEnabled(name);
  s.isTableDisabled(name);
  s.isTableAvailable(name);
  s.isTableAvailableWithSplit(name, {});
  s.addColumnFamily(name, t2::TColumnFamilyDescriptor());
  s.deleteColumnFamily(name, "f");
  s.modifyColumnFamily(name, t2::TColumnFamilyDescriptor());
  s.modifyTable(descriptor);
  s.createNamespace(ns);
  s.modifyNamespace(ns);
  s.deleteNamespace("n");
  s.getNamespaceDescriptor(ns, "n");
  s.listNamespaceDescriptors(namespaces);
  s.listNamespaces(strings);
  s.getThriftServerType();
  s.getClusterId(text);
  s.getSlowLogResponses(records, {}, t2::TLogQueryFilter());
  s.clearSlowLogResponses(flags, {});
  s.grant(t2::TAccessControlEntity());
  s.revoke(t2::TAccessControlEntity());
}

TEST(ServerMetricsTest, EveryMethodIsCountedOnceUnderItsOwnName) {
  auto metrics = std::make_shared<ServerMetrics>(ServerMetricsSources{});
  MeteredService service(std::make_shared<t2::THBaseServiceNull>(), metrics);
  CallEveryMethod(service);
  const std::vector<prometheus::MetricFamily> families = metrics->Collect();
  std::set<std::string> names;
  for (size_t m = 0; m < kThriftMethodCount; ++m) {
    const std::string name = ThriftMethodName(static_cast<ThriftMethod>(m));
    names.insert(name);
    EXPECT_EQ(CallCount(families, name, "ok"), 1) << name;
    EXPECT_EQ(CallCount(families, name, "io_error"), 0) << name;
    EXPECT_EQ(SeriesOf(families, "storage_server_request_duration_seconds", {{"method", name}}), 1)
        << name;
  }
  EXPECT_EQ(names.size(), kThriftMethodCount) << "no two methods share a name";
}

// A service whose get and getScannerRows throw what `thrown` throws.
class ThrowingService final : public t2::THBaseServiceNull {
 public:
  explicit ThrowingService(std::function<void()> thrown) : thrown_(std::move(thrown)) {}
  void get(t2::TResult&, const std::string&, const t2::TGet&) override { thrown_(); }
  void getScannerRows(std::vector<t2::TResult>&, int32_t, int32_t) override { thrown_(); }

 private:
  std::function<void()> thrown_;
};

TEST(ServerMetricsTest, OutcomesAreWhatTheClientIsSentAndExceptionsPassThrough) {
  auto metrics = std::make_shared<ServerMetrics>(ServerMetricsSources{});
  t2::TResult result;
  std::vector<t2::TResult> rows;
  MeteredService io(std::make_shared<ThrowingService>([] {
                      t2::TIOError e;
                      e.__set_message("t");
                      throw e;
                    }),
                    metrics);
  EXPECT_THROW(io.get(result, "t", t2::TGet()), t2::TIOError);
  EXPECT_THROW(io.get(result, "t", t2::TGet()), t2::TIOError);
  MeteredService illegal(std::make_shared<ThrowingService>([] { throw t2::TIllegalArgument(); }),
                         metrics);
  EXPECT_THROW(illegal.getScannerRows(rows, 1, 1), t2::TIllegalArgument);
  MeteredService broken(std::make_shared<ThrowingService>([] { throw std::runtime_error("bug"); }),
                        metrics);
  EXPECT_THROW(broken.get(result, "t", t2::TGet()), std::runtime_error);

  const std::vector<prometheus::MetricFamily> families = metrics->Collect();
  EXPECT_EQ(CallCount(families, "get", "io_error"), 2);
  EXPECT_EQ(CallCount(families, "get", "internal_error"), 1);
  EXPECT_EQ(CallCount(families, "get", "ok"), 0);
  EXPECT_EQ(CallCount(families, "getScannerRows", "illegal_argument"), 1);
  EXPECT_EQ(SeriesOf(families, "storage_server_request_duration_seconds", {{"method", "get"}}), 3);
  EXPECT_EQ(SeriesOf(families, "storage_server_rows_read_total"), 0) << "failed reads read nothing";
}

class MeteredHandlerTest : public testing::EmbeddedStoreTest {
 protected:
  void SetUp() override {
    EmbeddedStoreTest::SetUp();
    Create(Schema("t", {Fam("f")}));
    ServerMetricsSources sources;
    sources.store = store_.get();
    sources.open_scanners = [this] { return static_cast<int64_t>(handler_->open_scanners()); };
    sources.open_scanner_limit = 1000;
    sources.connections = [this] { return connections_.load(); };
    sources.connection_limit = 64;
    metrics_ = std::make_shared<ServerMetrics>(std::move(sources));
    ServiceHandlerOptions options;
    options.clock = clock_;
    handler_ = std::make_shared<StoreServiceHandler>(*store_, options);
    service_ = std::make_unique<MeteredService>(handler_, metrics_);
  }
  void TearDown() override {
    service_.reset();
    handler_.reset();
    metrics_.reset();
    EmbeddedStoreTest::TearDown();
  }

  std::atomic<int64_t> connections_{0};
  std::shared_ptr<ServerMetrics> metrics_;
  std::shared_ptr<StoreServiceHandler> handler_;
  std::unique_ptr<MeteredService> service_;
};

TEST_F(MeteredHandlerTest, RowsAndCellsAreCountedAsReadAndWritten) {
  service_->put("t", ThriftPut("a", {ThriftCell("q1", "1"), ThriftCell("q2", "2")}));
  service_->putMultiple(
      "t", {ThriftPut("b", {ThriftCell("q", "3")}), ThriftPut("c", {ThriftCell("q", "4")})});
  EXPECT_FALSE(
      service_->checkAndPut("t", "a", "f", "q1", "not 1", ThriftPut("a", {ThriftCell("q3", "5")})))
      << "not applied: nothing written";
  EXPECT_TRUE(
      service_->checkAndPut("t", "a", "f", "q1", "1", ThriftPut("a", {ThriftCell("q3", "5")})));
  t2::TResult result;
  service_->get(result, "t", ThriftGet("a"));
  service_->get(result, "t", ThriftGet("missing"));
  std::vector<t2::TResult> results;
  service_->getMultiple(results, "t", {ThriftGet("b"), ThriftGet("missing"), ThriftGet("c")});
  service_->getScannerResults(results, "t", t2::TScan(), 10);
  t2::TDelete gone;
  gone.row = "c";
  service_->deleteSingle("t", gone);

  const std::vector<prometheus::MetricFamily> families = metrics_->Collect();
  // put a (2 cells), b and c (1 each), the applied checkAndPut (1), delete c.
  EXPECT_EQ(SeriesOf(families, "storage_server_rows_written_total"), 5);
  EXPECT_EQ(SeriesOf(families, "storage_server_cells_written_total"), 5);
  // get a (3 cells); getMultiple b, c; the scan a (3), b, c.
  EXPECT_EQ(SeriesOf(families, "storage_server_rows_read_total"), 6);
  EXPECT_EQ(SeriesOf(families, "storage_server_cells_read_total"), 10);
  EXPECT_EQ(CallCount(families, "checkAndPut", "ok"), 2);
  EXPECT_EQ(CallCount(families, "get", "ok"), 2);
}

TEST_F(MeteredHandlerTest, GaugesAreReadAtEachCollect) {
  std::vector<prometheus::MetricFamily> families = metrics_->Collect();
  EXPECT_EQ(SeriesOf(families, "storage_server_open_scanners"), 0);
  EXPECT_EQ(SeriesOf(families, "storage_server_open_scanners_limit"), 1000);
  EXPECT_EQ(SeriesOf(families, "storage_server_connections_limit"), 64);
  const int32_t id = service_->openScanner("t", t2::TScan());
  connections_ = 3;
  families = metrics_->Collect();
  EXPECT_EQ(SeriesOf(families, "storage_server_open_scanners"), 1);
  EXPECT_EQ(SeriesOf(families, "storage_server_connections"), 3);
  service_->closeScanner(id);
  EXPECT_EQ(SeriesOf(metrics_->Collect(), "storage_server_open_scanners"), 0);

  for (int i = 0; i < 50; ++i) {
    service_->put("t",
                  ThriftPut("r" + std::to_string(i), {ThriftCell("q", std::string(1000, 'v'))}));
  }
  ASSERT_TRUE(store_->Flush("t").ok());
  families = metrics_->Collect();
  EXPECT_GT(SeriesOf(families, "storage_server_store_sst_files_bytes"), 0);
  EXPECT_GT(SeriesOf(families, "storage_server_store_live_data_bytes"), 0);
  EXPECT_GE(SeriesOf(families, "storage_server_store_memory_bytes", {{"part", "memtables"}}), 0);
  EXPECT_EQ(SeriesOf(families, "storage_server_store_background_errors"), 0);
  EXPECT_EQ(SeriesOf(families, "storage_server_store_writes_stopped"), 0);
  EXPECT_GE(SeriesOf(families, "storage_server_store_row_cache_reads_total", {{"result", "miss"}}),
            0);
}

TEST_F(MeteredHandlerTest, AServerWithoutMetricsHasNone) {
  StorageServerOptions options;
  options.port = 0;
  options.metrics = false;
  absl::StatusOr<std::unique_ptr<StorageServer>> plain = StorageServer::Start(*store_, options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ((*plain)->metrics(), nullptr);
  EXPECT_EQ((*plain)->connections(), 0);
  options.metrics = true;
  absl::StatusOr<std::unique_ptr<StorageServer>> metered = StorageServer::Start(*store_, options);
  ASSERT_TRUE(metered.ok()) << metered.status();
  ASSERT_NE((*metered)->metrics(), nullptr);
  EXPECT_EQ(SeriesOf((*metered)->metrics()->Collect(), "storage_server_connections"), 0);
}

}  // namespace
}  // namespace rtb::storage::server
