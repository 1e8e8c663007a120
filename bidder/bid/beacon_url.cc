#include "bidder/bid/beacon_url.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codecs/base64url.h"
#include "pricing/bucket.h"
#include "storage/key_bytes.h"

namespace rtb::bidder {
namespace {

constexpr size_t kSignatureBytes = 16;
// The signed text's versions. 1: URLs without pf. 2: with pf, whose mask is
// signed. 3: every URL issued now (beacon_url.h); versions 1 and 2 are still
// verified, for the URLs issued before it.
constexpr std::string_view kSignatureVersion = "rtb-beacon-v1";
constexpr std::string_view kSignatureVersionWithPermissions = "rtb-beacon-v2";
constexpr std::string_view kSignatureVersionThree = "rtb-beacon-v3";
enum class SignedTextVersion { kOneOrTwo, kThree };

// The pf mask: the uses BeaconPermissions denies, and whether the device
// is named by a cap-only key (fk) instead.
constexpr int kDenyFrequencyCap = 1;
constexpr int kDenyMeasurement = 2;
constexpr int kFrequencyCapKey = 4;
constexpr int kDeniedMax = kDenyFrequencyCap | kDenyMeasurement | kFrequencyCapKey;

int DeniedMask(const BeaconParams& p) {
  return (p.permissions.count_frequency_cap ? 0 : kDenyFrequencyCap) |
         (p.permissions.measure ? 0 : kDenyMeasurement) |
         (p.frequency_cap_key.empty() ? 0 : kFrequencyCapKey);
}

constexpr std::string_view kAuctionPriceMacro = "${AUCTION_PRICE}";
constexpr std::string_view kAuctionCurrencyMacro = "${AUCTION_CURRENCY}";
constexpr std::string_view kAuctionLossMacro = "${AUCTION_LOSS}";
constexpr std::string_view kAuctionMinToWinMacro = "${AUCTION_MIN_TO_WIN}";

// RFC 3986's unreserved characters, by byte: one load per character where
// eight comparisons were (a bid's beacon query escapes a hundred-odd).
constexpr std::array<bool, 256> kUnreserved = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) {
    table[c] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '.' || c == '_' || c == '~';
  }
  return table;
}();

bool Unreserved(char c) { return kUnreserved[static_cast<unsigned char>(c)]; }

// A per-thread text written through a pointer: a bid's beacons take some
// eighty small appends, each an out-of-line call when made to a std::string
// (BM_BeaconUrlsOfABid: 6 % less time a bid this way). The
// string only grows, so room it already has is not zero-filled again; each
// write checks its room first.
class ScratchText {
 public:
  void Clear() { length_ = 0; }
  std::string_view view() const { return {data_.data(), length_}; }

  void Append(std::string_view s) {
    if (s.empty()) return;  // its data() may be null, which memcpy may not get
    std::memcpy(Room(s.size()), s.data(), s.size());
    length_ += s.size();
  }
  void Append(char c) {
    *Room(1) = c;
    ++length_;
  }
  void AppendNumber(int64_t value) {
    constexpr size_t kDigits = 20;  // INT64_MIN has 19 and a sign
    char* at = Room(kDigits);
    length_ += static_cast<size_t>(std::to_chars(at, at + kDigits, value).ptr - at);
  }
  // Percent-encodes every byte outside RFC 3986's unreserved set.
  void AppendEscaped(std::string_view value) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    char* const start = Room(3 * value.size());
    char* at = start;
    for (const char c : value) {
      if (Unreserved(c)) {
        *at++ = c;
      } else {
        const auto byte = static_cast<unsigned char>(c);
        at[0] = '%';
        at[1] = kHex[byte >> 4];
        at[2] = kHex[byte & 0xf];
        at += 3;
      }
    }
    length_ += static_cast<size_t>(at - start);
  }

 private:
  char* Room(size_t bytes) {
    if (data_.size() - length_ < bytes) data_.resize(std::max(2 * data_.size(), length_ + bytes));
    return data_.data() + length_;
  }

  std::string data_;
  size_t length_ = 0;
};

