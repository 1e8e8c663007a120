#include "bidder/telemetry/telemetry.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "bidder/telemetry/internal/keys.h"
#include "gtest/gtest.h"
#include "metrics/sharded.h"
#include "storage/schemas.h"
#include "telemetry_fixture.h"
#include "tests/storage/hooked_store.h"

namespace rtb::bidder::telemetry {
namespace {

using testing::kNowS;
using testing::TelemetryStoreHarness;

double MetricValue(prometheus::Registry& registry, const std::string& name,
                   const std::map<std::string, std::string>& labels = {}) {
  for (const prometheus::MetricFamily& family : metrics::Collect(registry)) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      std::map<std::string, std::string> got;
      for (const auto& label : metric.label) got[label.name] = label.value;
      if (got != labels) continue;
      return family.type == prometheus::MetricType::Gauge ? metric.gauge.value
                                                          : metric.counter.value;
    }
  }
  return -1;
}

class TelemetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    h_ = std::make_unique<TelemetryStoreHarness>(
        ::testing::UnitTest::GetInstance()->current_test_info()->name(), Options());
    ASSERT_TRUE(h_->status.ok()) << h_->status;
  }
  virtual TelemetryOptions Options() { return {}; }

  WriteSummary Write(const std::string& metric, std::map<std::string, std::string> tags, int64_t t,
                     double v) {
    std::vector<DataPoint> points = {{metric, std::move(tags), t, v}};
    return h_->telemetry->Write(points);
  }
  void AdvanceTo(int64_t s) { h_->clock->Set(s * 1000); }
  std::string PackedBlock(const std::string& metric, const std::map<std::string, std::string>& tags,
                          int64_t bucket) {
    storage::Scan scan;
    scan.prefix = std::string();
    scan.columns.push_back({"p", std::nullopt});
    scan.limit = 1000;
    auto rows = h_->store->Scan(storage::kMetricsTable, scan);
    EXPECT_TRUE(rows.ok());
    const uint64_t sid = internal::SeriesId(internal::CanonicalSeries(metric, tags));
    for (const auto& row : *rows) {
      auto key = internal::DecodeRowKey(row.row);
      if (key && key->series_id == sid && key->bucket_start == bucket) {
        return std::string(row.Value("p", "b").value_or(""));
      }
    }
    return "";
  }

  std::unique_ptr<TelemetryStoreHarness> h_;
};

TEST_F(TelemetryTest, RowKeyLayoutIsSaltMetricSeriesBucket) {
  const internal::RowKey key{7, 0x0102030405060708ull, 1791072000};
  const std::string row = internal::EncodeRowKey(key);
  ASSERT_EQ(row.size(), 17u);
  EXPECT_EQ(static_cast<uint8_t>(row[0]), 0x08 % 16);
  EXPECT_EQ(row.substr(1, 4), std::string("\0\0\0\x07", 4));
  EXPECT_EQ(row.substr(5, 8), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  auto back = internal::DecodeRowKey(row);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->metric_id, 7u);
  EXPECT_EQ(back->series_id, key.series_id);
  EXPECT_EQ(back->bucket_start, key.bucket_start);
  EXPECT_FALSE(internal::DecodeRowKey(row.substr(1)).has_value());
}

TEST_F(TelemetryTest, SeriesIdIgnoresTagOrderAndIsStable) {
  std::map<std::string, std::string> a = {{"b", "2"}, {"a", "1"}};
  EXPECT_EQ(internal::CanonicalSeries("m", a), "m{a=1,b=2}");
  EXPECT_EQ(internal::ParseCanonicalTags("a=1,b=2"), a);
  // Pinned: ids must not change between builds, or series split in two.
  EXPECT_EQ(internal::SeriesId("m{a=1,b=2}"), internal::SeriesId(std::string("m{a=1,b=2}")));
  EXPECT_NE(internal::SeriesId("m{a=1,b=2}"), internal::SeriesId("m{a=1,b=3}"));
}

