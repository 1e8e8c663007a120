// The storage-server binary as deployments run it: started on an ephemeral
// loopback port, reached through the project's hbase backend (and, for the
// protocol abuse tests, through raw sockets), stopped with signals.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/hbase_store.h"
#include "storage/schemas.h"
#include "storage/thrift/THBaseService.h"
#include "tests/storage/server/server_process.h"
#include "tests/storage/server/server_process_fixture.h"
#include "thrift/TApplicationException.h"
#include "thrift/protocol/TBinaryProtocol.h"
#include "thrift/transport/TBufferTransports.h"
#include "thrift/transport/TSocket.h"

namespace rtb::storage {
namespace {

namespace t2 = ::rtb::storage::thrift2;
namespace at = ::apache::thrift;
using ::testing::HasSubstr;
using testing::StorageServerProcess;

TableSchema DataTable() {
  TableSchema s;
  s.name = "data";
  FamilyOptions f;
  f.name = "f";
  s.families = {f};
  return s;
}

// A TCP connection to the server with bounded reads.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval timeout{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~RawConnection() { ::close(fd_); }
  bool connected() const { return connected_; }
  bool Send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // True when the server closed the connection within the 5 s read timeout
  // (whatever it sent before).
  bool ClosedByServer() {
    char buffer[4096];
    for (int i = 0; i < 1000; ++i) {
      ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET;
    }
    return false;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

std::string BigEndian32(uint32_t v) {
  return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
}

class StorageServerProcessTest : public testing::StorageServerFixture {
 protected:
  StorageServerProcessTest() : StorageServerFixture("rtb-storage-server-") {}

  std::unique_ptr<Store> Connect(ThriftTransport transport = ThriftTransport::kBuffered,
                                 int pool_size = 8) {
    HBaseStoreOptions o;
    o.endpoints = {server_->endpoint()};
    o.transport = transport;
    o.call_timeout_ms = 10000;
    o.pool_size_per_endpoint = pool_size;
    absl::StatusOr<std::unique_ptr<Store>> store = OpenHBaseStore(o);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // The server still answers a fresh client.
  void ExpectServing(ThriftTransport transport = ThriftTransport::kBuffered) {
    ASSERT_TRUE(server_->Running()) << server_->Stderr();
    std::unique_ptr<Store> store = Connect(transport);
    ASSERT_NE(store, nullptr);
    absl::Status health = store->CheckHealth();
    EXPECT_TRUE(health.ok()) << health;
  }
};

TEST_F(StorageServerProcessTest, ServesTheHBaseBackendAndExitsZeroOnSigterm) {
  StartServer();
  std::unique_ptr<Store> store = Connect();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CheckHealth().ok());
  ASSERT_TRUE(store->CreateTable(DataTable()).ok());
  ASSERT_TRUE(store->Put("data", Put{"r", {{"f", "q", "v", std::nullopt}}}).ok());
  absl::StatusOr<RowResult> r = store->Get("data", Get{"r"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->Value("f", "q"), "v");
  store.reset();
  EXPECT_EQ(server_->Stop(SIGTERM), 0);
  EXPECT_THAT(server_->Stderr(), HasSubstr("received SIGTERM"));
  EXPECT_THAT(server_->Stderr(), HasSubstr("stopped"));
}

TEST_F(StorageServerProcessTest, SigintWithClientsConnectedAlsoExitsZero) {
  StartServer({"--transport", "framed"});
  std::unique_ptr<Store> store = Connect(ThriftTransport::kFramed);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CheckHealth().ok());
  EXPECT_EQ(server_->Stop(SIGINT), 0) << "an open client connection does not hold it up";
  EXPECT_FALSE(store->CheckHealth().ok());
}

TEST_F(StorageServerProcessTest, WritesWithoutTheLogSurviveACleanRestart) {
  StartServer();
  {
    std::unique_ptr<Store> store = Connect();
    ASSERT_TRUE(store->CreateTable(DataTable()).ok());
    Put p{"r", {{"f", "q", "kept", std::nullopt}}};
    p.durability = Durability::kSkipWal;
    ASSERT_TRUE(store->Put("data", p).ok());
  }
  ASSERT_EQ(server_->Stop(SIGTERM), 0) << "the shutdown flushes every table";
  StartServer();
  std::unique_ptr<Store> store = Connect();
  absl::StatusOr<RowResult> r = store->Get("data", Get{"r"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->Value("f", "q"), "kept");
}

TEST_F(StorageServerProcessTest, ApplySchemasCreatesTheBidderTablesAsClientsDefineThem) {
  StartServer({"--apply-schemas"});
  std::unique_ptr<Store> store = Connect();
  const std::vector<TableSchema> tables = BidderTables();
  for (const TableSchema& t : tables) {
    absl::StatusOr<bool> exists = store->TableExists(t.name);
    ASSERT_TRUE(exists.ok());
    EXPECT_TRUE(*exists) << t.name;
  }
  absl::Status same = ApplySchemas(*store, tables);
  EXPECT_TRUE(same.ok()) << "the client reads every table back as the same definition: " << same;
  std::vector<TableSchema> changed = tables;
  changed[0].families[0].max_versions += 1;
  EXPECT_TRUE(absl::IsAlreadyExists(store->CreateTable(changed[0])));
}

TEST_F(StorageServerProcessTest, ClientsCreateAndDropTablesThroughTheServer) {
  StartServer();
  std::unique_ptr<Store> store = Connect();
  ASSERT_TRUE(store->CreateTable(DataTable()).ok());
  EXPECT_TRUE(store->CreateTable(DataTable()).ok()) << "idempotent";
  EXPECT_TRUE(store->DeleteTable("data").ok());
  EXPECT_FALSE(*store->TableExists("data"));
  EXPECT_TRUE(absl::IsNotFound(store->DeleteTable("data")));
}

TEST_F(StorageServerProcessTest, SeveralClientsShareOneStore) {
  StartServer();
  std::unique_ptr<Store> a = Connect();
  std::unique_ptr<Store> b = Connect();
  ASSERT_TRUE(a->CreateTable(DataTable()).ok());
  std::atomic<int> failures{0};
  auto count = [&](Store* store) {
    for (int i = 0; i < 50; ++i) {
      Increment inc;
      inc.row = "shared";
      inc.columns = {{"f", "n", 1}};
      if (!store->Increment("data", inc).ok()) ++failures;
    }
  };
  std::thread ta(count, a.get()), tb(count, b.get());
  ta.join();
  tb.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(b->Get("data", Get{"shared"})->Counter("f", "n"), 100);
}

TEST_F(StorageServerProcessTest, ALongLivedConnectionIsNotHeldToTheLimitInTotal) {
  StartServer({"--max-message-bytes", "65536"});
  std::unique_ptr<Store> store = Connect(ThriftTransport::kBuffered, /*pool_size=*/1);
  ASSERT_TRUE(store->CreateTable(DataTable()).ok());
  for (int i = 0; i < 200; ++i) {
    absl::Status s = store->Put(
        "data", Put{"r" + std::to_string(i), {{"f", "q", std::string(1024, 'x'), std::nullopt}}});
    ASSERT_TRUE(s.ok()) << "put " << i << " after " << i << " KiB on one connection: " << s;
  }
}

TEST_F(StorageServerProcessTest, AnOversizedRequestFailsAndTheServerCarriesOn) {
  StartServer({"--max-message-bytes", "65536"});
  std::unique_ptr<Store> store = Connect();
  ASSERT_TRUE(store->CreateTable(DataTable()).ok());
  absl::Status big =
      store->Put("data", Put{"r", {{"f", "q", std::string(1 << 20, 'x'), std::nullopt}}});
  EXPECT_FALSE(big.ok());
  EXPECT_TRUE(store->Put("data", Put{"r", {{"f", "q", "small", std::nullopt}}}).ok());
  ExpectServing();
}

TEST_F(StorageServerProcessTest, GarbageBytesCloseThatConnectionOnly) {
  StartServer();
  std::unique_ptr<Store> store = Connect();
  ASSERT_TRUE(store->CheckHealth().ok());
  for (const std::string& garbage :
       {std::string("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), std::string(64, '\xff'),
        std::string("\x80\x01\x00\x01\x7f\xff\xff\xff", 8), std::string(1, '\0')}) {
    RawConnection c(server_->port());
    ASSERT_TRUE(c.connected());
    ASSERT_TRUE(c.Send(garbage));
    if (garbage.size() > 1) {
      EXPECT_TRUE(c.ClosedByServer());
    }
  }
  EXPECT_TRUE(store->CheckHealth().ok()) << "other connections carry on";
  ExpectServing();
}

TEST_F(StorageServerProcessTest, AnUnknownMethodGetsATApplicationExceptionOnALiveConnection) {
  StartServer();
  auto socket = std::make_shared<at::transport::TSocket>("127.0.0.1", server_->port());
  socket->setRecvTimeout(5000);
  auto transport = std::make_shared<at::transport::TBufferedTransport>(socket);
  auto protocol = std::make_shared<at::protocol::TBinaryProtocol>(transport);
  transport->open();
  protocol->writeMessageBegin("compactRegion", at::protocol::T_CALL, 7);
  protocol->writeStructBegin("args");
  protocol->writeFieldBegin("table", at::protocol::T_STRING, 1);
  protocol->writeBinary("data");
  protocol->writeFieldEnd();
  protocol->writeFieldStop();
  protocol->writeStructEnd();
  protocol->writeMessageEnd();
  transport->flush();
  std::string name;
  at::protocol::TMessageType type;
  int32_t seqid = 0;
  protocol->readMessageBegin(name, type, seqid);
  EXPECT_EQ(type, at::protocol::T_EXCEPTION);
  EXPECT_EQ(seqid, 7);
  at::TApplicationException error;
  error.read(protocol.get());
  protocol->readMessageEnd();
  EXPECT_EQ(error.getType(), at::TApplicationException::UNKNOWN_METHOD);
  EXPECT_THAT(error.what(), HasSubstr("compactRegion"));
  // The same connection serves known calls afterwards.
  t2::THBaseServiceClient client(protocol);
  t2::TTableName meta;
  meta.__set_ns("hbase");
  meta.qualifier = "meta";
  EXPECT_TRUE(client.tableExists(meta));
  transport->close();
}

TEST_F(StorageServerProcessTest, ACallWithAMissingRequiredFieldClosesOnlyItsConnection) {
  StartServer();
  auto socket = std::make_shared<at::transport::TSocket>("127.0.0.1", server_->port());
  socket->setRecvTimeout(5000);
  auto transport = std::make_shared<at::transport::TBufferedTransport>(socket);
  auto protocol = std::make_shared<at::protocol::TBinaryProtocol>(transport);
  transport->open();
  protocol->writeMessageBegin("get", at::protocol::T_CALL, 1);
  protocol->writeStructBegin("args");
  protocol->writeFieldStop();  // neither table nor tget
  protocol->writeStructEnd();
  protocol->writeMessageEnd();
  transport->flush();
  std::string name;
  at::protocol::TMessageType type;
  int32_t seqid = 0;
  EXPECT_ANY_THROW(protocol->readMessageBegin(name, type, seqid));
  ExpectServing();
}

TEST_F(StorageServerProcessTest, TruncatedAndOversizedFramesLeaveTheServerUp) {
  StartServer({"--transport", "framed", "--max-message-bytes", "65536"});
  {
    RawConnection truncated(server_->port());
    ASSERT_TRUE(truncated.Send(BigEndian32(100) + std::string(10, '\x01')));
    // Left hanging mid-frame while other clients are served.
    ExpectServing(ThriftTransport::kFramed);
  }
  for (uint32_t size : {uint32_t{1} << 30, uint32_t{0x80000000}, uint32_t{0xffffffff}}) {
    RawConnection oversized(server_->port());
    ASSERT_TRUE(oversized.Send(BigEndian32(size) + std::string(16, 'x')));
    EXPECT_TRUE(oversized.ClosedByServer()) << "frame size " << size;
  }
  ExpectServing(ThriftTransport::kFramed);
}

TEST_F(StorageServerProcessTest, IdleConnectionsAreClosedSoWaitingOnesGetServed) {
  StartServer({"--threads", "1", "--idle-timeout-ms", "300"});
  RawConnection idle(server_->port());
  ASSERT_TRUE(idle.connected());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // The one thread holds the idle connection until its timeout closes it.
  ExpectServing();
  EXPECT_TRUE(idle.ClosedByServer());
}

TEST_F(StorageServerProcessTest, BadFlagsAndATakenPortExitOne) {
  StorageServerProcess bad_value(dir_ / "bad");
  EXPECT_FALSE(bad_value.Start({"--transport", "carrier-pigeon"}));
  EXPECT_EQ(bad_value.AwaitExit(), 1);
  EXPECT_THAT(bad_value.Stderr(), HasSubstr("--transport"));

  StartServer();
  StorageServerProcess taken(dir_ / "taken");
  EXPECT_FALSE(taken.Start({"--port", std::to_string(server_->port())}));
  EXPECT_EQ(taken.AwaitExit(), 1);
  EXPECT_THAT(taken.Stderr(), HasSubstr("cannot listen"));
}

}  // namespace
}  // namespace rtb::storage
