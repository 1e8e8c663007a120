// A whole BidderApp for HTTP tests: the example config on an embedded store
// in a temporary directory, port 0, two I/O threads, with a test operator
// (tests/bidder/operator_login.h), and one keep-alive connection to it.
#ifndef RTB_TESTS_BIDDER_BIDDER_APP_FIXTURE_H_
#define RTB_TESTS_BIDDER_BIDDER_APP_FIXTURE_H_

#include <unistd.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "bidder/app.h"
#include "gtest/gtest.h"
#include "tests/bidder/decision_fixtures.h"
#include "tests/bidder/http_test_client.h"
#include "tests/bidder/operator_login.h"

namespace rtb::bidder::testing {

class BidderAppTest : public ::testing::Test {
 protected:
  void TearDown() override { Stop(); }

  // Creates and starts the bidder with `change` applied to the config, and
  // connects. `name` keeps the data directories of test programs apart;
  // `decorate` wraps the store the bidder opened (BidderApp::StoreDecorator).
  void Boot(std::string_view name,
            const std::function<void(config::BidderConfig&)>& change = nullptr,
            const BidderApp::StoreDecorator& decorate = nullptr) {
    data_dir_ = (std::filesystem::temp_directory_path() /
                 ("rtb-" + std::string(name) + "-" + std::to_string(::getpid())))
                    .string();
    std::filesystem::remove_all(data_dir_);
    std::filesystem::remove_all(data_dir_ + "-beacon-log");
    config::BidderConfig config = ExampleConfig();
    config.server.port = 0;
    config.server.io_threads = 2;
    AddTestOperator(config);
    config.storage.embedded.path = data_dir_;
    config.storage.embedded.block_cache_mib = 8;
    if (change) change(config);
    absl::StatusOr<std::unique_ptr<BidderApp>> app =
        BidderApp::Create(std::move(config), HttpServerTuning{}, decorate);
    ASSERT_TRUE(app.ok()) << app.status();
    app_ = *std::move(app);
    ASSERT_TRUE(app_->Start().ok());
    connection_ = std::make_unique<TestConnection>(app_->port());
    ASSERT_TRUE(connection_->connected());
  }

  void Stop() {
    connection_.reset();
    if (app_ != nullptr) app_->Shutdown();
    app_.reset();
    if (!data_dir_.empty()) {
      std::filesystem::remove_all(data_dir_);
      std::filesystem::remove_all(data_dir_ + "-beacon-log");
    }
  }

  // One round trip; a beacon it sent is applied to the store by the time it
  // returns (unless the store keeps failing for `apply_timeout_`), so tests
  // read what it wrote.
  TestResponse Send(const std::string& request) {
    std::optional<TestResponse> response = connection_->RoundTrip(request);
    EXPECT_TRUE(response.has_value());
    (void)app_->AwaitBeaconsApplied(apply_timeout_);
    return response.value_or(TestResponse{});
  }

  absl::Duration apply_timeout_ = absl::Seconds(10);

  std::string data_dir_;
  std::unique_ptr<BidderApp> app_;
  std::unique_ptr<TestConnection> connection_;
};

}  // namespace rtb::bidder::testing

#endif  // RTB_TESTS_BIDDER_BIDDER_APP_FIXTURE_H_
