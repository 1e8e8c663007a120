// The session's timeouts when its thread runs late: a worker driven by hand,
// a session over a socket pair, and the worker's sweep called before the
// read completion that a late thread has not yet run.
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "bidder/http/http_server.h"
#include "bidder/http/internal/http_session.h"
#include "bidder/http/internal/server_core.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "tests/bidder/http/socket_pair_session.h"

namespace rtb::bidder::internal {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;

class LateWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config::ServerConfig config;
    config.port = 0;
    config.io_threads = 1;
    config.first_byte_timeout_ms = 5;
    config.idle_timeout_ms = 5;
    core_ = std::make_unique<ServerCore>(config, HttpServerTuning{},
                                         asio::ip::make_address("127.0.0.1"), registry_);
    ASSERT_TRUE(core_->router.Add(http::verb::get, "/hello", false,
                                  [](const HttpRequest&, Responder respond) {
                                    HttpResponse response;
                                    response.status = 200;
                                    response.content_type = "text/plain";
                                    response.body = "hello";
                                    respond(std::move(response));
                                  }));
    core_->FreezeRoutes();
    core_->workers.push_back(std::make_unique<Worker>(*core_, 0, /*intake=*/false));
    worker_ = core_->workers.back().get();
  }
  void TearDown() override {
    if (client_ >= 0) ::close(client_);
    core_->workers.clear();
  }

  // A session on the worker over one end of a socket pair; the client keeps
  // the other.
  void StartSession() {
    absl::StatusOr<int> client =
        StartSocketPairSession(*core_, *worker_, asio::ip::make_address("192.0.2.1"));
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *client;
    worker_->ioc->poll();
  }

  prometheus::Registry registry_;
  std::unique_ptr<ServerCore> core_;
  Worker* worker_ = nullptr;
  int client_ = -1;
};

TEST_F(LateWorkerTest, ARequestThatCameInTimeIsServedThoughTheSweepRunsFirst) {
  StartSession();
  const std::string request = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::send(client_, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  // The first-byte deadline passes with the bytes unread, and the sweep runs
  // before the read completion does.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  worker_->Sweep();
  const std::string received = ReceiveUntil(*worker_, client_, "hello", 200);
  EXPECT_NE(received.find("HTTP/1.1 200"), std::string::npos) << received;
  EXPECT_NE(received.find("hello"), std::string::npos) << received;
}

TEST_F(LateWorkerTest, ASilentConnectionIsStillClosedAtItsFirstByteTimeout) {
  StartSession();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  worker_->Sweep();
  worker_->ioc->poll();
  EXPECT_EQ(core_->open_connections(), 0);
  char byte;
  EXPECT_LE(::recv(client_, &byte, 1, 0), 0);
}

}  // namespace
}  // namespace rtb::bidder::internal
