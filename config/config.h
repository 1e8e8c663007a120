// Typed configuration of the bidder: one struct per module section, loaded
// from one JSON file and validated before anything starts.
//
// The JSON keys are the field names below, section by section:
//
//   { "server": {...}, "storage": {...}, "bid": {...}, "campaigns": [...],
//     "pacing": {...}, "telemetry": {...}, "sessions": {...},
//     "metrics": {...}, "privacy": {...}, "pricing": {...} }
//
// Loading rules:
//   - A missing optional field takes the default written beside it here; a
//     missing section takes the defaults of all its fields.
//   - An unknown key at any level is an error naming the key (a misspelt
//     option must not be silently ignored), and so is a key given twice in
//     one object.
//   - A value of the wrong JSON type is an error naming its path; integers
//     must be JSON integers (1.0 is not accepted where a count is expected).
//   - Every value is range- and syntax-checked, and cross-field rules are
//     checked (see ValidateConfig). All errors found are reported together,
//     each as `<path>: <what is wrong>`, e.g.
//       campaigns[3].creatives[0].w: must be > 0
//   - Secrets (bid.device_key_secret, bid.beacon_secret) and password hashes
//     never appear in an error message, whatever is wrong with them.
//   - Relative file paths are relative to the process's working directory.
//
// Thread-safety: the structs are plain values; the functions are safe to call
// from any thread (they read the process environment for *_secret_env).
#ifndef RTB_CONFIG_CONFIG_H_
#define RTB_CONFIG_CONFIG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rtb::config {

// Threads of the machine, at least 1: the default of server.io_threads.
inline int HardwareThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

// ---------------------------------------------------------------------------
// server: the HTTP listener and the exchanges it serves.

// Which notice of an exchange means it charged us for an impression: the
// beacon that books the spend and counts the frequency cap (see README,
// "Beacons").
enum class BillingNotice {
  kBurl,   // "burl": the billing notice (OpenRTB 2.5's billing event)
  kNurl,   // "nurl": the win notice (exchanges that bill on win)
  kPixel,  // "pixel": the impression pixel in the markup (the render)
};

// Keys of the clearing-price encryption Google's exchanges use (Authorized
// Buyers, Ad Manager): ${AUCTION_PRICE} arrives as 28 bytes, web-safe base64,
// of initialization vector, price XOR HMAC-SHA1(encryption key, iv) and an
// HMAC-SHA1 integrity signature. Each key is given like the bid secrets:
// inline (`encryption_key`, `integrity_key`) or through an environment
// variable (`encryption_key_env`, `integrity_key_env`), exactly one of the two.
// After loading the *_key fields hold the keys as the exchange hands them
// out: web-safe (or standard) base64, padding optional, at least 16 bytes
// decoded. Both keys or neither. Never printed.
struct PriceEncryptionConfig {
  std::string encryption_key;
  std::string encryption_key_env;
  std::string integrity_key;
  std::string integrity_key_env;

  bool enabled() const { return !encryption_key.empty() || !integrity_key.empty(); }
};

struct ExchangeConfig {
  // Name of the exchange, used as the `exchange` metric label and in the
  // default bid path. Required. 1-32 characters of [a-z0-9_-]; unique.
  std::string name;
  // Path exchanges POST bid requests to. Default "/openrtb2/bid/<name>".
  // Must start with '/', be unique across exchanges and differ from
  // /healthz, /readyz and metrics.path.
  std::string bid_path;
  // Deadline used when a request carries no `tmax`, ms. Default 100.
  // Range [1, 10000].
  int default_tmax_ms = 100;
  // Time subtracted from tmax for the network between the exchange and us
  // (tmax is counted at the exchange), ms. Default 20. Range
  // [0, default_tmax_ms).
  int network_allowance_ms = 20;
  // The OpenRTB version of this exchange's requests that send no
  // `x-openrtb-version` header (Prebid Server sends none), and so of the
  // answers to them: "2.5" or "2.6". A request's own header decides over it.
  // Default "2.6".
  std::string openrtb_version = "2.6";
  // 2.5 answers carry no member OpenRTB 2.5 does not define: the 2.6 bid
  // members (mtype, dur, cattax) go to bid.ext only, for an exchange whose
  // 2.5 reader refuses unknown members. Default false: they are also at
  // their 2.6 places, where 2.6 readers need them (Prebid Server drops a bid
  // without bid.mtype) and 2.5 readers ignore them.
  bool strict_openrtb_2_5 = false;
  // Seat id written to seatbid[].seat. Default "" (the field is omitted).
  // At most 64 printable ASCII characters.
  std::string seat;
  // The notice that books spend and frequency caps. The others record their
  // event only. Default burl.
  BillingNotice billing_notice = BillingNotice::kBurl;
  // Set when the exchange encrypts clearing prices (Google's scheme); a
  // price that is not encrypted with these keys is then refused. Default:
  // prices arrive as plain numbers.
  PriceEncryptionConfig price_encryption;
  // Base of the beacon URLs in this exchange's bids, in bid.beacon_base_url's
  // form, which it replaces for this exchange. Default "": bid.beacon_base_url.
  std::string beacon_base_url;
  // Base of the beacon URLs (notices, click and impression pixel) in bids on
  // secure impressions (imp.secure = 1), e.g. "https://rtb.example.com";
  // https only. Default "": the exchange's beacon base when that is https or
  // on a loopback host (127.0.0.0/8, [::1], localhost: browsers do not block
  // those as mixed content). Without a secure base a secure impression gets
  // no bid (nobid_insecure), never an http URL.
  std::string secure_beacon_base_url;
  // Bid answers gzip-compressed when the request's Accept-Encoding allows
  // gzip. Default false: the CPU a compression costs per bid weighs more than
  // the bytes it saves on answers of one or two KiB (docs/bidding-and-exchanges.md).
  bool gzip_responses = false;
};

