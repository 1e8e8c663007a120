// The bid request parser's refusals and its edges: numbers beyond what
// simdjson reads alone, missing and mistyped fields, malformed, truncated,
// nested, invalid UTF-8 and oversized documents, a reused parser.
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "bidder/openrtb/internal/nlohmann_reader.h"
#include "bidder/openrtb/openrtb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/bidder/openrtb/fixture_requests.h"
#include "tests/bidder/openrtb/parser_expectations.h"

namespace rtb::openrtb {
namespace {

using testing::ExpectMalformed;
using testing::ExpectRejected;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ParseOrDie;
using testing::WithImp;
using testing::WithTop;

// JSON allows any exponent; one too long for simdjson that underflows is 0,
// as strtod (and the nlohmann baseline) read it.
TEST(BidRequestParserTest, ExponentsTooLongForSimdjsonStillUnderflowToZero) {
  const std::string json =
      R"({"id":"r","imp":[{"id":"1","bidfloor":1e-3666666666666666666666,"tagid":"t"}],)"
      R"("ext":{"a":[-2.5E-99999999999999999999999,0e99999999999999999999999]}})";
  BidRequest r = ParseOrDie(json);
  EXPECT_EQ(r.imp[0].bidfloor, 0);
  EXPECT_EQ(r.imp[0].tagid, "t");
  absl::StatusOr<BidRequest> baseline = internal::ParseBidRequestWithNlohmann(json);
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  EXPECT_TRUE(*baseline == r);
  ExpectMalformed(WithImp(R"("bidfloor":1e-36666666666666666666.)"));
}

// More than 19 significant digits are read correctly rounded: simdjson
// 3.0.1 read 0.99999999999999999999 as 0.0777, a floor of 1.0 as nearly
// nothing.
TEST(BidRequestParserTest, LongMantissasAreReadCorrectlyRounded) {
  const std::string json =
      R"({"id":"r","imp":[{"id":"1","bidfloor":0.99999999999999999999,"tagid":"t"}],)"
      R"("device":{"geo":{"lat":0.12345678901234567890123456789,)"
      R"("lon":-0.000000000000000000000000000000000000123456789012345678901234}}})";
  BidRequest r = ParseOrDie(json);
  EXPECT_EQ(r.imp[0].bidfloor, 1.0);
  EXPECT_EQ(r.device->geo->lat, 0.12345678901234568);
  EXPECT_EQ(r.device->geo->lon, -1.2345678901234568e-37);
  absl::StatusOr<BidRequest> baseline = internal::ParseBidRequestWithNlohmann(json);
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  EXPECT_TRUE(*baseline == r);
  ExpectMalformed(WithImp(R"("bidfloor":0.99999999999999999999.)"));
}

TEST(BidRequestParserTest, UnknownFieldsAndExtAreIgnored) {
  BidRequest r = ParseOrDie(
      R"({"id":"r","future":{"a":[1,2,{"b":null}],"c":true},"imp":[{"id":"1","ext":{"w":"not a number"},)"
      R"("banner":{"w":300,"h":250,"battr":[1,2],"ext":{"deep":[[[["x"]]]]}}}],"ext":{"prebid":{}}})");
  EXPECT_EQ(r.imp[0].banner->w, 300);
  EXPECT_FALSE(r.has_openrtb_2_6_fields);
}

TEST(BidRequestParserTest, EscapesInStringsAndKeysAreDecoded) {
  BidRequest r = ParseOrDie(
      R"({"i\u0064":"a\"b\\c\/d\u00e9\ud83d\ude00","imp":[{"id":"1"}],"site":{"page":"http:\/\/x.example\/?q=\"1\""}})");
  EXPECT_EQ(r.id, "a\"b\\c/d\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(r.site->page, "http://x.example/?q=\"1\"");
}

TEST(BidRequestParserTest, EscapedNulIsKeptInsideAString) {
  BidRequest r = ParseOrDie(R"({"id":"a\u0000b","imp":[{"id":"1"}]})");
  EXPECT_EQ(r.id, std::string("a\0b", 3));
}

TEST(BidRequestParserTest, MissingRequiredFieldsNameTheField) {
  ExpectRejected(R"({"imp":[{"id":"1"}]})", "id: required, a non-empty string");
  ExpectRejected(R"({"id":"","imp":[{"id":"1"}]})", "id: required, a non-empty string");
  ExpectRejected(R"({"id":"r"})", "imp: at least one impression required");
  ExpectRejected(R"({"id":"r","imp":[]})", "imp: at least one impression required");
  ExpectRejected(R"({"id":"r","imp":[{"banner":{}}]})", "imp[0].id: required, a non-empty string");
  ExpectRejected(R"({"id":"r","imp":[{"id":"1"},{"id":""}]})",
                 "imp[1].id: required, a non-empty string");
  ExpectRejected(WithImp(R"("pmp":{"deals":[{"bidfloor":1}]})"),
                 "imp[0].pmp.deals[0].id: required, a non-empty string");
}

TEST(BidRequestParserTest, DuplicateImpressionIdsAreRejected) {
  ExpectRejected(R"({"id":"r","imp":[{"id":"1"},{"id":"2"},{"id":"1"}]})",
                 "imp[2].id: duplicate of imp[0].id");
  std::string many = R"({"id":"r","imp":[)";
  for (int i = 0; i < 40; ++i) many += R"({"id":")" + std::to_string(i) + R"("},)";
  many += R"({"id":"17"}]})";
  ExpectRejected(many, "imp[40].id: duplicate of imp[17].id");
}

TEST(BidRequestParserTest, WrongTypesNameThePath) {
  ExpectRejected(R"({"id":7,"imp":[{"id":"1"}]})", "id: expected string");
  ExpectRejected(R"({"id":"r","imp":{"id":"1"}})", "imp: expected array");
  ExpectRejected(R"({"id":"r","imp":["1"]})", "imp[0]: expected object");
  ExpectRejected(R"({"id":"r","imp":[null]})", "imp[0]: expected object");
  ExpectRejected(WithImp(R"("banner":{"w":"300"})"), "imp[0].banner.w: expected integer");
  ExpectRejected(WithImp(R"("banner":{"w":300.5})"), "imp[0].banner.w: expected integer");
  ExpectRejected(WithImp(R"("banner":{"format":[{"w":1,"h":1},{"w":1,"h":true}]})"),
                 "imp[0].banner.format[1].h: expected integer");
  ExpectRejected(WithImp(R"("bidfloor":"0.5")"), "imp[0].bidfloor: expected number");
  ExpectRejected(WithImp(R"("bidfloor":-0.01)"), "imp[0].bidfloor: must be >= 0");
  ExpectRejected(WithImp(R"("secure":true)"), "imp[0].secure: expected 0 or 1");
  ExpectRejected(WithImp(R"("instl":2)"), "imp[0].instl: expected 0 or 1");
  ExpectRejected(WithImp(R"("video":{"mimes":["video/mp4",4]})"),
                 "imp[0].video.mimes[1]: expected string");
  ExpectRejected(WithImp(R"("video":{"protocols":[2,null]})"),
                 "imp[0].video.protocols[1]: expected integer");
  ExpectRejected(WithTop(R"("bcat":"IAB1")"), "bcat: expected array");
  ExpectRejected(WithTop(R"("tmax":0)"), "tmax: must be > 0");
  ExpectRejected(WithTop(R"("tmax":1e3)"), "tmax: expected integer");
  ExpectRejected(WithTop(R"("device":{"geo":{"lat":"52.5"}})"), "device.geo.lat: expected number");
  ExpectRejected(WithTop(R"("device":{"ifa":123})"), "device.ifa: expected string");
  ExpectRejected(WithTop(R"("device":{"lmt":2})"), "device.lmt: expected 0 or 1");
  ExpectRejected(WithTop(R"("site":[])"), "site: expected object");
  ExpectRejected(WithTop(R"("regs":{"ext":{"gdpr":"1"}})"), "regs.ext.gdpr: expected 0 or 1");
  ExpectRejected(WithTop(R"("user":{"data":[{"segment":[{"id":5}]}]})"),
                 "user.data[0].segment[0].id: expected string");
  ExpectRejected(WithTop(R"("source":{"schain":{"nodes":[{"hp":"1"}]}})"),
                 "source.schain.nodes[0].hp: expected 0 or 1");
}

TEST(BidRequestParserTest, HugeNumbersAreRejected) {
  ExpectRejected(WithImp(R"("banner":{"w":99999999999999999999})"),
                 "imp[0].banner.w: integer out of range");
  ExpectRejected(WithImp(R"("banner":{"w":3000000000})"), "imp[0].banner.w: integer out of range");
  ExpectRejected(WithImp(R"("banner":{"w":-3000000000})"), "imp[0].banner.w: integer out of range");
  ExpectRejected(WithImp(R"("bidfloor":1e400)"),
                 "imp[0].bidfloor: malformed or out-of-range number");
  ExpectMalformed(WithImp(R"("ext":{"n":1e400})"));
  ExpectRejected(WithImp(R"("bidfloor":1e+3666666666666666666666)"),
                 "imp[0].bidfloor: malformed or out-of-range number");
  ExpectMalformed(WithImp(R"("ext":{"n":-1e3666666666666666666666})"));
  // Within range of a double, a long integer in an unused field is fine.
  EXPECT_TRUE(ParseBidRequest(WithImp(R"("ext":{"n":123456789012345678901234567890})")).ok());
}

TEST(BidRequestParserTest, ErrorMessagesCarryNoRequestValues) {
  absl::StatusOr<BidRequest> parsed =
      ParseBidRequest(WithTop(R"("device":{"ifa":"SECRET-IFA-1234","geo":{"lon":"x"}})"));
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(std::string(parsed.status().message()), "device.geo.lon: expected number");
  EXPECT_THAT(std::string(parsed.status().message()), Not(HasSubstr("SECRET")));
}

TEST(BidRequestParserTest, MalformedDocumentsAreRejected) {
  ExpectRejected("", "empty request");
  ExpectRejected(" \n\t ", "empty request");
  ExpectRejected("[]", "expected a JSON object");
  ExpectRejected(R"("id")", "expected a JSON object");
  ExpectRejected("null", "expected a JSON object");
  ExpectRejected("42", "expected a JSON object");
  ExpectMalformed("{");
  ExpectMalformed("}");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}]}})");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}]} {"id":"s"})");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}]} x)");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}],})");
  ExpectMalformed(R"({"id":"r" "imp":[{"id":"1"}]})");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}],"ext":{"a" 1}})");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}],"ext":{"a":tru}})");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}],"ext":{"a":nul}})");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}],"ext":[1 2]})");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}],"ext":[01]})");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}],"ext":"\q"})");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}],"ext":"\ud800"})");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1"}],"x\q":1})");
  ExpectMalformed(R"({"id":"r","imp":[{"id":"1",}]})");
  ExpectMalformed(R"({'id':'r'})");
  // A string we read, followed by ':'. Left for On-Demand to skip, it would
  // be taken for a key, and the braces would pair up differently.
  ExpectMalformed(
      R"({"id":"r","imp":[{"id":"1"}],"device":{"ua":"x":"y"},"os":"o"},"user":{"id":"u"}})");
  ExpectMalformed(WithTop(R"("bcat":["IAB1": 1])"));
}