TEST_F(TelemetryTest, MetricIdsAreSequentialAndCached) {
  EXPECT_EQ(Write("m.one", {}, kNowS, 1).success, 1);
  EXPECT_EQ(Write("m.two", {}, kNowS, 1).success, 1);
  EXPECT_EQ(Write("m.one", {{"x", "y"}}, kNowS, 1).success, 1);
  auto get = [&](const std::string& name) {
    storage::Get g;
    g.row = "n" + name;
    auto row = h_->store->Get(storage::kMetricIdsTable, g);
    return internal::DecodeUint32(row->Value("i", "id").value_or("")).value_or(0);
  };
  EXPECT_EQ(get("m.one"), 1u);
  EXPECT_EQ(get("m.two"), 2u);
  auto names = h_->telemetry->Suggest(SuggestType::kMetrics, "m.", 10);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"m.one", "m.two"}));
  auto keys = h_->telemetry->Suggest(SuggestType::kTagKeys, "", 10);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"x"}));
}

TEST_F(TelemetryTest, TwoRegistriesOnOneStoreNeverShareAMetricId) {
  TelemetryOptions o;
  o.clock = h_->clock;
  prometheus::Registry other_registry;
  o.registry = &other_registry;
  auto other = Telemetry::Create(*h_->store, o);
  ASSERT_TRUE(other.ok());
  std::vector<DataPoint> a = {{"from.a", {}, kNowS, 1}};
  std::vector<DataPoint> b = {{"from.b", {}, kNowS, 1}};
  ASSERT_EQ(h_->telemetry->Write(a).success, 1);
  ASSERT_EQ((*other)->Write(b).success, 1);
  ASSERT_EQ((*other)->Write(a).success, 1);  // reads a's id, does not assign one
  auto q = [&](Telemetry& t, const std::string& metric) {
    TimeSeriesQuery query;
    query.metric = metric;
    query.start_s = kNowS;
    query.end_s = kNowS;
    auto r = t.Query(query);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->series : -1;
  };
  EXPECT_EQ(q(*h_->telemetry, "from.a"), 1);
  EXPECT_EQ(q(*h_->telemetry, "from.b"), 1);
}

TEST_F(TelemetryTest, IdLikeTagValuesAreRefusedWithAReasonAndAMetric) {
  auto s =
      Write("bidder.requests", {{"request", "3f2c8a1e-9b7d-4c2a-8e1f-0a9b8c7d6e5f"}}, kNowS, 1);
  EXPECT_EQ(s.failed, 1);
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_NE(s.errors[0].find("looks like a request or user id"), std::string::npos) << s.errors[0];
  EXPECT_EQ(Write("bidder.requests", {{"user", "123456789012345"}}, kNowS, 1).failed, 1);
  EXPECT_EQ(Write("bidder.requests", {{"tok", "aZ3kQ9xP2mL7vB4nR8tY"}}, kNowS, 1).failed, 1);
  EXPECT_EQ(
      Write("bidder.requests", {{"exchange", "openx-frankfurt"}, {"campaign", "1042"}}, kNowS, 1)
          .success,
      1);
  EXPECT_EQ(MetricValue(h_->registry, "bidder_telemetry_points_refused_total",
                        {{"reason", "id_like_tag"}}),
            3);
  EXPECT_EQ(Write("bad name", {}, kNowS, 1).failed, 1);
  EXPECT_EQ(Write("m", {}, kNowS + 3600, 1).failed, 1) << "an hour ahead of the clock";
}

class LimitedTelemetryTest : public TelemetryTest {
  TelemetryOptions Options() override {
    TelemetryOptions o;
    o.max_series = 5;
    o.max_series_per_metric = 3;
    return o;
  }
};

