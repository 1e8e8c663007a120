// ValidateConfig: the range, syntax, uniqueness and cross-field rules of
// BidderConfig, each reported under the path of the field it concerns.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "config/config.h"
#include "config/internal/campaign_validation.h"
#include "config/internal/checker.h"
#include "config/internal/error_list.h"
#include "config/internal/iso_codes.h"
#include "config/internal/json_fields.h"
#include "config/internal/value_syntax.h"
#include "taxonomy/category_taxonomy.h"

namespace rtb::config {
namespace {

using internal::Checker;
using internal::ElementPath;
using internal::ErrorList;
using internal::MemberPath;
using internal::Printable;

constexpr size_t kMinSecretBytes = 32;
constexpr size_t kMinPriceKeyBytes = 16;

// A secret resolved from `key` or from the environment variable `env_name`.
// The message names where it came from, never what it is.
void CheckSecret(const Checker& bid, const char* key, const char* env_key,
                 const std::string& secret, const std::string& env_name) {
  if (secret.empty()) {
    bid.Fail(key, absl::StrCat("required: name an environment variable holding it in ", env_key,
                               " (or give it inline in ", key, ")"));
    return;
  }
  if (secret.size() >= kMinSecretBytes) return;
  if (env_name.empty()) {
    bid.Fail(key, absl::StrCat("must be at least ", kMinSecretBytes, " bytes"));
  } else {
    bid.Fail(env_key, absl::StrCat("environment variable ", env_name, " must hold at least ",
                                   kMinSecretBytes, " bytes"));
  }
}

// A key given inline under `key` or through the variable `env_key`; the
// message names where it came from, never what it is.
void CheckPriceKey(const Checker& at, const char* key, const char* env_key,
                   const std::string& value, const std::string& env_name) {
  if (internal::IsBase64Key(value, kMinPriceKeyBytes)) return;
  const std::string problem = absl::StrCat("must be base64 (web-safe or standard) of at least ",
                                           kMinPriceKeyBytes, " bytes");
  if (env_name.empty()) {
    at.Fail(key, problem);
  } else {
    at.Fail(env_key, absl::StrCat("environment variable ", env_name, " ", problem));
  }
}

void ValidatePriceEncryption(const PriceEncryptionConfig& keys, const Checker& at) {
  if (!keys.enabled()) return;
  if (keys.encryption_key.empty() || keys.integrity_key.empty()) {
    at.Fail("", "needs both encryption_key and integrity_key (or their _env forms)");
    return;
  }
  CheckPriceKey(at, "encryption_key", "encryption_key_env", keys.encryption_key,
                keys.encryption_key_env);
  CheckPriceKey(at, "integrity_key", "integrity_key_env", keys.integrity_key,
                keys.integrity_key_env);
}

// A beacon base URL (bid.beacon_base_url and the exchanges' own), when set.
void CheckBeaconBase(const Checker& at, std::string_view key, const std::string& url,
                     bool allow_http) {
  if (url.empty()) return;
  std::string problem = internal::UrlProblem(url, allow_http, /*allow_query_and_fragment=*/false);
  if (!problem.empty()) at.Fail(key, problem);
}

// What an exchange's answers are written with: version, seat, the notice that
// bills, prices, beacon bases.
void ValidateExchangeAnswers(const ExchangeConfig& exchange, const Checker& ex) {
  if (exchange.openrtb_version != "2.5" && exchange.openrtb_version != "2.6") {
    ex.Fail("openrtb_version", "must be \"2.5\" or \"2.6\"");
  }
  if (!exchange.seat.empty() && !internal::IsPrintableToken(exchange.seat, 64)) {
    ex.Fail("seat", "must be at most 64 printable ASCII characters without spaces");
  }
  if (exchange.billing_notice != BillingNotice::kBurl &&
      exchange.billing_notice != BillingNotice::kNurl &&
      exchange.billing_notice != BillingNotice::kPixel) {
    ex.Fail("billing_notice", "must be burl, nurl or pixel");
  }
  ValidatePriceEncryption(exchange.price_encryption, ex.Member("price_encryption"));
  CheckBeaconBase(ex, "beacon_base_url", exchange.beacon_base_url, /*allow_http=*/true);
  CheckBeaconBase(ex, "secure_beacon_base_url", exchange.secure_beacon_base_url,
                  /*allow_http=*/false);
}

void ValidateServer(const BidderConfig& config, ErrorList* errors) {
  const ServerConfig& server = config.server;
  Checker at("server", errors);
  if (!internal::IsIpAddress(server.listen_address)) {
    at.Fail("listen_address", absl::StrCat("must be an IPv4 or IPv6 address literal; got \"",
                                           Checker::Shown(server.listen_address), "\""));
  }
  at.InRange("port", server.port, 0, 65535);
  at.InRange("io_threads", server.io_threads, 1, 256);
  at.InRange("max_header_bytes", server.max_header_bytes, 1024, 1 << 20);
  if (at.InRange("max_body_bytes", server.max_body_bytes, 1024, 16 << 20)) {
    at.InRange("max_inflated_body_bytes", server.max_inflated_body_bytes, server.max_body_bytes,
               64 << 20);
  }
  at.InRange("first_byte_timeout_ms", server.first_byte_timeout_ms, 1, 60000);
  at.InRange("read_timeout_ms", server.read_timeout_ms, 1, 600000);
  at.InRange("idle_timeout_ms", server.idle_timeout_ms, 1, 3600000);
  at.InRange("max_connections", server.max_connections, 1, 1000000);
  at.InRange("max_connections_per_peer", server.max_connections_per_peer, 1, 1000000);
  at.InRange("intake_nice", server.intake_nice, 0, 19);
  at.InRange("graceful_shutdown_timeout_ms", server.graceful_shutdown_timeout_ms, 0, 600000);
  at.InRange("memory_trim_interval_ms", server.memory_trim_interval_ms, 0, 3600000);

  const std::vector<ExchangeConfig>& exchanges = server.exchanges;
  if (exchanges.empty()) at.Fail("exchanges", "must list at least one exchange");
  std::map<std::string, size_t> names;
  std::map<std::string, size_t> paths;
  for (size_t i = 0; i < exchanges.size(); ++i) {
    const ExchangeConfig& exchange = exchanges[i];
    Checker ex = at.Element("exchanges", i);
    if (!internal::IsIdentifier(exchange.name, 32, "_-", /*lower_case_only=*/true)) {
      ex.Fail("name", "must be 1-32 characters of [a-z0-9_-]");
    } else if (auto [it, inserted] = names.emplace(exchange.name, i); !inserted) {
      ex.Fail("name", Checker::DuplicateOf(at.ElementAt("exchanges", it->second) + ".name"));
    }
    if (!internal::IsHttpPath(exchange.bid_path)) {
      ex.Fail("bid_path",
              "must be an absolute path starting with '/' (printable ASCII without '?', '#' or "
              "'%', at most 256 characters)");
    } else if (exchange.bid_path == "/healthz" || exchange.bid_path == "/readyz" ||
               exchange.bid_path == config.metrics.path) {
      ex.Fail("bid_path",
              absl::StrCat("must not be ", exchange.bid_path, ", which the server serves itself"));
    } else if (auto [it, inserted] = paths.emplace(exchange.bid_path, i); !inserted) {
      ex.Fail("bid_path",
              absl::StrCat("same path as ", at.ElementAt("exchanges", it->second), ".bid_path"));
    }
    if (ex.InRange("default_tmax_ms", exchange.default_tmax_ms, 1, 10000) &&
        ex.InRange("network_allowance_ms", exchange.network_allowance_ms, 0,
                   exchange.default_tmax_ms - 1)) {
      // The profile Get needs part of what is left after the auction's share.
      int64_t lookup_window_us =
          (int64_t{exchange.default_tmax_ms} - exchange.network_allowance_ms) * 1000;
      if (config.bid.auction_budget_us >= lookup_window_us) {
        Checker("bid", errors)
            .Fail("auction_budget_us",
                  absl::StrCat("must be below the ", lookup_window_us, " us that ",
                               at.ElementAt("exchanges", i),
                               " leaves (default_tmax_ms - network_allowance_ms)"));
      }
    }
    ValidateExchangeAnswers(exchange, ex);
  }
}

void ValidateStorage(const StorageConfig& storage, ErrorList* errors) {
  Checker at("storage", errors);
  switch (storage.backend) {
    case StorageBackend::kEmbedded: {
      const EmbeddedStorageConfig& embedded = storage.embedded;
      Checker em = at.Member("embedded");
      if (embedded.path.empty()) em.Fail("path", "must not be empty");
      em.InRange("block_cache_mib", embedded.block_cache_mib, 1, 1 << 20);
      if (!(embedded.in_memory_cache_fraction >= 0 && embedded.in_memory_cache_fraction <= 0.9)) {
        em.Fail("in_memory_cache_fraction", "must be in [0, 0.9]");
      }
      em.InRange("row_cache_mib", embedded.row_cache_mib, 0, 1 << 20);
      em.InRange("write_buffer_mib", embedded.write_buffer_mib, 1, 4096);
      em.InRange("memtable_budget_mib", embedded.memtable_budget_mib, -1,
                 static_cast<int64_t>(static_cast<double>(embedded.block_cache_mib) *
                                      (1.0 - embedded.in_memory_cache_fraction)));
      em.InRange("async_wal_flush_interval_ms", embedded.async_wal_flush_interval_ms, 1, 60000);
      break;
    }
    case StorageBackend::kHBase:
    case StorageBackend::kStorageServer: {
      const HBaseStorageConfig& hbase = storage.hbase;
      Checker hb = at.Member("hbase");
      if (hbase.endpoints.empty()) {
        hb.Fail("endpoints", absl::StrCat("at least one host:port is required for backend ",
                                          StorageBackendName(storage.backend)));
      }
      hb.EachString(
          "endpoints", hbase.endpoints,
          [](const std::string& e) { return internal::IsHostPort(e); },
          "must be host:port or [v6addr]:port with a port in [1, 65535]");
      hb.NoDuplicates("endpoints", hbase.endpoints);
      if (hbase.transport != ThriftTransport::kBuffered &&
          hbase.transport != ThriftTransport::kFramed) {
        hb.Fail("transport", "must be buffered or framed");
      }
      hb.InRange("connect_timeout_ms", hbase.connect_timeout_ms, 1, 60000);
      if (hb.InRange("call_timeout_ms", hbase.call_timeout_ms, 1, 600000)) {
        hb.InRange("hedge_delay_ms", hbase.hedge_delay_ms, 0, hbase.call_timeout_ms - 1);
      }
      hb.InRange("pool_size", hbase.pool_size, 1, 1024);
      hb.InRange("io_threads", hbase.io_threads, 1, 64);
      break;
    }
    default:
      at.Fail("backend", "must be embedded, hbase or storage-server");
  }
}

void ValidateBid(const BidConfig& bid, ErrorList* errors) {
  Checker at("bid", errors);
  CheckSecret(at, "device_key_secret", "device_key_secret_env", bid.device_key_secret,
              bid.device_key_secret_env);
  CheckSecret(at, "beacon_secret", "beacon_secret_env", bid.beacon_secret, bid.beacon_secret_env);
  if (!bid.beacon_secret.empty() && bid.beacon_secret == bid.device_key_secret) {
    at.Fail(bid.beacon_secret_env.empty() ? "beacon_secret" : "beacon_secret_env",
            "must differ from the device key secret");
  }
  if (bid.coppa_policy != CoppaPolicy::kNoBid && bid.coppa_policy != CoppaPolicy::kContextual) {
    at.Fail("coppa_policy", "must be no-bid or contextual");
  }
  at.InRange("auction_budget_us", bid.auction_budget_us, 0, 1000000);
  for (const auto& [code, rate] : bid.currency_rates) {
    std::string path = MemberPath(at.At("currency_rates"), Printable(code));
    if (!internal::IsIsoCurrencyCode(code)) {
      errors->Add(path, "must be an ISO 4217 currency code (3 upper-case letters, e.g. EUR)");
    } else if (!std::isfinite(rate) || rate <= 0) {
      errors->Add(path, "must be > 0");
    } else if (code == "USD" && rate != 1.0) {
      errors->Add(path, "must be 1: rates are USD per unit of each currency");
    }
  }
  if (bid.currency_rates.count("USD") == 0) {
    at.Fail("currency_rates", "must contain USD (rate 1)");
  }
  if (!internal::IsIsoCurrencyCode(bid.default_currency)) {
    at.Fail("default_currency", absl::StrCat("must be an ISO 4217 currency code; got \"",
                                             Checker::Shown(bid.default_currency), "\""));
  } else if (bid.currency_rates.count(bid.default_currency) == 0) {
    at.Fail("default_currency",
            absl::StrCat(bid.default_currency, " has no rate in bid.currency_rates"));
  }
  CheckBeaconBase(at, "beacon_base_url", bid.beacon_base_url, /*allow_http=*/true);
  at.InRange("attribution_window_s", bid.attribution_window_s, 60, 365 * 24 * 3600);
}

void ValidatePacing(const BidderConfig& config, ErrorList* errors) {
  const PacingConfig& pacing = config.pacing;
  Checker at("pacing", errors);
  if (pacing.worker_id != kAutoWorkerId) at.InRange("worker_id", pacing.worker_id, 0, 65535);
  at.InRange("worker_lease_ttl_ms", pacing.worker_lease_ttl_ms, 3000, 600000);
  bool flush_ok = at.InRange("flush_interval_ms", pacing.flush_interval_ms, 100, 600000);
  if (at.InRange("controller_interval_ms", pacing.controller_interval_ms, 100, 600000) &&
      pacing.state_max_age_ms <= pacing.controller_interval_ms) {
    at.Fail("state_max_age_ms",
            absl::StrCat("must be greater than controller_interval_ms (",
                         pacing.controller_interval_ms, "), or every state would be too old"));
  } else {
    at.InRange("state_max_age_ms", pacing.state_max_age_ms, 1, 3600000);
  }
  if (at.InRange("sliding_window_s", pacing.sliding_window_s, 1, 86400) && flush_ok &&
      int64_t{pacing.sliding_window_s} * 1000 < pacing.flush_interval_ms) {
    at.Fail("sliding_window_s", "must cover at least one flush_interval_ms");
  }
  if (pacing.mode == PacingProcessMode::kPacer &&
      config.storage.backend == StorageBackend::kEmbedded) {
    at.Fail("mode",
            "pacer needs a store shared with the bidders: storage.backend hbase or "
            "storage-server");
  } else if (pacing.mode != PacingProcessMode::kSidecar &&
             pacing.mode != PacingProcessMode::kPacer) {
    at.Fail("mode", "must be sidecar or pacer");
  }
}

void ValidatePricing(const PricingConfig& pricing, ErrorList* errors) {
  Checker at("pricing", errors);
  if (at.InRange("fit_interval_s", pricing.fit_interval_s, 10, 86400) &&
      pricing.model_max_age_s <= pricing.fit_interval_s) {
    at.Fail("model_max_age_s",
            absl::StrCat("must be greater than fit_interval_s (", pricing.fit_interval_s,
                         "), or every model would be too old"));
  } else {
    at.InRange("model_max_age_s", pricing.model_max_age_s, 1, 604800);
  }
  at.InRange("window_hours", pricing.window_hours, 1, 168);
  at.InRange("min_samples", pricing.min_samples, 10, 10000000);
  at.InRealRange("exploration_rate", pricing.exploration_rate, 0.0, 0.5);
  at.InRealRange("exploration_width", pricing.exploration_width, 0.01, 0.5);
  at.InRealRange("max_win_rate_loss", pricing.max_win_rate_loss, 0.0, 1.0);
  at.InRange("max_buckets", pricing.max_buckets, 1, 1000000);
  at.InRange("rate_window_days", pricing.rate_window_days, 1, 60);
  at.InRealRange("device_prior_impressions", pricing.device_prior_impressions, 1.0, 1e6);
  at.InRealRange("device_prior_clicks", pricing.device_prior_clicks, 1.0, 1e6);
  at.InRange("device_history_days", pricing.device_history_days, 0, 365);
  at.InRealRange("campaign_prior_events", pricing.campaign_prior_events, 1.0, 1e5);
}

void ValidateTelemetry(const TelemetryConfig& telemetry, ErrorList* errors) {
  Checker at("telemetry", errors);
  at.InRange("write_interval_s", telemetry.write_interval_s, 1, 3600);
  const bool instance_ok =
      telemetry.instance.size() <= 128 &&
      std::all_of(telemetry.instance.begin(), telemetry.instance.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '/' ||
               c == '-';
      });
  if (!instance_ok) at.Fail("instance", "must be 1-128 characters of [A-Za-z0-9._/-]");
  if (at.InRange("max_series", telemetry.max_series, 1, 1000000)) {
    at.InRange("max_series_per_metric", telemetry.max_series_per_metric, 1, telemetry.max_series);
  }
}

void ValidateEvents(const EventsConfig& events, ErrorList* errors) {
  Checker at = Checker("events", errors).Member("hot_keys");
  const HotKeysConfig& hot = events.hot_keys;
  at.InRange("window_ms", hot.window_ms, 0, 86400000);
  if (at.InRange("tracked_keys", hot.tracked_keys, 1, 100000)) {
    at.InRange("reported_keys", hot.reported_keys, 0, hot.tracked_keys);
  }
  if (at.InRange("max_events_per_window", hot.max_events_per_window, 0, 1000000000) &&
      hot.max_events_per_window > 0 && hot.window_ms == 0) {
    at.Fail("max_events_per_window", "needs a counting window (window_ms > 0)");
  }
}

void ValidateBeaconLog(const BeaconLogConfig& log, ErrorList* errors) {
  Checker at("beacon_log", errors);
  if (log.backend == BeaconLogBackend::kKafka) {
    Checker kafka = at.Member("kafka");
    if (log.kafka.brokers.empty()) kafka.Fail("brokers", "required for the kafka backend");
    if (log.kafka.topic.empty()) kafka.Fail("topic", "must not be empty");
    if (log.kafka.group_id.empty()) kafka.Fail("group_id", "must not be empty");
    kafka.InRange("partitions", log.kafka.partitions, 1, 10000);
    kafka.InRange("replication_factor", log.kafka.replication_factor, 1, 16);
    kafka.InRange("delivery_timeout_ms", log.kafka.delivery_timeout_ms, 1000, 600000);
  }
  Checker embedded = at.Member("embedded");
  if (embedded.InRange("segment_mib", log.embedded.segment_mib, 1, 1024)) {
    embedded.InRange("max_mib", log.embedded.max_mib, log.embedded.segment_mib, 1048576);
  }
  embedded.InRange("group_wait_us", log.embedded.group_wait_us, 0, 100000);
  Checker stream = at.Member("stream");
  stream.InRange("batch_records", log.stream.batch_records, 1, 100000);
  stream.InRange("apply_threads", log.stream.apply_threads, 1, 64);
  stream.InRange("nice", log.stream.nice, 0, 19);
  stream.InRange("retry_max_ms", log.stream.retry_max_ms, 50, 600000);
}

void ValidateSessions(const BidderConfig& config, ErrorList* errors) {
  const SessionsConfig& sessions = config.sessions;
  Checker at("sessions", errors);
  std::map<std::string, size_t> users;
  for (size_t i = 0; i < sessions.operators.size(); ++i) {
    const OperatorConfig& op = sessions.operators[i];
    Checker o = at.Element("operators", i);
    if (!internal::IsIdentifier(op.user, 64, "._@-")) {
      o.Fail("user", "must be 1-64 characters of [A-Za-z0-9._@-]");
    } else if (auto [it, inserted] = users.emplace(op.user, i); !inserted) {
      o.Fail("user", Checker::DuplicateOf(at.ElementAt("operators", it->second) + ".user"));
    }
    if (!internal::IsArgon2idHashString(op.password_hash)) {
      o.Fail("password_hash",
             "must be an argon2id hash string as crypto_pwhash_str makes it "
             "($argon2id$v=19$m=...,t=...,p=...$salt$hash)");
    }
  }
  if (at.InRange("absolute_lifetime_s", sessions.absolute_lifetime_s, 60, 30 * 24 * 3600) &&
      at.InRange("idle_timeout_s", sessions.idle_timeout_s, 1, sessions.absolute_lifetime_s)) {
    at.InRange("touch_debounce_s", sessions.touch_debounce_s, 0, sessions.idle_timeout_s - 1);
  }
  if (!sessions.cookie_secure && !IsLoopbackAddress(config.server.listen_address)) {
    at.Fail("cookie_secure",
            absl::StrCat("may be false only when server.listen_address is a loopback address "
                         "(it is ",
                         Checker::Shown(config.server.listen_address), ")"));
  }
  at.EachString("trusted_proxies", sessions.trusted_proxies, internal::IsIpAddress,
                "must be an IPv4 or IPv6 address");
  const LoginRateLimitConfig& limit = sessions.login_rate_limit;
  Checker rl = at.Member("login_rate_limit");
  rl.InRange("max_failures_per_user", limit.max_failures_per_user, 1, 1000);
  rl.InRange("max_failures_per_address", limit.max_failures_per_address, 1, 100000);
  rl.InRange("window_s", limit.window_s, 1, 86400);
  if (rl.InRange("lockout_max_s", limit.lockout_max_s, 1, 86400)) {
    rl.InRange("lockout_initial_s", limit.lockout_initial_s, 1, limit.lockout_max_s);
  }
}

void ValidateMetrics(const MetricsConfig& metrics, ErrorList* errors) {
  Checker at("metrics", errors);
  if (!internal::IsHttpPath(metrics.path)) {
    at.Fail("path", "must be an absolute path starting with '/'");
  } else if (metrics.path == "/healthz" || metrics.path == "/readyz") {
    at.Fail("path", absl::StrCat("must not be ", metrics.path));
  }
}

// TCF ids (purposes, special features): each in [1, max], none twice.
void CheckTcfIds(const Checker& at, std::string_view key, const std::vector<int>& ids, int max,
                 const char* what) {
  std::map<int, size_t> seen;
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string element = ElementPath(std::string(key), i);
    if (ids[i] < 1 || ids[i] > max) {
      at.Fail(element, absl::StrCat("must be a TCF ", what, " id in [1, ", max, "], got ", ids[i]));
    } else if (auto [it, inserted] = seen.emplace(ids[i], i); !inserted) {
      at.Fail(element, Checker::DuplicateOf(at.ElementAt(key, it->second)));
    }
  }
}

