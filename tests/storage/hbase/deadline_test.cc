// Deadlines, connection limits and hedging of the hbase backend, shown
// against gateways that never answer or refuse connections. Nothing here
// needs HBase: what is checked is that the client gives up on time and
// never blocks a thread it does not own.
#include <chrono>
#include <future>
#include <thread>

#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/post.hpp"
#include "gtest/gtest.h"
#include "storage/hbase_store.h"
#include "tests/storage/hbase/stalled_listener.h"

namespace rtb::storage {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;
using testing::StalledListener;

// Generous: only says the call did not hang on the network.
constexpr milliseconds kSlack{1500};

std::unique_ptr<Store> Open(HBaseStoreOptions o) {
  absl::StatusOr<std::unique_ptr<Store>> store = OpenHBaseStore(o);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

Get GetOf(std::string row, Consistency c = Consistency::kStrong) {
  Get g;
  g.row = std::move(row);
  g.consistency = c;
  return g;
}

TEST(HBaseDeadlineTest, BlockingGetReturnsDeadlineExceededAtTheDeadline) {
  StalledListener gateway;
  HBaseStoreOptions o;
  o.endpoints = {gateway.endpoint()};
  o.call_timeout_ms = 200;
  auto stats = std::make_shared<HBaseStoreStats>();
  o.stats = stats;
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  Clock::time_point start = Clock::now();
  absl::StatusOr<RowResult> r = store->Get("profiles", GetOf("dev"));
  milliseconds took = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_GE(took, milliseconds(190));
  EXPECT_LT(took, milliseconds(200) + kSlack);
  EXPECT_EQ(stats->deadline_exceeded.load(), 1u);
  EXPECT_EQ(gateway.accepted(), 1);
}

TEST(HBaseDeadlineTest, FramedTransportAlsoTimesOut) {
  StalledListener gateway;
  HBaseStoreOptions o;
  o.endpoints = {gateway.endpoint()};
  o.transport = ThriftTransport::kFramed;
  o.call_timeout_ms = 100;
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  Put p;
  p.row = "r";
  p.values = {{"f", "q", "v", std::nullopt}};
  EXPECT_EQ(store->Put("t", p).code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(HBaseDeadlineTest, AsyncGetCompletesOnTheExecutorWithoutOccupyingIt) {
  StalledListener gateway;
  HBaseStoreOptions o;
  o.endpoints = {gateway.endpoint()};
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);

  boost::asio::io_context executor;
  auto work = boost::asio::make_work_guard(executor);
  std::thread::id executor_thread;
  std::thread runner([&] {
    executor_thread = std::this_thread::get_id();
    executor.run();
  });

  std::promise<absl::Status> result;
  std::atomic<int> calls{0};
  std::atomic<bool> other_work_ran_first{false};
  std::thread::id callback_thread;
  std::atomic<bool> answered{false};
  const Clock::time_point deadline = Clock::now() + milliseconds(300);
  store->AsyncGet("profiles", GetOf("dev"), deadline, executor.get_executor(),
                  [&](absl::StatusOr<RowResult> r) {
                    callback_thread = std::this_thread::get_id();
                    answered = true;
                    if (calls.fetch_add(1) == 0) result.set_value(r.status());
                  });
  // While the Get waits on the network the executor's only thread is free.
  boost::asio::post(executor, [&] { other_work_ran_first = !answered.load(); });

  std::future<absl::Status> f = result.get_future();
  ASSERT_EQ(f.wait_for(milliseconds(300) + kSlack), std::future_status::ready);
  EXPECT_EQ(f.get().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_GE(Clock::now(), deadline);
  EXPECT_TRUE(other_work_ran_first);
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(calls.load(), 1);
  work.reset();
  runner.join();
  EXPECT_EQ(callback_thread, executor_thread);
}

TEST(HBaseDeadlineTest, AsyncScanWithAPassedDeadlineFailsAtOnce) {
  StalledListener gateway;
  HBaseStoreOptions o;
  o.endpoints = {gateway.endpoint()};
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  boost::asio::io_context executor;
  absl::Status seen;
  Scan scan;
  scan.limit = 5;
  store->AsyncScan("t", scan, Clock::now() - milliseconds(1), executor.get_executor(),
                   [&](absl::StatusOr<std::vector<RowResult>> r) { seen = r.status(); });
  executor.run();
  EXPECT_EQ(seen.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(gateway.accepted(), 0);
}

TEST(HBaseDeadlineTest, RefusedConnectionIsUnavailable) {
  HBaseStoreOptions o;
  o.endpoints = {testing::RefusingEndpoint()};
  auto stats = std::make_shared<HBaseStoreStats>();
  o.stats = stats;
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  absl::StatusOr<RowResult> r = store->Get("profiles", GetOf("dev"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable) << r.status();
  EXPECT_EQ(stats->connect_failures.load(), 1u);
  EXPECT_EQ(stats->errors.load(), 1u);
}

TEST(HBaseDeadlineTest, UnreachableGatewayIsSkippedForTheNextOne) {
  StalledListener second;
  HBaseStoreOptions o;
  o.endpoints = {testing::RefusingEndpoint(), second.endpoint()};
  o.call_timeout_ms = 200;
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  // Whichever gateway round-robin starts with, the request reaches the one
  // that accepts connections.
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(store->TableExists("t").status().code(), absl::StatusCode::kDeadlineExceeded);
  }
  EXPECT_EQ(second.accepted(), 2);
}

TEST(HBaseDeadlineTest, CallsBeyondThePoolWaitForAConnectionUntilTheirDeadline) {
  StalledListener gateway;
  HBaseStoreOptions o;
  o.endpoints = {gateway.endpoint()};
  o.pool_size_per_endpoint = 1;
  o.call_timeout_ms = 1000;
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  // The first call holds the only connection for a second.
  auto first = std::async(std::launch::async, [&] { return store->Get("t", GetOf("a")).status(); });
  for (int i = 0; i < 100 && gateway.accepted() == 0; ++i)
    std::this_thread::sleep_for(milliseconds(5));
  ASSERT_EQ(gateway.accepted(), 1);
  boost::asio::io_context executor;
  auto work = boost::asio::make_work_guard(executor);
  std::thread runner([&] { executor.run(); });
  std::promise<absl::Status> answered;
  Clock::time_point start = Clock::now();
  store->AsyncGet("t", GetOf("b"), start + milliseconds(200), executor.get_executor(),
                  [&](absl::StatusOr<RowResult> r) { answered.set_value(r.status()); });
  absl::Status second = answered.get_future().get();
  work.reset();
  runner.join();
  EXPECT_EQ(second.code(), absl::StatusCode::kDeadlineExceeded) << second;
  EXPECT_NE(std::string(second.message()).find("no free connection"), std::string::npos) << second;
  EXPECT_LT(Clock::now() - start, milliseconds(200) + kSlack);
  EXPECT_EQ(gateway.accepted(), 1);
  EXPECT_EQ(first.get().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(HBaseDeadlineTest, TimelineGetIsHedgedToTheNextGateway) {
  StalledListener a, b;
  HBaseStoreOptions o;
  o.endpoints = {a.endpoint(), b.endpoint()};
  o.hedge_delay_ms = 20;
  o.call_timeout_ms = 300;
  auto stats = std::make_shared<HBaseStoreStats>();
  o.stats = stats;
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  absl::StatusOr<RowResult> r = store->Get("profiles", GetOf("dev", Consistency::kTimeline));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(stats->hedged_gets.load(), 1u);
  EXPECT_EQ(stats->requests.load(), 2u);
  EXPECT_EQ(a.accepted() + b.accepted(), 2);

  // A STRONG Get goes to one gateway only.
  r = store->Get("profiles", GetOf("dev"));
  EXPECT_EQ(stats->hedged_gets.load(), 1u);
  EXPECT_EQ(stats->requests.load(), 3u);
}

TEST(HBaseDeadlineTest, TimelineGetFailsOverAtOnceWhenTheFirstGatewayIsDown) {
  StalledListener second;
  HBaseStoreOptions o;
  o.endpoints = {testing::RefusingEndpoint(), second.endpoint()};
  o.hedge_delay_ms = 10000;  // longer than the call: only a failure can move on
  o.call_timeout_ms = 300;
  auto stats = std::make_shared<HBaseStoreStats>();
  o.stats = stats;
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  // Round-robin starts with the refusing gateway.
  absl::StatusOr<RowResult> r = store->Get("profiles", GetOf("dev", Consistency::kTimeline));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_EQ(stats->hedged_gets.load(), 1u);
  EXPECT_EQ(second.accepted(), 1);
}

TEST(HBaseDeadlineTest, AFailedHedgeLeavesThePrimaryToAnswer) {
  StalledListener first;
  HBaseStoreOptions o;
  o.endpoints = {first.endpoint(), testing::RefusingEndpoint()};
  o.hedge_delay_ms = 20;
  o.call_timeout_ms = 300;
  auto stats = std::make_shared<HBaseStoreStats>();
  o.stats = stats;
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  Clock::time_point start = Clock::now();
  absl::StatusOr<RowResult> r = store->Get("profiles", GetOf("dev", Consistency::kTimeline));
  // The hedge fails fast; the answer is still the primary's, at the deadline.
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_GE(Clock::now() - start, milliseconds(290));
  EXPECT_EQ(stats->hedged_gets.load(), 1u);
  EXPECT_EQ(stats->connect_failures.load(), 1u);
}

TEST(HBaseDeadlineTest, HedgingOffSendsOnce) {
  StalledListener a, b;
  HBaseStoreOptions o;
  o.endpoints = {a.endpoint(), b.endpoint()};
  o.hedge_delay_ms = 0;
  o.call_timeout_ms = 150;
  auto stats = std::make_shared<HBaseStoreStats>();
  o.stats = stats;
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  EXPECT_FALSE(store->Get("profiles", GetOf("dev", Consistency::kTimeline)).ok());
  EXPECT_EQ(stats->hedged_gets.load(), 0u);
  EXPECT_EQ(stats->requests.load(), 1u);
}

TEST(HBaseDeadlineTest, ClosingTheStoreAnswersCallsInFlight) {
  StalledListener gateway;
  HBaseStoreOptions o;
  o.endpoints = {gateway.endpoint()};
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  boost::asio::io_context executor;
  std::atomic<int> calls{0};
  absl::Status seen;
  store->AsyncGet("t", GetOf("r"), Clock::now() + std::chrono::seconds(30), executor.get_executor(),
                  [&](absl::StatusOr<RowResult> r) {
                    ++calls;
                    seen = r.status();
                  });
  // Let the request reach the gateway, then close the store.
  for (int i = 0; i < 100 && gateway.accepted() == 0; ++i)
    std::this_thread::sleep_for(milliseconds(10));
  Clock::time_point start = Clock::now();
  store.reset();
  EXPECT_LT(Clock::now() - start, kSlack);
  executor.run();
  EXPECT_EQ(calls.load(), 1);
  EXPECT_FALSE(seen.ok());
}

TEST(HBaseDeadlineTest, ClosingTheStoreWithAHedgePendingIsSafe) {
  StalledListener a, b;
  HBaseStoreOptions o;
  o.endpoints = {a.endpoint(), b.endpoint()};
  o.hedge_delay_ms = 200;
  std::unique_ptr<Store> store = Open(o);
  ASSERT_NE(store, nullptr);
  boost::asio::io_context executor;
  std::atomic<int> calls{0};
  store->AsyncGet("t", GetOf("r", Consistency::kTimeline), Clock::now() + std::chrono::seconds(30),
                  executor.get_executor(), [&](absl::StatusOr<RowResult>) { ++calls; });
  for (int i = 0; i < 100 && a.accepted() + b.accepted() == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  store.reset();  // the hedge timer fires while, or after, the store goes
  executor.run();
  EXPECT_EQ(calls.load(), 1);
}

}  // namespace
}  // namespace rtb::storage
