// The wire-level differential test: one script of Thrift2 calls
// (thrift2_script.h) against storage-server and against HBase 2.6, compared
// call by call. RTB_DIFFERENTIAL_HBASE=1 (the hbase-labelled executable)
// runs the script live against the gateway named by RTB_HBASE_THRIFT;
// otherwise the storage server's answers are compared with the transcript
// recorded from HBase (hbase-2.6.transcript beside this file), so the
// comparison runs without HBase too. RTB_THRIFT2_TRANSCRIPT_OUT=<file> makes
// the live run write HBase's transcript there, to record it anew.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/storage/differential/thrift2_script.h"
#include "tests/storage/server/server_process.h"
#include "tests/storage/test_hbase.h"
#include "thrift/protocol/TBinaryProtocol.h"
#include "thrift/transport/TBufferTransports.h"
#include "thrift/transport/TSocket.h"

namespace rtb::storage::testing {
namespace {

namespace t2 = ::rtb::storage::thrift2;
namespace at = ::apache::thrift;

// A client over one buffered (or framed) binary-protocol connection.
class Connection {
 public:
  Connection(const std::string& host, int port, bool framed) {
    auto socket = std::make_shared<at::transport::TSocket>(host, port);
    socket->setRecvTimeout(120000);
    if (framed) {
      transport_ = std::make_shared<at::transport::TFramedTransport>(socket);
    } else {
      transport_ = std::make_shared<at::transport::TBufferedTransport>(socket);
    }
    client_ = std::make_unique<t2::THBaseServiceClient>(
        std::make_shared<at::protocol::TBinaryProtocol>(transport_));
    transport_->open();
  }
  ~Connection() { transport_->close(); }
  t2::THBaseServiceClient& client() { return *client_; }

 private:
  std::shared_ptr<at::transport::TTransport> transport_;
  std::unique_ptr<t2::THBaseServiceClient> client_;
};

std::string UniquePrefix() {
  std::mt19937_64 random(std::random_device{}() ^ static_cast<uint64_t>(::getpid()));
  return absl::StrCat("dt", random() % 1000000000, "_");
}

class Thrift2DifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("rtb-differential-", ::getpid(), "-", UniquePrefix());
    server_ = std::make_unique<StorageServerProcess>(dir_);
    ASSERT_TRUE(server_->Start({})) << server_->Stderr();
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::vector<std::string> RunOnStorageServer(const std::string& prefix) {
    Connection connection("127.0.0.1", server_->port(), false);
    return RunThrift2Script(connection.client(), prefix);
  }

  std::filesystem::path dir_;
  std::unique_ptr<StorageServerProcess> server_;
};

void ExpectSameAnswers(const std::vector<std::string>& storage_server,
                       const std::vector<std::string>& hbase) {
  ASSERT_EQ(storage_server.size(), hbase.size());
  int differences = 0;
  for (size_t i = 0; i < hbase.size(); ++i) {
    EXPECT_EQ(storage_server[i], hbase[i]) << "call " << i;
    if (storage_server[i] != hbase[i]) ++differences;
  }
  EXPECT_EQ(differences, 0);
}

#if RTB_DIFFERENTIAL_HBASE

TEST_F(Thrift2DifferentialTest, StorageServerAnswersEveryCallAsHBase) {
  RTB_SKIP_OR_FAIL_WITHOUT_TEST_HBASE();
  const std::string endpoint = rtb::testing::TestHBaseEndpoint();
  const std::vector<std::string> parts = absl::StrSplit(endpoint, ':');
  ASSERT_EQ(parts.size(), 2u) << endpoint;
  const std::string prefix = UniquePrefix();
  std::vector<std::string> hbase;
  {
    Connection connection(parts[0], std::stoi(parts[1]),
                          rtb::testing::EnvOrEmpty("RTB_HBASE_THRIFT_TRANSPORT") == "framed");
    hbase = RunThrift2Script(connection.client(), prefix);
  }
  if (const std::string out = rtb::testing::EnvOrEmpty("RTB_THRIFT2_TRANSCRIPT_OUT");
      !out.empty()) {
    std::ofstream file(out);
    for (const std::string& line : hbase) file << line << "\n";
  }
  ExpectSameAnswers(RunOnStorageServer(prefix), hbase);
}

#else

std::vector<std::string> RecordedHBaseTranscript() {
  std::ifstream in(RTB_HBASE_TRANSCRIPT);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_F(Thrift2DifferentialTest, TheScriptMakesAtLeast150Calls) {
  EXPECT_GE(RunOnStorageServer(UniquePrefix()).size(), 150u);
}

TEST_F(Thrift2DifferentialTest, StorageServerAnswersEveryCallAsRecordedFromHBase) {
  const std::vector<std::string> recorded = RecordedHBaseTranscript();
  ASSERT_GE(recorded.size(), 150u) << RTB_HBASE_TRANSCRIPT;
  ExpectSameAnswers(RunOnStorageServer(UniquePrefix()), recorded);
}

#endif

}  // namespace
}  // namespace rtb::storage::testing
