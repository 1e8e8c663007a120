// ValidateConfig: the range, syntax, uniqueness and cross-field rules of
// BidderConfig, each reported under the path of the field it concerns.
#include <algorithm>
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
#include "config/internal/error_list.h"
#include "config/internal/iso_codes.h"
#include "config/internal/json_fields.h"
#include "config/internal/value_syntax.h"
#include "taxonomy/category_taxonomy.h"

namespace rtb::config {
namespace {

using internal::ElementPath;
using internal::ErrorList;
using internal::MemberPath;
using internal::Printable;

constexpr size_t kMinSecretBytes = 32;
constexpr int kMaxCreativePixels = 10000;
constexpr int kMaxCreativeSeconds = 3600;
constexpr size_t kMaxAdmBytes = 64 << 10;
constexpr double kMaxBidCpm = 1000.0;
constexpr size_t kMinPriceKeyBytes = 16;
constexpr int kMaxBitrateKbps = 100000;
constexpr size_t kMaxNativeDataBytes = 1000;

// Records problems under paths relative to one object of the config.
class Checker {
 public:
  Checker(std::string path, ErrorList* errors) : path_(std::move(path)), errors_(errors) {}

  Checker Member(std::string_view key) const { return Checker(At(key), errors_); }
  Checker Element(std::string_view key, size_t index) const {
    return Checker(ElementPath(At(key), index), errors_);
  }
  std::string At(std::string_view key) const { return MemberPath(path_, key); }
  std::string ElementAt(std::string_view key, size_t index) const {
    return ElementPath(At(key), index);
  }

  void Fail(std::string_view key, const std::string& message) const {
    errors_->Add(key.empty() ? path_ : At(key), message);
  }

  // Whether min <= value <= max; records the problem if not.
  bool InRange(std::string_view key, int64_t value, int64_t min, int64_t max) const {
    if (value >= min && value <= max) return true;
    if (min == 1 && value < 1) {
      Fail(key, "must be > 0");
    } else {
      Fail(key, absl::StrCat("must be in [", min, ", ", max, "], got ", value));
    }
    return false;
  }

  // Whether min <= value <= max (a NaN is not); records the problem if not.
  // `min_open`: the minimum itself is excluded.
  bool InRealRange(std::string_view key, double value, double min, double max,
                   bool min_open = false) const {
    if (std::isfinite(value) && (min_open ? value > min : value >= min) && value <= max) {
      return true;
    }
    Fail(key, absl::StrCat("must be in ", min_open ? "(" : "[", min, ", ", max, "]"));
    return false;
  }

  // Each element of `values` must satisfy `valid`. The offending value is
  // shown (truncated): these lists hold no secrets.
  template <typename Valid>
  void EachString(std::string_view key, const std::vector<std::string>& values, Valid valid,
                  const std::string& requirement) const {
    for (size_t i = 0; i < values.size(); ++i) {
      if (!valid(values[i])) {
        errors_->Add(ElementAt(key, i),
                     absl::StrCat(requirement, "; got \"", Shown(values[i]), "\""));
      }
    }
  }

  // Flags repeated elements of `values`, naming the first occurrence.
  void NoDuplicates(std::string_view key, const std::vector<std::string>& values) const {
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < values.size(); ++i) {
      auto [it, inserted] = seen.emplace(values[i], i);
      if (!inserted) {
        Fail(ElementPath(std::string(key), i), DuplicateOf(ElementAt(key, it->second)));
      }
    }
  }

  static std::string Shown(const std::string& value) {
    constexpr size_t kShown = 64;
    std::string shown = Printable(value.substr(0, kShown));
    if (value.size() > kShown) shown += "...";
    return shown;
  }

  static std::string DuplicateOf(const std::string& path) {
    return absl::StrCat("duplicate of ", path);
  }