void ValidatePrivacyPurposes(const PrivacyPurposesConfig& use, const Checker& at) {
  CheckTcfIds(at, "purposes", use.purposes, 24, "purpose");
  bool purpose_one = false;
  for (int purpose : use.purposes) purpose_one = purpose_one || purpose == 1;
  if (use.legitimate_interest && purpose_one) {
    at.Fail("legitimate_interest",
            "must be false when purposes holds 1: the TCF policies allow only consent for "
            "purpose 1");
  }
}

void ValidatePrivacy(const PrivacyConfig& privacy, ErrorList* errors) {
  Checker at("privacy", errors);
  at.InRange("gvl_vendor_id", privacy.gvl_vendor_id, 0, 65535);
  at.InRange("min_tcf_policy_version", privacy.min_tcf_policy_version, 0, 63);
  ValidatePrivacyPurposes(privacy.device_access, at.Member("device_access"));
  ValidatePrivacyPurposes(privacy.basic_ads, at.Member("basic_ads"));
  ValidatePrivacyPurposes(privacy.segment_targeting, at.Member("segment_targeting"));
  ValidatePrivacyPurposes(privacy.measurement, at.Member("measurement"));
  CheckTcfIds(at, "precise_geo_special_features", privacy.precise_geo_special_features, 12,
              "special feature");
}