TEST_F(LimitedTelemetryTest, CardinalityLimitsRefuseNewSeriesButKeepKnownOnes) {
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(Write("a", {{"h", std::to_string(i)}}, kNowS, 1).success, 1);
  auto refused = Write("a", {{"h", "3"}}, kNowS, 1);
  EXPECT_EQ(refused.failed, 1);
  EXPECT_NE(refused.errors[0].find("max_series_per_metric"), std::string::npos)
      << refused.errors[0];
  EXPECT_EQ(Write("a", {{"h", "0"}}, kNowS + 10, 2).success, 1) << "known series keep writing";
  EXPECT_EQ(Write("b", {{"h", "0"}}, kNowS, 1).success, 1);
  EXPECT_EQ(Write("b", {{"h", "1"}}, kNowS, 1).success, 1);
  auto total = Write("c", {}, kNowS, 1);
  EXPECT_EQ(total.failed, 1);
  EXPECT_NE(total.errors[0].find("telemetry.max_series"), std::string::npos) << total.errors[0];
  EXPECT_EQ(MetricValue(h_->registry, "bidder_telemetry_points_refused_total",
                        {{"reason", "metric_series_limit"}}),
            1);
  EXPECT_EQ(MetricValue(h_->registry, "bidder_telemetry_points_refused_total",
                        {{"reason", "series_limit"}}),
            1);
  EXPECT_EQ(MetricValue(h_->registry, "bidder_telemetry_series"), 5);
}

TEST_F(TelemetryTest, PackerPacksClosedBucketsOnlyAndIsIdempotent) {
  const int64_t hour = kNowS;  // an hour boundary
  std::vector<DataPoint> points;
  for (int64_t t = hour; t < hour + 3600; t += 10)
    points.push_back({"g", {{"h", "a"}}, t, std::sin(t / 600.0)});
  AdvanceTo(hour + 3599);
  ASSERT_EQ(h_->telemetry->Write(points).success, 360);

  auto open = h_->telemetry->Pack();
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_EQ(open->rows_packed, 0) << "the bucket is still open for late points";

  AdvanceTo(hour + 3600 + 301);
  auto first = h_->telemetry->Pack();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->rows_packed, 1);
  EXPECT_EQ(first->points_packed, 360);
  const std::string block = PackedBlock("g", {{"h", "a"}}, hour);
  ASSERT_FALSE(block.empty());
  auto decoded = DecodeGorillaBlock(hour, block);
  ASSERT_TRUE(decoded.ok());
  ASSERT_EQ(decoded->size(), 360u);
  EXPECT_EQ((*decoded)[5].timestamp, hour + 50);
  EXPECT_EQ((*decoded)[5].value, std::sin((hour + 50) / 600.0));
  EXPECT_GT(MetricValue(h_->registry, "bidder_telemetry_packed_bytes_per_point"), 0);
  EXPECT_EQ(MetricValue(h_->registry, "bidder_telemetry_oldest_unpacked_bucket_age_seconds"), 0);

  AdvanceTo(hour + 3600 + 400);
  auto second = h_->telemetry->Pack();
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->rows_already_packed, 1) << "the lookback window finds the row again";
  EXPECT_EQ(second->rows_packed, 0) << "and leaves it: its block holds every point";
  EXPECT_EQ(PackedBlock("g", {{"h", "a"}}, hour), block) << "same bytes on rerun";
}

