// Beacon URLs: layout, macros left for the exchange, signing and the
// rejection of anything tampered with.
#include "bidder/bid/beacon_url.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "tests/bidder/decision_fixtures.h"

namespace rtb::bidder {
namespace {

using testing::kBeaconSecret;

constexpr std::string_view kBase = "https://rtb.example.com/b";

BeaconParams Params() {
  BeaconParams p;
  p.exchange = "sample-exchange";
  p.campaign_id = "northwind-travel-display";
  p.creative_id = "nw-mrec-summer";
  p.device_key = "9bc38e10b2058c87388acbd40bb6a6a0";
  p.deal_id = "AB Agency/1&0001";
  p.bid_price_micros = 2500000;
  p.bid_currency = "USD";
  p.bid_time_ms = 1791115200000;
  p.test = false;
  p.request_id = "80ce30c53c16e6ede735f123ef6e32361bfc7b22";
  p.imp_id = "1";
  p.bid_id = "0123abcd-1";
  return p;
}

// What an exchange does with the URL: substitute the macros (values
// percent-encoded, as exchanges do for URLs), and return the query.
std::string Substitute(const std::string& url, std::string_view request_id, std::string_view imp_id,
                       std::string_view bid_id, std::string_view price = "1.93",
                       std::string_view loss = "102") {
  std::string out = absl::StrReplaceAll(url, {{"${AUCTION_ID}", std::string(request_id)},
                                              {"${AUCTION_IMP_ID}", std::string(imp_id)},
                                              {"${AUCTION_BID_ID}", std::string(bid_id)},
                                              {"${AUCTION_PRICE}", std::string(price)},
                                              {"${AUCTION_CURRENCY}", "USD"},
                                              {"${AUCTION_LOSS}", std::string(loss)}});
  return out.substr(out.find('?') + 1);
}

std::string SubstituteAsExpected(const std::string& url) {
  const BeaconParams p = Params();
  return Substitute(url, p.request_id, p.imp_id, p.bid_id);
}

TEST(BeaconUrlTest, LayoutWithMacrosForTheExchange) {
  BeaconSigner signer(kBeaconSecret);
  const std::string win = signer.Url(BeaconKind::kWin, kBase, Params());
  EXPECT_TRUE(
      win.starts_with("https://rtb.example.com/b/win?x=sample-exchange&c=northwind-travel-display"
                      "&cr=nw-mrec-summer&dk=9bc38e10b2058c87388acbd40bb6a6a0"
                      "&dl=AB%20Agency%2F1%260001&bp=2500000&bc=USD&ts=1791115200000&test=0"
                      "&aid=${AUCTION_ID}&iid=${AUCTION_IMP_ID}&bid=${AUCTION_BID_ID}"
                      "&p=${AUCTION_PRICE}&cur=${AUCTION_CURRENCY}&sig="))
      << win;
  const std::string loss = signer.Url(BeaconKind::kLoss, kBase, Params());
  EXPECT_TRUE(loss.starts_with("https://rtb.example.com/b/loss?")) << loss;
  EXPECT_NE(loss.find("&loss=${AUCTION_LOSS}"), std::string::npos);
  const std::string click = signer.Url(BeaconKind::kClick, kBase, Params());
  EXPECT_EQ(click.find("${AUCTION_PRICE}"), std::string::npos);
  EXPECT_TRUE(signer.Url(BeaconKind::kBilling, kBase, Params())
                  .starts_with(std::string(kBase) + "/billing?"));
}

TEST(BeaconUrlTest, SubstitutedBeaconVerifies) {
  BeaconSigner signer(kBeaconSecret);
  absl::StatusOr<VerifiedBeacon> win = signer.Verify(
      BeaconKind::kWin, SubstituteAsExpected(signer.Url(BeaconKind::kWin, kBase, Params())));
  ASSERT_TRUE(win.ok()) << win.status();
  EXPECT_EQ(win->campaign_id, "northwind-travel-display");
  EXPECT_EQ(win->creative_id, "nw-mrec-summer");
  EXPECT_EQ(win->device_key, "9bc38e10b2058c87388acbd40bb6a6a0");
  EXPECT_EQ(win->deal_id, "AB Agency/1&0001");
  EXPECT_EQ(win->bid_price_micros, 2500000);
  EXPECT_EQ(win->bid_time_ms, 1791115200000);
  EXPECT_FALSE(win->test);
  EXPECT_EQ(win->request_id, "80ce30c53c16e6ede735f123ef6e32361bfc7b22");
  EXPECT_EQ(win->bid_id, "0123abcd-1");
  ASSERT_TRUE(win->clearing_price.has_value());
  EXPECT_DOUBLE_EQ(*win->clearing_price, 1.93);
  EXPECT_EQ(win->clearing_currency, "USD");

  absl::StatusOr<VerifiedBeacon> loss = signer.Verify(
      BeaconKind::kLoss, SubstituteAsExpected(signer.Url(BeaconKind::kLoss, kBase, Params())));
  ASSERT_TRUE(loss.ok()) << loss.status();
  EXPECT_EQ(loss->loss_reason, "102");
}

TEST(BeaconUrlTest, UntrackedAndOpenAuctionBeaconsOmitKeyAndDeal) {
  BeaconSigner signer(kBeaconSecret);
  BeaconParams p = Params();
  p.device_key = "";
  p.deal_id = "";
  p.test = true;
  const std::string url = signer.Url(BeaconKind::kBilling, kBase, p);
  EXPECT_EQ(url.find("dk="), std::string::npos);
  EXPECT_EQ(url.find("dl="), std::string::npos);
  EXPECT_NE(url.find("&test=1&"), std::string::npos);
  absl::StatusOr<VerifiedBeacon> beacon =
      signer.Verify(BeaconKind::kBilling, SubstituteAsExpected(url));
  ASSERT_TRUE(beacon.ok()) << beacon.status();
  EXPECT_TRUE(beacon->test);
  EXPECT_EQ(beacon->device_key, "");
}

TEST(BeaconUrlTest, TamperedParametersAreRejected) {
  BeaconSigner signer(kBeaconSecret);
  const std::string query = SubstituteAsExpected(signer.Url(BeaconKind::kWin, kBase, Params()));
  const std::pair<std::string, std::string> tampers[] = {
      {"c=northwind-travel-display", "c=litware-retargeting"},
      {"cr=nw-mrec-summer", "cr=nw-leader-summer"},
      {"bp=2500000", "bp=25000000"},
      {"test=0", "test=1"},
      {"dk=9bc3", "dk=0bc3"},
      {"ts=1791115200000", "ts=1791115200001"},
      {"x=sample-exchange", "x=other"},
      {"iid=1", "iid=2"},
  };
  for (const auto& [from, to] : tampers) {
    std::string tampered = query;
    const size_t at = tampered.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    tampered.replace(at, from.size(), to);
    absl::StatusOr<VerifiedBeacon> beacon = signer.Verify(BeaconKind::kWin, tampered);
    EXPECT_EQ(beacon.status().code(), absl::StatusCode::kUnauthenticated) << to;
  }
  // Dropping the deal changes what was signed too.
  std::string no_deal = query;
  const size_t dl = no_deal.find("&dl=");
  no_deal.erase(dl, no_deal.find('&', dl + 1) - dl);
  EXPECT_EQ(signer.Verify(BeaconKind::kWin, no_deal).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(BeaconUrlTest, WrongAuctionIdsOrUnsubstitutedMacrosAreRejected) {
  BeaconSigner signer(kBeaconSecret);
  const std::string url = signer.Url(BeaconKind::kWin, kBase, Params());
  EXPECT_FALSE(
      signer.Verify(BeaconKind::kWin, Substitute(url, "other-request", "1", "0123abcd-1")).ok());
  const std::string raw = url.substr(url.find('?') + 1);
  EXPECT_EQ(signer.Verify(BeaconKind::kWin, raw).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(BeaconUrlTest, KindIsSigned) {
  BeaconSigner signer(kBeaconSecret);
  const std::string click = SubstituteAsExpected(signer.Url(BeaconKind::kClick, kBase, Params()));
  EXPECT_TRUE(signer.Verify(BeaconKind::kClick, click).ok());
  EXPECT_EQ(signer.Verify(BeaconKind::kBilling, click).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(BeaconUrlTest, OtherSecretRejects) {
  BeaconSigner signer(kBeaconSecret);
  BeaconSigner other("another-beacon-secret-0123456789abcdef");
  const std::string query = SubstituteAsExpected(signer.Url(BeaconKind::kWin, kBase, Params()));
  EXPECT_EQ(other.Verify(BeaconKind::kWin, query).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(BeaconUrlTest, MalformedQueriesAreInvalid) {
  BeaconSigner signer(kBeaconSecret);
  const std::string query = SubstituteAsExpected(signer.Url(BeaconKind::kWin, kBase, Params()));
  EXPECT_EQ(signer.Verify(BeaconKind::kWin, query + "&c=again").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(signer.Verify(BeaconKind::kWin, "x=a&c=b&cr=%zz").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(signer.Verify(BeaconKind::kWin, "x=a&c=b&cr=c&bp=1&bc=USD&ts=1&test=0").status().code(),
            absl::StatusCode::kUnauthenticated);  // no signature
  EXPECT_EQ(signer.Verify(BeaconKind::kWin, "").status().code(),
            absl::StatusCode::kInvalidArgument);
  // Parameters the exchange appends are ignored.
  EXPECT_TRUE(signer.Verify(BeaconKind::kWin, query + "&exch_extra=1").ok());
}

// `url` with its signature replaced by `signature`.
std::string WithSignature(const std::string& url, std::string_view signature) {
  return url.substr(0, url.find("&sig=") + 5) + std::string(signature);
}

// The signed text must not change: URLs the exchanges already hold have to
// keep verifying. The signatures below were computed outside this code base
// from the layout in beacon_url.h.
TEST(BeaconUrlTest, VersionThreeSignaturesAreAsDocumented) {
  BeaconSigner signer(kBeaconSecret);
  const std::string win = signer.Url(BeaconKind::kWin, kBase, Params());
  EXPECT_EQ(win.find("pf="), std::string::npos);
  EXPECT_TRUE(win.ends_with("&sig=aXC6MIvx_ZQ4zCtI4O8bqQ")) << win;
  const std::string click = signer.Url(BeaconKind::kClick, kBase, Params());
  EXPECT_TRUE(click.ends_with("&sig=1hu-bKIyuA4-2o4od4GmeA")) << click;
  BeaconParams denied = Params();
  denied.permissions.count_frequency_cap = false;
  denied.permissions.measure = false;
  const std::string billing = signer.Url(BeaconKind::kBilling, kBase, denied);
  EXPECT_NE(billing.find("&pf=3&"), std::string::npos) << billing;
  EXPECT_TRUE(billing.ends_with("&sig=DkMKHABjBKIAU2vlEf1e8w")) << billing;
  // One bid's URLs at once sign as one at a time.
  std::string together_win, together_click;
  signer.AppendUrls(kBase, Params(), &together_win, nullptr, nullptr, &together_click);
  EXPECT_EQ(together_win, win);
  EXPECT_EQ(together_click, click);
}

// URLs issued before version 3 were signed as version 1 (no pf) or 2 (with
// pf); they keep verifying, each for its own kind only.
TEST(BeaconUrlTest, UrlsSignedAsVersionOneOrTwoStillVerify) {
  BeaconSigner signer(kBeaconSecret);
  const std::string v1_win =
      WithSignature(signer.Url(BeaconKind::kWin, kBase, Params()), "8E_5HIxaQgmQUsXJSPS0WA");
  absl::StatusOr<VerifiedBeacon> beacon =
      signer.Verify(BeaconKind::kWin, SubstituteAsExpected(v1_win));
  ASSERT_TRUE(beacon.ok()) << beacon.status();
  EXPECT_EQ(beacon->permissions, BeaconPermissions{});
  EXPECT_TRUE(beacon->permissions.all());

  BeaconParams denied = Params();
  denied.permissions.count_frequency_cap = false;
  denied.permissions.measure = false;
  const std::string v2_billing =
      WithSignature(signer.Url(BeaconKind::kBilling, kBase, denied), "_QQd9-F1gh5Ac8pf49r_lg");
  beacon = signer.Verify(BeaconKind::kBilling, SubstituteAsExpected(v2_billing));
  ASSERT_TRUE(beacon.ok()) << beacon.status();
  EXPECT_EQ(beacon->permissions, denied.permissions);

  // The version 1 win signature on a billing notice, and a changed
  // parameter under it, are refused.
  const std::string v1_as_billing =
      WithSignature(signer.Url(BeaconKind::kBilling, kBase, Params()), "8E_5HIxaQgmQUsXJSPS0WA");
  EXPECT_EQ(
      signer.Verify(BeaconKind::kBilling, SubstituteAsExpected(v1_as_billing)).status().code(),
      absl::StatusCode::kUnauthenticated);
  std::string changed = SubstituteAsExpected(v1_win);
  changed.replace(changed.find("bp=2500000"), 10, "bp=2500001");
  EXPECT_EQ(signer.Verify(BeaconKind::kWin, changed).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(BeaconUrlTest, DeniedUsesAreSignedIntoPf) {
  BeaconSigner signer(kBeaconSecret);
  struct Case {
    bool count_frequency_cap;
    bool measure;
    const char* pf;
  } cases[] = {{false, true, "&pf=1&"}, {true, false, "&pf=2&"}, {false, false, "&pf=3&"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pf);
    BeaconParams p = Params();
    p.permissions.count_frequency_cap = c.count_frequency_cap;
    p.permissions.measure = c.measure;
    for (BeaconKind kind : {BeaconKind::kWin, BeaconKind::kBilling, BeaconKind::kLoss,
                            BeaconKind::kClick, BeaconKind::kImpression}) {
      const std::string url = signer.Url(kind, kBase, p);
      EXPECT_NE(url.find(std::string("&test=0") + c.pf + "aid="), std::string::npos) << url;
      absl::StatusOr<VerifiedBeacon> beacon = signer.Verify(kind, SubstituteAsExpected(url));
      ASSERT_TRUE(beacon.ok()) << beacon.status();
      EXPECT_EQ(beacon->permissions, p.permissions);
      // What the win notice re-signs for nurl_delivery markup keeps them.
      EXPECT_EQ(ParamsOf(*beacon).permissions, p.permissions);
    }
  }
}

TEST(BeaconUrlTest, DroppedOrChangedPfIsRejected) {
  BeaconSigner signer(kBeaconSecret);
  BeaconParams p = Params();
  p.permissions.measure = false;
  const std::string query = SubstituteAsExpected(signer.Url(BeaconKind::kBilling, kBase, p));
  auto replaced = [&](std::string_view from, std::string_view to) {
    std::string out = query;
    const size_t at = out.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) out.replace(at, from.size(), to);
    return out;
  };
  // Without pf the text is version 1: everything allowed, and not what was signed.
  EXPECT_EQ(signer.Verify(BeaconKind::kBilling, replaced("&pf=2", "")).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(signer.Verify(BeaconKind::kBilling, replaced("&pf=2", "&pf=1")).status().code(),
            absl::StatusCode::kUnauthenticated);
  // A version 1 URL given a pf does not verify either.
  const std::string v1 = SubstituteAsExpected(signer.Url(BeaconKind::kBilling, kBase, Params()));
  EXPECT_EQ(signer.Verify(BeaconKind::kBilling, v1 + "&pf=3").status().code(),
            absl::StatusCode::kUnauthenticated);
  // pf=4 names a cap-only key this URL does not carry.
  for (std::string_view bad : {"&pf=0", "&pf=4", "&pf=8", "&pf=-1", "&pf=x", "&pf="}) {
    EXPECT_EQ(signer.Verify(BeaconKind::kBilling, replaced("&pf=2", bad)).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

// A US opt-out's capped bid: no device key, its count's cap-only key in
// fk, announced by pf bit 4 and signed.
TEST(BeaconUrlTest, CapOnlyKeyIsSignedAndStandsAlone) {
  BeaconSigner signer(kBeaconSecret);
  BeaconParams p = Params();
  p.device_key = "";
  p.frequency_cap_key = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
  for (BeaconKind kind : {BeaconKind::kWin, BeaconKind::kBilling, BeaconKind::kLoss,
                          BeaconKind::kClick, BeaconKind::kImpression}) {
    const std::string url = signer.Url(kind, kBase, p);
    EXPECT_NE(url.find("&test=0&pf=4&fk=0f1e2d3c4b5a69788796a5b4c3d2e1f0&aid="), std::string::npos)
        << url;
    EXPECT_EQ(url.find("dk="), std::string::npos) << url;
    absl::StatusOr<VerifiedBeacon> beacon = signer.Verify(kind, SubstituteAsExpected(url));
    ASSERT_TRUE(beacon.ok()) << beacon.status();
    EXPECT_EQ(beacon->frequency_cap_key, p.frequency_cap_key);
    EXPECT_TRUE(beacon->device_key.empty());
    EXPECT_TRUE(beacon->permissions.count_frequency_cap);
    EXPECT_TRUE(beacon->permissions.measure);
    EXPECT_EQ(ParamsOf(*beacon).frequency_cap_key, p.frequency_cap_key);
  }
  // With measurement denied too.
  p.permissions.measure = false;
  const std::string url = signer.Url(BeaconKind::kBilling, kBase, p);
  EXPECT_NE(url.find("&pf=6&fk="), std::string::npos) << url;
  ASSERT_TRUE(signer.Verify(BeaconKind::kBilling, SubstituteAsExpected(url)).ok());

  p.permissions.measure = true;
  const std::string query = SubstituteAsExpected(signer.Url(BeaconKind::kBilling, kBase, p));
  auto replaced = [&](std::string_view from, std::string_view to) {
    std::string out = query;
    const size_t at = out.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) out.replace(at, from.size(), to);
    return out;
  };
  // Another count's key, or the key passed off as a device key: not signed.
  EXPECT_EQ(signer.Verify(BeaconKind::kBilling, replaced("fk=0f", "fk=1f")).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(signer.Verify(BeaconKind::kBilling, replaced("&pf=4&fk=", "&dk=")).status().code(),
            absl::StatusCode::kUnauthenticated);
  // fk without pf bit 4, bit 4 without fk, or beside a device key: refused.
  EXPECT_EQ(signer.Verify(BeaconKind::kBilling, replaced("&pf=4", "")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(signer.Verify(BeaconKind::kBilling, replaced("&pf=4", "&pf=1")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      signer.Verify(BeaconKind::kBilling, replaced("&fk=0f1e2d3c4b5a69788796a5b4c3d2e1f0", ""))
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(signer.Verify(BeaconKind::kBilling, query + "&dk=9bc38e10b2058c87388acbd40bb6a6a0")
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(BeaconUrlTest, EncryptedPriceIsKeptAsText) {
  BeaconSigner signer(kBeaconSecret);
  const BeaconParams p = Params();
  absl::StatusOr<VerifiedBeacon> beacon = signer.Verify(
      BeaconKind::kWin, Substitute(signer.Url(BeaconKind::kWin, kBase, p), p.request_id, p.imp_id,
                                   p.bid_id, "WEp8nQAAAAB1MTZZ"));
  ASSERT_TRUE(beacon.ok()) << beacon.status();
  EXPECT_EQ(beacon->price_text, "WEp8nQAAAAB1MTZZ");
  EXPECT_FALSE(beacon->clearing_price.has_value());
}

TEST(BeaconBasesTest, SecureImpressionsGetAnHttpsOrLoopbackBase) {
  config::BidderConfig config;
  config.server.listen_address = "127.0.0.1";
  config::ExchangeConfig exchange;
  // This server's own address on loopback: browsers count it secure.
  ExchangeBeaconBases bases = BeaconBasesOf(config, exchange);
  EXPECT_EQ(bases.plain, "");
  ASSERT_TRUE(bases.serves_secure());
  EXPECT_EQ(*bases.secure, "");
  // ... but not on a public address.
  config.server.listen_address = "0.0.0.0";
  EXPECT_FALSE(BeaconBasesOf(config, exchange).serves_secure());
  config.server.listen_address = "::1";
  EXPECT_TRUE(BeaconBasesOf(config, exchange).serves_secure());
  // A configured base: https or a loopback host serves secure impressions.
  for (const char* base : {"https://rtb.example.com", "http://localhost:8080",
                           "http://127.0.0.2:80/b", "http://[::1]:8080"}) {
    config.bid.beacon_base_url = base;
    bases = BeaconBasesOf(config, exchange);
    EXPECT_EQ(bases.plain, base);
    ASSERT_TRUE(bases.serves_secure()) << base;
    EXPECT_EQ(*bases.secure, base);
  }
  for (const char* base :
       {"http://rtb.example.com", "http://127.example.com", "http://localhost.example.com"}) {
    config.bid.beacon_base_url = base;
    EXPECT_FALSE(BeaconBasesOf(config, exchange).serves_secure()) << base;
  }
  // The exchange's own bases win over the bidder's.
  exchange.beacon_base_url = "http://x.example.com";
  exchange.secure_beacon_base_url = "https://x.example.com/s";
  bases = BeaconBasesOf(config, exchange);
  EXPECT_EQ(bases.plain, "http://x.example.com");
  EXPECT_EQ(bases.secure, "https://x.example.com/s");
  EXPECT_EQ(bases.for_markup(), "https://x.example.com/s");
}

TEST(BeaconBasesTest, RoutesAreServedUnderEveryBasesPath) {
  config::BidderConfig config;
  config.bid.beacon_base_url = "http://rtb.example.com/rtb";
  config.server.exchanges.resize(3);
  config.server.exchanges[0].secure_beacon_base_url = "https://rtb.example.com/rtb";
  config.server.exchanges[1].beacon_base_url = "http://other.example.com";
  config.server.exchanges[2].secure_beacon_base_url = "https://secure.example.com/s/b";
  EXPECT_EQ(BeaconPathPrefixes(config), (std::vector<std::string>{"/rtb", "", "/s/b"}));
}

}  // namespace
}  // namespace rtb::bidder