// Percent-decodes `in` ('+' is a space, as form encoding has it); false on a
// malformed escape.
bool Unescape(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      const int hi = storage::HexDigitValue(in[i + 1]);
      const int lo = storage::HexDigitValue(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+') {
      out->push_back(' ');
    } else {
      out->push_back(c);
    }
  }
  return true;
}

// One field of a signed text: its length, ':', the bytes, '\n'.
void AppendField(std::string_view value, ScratchText& text) {
  text.AppendNumber(static_cast<int64_t>(value.size()));
  text.Append(':');
  text.Append(value);
  text.Append('\n');
}

bool ParseInt64(std::string_view text, int64_t* value) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && end == text.data() + text.size();
}

// Known parameters, in the order they are written.
enum Param : size_t {
  kX,
  kC,
  kCr,
  kDk,
  kDl,
  kBp,
  kBc,
  kTs,
  kTest,
  kPf,
  kFk,
  kAid,
  kIid,
  kBid,
  kP,
  kCur,
  kLoss,
  kPb,
  kMtw,
  kSig,
  kParamCount
};
constexpr std::array<std::string_view, kParamCount> kParamNames = {
    "x",  "c",   "cr",  "dk",  "dl", "bp",  "bc",   "ts", "test", "pf",
    "fk", "aid", "iid", "bid", "p",  "cur", "loss", "pb", "mtw",  "sig"};

}  // namespace

std::string_view BeaconPath(BeaconKind kind) {
  switch (kind) {
    case BeaconKind::kWin:
      return "/win";
    case BeaconKind::kBilling:
      return "/billing";
    case BeaconKind::kLoss:
      return "/loss";
    case BeaconKind::kClick:
      return "/click";
    case BeaconKind::kImpression:
      return "/imp";
  }
  return "/win";
}

bool PercentDecode(std::string_view in, std::string* out) { return Unescape(in, out); }

BeaconParams ParamsOf(const VerifiedBeacon& beacon) {
  BeaconParams params;
  params.exchange = beacon.exchange;
  params.campaign_id = beacon.campaign_id;
  params.creative_id = beacon.creative_id;
  params.device_key = beacon.device_key;
  params.frequency_cap_key = beacon.frequency_cap_key;
  params.deal_id = beacon.deal_id;
  params.bid_price_micros = beacon.bid_price_micros;
  params.bid_currency = beacon.bid_currency;
  params.bid_time_ms = beacon.bid_time_ms;
  params.test = beacon.test;
  params.permissions = beacon.permissions;
  params.request_id = beacon.request_id;
  params.imp_id = beacon.imp_id;
  params.bid_id = beacon.bid_id;
  params.pricing_bucket = beacon.pricing_bucket;
  return params;
}

namespace {

// A loopback address (config::IsLoopbackAddress) or localhost: a host as
// written in a URL (IPv6 in brackets) or a listen address.
bool IsLoopbackHost(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return absl::EqualsIgnoreCase(absl::string_view(host.data(), host.size()), "localhost") ||
         config::IsLoopbackAddress(host);
}

// The host of an http(s) base URL ("" when it has none).
std::string_view HostOf(std::string_view base) {
  const size_t scheme = base.find("://");
  if (scheme == std::string_view::npos) return {};
  std::string_view authority = base.substr(scheme + 3);
  authority = authority.substr(0, authority.find('/'));
  if (!authority.empty() && authority[0] == '[')
    return authority.substr(0, authority.find(']') + 1);
  return authority.substr(0, authority.rfind(':'));
}

// Whether a plain base also serves secure impressions: https, or http on a
// loopback host ("" is this server's own address on `listen_address`).
bool ServesSecure(std::string_view base, std::string_view listen_address) {
  if (base.empty()) return IsLoopbackHost(listen_address);
  return absl::StartsWithIgnoreCase(absl::string_view(base.data(), base.size()), "https://") ||
         IsLoopbackHost(HostOf(base));
}

}  // namespace

ExchangeBeaconBases BeaconBasesOf(const config::BidderConfig& config,
                                  const config::ExchangeConfig& exchange) {
  ExchangeBeaconBases bases;
  bases.plain =
      exchange.beacon_base_url.empty() ? config.bid.beacon_base_url : exchange.beacon_base_url;
  if (!exchange.secure_beacon_base_url.empty()) {
    bases.secure = exchange.secure_beacon_base_url;
  } else if (ServesSecure(bases.plain, config.server.listen_address)) {
    bases.secure = bases.plain;
  }
  return bases;
}