TEST_F(TelemetryTest, APackCutOffBetweenRollupsAndBlockIsRedoneByTheNextRun) {
  const int64_t hour = kNowS;
  rtb::testing::HookedStore hooked(*h_->store);
  prometheus::Registry registry;
  TelemetryOptions options;
  options.clock = h_->clock;
  options.registry = &registry;
  auto telemetry = Telemetry::Create(hooked, options);
  ASSERT_TRUE(telemetry.ok()) << telemetry.status();
  std::vector<DataPoint> points;
  for (int64_t t = hour; t < hour + 3600; t += 60) points.push_back({"cut", {}, t, 2});
  AdvanceTo(hour + 3599);
  ASSERT_EQ((*telemetry)->Write(points).success, 60);

  auto rollup_rows = [&] {
    storage::Scan scan;
    scan.limit = 10;
    auto rows = h_->store->Scan(storage::kMetricRollupsTable, scan);
    EXPECT_TRUE(rows.ok());
    return rows.ok() ? rows->size() : 0;
  };
  // A run dies at each write in turn: the rollups, then the block after them.
  AdvanceTo(hour + 3600 + 301);
  for (std::string_view cut_table : {storage::kMetricRollupsTable, storage::kMetricsTable}) {
    hooked.SetWriteHook([cut_table](std::string_view table, std::string_view op) {
      return table == cut_table && op == "Put" ? absl::UnavailableError("cut off")
                                               : absl::OkStatus();
    });
    EXPECT_FALSE((*telemetry)->Pack().ok()) << cut_table;
    EXPECT_EQ(PackedBlock("cut", {}, hour), "") << "no block before its rollups";
  }
  EXPECT_EQ(rollup_rows(), 1u) << "the second run wrote the rollups";

  hooked.SetWriteHook(nullptr);
  AdvanceTo(hour + 3600 + 400);
  auto again = (*telemetry)->Pack();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->rows_packed, 1) << "no block yet: the row is packed, not taken as done";
  EXPECT_EQ(DecodeGorillaBlock(hour, PackedBlock("cut", {}, hour))->size(), 60u);
  TimeSeriesQuery q;
  q.metric = "cut";
  q.start_s = hour;
  q.end_s = hour + 3599;
  q.step_s = 3600;
  q.downsample = Aggregator::kSum;
  auto hourly = (*telemetry)->Query(q);
  ASSERT_TRUE(hourly.ok()) << hourly.status();
  EXPECT_EQ(hourly->resolution, Resolution::kHour);
  ASSERT_EQ(hourly->groups.size(), 1u);
  EXPECT_EQ(hourly->groups[0].points[0].value, 120);
}

TEST_F(TelemetryTest, LatePointIsReadImmediatelyAndRepackedByTheNextRun) {
  const int64_t hour = kNowS;
  AdvanceTo(hour + 100);
  ASSERT_EQ(Write("late", {}, hour + 10, 1).success, 1);
  ASSERT_EQ(Write("late", {}, hour + 20, 2).success, 1);
  AdvanceTo(hour + 3600 + 301);
  ASSERT_TRUE(h_->telemetry->Pack().ok());
  ASSERT_EQ(DecodeGorillaBlock(hour, PackedBlock("late", {}, hour))->size(), 2u);

  // Hours later: a late point and a correction of a packed one.
  AdvanceTo(hour + 5 * 3600);
  ASSERT_TRUE(h_->telemetry->Pack().ok());
  ASSERT_EQ(Write("late", {}, hour + 15, 1.5).success, 1);
  ASSERT_EQ(Write("late", {}, hour + 20, 20).success, 1);
  TimeSeriesQuery q;
  q.metric = "late";
  q.start_s = hour;
  q.end_s = hour + 3599;
  auto before = h_->telemetry->Query(q);
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_EQ(before->groups.size(), 1u);
  ASSERT_EQ(before->groups[0].points.size(), 3u) << "raw cells merge over the block at once";
  EXPECT_EQ(before->groups[0].points[1].value, 1.5);
  EXPECT_EQ(before->groups[0].points[2].value, 20) << "raw wins over the packed point";

  AdvanceTo(hour + 5 * 3600 + 60);
  auto repack = h_->telemetry->Pack();
  ASSERT_TRUE(repack.ok());
  EXPECT_EQ(repack->rows_packed, 1) << "found by the time-range scan on cell timestamps";
  auto packed = DecodeGorillaBlock(hour, PackedBlock("late", {}, hour));
  ASSERT_TRUE(packed.ok());
  ASSERT_EQ(packed->size(), 3u);
  EXPECT_EQ((*packed)[2].value, 20);

  // Rollups follow the repack.
  q.step_s = 3600;
  q.downsample = Aggregator::kSum;
  auto hourly = h_->telemetry->Query(q);
  ASSERT_TRUE(hourly.ok());
  EXPECT_EQ(hourly->resolution, Resolution::kHour);
  ASSERT_EQ(hourly->groups[0].points.size(), 1u);
  EXPECT_EQ(hourly->groups[0].points[0].value, 1 + 1.5 + 20);
}

