#include "bidder/telemetry/self_telemetry.h"

#include <algorithm>
#include <cmath>

#include "absl/time/time.h"
#include "bidder/telemetry/internal/keys.h"
#include "metrics/sharded.h"

namespace rtb::bidder::telemetry {
namespace {

std::map<std::string, std::string> TagsOf(const prometheus::ClientMetric& metric,
                                          const std::string& instance) {
  std::map<std::string, std::string> tags;
  for (const auto& label : metric.label) tags[label.name] = label.value;
  if (!instance.empty()) tags["instance"] = instance;
  return tags;
}

// The q-quantile of the observations counted in `delta` (per bucket, not
// cumulative) with upper bounds `bounds` (the last bucket is +Inf).
double Quantile(double q, const std::vector<uint64_t>& delta, const std::vector<double>& bounds) {
  uint64_t total = 0;
  for (uint64_t d : delta) total += d;
  const double rank = q * static_cast<double>(total);
  double seen = 0;
  for (size_t i = 0; i < delta.size(); ++i) {
    const double next = seen + static_cast<double>(delta[i]);
    if (next >= rank && delta[i] > 0) {
      const double lower = i == 0 ? 0 : bounds[i - 1];
      if (i >= bounds.size() || std::isinf(bounds[i]))
        return lower;  // +Inf bucket: its lower bound
      return lower + (bounds[i] - lower) * (rank - seen) / static_cast<double>(delta[i]);
    }
    seen = next;
  }
  return bounds.empty() ? 0 : bounds.back();
}

// The observations per bucket since `before` (the cumulative counts of the
// last sample, reset to zeros when the buckets changed), which becomes
// `cumulative`. A bucket whose count went down (a restarted source) counts
// what it holds now.
std::vector<uint64_t> BucketDelta(const std::vector<uint64_t>& cumulative,
                                  std::vector<uint64_t>* before) {
  if (before->size() != cumulative.size()) before->assign(cumulative.size(), 0);
  std::vector<uint64_t> delta(cumulative.size());
  uint64_t prev_cum = 0, prev_before = 0;
  for (size_t i = 0; i < cumulative.size(); ++i) {
    const uint64_t now_count = cumulative[i] - prev_cum;
    const uint64_t then_count = (*before)[i] - prev_before;
    delta[i] = now_count >= then_count ? now_count - then_count : now_count;
    prev_cum = cumulative[i];
    prev_before = (*before)[i];
  }
  *before = cumulative;
  return delta;
}

// `name`.p50 and `name`.p99 of the observations in `delta`, nothing when
// there are none.
void AppendPercentiles(const std::string& name, const std::map<std::string, std::string>& tags,
                       int64_t now_s, const std::vector<uint64_t>& delta,
                       const std::vector<double>& bounds, std::vector<DataPoint>* points) {
  uint64_t observed = 0;
  for (uint64_t d : delta) observed += d;
  if (observed == 0) return;
  // Durations in whole microseconds: the interpolation inside a bucket
  // is no finer than that, and such values pack as scaled integers.
  const bool seconds = name.ends_with("_seconds");
  auto percentile = [&](double q) {
    const double v = Quantile(q, delta, bounds);
    return seconds ? std::round(v * 1e6) / 1e6 : v;
  };
  points->push_back({name + ".p50", tags, now_s, percentile(0.50)});
  points->push_back({name + ".p99", tags, now_s, percentile(0.99)});
}

}  // namespace

SelfTelemetryOptions SelfTelemetryOptions::FromConfig(const config::TelemetryConfig& config) {
  SelfTelemetryOptions options;
  options.write_interval_s = config.write_interval_s;
  return options;
}

SelfTelemetry::SelfTelemetry(Telemetry& telemetry, prometheus::Registry& source,
                             SelfTelemetryOptions options)
    : telemetry_(telemetry), source_(source), options_(std::move(options)) {
  backlog_points_ = &prometheus::BuildGauge()
                         .Name("bidder_telemetry_backlog_points")
                         .Help("Self-telemetry points the store could not take yet, kept to retry")
                         .Register(source_)
                         .Add({});
  auto& dropped = prometheus::BuildCounter()
                      .Name("bidder_telemetry_points_dropped_total")
                      .Help(
                          "Self-telemetry points given up after the store could not take them: "
                          "older than the backlog's age bound, or pushed out by its size bound")
                      .Register(source_);
  dropped_expired_ = &dropped.Add({{"reason", "expired"}});
  dropped_overflow_ = &dropped.Add({{"reason", "overflow"}});
}

SelfTelemetry::~SelfTelemetry() { Stop(); }

void SelfTelemetry::Start() {
  if (thread_.joinable()) return;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = false;
  }
  thread_ = std::thread([this] { Loop(); });
}

