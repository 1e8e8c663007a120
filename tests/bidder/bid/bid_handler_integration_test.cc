// The bid handler under a slow storage backend: I/O threads with their own
// io_context each (as the server runs them), the embedded store behind a
// fault-injecting decorator that holds every profile answer back past the
// deadline. Every response must still arrive before its deadline, as a
// contextual bid, and the timeout metric must say why.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "boost/asio/executor_work_guard.hpp"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/bidder/bid_handler_harness.h"

namespace rtb::bidder {
namespace {

using std::chrono::milliseconds;
using testing::ExampleConfig;
using testing::FaultInjectingStore;
using testing::HandlerHarness;
using testing::ProfileRow;

constexpr int kThreads = 2;
constexpr int kRequestsPerThread = 40;
// The example exchange allows 20 ms for the network: 100 ms are left.
constexpr int kTmaxMs = 120;
// The auction's share of it: generous, so that a busy test machine does not
// turn a timely contextual bid into a late one (the guard answers 40 ms
// before the deadline; the store is held back far past it either way).
constexpr int kAuctionBudgetUs = 40000;

config::BidderConfig TestConfig() {
  config::BidderConfig config = ExampleConfig();
  config.bid.auction_budget_us = kAuctionBudgetUs;
  // A profile that misses its deadline is a storage outage to the bid path;
  // these tests are about answering in time, so the capped campaigns bid on
  // the empty profile as before (the policies: store_outage_test.cc).
  for (config::CampaignConfig& campaign : config.campaigns) {
    campaign.store_outage_policy = config::StoreOutagePolicy::kAsToday;
  }
  return config;
}

std::string DeviceId(int i) { return absl::StrCat("device-", i); }

std::string Request(int i) {
  return absl::StrCat(R"({"id":"req-)", i, R"(","tmax":)", kTmaxMs,
                      R"(,"imp":[{"id":"1","banner":{"w":300,"h":250}}],)",
                      R"("site":{"domain":"news.example"},"device":{"ifa":")", DeviceId(i),
                      R"("}})");
}

struct Outcome {
  unsigned status = 0;
  std::string campaign;
  std::chrono::steady_clock::time_point deadline;
  std::chrono::steady_clock::time_point answered;
};

// Fires every request from kThreads I/O threads at once and collects the
// answers.
std::vector<Outcome> RunConcurrently(HandlerHarness& harness) {
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts;
  for (int t = 0; t < kThreads; ++t)
    contexts.push_back(std::make_unique<boost::asio::io_context>());
  std::vector<Outcome> outcomes(kThreads * kRequestsPerThread);
  std::vector<std::string> bodies(outcomes.size());
  std::atomic<int> answered{0};
  const auto tmax_after_allowance =
      milliseconds(kTmaxMs - harness.config().server.exchanges[0].network_allowance_ms);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      boost::asio::io_context& io = *contexts[t];
      auto work = boost::asio::make_work_guard(io);
      for (int n = 0; n < kRequestsPerThread; ++n) {
        const int i = t * kRequestsPerThread + n;
        bodies[i] = Request(i);
        boost::asio::post(io, [&, i] {
          HttpRequest request;
          request.method = boost::beast::http::verb::post;
          request.headers = nullptr;
          request.body = bodies[i];
          request.arrival = std::chrono::steady_clock::now();
          request.executor = io.get_executor();
          outcomes[i].deadline = request.arrival + tmax_after_allowance;
          harness.handler().Handle(0, request, [&, i](HttpResponse response) {
            outcomes[i].answered = std::chrono::steady_clock::now();
            outcomes[i].status = response.status;
            if (response.status == 200) {
              nlohmann::json json = nlohmann::json::parse(response.body);
              outcomes[i].campaign = json["seatbid"][0]["bid"][0]["cid"];
            }
            answered.fetch_add(1);
          });
        });
      }
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (answered.load() < static_cast<int>(outcomes.size()) &&
             std::chrono::steady_clock::now() < give_up) {
        io.run_one_for(milliseconds(50));
      }
      // Drain the answers the slow store still delivers.
      work.reset();
      io.run_for(std::chrono::seconds(2));
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(answered.load(), static_cast<int>(outcomes.size()));
  return outcomes;
}

void StoreSegmentProfiles(HandlerHarness& harness) {
  for (int i = 0; i < kThreads * kRequestsPerThread; ++i) {
    harness.temp_store().PutProfile(harness.KeyOf(DeviceId(i)),
                                    ProfileRow{{"cart-abandoner-30d"}, {}});
  }
}

class SlowStoreTest : public ::testing::TestWithParam<FaultInjectingStore::Mode> {};

TEST_P(SlowStoreTest, EveryAnswerBeatsItsDeadlineAsAContextualBid) {
  HandlerHarness harness(TestConfig());
  StoreSegmentProfiles(harness);
  // Far past any request's 100 ms.
  harness.store().SetDelay(milliseconds(400), GetParam());

  const std::vector<Outcome> outcomes = RunConcurrently(harness);
  for (size_t i = 0; i < outcomes.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("request ", i));
    EXPECT_LT(outcomes[i].answered, outcomes[i].deadline);
    ASSERT_EQ(outcomes[i].status, 200u);
    // The profile (with litware's segment) never arrived: contextual winner.
    EXPECT_EQ(outcomes[i].campaign, "northwind-travel-display");
  }
  EXPECT_EQ(harness.store().async_gets(), static_cast<int>(outcomes.size()));
  EXPECT_EQ(harness.Lookups(LookupOutcome::kTimeout), static_cast<double>(outcomes.size()));
  EXPECT_EQ(harness.metrics().profile_timeouts(0).Value(), static_cast<double>(outcomes.size()));
  EXPECT_EQ(harness.Lookups(LookupOutcome::kHit), 0);
  EXPECT_EQ(harness.Requests(BidOutcome::kBid), static_cast<double>(outcomes.size()));
}

INSTANTIATE_TEST_SUITE_P(Backends, SlowStoreTest,
                         ::testing::Values(FaultInjectingStore::Mode::kKeepsDeadline,
                                           FaultInjectingStore::Mode::kIgnoresDeadline),
                         [](const ::testing::TestParamInfo<FaultInjectingStore::Mode>& info) {
                           return info.param == FaultInjectingStore::Mode::kKeepsDeadline
                                      ? std::string("KeepsDeadline")
                                      : std::string("IgnoresDeadline");
                         });

TEST(FastStoreTest, ProfileHitsLetTheSegmentCampaignWin) {
  HandlerHarness harness(TestConfig());
  StoreSegmentProfiles(harness);
  const std::vector<Outcome> outcomes = RunConcurrently(harness);
  for (size_t i = 0; i < outcomes.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("request ", i));
    EXPECT_LT(outcomes[i].answered, outcomes[i].deadline);
    ASSERT_EQ(outcomes[i].status, 200u);
    EXPECT_EQ(outcomes[i].campaign, "litware-retargeting");
  }
  EXPECT_EQ(harness.Lookups(LookupOutcome::kHit), static_cast<double>(outcomes.size()));
  EXPECT_EQ(harness.Lookups(LookupOutcome::kTimeout), 0);
}

}  // namespace
}  // namespace rtb::bidder