TEST(ResolutionRouterTest, PicksTheCoarsestResolutionThatTilesTheStep) {
  EXPECT_EQ(ChooseResolution(0), Resolution::kRaw);
  EXPECT_EQ(ChooseResolution(10), Resolution::kRaw);
  EXPECT_EQ(ChooseResolution(90), Resolution::kRaw);
  EXPECT_EQ(ChooseResolution(60), Resolution::kMinute);
  EXPECT_EQ(ChooseResolution(300), Resolution::kMinute);
  EXPECT_EQ(ChooseResolution(1800), Resolution::kMinute);
  EXPECT_EQ(ChooseResolution(3600), Resolution::kHour);
  EXPECT_EQ(ChooseResolution(86400), Resolution::kHour);
  EXPECT_EQ(ChooseResolution(5400), Resolution::kMinute);
}

TEST_F(TelemetryTest, RollupAndRawQueriesAgreeAcrossSeriesAndAggregators) {
  const int64_t start = kNowS;
  std::vector<DataPoint> points;
  for (int host = 0; host < 3; ++host) {
    for (int64_t t = start; t < start + 6 * 3600; t += 10) {
      points.push_back({"cpu",
                        {{"host", "h" + std::to_string(host)}, {"dc", host < 2 ? "fra" : "ams"}},
                        t,
                        static_cast<double>((t / 10) % 17 + host)});
    }
  }
  AdvanceTo(start + 6 * 3600);
  ASSERT_EQ(h_->telemetry->Write(points).failed, 0);
  AdvanceTo(start + 7 * 3600);
  ASSERT_TRUE(h_->telemetry->Pack().ok());
  // The last hour is still open: queries read it raw under the rollups.
  for (Aggregator down : {Aggregator::kAvg, Aggregator::kSum, Aggregator::kMin, Aggregator::kMax,
                          Aggregator::kCount}) {
    for (Aggregator across : {Aggregator::kAvg, Aggregator::kSum, Aggregator::kMax}) {
      TimeSeriesQuery q;
      q.metric = "cpu";
      q.tags = {{"dc", "fra"}};
      q.start_s = start;
      q.end_s = start + 6 * 3600 - 1;
      q.step_s = 300;
      q.downsample = down;
      q.aggregator = across;
      auto rolled = h_->telemetry->Query(q);
      q.force_resolution = Resolution::kRaw;
      auto raw = h_->telemetry->Query(q);
      ASSERT_TRUE(rolled.ok() && raw.ok());
      EXPECT_EQ(rolled->resolution, Resolution::kMinute);
      EXPECT_EQ(rolled->series, 2);
      ASSERT_EQ(rolled->groups.size(), 1u);
      ASSERT_EQ(raw->groups.size(), 1u);
      EXPECT_EQ(rolled->groups[0].aggregated_tags, std::vector<std::string>{"host"});
      EXPECT_EQ(rolled->groups[0].tags, (std::map<std::string, std::string>{{"dc", "fra"}}));
      ASSERT_EQ(rolled->groups[0].points.size(), 72u);
      ASSERT_EQ(raw->groups[0].points.size(), 72u);
      for (size_t i = 0; i < 72; ++i) {
        EXPECT_EQ(rolled->groups[0].points[i].timestamp, raw->groups[0].points[i].timestamp);
        EXPECT_DOUBLE_EQ(rolled->groups[0].points[i].value, raw->groups[0].points[i].value)
            << AggregatorName(down) << "/" << AggregatorName(across) << " step " << i;
      }
      EXPECT_LT(rolled->points_read, raw->points_read);
    }
  }
}