struct ServerConfig {
  // Address to listen on: an IPv4 or IPv6 literal (no host names).
  // Default "127.0.0.1".
  std::string listen_address = "127.0.0.1";
  // TCP port. Default 8080. Range [0, 65535]; 0 lets the OS pick a free port
  // (tests), which the server then reports.
  int port = 8080;
  // io_context threads, one per core. Default: HardwareThreads().
  // Range [1, 256].
  int io_threads = HardwareThreads();
  // Largest request header block, bytes. Default 8192 (8 KiB).
  // Range [1024, 1048576].
  int max_header_bytes = 8 << 10;
  // Largest request body as received (possibly gzip), bytes. Default 65536
  // (64 KiB). Range [1024, 16777216].
  int max_body_bytes = 64 << 10;
  // Largest request body after gzip inflation, bytes; bounds what a small
  // compressed body may expand to. Default 262144 (256 KiB).
  // Range [max_body_bytes, 67108864].
  int max_inflated_body_bytes = 256 << 10;
  // Time a new connection may take to send the first byte of its first
  // request, ms; a silent connection is closed after it. An exchange writes
  // its request as soon as the connection is up, so this only has to cover
  // one trip across the network and a busy client. Default 250.
  // Range [1, 60000].
  int first_byte_timeout_ms = 250;
  // Time allowed to read one whole request once its first byte arrived, ms.
  // Default 1000. Range [1, 600000].
  int read_timeout_ms = 1000;
  // Time a keep-alive connection may sit between requests, ms. Default 60000.
  // Range [1, 3600000].
  int idle_timeout_ms = 60000;
  // Open connections accepted at once; further ones are closed at accept.
  // From 15/16 of it on, each new connection closes a connection of its I/O
  // thread that waits for a request: the new connection that has waited
  // longest for its first byte, else the keep-alive connection idle longest
  // if idle for first_byte_timeout_ms at least; at the cap, the accepting
  // thread does the same before it refuses. So idle connections make room
  // for new ones, and a silent flood cannot push out connections in use.
  // Default 10000. Range [1, 1000000].
  int max_connections = 10000;
  // Open connections accepted at once from one remote IP address; further
  // ones from it are closed at accept. Behind a load balancer or proxy,
  // whose connections all come from its own addresses, raise it to
  // max_connections. Default 1000. Range [1, 1000000].
  int max_connections_per_peer = 1000;
  // Serves new connections on a thread of their own, the intake, until
  // their first request is complete; then the connection moves to an I/O
  // thread for good. The intake accepts, waits for first bytes, reads
  // trickled headers and closes what times out, so a flood of silent or
  // slowloris connections costs the intake's time, not the time of the
  // threads that answer the exchanges' keep-alive traffic. Default true.
  // Ignored when the server's listeners use SO_REUSEPORT (one per I/O
  // thread).
  bool intake_thread = true;
  // How far the intake thread's scheduling priority is lowered: added to
  // the process's nice value (capped at 19), so that on a busy machine the
  // I/O threads run first and a connection flood waits; the intake then
  // also finds more bytes per read of a trickling connection. Default 19
  // (the lowest priority): on a 2-core machine under 1,000 slowloris
  // connections it cost the bidder less CPU than 10 or no intake did
  // (BENCHMARKS.md, connection floods). Range [0, 19].
  int intake_nice = 19;
  // On SIGTERM: time in-flight requests get to finish before connections are
  // closed, ms. Default 5000. Range [0, 600000].
  int graceful_shutdown_timeout_ms = 5000;
  // How often the process gives the C allocator's free pages back to the
  // system, ms (startup::AllocatorTrimmer); 0 never does. Default 10000.
  // Range [0, 3600000].
  int memory_trim_interval_ms = 10000;
  // Serves the operator console at /console. Default true.
  bool console_enabled = true;
  // Serves the admin API (/api/...: campaigns, a device's events, events by
  // type, privacy erasure, telemetry), every route behind an operator
  // session (sessions.operators). Default true.
  bool admin_api_enabled = true;
  // Exchanges served. Default: one exchange named "default" at
  // "/openrtb2/bid". When the key is given the list must not be empty.
  std::vector<ExchangeConfig> exchanges{
      ExchangeConfig{.name = "default", .bid_path = "/openrtb2/bid"}};
};

// ---------------------------------------------------------------------------
// storage: which backend the Store is, and its options.

enum class StorageBackend {
  kEmbedded,       // "embedded": RocksDB engine inside the process
  kHBase,          // "hbase": Apache HBase through its Thrift2 gateways
  kStorageServer,  // "storage-server": our storage server; speaks HBase
                   // Thrift2, so it is reached through `hbase` below
};

enum class ThriftTransport {
  kBuffered,  // "buffered"
  kFramed,    // "framed"
};

struct EmbeddedStorageConfig {
  // Database directory; created when missing. Default "./data".
  std::string path = "./data";
  // Shared block cache of all families, MiB. Default 256. Range [1, 1048576].
  int64_t block_cache_mib = 256;
  // Share of the block cache reserved for IN_MEMORY families (HBase's
  // in-memory priority). Default 0.25. Range [0, 0.9].
  double in_memory_cache_fraction = 0.25;
  // Cache of hot rows' stored cells in front of RocksDB (whole-family reads,
  // such as a bid's profile read, are answered from it), MiB; 0 turns it
  // off. Sized to hold the hot part of the device population: a profile of
  // about 90 cells takes some 2.6 KiB in it (packed). Default 64. Range
  // [0, 1048576].
  int64_t row_cache_mib = 64;
  // Memtable size per family, MiB. Default 32. Range [1, 4096].
  int64_t write_buffer_mib = 32;
  // All families' memtables together, MiB, charged to the block cache so the
  // store's memory stays near block_cache_mib (see EmbeddedStoreOptions).
  // 0 turns the shared budget off. Default (-1): a third of the block
  // cache's share for families that are not IN_MEMORY, 64 for the defaults.
  // Range [-1, that share].
  int64_t memtable_budget_mib = -1;
  // How often ASYNC_WAL writes are pushed to the OS, ms: a process kill loses
  // at most about this much of them. Default 100. Range [1, 60000].
  int async_wal_flush_interval_ms = 100;
};