void ValidateCampaignStore(const BidderConfig& config, ErrorList* errors) {
  const CampaignStoreConfig& store = config.campaign_store;
  Checker at("campaign_store", errors);
  at.InRange("follow_interval_ms", store.follow_interval_ms, 50, 1000);
  at.InRange("unreadable_after_s", store.unreadable_after_s, 1, 86400);
  at.InRange("max_campaigns", store.max_campaigns,
             std::max<int>(1, static_cast<int>(config.campaigns.size())), 1000000);
}

}  // namespace

absl::Status ValidateCampaign(const CampaignConfig& campaign, const BidderConfig& context) {
  ErrorList errors;
  internal::ValidateCampaign(campaign, context, Checker("", &errors));
  return errors.ToStatus();
}

absl::Status ValidateConfig(const BidderConfig& config) {
  ErrorList errors;
  ValidateServer(config, &errors);
  ValidateStorage(config.storage, &errors);
  ValidateBid(config.bid, &errors);
  internal::ValidateCampaigns(config, &errors);
  ValidatePacing(config, &errors);
  ValidateCampaignStore(config, &errors);
  ValidateTelemetry(config.telemetry, &errors);
  ValidateEvents(config.events, &errors);
  ValidateBeaconLog(config.beacon_log, &errors);
  ValidateSessions(config, &errors);
  ValidateMetrics(config.metrics, &errors);
  ValidatePrivacy(config.privacy, &errors);
  ValidatePricing(config.pricing, &errors);
  return errors.ToStatus();
}

}  // namespace rtb::config
