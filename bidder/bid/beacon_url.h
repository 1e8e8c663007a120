// Signed beacon URLs: the win notice (bid nurl), billing notice (burl), loss
// notice (lurl) and click URL (the ${CLICK_URL} of the markup) of a bid, and
// their verification when they come back.
//
//   <base>/win?x=<exchange>&c=<campaign>&cr=<creative>[&dk=<device key hex>]
//             [&dl=<deal>]&bp=<bid price, micro-units>&bc=<bid currency>
//             &ts=<bid time, Unix ms>&test=<0|1>[&pf=<denied uses>]
//             [&fk=<frequency-cap key hex>]
//             &aid=${AUCTION_ID}&iid=${AUCTION_IMP_ID}&bid=${AUCTION_BID_ID}
//             &p=${AUCTION_PRICE}&cur=${AUCTION_CURRENCY}&sig=<signature>
//   <base>/billing?...  same parameters as win
//   <base>/loss?...     without p and cur, with &loss=${AUCTION_LOSS}&p=${AUCTION_PRICE}
//                       &mtw=${AUCTION_MIN_TO_WIN}
//   A first-price bid's URLs also carry &pb=<pricing bucket, hex> (signed,
//   pricing/bucket.h), and its win notice &mtw=${AUCTION_MIN_TO_WIN} too (the
//   minimum bid to win, unsigned), which the pricing feedback counts
//   (pricing/feedback.h).
//   <base>/click?...    without p, cur and loss
//   <base>/imp?...      the impression pixel (the ${IMPRESSION_URL} of the
//                       markup), like click
//
// The ${...} macros are left for the exchange to substitute (OpenRTB 2.5
// section 4.4); the markup's click URL is substituted too, since exchanges
// apply the macros to adm.
//
// Signing is in two steps. The bid's key is HMAC-SHA256(bid.beacon_secret,
// signed text), over every parameter we know at bid time: our ids, the bid
// price and time, the test flag, and the values the exchange must put in for
// ${AUCTION_ID}, ${AUCTION_IMP_ID} and ${AUCTION_BID_ID} (the request,
// impression and bid ids we answered). A URL's signature is then the first
// 16 bytes of SHA-256(bid key || kind), base64url without padding, the kind
// being a field like the others ("4:/win\n"). The bid key is a MAC, so it is
// secret, and it never leaves the bidder; SHA-256 keyed by a secret prefix
// is a MAC for messages none of which extends another (the five kind fields),
// and only half its digest is shown. A bid's four or five URLs so cost one
// HMAC and one SHA-256 block per URL, where an HMAC per URL cost three blocks
// (BM_BeaconUrlsOfABid: 1.3 to 0.83 µs). The kind is signed, so a click URL
// cannot be turned into a billing notice.
//
// What only the exchange knows (price, currency, loss reason, minimum to win)
// is not signed; the beacon handler checks it for plausibility (e.g. a
// clearing price above our bid price). Each field is length-prefixed in the
// signed text, so no two different parameter sets sign alike.
//
// The device key in `dk` is the keyed hash (bidder/device_key.h), never the
// raw id; it is absent when the request was not tracked (lmt, dnt, COPPA, no
// valid id, or privacy signals that do not allow the device key). `test=1`
// marks bids on test requests (OpenRTB `test`: not billable), so the beacon
// side records no spend for them.
//
// `pf` carries what the request's privacy signals denied the beacon side
// (BeaconPermissions), as a decimal bit mask: 1 no frequency-cap count (nor
// device_impressions entry), 2 no measurement events, 4 the device is named
// only by the cap-only key in `fk` (bidder/bid/device_key.h,
// FrequencyCapKey: one campaign's count of one day, unlinkable to the device
// key or to any other count; a US opt-out's capped bids). It is written only
// when one of them is set. The signed text starts with its version, 3,
// and signs the mask always (0: nothing denied), and after it `fk` when bit
// 4 is set. Dropping or changing `pf` or `fk` therefore breaks the
// signature; `fk` without bit 4, or bit 4 beside a `dk`, is refused.
//
// URLs issued before version 3 still verify: their signature is the first 16
// bytes of HMAC-SHA256(secret, signed text || kind), the text being version 1
// without `pf` (the mask not signed) and version 2 with it (the mask signed).
// Verify tries version 3 first.
//
// Thread-safety: a BeaconSigner is immutable; use it from any thread.
#ifndef RTB_BIDDER_BID_BEACON_URL_H_
#define RTB_BIDDER_BID_BEACON_URL_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bidder/bid/internal/hmac_sha256.h"
#include "config/config.h"