struct HBaseStorageConfig {
  // Thrift2 gateways as "host:port" or "[v6addr]:port". Required (at least
  // one) for the hbase and storage-server backends.
  std::vector<std::string> endpoints;
  // Framing; must match the gateway (HBase's thrift2 -f). Default buffered.
  ThriftTransport transport = ThriftTransport::kBuffered;
  // TCP connect timeout, ms. Default 1000. Range [1, 60000].
  int connect_timeout_ms = 1000;
  // Deadline of blocking data calls, ms. Default 5000. Range [1, 600000].
  int call_timeout_ms = 5000;
  // Connections kept per gateway. Default 8. Range [1, 1024].
  int pool_size = 8;
  // Wait before a TIMELINE Get is also sent to the next gateway, ms; 0 turns
  // hedging off (it needs two endpoints anyway). Default 10.
  // Range [0, call_timeout_ms).
  int hedge_delay_ms = 10;
  // I/O threads of the client. Default 1. Range [1, 64].
  int io_threads = 1;
};

struct StorageConfig {
  // Default embedded.
  StorageBackend backend = StorageBackend::kEmbedded;
  // Used by the embedded backend; ignored by the others.
  EmbeddedStorageConfig embedded;
  // Used by the hbase and storage-server backends; ignored by embedded.
  HBaseStorageConfig hbase;
};

// ---------------------------------------------------------------------------
// bid: the decision's policies, secrets and money.

enum class CoppaPolicy {
  kNoBid,       // "no-bid": requests with regs.coppa=1 get no bid
  kContextual,  // "contextual": bid without the profile lookup or segments
};

struct BidConfig {
  // Key of the device key HMAC-SHA256(secret, normalised device id). Given
  // either inline as `device_key_secret` or, better, as the name of an
  // environment variable in `device_key_secret_env` (exactly one of the two).
  // After loading this holds the secret bytes. At least 32 bytes. Required.
  // Changing it orphans every stored profile.
  std::string device_key_secret;
  // Name of the environment variable the secret was read from, or "" when it
  // was given inline. [A-Za-z_][A-Za-z0-9_]*.
  std::string device_key_secret_env;
  // Key that signs beacon URLs (HMAC). Same rules as device_key_secret
  // (`beacon_secret` or `beacon_secret_env`, at least 32 bytes, required),
  // and it must differ from device_key_secret.
  std::string beacon_secret;
  std::string beacon_secret_env;
  // Skip the profile lookup when device.lmt=1 (bid contextually).
  // Default true.
  bool skip_lookup_on_lmt = true;
  // Skip the profile lookup when device.dnt=1. Default true.
  bool skip_lookup_on_dnt = true;
  // What to do with regs.coppa=1. Default no-bid.
  CoppaPolicy coppa_policy = CoppaPolicy::kNoBid;
  // Time kept for the auction and the response after the profile Get: the Get
  // gets the deadline minus this, µs. Default 1000. Range [0, 1000000], and
  // below every exchange's default_tmax_ms - network_allowance_ms.
  int auction_budget_us = 1000;
  // Currency of bid prices (response `cur`), and of campaigns that name none.
  // ISO 4217 code present in currency_rates. Default "USD".
  std::string default_currency = "USD";
  // Exchange rates: ISO 4217 code -> USD per one unit of that currency
  // (e.g. "EUR": 1.08), for floors and budgets in other currencies. Each rate
  // finite and > 0. "USD" is always present with rate 1 (added when missing;
  // any other USD rate is an error). Default {"USD": 1}.
  std::map<std::string, double> currency_rates{{"USD", 1.0}};
  // Scheme, host, optional port and optional path prefix of the beacon URLs
  // the bidder emits, e.g. "https://rtb.example.com"; http or https, no query
  // or fragment, no trailing '/'. Default "": the bidder uses
  // http://<listen_address>:<bound port>.
  std::string beacon_base_url;
  // How long after an impression a click or conversion is attributed to it,
  // and the TTL of impression rows, seconds. Default 604800 (7 days).
  // Range [60, 31536000].
  int64_t attribution_window_s = 7 * 24 * 3600;
};

// ---------------------------------------------------------------------------
// campaigns: what we bid for. Held in memory by the bidder.

// What a campaign does while its profile cannot be read: the store is
// reported unhealthy, or the request's profile lookup failed or missed its
// deadline. Without the profile its frequency cap reads as 0 impressions and
// its segments as absent.
enum class StoreOutagePolicy {
  kContextualOnly,  // "contextual_only": bids only if it has no cap and no required segments
  kNoBid,           // "no_bid": does not bid at all
  kAsToday,         // "as_today": bids on the empty profile (caps are not enforced)
};

enum class PacingMode {
  kEven,  // "even": spread the daily budget over the remaining hours
  kAsap,  // "asap": spend as fast as bids win, up to the budget
};

enum class CreativeFormat {
  kBanner,  // "banner"
  kVideo,   // "video"
  kNative,  // "native"
  kAudio,   // "audio"
};

// Where in the content a video or audio creative may run (the request's
// startdelay): before it, during it, after it.
enum class StartSlot {
  kPre,   // "pre": startdelay 0
  kMid,   // "mid": startdelay > 0 or -1
  kPost,  // "post": startdelay -2
};

