// The bid path's cost of pricing, per impression (issue 19: under 1 us):
// what the auction adds to a bid on a first-price request.
//
//   build/loadtest/bench/pricing_bench --benchmark_repetitions=9
//       --benchmark_report_aggregates_only=true
//
// BM_PriceImpression is the whole per-impression work: the campaign goal's
// value (a CPC goal, the model's rates), the bucket (site hash and format),
// Shade on a model of 50 000 curves (the default pricing.max_buckets), and
// CountBid (the outcome counter, the shading factor histogram, the campaign
// figures and the bid tally), with the metrics registered. Buckets cycle
// over 4 096 sites, so the curve lookups miss the cache as on real traffic.
// BM_Shade is Shade alone; BM_SecondPrice what a second-price request costs.
// BM_DeviceHistoryRead is what a cpc or cpa candidate adds once per request:
// the device's event_rollups scan over pricing.device_history_days (30 days,
// 12 of them with events) through the embedded store's AsyncScan, answered
// on the calling thread from memory as on a warm bidder, and the sum of its
// counters; BM_DeviceHistoryReadNone a device without history.
// The threaded runs show what the tally's shards and the figures' stripes
// leave of contention between request threads. allocs_per_impression
// counts operator new calls inside the timed loop.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "benchmark/benchmark.h"
#include "bidder/bid/internal/bid_pricing.h"
#include "bidder/bid/internal/campaign_index.h"
#include "bidder/events/events.h"
#include "bidder/openrtb/openrtb.h"
#include "boost/asio/io_context.hpp"
#include "config/config.h"
#include "pricing/bucket.h"
#include "pricing/internal/model_codec.h"
#include "pricing/internal/price_grid.h"
#include "pricing/internal/win_curve.h"
#include "pricing/pricer.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"

// Counting replacements of the global operator new/delete. GCC cannot see
// that the replaced pair matches and warns at every inlined use.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {

thread_local uint64_t allocations = 0;

}  // namespace