std::vector<std::string> BeaconPathPrefixes(const config::BidderConfig& config) {
  std::vector<std::string> prefixes;
  const auto add = [&](std::string_view base) {
    std::string_view path;
    if (const size_t scheme = base.find("://"); scheme != std::string_view::npos) {
      if (const size_t slash = base.find('/', scheme + 3); slash != std::string_view::npos) {
        path = base.substr(slash);
      }
    }
    if (std::find(prefixes.begin(), prefixes.end(), path) == prefixes.end()) {
      prefixes.emplace_back(path);
    }
  };
  add(config.bid.beacon_base_url);
  for (const config::ExchangeConfig& exchange : config.server.exchanges) {
    const ExchangeBeaconBases bases = BeaconBasesOf(config, exchange);
    add(bases.plain);
    if (bases.serves_secure()) add(*bases.secure);
  }
  return prefixes;
}

std::string BeaconBaseUrl(std::string_view configured, std::string_view listen_address, int port) {
  std::string url;
  AppendBeaconBaseUrl(configured, listen_address, port, &url);
  return url;
}

void AppendBeaconBaseUrl(std::string_view configured, std::string_view listen_address, int port,
                         std::string* out) {
  if (!configured.empty()) {
    out->append(configured);
    return;
  }
  const bool v6 = listen_address.find(':') != std::string_view::npos;
  out->append("http://");
  if (v6) out->push_back('[');
  out->append(listen_address);
  if (v6) out->push_back(']');
  out->push_back(':');
  char digits[16];
  const auto [end, error] = std::to_chars(digits, digits + sizeof(digits), port);
  out->append(digits, static_cast<size_t>(end - digits));
}

std::string FillMarkup(std::string_view adm, std::string_view click_url,
                       std::string_view impression_url) {
  std::string out;
  AppendFilledMarkup(adm, click_url, impression_url, &out);
  return out;
}

void AppendFilledMarkup(std::string_view adm, std::string_view click_url,
                        std::string_view impression_url, std::string* out) {
  out->reserve(out->size() + adm.size() + click_url.size() + impression_url.size());
  size_t from = 0;
  while (true) {
    const size_t click_at = adm.find(kClickUrlPlaceholder, from);
    const size_t pixel_at = adm.find(kImpressionUrlPlaceholder, from);
    const size_t at = std::min(click_at, pixel_at);
    if (at == std::string_view::npos) break;
    out->append(adm.substr(from, at - from));
    const bool click = at == click_at;
    out->append(click ? click_url : impression_url);
    from = at + (click ? kClickUrlPlaceholder : kImpressionUrlPlaceholder).size();
  }
  out->append(adm.substr(from));
}

BeaconSigner::BeaconSigner(std::string_view secret) : hmac_(secret) {}