// A native image asset of a creative.
struct NativeImageConfig {
  // Native image asset type: 1 icon, 3 main image. Required.
  int type = 0;
  // https URL of the image. Required.
  std::string url;
  // Size in pixels. Required, > 0, at most 10000.
  int w = 0;
  int h = 0;
  // MIME type, e.g. "image/png". Default "" (unknown: fits an image asset
  // that lists mimes only when it lists none).
  std::string mime;
};

// A native data asset of a creative (sponsored-by text, description, rating,
// call to action, ...).
struct NativeDataConfig {
  // Native data asset type, 1-12 (1 sponsored, 2 desc, 3 rating, 4 likes,
  // 5 downloads, 6 price, 7 sale price, 8 phone, 9 address, 10 desc2,
  // 11 display url, 12 cta text). Required; each type at most once.
  int type = 0;
  // The text. Required, 1-1000 bytes.
  std::string value;
};

// The assets a native creative is built from; the bid's native response
// takes the ones the request asks for (see README, "Native").
struct NativeAssetsConfig {
  // The title text. Default "" (no title asset).
  std::string title;
  std::vector<NativeImageConfig> images;
  std::vector<NativeDataConfig> data;
  // A VAST document for a native video asset. Default "" (none).
  std::string video_vast;
  // With video_vast: its duration, seconds (1-3600), MIME types and protocol
  // (AdCOM "Creative Subtypes - Audio/Video"; 0: from the VAST version).
  int video_duration_s = 0;
  std::vector<std::string> video_mimes;
  int video_protocol = 0;
  // Third-party click trackers added to the link's clicktrackers, https
  // URLs. Default none.
  std::vector<std::string> click_trackers;
};

struct CreativeConfig {
  // Creative id (bid `crid`). Required. 1-64 characters of [A-Za-z0-9_-],
  // unique within its campaign.
  std::string id;
  // Media type. Default banner.
  CreativeFormat format = CreativeFormat::kBanner;
  // Size in pixels. Required (> 0, at most 10000) for banner and video;
  // optional (0 = any) for native; must be 0 for audio.
  int w = 0;
  int h = 0;
  // MIME types of the asset, e.g. "video/mp4". Required for video and audio,
  // must be empty for banner and native.
  std::vector<std::string> mimes;
  // Duration of the asset, seconds. Required (> 0, at most 3600) for video
  // and audio; must be 0 for banner and native.
  int duration_s = 0;
  // Markup: HTML for banner, VAST for video and audio. Required for them,
  // at most 65536 bytes; must be empty for native, whose markup the bidder
  // builds from `native`. Clicks should go through the placeholder
  // ${CLICK_URL}, which the bidder replaces with its signed click beacon URL
  // (that redirects to landing_url); ${IMPRESSION_URL} becomes the signed
  // impression pixel.
  std::string adm;
  // Native assets. Required (a title, an image or a data asset at least) for
  // native, must be absent otherwise.
  NativeAssetsConfig native;
  // Creative attributes (AdCOM list "Creative Attributes", 1-18), e.g. 3
  // expandable, 6 in-banner autoplay video, 16 skip button: checked against
  // the impression's battr and sent in the bid's attr. Default none.
  std::vector<int> attr;
  // API frameworks the creative needs (AdCOM "API Frameworks", 1-9: 1 VPAID
  // 1.0, 2 VPAID 2.0, 3 MRAID 1.0, 5 MRAID 2.0, 6 MRAID 3.0, 7 OMID 1.0, ...):
  // every one must be in the impression's api list. Default none.
  std::vector<int> api;
  // Language of the creative, ISO 639-1 alpha-2 lower case ("de"): checked
  // against wlang/wlangb and sent in the bid's language. Default "" (none:
  // such a creative does not bid where wlang or wlangb is given).
  std::string language;
  // The bid's adid (an ad the exchange has on file) and iurl (an https image
  // of the creative for ad-quality review). Default "" (omitted). adid: at
  // most 64 printable ASCII characters.
  std::string adid;
  std::string iurl;
  // Video and audio: the markup's subtype (AdCOM "Creative Subtypes -
  // Audio/Video": 2 VAST 2.0, 3 VAST 3.0, 7 VAST 4.0, 9 DAAST 1.0, 11 VAST
  // 4.1, 13 VAST 4.2, wrappers 5, 6, 8, 10, 12, 14), matched against the
  // impression's protocols and sent as the bid's protocol. Default: read from
  // the markup's <VAST version="..."> (or <DAAST version="...">) root; without
  // either it is required. Must be 0 (absent) for banner and native.
  int protocol = 0;
  // Video: 1 linear (in-stream), 2 non-linear (overlay). Default 1 for
  // video; must be 0 (absent) otherwise.
  int linearity = 0;
  // Video and audio: where in the content it may run. Default: anywhere.
  std::vector<StartSlot> start_slots;
  // Video: the placements it may run in (OpenRTB 2.6 plcmt: 1 instream,
  // 2 accompanying content, 3 interstitial, 4 no content / standalone; a 2.5
  // placement is read as its plcmt, see README). Default: any.
  std::vector<int> placements;
  // Video: false keeps the creative out of impressions where the player
  // would let the user skip it (skip=1, the creative longer than skipmin and
  // than skipafter). Default true.
  bool skippable = true;
  // Video and audio: bit rate of the media, Kbps, checked against
  // minbitrate/maxbitrate. Default 0 (unknown: not checked). At most 100000.
  int bitrate_kbps = 0;
  // When true the bid carries no `adm`: the markup is returned by our win
  // notice (`nurl`) instead. Default false; must be false for native.
  bool nurl_delivery = false;
  // Where a click is redirected: an absolute https URL. Required.
  std::string landing_url;
  // Categories of the creative (bid `cat`), in the campaign's `cattax`
  // taxonomy, e.g. "IAB3-1" in Content 1.0. Default none.
  std::vector<std::string> iab_categories;
};

