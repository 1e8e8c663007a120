// The `telemetry`, `events`, `sessions` and `metrics` sections: the bidder's
// own time series, the event timelines' hot keys, operator logins, and the
// Prometheus endpoint.
// Part of config/config.h, which includes it; see there for the loading rules.
#ifndef RTB_CONFIG_OPERATIONS_CONFIG_H_
#define RTB_CONFIG_OPERATIONS_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace rtb::config {

// ---------------------------------------------------------------------------
// telemetry: the bidder's own time series in the `metrics` table.

struct TelemetryConfig {
  // Writes telemetry at all. Default true.
  bool enabled = true;
  // Period of the raw points written, seconds. Default 10. Range [1, 3600].
  int write_interval_s = 10;
  // This process's name in the `instance` tag of every series it writes,
  // so that the processes of a fleet write series of their own (rates are
  // taken per instance, then summed). Default "": "<host name>_<port>".
  // 1-128 characters of [A-Za-z0-9._/-]; stable across restarts, or each
  // restart starts new series (which count against max_series).
  std::string instance;
  // Distinct series kept in total, over the whole fleet (counted in the
  // store; each instance's series count); points of further series are
  // dropped and counted. Default 10000. Range [1, 1000000].
  int max_series = 10000;
  // Distinct series per metric name. Default 1000. Range [1, max_series].
  int max_series_per_metric = 1000;
  // /api/query and /api/suggest need an operator session. False serves them
  // to anyone who reaches the listen address (e.g. a Grafana on a private
  // network); /api/put always needs a session. Default true.
  bool query_requires_login = true;
};

// ---------------------------------------------------------------------------
// events: the event timelines the beacons write (bidder/events/events.h).

// Events counted per device key in fixed windows, the top keys exported as
// bidder_events_hot_key_events, and an optional ceiling past which a key's
// events are skipped (one bot or shared id must not make a hot region).
struct HotKeysConfig {
  // Length of a counting window, ms; 0 turns counting off. Default 60000.
  // Range [0, 86400000].
  int64_t window_ms = 60000;
  // Keys counted per window. Default 64. Range [1, 100000].
  int tracked_keys = 64;
  // Top keys exported per window. Default 5. Range [0, tracked_keys].
  int reported_keys = 5;
  // Events of one key per window beyond which they are skipped
  // (bidder_events_rate_limited_total). 0 (default): never skip. Range
  // [0, 1000000000]; needs a window.
  int64_t max_events_per_window = 0;
};

struct EventsConfig {
  HotKeysConfig hot_keys;
};

// ---------------------------------------------------------------------------
// beacon_log: the durable log between the beacon endpoints and the tables
// (beaconlog/beacon_log.h), and the stream worker that applies it
// (bidder/stream/stream_worker.h).

enum class BeaconLogBackend {
  kEmbedded,  // "embedded": segment files on the bidder's local disk
  kKafka,     // "kafka": an Apache Kafka topic, for a fleet
};

enum class BeaconLogSync {
  kEveryBatch,  // "every_batch": fdatasync before a group is acknowledged
  kNone,        // "none": acknowledged once written to the kernel
};

struct EmbeddedBeaconLogConfig {
  // The log's directory, created when missing; one bidder per directory.
  // Default "": the embedded store's path with "-beacon-log" appended
  // ("./data-beacon-log" by default).
  std::string path;
  // Segment size, MiB. Default 64. Range [1, 1024].
  int64_t segment_mib = 64;
  // Bytes not yet applied at most, MiB; past it beacons get 503
  // (log_full). Default 1024. Range [segment_mib, 1048576].
  int64_t max_mib = 1024;
  BeaconLogSync sync = BeaconLogSync::kEveryBatch;
  // With every_batch: how long a group of appends waits after its first
  // for more before its write and fdatasync, us. A sync costs about the
  // same for one beacon as for a hundred; under a light load each beacon
  // would pay a whole one; but a client that sends one beacon at a time
  // on a connection gets at most one answer per wait from it. Default 0
  // (no wait). Range [0, 100000].
  int group_wait_us = 0;
};

