// The bid decision end to end without network: a 1.5 KB bid request handed to
// the BidHandler as the HTTP server hands it, parsed, its profile read from a
// warm embedded store, the auction run and the bid response written.
//
//   build/loadtest/bench/auction_bench --benchmark_repetitions=5
//
// BM_HandleWithWarmProfile is the whole bid path minus the socket, for a
// GDPR request whose TC string consents: its time includes the privacy
// decision and the store's async hop (a post to the store's thread and
// back). Its _NoSignals and _Gpp variants are the same request without
// privacy signals and with a GPP US National string, so the differences are
// the privacy step's cost on the bid path. BM_HandleContextual is the GDPR
// request with lmt=1 (no lookup), i.e. parse + auction + response on the I/O
// thread alone; _GppOptOut is contextual through a US opt-out.
// BM_HandleWithUncachedProfile is the warm-profile request for a device
// whose profile has 86 cells (as the load test's seeded ones) and is not in
// the row cache (one too small to hold it) but in RocksDB's memtables: the
// Zipf tail of a real device population. BM_PrivacyStep times the privacy
// step alone. The others take the pieces apart. The campaigns are those of
// config/bidder.example.json.
//
// "allocs" is operator new calls per request, every thread included (the
// store's pool too; loadtest/bench/heap_allocations.h).
//
// For instruction counts, RTB_BENCH_ITERATIONS=<n> fixes the iterations of
// the BM_Handle* benchmarks, so that two callgrind runs differing only in n
// give the instructions per request, all threads included:
//   RTB_BENCH_ITERATIONS=200 valgrind --tool=callgrind
//     build/loadtest/bench/auction_bench --benchmark_filter=BM_HandleWithWarmProfile$
// (one command line; loadtest/callgrind-bid-path.sh runs both and divides).
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "bidder/bid/beacon_url.h"
#include "bidder/bid/bid_handler.h"
#include "bidder/bid/bid_metrics.h"
#include "bidder/bid/device_key.h"
#include "bidder/bid/internal/auction.h"
#include "bidder/bid/internal/request_privacy.h"
#include "bidder/bid/pacing_snapshot.h"
#include "bidder/privacy/gpp_string.h"
#include "bidder/privacy/privacy_decision.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/post.hpp"
#include "config/config.h"
#include "loadtest/bench/heap_allocations.h"
#include "prometheus/registry.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"
#include "tests/bidder/privacy/privacy_encoder.h"