// Rewarded impressions (imp.rwdd) a campaign takes.
enum class RewardedPolicy {
  kAny,    // "any": rewarded or not
  kOnly,   // "only": rwdd=1 only
  kNever,  // "never": never rwdd=1
};

// Every list that is empty places no restriction.
struct TargetingConfig {
  // device.geo.country, ISO 3166-1 alpha-3 as OpenRTB uses ("USA", "DEU").
  // A request without a country does not match a non-empty list.
  std::vector<std::string> countries;
  // device.devicetype, OpenRTB/AdCOM device type codes 1-8
  // (1 mobile/tablet, 2 PC, 3 CTV, 4 phone, 5 tablet, 6 connected device,
  // 7 set-top box, 8 OOH).
  std::vector<int> device_types;
  // Site or app content categories (site.cat / site.sectioncat /
  // site.pagecat / app.cat), IAB 1.0 codes; one match is enough.
  std::vector<std::string> content_categories;
  // site.domain / app.domain, lower-case host names; an entry matches the
  // domain and its subdomains. A domain may not be in both lists.
  std::vector<std::string> domains_allow;
  std::vector<std::string> domains_deny;
  // User segment ids the device's profile must all hold (family `seg`).
  // A profile lookup that was skipped or failed matches no such campaign.
  // 1-64 printable ASCII characters each.
  std::vector<std::string> required_segments;
  // pmp.deals[].id this campaign bids through; when non-empty it bids only
  // on impressions offering one of them. 1-64 printable ASCII characters.
  std::vector<std::string> deal_ids;
  // imp.rwdd. Default any.
  RewardedPolicy rewarded = RewardedPolicy::kAny;
};

// One entry of campaigns[].dsa.transparency: a party that holds DSA
// transparency information about the ad, sent in ext.dsa.transparency.
struct DsaTransparencyConfig {
  // Its domain. Required, a lower-case domain name.
  std::string domain;
  // The user parameters it uses: 1 profiling, 2 basic advertising, 3 precise
  // geolocation. Each at most once. Default none.
  std::vector<int> dsaparams;
};

// campaigns[].dsa: what a bid of the campaign carries in ext.dsa when the
// request carries the EU Digital Services Act signal (regs.ext.dsa,
// dsarequired 1 to 3; bidder/privacy/dsa.h decides).
struct CampaignDsaConfig {
  // On whose behalf the ad is shown (ext.dsa.behalf). Required, 1-100
  // bytes of printable text (the DSA extension's limit is 100 characters).
  std::string behalf;
  // Who paid for the ad (ext.dsa.paid). Required, 1-100 bytes, as behalf.
  std::string paid;
  // 1 when every creative of the campaign renders the DSA transparency
  // notice itself (an "about this ad" mark), 0 when none does. A publisher
  // that cannot render the notice (pubrender 0) is served only by
  // campaigns with 1. Default 0. Range [0, 1].
  int adrender = 0;
  // Sent as ext.dsa.transparency when the request does not say datatopub 0.
  // Default none.
  std::vector<DsaTransparencyConfig> transparency;
};

// What a campaign pays for, and so what one impression is worth to it (see
// README "Pricing"). The value of an impression, CPM in the campaign's
// currency, is:
//   cpm: max_bid_cpm;
//   cpc: 1000 x target_cpc x predicted clicks per impression;
//   cpa: 1000 x target_cpa x predicted clicks per impression x predicted
//        conversions per click;
// never above max_bid_cpm. Predicted rates start from the campaign's own
// observed rates (shrunk toward prior_ctr / prior_cvr while it has few
// clicks or conversions) and are moved by the device's history when the
// bid path read it (pricing.device_history_days; device_prior_impressions and
// pricing.device_prior_clicks say how much history weighs as much as the
// campaign mean).
enum class CampaignGoal {
  kCpm,  // "cpm": a fixed price per thousand impressions
  kCpc,  // "cpc": a target cost per click
  kCpa,  // "cpa": a target cost per conversion (attributed through a click)
};

// One part of the week a campaign bids in: `days` ("mon" .. "sun"), from
// from_hour (inclusive) to to_hour (exclusive), in the campaign's time_zone.
struct DaypartConfig {
  // Required, at least one, no repeats.
  std::vector<std::string> days;
  // Range [0, 23]. Default 0.
  int from_hour = 0;
  // Range [from_hour + 1, 24]. Default 24.
  int to_hour = 24;
};

// When a campaign bids (README "Campaigns"). Default: always.
struct CampaignScheduleConfig {
  // The flight: RFC 3339 instants ("2026-12-01T00:00:00Z", an offset or Z
  // required); bids from `start` (inclusive) until `end` (exclusive). "":
  // unbounded on that side. `end` after `start`.
  std::string start;
  std::string end;
  // Hours of the week it bids. Empty: every hour.
  std::vector<DaypartConfig> dayparts;
};

struct CampaignGoalConfig {
  // Default cpm.
  CampaignGoal type = CampaignGoal::kCpm;
  // Cost per click aimed at, in the campaign's currency. Required (> 0, at
  // most 1000) for cpc; must be 0 otherwise.
  double target_cpc = 0;
  // Cost per conversion aimed at, in the campaign's currency. Required (> 0,
  // at most 100000) for cpa; must be 0 otherwise.
  double target_cpa = 0;
  // Clicks per impression assumed before the campaign has its own.
  // Default 0.001. Range (0, 1].
  double prior_ctr = 0.001;
  // Conversions per click assumed before the campaign has its own.
  // Default 0.02. Range (0, 1].
  double prior_cvr = 0.02;
};

