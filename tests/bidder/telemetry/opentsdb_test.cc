#include "bidder/telemetry/opentsdb.h"

#include "bidder/telemetry/self_telemetry.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "telemetry_fixture.h"

namespace rtb::bidder::telemetry {
namespace {

using nlohmann::json;
using testing::kNowS;
using testing::TelemetryStoreHarness;

class OpenTsdbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    h_ = std::make_unique<TelemetryStoreHarness>(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(h_->status.ok()) << h_->status;
  }
  std::unique_ptr<TelemetryStoreHarness> h_;
};

TEST_F(OpenTsdbTest, PutThenQueryWithDownsampleAndGroupBy) {
  json points = json::array();
  for (int i = 0; i < 60; ++i) {
    points.push_back({{"metric", "sys.cpu.user"},
                      {"timestamp", kNowS - 600 + i * 10},
                      {"value", i},
                      {"tags", {{"host", i % 2 ? "web01" : "web02"}, {"dc", "fra"}}}});
  }
  auto put = HandlePut(*h_->telemetry, points.dump());
  ASSERT_TRUE(put.ok()) << put.status();
  EXPECT_EQ(json::parse(*put)["success"], 60);

  auto single =
      HandlePut(*h_->telemetry, R"({"metric":"sys.cpu.user","timestamp":)" +
                                    std::to_string((kNowS - 5) * 1000) +
                                    R"(,"value":"2.5","tags":{"host":"web03","dc":"fra"}})");
  ASSERT_TRUE(single.ok()) << single.status();

  auto q = HandleQuery(*h_->telemetry,
                       R"({"start":"10m-ago","queries":[{"aggregator":"sum","metric":"sys.cpu.user",
      "downsample":"5m-count","tags":{"host":"*"}}]})");
  ASSERT_TRUE(q.ok()) << q.status();
  json out = json::parse(*q);
  ASSERT_EQ(out.size(), 3u) << out.dump();
  EXPECT_EQ(out[0]["tags"]["host"], "web01");
  EXPECT_EQ(out[0]["tags"]["dc"], "fra");
  int64_t total = 0;
  for (const auto& g : out) {
    for (auto it = g["dps"].begin(); it != g["dps"].end(); ++it) total += it.value().get<int64_t>();
  }
  EXPECT_EQ(total, 61);

  auto all = HandleQuery(*h_->telemetry,
                         R"({"start":)" + std::to_string(kNowS - 600) + R"(,"end":)" +
                             std::to_string(kNowS) +
                             R"(,"queries":[{"aggregator":"max","metric":"sys.cpu.user"}]})");
  ASSERT_TRUE(all.ok()) << all.status();
  json one = json::parse(*all);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["aggregateTags"], json::array({"host"}));
  EXPECT_EQ(one[0]["dps"].size(), 61u);
}