namespace rtb::bidder {

enum class BeaconKind { kWin, kBilling, kLoss, kClick, kImpression };

// "/win", "/billing", "/loss", "/click", "/imp".
std::string_view BeaconPath(BeaconKind kind);

// What the beacon side may do with one bid's beacons: decided on the bid
// path from the request's privacy signals (bidder/privacy) and signed into
// the URLs, so that a beacon does what the request allowed when the bid was
// made.
struct BeaconPermissions {
  // The device's device_impressions entry and its frequency-cap count; both
  // also need the device key (`dk`).
  bool count_frequency_cap = true;
  // Events (win, loss, impression, click, conversion) and the click token
  // that conversions are attributed through.
  bool measure = true;

  bool all() const { return count_frequency_cap && measure; }
  bool operator==(const BeaconPermissions&) const = default;
};

// What one bid's beacons carry, as views (signing copies nothing).
struct BeaconParams {
  std::string_view exchange;
  std::string_view campaign_id;
  std::string_view creative_id;
  std::string_view device_key;  // hex; "" when untracked
  // hex; the cap-only key of this bid's frequency-cap count (pf bit 4), set
  // only when device_key is not.
  std::string_view frequency_cap_key;
  std::string_view deal_id;      // "" for the open auction
  int64_t bid_price_micros = 0;  // our bid, CPM in micro-units of bid_currency
  std::string_view bid_currency;
  int64_t bid_time_ms = 0;
  bool test = false;
  BeaconPermissions permissions;
  // What the exchange substitutes for ${AUCTION_ID}, ${AUCTION_IMP_ID} and
  // ${AUCTION_BID_ID}.
  std::string_view request_id;
  std::string_view imp_id;
  std::string_view bid_id;
  uint64_t pricing_bucket = 0;  // pricing/bucket.h; 0: none (not signed)
};

// A beacon whose signature checked out; strings owned, percent-decoded.
struct VerifiedBeacon {
  BeaconKind kind = BeaconKind::kWin;
  std::string exchange;
  std::string campaign_id;
  std::string creative_id;
  std::string device_key;
  std::string frequency_cap_key;  // hex, as signed; "" when none
  std::string deal_id;
  int64_t bid_price_micros = 0;
  std::string bid_currency;
  int64_t bid_time_ms = 0;
  bool test = false;
  BeaconPermissions permissions;  // every use allowed for a URL without pf
  std::string request_id;
  std::string imp_id;
  std::string bid_id;
  // Unsigned, as the exchange substituted them; "" when absent or left as
  // the macro. `clearing_price` is set when `price_text` is a plain number
  // (some exchanges encrypt prices; those stay in price_text).
  std::string price_text;
  std::optional<double> clearing_price;
  std::string clearing_currency;
  std::string loss_reason;
  // Loss notices (and first-price win notices): the lowest bid that would
  // have won (${AUCTION_MIN_TO_WIN}, OpenRTB 2.6), as the exchange
  // substituted it, and as a number when it is a plain positive one in
  // bid_currency (for pricing).
  std::string min_to_win_text;
  std::optional<double> min_to_win;
  uint64_t pricing_bucket = 0;  // signed; 0: none
};

// Placeholders of creative markup that the bidder fills with a bid's signed
// URLs: where a click goes, and the impression pixel.
inline constexpr std::string_view kClickUrlPlaceholder = "${CLICK_URL}";
inline constexpr std::string_view kImpressionUrlPlaceholder = "${IMPRESSION_URL}";

// The parameters a verified beacon was signed with (views into `beacon`).
BeaconParams ParamsOf(const VerifiedBeacon& beacon);

// The beacon bases of one exchange's bids, as configured (config/config.h,
// ExchangeConfig): `plain` for impressions that are not secure (the
// exchange's beacon_base_url, else bid.beacon_base_url; "" stands for this
// server's own http://<listen address>:<port>), `secure` for imp.secure = 1:
// the exchange's secure_beacon_base_url, else `plain` when that is https or
// on a loopback host. Browsers count http://127.0.0.0/8, http://[::1] and
// http://localhost as potentially trustworthy (W3C Secure Contexts) and load
// them from https pages without blocking mixed content, so a bidder
// listening on loopback (the example config) serves secure impressions as
// they would be served in production behind an https base. Without a secure
// base such an impression gets no bid: its URLs would be http.
struct ExchangeBeaconBases {
  std::string plain;
  std::optional<std::string> secure;