struct KafkaBeaconLogConfig {
  // Bootstrap brokers, "host:port[,host:port...]". Required for the kafka
  // backend.
  std::string brokers;
  // The topic, created at start-up when missing. Default "rtb-beacons".
  std::string topic = "rtb-beacons";
  // The stream workers' consumer group. Default "rtb-stream".
  std::string group_id = "rtb-stream";
  // A missing topic's partitions (the stream workers that can share it)
  // and replicas. Defaults 8 and 1 (a production cluster: 3). Ranges
  // [1, 10000] and [1, 16].
  int partitions = 8;
  int replication_factor = 1;
  // How long a record is retried before its beacon gets 503, ms. Default
  // 30000. Range [1000, 600000].
  int delivery_timeout_ms = 30000;
};

struct StreamConfig {
  // Run the stream worker inside the bidder. false: rtb-stream applies the
  // log instead. Default true.
  bool in_process = true;
  // Records applied per batch (and per commit). Default 512. Range [1, 100000].
  int batch_records = 512;
  // Lanes each batch is applied in at once, split by impression id, so a
  // remote store's round trips overlap (one impression's beacons stay in
  // order in one lane). Default 4. Range [1, 64].
  int apply_threads = 4;
  // Steps the worker's threads' nice value is raised by, so a backlog drains
  // in the CPU the bid path leaves over. Default 10. Range [0, 19].
  int nice = 10;
  // Longest back-off between attempts at a record the store refused, ms.
  // Default 5000. Range [50, 600000].
  int retry_max_ms = 5000;
};

struct BeaconLogConfig {
  BeaconLogBackend backend = BeaconLogBackend::kEmbedded;
  EmbeddedBeaconLogConfig embedded;
  KafkaBeaconLogConfig kafka;
  StreamConfig stream;
};

// ---------------------------------------------------------------------------
// sessions: operator logins for the admin API and console.

struct OperatorConfig {
  // Login name. Required. 1-64 characters of [A-Za-z0-9._@-]; unique.
  std::string user;
  // libsodium crypto_pwhash_str output:
  // "$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt b64>$<hash b64>".
  // Required. Only the format is checked here; never printed.
  std::string password_hash;
};

struct LoginRateLimitConfig {
  // Failed logins per user within window_s before the user is locked out.
  // Default 5. Range [1, 1000].
  int max_failures_per_user = 5;
  // Failed logins per client address within window_s before the address is
  // locked out. Default 20. Range [1, 100000].
  int max_failures_per_address = 20;
  // Window failures are counted over, seconds. Default 900. Range [1, 86400].
  int window_s = 900;
  // First lockout, seconds; each further lockout doubles up to lockout_max_s.
  // Default 30. Range [1, lockout_max_s].
  int lockout_initial_s = 30;
  // Default 900. Range [1, 86400].
  int lockout_max_s = 900;
};

struct SessionsConfig {
  // Operators allowed to log in. Default none (every login is refused).
  std::vector<OperatorConfig> operators;
  // Session lifetime from login, and the `sessions` family TTL, seconds.
  // Default 28800 (8 h). Range [60, 2592000].
  int64_t absolute_lifetime_s = 8 * 3600;
  // Inactivity after which a session ends, seconds. Default 1800 (30 min).
  // Range [1, absolute_lifetime_s].
  int idle_timeout_s = 30 * 60;
  // Least time between two stored touches of an unchanged session, seconds.
  // Default 60. Range [0, idle_timeout_s).
  int touch_debounce_s = 60;
  // Sets `Secure` on the session cookie. Default true. May be false only when
  // server.listen_address is a loopback address (local development).
  bool cookie_secure = true;
  // Addresses of the TLS-terminating proxies in front of the bidder. For a
  // request from one of them, the client address that login rate limits
  // count is the rightmost X-Forwarded-For entry that is not itself a
  // trusted proxy; from any other peer X-Forwarded-For is ignored, so a
  // client cannot pick the address it is counted under. Default none. Each
  // an IPv4 or IPv6 address.
  std::vector<std::string> trusted_proxies;
  LoginRateLimitConfig login_rate_limit;
};

// ---------------------------------------------------------------------------
// metrics: the Prometheus endpoint.

struct MetricsConfig {
  // Path of the scrape endpoint. Default "/metrics". Must start with '/'.
  std::string path = "/metrics";
};

}  // namespace rtb::config

#endif  // RTB_CONFIG_OPERATIONS_CONFIG_H_
