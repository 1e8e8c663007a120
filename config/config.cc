// Decoding of the configuration document into BidderConfig: JSON types,
// unknown keys, defaults and secrets from the environment. Range, syntax and
// cross-field rules live in config_validation.cc.
#include "config/config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "config/internal/error_list.h"
#include "config/internal/json_fields.h"
#include "config/internal/media_markup.h"
#include "config/internal/value_syntax.h"

namespace rtb::config {
namespace {

using internal::ElementPath;
using internal::EnumName;
using internal::ErrorList;
using internal::ObjectFields;
using nlohmann::json;

// A configuration file larger than this is certainly not one.
constexpr std::streamsize kMaxConfigFileBytes = 16 << 20;

constexpr EnumName<StorageBackend> kStorageBackends[] = {
    {"embedded", StorageBackend::kEmbedded},
    {"hbase", StorageBackend::kHBase},
    {"storage-server", StorageBackend::kStorageServer},
};
constexpr EnumName<ThriftTransport> kThriftTransports[] = {
    {"buffered", ThriftTransport::kBuffered},
    {"framed", ThriftTransport::kFramed},
};
constexpr EnumName<CoppaPolicy> kCoppaPolicies[] = {
    {"no-bid", CoppaPolicy::kNoBid},
    {"contextual", CoppaPolicy::kContextual},
};
constexpr EnumName<StoreOutagePolicy> kStoreOutagePolicies[] = {
    {"contextual_only", StoreOutagePolicy::kContextualOnly},
    {"no_bid", StoreOutagePolicy::kNoBid},
    {"as_today", StoreOutagePolicy::kAsToday},
};
constexpr EnumName<PacingMode> kPacingModes[] = {
    {"even", PacingMode::kEven},
    {"asap", PacingMode::kAsap},
};
constexpr EnumName<CreativeFormat> kCreativeFormats[] = {
    {"banner", CreativeFormat::kBanner},
    {"video", CreativeFormat::kVideo},
    {"native", CreativeFormat::kNative},
    {"audio", CreativeFormat::kAudio},
};
constexpr EnumName<BeaconLogBackend> kBeaconLogBackends[] = {
    {"embedded", BeaconLogBackend::kEmbedded},
    {"kafka", BeaconLogBackend::kKafka},
};
constexpr EnumName<BeaconLogSync> kBeaconLogSyncs[] = {
    {"every_batch", BeaconLogSync::kEveryBatch},
    {"none", BeaconLogSync::kNone},
};
constexpr EnumName<BillingNotice> kBillingNotices[] = {
    {"burl", BillingNotice::kBurl},
    {"nurl", BillingNotice::kNurl},
    {"pixel", BillingNotice::kPixel},
};
constexpr EnumName<StartSlot> kStartSlots[] = {
    {"pre", StartSlot::kPre},
    {"mid", StartSlot::kMid},
    {"post", StartSlot::kPost},
};
constexpr EnumName<RewardedPolicy> kRewardedPolicies[] = {
    {"any", RewardedPolicy::kAny},
    {"only", RewardedPolicy::kOnly},
    {"never", RewardedPolicy::kNever},
};
constexpr EnumName<CampaignGoal> kCampaignGoals[] = {
    {"cpm", CampaignGoal::kCpm},
    {"cpc", CampaignGoal::kCpc},
    {"cpa", CampaignGoal::kCpa},
};
constexpr EnumName<PacingProcessMode> kPacingProcessModes[] = {
    {"sidecar", PacingProcessMode::kSidecar},
    {"pacer", PacingProcessMode::kPacer},
};

template <typename E, size_t N>
const char* NameOf(const EnumName<E> (&names)[N], E value) {
  for (const EnumName<E>& name : names) {
    if (name.value == value) return name.name;
  }
  return "?";
}

// Decodes the array member `key` element by element with `decode_one`,
// replacing the default list when present.
template <typename T, typename DecodeOne>
void ReadObjectList(ObjectFields& fields, std::string_view key, std::vector<T>* out,
                    DecodeOne decode_one) {
  const json* value = fields.Find(key);
  if (value == nullptr) return;
  std::string path = fields.PathOf(key);
  if (!value->is_array()) {
    fields.errors()->Add(path,
                         absl::StrCat("must be an array of objects, got ", value->type_name()));
    return;
  }
  out->assign(value->size(), T{});
  for (size_t i = 0; i < value->size(); ++i) {
    decode_one((*value)[i], ElementPath(path, i), fields.errors(), &(*out)[i]);
  }
}

// Decodes the array member `key` of enum spellings into `*out`, each
// unknown spelling an error naming it and the known ones.
template <typename E, size_t N>
void ReadEnumList(ObjectFields& fields, std::string_view key, const EnumName<E> (&names)[N],
                  std::vector<E>* out) {
  std::vector<std::string> texts;
  if (!fields.Read(key, &texts)) return;
  out->clear();
  for (size_t i = 0; i < texts.size(); ++i) {
    bool found = false;
    for (const EnumName<E>& name : names) {
      if (texts[i] == name.name) {
        out->push_back(name.value);
        found = true;
      }
    }
    if (!found) {
      std::string known;
      for (const EnumName<E>& name : names) {
        absl::StrAppend(&known, known.empty() ? "" : ", ", name.name);
      }
      fields.errors()->Add(
          ElementPath(fields.PathOf(key), i),
          absl::StrCat("must be one of ", known, "; got \"", internal::Printable(texts[i]), "\""));
    }
  }
}

// Reads the nested object `key` with `decode` when present.
template <typename T, typename Decode>
void ReadObject(ObjectFields& fields, std::string_view key, T* out, Decode decode) {
  const json* value = fields.Find(key);
  if (value != nullptr) decode(*value, fields.PathOf(key), fields.errors(), out);
}

// A secret given inline under `key` or through the environment variable named
// under `env_key`, exactly one of them. Never puts the secret in a message.
void ReadSecret(ObjectFields& fields, const char* key, const char* env_key, std::string* secret,
                std::string* env_name) {
  bool inline_given = fields.Has(key);
  bool env_given = fields.Has(env_key);
  if (inline_given && env_given) {
    fields.errors()->Add(fields.PathOf(key),
                         absl::StrCat("give either ", key, " or ", env_key, ", not both"));
    return;
  }
  if (inline_given) {
    fields.Read(key, secret);
    return;
  }
  if (!env_given || !fields.Read(env_key, env_name)) return;
  std::string path = fields.PathOf(env_key);
  if (!internal::IsEnvironmentVariableName(*env_name)) {
    fields.errors()->Add(path, "must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)");
    return;
  }
  const char* value = std::getenv(env_name->c_str());
  if (value == nullptr || *value == '\0') {
    fields.errors()->Add(path,
                         absl::StrCat("environment variable ", *env_name, " is not set or empty"));
    return;
  }
  *secret = value;
}

void DecodePriceEncryption(const json& value, const std::string& path, ErrorList* errors,
                           PriceEncryptionConfig* out) {
  ObjectFields fields(value, path, errors);
  ReadSecret(fields, "encryption_key", "encryption_key_env", &out->encryption_key,
             &out->encryption_key_env);
  ReadSecret(fields, "integrity_key", "integrity_key_env", &out->integrity_key,
             &out->integrity_key_env);
  fields.RejectUnknownKeys();
}

void DecodeExchange(const json& value, const std::string& path, ErrorList* errors,
                    ExchangeConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("name", &out->name);
  if (!fields.Has("bid_path")) out->bid_path = absl::StrCat("/openrtb2/bid/", out->name);
  fields.Read("bid_path", &out->bid_path);
  fields.Read("default_tmax_ms", &out->default_tmax_ms);
  fields.Read("network_allowance_ms", &out->network_allowance_ms);
  fields.Read("openrtb_version", &out->openrtb_version);
  fields.Read("strict_openrtb_2_5", &out->strict_openrtb_2_5);
  fields.Read("seat", &out->seat);
  fields.ReadEnum("billing_notice", kBillingNotices, &out->billing_notice);
  ReadObject(fields, "price_encryption", &out->price_encryption, DecodePriceEncryption);
  fields.Read("beacon_base_url", &out->beacon_base_url);
  fields.Read("secure_beacon_base_url", &out->secure_beacon_base_url);
  fields.Read("gzip_responses", &out->gzip_responses);
  fields.RejectUnknownKeys();
}

void DecodeServer(const json& value, const std::string& path, ErrorList* errors,
                  ServerConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("listen_address", &out->listen_address);
  fields.Read("port", &out->port);
  fields.Read("io_threads", &out->io_threads);
  fields.Read("max_header_bytes", &out->max_header_bytes);
  fields.Read("max_body_bytes", &out->max_body_bytes);
  fields.Read("max_inflated_body_bytes", &out->max_inflated_body_bytes);
  fields.Read("first_byte_timeout_ms", &out->first_byte_timeout_ms);
  fields.Read("read_timeout_ms", &out->read_timeout_ms);
  fields.Read("idle_timeout_ms", &out->idle_timeout_ms);
  fields.Read("max_connections", &out->max_connections);
  fields.Read("max_connections_per_peer", &out->max_connections_per_peer);
  fields.Read("intake_thread", &out->intake_thread);
  fields.Read("intake_nice", &out->intake_nice);
  fields.Read("graceful_shutdown_timeout_ms", &out->graceful_shutdown_timeout_ms);
  fields.Read("memory_trim_interval_ms", &out->memory_trim_interval_ms);
  fields.Read("console_enabled", &out->console_enabled);
  fields.Read("admin_api_enabled", &out->admin_api_enabled);
  ReadObjectList(fields, "exchanges", &out->exchanges, DecodeExchange);
  fields.RejectUnknownKeys();
}

void DecodeEmbedded(const json& value, const std::string& path, ErrorList* errors,
                    EmbeddedStorageConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("path", &out->path);
  fields.Read("block_cache_mib", &out->block_cache_mib);
  fields.Read("in_memory_cache_fraction", &out->in_memory_cache_fraction);
  fields.Read("row_cache_mib", &out->row_cache_mib);
  fields.Read("write_buffer_mib", &out->write_buffer_mib);
  fields.Read("memtable_budget_mib", &out->memtable_budget_mib);
  fields.Read("async_wal_flush_interval_ms", &out->async_wal_flush_interval_ms);
  fields.RejectUnknownKeys();
}

void DecodeHBase(const json& value, const std::string& path, ErrorList* errors,
                 HBaseStorageConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("endpoints", &out->endpoints);
  fields.ReadEnum("transport", kThriftTransports, &out->transport);
  fields.Read("connect_timeout_ms", &out->connect_timeout_ms);
  fields.Read("call_timeout_ms", &out->call_timeout_ms);
  fields.Read("pool_size", &out->pool_size);
  fields.Read("hedge_delay_ms", &out->hedge_delay_ms);
  fields.Read("io_threads", &out->io_threads);
  fields.RejectUnknownKeys();
}

void DecodeStorage(const json& value, const std::string& path, ErrorList* errors,
                   StorageConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.ReadEnum("backend", kStorageBackends, &out->backend);
  ReadObject(fields, "embedded", &out->embedded, DecodeEmbedded);
  ReadObject(fields, "hbase", &out->hbase, DecodeHBase);
  fields.RejectUnknownKeys();
}

void DecodeBid(const json& value, const std::string& path, ErrorList* errors, BidConfig* out) {
  ObjectFields fields(value, path, errors);
  ReadSecret(fields, "device_key_secret", "device_key_secret_env", &out->device_key_secret,
             &out->device_key_secret_env);
  ReadSecret(fields, "beacon_secret", "beacon_secret_env", &out->beacon_secret,
             &out->beacon_secret_env);
  fields.Read("skip_lookup_on_lmt", &out->skip_lookup_on_lmt);
  fields.Read("skip_lookup_on_dnt", &out->skip_lookup_on_dnt);
  fields.ReadEnum("coppa_policy", kCoppaPolicies, &out->coppa_policy);
  fields.Read("auction_budget_us", &out->auction_budget_us);
  fields.Read("default_currency", &out->default_currency);
  if (fields.Read("currency_rates", &out->currency_rates)) {
    out->currency_rates.try_emplace("USD", 1.0);
  }
  fields.Read("beacon_base_url", &out->beacon_base_url);
  fields.Read("attribution_window_s", &out->attribution_window_s);
  fields.RejectUnknownKeys();
}

void DecodeNativeImage(const json& value, const std::string& path, ErrorList* errors,
                       NativeImageConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("type", &out->type);
  fields.Read("url", &out->url);
  fields.Read("w", &out->w);
  fields.Read("h", &out->h);
  fields.Read("mime", &out->mime);
  fields.RejectUnknownKeys();
}

void DecodeNativeData(const json& value, const std::string& path, ErrorList* errors,
                      NativeDataConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("type", &out->type);
  fields.Read("value", &out->value);
  fields.RejectUnknownKeys();
}

void DecodeNativeAssets(const json& value, const std::string& path, ErrorList* errors,
                        NativeAssetsConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("title", &out->title);
  ReadObjectList(fields, "images", &out->images, DecodeNativeImage);
  ReadObjectList(fields, "data", &out->data, DecodeNativeData);
  fields.Read("video_vast", &out->video_vast);
  fields.Read("video_duration_s", &out->video_duration_s);
  fields.Read("video_mimes", &out->video_mimes);
  if (!fields.Read("video_protocol", &out->video_protocol)) {
    out->video_protocol = internal::MarkupProtocol(out->video_vast);
  }
  fields.Read("click_trackers", &out->click_trackers);
  fields.RejectUnknownKeys();
}

void DecodeCreative(const json& value, const std::string& path, ErrorList* errors,
                    CreativeConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("id", &out->id);
  fields.ReadEnum("format", kCreativeFormats, &out->format);
  fields.Read("w", &out->w);
  fields.Read("h", &out->h);
  fields.Read("mimes", &out->mimes);
  fields.Read("duration_s", &out->duration_s);
  fields.Read("adm", &out->adm);
  ReadObject(fields, "native", &out->native, DecodeNativeAssets);
  fields.Read("nurl_delivery", &out->nurl_delivery);
  fields.Read("landing_url", &out->landing_url);
  fields.Read("iab_categories", &out->iab_categories);
  fields.Read("attr", &out->attr);
  fields.Read("api", &out->api);
  fields.Read("language", &out->language);
  fields.Read("adid", &out->adid);
  fields.Read("iurl", &out->iurl);
  const bool media = out->format == CreativeFormat::kVideo || out->format == CreativeFormat::kAudio;
  // Defaults that depend on the format: the markup's VAST/DAAST version,
  // linear video.
  if (!fields.Read("protocol", &out->protocol) && media) {
    out->protocol = internal::MarkupProtocol(out->adm);
  }
  if (!fields.Read("linearity", &out->linearity) && out->format == CreativeFormat::kVideo) {
    out->linearity = 1;
  }
  ReadEnumList(fields, "start_slots", kStartSlots, &out->start_slots);
  fields.Read("placements", &out->placements);
  fields.Read("skippable", &out->skippable);
  fields.Read("bitrate_kbps", &out->bitrate_kbps);
  fields.RejectUnknownKeys();
}

void DecodeTargeting(const json& value, const std::string& path, ErrorList* errors,
                     TargetingConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("countries", &out->countries);
  fields.Read("device_types", &out->device_types);
  fields.Read("content_categories", &out->content_categories);
  fields.Read("domains_allow", &out->domains_allow);
  fields.Read("domains_deny", &out->domains_deny);
  fields.Read("required_segments", &out->required_segments);
  fields.Read("deal_ids", &out->deal_ids);
  fields.ReadEnum("rewarded", kRewardedPolicies, &out->rewarded);
  fields.RejectUnknownKeys();
}

void DecodeDsaTransparency(const json& value, const std::string& path, ErrorList* errors,
                           DsaTransparencyConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("domain", &out->domain);
  fields.Read("dsaparams", &out->dsaparams);
  fields.RejectUnknownKeys();
}

void DecodeCampaignDsa(const json& value, const std::string& path, ErrorList* errors,
                       CampaignDsaConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("behalf", &out->behalf);
  fields.Read("paid", &out->paid);
  fields.Read("adrender", &out->adrender);
  ReadObjectList(fields, "transparency", &out->transparency, DecodeDsaTransparency);
  fields.RejectUnknownKeys();
}

void DecodeGoal(const json& value, const std::string& path, ErrorList* errors,
                CampaignGoalConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.ReadEnum("type", kCampaignGoals, &out->type);
  fields.Read("target_cpc", &out->target_cpc);
  fields.Read("target_cpa", &out->target_cpa);
  fields.Read("prior_ctr", &out->prior_ctr);
  fields.Read("prior_cvr", &out->prior_cvr);
  fields.RejectUnknownKeys();
}

void DecodeDaypart(const json& value, const std::string& path, ErrorList* errors,
                   DaypartConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("days", &out->days);
  fields.Read("from_hour", &out->from_hour);
  fields.Read("to_hour", &out->to_hour);
  fields.RejectUnknownKeys();
}

void DecodeSchedule(const json& value, const std::string& path, ErrorList* errors,
                    CampaignScheduleConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("start", &out->start);
  fields.Read("end", &out->end);
  ReadObjectList(fields, "dayparts", &out->dayparts, DecodeDaypart);
  fields.RejectUnknownKeys();
}

// `default_currency` is bid.default_currency, decoded before the campaigns.
void DecodeCampaign(const json& value, const std::string& path, ErrorList* errors,
                    const std::string& default_currency, CampaignConfig* out) {
  ObjectFields fields(value, path, errors);
  if (value.is_object()) out->source_json = value.dump();
  fields.Read("id", &out->id);
  fields.Read("enabled", &out->enabled);
  fields.Read("seat", &out->seat);
  fields.Read("advertiser_domains", &out->advertiser_domains);
  fields.Read("iab_categories", &out->iab_categories);
  fields.Read("cattax", &out->cattax);
  fields.Read("daily_budget_micros", &out->daily_budget_micros);
  fields.Read("lifetime_budget_micros", &out->lifetime_budget_micros);
  if (!fields.Read("currency", &out->currency)) out->currency = default_currency;
  fields.ReadEnum("pacing_mode", kPacingModes, &out->pacing_mode);
  fields.Read("time_zone", &out->time_zone);
  fields.Read("frequency_cap_per_day", &out->frequency_cap_per_day);
  fields.ReadEnum("store_outage_policy", kStoreOutagePolicies, &out->store_outage_policy);
  fields.Read("max_bid_cpm", &out->max_bid_cpm);
  ReadObject(fields, "goal", &out->goal, DecodeGoal);
  ReadObject(fields, "schedule", &out->schedule, DecodeSchedule);
  ReadObject(fields, "targeting", &out->targeting, DecodeTargeting);
  ReadObjectList(fields, "creatives", &out->creatives, DecodeCreative);
  if (fields.Has("dsa")) {
    ReadObject(fields, "dsa", &out->dsa.emplace(), DecodeCampaignDsa);
  }
  fields.RejectUnknownKeys();
}

// A number, or "auto" (kAutoWorkerId).
void ReadWorkerId(ObjectFields& fields, int* out) {
  const json* value = fields.Find("worker_id");
  if (value == nullptr) return;
  if (value->is_string()) {
    if (value->get<std::string>() == "auto") {
      *out = kAutoWorkerId;
    } else {
      fields.errors()->Add(fields.PathOf("worker_id"),
                           "must be \"auto\" or an integer in [0, 65535]");
    }
    return;
  }
  fields.Read("worker_id", out);
}

void DecodePacing(const json& value, const std::string& path, ErrorList* errors,
                  PacingConfig* out) {
  ObjectFields fields(value, path, errors);
  ReadWorkerId(fields, &out->worker_id);
  fields.Read("worker_lease_ttl_ms", &out->worker_lease_ttl_ms);
  fields.Read("flush_interval_ms", &out->flush_interval_ms);
  fields.Read("controller_interval_ms", &out->controller_interval_ms);
  fields.Read("state_max_age_ms", &out->state_max_age_ms);
  fields.Read("sliding_window_s", &out->sliding_window_s);
  fields.ReadEnum("mode", kPacingProcessModes, &out->mode);
  fields.RejectUnknownKeys();
}

void DecodeCampaignStore(const json& value, const std::string& path, ErrorList* errors,
                         CampaignStoreConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("follow_interval_ms", &out->follow_interval_ms);
  fields.Read("unreadable_after_s", &out->unreadable_after_s);
  fields.Read("max_campaigns", &out->max_campaigns);
  fields.RejectUnknownKeys();
}

void DecodeTelemetry(const json& value, const std::string& path, ErrorList* errors,
                     TelemetryConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("enabled", &out->enabled);
  fields.Read("write_interval_s", &out->write_interval_s);
  fields.Read("instance", &out->instance);
  fields.Read("max_series", &out->max_series);
  fields.Read("max_series_per_metric", &out->max_series_per_metric);
  fields.Read("query_requires_login", &out->query_requires_login);
  fields.RejectUnknownKeys();
}

void DecodeHotKeys(const json& value, const std::string& path, ErrorList* errors,
                   HotKeysConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("window_ms", &out->window_ms);
  fields.Read("tracked_keys", &out->tracked_keys);
  fields.Read("reported_keys", &out->reported_keys);
  fields.Read("max_events_per_window", &out->max_events_per_window);
  fields.RejectUnknownKeys();
}

void DecodeEvents(const json& value, const std::string& path, ErrorList* errors,
                  EventsConfig* out) {
  ObjectFields fields(value, path, errors);
  ReadObject(fields, "hot_keys", &out->hot_keys, DecodeHotKeys);
  fields.RejectUnknownKeys();
}

void DecodeEmbeddedBeaconLog(const json& value, const std::string& path, ErrorList* errors,
                             EmbeddedBeaconLogConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("path", &out->path);
  fields.Read("segment_mib", &out->segment_mib);
  fields.Read("max_mib", &out->max_mib);
  fields.ReadEnum("sync", kBeaconLogSyncs, &out->sync);
  fields.Read("group_wait_us", &out->group_wait_us);
  fields.RejectUnknownKeys();
}

void DecodeKafkaBeaconLog(const json& value, const std::string& path, ErrorList* errors,
                          KafkaBeaconLogConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("brokers", &out->brokers);
  fields.Read("topic", &out->topic);
  fields.Read("group_id", &out->group_id);
  fields.Read("partitions", &out->partitions);
  fields.Read("replication_factor", &out->replication_factor);
  fields.Read("delivery_timeout_ms", &out->delivery_timeout_ms);
  fields.RejectUnknownKeys();
}

void DecodeStream(const json& value, const std::string& path, ErrorList* errors,
                  StreamConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("in_process", &out->in_process);
  fields.Read("batch_records", &out->batch_records);
  fields.Read("apply_threads", &out->apply_threads);
  fields.Read("nice", &out->nice);
  fields.Read("retry_max_ms", &out->retry_max_ms);
  fields.RejectUnknownKeys();
}

void DecodeBeaconLog(const json& value, const std::string& path, ErrorList* errors,
                     BeaconLogConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.ReadEnum("backend", kBeaconLogBackends, &out->backend);
  ReadObject(fields, "embedded", &out->embedded, DecodeEmbeddedBeaconLog);
  ReadObject(fields, "kafka", &out->kafka, DecodeKafkaBeaconLog);
  ReadObject(fields, "stream", &out->stream, DecodeStream);
  fields.RejectUnknownKeys();
}

void DecodeOperator(const json& value, const std::string& path, ErrorList* errors,
                    OperatorConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("user", &out->user);
  fields.Read("password_hash", &out->password_hash);
  fields.RejectUnknownKeys();
}

void DecodeLoginRateLimit(const json& value, const std::string& path, ErrorList* errors,
                          LoginRateLimitConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("max_failures_per_user", &out->max_failures_per_user);
  fields.Read("max_failures_per_address", &out->max_failures_per_address);
  fields.Read("window_s", &out->window_s);
  fields.Read("lockout_initial_s", &out->lockout_initial_s);
  fields.Read("lockout_max_s", &out->lockout_max_s);
  fields.RejectUnknownKeys();
}

void DecodeSessions(const json& value, const std::string& path, ErrorList* errors,
                    SessionsConfig* out) {
  ObjectFields fields(value, path, errors);
  ReadObjectList(fields, "operators", &out->operators, DecodeOperator);
  fields.Read("absolute_lifetime_s", &out->absolute_lifetime_s);
  fields.Read("idle_timeout_s", &out->idle_timeout_s);
  fields.Read("touch_debounce_s", &out->touch_debounce_s);
  fields.Read("cookie_secure", &out->cookie_secure);
  fields.Read("trusted_proxies", &out->trusted_proxies);
  ReadObject(fields, "login_rate_limit", &out->login_rate_limit, DecodeLoginRateLimit);
  fields.RejectUnknownKeys();
}

void DecodePrivacyPurposes(const json& value, const std::string& path, ErrorList* errors,
                           PrivacyPurposesConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("purposes", &out->purposes);
  fields.Read("legitimate_interest", &out->legitimate_interest);
  fields.RejectUnknownKeys();
}

void DecodePrivacy(const json& value, const std::string& path, ErrorList* errors,
                   PrivacyConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("gvl_vendor_id", &out->gvl_vendor_id);
  fields.Read("gdpr_applies_by_geo", &out->gdpr_applies_by_geo);
  fields.Read("min_tcf_policy_version", &out->min_tcf_policy_version);
  ReadObject(fields, "device_access", &out->device_access, DecodePrivacyPurposes);
  ReadObject(fields, "basic_ads", &out->basic_ads, DecodePrivacyPurposes);
  ReadObject(fields, "segment_targeting", &out->segment_targeting, DecodePrivacyPurposes);
  ReadObject(fields, "measurement", &out->measurement, DecodePrivacyPurposes);
  fields.Read("precise_geo_special_features", &out->precise_geo_special_features);
  fields.Read("us_opt_out_counts_frequency_caps", &out->us_opt_out_counts_frequency_caps);
  fields.RejectUnknownKeys();
}

void DecodePricing(const json& value, const std::string& path, ErrorList* errors,
                   PricingConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("shading_enabled", &out->shading_enabled);
  fields.Read("fit_interval_s", &out->fit_interval_s);
  fields.Read("model_max_age_s", &out->model_max_age_s);
  fields.Read("window_hours", &out->window_hours);
  fields.Read("min_samples", &out->min_samples);
  fields.Read("exploration_rate", &out->exploration_rate);
  fields.Read("exploration_width", &out->exploration_width);
  fields.Read("max_win_rate_loss", &out->max_win_rate_loss);
  fields.Read("max_buckets", &out->max_buckets);
  fields.Read("rate_window_days", &out->rate_window_days);
  fields.Read("device_prior_impressions", &out->device_prior_impressions);
  fields.Read("device_prior_clicks", &out->device_prior_clicks);
  fields.Read("device_history_days", &out->device_history_days);
  fields.Read("campaign_prior_events", &out->campaign_prior_events);
  fields.RejectUnknownKeys();
}

void DecodeMetrics(const json& value, const std::string& path, ErrorList* errors,
                   MetricsConfig* out) {
  ObjectFields fields(value, path, errors);
  fields.Read("path", &out->path);
  fields.RejectUnknownKeys();
}

}  // namespace

absl::StatusOr<BidderConfig> ParseConfig(std::string_view text) {
  ErrorList errors;
  json document;
  if (!internal::ParseJsonDocument(text, &document, &errors)) return errors.ToStatus();
  if (!document.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the configuration must be a JSON object, got ", document.type_name()));
  }
  BidderConfig config;
  ObjectFields root(document, "", &errors);
  ReadObject(root, "server", &config.server, DecodeServer);
  ReadObject(root, "storage", &config.storage, DecodeStorage);
  ReadObject(root, "bid", &config.bid, DecodeBid);
  ReadObjectList(
      root, "campaigns", &config.campaigns,
      [&](const json& value, const std::string& path, ErrorList* list, CampaignConfig* out) {
        DecodeCampaign(value, path, list, config.bid.default_currency, out);
      });
  ReadObject(root, "pacing", &config.pacing, DecodePacing);
  ReadObject(root, "campaign_store", &config.campaign_store, DecodeCampaignStore);
  ReadObject(root, "telemetry", &config.telemetry, DecodeTelemetry);
  ReadObject(root, "events", &config.events, DecodeEvents);
  ReadObject(root, "beacon_log", &config.beacon_log, DecodeBeaconLog);
  ReadObject(root, "sessions", &config.sessions, DecodeSessions);
  ReadObject(root, "metrics", &config.metrics, DecodeMetrics);
  ReadObject(root, "privacy", &config.privacy, DecodePrivacy);
  ReadObject(root, "pricing", &config.pricing, DecodePricing);
  root.RejectUnknownKeys();
  // Range and cross-field checks on a half-decoded config would report
  // consequences of the errors above; those come first.
  if (!errors.empty()) return errors.ToStatus();
  absl::Status valid = ValidateConfig(config);
  if (!valid.ok()) return valid;
  return config;
}

absl::StatusOr<CampaignConfig> ParseCampaign(std::string_view text, const BidderConfig& context) {
  ErrorList errors;
  json document;
  if (!internal::ParseJsonDocument(text, &document, &errors)) return errors.ToStatus();
  if (!document.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a campaign must be a JSON object, got ", document.type_name()));
  }
  CampaignConfig campaign;
  DecodeCampaign(document, "", &errors, context.bid.default_currency, &campaign);
  if (!errors.empty()) return errors.ToStatus();
  if (absl::Status valid = ValidateCampaign(campaign, context); !valid.ok()) return valid;
  return campaign;
}

absl::StatusOr<BidderConfig> LoadConfigFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    int error = errno;
    std::string message =
        absl::StrCat("config file ", path, ": cannot open: ", std::strerror(error));
    if (error == ENOENT) return absl::NotFoundError(message);
    if (error == EACCES) return absl::PermissionDeniedError(message);
    return absl::InvalidArgumentError(message);
  }
  std::string text;
  char buffer[1 << 16];
  while (file.read(buffer, sizeof(buffer)) || file.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(file.gcount()));
    if (static_cast<std::streamsize>(text.size()) > kMaxConfigFileBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("config file ", path, ": larger than ", kMaxConfigFileBytes, " bytes"));
    }
  }
  if (file.bad()) {
    return absl::InvalidArgumentError(absl::StrCat("config file ", path, ": read failed"));
  }
  absl::StatusOr<BidderConfig> config = ParseConfig(text);
  if (!config.ok()) {
    return absl::Status(config.status().code(),
                        absl::StrCat("config file ", path, ": ", config.status().message()));
  }
  return config;
}