TEST(BidRequestParserTest, EveryTruncationOfAFixtureRequestIsRejected) {
  std::string json = testing::ReadFixtureRequest("site-pmp-deals.json");
  ASSERT_FALSE(json.empty());
  size_t end = json.find_last_not_of(" \n\r\t") + 1;
  BidRequestParser parser;
  for (size_t length = 0; length < end; ++length) {
    absl::StatusOr<BidRequest> parsed = parser.Parse(std::string_view(json).substr(0, length));
    ASSERT_FALSE(parsed.ok()) << "prefix of " << length << " bytes accepted";
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(parser.Parse(std::string_view(json).substr(0, end)).ok());
}

TEST(BidRequestParserTest, DeepNestingIsRejectedWithoutCrashing) {
  auto nested = [](int levels) {
    return WithTop(R"("ext":)" + std::string(levels, '[') + std::string(levels, ']'));
  };
  // The root object is level 1, so `ext` may hold 63 levels of arrays.
  EXPECT_TRUE(ParseBidRequest(nested(63)).ok());
  std::string path = "ext";
  for (int i = 0; i < 63; ++i) path += "[0]";
  ExpectRejected(nested(64), path + ": nesting deeper than 64 levels");
  ExpectMalformed(nested(100000));
  // Unbalanced and deep: nothing closes.
  ExpectMalformed(WithTop(R"("ext":)" + std::string(100000, '{')));
  BidRequestParser shallow(BidRequestParser::Options{.max_depth = 4});
  EXPECT_TRUE(shallow.Parse(R"({"id":"r","imp":[{"id":"1","banner":{"w":1}}]})").ok());
  EXPECT_FALSE(
      shallow.Parse(R"({"id":"r","imp":[{"id":"1","banner":{"format":[{"w":1}]}}]})").ok());
}

TEST(BidRequestParserTest, InvalidUtf8IsRejected) {
  ExpectMalformed(WithTop("\"site\":{\"page\":\"\xFF\"}"));  // stray byte, read field
  ExpectMalformed(WithTop("\"ext\":\"caf\xC3\""));           // truncated sequence, unused
  ExpectMalformed(WithTop("\"ext\":\"\xC0\xAF\""));          // overlong '/'
  ExpectMalformed(WithTop("\"ext\":\"\xED\xA0\x80\""));      // encoded surrogate
  ExpectMalformed(WithTop("\"ext\":\"\xF4\x90\x80\x80\""));  // above U+10FFFF
  ExpectMalformed(WithTop("\"k\xFE\":1"));                   // in a key
  EXPECT_TRUE(ParseBidRequest(WithTop("\"ext\":\"caf\xC3\xA9 \xF0\x9F\x98\x80\"")).ok());
}

TEST(BidRequestParserTest, NulBytesAreRejected) {
  using namespace std::string_literals;
  ExpectMalformed("{\"id\":\"r\0\",\"imp\":[{\"id\":\"1\"}]}"s);  // raw NUL inside a string
  ExpectMalformed("{\"id\":\"r\",\0\"imp\":[{\"id\":\"1\"}]}"s);  // between tokens
  ExpectMalformed("{\"id\":\"r\",\"imp\":[{\"id\":\"1\"}]}\0"s);  // after the document
  ExpectMalformed("\0{\"id\":\"r\",\"imp\":[{\"id\":\"1\"}]}"s);  // before it
}

TEST(BidRequestParserTest, ParsesOnlyTheGivenBytes) {
  // The view ends where the request does; the bytes after it must not be read.
  const std::string_view valid = R"({"id":"r","imp":[{"id":"1"}]})";
  const std::string buffer = std::string(valid) + R"(,"tmax":"x"} garbage)";
  const std::string_view request = std::string_view(buffer).substr(0, valid.size());
  EXPECT_TRUE(ParseBidRequest(request).ok());
}

TEST(BidRequestParserTest, ReusedParserKeepsNothingFromThePreviousRequest) {
  BidRequestParser parser;
  ASSERT_TRUE(parser.Parse(testing::kFullRequest26).ok());
  absl::StatusOr<BidRequest> small = parser.Parse(R"({"id":"s","imp":[{"id":"9"}]})");
  ASSERT_TRUE(small.ok()) << small.status();
  BidRequest expected;
  expected.id = "s";
  expected.imp.emplace_back().id = "9";
  EXPECT_EQ(*small, expected);

  BidRequest into = ParseOrDie(testing::kFullRequest26);
  ASSERT_TRUE(parser.Parse(R"({"id":"s","imp":[{"id":"9"}]})", &into).ok());
  EXPECT_EQ(into, expected);
  // A failed parse between two good ones leaves the parser usable.
  EXPECT_FALSE(parser.Parse(R"({"id":"s","imp":[{"id":"9"}],"x":[}]})").ok());
  EXPECT_TRUE(parser.Parse(testing::kFullRequest26).ok());
}

TEST(BidRequestParserTest, OversizedRequestIsRejectedBeforeParsing) {
  BidRequestParser parser(BidRequestParser::Options{.max_request_bytes = 64});
  EXPECT_TRUE(parser.Parse(R"({"id":"r","imp":[{"id":"1"}]})").ok());
  absl::StatusOr<BidRequest> parsed = parser.Parse(testing::kFullRequest26);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("exceeds the limit of 64"));
}

TEST(BidRequestParserTest, ValidateBidRequestChecksABuiltModel) {
  BidRequest request;
  EXPECT_EQ(std::string(ValidateBidRequest(request).message()), "id: required, a non-empty string");
  request.id = "r";
  request.imp.emplace_back().id = "a";
  EXPECT_TRUE(ValidateBidRequest(request).ok());
  request.imp.emplace_back().id = "a";
  EXPECT_EQ(std::string(ValidateBidRequest(request).message()),
            "imp[1].id: duplicate of imp[0].id");
}

}  // namespace
}  // namespace rtb::openrtb