 private:
  std::string path_;
  ErrorList* errors_;
};

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

// Each of `values` in [min, max] and none twice.
void CheckCodes(const Checker& at, std::string_view key, const std::vector<int>& values, int min,
                int max, const char* what) {
  std::map<int, size_t> seen;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string element = ElementPath(std::string(key), i);
    if (values[i] < min || values[i] > max) {
      at.Fail(element,
              absl::StrCat("must be ", what, " in [", min, ", ", max, "], got ", values[i]));
    } else if (auto [it, inserted] = seen.emplace(values[i], i); !inserted) {
      at.Fail(element, Checker::DuplicateOf(at.ElementAt(key, it->second)));
    }
  }
}

// The taxonomies the tables hold, in cattax order, e.g. "1, 2, 3".
std::string KnownTaxonomiesListed() {
  std::vector<int32_t> known(std::begin(taxonomy::kKnownTaxonomies),
                             std::end(taxonomy::kKnownTaxonomies));
  std::sort(known.begin(), known.end());
  return absl::StrJoin(known, ", ");
}

// Category codes of taxonomy `cattax`: Content 1.0 codes, ids of a taxonomy
// the tables hold, tokens of a vendor taxonomy.
void CheckCategories(const Checker& at, std::string_view key, const std::vector<std::string>& codes,
                     int cattax) {
  const taxonomy::CategoryTaxonomies& tables = taxonomy::CategoryTaxonomies::Iab();
  if (cattax >= taxonomy::kFirstVendor) {
    at.EachString(
        key, codes, [](const std::string& c) { return internal::IsPrintableToken(c, 64); },
        "must be 1-64 printable ASCII characters without spaces");
  } else if (cattax == taxonomy::kContent1) {
    at.EachString(
        key, codes,
        [&](const std::string& c) {
          return internal::IsIabCategory(c) && tables.Contains(taxonomy::kContent1, c);
        },
        "must be an IAB Content 1.0 category code such as IAB3-1");
  } else if (tables.Known(cattax)) {
    at.EachString(
        key, codes, [&](const std::string& c) { return tables.Contains(cattax, c); },
        absl::StrCat("must be an id of taxonomy ", cattax,
                     " (cattax) as taxonomy/data/README.md lists them"));
  }
}

// An https URL, or nothing wrong when empty and optional.
void CheckHttpsUrl(const Checker& at, std::string_view key, const std::string& url) {
  const std::string problem =
      internal::UrlProblem(url, /*allow_http=*/false, /*allow_query_and_fragment=*/true);
  if (!problem.empty()) at.Fail(key, problem);
}

void ValidateNativeAssets(const NativeAssetsConfig& native, const Checker& at) {
  if (native.title.empty() && native.images.empty() && native.data.empty() &&
      native.video_vast.empty()) {
    at.Fail("", "needs a title, an image, a data or a video asset");
  }
  if (native.title.size() > kMaxNativeDataBytes) {
    at.Fail("title", absl::StrCat("must be at most ", kMaxNativeDataBytes, " bytes"));
  }
  for (size_t i = 0; i < native.images.size(); ++i) {
    const NativeImageConfig& image = native.images[i];
    Checker img = at.Element("images", i);
    if (image.type != 1 && image.type != 3) {
      img.Fail("type", "must be a native image asset type: 1 (icon) or 3 (main image)");
    }
    CheckHttpsUrl(img, "url", image.url);
    img.InRange("w", image.w, 1, kMaxCreativePixels);
    img.InRange("h", image.h, 1, kMaxCreativePixels);
    if (!image.mime.empty() && !internal::IsMimeType(image.mime)) {
      img.Fail("mime", "must be a MIME type such as image/png");
    }
  }
  std::map<int, size_t> data_types;
  for (size_t i = 0; i < native.data.size(); ++i) {
    const NativeDataConfig& data = native.data[i];
    Checker d = at.Element("data", i);
    if (d.InRange("type", data.type, 1, 12)) {
      if (auto [it, inserted] = data_types.emplace(data.type, i); !inserted) {
        d.Fail("type", Checker::DuplicateOf(at.ElementAt("data", it->second) + ".type"));
      }
    }
    if (data.value.empty() || data.value.size() > kMaxNativeDataBytes) {
      d.Fail("value", absl::StrCat("must be 1-", kMaxNativeDataBytes, " bytes"));
    }
  }
  if (!native.video_vast.empty()) {
    if (native.video_vast.size() > kMaxAdmBytes) {
      at.Fail("video_vast", absl::StrCat("must be at most ", kMaxAdmBytes, " bytes"));
    }
    at.InRange("video_duration_s", native.video_duration_s, 1, kMaxCreativeSeconds);
    if (native.video_mimes.empty()) at.Fail("video_mimes", "required with video_vast");
    at.EachString(
        "video_mimes", native.video_mimes,
        [](const std::string& m) { return internal::IsMimeType(m); },
        "must be a MIME type such as video/mp4");
    if (native.video_protocol == 0) {
      at.Fail("video_protocol", "required: video_vast carries no VAST version this bidder reads");
    } else {
      at.InRange("video_protocol", native.video_protocol, 1, 16);
    }
  } else if (native.video_duration_s != 0 || !native.video_mimes.empty() ||
             native.video_protocol != 0) {
    at.Fail("video_vast", "required when video_duration_s, video_mimes or video_protocol is set");
  }
  for (size_t i = 0; i < native.click_trackers.size(); ++i) {
    CheckHttpsUrl(at, ElementPath("click_trackers", i), native.click_trackers[i]);
  }
}

