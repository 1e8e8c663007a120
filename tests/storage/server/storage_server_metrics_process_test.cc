// The storage-server binary's /metrics, as Prometheus reaches it: the real
// process on ephemeral loopback ports, called through a plain Thrift client
// (so the test knows every call made) and scraped over HTTP.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/hbase_store.h"
#include "storage/thrift/THBaseService.h"
#include "tests/storage/server/server_process.h"
#include "tests/storage/server/server_process_fixture.h"
#include "tests/storage/server/thrift_test_values.h"
#include "thrift/protocol/TBinaryProtocol.h"
#include "thrift/transport/TBufferTransports.h"
#include "thrift/transport/TSocket.h"

namespace rtb::storage {
namespace {

namespace t2 = ::rtb::storage::thrift2;
namespace at = ::apache::thrift;
using ::testing::HasSubstr;
using testing::SeriesValue;
using testing::StorageServerProcess;
using testing::ThriftCell;
using testing::ThriftGet;
using testing::ThriftPut;

std::string CallCount(const std::string& method, const std::string& outcome) {
  return "storage_server_requests_total{method=\"" + method + "\",outcome=\"" + outcome + "\"}";
}

std::string Durations(const std::string& method) {
  return "storage_server_request_duration_seconds_count{method=\"" + method + "\"}";
}

// One Thrift connection: every call on it is one the test makes.
class ThriftClient {
 public:
  explicit ThriftClient(int port)
      : socket_(std::make_shared<at::transport::TSocket>("127.0.0.1", port)),
        transport_(std::make_shared<at::transport::TBufferedTransport>(socket_)),
        client_(std::make_shared<at::protocol::TBinaryProtocol>(transport_)) {
    socket_->setRecvTimeout(5000);
    transport_->open();
  }
  ~ThriftClient() { transport_->close(); }
  t2::THBaseServiceClient* operator->() { return &client_; }

 private:
  std::shared_ptr<at::transport::TSocket> socket_;
  std::shared_ptr<at::transport::TTransport> transport_;
  t2::THBaseServiceClient client_;
};

class StorageServerMetricsTest : public testing::StorageServerFixture {
 protected:
  StorageServerMetricsTest() : StorageServerFixture("rtb-storage-server-metrics-") {}

  // Creates table "data" (family f) through the hbase backend, whose calls
  // the test does not count; its connections are closed on return.
  void CreateDataTable() {
    HBaseStoreOptions o;
    o.endpoints = {server_->endpoint()};
    o.call_timeout_ms = 10000;
    absl::StatusOr<std::unique_ptr<Store>> store = OpenHBaseStore(o);
    ASSERT_TRUE(store.ok()) << store.status();
    TableSchema schema;
    schema.name = "data";
    schema.families = {FamilyOptions{}};
    schema.families[0].name = "f";
    ASSERT_TRUE((*store)->CreateTable(schema).ok());
  }

