// Telemetry on real HBase through its Thrift2 gateway (RTB_HBASE_THRIFT):
// metric ids by CheckAndMutate, raw writes, the packer's time-range scan on
// HBase's cell timestamps, late points, rollups and the query router. HBase's
// clock cannot be moved, so every point is dated within the last hours of
// real time and each run uses metric names of its own (the tables are the
// production ones, shared with other runs, and are left in place).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bidder/telemetry/gorilla.h"
#include "bidder/telemetry/internal/keys.h"
#include "bidder/telemetry/telemetry.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/schemas.h"
#include "tests/storage/test_hbase.h"

namespace rtb::bidder::telemetry {
namespace {

class TelemetryHBaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RTB_SKIP_OR_FAIL_WITHOUT_TEST_HBASE();
    auto store = rtb::testing::OpenTestHBase();
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    for (storage::TableSchema schema : storage::BidderTables()) {
      if (schema.name != storage::kMetricsTable && schema.name != storage::kMetricIdsTable &&
          schema.name != storage::kMetricSeriesTable &&
          schema.name != storage::kMetricRollupsTable) {
        continue;
      }
      auto exists = store_->TableExists(schema.name);
      ASSERT_TRUE(exists.ok()) << exists.status();
      if (*exists) continue;
      // One region: the production split keys would cost seconds per table.
      schema.split_keys.clear();
      schema.region_replication = 1;
      absl::Status s = store_->CreateTable(schema);
      ASSERT_TRUE(s.ok() || s.code() == absl::StatusCode::kAlreadyExists) << schema.name << s;
    }
    now_s_ = storage::SystemClock()->NowMillis() / 1000;
    // A closed bucket: the hour that began 3 to 4 hours ago.
    hour_ = (now_s_ - 3 * 3600) / 3600 * 3600;
    prefix_ = "rtb_test." + std::to_string(::getpid()) + "." + std::to_string(now_s_) + ".";
    telemetry_ = NewTelemetry(registry_);
  }

  std::unique_ptr<Telemetry> NewTelemetry(prometheus::Registry& registry) {
    TelemetryOptions options;
    options.registry = &registry;
    auto telemetry = Telemetry::Create(*store_, options);
    EXPECT_TRUE(telemetry.ok()) << telemetry.status();
    return telemetry.ok() ? *std::move(telemetry) : nullptr;
  }

  // The packed block of `metric` (no tags) for the bucket starting at `bucket`.
  std::string PackedBlock(const std::string& metric, int64_t bucket) {
    const uint64_t series = internal::SeriesId(internal::CanonicalSeries(metric, {}));
    storage::Scan scan;
    scan.columns.push_back({"p", std::nullopt});
    scan.limit = 100000;
    auto rows = store_->Scan(storage::kMetricsTable, scan);
    EXPECT_TRUE(rows.ok()) << rows.status();
    if (!rows.ok()) return "";
    for (const storage::RowResult& row : *rows) {
      auto key = internal::DecodeRowKey(row.row);
      if (key && key->series_id == series && key->bucket_start == bucket) {
        return std::string(row.Value("p", "b").value_or(""));
      }
    }
    return "";
  }

  std::unique_ptr<storage::Store> store_;
  prometheus::Registry registry_;
  std::unique_ptr<Telemetry> telemetry_;
  int64_t now_s_ = 0;
  int64_t hour_ = 0;
  std::string prefix_;
};

TEST_F(TelemetryHBaseTest, TwoRegistriesNeverShareAMetricId) {
  prometheus::Registry other_registry;
  std::unique_ptr<Telemetry> other = NewTelemetry(other_registry);
  ASSERT_NE(other, nullptr);
  // Interleaved first writes of distinct metrics from two processes' worth of
  // registries: every metric must read back only its own points.
  for (int i = 0; i < 6; ++i) {
    Telemetry& writer = i % 2 == 0 ? *telemetry_ : *other;
    std::vector<DataPoint> points = {{prefix_ + "m" + std::to_string(i), {}, now_s_ - 60, 1.0 * i}};
    ASSERT_EQ(writer.Write(points).success, 1);
  }
  for (int i = 0; i < 6; ++i) {
    TimeSeriesQuery q;
    q.metric = prefix_ + "m" + std::to_string(i);
    q.start_s = now_s_ - 120;
    q.end_s = now_s_;
    auto result = (i % 2 == 0 ? *other : *telemetry_).Query(q);
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->groups.size(), 1u) << q.metric;
    ASSERT_EQ(result->groups[0].points.size(), 1u) << q.metric;
    EXPECT_EQ(result->groups[0].points[0].value, 1.0 * i) << q.metric;
  }
}