struct CampaignConfig {
  // The campaign's JSON object as it was read (ParseConfig, ParseCampaign);
  // empty for a campaign built in code. CampaignToJson writes over it, so
  // every field survives seeding the campaigns table.
  std::string source_json;
  // Campaign id (bid `cid`), part of storage row keys (`campaignId|NN`,
  // `campaignId|yyyymmdd`). Required. 1-32 characters of [A-Za-z0-9_-];
  // unique.
  std::string id;
  // Bids only while true. Default true.
  bool enabled = true;
  // Seat the campaign buys under (seatbid[].seat, matched against a deal's
  // wseat). Default "": the exchange's seat. At most 64 printable ASCII
  // characters.
  std::string seat;
  // Advertiser domains (bid `adomain`, checked against `badv`). Required, at
  // least one lower-case host name.
  std::vector<std::string> advertiser_domains;
  // Categories of the campaign (checked against `bcat` and `acat`, sent in
  // `cat` together with the creative's), in the taxonomy `cattax` names.
  // Default none.
  std::vector<std::string> iab_categories;
  // Taxonomy of iab_categories here and in the creatives (AdCOM list
  // "Category Taxonomies"): 1 Content 1.0, 2 Content 2.0, 5 Content 2.1,
  // 6 Content 2.2, 7 Content 3.0, 8 Ad Product 2.0 (the ones the bidder has
  // tables for, taxonomy/data/README.md; codes must be in the table), or a
  // vendor taxonomy (500 and above; codes of printable ASCII, matched only
  // as equal codes). Requests in another taxonomy get the categories
  // translated (see README, "Categories"). Default 1.
  int cattax = 1;
  // Daily budget in micro-units of `currency` (1 USD = 1000000). Required,
  // > 0.
  int64_t daily_budget_micros = 0;
  // Budget for the campaign's whole life beside the daily one, micro-units
  // of `currency`: each day may spend the smaller of daily_budget_micros and
  // what the lifetime budget has left (the spend of the days before, as the
  // `budget` table keeps them: 400 days). 0: none. Default 0; > 0 when set.
  int64_t lifetime_budget_micros = 0;
  // ISO 4217 code of the budget and max bid, present in bid.currency_rates.
  // Default bid.default_currency.
  std::string currency;
  // Default even.
  PacingMode pacing_mode = PacingMode::kEven;
  // IANA time zone whose midnight starts the budget and frequency-cap day,
  // e.g. "America/New_York". Default "UTC". Checked to exist in the zone
  // database (absl::LoadTimeZone: $TZDIR or /usr/share/zoneinfo).
  std::string time_zone = "UTC";
  // Impressions per device per day; 0 means no cap. Default 0.
  // Range [0, 10000].
  int frequency_cap_per_day = 0;
  // See StoreOutagePolicy. Default "contextual_only": a storage outage never
  // makes a capped or segment-targeted campaign bid blind.
  StoreOutagePolicy store_outage_policy = StoreOutagePolicy::kContextualOnly;
  // Highest bid, `currency` per thousand impressions. Required, > 0 and at
  // most 1000.
  double max_bid_cpm = 0;
  // How the bid price is valued. Default: a fixed CPM of max_bid_cpm.
  CampaignGoalConfig goal;
  // Flight and dayparting. Default: always.
  CampaignScheduleConfig schedule;
  TargetingConfig targeting;
  // Required, at least one.
  std::vector<CreativeConfig> creatives;
  // The campaign's DSA transparency information. Absent (the default): the
  // campaign does not bid on requests whose regs.ext.dsa.dsarequired is 2 or
  // 3 (exchanges drop bids without ext.dsa there), and bids without ext.dsa
  // elsewhere.
  std::optional<CampaignDsaConfig> dsa;
};

// ---------------------------------------------------------------------------
// pacing: the budget loop (sidecar thread, or a separate pacer process).

enum class PacingProcessMode {
  kSidecar,  // "sidecar": the loop runs inside the bidder process
  kPacer,    // "pacer": one controller process serves many bidder workers;
             // needs a shared store (hbase or storage-server)
};

struct PacingConfig {
  // This worker's id; its budget shard is worker_id mod 16. Must be unique
  // among the processes sharing a store. Default 0. Range [0, 65535].
  int worker_id = 0;
  // How often local spend is flushed to the `budget` shards, ms.
  // Default 5000. Range [100, 600000].
  int flush_interval_ms = 5000;
  // How often the controller recomputes throttle and stop decisions, ms.
  // Default 1000. Range [100, 600000].
  int controller_interval_ms = 1000;
  // A published state older than this stops bidding for budgeted campaigns
  // (fail safe), ms. Default 30000. Range (controller_interval_ms, 3600000].
  int state_max_age_ms = 30000;
  // Window over which the spend rate is measured, seconds. Default 300.
  // Range [1, 86400], and at least one flush interval.
  int sliding_window_s = 300;
  // Default sidecar.
  PacingProcessMode mode = PacingProcessMode::kSidecar;
};

// ---------------------------------------------------------------------------
// pricing: what a bid is worth and what to pay for it (README "Pricing").
// Second-price auctions (the request's `at`, or the deal's) are bid at the
// value; first-price auctions are shaded to the price that maximises the
// expected surplus (value - price) x P(win), from win-rate curves fitted per
// exchange x site or app x creative format and size. The curves are fitted
// by the pricing loop: in each bidder under pacing.mode sidecar, in rtb-pacer
// (which publishes them in the `pricing` table) under pacing.mode pacer.

