// bidder/http/internal/boost_assertions.cc: Boost's failed assertions abort
// with a report, except Beast 1.81's wrong bound on a resumed final chunk;
// and the request that meets that bound (a final chunk that arrives a byte
// at a time) is answered. The fuzz build, which keeps Boost's assertions,
// replays the same request from tests/fuzz/corpus/http_request/.
#include <sys/socket.h>
#include <unistd.h>

#include <boost/version.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "bidder/http/http_server.h"
#include "bidder/http/internal/http_session.h"
#include "bidder/http/internal/server_core.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "tests/bidder/http/socket_pair_session.h"

// Defined by boost_assertions.cc; boost/assert.hpp declares them only in the
// builds that keep assertions.
namespace boost {
void assertion_failed(const char* expr, const char* function, const char* file, long line);
void assertion_failed_msg(const char* expr, const char* msg, const char* function, const char* file,
                          long line);
}  // namespace boost

namespace rtb::bidder::internal {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;

constexpr const char* kBeastParser = "/usr/include/boost/beast/http/impl/basic_parser.ipp";

TEST(BoostAssertionsTest, BeastsWrongFinalChunkBoundPassesInBoost181) {
  if (BOOST_VERSION >= 108600) GTEST_SKIP() << "Boost " << BOOST_VERSION << " has the fixed bound";
  boost::assertion_failed("n >= 5", "parse_chunk_header", kBeastParser, 702);
  SUCCEED();
}

TEST(BoostAssertionsDeathTest, AnyOtherFailedAssertionAbortsWithItsReport) {
  EXPECT_DEATH(boost::assertion_failed("n >= 3", "parse_chunk_header", kBeastParser, 714),
               "basic_parser.ipp:714: parse_chunk_header: Assertion `n >= 3' failed");
  EXPECT_DEATH(boost::assertion_failed("n >= 5", "f", "/usr/include/boost/asio/other.hpp", 9),
               "other.hpp:9: f: Assertion `n >= 5' failed");
  EXPECT_DEATH(boost::assertion_failed_msg("ok", "the reason", "g", "x.hpp", 3),
               "x.hpp:3: g: Assertion `ok' failed. the reason");
}

class ChunkedRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config::ServerConfig config;
    config.port = 0;
    config.io_threads = 1;
    core_ = std::make_unique<ServerCore>(config, HttpServerTuning{},
                                         asio::ip::make_address("127.0.0.1"), registry_);
    ASSERT_TRUE(core_->router.Add(http::verb::post, "/size", false,
                                  [](const HttpRequest& request, Responder respond) {
                                    HttpResponse response;
                                    response.status = 200;
                                    response.content_type = "text/plain";
                                    response.body = "size=" + std::to_string(request.body.size());
                                    respond(std::move(response));
                                  }));
    core_->FreezeRoutes();
    core_->workers.push_back(std::make_unique<Worker>(*core_, 0, /*intake=*/false));
    worker_ = core_->workers.back().get();
    absl::StatusOr<int> client =
        StartSocketPairSession(*core_, *worker_, asio::ip::make_address("192.0.2.1"));
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *client;
    worker_->ioc->poll();
  }
  void TearDown() override {
    if (client_ >= 0) ::close(client_);
    core_->workers.clear();
  }

  // Sends `bytes` in pieces of `piece` bytes, the session reading each one
  // before the next is sent.
  void Send(std::string_view bytes, size_t piece) {
    while (!bytes.empty()) {
      const std::string_view part = bytes.substr(0, piece);
      ASSERT_EQ(::send(client_, part.data(), part.size(), MSG_NOSIGNAL),
                static_cast<ssize_t>(part.size()));
      bytes.remove_prefix(part.size());
      if (worker_->ioc->stopped()) worker_->ioc->restart();
      worker_->ioc->poll();
    }
  }

  prometheus::Registry registry_;
  std::unique_ptr<ServerCore> core_;
  Worker* worker_ = nullptr;
  int client_ = -1;
};

constexpr std::string_view kChunkedHead =
    "POST /size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";

TEST_F(ChunkedRequestTest, AnEmptyBodysFinalChunkSentAByteAtATimeIsAnswered) {
  Send(kChunkedHead, kChunkedHead.size());
  Send("0\r\n\r\n", 1);
  const std::string received = ReceiveUntil(*worker_, client_, "size=0", 200);
  EXPECT_NE(received.find("HTTP/1.1 200"), std::string::npos) << received;
  EXPECT_NE(received.find("size=0"), std::string::npos) << received;
}

TEST_F(ChunkedRequestTest, AFinalChunkAfterDataSentAByteAtATimeIsAnswered) {
  Send(kChunkedHead, kChunkedHead.size());
  Send("5\r\nhello\r\n0\r\n\r\n", 1);
  const std::string received = ReceiveUntil(*worker_, client_, "size=5", 200);
  EXPECT_NE(received.find("HTTP/1.1 200"), std::string::npos) << received;
  EXPECT_NE(received.find("size=5"), std::string::npos) << received;
}

}  // namespace
}  // namespace rtb::bidder::internal
