#include "bidder/http/gzip_response.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/bidder/http_test_client.h"

namespace rtb::bidder {
namespace {

using testing::Gunzip;

TEST(AcceptsGzipTest, ReadsCodingsAndQValues) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("GZIP"));
  EXPECT_TRUE(AcceptsGzip("x-gzip"));
  EXPECT_TRUE(AcceptsGzip("deflate, gzip;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("br ,  gzip ; q=1.0"));
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_TRUE(AcceptsGzip("identity;q=0.5, *;q=0.1"));
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip("deflate, br"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0.000"));
  // A coding listed by name decides over "*".
  EXPECT_FALSE(AcceptsGzip("gzip;q=0, *"));
  EXPECT_FALSE(AcceptsGzip("*;q=0"));
  // An element whose q-value cannot be read is no offer.
  EXPECT_FALSE(AcceptsGzip("gzip;q=high"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=2"));
  EXPECT_FALSE(AcceptsGzip("gzip;q="));
  EXPECT_FALSE(AcceptsGzip("gzipped"));
}

TEST(GzipInPlaceTest, RoundTripsAndShrinksAnAnswer) {
  std::string answer = R"({"id":"r","seatbid":[{"seat":"s","bid":[)";
  for (int i = 0; i < 4; ++i) {
    if (i > 0) answer += ',';
    answer += R"({"id":"b-)" + std::to_string(i) +
              R"(","impid":"1","price":2.5,"nurl":"http://127.0.0.1:8080/win?x=sample)"
              R"(&c=northwind&p=${AUCTION_PRICE}","mtype":1})";
  }
  answer += "]}]}";
  std::string body = answer;
  ASSERT_TRUE(GzipInPlace(&body).ok());
  EXPECT_LT(body.size(), answer.size() / 2);
  EXPECT_EQ(Gunzip(body), answer);
  // The thread's state is reused: the next body compresses alike, at any level.
  std::string again = answer;
  ASSERT_TRUE(GzipInPlace(&again, 9).ok());
  EXPECT_EQ(Gunzip(again), answer);
  std::string back = answer;
  ASSERT_TRUE(GzipInPlace(&back).ok());
  EXPECT_EQ(back, body);
}

TEST(GzipInPlaceTest, EmptyBodyIsAValidMember) {
  std::string body;
  ASSERT_TRUE(GzipInPlace(&body).ok());
  EXPECT_FALSE(body.empty());
  EXPECT_EQ(Gunzip(body), "");
}

TEST(GzipInPlaceTest, RefusesALevelOutsideZlibsRange) {
  std::string body = "unchanged";
  EXPECT_EQ(GzipInPlace(&body, 0).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GzipInPlace(&body, 10).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(body, "unchanged");
}

}  // namespace
}  // namespace rtb::bidder