struct PricingConfig {
  // Shade first-price bids. False: every bid is its value. Default true.
  bool shading_enabled = true;
  // How often the curves and the campaigns' rates are fitted, and how often
  // bidders under pacing.mode pacer read what rtb-pacer published, seconds.
  // Default 300. Range [10, 86400].
  int fit_interval_s = 300;
  // A model older than this is not used: bids go out unshaded (fail safe),
  // seconds. Default 3600. Range (fit_interval_s, 604800].
  int model_max_age_s = 3600;
  // Win and loss notices older than this are left out of the curves, hours.
  // Default 24. Range [1, 168] (the outcome rows are kept 8 days).
  int window_hours = 24;
  // Win and price-loss notices a bucket needs within window_hours before its
  // bids are shaded; below it they go out at the value. Default 200.
  // Range [10, 10000000].
  int min_samples = 200;
  // Share of shaded bids whose price is moved at random around the chosen
  // price, so the curve keeps being measured there. Default 0.05.
  // Range [0, 0.5].
  double exploration_rate = 0.05;
  // Largest relative move of such a bid (0.1: within +-10 %, never above the
  // value nor below the floor). It also bounds how far below the prices
  // seen so far a curve reaches, so shading deepens by at most this much per
  // fit where notices carry no minimum bid to win. Default 0.1.
  // Range [0.01, 0.5].
  double exploration_width = 0.1;
  // Shading may lower the predicted chance of winning by at most this
  // fraction of the chance of the unshaded bid (0.05: at least 95 % of its
  // wins). 1: no limit, pure surplus. Default 0.05. Range [0, 1].
  double max_win_rate_loss = 0.05;
  // Buckets in a model at most, those with the most notices first (about
  // 100 bytes each). Default 50000. Range [1, 1000000].
  int max_buckets = 50000;
  // Campaign click and conversion rates are counted over this many days.
  // Default 14. Range [1, 60].
  int rate_window_days = 14;
  // Impressions of a device's own history that weigh as much as the
  // campaign's click rate: the device's predicted click rate is
  //   (clicks + n x campaign rate) / (impressions + n).
  // Default 1000. Range [1, 1000000].
  double device_prior_impressions = 1000;
  // The same for conversions per click, in clicks. Default 20.
  // Range [1, 1000000].
  double device_prior_clicks = 20;
  // Days of a device's own engagement (its event_rollups rows, every
  // campaign's impressions, clicks and conversions, today included) the bid
  // path reads for a cpc or cpa candidate. 0: none is read, every device
  // gets its campaign's rates. Default 30. Range [0, 365].
  int device_history_days = 30;
  // Clicks (for the click rate) and conversions (for the conversion rate) a
  // campaign's prior is worth while its own counts are small: its rate is
  //   (clicks + k) / (impressions + k / prior_ctr).
  // Default 10. Range [1, 100000].
  double campaign_prior_events = 10;
};

// ---------------------------------------------------------------------------
// campaign_store: how each bidder follows the campaigns table (the source of
// truth once seeded; see README "Campaigns").

struct CampaignStoreConfig {
  // How often the change log is read, ms. Default 500. Range [50, 1000], so
  // a change reaches every worker within 2 s.
  int follow_interval_ms = 500;
  // /readyz answers 503 once the table has not been readable for this long;
  // bidding goes on with the last index. Seconds. Default 30.
  // Range [1, 86400].
  int unreadable_after_s = 30;
  // Campaign positions (pacing, metrics) a worker holds; campaigns created
  // past it are not bid on (logged and counted). Default 4096. Range
  // [number of campaigns[], 1000000].
  int max_campaigns = 4096;
};

// ---------------------------------------------------------------------------
// telemetry: the bidder's own time series in the `metrics` table.