TEST_F(OpenTsdbTest, PutReportsEveryBadPointAsA400Summary) {
  auto put = HandlePut(*h_->telemetry, R"([{"metric":"ok","timestamp":1791071990,"value":1},
      {"metric":"ok","value":1},{"metric":"ok","timestamp":1791071990,"value":"x"},
      {"metric":"ok","timestamp":1791071990,"value":1,"tags":{"req":"0123456789abcdef0123"}}])");
  ASSERT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  json summary = json::parse(put.status().message());
  EXPECT_EQ(summary["success"], 1);
  EXPECT_EQ(summary["failed"], 3);
  EXPECT_EQ(summary["errors"].size(), 3u);
  EXPECT_EQ(HandlePut(*h_->telemetry, "{not json").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HandleQuery(*h_->telemetry,
                        R"({"start":"1h-ago","queries":[{"aggregator":"median","metric":"ok"}]})")
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HandleQuery(*h_->telemetry,
                        R"({"start":"1h-ago","queries":[{"aggregator":"sum","metric":"none"}]})")
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

// Puts `values` of one counter series, one every 10 s ending at kNowS - 10.
void PutCounter(Telemetry& telemetry, const std::string& host, const std::vector<double>& values) {
  json points = json::array();
  const int64_t first = kNowS - 10 * static_cast<int64_t>(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    points.push_back({{"metric", "bids.total"},
                      {"timestamp", first + 10 * static_cast<int64_t>(i)},
                      {"value", values[i]},
                      {"tags", {{"host", host}}}});
  }
  auto put = HandlePut(telemetry, points.dump());
  ASSERT_TRUE(put.ok()) << put.status();
}

// The dps of the single group a rate query answers, in time order.
std::vector<double> RateValues(Telemetry& telemetry, const std::string& rate_fields,
                               const std::string& extra = "") {
  auto q = HandleQuery(
      telemetry, R"({"start":"10m-ago","queries":[{"aggregator":"sum","metric":"bids.total",)" +
                     rate_fields + extra + "}]}");
  EXPECT_TRUE(q.ok()) << q.status();
  if (!q.ok()) return {};
  json out = json::parse(*q);
  EXPECT_EQ(out.size(), 1u) << out.dump();
  std::vector<double> values;
  if (out.size() != 1) return values;
  for (auto it = out[0]["dps"].begin(); it != out[0]["dps"].end(); ++it)
    values.push_back(it.value().get<double>());
  return values;
}

TEST_F(OpenTsdbTest, RateIsThePerSecondChangeOfEachSeriesBeforeTheSum) {
  PutCounter(*h_->telemetry, "web01", {100, 200, 400, 400});
  PutCounter(*h_->telemetry, "web02", {0, 10, 20, 30});
  // The first point of each series has no rate; the sum adds the rates.
  EXPECT_EQ(RateValues(*h_->telemetry, R"("rate":true)"), (std::vector<double>{11, 21, 1}));
  // Without rate the same query sums the raw counters.
  EXPECT_EQ(RateValues(*h_->telemetry, R"("rate":false)"),
            (std::vector<double>{100, 210, 420, 430}));
  // Downsampled to 20 s first (max of each step), then the rate per second.
  // web01: max 200 then 400 -> 10/s; web02: max 10 then 30 -> 1/s.
  EXPECT_EQ(RateValues(*h_->telemetry, R"("rate":true,"downsample":"20s-max-none")"),
            (std::vector<double>{11}));
}

TEST_F(OpenTsdbTest, CounterRateHandlesRolloverResetsAndDroppedResets) {
  PutCounter(*h_->telemetry, "web01", {65530, 4, 14, 2});
  // A plain rate goes negative on a drop.
  EXPECT_EQ(RateValues(*h_->telemetry, R"("rate":true)"), (std::vector<double>{-6552.6, 1, -1.2}));
  // A counter with counterMax 65535 rolled over: 65535 - 65530 + 4 = 9 in 10 s.
  EXPECT_EQ(RateValues(*h_->telemetry,
                       R"("rate":true,"rateOptions":{"counter":true,"counterMax":65535})"),
            (std::vector<double>{0.9, 1, (65535 - 14 + 2) / 10.0}));
  // A rate above resetValue is a reset: 0.
  EXPECT_EQ(
      RateValues(
          *h_->telemetry,
          R"("rate":true,"rateOptions":{"counter":true,"counterMax":65535,"resetValue":100})"),
      (std::vector<double>{0.9, 1, 0}));
  // dropResets leaves out the points after a drop.
  EXPECT_EQ(
      RateValues(*h_->telemetry, R"("rate":true,"rateOptions":{"counter":true,"dropResets":true})"),
      (std::vector<double>{1}));
}

TEST_F(OpenTsdbTest, MalformedRateDownsampleAndFiltersAreClearErrors) {
  PutCounter(*h_->telemetry, "web01", {1, 2});
  for (const char* fields :
       {R"("rate":"yes")", R"("rate":true,"rateOptions":[1])",
        R"("rate":true,"rateOptions":{"counter":1})",
        R"("rate":true,"rateOptions":{"counterMax":-5})",
        R"("rate":true,"rateOptions":{"counterMax":0})",
        R"("rate":true,"rateOptions":{"resetValue":"7"})", R"("downsample":"1m-avg-zero")",
        R"("downsample":"1m-avg-none-x")", R"("downsample":"1m")",
        R"("filters":[{"type":"wildcard","tagk":"host","filter":"*","groupBy":true}])"}) {
    auto q = HandleQuery(
        *h_->telemetry,
        std::string(R"({"start":"10m-ago","queries":[{"aggregator":"sum","metric":"bids.total",)") +
            fields + "}]}");
    EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument) << fields;
  }
  // An empty filters array (Grafana sends one) is no filter.
  EXPECT_EQ(RateValues(*h_->telemetry, R"("filters":[])"), (std::vector<double>{1, 2}));
}

