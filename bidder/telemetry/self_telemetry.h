// The bidder's own series: every write_interval_s, reads a prometheus
// Registry (Collect()) and writes the selected families as points, one series
// per label set (labels become tags):
//   counters  bidder_bid_requests_total{exchange,outcome}, bidder_bids_total{exchange,campaign},
//             bidder_wins_total{exchange,campaign}, bidder_spend_micros_total{exchange,campaign},
//             bidder_profile_timeouts_total{exchange}, bidder_profile_lookups_total{outcome},
//             bidder_beacons_total{kind,outcome} (cumulative values, as Prometheus has them)
//   gauges    bidder_pacing_spend_today_micros{campaign}, bidder_pacing_throttle_ratio{campaign},
//             bidder_beacon_log_lag_bytes, bidder_beacon_stream_caught_up_timestamp_seconds
//             (the value at the sample)
//   (each point also tagged instance=<options.instance>)
//   histogram bidder_bid_latency_seconds -> bidder_bid_latency_seconds.p50 and .p99,
//             of the observations since the previous sample (interpolated
//             inside the histogram's buckets; for *_seconds families in whole
//             microseconds)
// and, every pack_interval_s, runs the packer on the same thread.
//
// Points the store cannot take (WriteSummary::unstored: storage down or
// failing) are not lost at once: they wait in a backlog, bounded in size
// (max_backlog_points) and age (max_backlog_age_s, by the points' own
// timestamps), and are written again, oldest first, with the next sample.
// A late point lands in its bucket like any other (the packer finds rows by
// their cells' write time). What the bounds finally drop is counted:
//   bidder_telemetry_backlog_points               points waiting
//   bidder_telemetry_points_dropped_total{reason} expired | overflow
//
// Construction, for the process:
//   SelfTelemetry self(telemetry, registry, SelfTelemetryOptions::FromConfig(config.telemetry));
//   self.Start();  ...  self.Stop();   // Stop also runs in the destructor
//
// Thread-safety: Start/Stop from one owner thread; SampleOnce from anywhere.
#ifndef RTB_BIDDER_TELEMETRY_SELF_TELEMETRY_H_
#define RTB_BIDDER_TELEMETRY_SELF_TELEMETRY_H_

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "bidder/telemetry/telemetry.h"
#include "config/config.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace rtb::bidder::telemetry {

struct SelfTelemetryOptions {
  // Seconds between samples. Default 10 (telemetry.write_interval_s).
  int write_interval_s = 10;
  // The `instance` tag every point carries (telemetry.instance, or the
  // process's host:port); "" writes none.
  std::string instance;
  // Whether this process runs the packer now: the fleet's jobs run in one
  // process at a time (bidder/app.cc). Empty: always.
  std::function<bool()> runs_fleet_jobs;
  // Families written as their values: counters (cumulative) and gauges.
  std::vector<std::string> counters = {"bidder_bid_requests_total",
                                       "bidder_bids_total",
                                       "bidder_wins_total",
                                       "bidder_spend_micros_total",
                                       "bidder_profile_timeouts_total",
                                       "bidder_profile_lookups_total",
                                       "bidder_beacons_total"};
  std::vector<std::string> gauges = {"bidder_pacing_spend_today_micros",
                                     "bidder_pacing_throttle_ratio", "bidder_beacon_log_lag_bytes",
                                     "bidder_beacon_stream_caught_up_timestamp_seconds"};
  std::vector<std::string> histograms = {"bidder_bid_latency_seconds"};
  // The loop also runs Telemetry::Pack when this many seconds have passed
  // since its last pack; 0 leaves packing to the caller. Default 300.
  int pack_interval_s = 300;
  // The backlog of unstored points: at most this many (the oldest go first)
  // and none older than this. Defaults 100000 points, 600 s: ten minutes of
  // a storage outage at the default interval costs no point.
  size_t max_backlog_points = 100000;
  int64_t max_backlog_age_s = 600;

  static SelfTelemetryOptions FromConfig(const config::TelemetryConfig& config);
};

class SelfTelemetry {
 public:
  // `telemetry` and `source` must outlive this.
  SelfTelemetry(Telemetry& telemetry, prometheus::Registry& source, SelfTelemetryOptions options);
  ~SelfTelemetry();

  void Start();
  void Stop();
  // One sample now, with the backlog written first: the points written (and
  // refused) by it, backlog included.
  WriteSummary SampleOnce();
  size_t backlog_size() const;

 private:
  void Loop();

  Telemetry& telemetry_;
  prometheus::Registry& source_;
  const SelfTelemetryOptions options_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Cumulative bucket counts per histogram series at the previous sample.
  std::map<std::string, std::vector<uint64_t>> previous_ ABSL_GUARDED_BY(mu_);
  // Points the store could not take yet, oldest first. Samples run one at a
  // time (write_mu_), so the backlog is read and replaced in one piece.
  mutable absl::Mutex write_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  std::deque<DataPoint> backlog_ ABSL_GUARDED_BY(write_mu_);
  prometheus::Gauge* backlog_points_ = nullptr;
  prometheus::Counter* dropped_expired_ = nullptr;
  prometheus::Counter* dropped_overflow_ = nullptr;
  int64_t last_pack_s_ = 0;  // loop thread only
  std::thread thread_;
};

}  // namespace rtb::bidder::telemetry

#endif  // RTB_BIDDER_TELEMETRY_SELF_TELEMETRY_H_