namespace rtb::bidder {
namespace {

// Benchmark keys; not the secrets of any deployment.
constexpr char kDeviceKeySecret[] = "device-key-secret-for-benchmarks-0123456789";
constexpr char kBeaconSecret[] = "beacon-secret-for-benchmarks-abcdefghijklmn";

// The 1.5 KB display request of openrtb_bench (site, full user agent, TCF
// string, schain, two impressions, one with a deal), compact; the device is
// known by its buyeruid. LMT, COUNTRY, USER_EXT and REGS are filled in by
// RequestBody.
constexpr std::string_view kRequest =
    R"({"id":"9f3c1e7a-5b2d-4c8e-a1f0-3d6b9e2c7a41","at":1,"tmax":150,"cur":["USD"],)"
    R"("bcat":["IAB25","IAB26","IAB7-39"],"badv":["competitor.example"],"imp":[{"id":"1",)"
    R"("tagid":"homepage-top","bidfloor":0.85,"secure":1,"banner":{"w":728,"h":90,"pos":1,)"
    R"("format":[{"w":728,"h":90},{"w":970,"h":90}]},"ext":{"prebid":{"bidder":{"ourbidder":)"
    R"({"placementId":183472}}}}},{"id":"2","bidfloor":0.5,"banner":{"format":[{"w":300,"h":250},)"
    R"({"w":300,"h":600}]},"pmp":{"deals":[{"id":"DEAL-0042","bidfloor":4.0,"at":1}]}}],)"
    R"("site":{"id":"site-2231","domain":"news.example.com","page":)"
    R"("https://news.example.com/world/2024/05/article.html","cat":["IAB12"],"publisher":)"
    R"({"id":"pub-889","name":"Example News"}},"device":{"ua":"Mozilla/5.0 (Windows NT 10.0; )"
    R"(Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",)"
    R"("ip":"203.0.113.54","geo":{"lat":48.8566,"lon":2.3522,"type":2,"country":"COUNTRY",)"
    R"("city":"Paris"},"devicetype":2,"os":"Windows","js":1,"language":"fr","connectiontype":2)"
    R"(LMT},"user":{"id":"u-5e1f0c2b9a8d7e6f","buyeruid":"b-77d1a0c3","data":[{"id":"dmp-1",)"
    R"("segment":[{"id":"s-101"},{"id":"s-202"},{"id":"s-303"}]}]USER_EXT},"regs":{"coppa":0REGS},)"
    R"("source":{"tid":"0b3e9a1c-2d4f-4e5a-9b8c-7d6e5f4a3b2c","ext":{"schain":{"complete":1,)"
    R"("ver":"1.0","nodes":[{"asi":"exchange.example","sid":"pub-889","hp":1}]}}}})";

// The request's privacy signals.
enum class Signals {
  kNone,       // a device in the USA, no regs
  kGdpr,       // France, regs.ext.gdpr=1 and a TC string that consents to everything we use
  kGpp,        // the USA, a GPP string with a US National section, no opt-out
  kGppOptOut,  // the same section with the sale opt-out: a contextual bid
};

// The corpus's TC string (tests/fixtures/openrtb/README.md): purposes 1-4,
// 7, 9, 10, special feature 1, vendors 1-300, 755 and 1000-1200 in ranges;
// the example config's vendor id (1111) is among them.
constexpr char kTcString[] = "CP1R2oAP1R2oAEsAEBDEE4EIAPLAAELAAAYgJYQA4AAgJYAvOB9AJYAAUoAAAA";

std::string UsNationalGpp(bool sale_opt_out) {
  privacy::testing::UsFields f;
  f.sharing_notice = 1;
  f.sale_opt_out_notice = 1;
  f.sharing_opt_out_notice = 1;
  f.targeted_advertising_opt_out_notice = 1;
  f.sale_opt_out = sale_opt_out ? 1 : 2;
  f.sharing_opt_out = 2;
  f.targeted_advertising_opt_out = 2;
  return privacy::testing::EncodeGppString(
      {{privacy::kGppUsNational, privacy::testing::EncodeUsSection(privacy::kGppUsNational, f)}});
}

void Replace(std::string* body, std::string_view marker, std::string_view with) {
  body->replace(body->find(marker), marker.size(), with);
}

std::string RequestBody(bool lmt, Signals signals = Signals::kGdpr) {
  std::string body(kRequest);
  Replace(&body, "LMT", lmt ? R"(,"lmt":1)" : "");
  Replace(&body, "COUNTRY", signals == Signals::kGdpr ? "FRA" : "USA");
  Replace(
      &body, "USER_EXT",
      signals == Signals::kGdpr ? absl::StrCat(R"(,"ext":{"consent":")", kTcString, R"("})") : "");
  std::string regs;
  if (signals == Signals::kGdpr) regs = R"(,"ext":{"gdpr":1})";
  if (signals == Signals::kGpp || signals == Signals::kGppOptOut) {
    regs = absl::StrCat(R"(,"gpp":")", UsNationalGpp(signals == Signals::kGppOptOut),
                        R"(","gpp_sid":[7])");
  }
  Replace(&body, "REGS", regs);
  return body;
}

absl::StatusOr<config::BidderConfig> ExampleConfigForBenchmarks() {
  setenv("RTB_DEVICE_KEY_SECRET", kDeviceKeySecret, 1);
  setenv("RTB_BEACON_SECRET", kBeaconSecret, 1);
  return config::LoadConfigFile(std::string(RTB_CONFIG_DIR) + "/bidder.example.json");
}

// The device's profile and the store it is read from.
struct ProfileSetup {
  // Segment cells beyond the two the campaigns target.
  int filler_segments = 0;
  int64_t row_cache_bytes = storage::EmbeddedStoreOptions().row_cache_bytes;
};

