#include <cmath>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "bidder/openrtb/openrtb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace rtb::openrtb {
namespace {

using Json = nlohmann::json;

BidResponse OneBid() {
  BidResponse response;
  response.id = "req-1";
  response.bidid = "resp-1";
  response.cur = "USD";
  SeatBid& seat = response.seatbid.emplace_back();
  seat.seat = "seat-7";
  Bid& bid = seat.bid.emplace_back();
  bid.id = "bid-1";
  bid.impid = "imp-1";
  bid.price = 1.5;
  bid.adm = "<div>ad</div>";
  bid.nurl = "https://win.example/n?p=${AUCTION_PRICE}&a=${AUCTION_ID}";
  bid.burl = "https://bill.example/b?p=${AUCTION_PRICE}";
  bid.lurl = "https://loss.example/l?r=${AUCTION_LOSS}";
  bid.adomain = {"brand.example"};
  bid.crid = "cr-1";
  bid.cid = "camp-1";
  bid.cat = {"IAB1", "IAB1-1"};
  bid.w = 300;
  bid.h = 250;
  bid.dealid = "deal-1";
  bid.adid = "ad-9";
  bid.iurl = "https://cdn.example/ad.png";
  bid.attr = {4, 12};
  bid.protocol = 3;
  bid.language = "de";
  bid.cattax = 2;
  bid.dur = 15;
  bid.mtype = 1;
  return response;
}

std::string Serialize(const BidResponse& response) {
  std::string out;
  absl::Status status = SerializeBidResponse(response, &out);
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

TEST(BidResponseWriterTest, WritesCompactJsonWithEveryMember) {
  EXPECT_EQ(Serialize(OneBid()),
            R"({"id":"req-1","seatbid":[{"seat":"seat-7","bid":[{"id":"bid-1","impid":"imp-1",)"
            R"("price":1.5,"adm":"<div>ad</div>","adid":"ad-9",)"
            R"("nurl":"https://win.example/n?p=${AUCTION_PRICE}&a=${AUCTION_ID}",)"
            R"("burl":"https://bill.example/b?p=${AUCTION_PRICE}",)"
            R"("lurl":"https://loss.example/l?r=${AUCTION_LOSS}","adomain":["brand.example"],)"
            R"("iurl":"https://cdn.example/ad.png","crid":"cr-1","cid":"camp-1",)"
            R"("cat":["IAB1","IAB1-1"],"attr":[4,12],"protocol":3,"language":"de","w":300,)"
            R"("h":250,"dealid":"deal-1","cattax":2,"dur":15,"mtype":1}]}],"bidid":"resp-1",)"
            R"("cur":"USD"})");
}

TEST(BidResponseWriterTest, OpenRtb25AnswerHasThe26OnlyMembersAtTheir26PlacesAndInExt) {
  BidResponse response = OneBid();
  response.version = OpenRtbVersion::k2_5;
  const Json bid = Json::parse(Serialize(response))["seatbid"][0]["bid"][0];
  // A 2.6 reader (Prebid Server's pass-through adapters read bid.mtype only)
  // finds them where 2.6 puts them; a 2.5 reader ignores them there.
  EXPECT_EQ(bid["mtype"], 1);
  EXPECT_EQ(bid["dur"], 15);
  EXPECT_EQ(bid["cattax"], 2);
  EXPECT_EQ(bid["ext"], Json::parse(R"({"cattax":2,"dur":15,"mtype":1})"));
  // Members 2.5 has stay where they are.
  EXPECT_EQ(bid["protocol"], 3);
  EXPECT_EQ(bid["attr"], Json::parse("[4,12]"));
  // Nothing to repeat: no ext.
  response.seatbid[0].bid[0].cattax.reset();
  response.seatbid[0].bid[0].dur.reset();
  response.seatbid[0].bid[0].mtype.reset();
  EXPECT_FALSE(Json::parse(Serialize(response))["seatbid"][0]["bid"][0].contains("ext"));
}

TEST(BidResponseWriterTest, StrictOpenRtb25AnswerHasThe26OnlyMembersInExtOnly) {
  BidResponse response = OneBid();
  response.version = OpenRtbVersion::k2_5;
  response.strict_2_5 = true;
  const Json bid = Json::parse(Serialize(response))["seatbid"][0]["bid"][0];
  EXPECT_FALSE(bid.contains("mtype"));
  EXPECT_FALSE(bid.contains("dur"));
  EXPECT_FALSE(bid.contains("cattax"));
  EXPECT_EQ(bid["ext"], Json::parse(R"({"cattax":2,"dur":15,"mtype":1})"));
  // A 2.6 answer is not affected.
  response.version = OpenRtbVersion::k2_6;
  EXPECT_EQ(Json::parse(Serialize(response))["seatbid"][0]["bid"][0]["mtype"], 1);
}

TEST(BidResponseWriterTest, OpenRtb26AnswerHasNoExtCopies) {
  const Json bid = Json::parse(Serialize(OneBid()))["seatbid"][0]["bid"][0];
  EXPECT_EQ(bid["mtype"], 1);
  EXPECT_FALSE(bid.contains("ext"));
}

TEST(BidResponseWriterTest, OmitsEmptyMembers) {
  BidResponse response;
  response.id = "r";
  Bid& bid = response.seatbid.emplace_back().bid.emplace_back();
  bid.id = "b";
  bid.impid = "i";
  bid.price = 2;
  bid.nurl = "https://win.example/";
  EXPECT_EQ(
      Serialize(response),
      R"({"id":"r","seatbid":[{"bid":[{"id":"b","impid":"i","price":2,"nurl":"https://win.example/"}]}]})");
}

TEST(BidResponseWriterTest, DsaGoesUnderExt) {
  BidResponse response = OneBid();
  Bid& bid = response.seatbid[0].bid[0];
  bid.dsa.emplace();
  bid.dsa->behalf = "Northwind \"Travel\"";
  bid.dsa->paid = "Northwind Holding";
  bid.dsa->adrender = 1;
  const std::string without_transparency = Serialize(response);
  EXPECT_THAT(without_transparency,
              ::testing::HasSubstr(R"("mtype":1,"ext":{"dsa":{"behalf":"Northwind \"Travel\"",)"
                                   R"("paid":"Northwind Holding","adrender":1}}}]}])"));
  bid.dsa->transparency.push_back({});
  bid.dsa->transparency[0].domain = "dsp.example";
  bid.dsa->transparency[0].dsaparams = {1, 2};
  bid.dsa->transparency.push_back({});
  bid.dsa->transparency[1].domain = "other.example";
  const Json parsed = Json::parse(Serialize(response));
  EXPECT_EQ(
      parsed["seatbid"][0]["bid"][0]["ext"],
      Json::parse(R"({"dsa":{"behalf":"Northwind \"Travel\"","paid":"Northwind Holding",)"
                  R"("adrender":1,"transparency":[{"domain":"dsp.example","dsaparams":[1,2]},)"
                  R"({"domain":"other.example"}]}})"));
}

TEST(BidResponseWriterTest, NoBidCarriesTheReason) {
  BidResponse response;
  response.id = "r";
  response.nbr = NoBidReason::kInvalidRequest;
  EXPECT_EQ(Serialize(response), R"({"id":"r","nbr":2})");
}

TEST(BidResponseWriterTest, EscapingRoundTripsThroughNlohmann) {
  std::string every_control;
  for (int c = 0; c < 0x20; ++c) every_control.push_back(static_cast<char>(c));
  const std::string tricky[] = {
      "plain",
      "quote \" backslash \\ slash /",
      every_control,
      "tab\tnewline\ncr\rbackspace\bformfeed\f",
      "\x7F delete is not escaped",
      "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80",  // é € 😀
      "<script>alert('x')</script>&amp;",
      std::string(1000, '"') + std::string(1000, '\\'),
      "long run without escapes " + std::string(300, 'a') + "\"" + std::string(17, 'b'),
      std::string("nul\0inside", 10),
      // Larger than the escaping buffer a thread keeps, then smaller again.
      std::string(50000, '<') + "\"" + std::string(50000, '\x01'),
      "short \"again\"",
  };
  for (const std::string& s : tricky) {
    SCOPED_TRACE(s);
    BidResponse response = OneBid();
    response.id = s;
    response.seatbid[0].seat = s;
    Bid& bid = response.seatbid[0].bid[0];
    bid.adm = s;
    bid.adomain = {s, s};
    std::string out = Serialize(response);
    Json parsed = Json::parse(out, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(parsed.is_discarded()) << out;
    EXPECT_EQ(parsed["id"], s);
    EXPECT_EQ(parsed["seatbid"][0]["seat"], s);
    EXPECT_EQ(parsed["seatbid"][0]["bid"][0]["adm"], s);
    EXPECT_EQ(parsed["seatbid"][0]["bid"][0]["adomain"][1], s);
  }
}

TEST(BidResponseWriterTest, InvalidUtf8BecomesReplacementCharacters) {
  const std::string replacement = "\xEF\xBF\xBD";
  const struct {
    std::string in;
    std::string out;
  } cases[] = {
      {"a\xFF"
       "b",
       "a" + replacement + "b"},
      {"caf\xC3", "caf" + replacement},                           // truncated at the end
      {"\xC0\xAF", replacement + replacement},                    // overlong
      {"\xED\xA0\x80", replacement + replacement + replacement},  // surrogate
      {"\xF4\x90\x80\x80", replacement + replacement + replacement + replacement},  // > U+10FFFF
      {"ok \xE2\x82\xAC", "ok \xE2\x82\xAC"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in);
    BidResponse response = OneBid();
    response.seatbid[0].bid[0].adm = c.in;
    std::string out = Serialize(response);
    Json parsed = Json::parse(out, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(parsed.is_discarded()) << out;
    EXPECT_EQ(parsed["seatbid"][0]["bid"][0]["adm"], c.out);
  }
}

// Runs between escapes are copied 16 bytes at a time: a special byte (or
// sequence) at every offset of the first, middle and last blocks, and two
// of them side by side, read back exactly.
TEST(BidResponseWriterTest, SpecialBytesAtEveryOffsetOfABlockReadBack) {
  const std::string specials[] = {
      "\"", "\\", "\n", "\x01", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"};
  for (size_t length : {15u, 16u, 17u, 31u, 32u, 33u, 47u}) {
    for (size_t at = 0; at <= length; ++at) {
      for (const std::string& special : specials) {
        for (const std::string& pair : {special, special + special}) {
          const std::string text =
              std::string(at, 'a') + pair + std::string(length - at, 'b') + "\"" + "cd";
          std::string out;
          AppendJsonString(text, &out);
          ASSERT_EQ(Json::parse(out).get<std::string>(), text) << length << " " << at;
        }
      }
    }
  }
}

// The first special byte is found 16 bytes at a time, the tail by a last
// block overlapping the one before: one special byte at each offset of
// strings of every length around the block size, and none at all.
TEST(BidResponseWriterTest, TheFirstSpecialByteIsFoundAtEveryOffset) {
  for (size_t length = 0; length <= 49; ++length) {
    const std::string plain(length, 'a');
    std::string out;
    AppendJsonString(plain, &out);
    ASSERT_EQ(out, "\"" + plain + "\"") << length;
    for (size_t at = 0; at < length; ++at) {
      std::string text = plain;
      text[at] = '"';
      out.clear();
      AppendJsonString(text, &out);
      ASSERT_EQ(out, "\"" + text.substr(0, at) + "\\\"" + text.substr(at + 1) + "\"")
          << length << " " << at;
    }
  }
}

// The escaper SerializeBidResponse uses, also the one for error bodies.
TEST(BidResponseWriterTest, AppendJsonStringQuotesAndEscapes) {
  std::string out = "{\"error\":";
  AppendJsonString("ext.a\"b\\c: malformed", &out);
  EXPECT_EQ(out, R"({"error":"ext.a\"b\\c: malformed")");
  out.clear();
  AppendJsonString(std::string("\n\t\x01\x1f\0x", 6), &out);
  EXPECT_EQ(out, R"("\n\t\u0001\u001f\u0000x")");
  out.clear();
  AppendJsonString("caf\xc3\xa9 \xff", &out);
  EXPECT_EQ(out, "\"caf\xc3\xa9 \xef\xbf\xbd\"");
  // Whatever goes in reads back as the same string (valid UTF-8 input).
  const std::string text = "key\nwith \"all\" \\ sorts\x02 \xe2\x82\xac";
  out.clear();
  AppendJsonString(text, &out);
  EXPECT_EQ(Json::parse(out).get<std::string>(), text);
}

TEST(BidResponseWriterTest, PricesArePlainDecimalsThatReadBackExactly) {
  const double prices[] = {0,    0.01,   0.1 + 0.2, 1.23456789012345, 1e-7, 123456789.125,
                           1e21, 2.5e-5, 7,         1.0 / 3.0,        -0.0};
  for (double price : prices) {
    SCOPED_TRACE(price);
    BidResponse response = OneBid();
    response.seatbid[0].bid[0].price = price;
    std::string out = Serialize(response);
    size_t at = out.find("\"price\":") + 8;
    std::string written = out.substr(at, out.find(',', at) - at);
    EXPECT_EQ(written.find_first_of("eE"), std::string::npos) << written;
    EXPECT_NE(written[0], '-') << written;
    EXPECT_EQ(std::stod(written), price);
    Json parsed = Json::parse(out);
    EXPECT_EQ(parsed["seatbid"][0]["bid"][0]["price"].get<double>(), price);
  }
}

TEST(BidResponseWriterTest, RejectsResponsesNoExchangeCouldAccept) {
  auto rejected = [](BidResponse response, std::string_view message) {
    std::string out = "previous content";
    absl::Status status = SerializeBidResponse(response, &out);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(status.message()), message);
    EXPECT_TRUE(out.empty());
  };
  BidResponse r = OneBid();
  r.id.clear();
  rejected(r, "id: required");
  r = OneBid();
  r.seatbid[0].bid[0].impid.clear();
  rejected(r, "seatbid[0].bid[0].impid: required");
  r = OneBid();
  r.seatbid[0].bid[0].id.clear();
  rejected(r, "seatbid[0].bid[0].id: required");
  r = OneBid();
  r.seatbid[0].bid[0].price = -1;
  rejected(r, "seatbid[0].bid[0].price: must be finite and >= 0");
  r = OneBid();
  r.seatbid[0].bid[0].price = std::numeric_limits<double>::quiet_NaN();
  rejected(r, "seatbid[0].bid[0].price: must be finite and >= 0");
  r = OneBid();
  r.seatbid[0].bid[0].price = std::numeric_limits<double>::infinity();
  rejected(r, "seatbid[0].bid[0].price: must be finite and >= 0");
  r = OneBid();
  r.seatbid[0].bid[0].adm.clear();
  r.seatbid[0].bid[0].nurl.clear();
  rejected(r, "seatbid[0].bid[0]: adm or nurl required");
  r = OneBid();
  r.seatbid.emplace_back();
  rejected(r, "seatbid[1].bid: at least one bid required");
  r = OneBid();
  r.seatbid[0].bid[0].dsa.emplace();
  r.seatbid[0].bid[0].dsa->behalf = "Brand";
  rejected(r, "seatbid[0].bid[0].ext.dsa: behalf and paid required");
}

TEST(BidResponseWriterTest, ReusesTheOutputString) {
  std::string out;
  ASSERT_TRUE(SerializeBidResponse(OneBid(), &out).ok());
  const std::string first = out;
  const size_t capacity = out.capacity();
  ASSERT_TRUE(SerializeBidResponse(OneBid(), &out).ok());
  EXPECT_EQ(out, first);
  EXPECT_EQ(out.capacity(), capacity);
}

TEST(BidResponseWriterTest, ManySeatsAndBidsRoundTrip) {
  BidResponse response;
  response.id = "r";
  for (int s = 0; s < 3; ++s) {
    SeatBid& seat = response.seatbid.emplace_back();
    seat.seat = "seat-" + std::to_string(s);
    for (int b = 0; b < 4; ++b) {
      Bid& bid = seat.bid.emplace_back();
      bid.id = "b" + std::to_string(s) + "-" + std::to_string(b);
      bid.impid = "i" + std::to_string(b);
      bid.price = 0.25 * (b + 1);
      bid.adm = "<img src=\"x\">";
    }
  }
  Json parsed = Json::parse(Serialize(response));
  ASSERT_EQ(parsed["seatbid"].size(), 3u);
  for (int s = 0; s < 3; ++s) {
    ASSERT_EQ(parsed["seatbid"][s]["bid"].size(), 4u);
    EXPECT_EQ(parsed["seatbid"][s]["seat"], "seat-" + std::to_string(s));
    EXPECT_EQ(parsed["seatbid"][s]["bid"][3]["price"].get<double>(), 1.0);
    EXPECT_EQ(parsed["seatbid"][s]["bid"][2]["adm"], "<img src=\"x\">");
  }
}

TEST(BidResponseWriterTest, ClearForReuseEmptiesEveryMemberAndKeepsTheMemory) {
  Bid bid = OneBid().seatbid[0].bid[0];
  bid.dsa.emplace().behalf = "Northwind";
  bid.adm.assign(4096, 'x');
  const char* markup_memory = bid.adm.data();
  ClearForReuse(&bid);
  EXPECT_EQ(bid, Bid{});
  bid.adm = "<div>the next bid's markup</div>";
  EXPECT_EQ(bid.adm.data(), markup_memory);
}

}  // namespace
}  // namespace rtb::openrtb