const char* StorageBackendName(StorageBackend backend) { return NameOf(kStorageBackends, backend); }
const char* ThriftTransportName(ThriftTransport transport) {
  return NameOf(kThriftTransports, transport);
}
const char* CoppaPolicyName(CoppaPolicy policy) { return NameOf(kCoppaPolicies, policy); }
const char* PacingModeName(PacingMode mode) { return NameOf(kPacingModes, mode); }
const char* StoreOutagePolicyName(StoreOutagePolicy policy) {
  return NameOf(kStoreOutagePolicies, policy);
}

bool BidsWithoutProfile(const CampaignConfig& campaign) {
  if (!campaign.enabled) return false;
  switch (campaign.store_outage_policy) {
    case StoreOutagePolicy::kNoBid:
      return false;
    case StoreOutagePolicy::kContextualOnly:
      return campaign.frequency_cap_per_day == 0 && campaign.targeting.required_segments.empty();
    case StoreOutagePolicy::kAsToday:
      return true;
  }
  return false;
}
const char* CreativeFormatName(CreativeFormat format) { return NameOf(kCreativeFormats, format); }
const char* BillingNoticeName(BillingNotice notice) { return NameOf(kBillingNotices, notice); }
const char* StartSlotName(StartSlot slot) { return NameOf(kStartSlots, slot); }
const char* RewardedPolicyName(RewardedPolicy policy) { return NameOf(kRewardedPolicies, policy); }
const char* PacingProcessModeName(PacingProcessMode mode) {
  return NameOf(kPacingProcessModes, mode);
}
const char* CampaignGoalName(CampaignGoal goal) { return NameOf(kCampaignGoals, goal); }

}  // namespace rtb::config