namespace {

// The signed text of a bid's beacons, without the kind. Version 3 signs the
// denied mask always (0: every use allowed); versions 1 and 2 (by whether
// the mask is 0) only when it is set.
void AppendSignedText(const BeaconParams& p, SignedTextVersion version, ScratchText& text) {
  const int denied = DeniedMask(p);
  if (version == SignedTextVersion::kThree) {
    AppendField(kSignatureVersionThree, text);
  } else {
    AppendField(denied == 0 ? kSignatureVersion : kSignatureVersionWithPermissions, text);
  }
  AppendField(p.exchange, text);
  AppendField(p.campaign_id, text);
  AppendField(p.creative_id, text);
  AppendField(p.device_key, text);
  AppendField(p.deal_id, text);
  char number[24];
  auto write_number = [&](int64_t v) {
    auto [end, ec] = std::to_chars(number, number + sizeof(number), v);
    AppendField(std::string_view(number, static_cast<size_t>(end - number)), text);
  };
  write_number(p.bid_price_micros);
  AppendField(p.bid_currency, text);
  write_number(p.bid_time_ms);
  AppendField(p.test ? "1" : "0", text);
  if (version == SignedTextVersion::kThree || denied != 0) write_number(denied);
  if (denied & kFrequencyCapKey) AppendField(p.frequency_cap_key, text);
  AppendField(p.request_id, text);
  AppendField(p.imp_id, text);
  AppendField(p.bid_id, text);
  // Last and only when set, so bids without a bucket sign as before.
  if (p.pricing_bucket != 0) {
    const std::array<char, 16> bucket = pricing::BucketDigits(p.pricing_bucket);
    AppendField(std::string_view(bucket.data(), bucket.size()), text);
  }
}

// The kind as a field of the signed text, e.g. "4:/win\n".
std::string_view KindField(BeaconKind kind) {
  static const std::array<std::string, 5> kFields = [] {
    std::array<std::string, 5> fields;
    for (BeaconKind k : {BeaconKind::kWin, BeaconKind::kBilling, BeaconKind::kLoss,
                         BeaconKind::kClick, BeaconKind::kImpression}) {
      ScratchText field;
      AppendField(BeaconPath(k), field);
      fields[static_cast<size_t>(k)] = std::string(field.view());
    }
    return fields;
  }();
  return kFields[static_cast<size_t>(kind)];
}

}  // namespace

BeaconSigner::SignatureText BeaconSigner::SignatureOf(const internal::HmacSha256::Digest& digest) {
  static_assert(codecs::Base64UrlLength(kSignatureBytes) == std::tuple_size_v<SignatureText>);
  SignatureText out;
  codecs::WriteBase64Url(
      std::string_view(reinterpret_cast<const char*>(digest.data()), kSignatureBytes), out.data());
  return out;
}

internal::HmacSha256::Digest BeaconSigner::BidKey(const BeaconParams& p) const {
  thread_local ScratchText text;
  text.Clear();
  AppendSignedText(p, SignedTextVersion::kThree, text);
  return hmac_.Mac(text.view());
}

BeaconSigner::SignatureText BeaconSigner::KindSignature(const internal::HmacSha256::Digest& bid_key,
                                                        BeaconKind kind) {
  const internal::HmacSha256::Digest digest = internal::Sha256(
      {std::string_view(reinterpret_cast<const char*>(bid_key.data()), bid_key.size()),
       KindField(kind)});
  return SignatureOf(digest);
}

internal::HmacSha256::Partial BeaconSigner::LegacyPrefix(const BeaconParams& p) const {
  thread_local ScratchText text;
  text.Clear();
  AppendSignedText(p, SignedTextVersion::kOneOrTwo, text);
  internal::HmacSha256::Partial prefix = hmac_.Begin();
  prefix.Update(text.view());
  return prefix;
}

BeaconSigner::SignatureText BeaconSigner::HmacSignature(internal::HmacSha256::Partial prefix,
                                                        BeaconKind kind) const {
  prefix.Update(KindField(kind));
  return SignatureOf(hmac_.Finish(prefix));
}