struct TelemetryConfig {
  // Writes telemetry at all. Default true.
  bool enabled = true;
  // Period of the raw points written, seconds. Default 10. Range [1, 3600].
  int write_interval_s = 10;
  // Distinct series kept in total; points of further series are dropped and
  // counted. Default 10000. Range [1, 1000000].
  int max_series = 10000;
  // Distinct series per metric name. Default 1000. Range [1, max_series].
  int max_series_per_metric = 1000;
  // /api/query and /api/suggest need an operator session. False serves them
  // to anyone who reaches the listen address (e.g. a Grafana on a private
  // network); /api/put always needs a session. Default true.
  bool query_requires_login = true;
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

// ---------------------------------------------------------------------------
// privacy: what the privacy signals of a request (TCF, US Privacy, GPP) let
// the bidder do. Purposes and special features are the IAB TCF v2.2 ones
// (Global Vendor List ids): 1 store and/or access information on a device,
// 2 basic ads, 3 and 4 personalised-ads profile and its use, 7 measure ad
// performance, 9 market research; special feature 1 precise geolocation.

// The TCF purposes one use of personal data needs when GDPR applies. A
// purpose is met by the user's consent to it and our vendor consent, or,
// when `legitimate_interest` is true, also by legitimate interest established
// for it and for our vendor. Publisher restrictions on our vendor for the
// purpose win over both.
struct PrivacyPurposesConfig {
  // Purpose ids in [1, 24], each at most once; every one must be met. An
  // empty list needs no purpose.
  std::vector<int> purposes;
  // Whether legitimate interest may stand in for consent. Must be false when
  // `purposes` holds 1: the TCF policies allow only consent for purpose 1.
  bool legitimate_interest = false;
};

struct PrivacyConfig {
  // Our vendor id in the IAB Europe Global Vendor List: the vendor consent
  // and legitimate interest looked up in TC strings. Default 0, meaning no id:
  // when GDPR applies no vendor signal is ours, so there is no bid. Range
  // [0, 65535]. The example configs set 1111, an id chosen because the TC
  // string of the request corpus (tests/fixtures/openrtb) consents to it
  // (vendors 1-300, 755 and 1000-1200); a deployment sets the id IAB Europe
  // registered for it.
  int gvl_vendor_id = 0;
  // When a request carries no regs.gdpr, GDPR applies if device.geo.country
  // is in the EEA, the United Kingdom or Switzerland. Default true.
  // regs.gdpr=0 or 1 always wins over geo.
  bool gdpr_applies_by_geo = true;
  // TC strings whose TcfPolicyVersion is below this count as no consent
  // (TCF v2.2 strings carry 4 or more; the policy retired older strings).
  // Default 4. Range [0, 63].
  int min_tcf_policy_version = 4;
  // Profile lookup, frequency cap counters (device_impressions) and the
  // device key in beacon URLs. Default purposes [1], no legitimate interest.
  PrivacyPurposesConfig device_access{.purposes = {1}, .legitimate_interest = false};
  // Bidding at all: without these there is no bid. Default purposes [2],
  // legitimate interest allowed.
  PrivacyPurposesConfig basic_ads{.purposes = {2}, .legitimate_interest = true};
  // Targeting the profile's segments (needs device_access as well). Default
  // purposes [3, 4], no legitimate interest (TCF v2.2 allows only consent
  // for them; true is for publishers' older arrangements).
  PrivacyPurposesConfig segment_targeting{.purposes = {3, 4}, .legitimate_interest = false};
  // Measurement events (impression, click and conversion beacons). Default
  // purposes [7, 9], legitimate interest allowed.
  PrivacyPurposesConfig measurement{.purposes = {7, 9}, .legitimate_interest = true};
  // Special features the user must have opted in to, with our vendor
  // consent, before device.geo's precise position (lat/lon) is used. Default
  // [1]. Ids in [1, 12], each at most once.
  std::vector<int> precise_geo_special_features = {1};
  // Under a US opt-out of sale, sharing or targeted advertising (US Privacy
  // or GPP) the bid is contextual: no profile, no segments, no device key in
  // beacon URLs. Whether frequency caps are still read and counted, under
  // cap-only keys (one per campaign and day, never the device key; README
  // "Privacy"): the state laws do not count measuring ad frequency as a
  // sale, sharing or targeted advertising. Only for a US signal that was
  // read: a malformed one, or a section the decoder does not read, counts no
  // caps whatever this says. Default true.
  bool us_opt_out_counts_frequency_caps = true;
};

// ---------------------------------------------------------------------------

struct BidderConfig {
  ServerConfig server;
  StorageConfig storage;
  BidConfig bid;
  std::vector<CampaignConfig> campaigns;
  PacingConfig pacing;
  CampaignStoreConfig campaign_store;
  TelemetryConfig telemetry;
  SessionsConfig sessions;
  MetricsConfig metrics;
  PrivacyConfig privacy;
  PricingConfig pricing;
};

// Parses and validates a configuration document. Reads the environment
// variables named by *_secret_env. InvalidArgument lists every problem found.
absl::StatusOr<BidderConfig> ParseConfig(std::string_view json);

// Reads `path` and parses it as ParseConfig does; errors are prefixed with the
// path. NotFound / PermissionDenied / InvalidArgument when it cannot be read.
absl::StatusOr<BidderConfig> LoadConfigFile(const std::string& path);

// The checks ParseConfig applies after decoding: ranges, syntax, uniqueness
// and cross-field rules, on a config built in code. Secrets must already be
// resolved (the *_secret fields filled).
absl::Status ValidateConfig(const BidderConfig& config);

// One campaign given as a JSON object (the form of an entry of campaigns[]),
// decoded and checked by the same rules as ParseConfig, in the context of
// `context` (its default currency and currency rates). Every problem at once,
// as "<path>: <what is wrong>" with paths relative to the campaign
// ("creatives[0].w: must be > 0"). Rules across campaigns (unique ids) are
// the caller's.
absl::StatusOr<CampaignConfig> ParseCampaign(std::string_view json, const BidderConfig& context);
absl::Status ValidateCampaign(const CampaignConfig& campaign, const BidderConfig& context);
// The campaign as a JSON object ParseCampaign reads back to an equal
// campaign: its identity, budget, pacing, bid, goal and targeting fields and
// its creatives' basic fields as they are now, defaults included ("dsa" only
// when set), over the object it was read from (source_json), whose other
// fields (a creative's attr, native assets, video protocols...) stay as read.
std::string CampaignToJson(const CampaignConfig& campaign);

// The JSON spelling of each enum value ("storage-server", "no-bid", ...).
const char* StorageBackendName(StorageBackend backend);
const char* ThriftTransportName(ThriftTransport transport);
const char* CoppaPolicyName(CoppaPolicy policy);
const char* PacingModeName(PacingMode mode);
const char* StoreOutagePolicyName(StoreOutagePolicy policy);
// Whether `campaign` may bid while its profile cannot be read (its
// store_outage_policy applied to its cap and segments); disabled campaigns
// never bid.
bool BidsWithoutProfile(const CampaignConfig& campaign);
const char* CreativeFormatName(CreativeFormat format);
const char* BillingNoticeName(BillingNotice notice);
const char* StartSlotName(StartSlot slot);
const char* RewardedPolicyName(RewardedPolicy policy);
const char* PacingProcessModeName(PacingProcessMode mode);
const char* CampaignGoalName(CampaignGoal goal);
// A schedule's start or end (RFC 3339 with an offset or Z) as Unix ms;
// nullopt when it is not one.
std::optional<int64_t> ScheduleInstantMillis(std::string_view rfc3339);
// A daypart's day, "mon" (0) to "sun" (6); nullopt for anything else.
std::optional<int> ScheduleDayIndex(std::string_view day);

}  // namespace rtb::config

#endif  // RTB_CONFIG_CONFIG_H_
