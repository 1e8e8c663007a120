#include "loadtest/win_notice.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loadtest/load_options.h"

namespace rtb::loadtest {
namespace {

TEST(SubstituteAuctionMacrosTest, ReplacesEveryAuctionMacroPercentEncoded) {
  AuctionMacros m;
  m.auction_id = "req 1";
  m.imp_id = "1";
  m.bid_id = "b&2";
  m.price = "1.25";
  m.currency = "USD";
  EXPECT_EQ(
      SubstituteAuctionMacros("http://127.0.0.1:8080/win?aid=${AUCTION_ID}&iid=${AUCTION_IMP_ID}"
                              "&bid=${AUCTION_BID_ID}&p=${AUCTION_PRICE}&cur=${AUCTION_CURRENCY}"
                              "&x=${AUCTION_LOSS}",
                              m),
      "http://127.0.0.1:8080/win?aid=req%201&iid=1&bid=b%262&p=1.25&cur=USD&x=${AUCTION_LOSS}");
}

TEST(ParseLoopbackUrlTest, SplitsHostPortAndTarget) {
  auto t = ParseLoopbackUrl("http://127.0.0.1:18080/win?a=1");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->host, "127.0.0.1");
  EXPECT_EQ(t->port, "18080");
  EXPECT_EQ(t->target, "/win?a=1");

  auto v6 = ParseLoopbackUrl("http://[::1]:9000/billing");
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, "9000");

  auto bare = ParseLoopbackUrl("HTTP://localhost?x=1");
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_EQ(bare->port, "80");
  EXPECT_EQ(bare->target, "/?x=1");
}

TEST(ParseLoopbackUrlTest, RefusesOtherHostsSchemesAndMalformedUrls) {
  for (const char* url :
       {"https://127.0.0.1/win", "http://rtb.example.com/win", "http://10.0.0.1:80/win",
        "http://127.0.0.1:0/", "http://127.0.0.1:99999/", "http://127.0.0.1:x/",
        "http://user@127.0.0.1/", "http://[::1/", "ftp://x", ""}) {
    EXPECT_FALSE(ParseLoopbackUrl(url).ok()) << url;
  }
}

TEST(NoticesOfResponseTest, EachBidGetsItsNurlThenBurlWithItsOwnIds) {
  const std::string body = R"({"id":"req-7","cur":"EUR","seatbid":[{"bid":[
      {"id":"r-1","impid":"1","price":2.5,
       "nurl":"http://127.0.0.1:8080/win?aid=${AUCTION_ID}&iid=${AUCTION_IMP_ID}&bid=${AUCTION_BID_ID}&p=${AUCTION_PRICE}&cur=${AUCTION_CURRENCY}",
       "burl":"http://127.0.0.1:8080/billing?bid=${AUCTION_BID_ID}&p=${AUCTION_PRICE}"},
      {"id":"r-2","impid":"2","price":1,"burl":"http://127.0.0.1:8080/billing?iid=${AUCTION_IMP_ID}"},
      {"id":"r-3","impid":"3","price":1,"nurl":"https://rtb.example.com/win"}]}]})";
  const ParsedNotices parsed = NoticesOfResponse(body);
  ASSERT_EQ(parsed.bids.size(), 2u);
  EXPECT_EQ(parsed.refused, 1);
  ASSERT_EQ(parsed.bids[0].notices.size(), 2u);
  EXPECT_EQ(parsed.bids[0].notices[0].target, "/win?aid=req-7&iid=1&bid=r-1&p=2.5&cur=EUR");
  EXPECT_EQ(parsed.bids[0].notices[1].target, "/billing?bid=r-1&p=2.5");
  EXPECT_EQ(parsed.bids[0].notices[0].port, "8080");
  ASSERT_EQ(parsed.bids[1].notices.size(), 1u);
  EXPECT_EQ(parsed.bids[1].notices[0].target, "/billing?iid=2");
}

TEST(NoticesOfResponseTest, NoBidsInANoBidOrMalformedBody) {
  EXPECT_TRUE(NoticesOfResponse("").bids.empty());
  EXPECT_TRUE(NoticesOfResponse("{not json").bids.empty());
  EXPECT_TRUE(NoticesOfResponse(R"({"id":"x","nbr":2})").bids.empty());
  EXPECT_TRUE(NoticesOfResponse(R"({"id":"x","seatbid":[{"bid":[7,{"id":1}]}]})").bids.empty());
}

absl::StatusOr<LoadOptions> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), {"rtb-load", "--requests", "dir"});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseLoadOptions(static_cast<int>(argv.size()), argv.data());
}

TEST(LoadOptionsTest, WinNoticeOptionsAreParsedAndBounded) {
  auto defaults = Parse({});
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->win_rate, 0);
  EXPECT_EQ(defaults->requests, std::vector<std::string>{"dir"});
  auto listed = Parse({"--requests", "a.json,,b/"});
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->requests, (std::vector<std::string>{"a.json", "b/"}));
  auto o = Parse({"--win-rate", "0.25", "--notice-queue", "50", "--notice-connections", "2",
                  "--duration", "3900"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_DOUBLE_EQ(o->win_rate, 0.25);
  EXPECT_EQ(o->notice_queue, 50);
  EXPECT_EQ(o->notice_connections, 2);
  EXPECT_EQ(o->duration_s, 3900);
  EXPECT_FALSE(Parse({"--win-rate", "1.5"}).ok());
  EXPECT_FALSE(Parse({"--win-rate", "-0.1"}).ok());
  EXPECT_FALSE(Parse({"--notice-queue", "0"}).ok());
  EXPECT_FALSE(Parse({"--notice-connections", "0"}).ok());
  EXPECT_FALSE(Parse({"--duration", "90000"}).ok());
}

}  // namespace
}  // namespace rtb::loadtest