TEST_F(TelemetryTest, GroupByWildcardAndAlternatives) {
  std::vector<DataPoint> points;
  for (int host = 0; host < 4; ++host) {
    points.push_back(
        {"req", {{"host", "h" + std::to_string(host)}}, kNowS, static_cast<double>(host)});
  }
  ASSERT_EQ(h_->telemetry->Write(points).failed, 0);
  TimeSeriesQuery q;
  q.metric = "req";
  q.start_s = kNowS - 10;
  q.end_s = kNowS + 10;
  q.tags = {{"host", "*"}};
  auto all = h_->telemetry->Query(q);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->groups.size(), 4u);
  q.tags = {{"host", "h1|h3"}};
  auto two = h_->telemetry->Query(q);
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->groups.size(), 2u);
  EXPECT_EQ(two->groups[1].tags.at("host"), "h3");
  EXPECT_EQ(two->groups[1].points[0].value, 3);
  q.tags = {};
  auto sum = h_->telemetry->Query(q);
  ASSERT_TRUE(sum.ok());
  ASSERT_EQ(sum->groups.size(), 1u);
  EXPECT_EQ(sum->groups[0].points[0].value, 0 + 1 + 2 + 3);
  q.metric = "nope";
  EXPECT_EQ(h_->telemetry->Query(q).status().code(), absl::StatusCode::kNotFound);
}

// Three bidders of a fleet write one counter each under their own instance
// tag, every 10 s but each on its own timer (offsets 0, 3 and 7 s), at 100,
// 200 and 300 requests/s; the second restarts half-way (its counter starts
// again from 0). The fleet's rate is the sum of the per-instance rates:
// 600/s at every raw timestamp (each instance interpolated between its own
// samples) and at every step, the restart included (with dropResets its
// one step is left out, not read as a negative or a huge rate).
TEST_F(TelemetryTest, AFleetsRateIsEachInstancesRateSummed) {
  const int64_t start = kNowS;
  std::vector<DataPoint> points;
  const int offsets[] = {0, 3, 7};
  for (int i = 0; i < 3; ++i) {
    double value = 0;
    for (int64_t t = start + offsets[i]; t < start + 600; t += 10) {
      if (i == 1 && t >= start + 300 && t < start + 310) value = 0;  // a restart
      points.push_back({"bidder_bid_requests_total",
                        {{"instance", "bidder-" + std::to_string(i) + "_8080"}},
                        t,
                        value});
      value += 10.0 * 100 * (i + 1);
    }
  }
  AdvanceTo(start + 700);
  ASSERT_EQ(h_->telemetry->Write(points).failed, 0);
  TimeSeriesQuery q;
  q.metric = "bidder_bid_requests_total";
  q.start_s = start;
  q.end_s = start + 599;
  q.aggregator = Aggregator::kSum;
  q.rate = RateOptions{.counter = true, .drop_resets = true};
  auto raw = h_->telemetry->Query(q);
  ASSERT_TRUE(raw.ok()) << raw.status();
  ASSERT_EQ(raw->groups.size(), 1u);
  EXPECT_EQ(raw->groups[0].aggregated_tags, std::vector<std::string>{"instance"});
  int full = 0;
  for (const Point& p : raw->groups[0].points) {
    // Where all three have a rate (inside every member's span, away from the
    // restart), the sum is the fleet's.
    if (p.timestamp >= start + 17 && p.timestamp <= start + 290) {
      EXPECT_DOUBLE_EQ(p.value, 600) << "at +" << p.timestamp - start << " s";
      ++full;
    }
  }
  EXPECT_GT(full, 50);

  q.step_s = 60;
  q.downsample = Aggregator::kMax;
  auto stepped = h_->telemetry->Query(q);
  ASSERT_TRUE(stepped.ok()) << stepped.status();
  for (const Point& p : stepped->groups[0].points) {
    if (p.timestamp == start + 300) continue;  // bidder-1's restart: its step dropped
    EXPECT_DOUBLE_EQ(p.value, 600) << "step at +" << p.timestamp - start << " s";
  }
  // One instance alone.
  q.tags = {{"instance", "bidder-2_8080"}};
  auto one = h_->telemetry->Query(q);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_FALSE(one->groups[0].points.empty());
  EXPECT_DOUBLE_EQ(one->groups[0].points.back().value, 300);
}

}  // namespace
}  // namespace rtb::bidder::telemetry