TEST_F(OpenTsdbTest, LookupListsTheSeriesOfAMetricATagFilterSelects) {
  json points = json::array();
  for (const char* host : {"web01", "web02", "web03"}) {
    for (const char* dc : {"fra", "ams"}) {
      points.push_back({{"metric", "sys.load"},
                        {"timestamp", kNowS - 60},
                        {"value", 1},
                        {"tags", {{"host", host}, {"dc", dc}}}});
    }
  }
  ASSERT_TRUE(HandlePut(*h_->telemetry, points.dump()).ok());

  auto all = HandleLookupQueryString(*h_->telemetry, "sys.load", std::nullopt);
  ASSERT_TRUE(all.ok()) << all.status();
  json out = json::parse(*all);
  EXPECT_EQ(out["type"], "LOOKUP");
  EXPECT_EQ(out["totalResults"], 6);
  ASSERT_EQ(out["results"].size(), 6u);
  EXPECT_EQ(out["results"][0]["metric"], "sys.load");
  EXPECT_EQ(out["results"][0]["tsuid"].get<std::string>().size(), 24u);

  auto fra = HandleLookupQueryString(*h_->telemetry, "sys.load{dc=fra,host=*}", "2");
  ASSERT_TRUE(fra.ok()) << fra.status();
  out = json::parse(*fra);
  EXPECT_EQ(out["totalResults"], 3);
  ASSERT_EQ(out["results"].size(), 2u);  // the limit
  for (const json& r : out["results"]) EXPECT_EQ(r["tags"]["dc"], "fra");

  auto posted = HandleLookup(*h_->telemetry,
                             R"({"metric":"sys.load","tags":[{"key":"host","value":"web02|web03"},
      {"key":"dc","value":"ams"}],"limit":10})");
  ASSERT_TRUE(posted.ok()) << posted.status();
  out = json::parse(*posted);
  EXPECT_EQ(out["totalResults"], 2);
  EXPECT_EQ(out["tags"].size(), 2u);

  EXPECT_EQ(HandleLookupQueryString(*h_->telemetry, "nope", std::nullopt).status().code(),
            absl::StatusCode::kNotFound);
  for (auto [m, limit] : std::vector<std::pair<std::string, std::optional<std::string_view>>>{
           {"sys.load{dc=fra", std::nullopt},
           {"sys.load{dc}", std::nullopt},
           {"*{dc=fra}", std::nullopt},
           {"sys.load{dc=fra,dc=ams}", std::nullopt},
           {"sys.load", "0"},
           {"sys.load", "x"}}) {
    EXPECT_EQ(HandleLookupQueryString(*h_->telemetry, m, limit).status().code(),
              absl::StatusCode::kInvalidArgument)
        << m;
  }
  for (const char* body : {"[]", R"({"tags":[]})", R"({"metric":"sys.load","tags":{"dc":"fra"}})",
                           R"({"metric":"sys.load","tags":[{"value":"fra"}]})",
                           R"({"metric":"sys.load","limit":"5"})"}) {
    EXPECT_EQ(HandleLookup(*h_->telemetry, body).status().code(),
              absl::StatusCode::kInvalidArgument)
        << body;
  }
  EXPECT_EQ(json::parse(AggregatorsJson()), json({"avg", "count", "max", "min", "sum"}));
}

TEST_F(OpenTsdbTest, SuggestMetricsTagKeysAndValues) {
  ASSERT_TRUE(
      HandlePut(
          *h_->telemetry,
          R"([{"metric":"bidder.bids","timestamp":1791071990,"value":1,"tags":{"exchange":"openx"}},
      {"metric":"bidder.wins","timestamp":1791071990,"value":1},{"metric":"other","timestamp":1791071990,"value":1}])")
          .ok());
  auto metrics = HandleSuggest(*h_->telemetry, R"({"type":"metrics","q":"bidder.","max":10})");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_EQ(json::parse(*metrics), json::array({"bidder.bids", "bidder.wins"}));
  EXPECT_EQ(json::parse(*HandleSuggest(*h_->telemetry, R"({"type":"tagk","q":"ex"})")),
            json::array({"exchange"}));
  EXPECT_EQ(json::parse(*HandleSuggest(*h_->telemetry, R"({"type":"tagv","q":""})")),
            json::array({"openx"}));
  EXPECT_FALSE(HandleSuggest(*h_->telemetry, R"({"type":"bogus"})").ok());
}