  bool serves_secure() const { return secure.has_value(); }
  // The base to fill markup served by a win notice with: `secure` when
  // there is one (it serves any page), else `plain`.
  const std::string& for_markup() const { return serves_secure() ? *secure : plain; }
};
ExchangeBeaconBases BeaconBasesOf(const config::BidderConfig& config,
                                  const config::ExchangeConfig& exchange);

// The path of every beacon base of `config` (after scheme and authority;
// "" for a base without one), each once: the prefixes the beacon routes are
// served under.
std::vector<std::string> BeaconPathPrefixes(const config::BidderConfig& config);

// `configured` (an ExchangeBeaconBases member) when set, else
// http://<listen address>:<port>.
std::string BeaconBaseUrl(std::string_view configured, std::string_view listen_address, int port);
// The same, appended to `*out`.
void AppendBeaconBaseUrl(std::string_view configured, std::string_view listen_address, int port,
                         std::string* out);

// Percent-decodes a query parameter value ('+' is a space, as in forms);
// false on a malformed escape.
bool PercentDecode(std::string_view in, std::string* out);

// `adm` with every ${CLICK_URL} and ${IMPRESSION_URL} replaced.
std::string FillMarkup(std::string_view adm, std::string_view click_url,
                       std::string_view impression_url);
// The same, appended to `*out`.
void AppendFilledMarkup(std::string_view adm, std::string_view click_url,
                        std::string_view impression_url, std::string* out);

class BeaconSigner {
 public:
  // `secret` is bid.beacon_secret (not kept).
  explicit BeaconSigner(std::string_view secret);

  // Appends the URL of `kind` for `params` to `*out`. `base_url` is scheme,
  // host, optional port and path prefix without a trailing '/', e.g.
  // "https://rtb.example.com"; it is not signed (the host that receives the
  // beacon is the one that verifies it).
  void AppendUrl(BeaconKind kind, std::string_view base_url, const BeaconParams& params,
                 std::string* out) const;
  std::string Url(BeaconKind kind, std::string_view base_url, const BeaconParams& params) const;

  // The URLs of one bid at once, appended to the non-null outputs: the
  // signed text and the query they share are built and hashed once.
  void AppendUrls(std::string_view base_url, const BeaconParams& params, std::string* win,
                  std::string* billing, std::string* loss, std::string* click,
                  std::string* impression = nullptr) const;

  // The click token a click redirect hands to the landing page (parameter
  // rtb_click), which the advertiser's conversion call brings back: the
  // impression id (16 bytes) as hex, '.', and its signature. Conversions are
  // attributed only through a token we issued.
  std::string ClickToken(std::string_view impression_id) const;
  // The impression id of a token; Unauthenticated when it was not ours.
  absl::StatusOr<std::string> VerifyClickToken(std::string_view token) const;

  // Checks a received beacon. `query` is the URL's query (after '?'), still
  // percent-encoded. Unknown parameters are ignored (exchanges append their
  // own); a known one given twice, a malformed number or percent escape is
  // InvalidArgument; a missing or wrong signature is Unauthenticated.
  absl::StatusOr<VerifiedBeacon> Verify(BeaconKind kind, std::string_view query) const;

 private:
  // 22 base64url characters.
  using SignatureText = std::array<char, 22>;
  // base64url without padding of the digest's first 16 bytes.
  static SignatureText SignatureOf(const internal::HmacSha256::Digest& digest);

  // Version 3: the bid's key, HMAC of the signed text without the kind, and
  // a kind's signature from it.
  internal::HmacSha256::Digest BidKey(const BeaconParams& params) const;
  static SignatureText KindSignature(const internal::HmacSha256::Digest& bid_key, BeaconKind kind);
  // Versions 1 and 2 (and click tokens): the signed text without the kind,
  // hashed, and a kind's HMAC from it.
  internal::HmacSha256::Partial LegacyPrefix(const BeaconParams& params) const;
  SignatureText HmacSignature(internal::HmacSha256::Partial prefix, BeaconKind kind) const;
  // `priced`: the bid has a pricing bucket, so its notices ask for the
  // minimum bid to win.
  static void AppendOne(BeaconKind kind, std::string_view base_url, std::string_view query,
                        const internal::HmacSha256::Digest& bid_key, bool priced, std::string* out);

  internal::HmacSha256 hmac_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_BEACON_URL_H_