namespace {

// The query shared by a bid's beacons: everything up to the kind's macros.
void AppendSharedQuery(const BeaconParams& p, ScratchText& out) {
  auto param = [&out](std::string_view name_and_equals, std::string_view value) {
    out.Append(name_and_equals);
    out.AppendEscaped(value);
  };
  auto number = [&out](std::string_view name_and_equals, int64_t value) {
    out.Append(name_and_equals);
    out.AppendNumber(value);
  };
  param("x=", p.exchange);
  param("&c=", p.campaign_id);
  param("&cr=", p.creative_id);
  if (!p.device_key.empty()) param("&dk=", p.device_key);
  if (!p.deal_id.empty()) param("&dl=", p.deal_id);
  number("&bp=", p.bid_price_micros);
  param("&bc=", p.bid_currency);
  number("&ts=", p.bid_time_ms);
  out.Append(p.test ? "&test=1" : "&test=0");
  if (const int denied = DeniedMask(p); denied != 0) number("&pf=", denied);
  if (!p.frequency_cap_key.empty()) param("&fk=", p.frequency_cap_key);
  out.Append("&aid=${AUCTION_ID}&iid=${AUCTION_IMP_ID}&bid=${AUCTION_BID_ID}");
  if (p.pricing_bucket != 0) {
    const std::array<char, 16> bucket = pricing::BucketDigits(p.pricing_bucket);
    param("&pb=", std::string_view(bucket.data(), bucket.size()));
  }
}

// What follows the shared query in a beacon of `kind`: the macros the
// exchange fills in. Built once from the macro names.
std::string_view KindQuery(BeaconKind kind, bool priced) {
  struct Tails {
    std::string price;       // win and billing: the price and its currency
    std::string priced_win;  // a win of a shaded bid: and the minimum to win
    std::string loss;        // the loss reason, the price and the minimum to win
  };
  static const Tails kTails = [] {
    const auto param = [](std::string_view name_and_equals, std::string_view macro) {
      return std::string(name_and_equals) + std::string(macro);
    };
    const std::string price = param("&p=", kAuctionPriceMacro);
    const std::string min_to_win = param("&mtw=", kAuctionMinToWinMacro);
    Tails tails;
    tails.price = price + param("&cur=", kAuctionCurrencyMacro);
    tails.priced_win = tails.price + min_to_win;
    tails.loss = param("&loss=", kAuctionLossMacro) + price + min_to_win;
    return tails;
  }();
  switch (kind) {
    case BeaconKind::kWin:
      return priced ? kTails.priced_win : kTails.price;
    case BeaconKind::kBilling:
      return kTails.price;
    case BeaconKind::kLoss:
      return kTails.loss;
    case BeaconKind::kClick:
    case BeaconKind::kImpression:
      break;
  }
  return {};
}

}  // namespace

void BeaconSigner::AppendOne(BeaconKind kind, std::string_view base_url, std::string_view query,
                             const internal::HmacSha256::Digest& bid_key, bool priced,
                             std::string* out) {
  constexpr std::string_view kSig = "&sig=";
  const std::string_view path = BeaconPath(kind);
  const std::string_view kind_query = KindQuery(kind, priced);
  const SignatureText signature = KindSignature(bid_key, kind);
  // Sized once and written through a pointer: the URL's length is known.
  const size_t start = out->size();
  out->resize(start + base_url.size() + path.size() + 1 + query.size() + kind_query.size() +
              kSig.size() + signature.size());
  char* at = out->data() + start;
  const auto put = [&at](std::string_view piece) {
    if (piece.empty()) return;
    std::memcpy(at, piece.data(), piece.size());
    at += piece.size();
  };
  put(base_url);
  put(path);
  *at++ = '?';
  put(query);
  put(kind_query);
  put(kSig);
  put(std::string_view(signature.data(), signature.size()));
}

void BeaconSigner::AppendUrl(BeaconKind kind, std::string_view base_url, const BeaconParams& p,
                             std::string* out) const {
  thread_local ScratchText query;
  query.Clear();
  AppendSharedQuery(p, query);
  AppendOne(kind, base_url, query.view(), BidKey(p), p.pricing_bucket != 0, out);
}

void BeaconSigner::AppendUrls(std::string_view base_url, const BeaconParams& p, std::string* win,
                              std::string* billing, std::string* loss, std::string* click,
                              std::string* impression) const {
  thread_local ScratchText shared;
  shared.Clear();
  AppendSharedQuery(p, shared);
  const std::string_view query = shared.view();
  const internal::HmacSha256::Digest bid_key = BidKey(p);
  const bool priced = p.pricing_bucket != 0;
  if (win != nullptr) AppendOne(BeaconKind::kWin, base_url, query, bid_key, priced, win);
  if (billing != nullptr) {
    AppendOne(BeaconKind::kBilling, base_url, query, bid_key, priced, billing);
  }
  if (loss != nullptr) AppendOne(BeaconKind::kLoss, base_url, query, bid_key, priced, loss);
  if (click != nullptr) AppendOne(BeaconKind::kClick, base_url, query, bid_key, priced, click);
  if (impression != nullptr) {
    AppendOne(BeaconKind::kImpression, base_url, query, bid_key, priced, impression);
  }
}

namespace {
constexpr std::string_view kClickTokenVersion = "rtb-click-token-v1";
constexpr size_t kImpressionIdBytes = 16;
}  // namespace

