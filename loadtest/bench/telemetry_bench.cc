// Telemetry (issue 7): Gorilla bytes per point, encode/decode throughput, and
// a 7-day 5-minute-step query over 50 series from rollups vs raw points.
//
//   build/loadtest/bench/telemetry_bench --benchmark_counters_tabular=true
#include <unistd.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "bidder/telemetry/gorilla.h"
#include "bidder/telemetry/telemetry.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"

namespace rtb::bidder::telemetry {
namespace {

constexpr int64_t kBucket = 1791072000;

// One hour at a 10-second interval of a gauge shaped by `kind`.
std::vector<Point> GaugeHour(int kind, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Point> points;
  double v = kind == 3 ? 0.42 : 100;
  for (int64_t t = kBucket; t < kBucket + 3600; t += 10) {
    switch (kind) {
      case 0:
        break;  // constant
      case 1:
        v += static_cast<double>(static_cast<int>(rng() % 5) - 2);
        break;  // integer walk
      case 2:
        v = std::round((v + (static_cast<double>(rng() % 21) - 10) / 10) * 10) / 10;
        break;  // 0.1 steps
      case 3:
        v = std::round((0.4 + static_cast<double>(rng() % 1000) / 10000) * 1000) / 1000;
        break;  // ratio, 3 decimals
      default:
        v = static_cast<double>(rng() % 1000000) / 997;
        break;  // noisy float
    }
    points.push_back({t, v});
  }
  return points;
}

const char* kGaugeNames[] = {"constant", "integer_walk", "tenths_walk", "ratio_3_decimals",
                             "noisy_float"};

// Bytes per point of the 50 hours of `hours`, each one block in `format`.
double BytesPerPoint(const std::vector<std::vector<Point>>& hours, GorillaFormat format) {
  size_t bytes = 0, points = 0;
  for (const auto& h : hours) {
    bytes += EncodeGorillaBlock(kBucket, h, format)->size();
    points += h.size();
  }
  return static_cast<double>(bytes) / static_cast<double>(points);
}

void BM_BytesPerPoint_RegularGauge(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  std::vector<std::vector<Point>> hours;
  for (uint64_t s = 0; s < 50; ++s) hours.push_back(GaugeHour(kind, s));
  size_t points = 0;
  for (auto _ : state) {
    points = 0;
    for (const auto& h : hours) {
      auto block = EncodeGorillaBlock(kBucket, h);
      benchmark::DoNotOptimize(block);
      points += h.size();
    }
  }
  state.SetLabel(kGaugeNames[kind]);
  state.counters["bytes_per_point"] = BytesPerPoint(hours, GorillaFormat::kSmallest);
  state.counters["xor_only_bpp"] = BytesPerPoint(hours, GorillaFormat::kXorOnly);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * points));
}
BENCHMARK(BM_BytesPerPoint_RegularGauge)->DenseRange(0, 4);

// A fixture of tests/bidder/telemetry/fixtures (format: a "series <name>..."
// line, then "<unix seconds> <value>..." per sample, "-" for no value; see
// loadtest/record-proc-fixture.sh), keeping a sample only when at least
// `every_s` seconds have passed since the last one kept.
std::map<std::string, std::vector<Point>> ReadFixture(const std::string& file, int64_t every_s) {
  std::ifstream in(std::string(RTB_TELEMETRY_FIXTURES_DIR) + "/" + file);
  std::map<std::string, std::vector<Point>> series;
  std::vector<std::string> names;
  std::string line;
  int64_t last_kept = std::numeric_limits<int64_t>::min();
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    if (line.rfind("series ", 0) == 0) {
      std::string name;
      fields >> name;  // "series"
      while (fields >> name) names.push_back(name);
      continue;
    }
    int64_t t;
    if (!(fields >> t) || t < last_kept + every_s) continue;
    last_kept = t;
    std::string value;
    for (size_t i = 0; i < names.size() && fields >> value; ++i) {
      if (value != "-") series[names[i]].push_back({t, std::stod(value)});
    }
  }
  return series;
}

// Counters (cumulative) as the fixtures name them; the rest are gauges.
bool IsCounter(const std::string& name) {
  return name.rfind("proc.stat.cpu.", 0) == 0 || name == "proc.stat.ctxt" ||
         name == "proc.stat.processes" || name.find("_total") != std::string::npos;
}