TEST_F(TelemetryHBaseTest, PacksAClosedHourAndAgreesWithRawAcrossResolutions) {
  const std::string metric = prefix_ + "gauge";
  std::vector<DataPoint> points;
  for (int64_t t = hour_; t < hour_ + 3600; t += 10) {
    points.push_back({metric, {}, t, std::floor(50 + 20 * std::sin(t / 600.0))});
  }
  const WriteSummary written = telemetry_->Write(points);
  ASSERT_EQ(written.success, 360) << (written.errors.empty() ? "" : written.errors[0]);

  auto packed = telemetry_->Pack();
  ASSERT_TRUE(packed.ok()) << packed.status();
  EXPECT_GE(packed->rows_packed, 1);
  const std::string block = PackedBlock(metric, hour_);
  ASSERT_FALSE(block.empty()) << "the packer found the row by its cell timestamps";
  auto decoded = DecodeGorillaBlock(hour_, block);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->size(), 360u);
  EXPECT_EQ((*decoded)[7].timestamp, hour_ + 70);
  EXPECT_EQ((*decoded)[7].value, points[7].value);

  auto again = telemetry_->Pack();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PackedBlock(metric, hour_), block) << "same bytes on rerun";

  for (int64_t step : {int64_t{300}, int64_t{3600}}) {
    TimeSeriesQuery q;
    q.metric = metric;
    q.start_s = hour_;
    q.end_s = hour_ + 3599;
    q.step_s = step;
    auto rolled = telemetry_->Query(q);
    q.force_resolution = Resolution::kRaw;
    auto raw = telemetry_->Query(q);
    ASSERT_TRUE(rolled.ok() && raw.ok());
    EXPECT_EQ(rolled->resolution, ChooseResolution(step));
    ASSERT_EQ(rolled->groups.size(), 1u);
    ASSERT_EQ(raw->groups.size(), 1u);
    ASSERT_EQ(rolled->groups[0].points.size(), static_cast<size_t>(3600 / step));
    ASSERT_EQ(raw->groups[0].points.size(), rolled->groups[0].points.size());
    for (size_t i = 0; i < raw->groups[0].points.size(); ++i) {
      EXPECT_DOUBLE_EQ(rolled->groups[0].points[i].value, raw->groups[0].points[i].value)
          << "step " << step << " #" << i;
    }
  }
}

TEST_F(TelemetryHBaseTest, LatePointMergesAtOnceAndIsRepackedByTheNextRun) {
  const std::string metric = prefix_ + "late";
  std::vector<DataPoint> first = {{metric, {}, hour_ + 10, 1}, {metric, {}, hour_ + 20, 2}};
  ASSERT_EQ(telemetry_->Write(first).success, 2);
  ASSERT_TRUE(telemetry_->Pack().ok());
  ASSERT_EQ(DecodeGorillaBlock(hour_, PackedBlock(metric, hour_))->size(), 2u);

  std::vector<DataPoint> late = {{metric, {}, hour_ + 15, 1.5}, {metric, {}, hour_ + 20, 20}};
  ASSERT_EQ(telemetry_->Write(late).success, 2);
  TimeSeriesQuery q;
  q.metric = metric;
  q.start_s = hour_;
  q.end_s = hour_ + 3599;
  auto merged = telemetry_->Query(q);
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_EQ(merged->groups.size(), 1u);
  ASSERT_EQ(merged->groups[0].points.size(), 3u) << "raw cells merge over the block at once";
  EXPECT_EQ(merged->groups[0].points[2].value, 20) << "raw wins over the packed point";

  auto repack = telemetry_->Pack();
  ASSERT_TRUE(repack.ok()) << repack.status();
  auto packed = DecodeGorillaBlock(hour_, PackedBlock(metric, hour_));
  ASSERT_TRUE(packed.ok());
  ASSERT_EQ(packed->size(), 3u) << "the late cells' timestamps led the packer back to the row";
  EXPECT_EQ((*packed)[1].value, 1.5);
  EXPECT_EQ((*packed)[2].value, 20);
}

}  // namespace
}  // namespace rtb::bidder::telemetry