TEST(OpenTsdbTimeTest, RelativeAndAbsoluteTimes) {
  EXPECT_EQ(ParseOpenTsdbTime("1h-ago", 10000), 10000 - 3600);
  EXPECT_EQ(ParseOpenTsdbTime("2d-ago", 1000000), 1000000 - 2 * 86400);
  EXPECT_EQ(ParseOpenTsdbTime("1791072000", 0), 1791072000);
  EXPECT_EQ(ParseOpenTsdbTime("1791072000123", 0), 1791072000);
  EXPECT_FALSE(ParseOpenTsdbTime("yesterday", 0).has_value());
  EXPECT_FALSE(ParseOpenTsdbTime("5x-ago", 0).has_value());
}

TEST_F(OpenTsdbTest, SelfTelemetryWritesCountersAndLatencyPercentiles) {
  prometheus::Registry source;
  auto& requests =
      prometheus::BuildCounter().Name("bidder_bid_requests_total").Help("r").Register(source);
  requests.Add({{"exchange", "openx"}}).Increment(42);
  prometheus::BuildCounter()
      .Name("bidder_unrelated_total")
      .Help("u")
      .Register(source)
      .Add({})
      .Increment();
  auto& latency = prometheus::BuildHistogram()
                      .Name("bidder_bid_latency_seconds")
                      .Help("l")
                      .Register(source)
                      .Add({}, prometheus::Histogram::BucketBoundaries{0.001, 0.002, 0.005, 0.01});
  for (int i = 0; i < 98; ++i) latency.Observe(0.0015);
  latency.Observe(0.007);
  latency.Observe(0.008);

  SelfTelemetry self(*h_->telemetry, source, {});
  WriteSummary first = self.SampleOnce();
  EXPECT_EQ(first.failed, 0);
  EXPECT_EQ(first.success, 3) << "one counter series, p50 and p99";
  h_->clock->Advance(10000);
  EXPECT_EQ(self.SampleOnce().success, 1) << "no new latency observations: counters only";

  TimeSeriesQuery q;
  q.metric = "bidder_bid_latency_seconds.p50";
  q.start_s = kNowS - 60;
  q.end_s = kNowS + 60;
  auto p50 = h_->telemetry->Query(q);
  ASSERT_TRUE(p50.ok()) << p50.status();
  ASSERT_EQ(p50->groups.size(), 1u);
  // Rank 50 of the 98 in (1 ms, 2 ms]: 1.5102 ms, in whole microseconds.
  EXPECT_EQ(p50->groups[0].points[0].value, 0.00151);
  q.metric = "bidder_bid_latency_seconds.p99";
  auto p99 = h_->telemetry->Query(q);
  ASSERT_TRUE(p99.ok());
  EXPECT_EQ(p99->groups[0].points[0].value, 0.0075);
  q.metric = "bidder_bid_requests_total";
  q.tags = {{"exchange", "openx"}};
  auto counter = h_->telemetry->Query(q);
  ASSERT_TRUE(counter.ok());
  ASSERT_EQ(counter->groups[0].points.size(), 2u);
  EXPECT_EQ(counter->groups[0].points[1].value, 42);

  // Start/Stop: the thread starts and stops promptly without sampling twice.
  self.Start();
  self.Stop();
}