std::string BeaconSigner::ClickToken(std::string_view impression_id) const {
  std::string token;
  token.reserve(2 * impression_id.size() + 1 + 22);
  storage::AppendHex(impression_id, &token);
  thread_local ScratchText text;
  text.Clear();
  AppendField(kClickTokenVersion, text);
  AppendField(impression_id, text);
  internal::HmacSha256::Partial prefix = hmac_.Begin();
  prefix.Update(text.view());
  // HmacSignature() appends a kind field; the token's own version field
  // above already keeps its signed text apart from every beacon's.
  const SignatureText signature = HmacSignature(prefix, BeaconKind::kClick);
  token.push_back('.');
  token.append(signature.data(), signature.size());
  return token;
}

absl::StatusOr<std::string> BeaconSigner::VerifyClickToken(std::string_view token) const {
  const size_t dot = token.find('.');
  if (dot != 2 * kImpressionIdBytes) {
    return absl::InvalidArgumentError("click token: not <32 hex digits>.<signature>");
  }
  std::optional<std::string> impression_id = storage::FromHex(token.substr(0, dot));
  if (!impression_id) return absl::InvalidArgumentError("click token: not hex");
  const std::string expected = ClickToken(*impression_id);
  if (!internal::ConstantTimeEquals(expected, token)) {
    return absl::UnauthenticatedError("click token signature does not match");
  }
  return *std::move(impression_id);
}

std::string BeaconSigner::Url(BeaconKind kind, std::string_view base_url,
                              const BeaconParams& params) const {
  std::string url;
  AppendUrl(kind, base_url, params, &url);
  return url;
}

namespace {

using ParamValues = std::array<std::optional<std::string>, kParamCount>;

// The query's beacon parameters, decoded, by slot; parameters of other names
// are skipped, one given twice is refused.
absl::StatusOr<ParamValues> ReadParams(std::string_view query) {
  ParamValues values;
  std::string decoded;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string_view name = pair.substr(0, eq);
    const std::string_view raw =
        eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    size_t slot = kParamCount;
    for (size_t i = 0; i < kParamCount; ++i) {
      if (kParamNames[i] == name) slot = i;
    }
    if (slot == kParamCount) continue;
    if (values[slot].has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("beacon parameter ", std::string(name), " given twice"));
    }
    if (!Unescape(raw, &decoded)) {
      return absl::InvalidArgumentError(
          absl::StrCat("beacon parameter ", std::string(name), ": malformed percent escape"));
    }
    values[slot] = decoded;
  }
  return values;
}

// The parameter's value, empty when absent.
const std::string& Text(const ParamValues& values, Param p) {
  static const std::string kEmpty;
  return values[p].has_value() ? *values[p] : kEmpty;
}

absl::Status CheckRequiredParams(const ParamValues& values) {
  for (Param required : {kX, kC, kCr, kBp, kBc, kTs, kTest}) {
    if (!values[required].has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("beacon parameter ", std::string(kParamNames[required]), " missing"));
    }
  }
  if (!values[kSig].has_value()) return absl::UnauthenticatedError("beacon signature missing");
  return absl::OkStatus();
}

