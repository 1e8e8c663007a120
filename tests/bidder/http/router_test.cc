// Tests of bidder/internal/router.
#include "bidder/http/internal/router.h"

#include "gtest/gtest.h"

namespace rtb::bidder::internal {
namespace {

namespace http = boost::beast::http;

HttpHandler Noop() {
  return [](const HttpRequest&, Responder) {};
}

TEST(RouterTest, ExactBeatsPrefixAndLongestPrefixWins) {
  Router router;
  ASSERT_TRUE(router.Add(http::verb::get, "/a/", true, Noop()));
  ASSERT_TRUE(router.Add(http::verb::get, "/a/b/", true, Noop()));
  ASSERT_TRUE(router.Add(http::verb::get, "/a/b/c", false, Noop()));
  router.Freeze();
  EXPECT_EQ(router.labels()[router.Find(http::verb::get, "/a/b/c").route_id], "/a/b/c");
  EXPECT_EQ(router.labels()[router.Find(http::verb::get, "/a/b/cd").route_id], "/a/b/*");
  EXPECT_EQ(router.labels()[router.Find(http::verb::get, "/a/x").route_id], "/a/*");
  const Router::Match none = router.Find(http::verb::get, "/b");
  EXPECT_EQ(none.kind, Router::Kind::kNotFound);
  EXPECT_EQ(router.labels()[none.route_id], "unmatched");
}

TEST(RouterTest, WrongMethodListsTheAllowedOnes) {
  Router router;
  ASSERT_TRUE(router.Add(http::verb::get, "/x", false, Noop()));
  ASSERT_TRUE(router.Add(http::verb::delete_, "/x", false, Noop()));
  router.Freeze();
  const Router::Match m = router.Find(http::verb::post, "/x");
  EXPECT_EQ(m.kind, Router::Kind::kWrongMethod);
  EXPECT_EQ(m.allow, "GET, DELETE");
  EXPECT_EQ(router.Find(http::verb::delete_, "/x").kind, Router::Kind::kFound);
}

TEST(RouterTest, DuplicatesAndLateRoutesAreRefused) {
  Router router;
  ASSERT_TRUE(router.Add(http::verb::get, "/x", false, Noop()));
  EXPECT_FALSE(router.Add(http::verb::get, "/x", false, Noop()));
  EXPECT_TRUE(router.Add(http::verb::get, "/x", true, Noop()));  // a prefix is another route
  router.Freeze();
  EXPECT_FALSE(router.Add(http::verb::post, "/y", false, Noop()));
}

}  // namespace
}  // namespace rtb::bidder::internal
