// Beacon URLs (bidder/bid/beacon_url.h): the first byte picks what the rest
// is.
//   0: a received beacon query, verified as each kind: an answer or
//      InvalidArgument / Unauthenticated; one that verifies as a kind fails
//      as every other kind (the kind is signed).
//   1: a bid's parameters (text fields split on NUL, then numbers and
//      flags: test, a cap-only key instead of the device key, denied uses): each of
//      its URLs, with the exchange's macros substituted as an exchange would
//      (values percent-encoded), verifies as its kind with every parameter
//      back as signed; Url() and AppendUrls() write the same URLs.
//   2: a click token: one that verifies is the token ClickToken() writes for
//      its impression id; the token for a 16-byte id verifies back to it.
//   3: markup and escapes: PercentDecode and FillMarkup.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_replace.h"
#include "bidder/bid/beacon_url.h"
#include "tests/fuzz/fuzz_targets.h"

namespace rtb::fuzz {
namespace {

using bidder::BeaconKind;
using bidder::BeaconParams;
using bidder::BeaconSigner;
using bidder::VerifiedBeacon;

constexpr BeaconKind kKinds[] = {BeaconKind::kWin, BeaconKind::kBilling, BeaconKind::kLoss,
                                 BeaconKind::kClick, BeaconKind::kImpression};
constexpr std::string_view kBase = "https://rtb.example.com";

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "beacon_url fuzz target: %s\n", what);
  std::abort();
}

const BeaconSigner& Signer() {
  static const BeaconSigner* signer =
      new BeaconSigner("fuzz-beacon-secret-0123456789abcdef0123456789abcdef");
  return *signer;
}

std::string Encoded(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out += {'%', kHex[byte >> 4], kHex[byte & 0xf]};
    }
  }
  return out;
}

void VerifyReceived(std::string_view query) {
  for (BeaconKind kind : kKinds) {
    absl::StatusOr<VerifiedBeacon> beacon = Signer().Verify(kind, query);
    if (!beacon.ok()) {
      const absl::StatusCode code = beacon.status().code();
      if (code != absl::StatusCode::kInvalidArgument &&
          code != absl::StatusCode::kUnauthenticated) {
        Fail("a refusal that is neither InvalidArgument nor Unauthenticated");
      }
      continue;
    }
    if (beacon->kind != kind) Fail("verified as another kind");
    for (BeaconKind other : kKinds) {
      if (other != kind && Signer().Verify(other, query).ok()) {
        Fail("one signature verifies as two kinds");
      }
    }
  }
}

int64_t Int64At(std::string_view bytes, size_t at) {
  int64_t v = 0;
  if (bytes.size() >= at + 8) std::memcpy(&v, bytes.data() + at, 8);
  return v;
}

void RoundTrip(std::string_view input) {
  // Nine text fields split on NUL; what follows the ninth NUL gives the
  // numbers and the test flag.
  std::vector<std::string_view> fields;
  while (fields.size() < 9) {
    const size_t nul = input.find('\0');
    fields.push_back(input.substr(0, nul));
    input = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
  }
  BeaconParams params;
  params.exchange = fields[0];
  params.campaign_id = fields[1];
  params.creative_id = fields[2];
  params.device_key = fields[3];
  params.deal_id = fields[4];
  params.bid_currency = fields[5];
  params.request_id = fields[6];
  params.imp_id = fields[7];
  params.bid_id = fields[8];
  params.bid_price_micros = Int64At(input, 0);
  params.bid_time_ms = Int64At(input, 8);
  params.test = input.size() > 16 && (input[16] & 1) != 0;
  // Bit 1: the fourth field is a cap-only key (fk, pf bit 4) instead of
  // the device key; bits 2 and 3 deny counting and measurement.
  if (input.size() > 16 && (input[16] & 2) != 0) {
    params.frequency_cap_key = params.device_key;
    params.device_key = {};
  }
  params.permissions.count_frequency_cap = !(input.size() > 16 && (input[16] & 4) != 0);
  params.permissions.measure = !(input.size() > 16 && (input[16] & 8) != 0);

  std::string urls[5];
  Signer().AppendUrls(kBase, params, &urls[0], &urls[1], &urls[2], &urls[3], &urls[4]);
  for (size_t i = 0; i < 5; ++i) {
    const BeaconKind kind = kKinds[i];
    if (urls[i] != Signer().Url(kind, kBase, params)) Fail("Url and AppendUrls disagree");
    const std::string prefix = std::string(kBase) + std::string(bidder::BeaconPath(kind)) + "?";
    if (urls[i].compare(0, prefix.size(), prefix) != 0) Fail("a URL without its base and path");
    const std::string query = absl::StrReplaceAll(urls[i].substr(prefix.size()),
                                                  {{"${AUCTION_ID}", Encoded(params.request_id)},
                                                   {"${AUCTION_IMP_ID}", Encoded(params.imp_id)},
                                                   {"${AUCTION_BID_ID}", Encoded(params.bid_id)},
                                                   {"${AUCTION_PRICE}", "1.25"},
                                                   {"${AUCTION_CURRENCY}", "EUR"},
                                                   {"${AUCTION_LOSS}", "102"}});
    absl::StatusOr<VerifiedBeacon> beacon = Signer().Verify(kind, query);
    if (!beacon.ok()) Fail("a URL we signed does not verify");
    const BeaconParams back = bidder::ParamsOf(*beacon);
    if (back.exchange != params.exchange || back.campaign_id != params.campaign_id ||
        back.creative_id != params.creative_id || back.device_key != params.device_key ||
        back.frequency_cap_key != params.frequency_cap_key ||
        back.permissions != params.permissions || back.deal_id != params.deal_id ||
        back.bid_currency != params.bid_currency || back.request_id != params.request_id ||
        back.imp_id != params.imp_id || back.bid_id != params.bid_id ||
        back.bid_price_micros != params.bid_price_micros ||
        back.bid_time_ms != params.bid_time_ms || back.test != params.test) {
      Fail("a verified beacon does not carry what was signed");
    }
    const bool priced =
        kind == BeaconKind::kWin || kind == BeaconKind::kBilling || kind == BeaconKind::kLoss;
    if (priced != beacon->clearing_price.has_value() ||
        (priced && *beacon->clearing_price != 1.25)) {
      Fail("the clearing price was not read");
    }
  }
}

void ClickTokens(std::string_view input) {
  absl::StatusOr<std::string> id = Signer().VerifyClickToken(input);
  if (id.ok() && Signer().ClickToken(*id) != input) Fail("a verified token is not ours");
  std::string impression(input.substr(0, 16));
  impression.resize(16, '\0');
  absl::StatusOr<std::string> back = Signer().VerifyClickToken(Signer().ClickToken(impression));
  if (!back.ok() || *back != impression) Fail("our token does not verify");
}

void Markup(std::string_view input) {
  std::string decoded;
  if (bidder::PercentDecode(input, &decoded) && decoded.size() > input.size()) {
    Fail("decoding made the text longer");
  }
  const std::string filled = bidder::FillMarkup(input, "https://c.example/c", "https://i/i");
  if (input.find(bidder::kClickUrlPlaceholder) == std::string_view::npos &&
      input.find(bidder::kImpressionUrlPlaceholder) == std::string_view::npos && filled != input) {
    Fail("markup without placeholders changed");
  }
}

}  // namespace

int FuzzBeaconUrl(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      VerifyReceived(input);
      break;
    case 1:
      RoundTrip(input);
      break;
    case 2:
      ClickTokens(input);
      break;
    default:
      Markup(input);
      break;
  }
  return 0;
}

}  // namespace rtb::fuzz