void* operator new(size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace rtb::pricing {
namespace {

constexpr int kSites = 4096;
constexpr int kCurves = 50000;
constexpr int64_t kNow = 1791115200000;

struct Fixture {
  config::BidderConfig config;
  prometheus::Registry registry;
  std::unique_ptr<Pricer> pricer;
  std::vector<openrtb::BidRequest> requests;
  bidder::Creative creative;

  Fixture() {
    config.server.exchanges.resize(2);
    config.server.exchanges[0].name = "adx";
    config.server.exchanges[1].name = "openx";
    config.bid.currency_rates = {{"USD", 1.0}};
    for (int i = 0; i < 8; ++i) {
      config::CampaignConfig campaign;
      campaign.id = "campaign-" + std::to_string(i);
      campaign.currency = "USD";
      campaign.max_bid_cpm = 20;
      campaign.daily_budget_micros = 1000000000;
      campaign.goal.type = config::CampaignGoal::kCpc;
      campaign.goal.target_cpc = 2;
      config.campaigns.push_back(campaign);
    }
    pricer = *Pricer::Create(config, &registry);
    creative.w = 300;
    creative.h = 250;

    // Curves for the benchmark's sites and filler buckets up to kCurves.
    internal::PricingModel model;
    model.computed_at_ms = kNow;
    const uint64_t exchange = pricer->ExchangeBits(0);
    for (int i = 0; i < kCurves; ++i) {
      const std::string site = "site" + std::to_string(i) + ".example";
      internal::BucketCurve curve;
      curve.bucket = BucketOf(exchange, InventoryHash('s', site), 1, 300, 250);
      curve.samples = 1000;
      curve.start = internal::BinOf(0.5);
      for (int k = 0; k < 60; ++k) {
        curve.values.push_back(static_cast<uint16_t>(internal::kCurveScale * (k + 1) / 60));
      }
      model.curves.push_back(std::move(curve));
    }
    pricer->Publish(model);
    for (int i = 0; i < kSites; ++i) {
      openrtb::BidRequest request;
      request.at = 1;
      request.site.emplace();
      request.site->domain = "site" + std::to_string(i * 7) + ".example";
      requests.push_back(std::move(request));
    }
  }
};

Fixture& Shared() {
  static Fixture* fixture = new Fixture();
  return *fixture;
}

double Draw(uint64_t* state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(*state >> 11) * 0x1.0p-53;
}

void BM_PriceImpression(benchmark::State& state) {
  Fixture& f = Shared();
  size_t i = static_cast<size_t>(state.thread_index()) * 101;
  uint64_t random = static_cast<uint64_t>(state.thread_index()) + 1;
  uint64_t before = 0;
  bool first = true;
  for (auto _ : state) {
    if (first) {
      before = allocations;
      first = false;
    }
    const openrtb::BidRequest& request = f.requests[i % f.requests.size()];
    const size_t campaign = i % f.config.campaigns.size();
    const double value = f.pricer->Value(campaign, {});
    const bidder::ImpressionPricing pricing(request, f.pricer->ExchangeBits(0), 0, 1.0, kNow);
    const ShadeRequest shade =
        pricing.Request(f.creative, nullptr, value, 0.2, Draw(&random), Draw(&random));
    const ShadeResult result = f.pricer->Shade(shade);
    f.pricer->CountBid(campaign, shade, result);
    benchmark::DoNotOptimize(result);
    ++i;
  }
  state.counters["allocs_per_impression"] = benchmark::Counter(
      static_cast<double>(allocations - before), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_PriceImpression)->Threads(1)->Threads(4);

void BM_Shade(benchmark::State& state) {
  Fixture& f = Shared();
  std::vector<ShadeRequest> shades;
  for (const openrtb::BidRequest& request : f.requests) {
    const bidder::ImpressionPricing pricing(request, f.pricer->ExchangeBits(0), 0, 1.0, kNow);
    shades.push_back(pricing.Request(f.creative, nullptr, 4.0, 0.2, 0.5, 0.5));
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.pricer->Shade(shades[i % shades.size()]));
    ++i;
  }
}
BENCHMARK(BM_Shade);

void BM_SecondPrice(benchmark::State& state) {
  Fixture& f = Shared();
  openrtb::BidRequest request = f.requests[0];
  request.at = 2;
  size_t i = 0;
  for (auto _ : state) {
    const size_t campaign = i % f.config.campaigns.size();
    const double value = f.pricer->Value(campaign, {});
    const bidder::ImpressionPricing pricing(request, f.pricer->ExchangeBits(0), 0, 1.0, kNow);
    const ShadeRequest shade = pricing.Request(f.creative, nullptr, value, 0.2, 0.5, 0.5);
    const ShadeResult result = f.pricer->Shade(shade);
    f.pricer->CountBid(campaign, shade, result);
    benchmark::DoNotOptimize(result);
    ++i;
  }
}
BENCHMARK(BM_SecondPrice);

// 1,024 devices with 12 days of events each (impressions every day, a
// click on some) in an embedded store of their own.
struct HistoryFixture {
  static constexpr int kDevices = 1024;
  static constexpr int kHistoryDays = 30;
  std::string path;
  std::unique_ptr<storage::Store> store;
  std::vector<std::string> devices;

  HistoryFixture()
      : path((std::filesystem::temp_directory_path() /
              absl::StrCat("rtb-bench-history-", ::getpid()))
                 .string()) {
    std::filesystem::remove_all(path);
    storage::EmbeddedStoreOptions options;
    options.path = path;
    store = *storage::OpenEmbeddedStore(options);
    if (!storage::ApplySchemas(*store, storage::BidderTables()).ok()) std::abort();
    storage::ManualClock clock(kNow);
    bidder::events::EventStore events(*store, clock, nullptr);
    constexpr int64_t kDayMs = 24LL * 3600 * 1000;
    for (int d = 0; d < kDevices; ++d) {
      std::string key = absl::StrCat("device-", d);
      key.resize(bidder::events::kUserKeyBytes, '#');
      devices.push_back(key);
      for (int day = 0; day < 12; ++day) {
        for (int n = 0; n < (day % 4 == 0 ? 2 : 1); ++n) {
          bidder::events::Event event;
          event.user_key = key;
          event.event_id = absl::StrCat(d, "-", day, "-", n);
          event.event_id.resize(bidder::events::kEventIdBytes, '.');
          event.type =
              n == 0 ? bidder::events::EventType::kImpression : bidder::events::EventType::kClick;
          event.event_time_ms = kNow - day * 2 * kDayMs;
          event.body = "{}";
          if (!events.Record(event).ok()) std::abort();
        }
      }
    }
    // As on a bidder that has run a while: the rows in files, their blocks
    // in the block cache once read.
    if (!store->Flush(storage::kEventRollupsTable).ok()) std::abort();
  }
  ~HistoryFixture() {
    store.reset();
    std::filesystem::remove_all(path);
  }
};

void ReadHistories(benchmark::State& state, bool with_history) {
  static HistoryFixture* fixture = new HistoryFixture();
  boost::asio::io_context io;
  constexpr int64_t kDayMs = 24LL * 3600 * 1000;
  const int64_t today = kNow - kNow % kDayMs;
  size_t i = 0;
  int64_t impressions = 0;
  for (auto _ : state) {
    std::string device = fixture->devices[i++ % fixture->devices.size()];
    if (!with_history) device[0] = '~';
    absl::StatusOr<storage::Scan> scan = bidder::events::DailyCountsScan(
        device, today - (HistoryFixture::kHistoryDays - 1) * kDayMs, today + kDayMs);
    fixture->store->AsyncScan(storage::kEventRollupsTable, *std::move(scan),
                              std::chrono::steady_clock::now() + std::chrono::seconds(1),
                              io.get_executor(),
                              [&](absl::StatusOr<std::vector<storage::RowResult>> rows) {
                                impressions += bidder::events::SumEngagement(*rows).impressions;
                              });
    io.restart();
    io.run();
  }
  state.counters["impressions_per_read"] =
      benchmark::Counter(static_cast<double>(impressions), benchmark::Counter::kAvgIterations);
}

void BM_DeviceHistoryRead(benchmark::State& state) { ReadHistories(state, true); }
BENCHMARK(BM_DeviceHistoryRead);

void BM_DeviceHistoryReadNone(benchmark::State& state) { ReadHistories(state, false); }
BENCHMARK(BM_DeviceHistoryReadNone);

}  // namespace
}  // namespace rtb::pricing

int main(int argc, char** argv) {
  // As the bidder process runs (storage/startup ConfigureRuntime): abseil's
  // deadlock detection would record every lock of the bid tally.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
