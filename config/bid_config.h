// The `bid` and `privacy` sections: the bid decision's policies, secrets and
// money, and what a request's privacy signals let it do.
// Part of config/config.h, which includes it; see there for the loading rules.
#ifndef RTB_CONFIG_BID_CONFIG_H_
#define RTB_CONFIG_BID_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rtb::config {

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

}  // namespace rtb::config

#endif  // RTB_CONFIG_BID_CONFIG_H_