bool NativeAssetsEmpty(const NativeAssetsConfig& native) {
  return native.title.empty() && native.images.empty() && native.data.empty() &&
         native.video_vast.empty() && native.video_duration_s == 0 && native.video_mimes.empty() &&
         native.click_trackers.empty();
}

// What only video or audio creatives may carry.
void ValidateMediaFields(const CreativeConfig& creative, const Checker& at) {
  const bool video = creative.format == CreativeFormat::kVideo;
  const bool media = video || creative.format == CreativeFormat::kAudio;
  const std::string format = CreativeFormatName(creative.format);
  if (media) {
    if (creative.protocol == 0) {
      at.Fail("protocol",
              "required: the markup carries no VAST or DAAST version this bidder reads "
              "(AdCOM Creative Subtypes - Audio/Video, e.g. 3 for VAST 3.0)");
    } else {
      at.InRange("protocol", creative.protocol, 1, 16);
    }
    at.InRange("bitrate_kbps", creative.bitrate_kbps, 0, kMaxBitrateKbps);
  } else {
    if (creative.protocol != 0) at.Fail("protocol", absl::StrCat("must be absent for ", format));
    if (!creative.start_slots.empty()) {
      at.Fail("start_slots", absl::StrCat("must be absent for ", format));
    }
    if (creative.bitrate_kbps != 0) {
      at.Fail("bitrate_kbps", absl::StrCat("must be absent for ", format));
    }
  }
  if (video) {
    if (creative.linearity != 1 && creative.linearity != 2) {
      at.Fail("linearity", "must be 1 (linear) or 2 (non-linear)");
    }
    CheckCodes(at, "placements", creative.placements, 1, 4, "an OpenRTB 2.6 plcmt value");
  } else {
    if (creative.linearity != 0) at.Fail("linearity", absl::StrCat("must be absent for ", format));
    if (!creative.placements.empty()) {
      at.Fail("placements", absl::StrCat("must be absent for ", format));
    }
    if (!creative.skippable) at.Fail("skippable", "applies to video only");
  }
}

