// Runs a BidHandler on a real io_context with the embedded store (behind a
// FaultInjectingStore), real metrics and a fixed wall clock, and collects its
// answers. No network: requests are handed to the handler as the HTTP server
// hands them.
#ifndef RTB_TESTS_BIDDER_BID_HANDLER_HARNESS_H_
#define RTB_TESTS_BIDDER_BID_HANDLER_HARNESS_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bidder/bid/bid_handler.h"
#include "bidder/bid/bid_metrics.h"
#include "bidder/bid/device_key.h"
#include "bidder/bid/pacing_snapshot.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/post.hpp"
#include "boost/beast/http/fields.hpp"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "pricing/pricer.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "tests/bidder/decision_fixtures.h"
#include "tests/bidder/fault_injecting_store.h"

namespace rtb::bidder::testing {

struct Answer {
  HttpResponse response;
  std::chrono::steady_clock::time_point answered_at;
  nlohmann::json json;  // the body parsed, when it is JSON

  std::string Header(std::string_view name) const {
    for (const auto& [n, v] : response.headers) {
      if (n == name) return v;
    }
    return "";
  }
  const nlohmann::json& FirstBid() const { return json["seatbid"][0]["bid"][0]; }
};

class HandlerHarness {
 public:
  // `with_pricer`: values and shading by a Pricer of `config` (no model
  // published: the goals' priors), as bidders run; else every bid is the
  // campaign's max_bid_cpm.
  explicit HandlerHarness(config::BidderConfig config, const PacingSnapshot* pacing = nullptr,
                          bool with_pricer = false)
      : config_(std::move(config)),
        store_(temp_store_.store()),
        wall_clock_(std::make_shared<storage::ManualClock>(kNoonUtcMillis)),
        metrics_(registry_, config_.server.exchanges, config_.campaigns),
        device_keys_(config_.bid.device_key_secret) {
    BidHandler::Dependencies deps;
    deps.config = &config_;
    deps.store = &store_;
    deps.pacing = pacing != nullptr ? pacing : &unpaced_;
    deps.metrics = &metrics_;
    deps.wall_clock = wall_clock_;
    if (with_pricer) {
      absl::StatusOr<std::unique_ptr<pricing::Pricer>> pricer =
          pricing::Pricer::Create(config_, nullptr);
      EXPECT_TRUE(pricer.ok()) << pricer.status();
      if (pricer.ok()) pricer_ = *std::move(pricer);
      deps.pricer = pricer_.get();
    }
    absl::StatusOr<std::unique_ptr<BidHandler>> handler = BidHandler::Create(std::move(deps));
    EXPECT_TRUE(handler.ok()) << handler.status();
    if (handler.ok()) handler_ = *std::move(handler);
  }

  ~HandlerHarness() {
    // Let held-back store answers and timers finish before anything goes.
    io_.restart();
    io_.run_for(std::chrono::seconds(5));
  }

  // Hands `body` to the handler of exchange 0 as if its first byte had been
  // read at `arrival`, and runs the io_context until the answer.
  Answer Call(std::string_view body,
              std::optional<std::chrono::steady_clock::time_point> arrival = std::nullopt,
              std::string_view openrtb_version_header = "") {
    HttpHeaders headers;
    if (!openrtb_version_header.empty()) {
      headers.set("x-openrtb-version", boost::beast::string_view(openrtb_version_header.data(),
                                                                 openrtb_version_header.size()));
    }
    const std::string copy(body);
    std::optional<Answer> answer;
    HttpRequest request;
    request.method = boost::beast::http::verb::post;
    request.target = config_.server.exchanges[0].bid_path;
    request.path = request.target;
    request.body = copy;
    request.headers = &headers;
    request.arrival = arrival.value_or(std::chrono::steady_clock::now());
    request.executor = io_.get_executor();
    request.remote_address = "127.0.0.1";
    boost::asio::post(io_, [&] {
      handler_->Handle(0, request, [&](HttpResponse response) {
        EXPECT_FALSE(answer.has_value()) << "answered twice";
        Answer a;
        a.answered_at = std::chrono::steady_clock::now();
        a.response = std::move(response);
        if (!a.response.body.empty()) {
          a.json = nlohmann::json::parse(a.response.body, nullptr, /*allow_exceptions=*/false);
        }
        answer = std::move(a);
      });
    });
    io_.restart();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!answer.has_value() && std::chrono::steady_clock::now() < give_up) {
      io_.run_one_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(answer.has_value()) << "no answer";
    return answer.value_or(Answer{});
  }

  // The profiles row key of device id `id`.
  std::string KeyOf(std::string_view id) const {
    return std::string(device_keys_.Hash(id).bytes());
  }
  std::string KeyHexOf(std::string_view id) const { return device_keys_.Hash(id).Hex(); }

  double Requests(BidOutcome outcome) { return metrics_.requests(0, outcome).Value(); }
  double Lookups(LookupOutcome outcome) { return metrics_.lookups(outcome).Value(); }
  double LookupsTotal() {
    double sum = 0;
    for (size_t i = 0; i < kLookupOutcomeCount; ++i) sum += Lookups(static_cast<LookupOutcome>(i));
    return sum;
  }

  config::BidderConfig& config() { return config_; }
  storage::ManualClock& wall_clock() { return *wall_clock_; }
  TempStore& temp_store() { return temp_store_; }
  FaultInjectingStore& store() { return store_; }
  BidMetrics& metrics() { return metrics_; }
  BidHandler& handler() { return *handler_; }
  boost::asio::io_context& io() { return io_; }
  prometheus::Registry& registry() { return registry_; }

 private:
  config::BidderConfig config_;
  TempStore temp_store_;
  FaultInjectingStore store_;
  std::shared_ptr<storage::ManualClock> wall_clock_;
  prometheus::Registry registry_;
  BidMetrics metrics_;
  UnpacedSnapshot unpaced_;
  DeviceKeyHasher device_keys_;
  std::unique_ptr<pricing::Pricer> pricer_;
  boost::asio::io_context io_;
  std::unique_ptr<BidHandler> handler_;
};

}  // namespace rtb::bidder::testing

#endif  // RTB_TESTS_BIDDER_BID_HANDLER_HARNESS_H_
