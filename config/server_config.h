// The `server` section: the HTTP listener and the exchanges it serves.
// Part of config/config.h, which includes it; see there for the loading rules.
#ifndef RTB_CONFIG_SERVER_CONFIG_H_
#define RTB_CONFIG_SERVER_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace rtb::config {

// Whether `address` is an IP literal on the loopback network: 127.0.0.0/8 or
// ::1 (also as ::ffff:127.x.y.z). Host names, "localhost" too, are not.
bool IsLoopbackAddress(std::string_view address);

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

}  // namespace rtb::config

#endif  // RTB_CONFIG_SERVER_CONFIG_H_