void ValidateCreative(const CreativeConfig& creative, const Checker& at, int cattax) {
  if (!internal::IsIdentifier(creative.id, 64, "_-")) {
    at.Fail("id", "must be 1-64 characters of [A-Za-z0-9_-]");
  }
  bool sized =
      creative.format == CreativeFormat::kBanner || creative.format == CreativeFormat::kVideo;
  bool timed =
      creative.format == CreativeFormat::kVideo || creative.format == CreativeFormat::kAudio;
  std::string format = CreativeFormatName(creative.format);
  for (const auto& [key, value] : {std::pair{"w", creative.w}, std::pair{"h", creative.h}}) {
    if (sized) {
      at.InRange(key, value, 1, kMaxCreativePixels);
    } else if (creative.format == CreativeFormat::kAudio) {
      if (value != 0) at.Fail(key, "must be 0 (or absent) for audio");
    } else {
      at.InRange(key, value, 0, kMaxCreativePixels);
    }
  }
  if (timed) {
    if (creative.mimes.empty()) at.Fail("mimes", absl::StrCat("required for ", format));
    at.InRange("duration_s", creative.duration_s, 1, kMaxCreativeSeconds);
  } else {
    if (!creative.mimes.empty()) at.Fail("mimes", absl::StrCat("must be empty for ", format));
    if (creative.duration_s != 0) {
      at.Fail("duration_s", absl::StrCat("must be 0 (or absent) for ", format));
    }
  }
  at.EachString(
      "mimes", creative.mimes, [](const std::string& m) { return internal::IsMimeType(m); },
      "must be a MIME type such as video/mp4");
  if (creative.format == CreativeFormat::kNative) {
    if (!creative.adm.empty()) {
      at.Fail("adm", "must be empty for native: the markup is built from `native`");
    }
    if (creative.nurl_delivery) {
      at.Fail("nurl_delivery",
              "must be false for native: the markup answers the impression's native request");
    }
    ValidateNativeAssets(creative.native, at.Member("native"));
  } else {
    if (creative.adm.empty()) {
      at.Fail("adm",
              creative.nurl_delivery ? "required: the win notice returns this markup" : "required");
    } else if (creative.adm.size() > kMaxAdmBytes) {
      at.Fail("adm", absl::StrCat("must be at most ", kMaxAdmBytes, " bytes"));
    }
    if (!NativeAssetsEmpty(creative.native)) {
      at.Fail("native", absl::StrCat("must be absent for ", format));
    }
  }
  CheckHttpsUrl(at, "landing_url", creative.landing_url);
  CheckCategories(at, "iab_categories", creative.iab_categories, cattax);
  CheckCodes(at, "attr", creative.attr, 1, 18, "an AdCOM creative attribute");
  CheckCodes(at, "api", creative.api, 1, 9, "an AdCOM API framework");
  if (!creative.language.empty() && !internal::IsLanguageCode(creative.language)) {
    at.Fail("language", "must be an ISO 639-1 code of two lower-case letters such as de");
  }
  if (!creative.adid.empty() && !internal::IsPrintableToken(creative.adid, 64)) {
    at.Fail("adid", "must be at most 64 printable ASCII characters without spaces");
  }
  if (!creative.iurl.empty()) CheckHttpsUrl(at, "iurl", creative.iurl);
  ValidateMediaFields(creative, at);
}

void ValidateTargeting(const TargetingConfig& targeting, const Checker& at) {
  at.EachString(
      "countries", targeting.countries,
      [](const std::string& c) { return internal::IsIsoCountryAlpha3(c); },
      "must be an ISO 3166-1 alpha-3 country code such as USA");
  for (size_t i = 0; i < targeting.device_types.size(); ++i) {
    int type = targeting.device_types[i];
    if (type < 1 || type > 8) {
      at.Fail(ElementPath("device_types", i),
              absl::StrCat("must be an OpenRTB device type in [1, 8], got ", type));
    }
  }
  at.EachString(
      "content_categories", targeting.content_categories,
      [](const std::string& c) { return internal::IsIabCategory(c); },
      "must be an IAB Content 1.0 category code such as IAB3-1");
  auto is_domain = [](const std::string& d) { return internal::IsLowerCaseDomain(d); };
  constexpr const char* kDomain = "must be a lower-case domain name such as example.com";
  at.EachString("domains_allow", targeting.domains_allow, is_domain, kDomain);
  at.EachString("domains_deny", targeting.domains_deny, is_domain, kDomain);
  std::set<std::string> allowed(targeting.domains_allow.begin(), targeting.domains_allow.end());
  for (size_t i = 0; i < targeting.domains_deny.size(); ++i) {
    if (allowed.count(targeting.domains_deny[i]) != 0) {
      at.Fail(ElementPath("domains_deny", i), "is also in domains_allow");
    }
  }
  auto is_token = [](const std::string& s) { return internal::IsPrintableToken(s, 64); };
  constexpr const char* kToken = "must be 1-64 printable ASCII characters without spaces";
  at.EachString("required_segments", targeting.required_segments, is_token, kToken);
  at.EachString("deal_ids", targeting.deal_ids, is_token, kToken);
  if (targeting.rewarded != RewardedPolicy::kAny && targeting.rewarded != RewardedPolicy::kOnly &&
      targeting.rewarded != RewardedPolicy::kNever) {
    at.Fail("rewarded", "must be any, only or never");
  }
}