TEST_F(OpenTsdbTest, SelfTelemetryTagsEverySeriesWithItsInstance) {
  prometheus::Registry source;
  prometheus::BuildCounter()
      .Name("bidder_bid_requests_total")
      .Help("r")
      .Register(source)
      .Add({{"exchange", "openx"}})
      .Increment(5);
  auto& latency = prometheus::BuildHistogram()
                      .Name("bidder_bid_latency_seconds")
                      .Help("l")
                      .Register(source)
                      .Add({}, prometheus::Histogram::BucketBoundaries{0.001, 0.01});
  latency.Observe(0.002);
  // A host name with digits: the instance tag is exempt from the id check.
  SelfTelemetryOptions a;
  a.instance = "ip-10-0-0-7.eu-west-1.compute.internal_8080";
  SelfTelemetryOptions b;
  b.instance = "ip-10-0-0-8.eu-west-1.compute.internal_8080";
  SelfTelemetry first(*h_->telemetry, source, a);
  SelfTelemetry second(*h_->telemetry, source, b);
  EXPECT_EQ(first.SampleOnce().failed, 0);
  EXPECT_EQ(second.SampleOnce().failed, 0);
  for (const char* metric : {"bidder_bid_requests_total", "bidder_bid_latency_seconds.p99"}) {
    TimeSeriesQuery q;
    q.metric = metric;
    q.start_s = kNowS - 60;
    q.end_s = kNowS + 60;
    q.tags = {{"instance", "*"}};
    auto by_instance = h_->telemetry->Query(q);
    ASSERT_TRUE(by_instance.ok()) << by_instance.status();
    ASSERT_EQ(by_instance->groups.size(), 2u) << metric;
    EXPECT_EQ(by_instance->groups[0].tags.at("instance"), a.instance);
    EXPECT_EQ(by_instance->groups[1].tags.at("instance"), b.instance);
  }
}

TEST_F(OpenTsdbTest, SelfTelemetryDefaultsCoverWinsSpendTimeoutsAndPacingGauges) {
  prometheus::Registry source;
  const prometheus::Labels by = {{"exchange", "openx"}, {"campaign", "northwind"}};
  prometheus::BuildCounter()
      .Name("bidder_wins_total")
      .Help("w")
      .Register(source)
      .Add(by)
      .Increment(3);
  prometheus::BuildCounter()
      .Name("bidder_spend_micros_total")
      .Help("s")
      .Register(source)
      .Add(by)
      .Increment(4500);
  prometheus::BuildCounter()
      .Name("bidder_bids_total")
      .Help("b")
      .Register(source)
      .Add(by)
      .Increment(7);
  prometheus::BuildCounter()
      .Name("bidder_profile_timeouts_total")
      .Help("t")
      .Register(source)
      .Add({{"exchange", "openx"}})
      .Increment(2);
  prometheus::BuildGauge()
      .Name("bidder_pacing_spend_today_micros")
      .Help("d")
      .Register(source)
      .Add({{"campaign", "northwind"}})
      .Set(123456);
  prometheus::BuildGauge()
      .Name("bidder_pacing_throttle_ratio")
      .Help("r")
      .Register(source)
      .Add({{"campaign", "northwind"}})
      .Set(0.25);

  SelfTelemetry self(*h_->telemetry, source, {});
  const WriteSummary written = self.SampleOnce();
  EXPECT_EQ(written.failed, 0);
  EXPECT_EQ(written.success, 6);

  auto value = [&](const std::string& metric, std::map<std::string, std::string> tags) {
    TimeSeriesQuery q;
    q.metric = metric;
    q.tags = std::move(tags);
    q.start_s = kNowS - 60;
    q.end_s = kNowS + 60;
    auto result = h_->telemetry->Query(q);
    EXPECT_TRUE(result.ok()) << metric << ": " << result.status();
    if (!result.ok() || result->groups.size() != 1 || result->groups[0].points.size() != 1) {
      ADD_FAILURE() << metric << ": not one point";
      return -1.0;
    }
    return result->groups[0].points[0].value;
  };
  const std::map<std::string, std::string> tags = {{"exchange", "openx"},
                                                   {"campaign", "northwind"}};
  EXPECT_EQ(value("bidder_wins_total", tags), 3);
  EXPECT_EQ(value("bidder_spend_micros_total", tags), 4500);
  EXPECT_EQ(value("bidder_bids_total", tags), 7);
  EXPECT_EQ(value("bidder_profile_timeouts_total", {{"exchange", "openx"}}), 2);
  EXPECT_EQ(value("bidder_pacing_spend_today_micros", {{"campaign", "northwind"}}), 123456);
  EXPECT_EQ(value("bidder_pacing_throttle_ratio", {{"campaign", "northwind"}}), 0.25);
}

}  // namespace
}  // namespace rtb::bidder::telemetry
