// The fixture of the HTTP server's tests (http_server_test.cc,
// http_server_connections_test.cc): a server with small limits on 127.0.0.1
// in each accept mode, with routes every test may use.
#ifndef RTB_TESTS_BIDDER_HTTP_HTTP_SERVER_FIXTURE_H_
#define RTB_TESTS_BIDDER_HTTP_HTTP_SERVER_FIXTURE_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "bidder/http/http_server.h"
#include "boost/beast/http/verb.hpp"
#include "gtest/gtest.h"
#include "metrics/sharded.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"

namespace rtb::bidder::testing {

namespace http = boost::beast::http;

inline config::ServerConfig SmallConfig() {
  config::ServerConfig config;
  config.listen_address = "127.0.0.1";
  config.port = 0;
  config.io_threads = 2;
  config.max_header_bytes = 4096;
  config.max_body_bytes = 16 << 10;
  config.max_inflated_body_bytes = 64 << 10;
  config.first_byte_timeout_ms = 2000;
  config.read_timeout_ms = 2000;
  config.idle_timeout_ms = 10000;
  config.max_connections = 100;
  config.max_connections_per_peer = 100;
  return config;
}

inline HttpResponse Text(unsigned status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.content_type = "text/plain";
  response.body = std::move(body);
  return response;
}

class HttpServerTest : public ::testing::TestWithParam<AcceptMode> {
 protected:
  // Routes every test may use; tests add their own before StartServer().
  void SetUp() override { config_ = SmallConfig(); }

  void CreateServer() {
    HttpServerTuning tuning;
    tuning.accept_mode = GetParam();
    tuning.linger = std::chrono::milliseconds(200);
    auto server = HttpServer::Create(config_, registry_, tuning);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    server_->Route(http::verb::post, "/echo", [this](const HttpRequest& req, Responder respond) {
      ++handled_;
      HttpResponse response = Text(200, std::string(req.body));
      response.headers.emplace_back("x-wire-bytes", std::to_string(req.wire_body_bytes));
      response.headers.emplace_back("x-target", std::string(req.target));
      response.headers.emplace_back("x-path", std::string(req.path));
      response.headers.emplace_back("x-remote", std::string(req.remote_address));
      respond(std::move(response));
    });
    server_->Route(http::verb::get, "/hello",
                   [](const HttpRequest&, Responder respond) { respond(Text(200, "hello")); });
    server_->RoutePrefix(http::verb::get, "/static/", [](const HttpRequest& req, Responder r) {
      r(Text(200, "static:" + std::string(req.path)));
    });
    server_->RoutePrefix(http::verb::get, "/static/deep/",
                         [](const HttpRequest&, Responder r) { r(Text(200, "deep")); });
  }

  void StartServer() {
    absl::Status s = server_->Start();
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_NE(server_->port(), 0);
  }

  void SetUpServer() {
    CreateServer();
    StartServer();
  }

  std::string Exposition() {
    return prometheus::TextSerializer().Serialize(metrics::Collect(registry_));
  }

  // The server counts a close on its own thread, possibly just after the
  // client saw it: poll, bounded, for the sample to appear.
  bool EventuallyExposes(const std::string& sample) {
    for (int i = 0; i < 200; ++i) {
      if (Exposition().find(sample) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  config::ServerConfig config_;
  prometheus::Registry registry_;
  std::unique_ptr<HttpServer> server_;
  std::atomic<int> handled_{0};
};

}  // namespace rtb::bidder::testing

#endif  // RTB_TESTS_BIDDER_HTTP_HTTP_SERVER_FIXTURE_H_