// Printable text of 1 to `max` bytes: no control characters (UTF-8 allowed).
bool IsShortText(const std::string& text, size_t max) {
  if (text.empty() || text.size() > max) return false;
  return std::none_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

void ValidateCampaignDsa(const CampaignDsaConfig& dsa, const Checker& at) {
  constexpr size_t kMaxDsaText = 100;
  constexpr const char* kText = "required: 1-100 bytes of text without control characters";
  if (!IsShortText(dsa.behalf, kMaxDsaText)) at.Fail("behalf", kText);
  if (!IsShortText(dsa.paid, kMaxDsaText)) at.Fail("paid", kText);
  at.InRange("adrender", dsa.adrender, 0, 1);
  for (size_t i = 0; i < dsa.transparency.size(); ++i) {
    const DsaTransparencyConfig& entry = dsa.transparency[i];
    Checker t = at.Element("transparency", i);
    if (!internal::IsLowerCaseDomain(entry.domain)) {
      t.Fail("domain", absl::StrCat("must be a lower-case domain name such as example.com; got \"",
                                    Checker::Shown(entry.domain), "\""));
    }
    std::map<int, size_t> seen;
    for (size_t j = 0; j < entry.dsaparams.size(); ++j) {
      const std::string element = ElementPath("dsaparams", j);
      const int param = entry.dsaparams[j];
      if (param < 1 || param > 3) {
        t.Fail(element, absl::StrCat("must be 1 (profiling), 2 (basic advertising) or 3 "
                                     "(precise geolocation), got ",
                                     param));
      } else if (auto [it, inserted] = seen.emplace(param, j); !inserted) {
        t.Fail(element, Checker::DuplicateOf(t.ElementAt("dsaparams", it->second)));
      }
    }
  }
}

void ValidateGoal(const CampaignGoalConfig& goal, const Checker& at) {
  switch (goal.type) {
    case CampaignGoal::kCpm:
      break;
    case CampaignGoal::kCpc:
      at.InRealRange("target_cpc", goal.target_cpc, 0, 1000, /*min_open=*/true);
      break;
    case CampaignGoal::kCpa:
      at.InRealRange("target_cpa", goal.target_cpa, 0, 100000, /*min_open=*/true);
      break;
    default:
      at.Fail("type", "must be cpm, cpc or cpa");
  }
  if (goal.type != CampaignGoal::kCpc && goal.target_cpc != 0) {
    at.Fail("target_cpc", "must be 0 unless type is cpc");
  }
  if (goal.type != CampaignGoal::kCpa && goal.target_cpa != 0) {
    at.Fail("target_cpa", "must be 0 unless type is cpa");
  }
  at.InRealRange("prior_ctr", goal.prior_ctr, 0, 1, /*min_open=*/true);
  at.InRealRange("prior_cvr", goal.prior_cvr, 0, 1, /*min_open=*/true);
}

void ValidateSchedule(const CampaignScheduleConfig& schedule, const Checker& at) {
  std::optional<int64_t> start;
  std::optional<int64_t> end;
  for (auto [key, text, instant] :
       {std::tuple("start", &schedule.start, &start), std::tuple("end", &schedule.end, &end)}) {
    if (text->empty()) continue;
    *instant = ScheduleInstantMillis(*text);
    if (!instant->has_value()) {
      at.Fail(key, absl::StrCat("must be an RFC 3339 instant with an offset, such as "
                                "2026-12-01T00:00:00Z, from 1970 to 9999; got \"",
                                Checker::Shown(*text), "\""));
    }
  }
  if (start.has_value() && end.has_value() && *end <= *start) {
    at.Fail("end", "must be after start");
  }
  for (size_t i = 0; i < schedule.dayparts.size(); ++i) {
    const DaypartConfig& part = schedule.dayparts[i];
    Checker daypart = at.Element("dayparts", i);
    if (part.days.empty()) daypart.Fail("days", "must list at least one day");
    std::set<std::string> seen;
    for (size_t d = 0; d < part.days.size(); ++d) {
      if (!ScheduleDayIndex(part.days[d]).has_value()) {
        daypart.Fail(ElementPath("days", d), absl::StrCat("must be mon, tue, wed, thu, fri, sat "
                                                          "or sun; got \"",
                                                          Checker::Shown(part.days[d]), "\""));
      } else if (!seen.insert(part.days[d]).second) {
        daypart.Fail(ElementPath("days", d), "is listed twice");
      }
    }
    if (daypart.InRange("from_hour", part.from_hour, 0, 23)) {
      daypart.InRange("to_hour", part.to_hour, part.from_hour + 1, 24);
    }
  }
}

// One campaign's own rules; `at` is where it sits ("campaigns[3]", or ""
// for a campaign on its own).
void ValidateCampaign(const CampaignConfig& campaign, const BidderConfig& config,
                      const Checker& at) {
  if (!internal::IsIdentifier(campaign.id, 32, "_-")) {
    at.Fail("id", "must be 1-32 characters of [A-Za-z0-9_-] (it is part of storage row keys)");
  }
  if (!campaign.seat.empty() && !internal::IsPrintableToken(campaign.seat, 64)) {
    at.Fail("seat", "must be at most 64 printable ASCII characters without spaces");
  }
  if (campaign.advertiser_domains.empty()) {
    at.Fail("advertiser_domains", "must list at least one domain");
  }
  at.EachString(
      "advertiser_domains", campaign.advertiser_domains,
      [](const std::string& d) { return internal::IsLowerCaseDomain(d); },
      "must be a lower-case domain name such as example.com");
  const bool cattax_usable = campaign.cattax >= taxonomy::kFirstVendor ||
                             taxonomy::CategoryTaxonomies::Iab().Known(campaign.cattax);
  if (!cattax_usable) {
    at.Fail("cattax",
            absl::StrCat("must be a taxonomy the bidder has tables for (", KnownTaxonomiesListed(),
                         ") or a vendor taxonomy (500 and above); got ", campaign.cattax));
  }
  CheckCategories(at, "iab_categories", campaign.iab_categories, campaign.cattax);
  if (campaign.daily_budget_micros <= 0) at.Fail("daily_budget_micros", "must be > 0");
  if (campaign.lifetime_budget_micros < 0) {
    at.Fail("lifetime_budget_micros", "must be > 0 when set (0 or absent: no lifetime budget)");
  }
  if (!internal::IsIsoCurrencyCode(campaign.currency)) {
    at.Fail("currency", absl::StrCat("must be an ISO 4217 currency code; got \"",
                                     Checker::Shown(campaign.currency), "\""));
  } else if (config.bid.currency_rates.count(campaign.currency) == 0) {
    at.Fail("currency", absl::StrCat(campaign.currency, " has no rate in bid.currency_rates"));
  }
  if (campaign.pacing_mode != PacingMode::kEven && campaign.pacing_mode != PacingMode::kAsap) {
    at.Fail("pacing_mode", "must be even or asap");
  }
  if (!internal::IsTimeZoneName(campaign.time_zone)) {
    at.Fail("time_zone", absl::StrCat("must be an IANA time zone name such as "
                                      "America/New_York; got \"",
                                      Checker::Shown(campaign.time_zone), "\""));
  } else if (!internal::TimeZoneExists(campaign.time_zone)) {
    at.Fail("time_zone", absl::StrCat("unknown time zone \"", campaign.time_zone,
                                      "\" (not in the time zone database)"));
  }
  at.InRange("frequency_cap_per_day", campaign.frequency_cap_per_day, 0, 10000);
  if (!(campaign.max_bid_cpm > 0)) {
    at.Fail("max_bid_cpm", "must be > 0");
  } else if (!(campaign.max_bid_cpm <= kMaxBidCpm)) {
    at.Fail("max_bid_cpm", absl::StrCat("must be at most ", kMaxBidCpm));
  }
  ValidateGoal(campaign.goal, at.Member("goal"));
  ValidateSchedule(campaign.schedule, at.Member("schedule"));
  ValidateTargeting(campaign.targeting, at.Member("targeting"));
  if (campaign.dsa.has_value()) ValidateCampaignDsa(*campaign.dsa, at.Member("dsa"));
  if (campaign.creatives.empty()) at.Fail("creatives", "must list at least one creative");
  std::map<std::string, size_t> creative_ids;
  for (size_t j = 0; j < campaign.creatives.size(); ++j) {
    const CreativeConfig& creative = campaign.creatives[j];
    Checker cr = at.Element("creatives", j);
    ValidateCreative(creative, cr, campaign.cattax);
    if (auto [it, inserted] = creative_ids.emplace(creative.id, j);
        !inserted && !creative.id.empty()) {
      cr.Fail("id", Checker::DuplicateOf(at.ElementAt("creatives", it->second) + ".id"));
    }
  }
}

void ValidateCampaigns(const BidderConfig& config, ErrorList* errors) {
  Checker root("", errors);
  std::map<std::string, size_t> ids;
  for (size_t i = 0; i < config.campaigns.size(); ++i) {
    const CampaignConfig& campaign = config.campaigns[i];
    Checker at = root.Element("campaigns", i);
    ValidateCampaign(campaign, config, at);
    if (!internal::IsIdentifier(campaign.id, 32, "_-")) continue;
    if (auto [it, inserted] = ids.emplace(campaign.id, i); !inserted) {
      at.Fail("id", Checker::DuplicateOf(root.ElementAt("campaigns", it->second) + ".id"));
    }
  }
}

void ValidatePacing(const BidderConfig& config, ErrorList* errors) {
  const PacingConfig& pacing = config.pacing;
  Checker at("pacing", errors);
  at.InRange("worker_id", pacing.worker_id, 0, 65535);
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
  if (at.InRange("max_series", telemetry.max_series, 1, 1000000)) {
    at.InRange("max_series_per_metric", telemetry.max_series_per_metric, 1, telemetry.max_series);
  }
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
  if (!sessions.cookie_secure && !internal::IsLoopbackAddress(config.server.listen_address)) {
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
  ValidateCampaign(campaign, context, Checker("", &errors));
  return errors.ToStatus();
}

absl::Status ValidateConfig(const BidderConfig& config) {
  ErrorList errors;
  ValidateServer(config, &errors);
  ValidateStorage(config.storage, &errors);
  ValidateBid(config.bid, &errors);
  ValidateCampaigns(config, &errors);
  ValidatePacing(config, &errors);
  ValidateCampaignStore(config, &errors);
  ValidateTelemetry(config.telemetry, &errors);
  ValidateSessions(config, &errors);
  ValidateMetrics(config.metrics, &errors);
  ValidatePrivacy(config.privacy, &errors);
  ValidatePricing(config.pricing, &errors);
  return errors.ToStatus();
}

}  // namespace rtb::config