void SelfTelemetry::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void SelfTelemetry::Loop() {
  const absl::Duration interval = absl::Seconds(std::max(1, options_.write_interval_s));
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      auto stopping = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return stopping_; };
      if (mu_.AwaitWithTimeout(absl::Condition(&stopping), interval)) return;
    }
    SampleOnce();
    const int64_t now_s = telemetry_.NowSeconds();
    if (options_.pack_interval_s > 0 && now_s - last_pack_s_ >= options_.pack_interval_s) {
      // Errors are counted by the packer's own metrics; the next run retries.
      // Another process of the fleet packs while it leads.
      if (!options_.runs_fleet_jobs || options_.runs_fleet_jobs()) (void)telemetry_.Pack();
      last_pack_s_ = now_s;
    }
  }
}

size_t SelfTelemetry::backlog_size() const {
  absl::MutexLock lock(&write_mu_);
  return backlog_.size();
}

WriteSummary SelfTelemetry::SampleOnce() {
  absl::MutexLock write_lock(&write_mu_);
  const int64_t now_s = telemetry_.NowSeconds();
  std::vector<DataPoint> points;
  // The backlog first, less what has outlived its bound.
  size_t expired = 0;
  for (DataPoint& point : backlog_) {
    if (now_s - point.timestamp > options_.max_backlog_age_s) {
      ++expired;
    } else {
      points.push_back(std::move(point));
    }
  }
  backlog_.clear();
  dropped_expired_->Increment(static_cast<double>(expired));
  for (const prometheus::MetricFamily& family : metrics::Collect(source_)) {
    const bool as_value = std::find(options_.counters.begin(), options_.counters.end(),
                                    family.name) != options_.counters.end() ||
                          std::find(options_.gauges.begin(), options_.gauges.end(), family.name) !=
                              options_.gauges.end();
    const bool histogram = std::find(options_.histograms.begin(), options_.histograms.end(),
                                     family.name) != options_.histograms.end();
    if (as_value) {
      for (const prometheus::ClientMetric& m : family.metric) {
        const double v =
            family.type == prometheus::MetricType::Gauge ? m.gauge.value : m.counter.value;
        points.push_back({family.name, TagsOf(m, options_.instance), now_s, v});
      }
    }
    if (histogram && family.type == prometheus::MetricType::Histogram) {
      for (const prometheus::ClientMetric& m : family.metric) {
        const std::map<std::string, std::string> tags = TagsOf(m, options_.instance);
        std::vector<uint64_t> cumulative;
        std::vector<double> bounds;
        for (const auto& b : m.histogram.bucket) {
          cumulative.push_back(b.cumulative_count);
          bounds.push_back(b.upper_bound);
        }
        const std::string key = family.name + internal::CanonicalTags(tags);
        std::vector<uint64_t> delta;
        {
          absl::MutexLock lock(&mu_);
          delta = BucketDelta(cumulative, &previous_[key]);
        }
        AppendPercentiles(family.name, tags, now_s, delta, bounds, &points);
      }
    }
  }
  WriteSummary summary = telemetry_.Write(points);
  // In the order of `points`: oldest first.
  std::sort(summary.unstored.begin(), summary.unstored.end());
  for (size_t index : summary.unstored) backlog_.push_back(std::move(points[index]));
  if (backlog_.size() > options_.max_backlog_points) {
    const size_t overflow = backlog_.size() - options_.max_backlog_points;
    backlog_.erase(backlog_.begin(), backlog_.begin() + static_cast<std::ptrdiff_t>(overflow));
    dropped_overflow_->Increment(static_cast<double>(overflow));
  }
  backlog_points_->Set(static_cast<double>(backlog_.size()));
  return summary;
}

}  // namespace rtb::bidder::telemetry