struct FixtureCase {
  const char* file;
  int64_t every_s;
};
constexpr FixtureCase kFixtureCases[] = {
    {"proc_1s_3660.txt", 1}, {"proc_1s_3660.txt", 10}, {"bidder_10s.txt", 10}};

// Bytes per point of a fixture packed as the packer packs it: one block per
// series per hour bucket.
void BM_BytesPerPoint_Fixture(benchmark::State& state) {
  const FixtureCase& c = kFixtureCases[state.range(0)];
  const auto series = ReadFixture(c.file, c.every_s);
  if (series.empty()) {
    state.SkipWithError((std::string("fixture missing or empty: ") + c.file).c_str());
    return;
  }
  // [0] gauges, [1] counters; the XOR-only encoding apart.
  size_t bytes[2] = {0, 0}, xor_bytes[2] = {0, 0}, points[2] = {0, 0}, blocks = 0,
         scaled_blocks = 0;
  for (auto _ : state) {
    bytes[0] = bytes[1] = points[0] = points[1] = blocks = scaled_blocks = 0;
    for (const auto& [name, pts] : series) {
      std::map<int64_t, std::vector<Point>> buckets;
      for (const Point& p : pts) buckets[p.timestamp - p.timestamp % 3600].push_back(p);
      for (const auto& [bucket, b] : buckets) {
        auto block = EncodeGorillaBlock(bucket, b);
        benchmark::DoNotOptimize(block);
        bytes[IsCounter(name)] += block->size();
        points[IsCounter(name)] += b.size();
        ++blocks;
        scaled_blocks += static_cast<uint8_t>((*block)[0]) == kGorillaScaledVersion;
      }
    }
  }
  for (const auto& [name, pts] : series) {
    std::map<int64_t, std::vector<Point>> buckets;
    for (const Point& p : pts) buckets[p.timestamp - p.timestamp % 3600].push_back(p);
    for (const auto& [bucket, b] : buckets) {
      xor_bytes[IsCounter(name)] += EncodeGorillaBlock(bucket, b, GorillaFormat::kXorOnly)->size();
    }
  }
  auto ratio = [](size_t b, size_t p) {
    return p == 0 ? 0.0 : static_cast<double>(b) / static_cast<double>(p);
  };
  state.SetLabel(std::string(c.file) + ", a point every " + std::to_string(c.every_s) + " s");
  state.counters["series"] = static_cast<double>(series.size());
  state.counters["points"] = static_cast<double>(points[0] + points[1]);
  state.counters["blocks"] = static_cast<double>(blocks);
  state.counters["bytes_per_point"] = ratio(bytes[0] + bytes[1], points[0] + points[1]);
  state.counters["gauges_bpp"] = ratio(bytes[0], points[0]);
  state.counters["counters_bpp"] = ratio(bytes[1], points[1]);
  state.counters["scaled_blocks"] = static_cast<double>(scaled_blocks);
  state.counters["xor_only_bpp"] = ratio(xor_bytes[0] + xor_bytes[1], points[0] + points[1]);
  state.counters["xor_only_gauges_bpp"] = ratio(xor_bytes[0], points[0]);
}
BENCHMARK(BM_BytesPerPoint_Fixture)->DenseRange(0, std::size(kFixtureCases) - 1);

// range(0): the gauge kind; range(1): 0 the smallest format, 1 XOR only.
GorillaFormat FormatArg(const benchmark::State& state) {
  return state.range(1) == 0 ? GorillaFormat::kSmallest : GorillaFormat::kXorOnly;
}
std::string BlockLabel(const benchmark::State& state, const std::string& block) {
  return std::string(kGaugeNames[state.range(0)]) + ", version " +
         std::to_string(static_cast<int>(block[0]));
}

void BM_GorillaEncode(benchmark::State& state) {
  const auto hour = GaugeHour(static_cast<int>(state.range(0)), 1);
  for (auto _ : state) {
    auto block = EncodeGorillaBlock(kBucket, hour, FormatArg(state));
    benchmark::DoNotOptimize(block);
  }
  state.SetLabel(BlockLabel(state, *EncodeGorillaBlock(kBucket, hour, FormatArg(state))));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * hour.size()));
}
BENCHMARK(BM_GorillaEncode)->ArgsProduct({{1, 4}, {0, 1}});