// Everything the handler needs, built once per benchmark.
class Bidder {
 public:
  explicit Bidder(ProfileSetup setup = {}) {
    absl::StatusOr<config::BidderConfig> config = ExampleConfigForBenchmarks();
    if (!config.ok()) {
      error_ = std::string(config.status().message());
      return;
    }
    config_ = *std::move(config);
    // Under callgrind a request runs some fifty times slower: a 1 ms budget
    // for auction and response would turn every bid into a late no-bid. The
    // work per request is the same either way.
    config_.bid.auction_budget_us = 50'000;
    path_ = (std::filesystem::temp_directory_path() /
             ("rtb-auction-bench-" + std::to_string(::getpid())))
                .string();
    std::filesystem::remove_all(path_);
    storage::EmbeddedStoreOptions options;
    options.path = path_;
    options.row_cache_bytes = setup.row_cache_bytes;
    absl::StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenEmbeddedStore(options);
    if (!store.ok() || !storage::ApplySchemas(**store, storage::BidderTables()).ok()) {
      error_ = "cannot open the embedded store";
      return;
    }
    store_ = *std::move(store);
    // The device's profile: the retargeting segment and some of today's
    // counters (below the caps).
    storage::Put put;
    put.row = std::string(DeviceKeyHasher(kDeviceKeySecret).Hash("b-77d1a0c3").bytes());
    put.values.push_back(
        {std::string(storage::kProfileSegmentFamily), "cart-abandoner-30d", "\x64", std::nullopt});
    put.values.push_back(
        {std::string(storage::kProfileSegmentFamily), "in-market-travel", "\x32", std::nullopt});
    const std::string today = absl::FormatTime("%Y%m%d", absl::Now(), absl::UTCTimeZone());
    put.values.push_back({std::string(storage::kProfileFrequencyCapFamily),
                          "litware-retargeting|" + today, storage::EncodeCounter(1), std::nullopt});
    put.values.push_back({std::string(storage::kProfileFrequencyCapFamily),
                          "northwind-travel-display|" + today, storage::EncodeCounter(2),
                          std::nullopt});
    // Named as rtb-seed-profiles names its 80 (short enough for every
    // string of the cell to stay inline).
    for (int i = 0; i < setup.filler_segments; ++i) {
      put.values.push_back({std::string(storage::kProfileSegmentFamily),
                            absl::StrFormat("s%07d", i * 37), "\x10", std::nullopt});
    }
    (void)store_->Put(storage::kProfilesTable, put);
    metrics_ = std::make_unique<BidMetrics>(registry_, config_.server.exchanges, config_.campaigns);
    BidHandler::Dependencies deps;
    deps.config = &config_;
    deps.store = store_.get();
    deps.pacing = &pacing_;
    deps.metrics = metrics_.get();
    absl::StatusOr<std::unique_ptr<BidHandler>> handler = BidHandler::Create(std::move(deps));
    if (!handler.ok()) {
      error_ = std::string(handler.status().message());
      return;
    }
    handler_ = *std::move(handler);
  }
  ~Bidder() {
    handler_.reset();
    store_.reset();
    std::filesystem::remove_all(path_);
  }

  const std::string& error() const { return error_; }
  BidHandler& handler() { return *handler_; }
  const config::BidderConfig& config() const { return config_; }

  // One request through the handler on `io`; the status of the answer.
  unsigned Handle(boost::asio::io_context& io, const std::string& body) {
    unsigned status = 0;
    HttpRequest request;
    request.method = boost::beast::http::verb::post;
    request.headers = nullptr;
    request.body = body;
    request.arrival = std::chrono::steady_clock::now();
    request.executor = io.get_executor();
    handler_->Handle(0, request, [&status](HttpResponse response) { status = response.status; });
    while (status == 0) io.run_one();
    io.restart();
    return status;
  }

 private:
  std::string error_;
  config::BidderConfig config_;
  std::string path_;
  std::unique_ptr<storage::Store> store_;
  prometheus::Registry registry_;
  std::unique_ptr<BidMetrics> metrics_;
  UnpacedSnapshot pacing_;
  std::unique_ptr<BidHandler> handler_;
};