// The signed parameters as a beacon (the auction macros come after the
// signature check, in ReadAuctionMacros).
absl::StatusOr<VerifiedBeacon> ReadSignedParams(BeaconKind kind, const ParamValues& values) {
  auto text = [&](Param p) -> const std::string& { return Text(values, p); };
  VerifiedBeacon beacon;
  beacon.kind = kind;
  if (!ParseInt64(text(kBp), &beacon.bid_price_micros)) {
    return absl::InvalidArgumentError("beacon parameter bp: not an integer");
  }
  if (!ParseInt64(text(kTs), &beacon.bid_time_ms)) {
    return absl::InvalidArgumentError("beacon parameter ts: not an integer");
  }
  if (text(kTest) != "0" && text(kTest) != "1") {
    return absl::InvalidArgumentError("beacon parameter test: must be 0 or 1");
  }
  beacon.test = text(kTest) == "1";
  if (values[kPf].has_value()) {
    int64_t denied = 0;
    if (!ParseInt64(text(kPf), &denied) || denied < 1 || denied > kDeniedMax) {
      return absl::InvalidArgumentError(
          absl::StrCat("beacon parameter pf: must be an integer in [1, ", kDeniedMax, "]"));
    }
    beacon.permissions.count_frequency_cap = (denied & kDenyFrequencyCap) == 0;
    beacon.permissions.measure = (denied & kDenyMeasurement) == 0;
    // The cap-only key comes alone: never beside a device key, and only
    // under the bit that signs it.
    if (denied & kFrequencyCapKey) {
      if (!values[kFk].has_value() || text(kFk).empty() || values[kDk].has_value()) {
        return absl::InvalidArgumentError("beacon parameter pf: a cap-only key needs fk and no dk");
      }
      beacon.frequency_cap_key = text(kFk);
    }
  }
  if (values[kFk].has_value() && beacon.frequency_cap_key.empty()) {
    return absl::InvalidArgumentError("beacon parameter fk: not announced by pf");
  }
  beacon.exchange = text(kX);
  beacon.campaign_id = text(kC);
  beacon.creative_id = text(kCr);
  beacon.device_key = text(kDk);
  beacon.deal_id = text(kDl);
  beacon.bid_currency = text(kBc);
  beacon.request_id = text(kAid);
  beacon.imp_id = text(kIid);
  beacon.bid_id = text(kBid);
  if (values[kPb].has_value()) {
    const std::optional<uint64_t> bucket = pricing::ParseBucket(text(kPb));
    if (!bucket.has_value()) {
      return absl::InvalidArgumentError("beacon parameter pb: not a pricing bucket");
    }
    beacon.pricing_bucket = *bucket;
  }
  return beacon;
}

// A finite, non-negative price written whole, or nothing.
std::optional<double> ParsePrice(std::string_view s) {
  double price = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), price);
  if (ec == std::errc() && end == s.data() + s.size() && std::isfinite(price) && price >= 0) {
    return price;
  }
  return std::nullopt;
}

// The unsigned values the exchange substitutes for the auction macros; a
// macro left as is reads as empty, a price that does not parse as none.
void ReadAuctionMacros(const ParamValues& values, VerifiedBeacon* beacon) {
  auto substituted = [&](Param p, std::string_view macro) {
    const std::string& v = Text(values, p);
    return v == macro ? std::string() : v;
  };
  beacon->price_text = substituted(kP, kAuctionPriceMacro);
  if (!beacon->price_text.empty()) {
    if (std::optional<double> price = ParsePrice(beacon->price_text); price.has_value()) {
      beacon->clearing_price = *price;
    }
  }
  beacon->clearing_currency = substituted(kCur, kAuctionCurrencyMacro);
  beacon->loss_reason = substituted(kLoss, kAuctionLossMacro);
  beacon->min_to_win_text = substituted(kMtw, kAuctionMinToWinMacro);
  if (!beacon->min_to_win_text.empty()) {
    if (std::optional<double> price = ParsePrice(beacon->min_to_win_text);
        price.has_value() && *price > 0) {
      beacon->min_to_win = *price;
    }
  }
}

}  // namespace

absl::StatusOr<VerifiedBeacon> BeaconSigner::Verify(BeaconKind kind, std::string_view query) const {
  absl::StatusOr<ParamValues> values = ReadParams(query);
  if (!values.ok()) return values.status();
  if (absl::Status present = CheckRequiredParams(*values); !present.ok()) return present;
  absl::StatusOr<VerifiedBeacon> beacon = ReadSignedParams(kind, *values);
  if (!beacon.ok()) return beacon.status();

  const BeaconParams params = ParamsOf(*beacon);
  const std::string& given = Text(*values, kSig);
  const auto matches = [&given](const SignatureText& expected) {
    return internal::ConstantTimeEquals(std::string_view(expected.data(), expected.size()), given);
  };
  // Version 3 first; a URL issued before it was signed as version 1 or 2.
  if (!matches(KindSignature(BidKey(params), kind)) &&
      !matches(HmacSignature(LegacyPrefix(params), kind))) {
    return absl::UnauthenticatedError("beacon signature does not match");
  }
  ReadAuctionMacros(*values, &*beacon);
  return beacon;
}

}  // namespace rtb::bidder