  // Scrapes until `series` reads `value` (at most 5 s); the last scrape.
  std::string ScrapeUntil(const std::string& series, double value) {
    std::string exposition;
    for (int i = 0; i < 500; ++i) {
      exposition = server_->ScrapeMetrics();
      if (SeriesValue(exposition, series) == value) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return exposition;
  }
};

TEST_F(StorageServerMetricsTest, ScrapedCountersMoveByExactlyTheCallsMade) {
  StartServer();
  ASSERT_GT(server_->metrics_port(), 0);
  CreateDataTable();
  // The backend's connections are closed; only the test's client is left.
  ThriftClient client(server_->port());
  const std::string before = ScrapeUntil("storage_server_connections", 1);
  ASSERT_EQ(SeriesValue(before, "storage_server_connections"), 1) << before;
  const auto moved = [&before](const std::string& after, const std::string& series) {
    return SeriesValue(after, series) - SeriesValue(before, series);
  };

  client->put("data", ThriftPut("a", {ThriftCell("q1", "1"), ThriftCell("q2", "2")}));
  client->putMultiple(
      "data", {ThriftPut("b", {ThriftCell("q", "3")}), ThriftPut("c", {ThriftCell("q", "4")})});
  t2::TResult result;
  client->get(result, "data", ThriftGet("a"));
  client->get(result, "data", ThriftGet("missing"));
  EXPECT_THROW(client->get(result, "no-such-table", ThriftGet("a")), t2::TIOError);
  std::vector<t2::TResult> rows;
  client->getMultiple(rows, "data", {ThriftGet("b"), ThriftGet("c")});
  EXPECT_THROW(client->getScannerRows(rows, 12345, 10), t2::TIllegalArgument);
  const int32_t scanner = client->openScanner("data", t2::TScan());
  const std::string scanning = server_->ScrapeMetrics();
  EXPECT_EQ(SeriesValue(scanning, "storage_server_open_scanners"), 1) << scanning;
  client->getScannerRows(rows, scanner, 10);
  EXPECT_EQ(rows.size(), 3u);
  client->closeScanner(scanner);

  const std::string after = server_->ScrapeMetrics();
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(moved(after, CallCount("put", "ok")), 1);
  EXPECT_EQ(moved(after, CallCount("putMultiple", "ok")), 1);
  EXPECT_EQ(moved(after, CallCount("get", "ok")), 2);
  EXPECT_EQ(moved(after, CallCount("get", "io_error")), 1);
  EXPECT_EQ(moved(after, CallCount("get", "internal_error")), 0);
  EXPECT_EQ(moved(after, CallCount("getMultiple", "ok")), 1);
  EXPECT_EQ(moved(after, CallCount("getScannerRows", "illegal_argument")), 1);
  EXPECT_EQ(moved(after, CallCount("getScannerRows", "ok")), 1);
  EXPECT_EQ(moved(after, CallCount("openScanner", "ok")), 1);
  EXPECT_EQ(moved(after, CallCount("closeScanner", "ok")), 1);
  EXPECT_EQ(moved(after, CallCount("createTable", "ok")), 0) << "the scrapes count nothing";
  EXPECT_EQ(moved(after, Durations("get")), 3);
  EXPECT_EQ(moved(after, "storage_server_rows_written_total"), 3);
  EXPECT_EQ(moved(after, "storage_server_cells_written_total"), 4);
  // get a; getMultiple b and c; the scanner's a, b and c.
  EXPECT_EQ(moved(after, "storage_server_rows_read_total"), 6);
  EXPECT_EQ(moved(after, "storage_server_cells_read_total"), 8);
  EXPECT_EQ(SeriesValue(after, "storage_server_open_scanners"), 0);
  EXPECT_EQ(SeriesValue(after, "storage_server_connections_limit"), 64);
  EXPECT_EQ(SeriesValue(after, "storage_server_store_background_errors"), 0);
  EXPECT_GE(SeriesValue(after, "storage_server_store_live_data_bytes"), 0);
  EXPECT_GT(SeriesValue(after, "storage_server_store_memory_bytes{part=\"memtables\"}"), 0);
}

TEST_F(StorageServerMetricsTest, ABadOrTakenMetricsAddressExitsOneAndOffServesNone) {
  for (const char* bad : {"9466", "localhost:9466", "127.0.0.1:70000"}) {
    StorageServerProcess process(dir_ / "bad");
    EXPECT_FALSE(process.Start({"--metrics-address", bad})) << bad;
    EXPECT_EQ(process.AwaitExit(), 1);
    EXPECT_THAT(process.Stderr(), HasSubstr(std::string("--metrics-address \"") + bad + "\""));
    std::filesystem::remove_all(dir_ / "bad");
  }

  StartServer();
  StorageServerProcess taken(dir_ / "taken");
  EXPECT_FALSE(
      taken.Start({"--metrics-address", "127.0.0.1:" + std::to_string(server_->metrics_port())}));
  EXPECT_EQ(taken.AwaitExit(), 1);
  EXPECT_THAT(taken.Stderr(), HasSubstr("cannot serve metrics"));

  StorageServerProcess off(dir_ / "off");
  ASSERT_TRUE(off.Start({"--metrics-address", "off"})) << off.Stderr();
  EXPECT_EQ(off.metrics_port(), 0);
  EXPECT_THAT(off.Stderr(), HasSubstr("metrics off"));
  EXPECT_EQ(off.Stop(SIGTERM), 0);
}

}  // namespace
}  // namespace rtb::storage