void ReportSize(benchmark::State& state, size_t bytes) {
  state.counters["request_bytes"] = static_cast<double>(bytes);
}

// RTB_BENCH_ITERATIONS, when set, as the fixed iteration count.
void IterationsFromEnvironment(benchmark::internal::Benchmark* b) {
  if (const char* n = getenv("RTB_BENCH_ITERATIONS"); n != nullptr && atoi(n) > 0) {
    b->Iterations(atoi(n));
  }
}

// The whole bid path for one request with `signals`; `lmt` skips the lookup.
void HandleBenchmark(benchmark::State& state, bool lmt, Signals signals, ProfileSetup setup = {}) {
  Bidder bidder(setup);
  if (!bidder.error().empty()) return state.SkipWithError(bidder.error().c_str());
  boost::asio::io_context io;
  const std::string body = RequestBody(lmt, signals);
  // A few warm-up requests: under callgrind the first ones, which set up
  // thread-local state and the store's pool, can miss their deadlines.
  unsigned status = 0;
  for (int i = 0; i < 10 && status != 200; ++i) status = bidder.Handle(io, body);
  if (status != 200) {
    const std::string error = absl::StrCat("no bid: status ", status);
    return state.SkipWithError(error.c_str());
  }
  int no_bids = 0;
  const uint64_t allocations_before = bench::HeapAllocations();
  for (auto _ : state) no_bids += bidder.Handle(io, body) != 200;
  const uint64_t allocations = bench::HeapAllocations() - allocations_before;
  state.counters["no_bids"] = no_bids;
  state.counters["allocs"] =
      benchmark::Counter(static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
  ReportSize(state, body.size());
}

// GDPR applies and the TC string consents: the decision (a TC string
// decoded, vendor and purposes looked up) on top of the lookup and auction.
void BM_HandleWithWarmProfile(benchmark::State& state) {
  HandleBenchmark(state, /*lmt=*/false, Signals::kGdpr);
}
BENCHMARK(BM_HandleWithWarmProfile)->UseRealTime()->Apply(IterationsFromEnvironment);

// An 86-cell profile the row cache cannot hold: read from RocksDB's
// memtables on every request.
void BM_HandleWithUncachedProfile(benchmark::State& state) {
  ProfileSetup setup;
  setup.filler_segments = 82;
  setup.row_cache_bytes = 64 << 10;  // 1 KiB per shard: no profile row fits
  HandleBenchmark(state, /*lmt=*/false, Signals::kGdpr, setup);
}
BENCHMARK(BM_HandleWithUncachedProfile)->UseRealTime()->Apply(IterationsFromEnvironment);

// The same request from the USA without privacy signals: the baseline of
// the privacy decision's cost.
void BM_HandleWithWarmProfile_NoSignals(benchmark::State& state) {
  HandleBenchmark(state, /*lmt=*/false, Signals::kNone);
}
BENCHMARK(BM_HandleWithWarmProfile_NoSignals)->UseRealTime()->Apply(IterationsFromEnvironment);

// A GPP string with a US National section that allows everything.
void BM_HandleWithWarmProfile_Gpp(benchmark::State& state) {
  HandleBenchmark(state, /*lmt=*/false, Signals::kGpp);
}
BENCHMARK(BM_HandleWithWarmProfile_Gpp)->UseRealTime()->Apply(IterationsFromEnvironment);

void BM_HandleContextual(benchmark::State& state) {
  HandleBenchmark(state, /*lmt=*/true, Signals::kGdpr);
}
BENCHMARK(BM_HandleContextual)->UseRealTime()->Apply(IterationsFromEnvironment);

// The US National opt-out: contextual by privacy (no key, no lookup).
void BM_HandleContextual_GppOptOut(benchmark::State& state) {
  HandleBenchmark(state, /*lmt=*/false, Signals::kGppOptOut);
}
BENCHMARK(BM_HandleContextual_GppOptOut)->UseRealTime()->Apply(IterationsFromEnvironment);

// The privacy step alone, as the bid handler takes it: the signals read off
// the parsed request, decided, mapped.
void BM_PrivacyStep(benchmark::State& state) {
  const auto signals = static_cast<Signals>(state.range(0));
  absl::StatusOr<config::BidderConfig> config = ExampleConfigForBenchmarks();
  if (!config.ok()) return state.SkipWithError("no example config");
  absl::StatusOr<openrtb::BidRequest> request =
      openrtb::ParseBidRequest(RequestBody(false, signals));
  if (!request.ok()) return state.SkipWithError("request rejected");
  for (auto _ : state) {
    const privacy::PrivacyDecision decision =
        privacy::DecidePrivacy(SignalsOf(*request), config->privacy);
    benchmark::DoNotOptimize(PermissionsOf(decision));
  }
}
BENCHMARK(BM_PrivacyStep)
    ->Arg(static_cast<int>(Signals::kNone))
    ->Arg(static_cast<int>(Signals::kGdpr))
    ->Arg(static_cast<int>(Signals::kGpp))
    ->Arg(static_cast<int>(Signals::kGppOptOut));

void BM_AuctionOnly(benchmark::State& state) {
  Bidder bidder;
  if (!bidder.error().empty()) return state.SkipWithError(bidder.error().c_str());
  absl::StatusOr<CurrencyTable> currencies =
      CurrencyTable::Create(bidder.config().bid.currency_rates);
  const UnpacedSnapshot pacing;
  const std::shared_ptr<const CampaignIndex> index = bidder.handler().campaigns();
  Auction auction(*index, *currencies, pacing);
  absl::StatusOr<openrtb::BidRequest> request = openrtb::ParseBidRequest(RequestBody(false));
  if (!request.ok()) return state.SkipWithError("request rejected");
  AuctionInput input;
  input.request = &*request;
  input.now = absl::Now();
  AuctionResult result;
  for (auto _ : state) {
    auction.Run(input, &result);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_AuctionOnly);

void BM_DeviceKey(benchmark::State& state) {
  DeviceKeyHasher hasher(kDeviceKeySecret);
  for (auto _ : state)
    benchmark::DoNotOptimize(hasher.Hash("6D92078A-8246-4BA4-AE5B-76104861E7DC"));
}
BENCHMARK(BM_DeviceKey);

// The beacon parameters of a typical bid.
BeaconParams SampleBeaconParams() {
  BeaconParams params;
  params.exchange = "sample-exchange";
  params.campaign_id = "northwind-travel-display";
  params.creative_id = "nw-leader-summer";
  params.device_key = "95d4b23506b2879bd1a03067d01aa93c";
  params.bid_price_micros = 2500000;
  params.bid_currency = "USD";
  params.bid_time_ms = 1791115200000;
  params.request_id = "9f3c1e7a-5b2d-4c8e-a1f0-3d6b9e2c7a41";
  params.imp_id = "1";
  params.bid_id = "0123456789abcdef0123456789abcdef-1";
  return params;
}

void BM_BeaconUrl(benchmark::State& state) {
  BeaconSigner signer(kBeaconSecret);
  const BeaconParams params = SampleBeaconParams();
  std::string url;
  for (auto _ : state) {
    url.clear();
    signer.AppendUrl(BeaconKind::kWin, "https://rtb.example.com", params, &url);
    benchmark::DoNotOptimize(url);
  }
}
BENCHMARK(BM_BeaconUrl);

// A bid's five beacons (win, billing, loss, click, impression) over one
// shared query and signed prefix, as the bid path writes them.
void BM_BeaconUrlsOfABid(benchmark::State& state) {
  BeaconSigner signer(kBeaconSecret);
  const BeaconParams params = SampleBeaconParams();
  std::string win, billing, loss, click, impression;
  for (auto _ : state) {
    for (std::string* url : {&win, &billing, &loss, &click, &impression}) url->clear();
    signer.AppendUrls("https://rtb.example.com", params, &win, &billing, &loss, &click,
                      &impression);
    benchmark::DoNotOptimize(win);
    benchmark::DoNotOptimize(impression);
  }
}
BENCHMARK(BM_BeaconUrlsOfABid)->Apply(IterationsFromEnvironment);

}  // namespace
}  // namespace rtb::bidder

BENCHMARK_MAIN();
