// What an exchange server (Prebid Server, its documentation and source) checks
// of a bidder's answer before it keeps a bid, applied to the answer of every
// request of the corpus (tests/fixtures/openrtb/requests), read from the JSON
// as an exchange server reads it:
//   - only 200 (a bid) and 204 (no bid) are answers;
//   - each bid has id, impid (one of the request's impressions) and crid;
//   - price above 0, unless the bid has a dealid;
//   - cur an ISO 4217 code the request offered (or USD when it offered none);
//   - bid.mtype, 1 to 4, the kind of an object the impression offers
//     (pass-through adapters take the media type from bid.mtype alone);
//   - where regs.ext.dsa.dsarequired is 2 or 3, ext.dsa with behalf and paid
//     of at most 100 characters;
//   - creative size (an operator's switch): a banner bid's w and h one of the
//     sizes the impression offers;
//   - secure markup (an operator's switch): on imp.secure = 1, no http URL in
//     adm, nurl, burl or lurl. Checked strictly (no "http:" at all, encoded
//     or not) for an exchange with an https beacon base; the example config's
//     bidder serves its beacons on loopback, whose http URLs browsers count as
//     secure (W3C Secure Contexts), and there every http URL must be one.
//
// The same under an exchange configured strict_openrtb_2_5, but for mtype,
// which such an answer has in bid.ext only.
//
// With RTB_ANSWERS_DIR set, every bid answer is also written there as
// <exchange's version>/<request name> for the rtblint run
// (tests/bidder/bid/rtblint_answers_test.sh).
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "config/config.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/bidder/bid_handler_harness.h"