void BM_GorillaDecode(benchmark::State& state) {
  const auto hour = GaugeHour(static_cast<int>(state.range(0)), 1);
  const std::string block = *EncodeGorillaBlock(kBucket, hour, FormatArg(state));
  std::vector<Point> out;
  out.reserve(hour.size());
  for (auto _ : state) {
    out.clear();
    benchmark::DoNotOptimize(DecodeGorillaBlock(kBucket, block, &out));
    benchmark::DoNotOptimize(out.data());
  }
  state.SetLabel(BlockLabel(state, block));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * hour.size()));
}
BENCHMARK(BM_GorillaDecode)->ArgsProduct({{0, 1, 2, 3, 4}, {0, 1}});

// 50 series x 7 days at a 10-second interval, written through Telemetry,
// packed, then aged three days so the raw cells have expired (as they have for
// data older than two days): the raw query decodes packed blocks.
struct QueryFixture {
  static constexpr int kSeries = 50;
  static constexpr int64_t kDays = 7;
  QueryFixture() {
    dir = (std::filesystem::temp_directory_path() /
           ("rtb-telemetry-bench-" + std::to_string(::getpid())))
              .string();
    std::filesystem::remove_all(dir);
    start = kBucket - kDays * 86400;
    clock = std::make_shared<storage::ManualClock>(kBucket * 1000);
    storage::EmbeddedStoreOptions o;
    o.path = dir;
    o.clock = clock;
    o.default_durability = storage::Durability::kSkipWal;
    store = *storage::OpenEmbeddedStore(o);
    (void)storage::ApplySchemas(*store, storage::BidderTables());
    TelemetryOptions options;
    options.clock = clock;
    options.registry = &registry;
    telemetry = *Telemetry::Create(*store, options);
    std::vector<DataPoint> batch;
    std::mt19937_64 rng(5);
    for (int s = 0; s < kSeries; ++s) {
      double v = 100;
      for (int64_t t = start; t < kBucket; t += 10) {
        v += static_cast<double>(static_cast<int>(rng() % 5) - 2);
        batch.push_back({"bench.gauge", {{"host", "h" + std::to_string(s)}, {"dc", "fra"}}, t, v});
        if (batch.size() == 20000) {
          telemetry->Write(batch);
          batch.clear();
        }
      }
    }
    telemetry->Write(batch);
    clock->Advance(3600 * 1000);
    auto packed = telemetry->Pack();
    pack_rows = packed.ok() ? packed->rows_packed : -1;
    clock->Advance(3 * 86400 * 1000);
    (void)store->MajorCompact(storage::kMetricsTable);
  }
  ~QueryFixture() {
    telemetry.reset();
    store.reset();
    std::filesystem::remove_all(dir);
  }
  std::string dir;
  int64_t start = 0;
  int64_t pack_rows = 0;
  std::shared_ptr<storage::ManualClock> clock;
  std::unique_ptr<storage::Store> store;
  prometheus::Registry registry;
  std::unique_ptr<Telemetry> telemetry;
};

QueryFixture& Fixture() {
  static QueryFixture* fixture = new QueryFixture();
  return *fixture;
}

void BM_Query7Days5MinSteps50Series(benchmark::State& state) {
  QueryFixture& f = Fixture();
  TimeSeriesQuery q;
  q.metric = "bench.gauge";
  q.tags = {{"dc", "fra"}};
  q.start_s = f.start;
  q.end_s = kBucket - 1;
  q.step_s = 300;
  q.downsample = Aggregator::kAvg;
  q.aggregator = Aggregator::kAvg;
  if (state.range(0) == 0) q.force_resolution = Resolution::kRaw;
  QueryResult last;
  for (auto _ : state) {
    auto r = f.telemetry->Query(q);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    last = *std::move(r);
  }
  state.SetLabel(state.range(0) == 0 ? "raw (packed blocks)" : "1-minute rollups");
  state.counters["series"] = static_cast<double>(last.series);
  state.counters["rows_read"] = static_cast<double>(last.rows_read);
  state.counters["points_read"] = static_cast<double>(last.points_read);
  state.counters["steps"] =
      last.groups.empty() ? 0 : static_cast<double>(last.groups[0].points.size());
  state.counters["rows_packed_at_setup"] = static_cast<double>(f.pack_rows);
}
BENCHMARK(BM_Query7Days5MinSteps50Series)
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

}  // namespace
}  // namespace rtb::bidder::telemetry

BENCHMARK_MAIN();