namespace rtb::bidder {
namespace {

using nlohmann::json;
using testing::Answer;
using testing::ExampleConfig;
using testing::FixtureRequest;
using testing::FixtureRequestNames;
using testing::HandlerHarness;
using testing::PermissiveConfig;

// `object`'s member `key`, or null when `object` is no object or lacks it
// (the corpus has ext members of every JSON type).
const json& Member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

bool IsIsoCurrency(const std::string& code) {
  return code.size() == 3 && std::isupper(static_cast<unsigned char>(code[0])) &&
         std::isupper(static_cast<unsigned char>(code[1])) &&
         std::isupper(static_cast<unsigned char>(code[2]));
}

// The media types (mtype numbers) `imp` offers.
std::set<int> OfferedMediaTypes(const json& imp) {
  std::set<int> types;
  if (imp.contains("banner")) types.insert(1);
  if (imp.contains("video")) types.insert(2);
  if (imp.contains("audio")) types.insert(3);
  if (imp.contains("native")) types.insert(4);
  return types;
}

// The banner sizes `imp` offers: banner.w/h and every banner.format entry.
std::set<std::pair<int, int>> OfferedSizes(const json& imp) {
  std::set<std::pair<int, int>> sizes;
  const json& banner = Member(imp, "banner");
  if (Member(banner, "w").is_number() && Member(banner, "h").is_number()) {
    sizes.emplace(banner["w"].get<int>(), banner["h"].get<int>());
  }
  const json& formats = Member(banner, "format");
  for (const json& format : formats.is_array() ? formats : json::array()) {
    if (Member(format, "w").is_number() && Member(format, "h").is_number()) {
      sizes.emplace(format["w"].get<int>(), format["h"].get<int>());
    }
  }
  return sizes;
}

bool IsLoopbackHttpUrl(std::string_view url) {
  for (std::string_view prefix : {"http://127.", "http://localhost", "http://[::1]"}) {
    if (absl::StartsWith(absl::string_view(url.data(), url.size()),
                         absl::string_view(prefix.data(), prefix.size()))) {
      return true;
    }
  }
  return false;
}

// Every "http:"/"http%3A" occurrence in `text` (case-insensitive) that is not
// allowed: all of them when `strict`, else those not starting a loopback URL.
std::vector<std::string> InsecureReferences(const std::string& text, bool strict) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::string> found;
  for (std::string_view needle : {"http:", "http%3a"}) {
    for (size_t at = lower.find(needle); at != std::string::npos; at = lower.find(needle, at + 1)) {
      const std::string reference = text.substr(at, 40);
      if (strict || !IsLoopbackHttpUrl(reference)) found.push_back(reference);
    }
  }
  return found;
}

struct CheckedExchange {
  std::string name;     // for messages and the answers' folder
  bool strict_https;    // the exchange has an https beacon base
  std::string version;  // the exchange's openrtb_version
  // The exchange is strict_openrtb_2_5: its bids carry mtype in ext only,
  // which the checks then read as a 2.6 reader would find it.
  bool mtype_in_ext_only = false;
};

// Copies each bid's ext.mtype to its 2.6 place, checking it is there only.
void ReadMtypeFromExt(Answer* answer) {
  for (json& seatbid : answer->json["seatbid"]) {
    for (json& bid : seatbid["bid"]) {
      EXPECT_FALSE(bid.contains("mtype"));
      ASSERT_TRUE(Member(bid, "ext").contains("mtype"));
      bid["mtype"] = bid["ext"]["mtype"];
    }
  }
}

// The answer of `request` passes every check above.
void ExpectAcceptable(const json& request, const Answer& answer, const CheckedExchange& exchange) {
  ASSERT_TRUE(answer.response.status == 200 || answer.response.status == 204)
      << answer.response.status << " " << answer.response.body;
  if (answer.response.status == 204) return;
  ASSERT_FALSE(answer.json.is_discarded()) << answer.response.body;
  const json& response = answer.json;
  EXPECT_EQ(response.value("id", ""), request.value("id", "?"));

  const std::string cur = response.value("cur", "USD");
  EXPECT_TRUE(IsIsoCurrency(cur)) << cur;
  const json offered_currencies = request.value("cur", json::array());
  if (!offered_currencies.empty()) {
    EXPECT_NE(std::find(offered_currencies.begin(), offered_currencies.end(), cur),
              offered_currencies.end())
        << cur << " is none of the request's currencies";
  }
  const json& dsa = Member(Member(Member(request, "regs"), "ext"), "dsa");
  const int dsarequired =
      Member(dsa, "dsarequired").is_number_integer() ? Member(dsa, "dsarequired").get<int>() : 0;

  ASSERT_TRUE(response.contains("seatbid"));
  for (const json& seatbid : response["seatbid"]) {
    for (const json& bid : seatbid["bid"]) {
      SCOPED_TRACE(bid.dump());
      EXPECT_FALSE(bid.value("id", "").empty());
      EXPECT_FALSE(bid.value("crid", "").empty());
      const std::string impid = bid.value("impid", "");
      const json* imp = nullptr;
      for (const json& candidate : request["imp"]) {
        if (candidate.value("id", "") == impid) imp = &candidate;
      }
      ASSERT_NE(imp, nullptr) << "impid " << impid << " is not an impression of the request";
      if (bid.value("dealid", "").empty()) {
        EXPECT_GT(bid.value("price", 0.0), 0);
      }

      ASSERT_TRUE(bid.contains("mtype")) << "an exchange server drops a bid without mtype";
      const int mtype = bid["mtype"].get<int>();
      EXPECT_TRUE(OfferedMediaTypes(*imp).count(mtype)) << "mtype " << mtype;
      if (mtype == 1) {
        ASSERT_TRUE(bid.contains("w") && bid.contains("h"));
        EXPECT_TRUE(OfferedSizes(*imp).count({bid["w"].get<int>(), bid["h"].get<int>()}))
            << bid["w"] << "x" << bid["h"] << " is not a size the impression offers";
      }
      if (dsarequired == 2 || dsarequired == 3) {
        const json& bid_dsa = Member(Member(bid, "ext"), "dsa");
        ASSERT_TRUE(bid_dsa.is_object());
        for (const char* member : {"behalf", "paid"}) {
          const std::string value = bid_dsa.value(member, "");
          EXPECT_FALSE(value.empty()) << member;
          EXPECT_LE(value.size(), 100u) << member;
        }
      }
      if (Member(*imp, "secure") == 1) {
        for (const char* member : {"adm", "nurl", "burl", "lurl"}) {
          const std::vector<std::string> insecure =
              InsecureReferences(bid.value(member, ""), exchange.strict_https);
          EXPECT_TRUE(insecure.empty())
              << member << " of a bid on a secure impression has " << insecure.size()
              << " http references, the first: " << (insecure.empty() ? "" : insecure[0]);
        }
      }
    }
  }
}

// Writes the answer for the rtblint run, when asked to.
void KeepAnswer(const CheckedExchange& exchange, const std::string& name, const Answer& answer) {
  const char* dir = std::getenv("RTB_ANSWERS_DIR");
  if (dir == nullptr || answer.response.status != 200) return;
  const std::filesystem::path folder = std::filesystem::path(dir) / exchange.name;
  std::filesystem::create_directories(folder);
  std::ofstream(folder / name) << answer.response.body;
}

void CheckEveryAnswer(config::BidderConfig config, const CheckedExchange& exchange) {
  HandlerHarness harness(std::move(config));
  int bids = 0;
  for (const std::string& name : FixtureRequestNames()) {
    SCOPED_TRACE(exchange.name + ": " + name);
    const std::string body = FixtureRequest(name);
    Answer answer = harness.Call(body);
    KeepAnswer(exchange, name, answer);
    if (exchange.mtype_in_ext_only && answer.response.status == 200) ReadMtypeFromExt(&answer);
    ExpectAcceptable(json::parse(body), answer, exchange);
    EXPECT_EQ(answer.Header("x-openrtb-version"), exchange.version);
    if (answer.response.status == 200) ++bids;
  }
  EXPECT_GE(bids, 15) << "the corpus's bids";
}

TEST(ExchangeServerChecksTest, EveryAnswerOfTheExampleConfigPasses) {
  config::BidderConfig config = ExampleConfig();
  ASSERT_EQ(config.server.exchanges[0].openrtb_version, "2.5");
  CheckEveryAnswer(std::move(config), {"openrtb-2.5", /*strict_https=*/false, "2.5"});
}

TEST(ExchangeServerChecksTest, EveryAnswerOfAStrict25ExchangePassesButForMtype) {
  // A strict 2.5 answer has bid.mtype in ext only (checked), and an exchange
  // server that reads bid.mtype drops such a bid; every other check passes,
  // with the media type read from ext.
  config::BidderConfig config = ExampleConfig();
  config.server.exchanges[0].strict_openrtb_2_5 = true;
  CheckEveryAnswer(std::move(config), {"openrtb-2.5-strict", /*strict_https=*/false, "2.5",
                                       /*mtype_in_ext_only=*/true});
}

TEST(ExchangeServerChecksTest, EveryAnswerOfA26ExchangeWithAnHttpsBasePasses) {
  // As a bidder serves Prebid Server in production: no version header, the
  // exchange configured 2.6, beacons behind https.
  config::BidderConfig config = ExampleConfig();
  config.server.exchanges[0].openrtb_version = "2.6";
  config.server.exchanges[0].secure_beacon_base_url = "https://rtb.example.com";
  CheckEveryAnswer(std::move(config), {"openrtb-2.6", /*strict_https=*/true, "2.6"});
}

// The permissive campaigns bid on every kind of impression of the corpus
// (audio and native too), as 2.5 and as Prebid Server's 2.6.
TEST(ExchangeServerChecksTest, EveryAnswerOfThePermissiveCampaignsPasses) {
  CheckEveryAnswer(PermissiveConfig(), {"openrtb-2.5-permissive", /*strict_https=*/false, "2.5"});
  config::BidderConfig config = PermissiveConfig();
  config.server.exchanges[0].openrtb_version = "2.6";
  config.server.exchanges[0].secure_beacon_base_url = "https://rtb.example.com";
  CheckEveryAnswer(std::move(config), {"openrtb-2.6-permissive", /*strict_https=*/true, "2.6"});
}

}  // namespace
}  // namespace rtb::bidder
