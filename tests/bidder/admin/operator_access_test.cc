// Operators over real HTTP: a whole BidderApp, its login and session routes,
// the guard in front of every admin route, /api/campaigns and the console's
// files.
#include "bidder/admin/operator_access.h"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/bidder/bidder_app_fixture.h"
#include "tests/bidder/http_test_client.h"
#include "tests/bidder/operator_login.h"
#include "tests/config/sample_config.h"

namespace rtb::bidder {
namespace {

using testing::DeleteRequest;
using testing::GetRequest;
using ::testing::HasSubstr;
using testing::LogIn;
using ::testing::Not;
using testing::OperatorSession;
using testing::PostRequest;
using testing::SessionHeaders;
using testing::TestResponse;

constexpr char kDeviceId[] = "8c9d0e1f-2a3b-4c5d-8e9f-0a1b2c3d4e5f";

class OperatorAccessTest : public testing::BidderAppTest {
 protected:
  void SetUp() override { Boot("operator-access"); }
};

TEST_F(OperatorAccessTest, EveryAdminRouteRefusesACallerWithoutASession) {
  for (const std::string& request :
       {GetRequest("/api/campaigns"), GetRequest("/api/session"),
        GetRequest(absl::StrCat("/api/devices/", kDeviceId, "/events")),
        GetRequest(absl::StrCat("/api/devices/", kDeviceId, "/erasure")),
        GetRequest("/api/events?type=impression&from=0&to=1"), DeleteRequest("/api/devices/x"),
        PostRequest("/api/query", "{}"), GetRequest("/api/suggest?type=metrics"),
        GetRequest("/api/search/lookup?m=x"), GetRequest("/api/aggregators"),
        PostRequest("/api/put", "[]"),
        GetRequest("/api/campaigns", "Cookie: rtb_session=forged-token-value\r\n")}) {
    const TestResponse response = Send(request);
    EXPECT_EQ(response.status, 401u) << request << response.body;
    EXPECT_EQ(response.Header("cache-control"), "no-store") << request;
  }
}

TEST_F(OperatorAccessTest, LoginGivesAHardenedCookieAndTheSameErrorForUnknownUserAndBadPassword) {
  const OperatorSession unknown = LogIn(*connection_, "nobody@example.test", "whatever");
  const OperatorSession wrong = LogIn(*connection_, testing::kOperatorUser, "wrong password");
  EXPECT_EQ(unknown.status, 401);
  EXPECT_EQ(wrong.status, 401);
  const TestResponse a =
      Send(PostRequest("/api/login", R"({"user":"nobody@example.test","password":"whatever"})"));
  const TestResponse b = Send(PostRequest(
      "/api/login", nlohmann::json{{"user", testing::kOperatorUser}, {"password", "nope"}}.dump()));
  EXPECT_EQ(a.body, b.body);

  const TestResponse ok =
      Send(PostRequest("/api/login", nlohmann::json{{"user", testing::kOperatorUser},
                                                    {"password", testing::kOperatorPassword}}
                                         .dump()));
  ASSERT_EQ(ok.status, 200u) << ok.body;
  const std::string cookie = ok.Header("set-cookie");
  EXPECT_THAT(cookie, HasSubstr("HttpOnly"));
  EXPECT_THAT(cookie, HasSubstr("SameSite=Strict"));
  EXPECT_THAT(cookie, HasSubstr("Path=/"));
  EXPECT_THAT(ok.body, Not(HasSubstr(testing::kOperatorPassword)));
  // Bad bodies are refused with a reason, not a crash or a lockout.
  EXPECT_EQ(Send(PostRequest("/api/login", "not json")).status, 400u);
  EXPECT_EQ(Send(GetRequest("/api/login")).status, 405u);
}

TEST_F(OperatorAccessTest, ASessionReadsCampaignsAndNeedsCsrfToChangeAnything) {
  const OperatorSession session = LogIn(*connection_);
  ASSERT_EQ(session.status, 200);

  const TestResponse who = Send(GetRequest("/api/session", SessionHeaders(session, false)));
  ASSERT_EQ(who.status, 200u) << who.body;
  EXPECT_EQ(nlohmann::json::parse(who.body)["user"], testing::kOperatorUser);

  const TestResponse campaigns = Send(GetRequest("/api/campaigns", SessionHeaders(session, false)));
  ASSERT_EQ(campaigns.status, 200u) << campaigns.body;
  const nlohmann::json body = nlohmann::json::parse(campaigns.body);
  ASSERT_EQ(body["campaigns"].size(), app_->config().campaigns.size()) << campaigns.body;
  const nlohmann::json& first = body["campaigns"][0];
  EXPECT_EQ(first["id"], app_->config().campaigns[0].id);
  EXPECT_EQ(first["daily_budget_micros"], app_->config().campaigns[0].daily_budget_micros);
  EXPECT_EQ(first["spend_today_micros"], 0);
  // Start() computed the first decisions: a fresh campaign bids in full.
  EXPECT_EQ(first["state"], "open") << campaigns.body;
  EXPECT_EQ(first["throttle"], 1.0);
  EXPECT_GT(first["decided_at_ms"].get<int64_t>(), 0);

  // A state-changing call without the CSRF token is refused and changes nothing.
  const TestResponse no_csrf =
      Send(DeleteRequest(absl::StrCat("/api/devices/", kDeviceId), SessionHeaders(session, false)));
  EXPECT_EQ(no_csrf.status, 403u) << no_csrf.body;
  EXPECT_EQ(Send(GetRequest(absl::StrCat("/api/devices/", kDeviceId, "/erasure"),
                            SessionHeaders(session, false)))
                .status,
            404u);
  const TestResponse wrong_csrf = Send(DeleteRequest(
      absl::StrCat("/api/devices/", kDeviceId),
      absl::StrCat("Cookie: ", session.cookie, "\r\nX-CSRF-Token: 0123456789abcdef\r\n")));
  EXPECT_EQ(wrong_csrf.status, 403u);
  const TestResponse erased =
      Send(DeleteRequest(absl::StrCat("/api/devices/", kDeviceId), SessionHeaders(session)));
  EXPECT_EQ(erased.status, 202u) << erased.body;
  // Reads need no CSRF token, even as POST.
  const TestResponse query = Send(PostRequest(
      "/api/query", R"({"start":"1h-ago","queries":[{"aggregator":"sum","metric":"nope"}]})",
      SessionHeaders(session, false)));
  EXPECT_NE(query.status, 401u);
  EXPECT_NE(query.status, 403u);
}

// The list names a campaign from the moment it is stored, before the
// worker's index has it (the follower reads the table every 500 ms), with
// the stored budget, currency and pacing mode rather than empty ones.
TEST_F(OperatorAccessTest, ACreatedCampaignIsListedWithItsStoredBudgetAtOnce) {
  const OperatorSession session = LogIn(*connection_);
  ASSERT_EQ(session.status, 200);
  nlohmann::json campaign = config::testing::Campaign("listed-at-once");
  campaign["daily_budget_micros"] = 77000000;
  campaign["currency"] = "EUR";
  campaign["pacing_mode"] = "asap";
  campaign["time_zone"] = "Europe/Berlin";
  const TestResponse created =
      Send(PostRequest("/api/campaigns", campaign.dump(), SessionHeaders(session)));
  ASSERT_EQ(created.status, 201u) << created.body;

  const TestResponse listed = Send(GetRequest("/api/campaigns", SessionHeaders(session, false)));
  ASSERT_EQ(listed.status, 200u) << listed.body;
  const nlohmann::json list = nlohmann::json::parse(listed.body)["campaigns"];
  const auto it = std::find_if(list.begin(), list.end(),
                               [](const nlohmann::json& c) { return c["id"] == "listed-at-once"; });
  ASSERT_NE(it, list.end()) << listed.body;
  EXPECT_EQ((*it)["campaign_state"], "active");
  EXPECT_EQ((*it)["version"], 1);
  EXPECT_EQ((*it)["updated_by"], testing::kOperatorUser);
  EXPECT_EQ((*it)["daily_budget_micros"], 77000000);
  EXPECT_EQ((*it)["currency"], "EUR");
  EXPECT_EQ((*it)["pacing_mode"], "asap");
  EXPECT_EQ((*it)["time_zone"], "Europe/Berlin");
  EXPECT_EQ((*it)["spend_today_micros"], 0);
  EXPECT_EQ((*it)["bids"], 0);
  EXPECT_EQ((*it)["wins"], 0);
}

TEST_F(OperatorAccessTest, LogoutRevokesTheSessionAndLogoutEverywhereRevokesAll) {
  const OperatorSession first = LogIn(*connection_);
  const OperatorSession second = LogIn(*connection_);
  const OperatorSession third = LogIn(*connection_);
  ASSERT_EQ(third.status, 200);
  EXPECT_NE(first.cookie, second.cookie);

  EXPECT_EQ(Send(PostRequest("/api/logout", "", SessionHeaders(first, false))).status, 403u);
  const TestResponse out = Send(PostRequest("/api/logout", "", SessionHeaders(first)));
  EXPECT_EQ(out.status, 204u) << out.body;
  EXPECT_THAT(out.Header("set-cookie"), HasSubstr("Max-Age=0"));
  EXPECT_EQ(Send(GetRequest("/api/campaigns", SessionHeaders(first, false))).status, 401u);
  EXPECT_EQ(Send(GetRequest("/api/campaigns", SessionHeaders(second, false))).status, 200u);

  EXPECT_EQ(Send(PostRequest("/api/logout-everywhere", "", SessionHeaders(second))).status, 204u);
  EXPECT_EQ(Send(GetRequest("/api/campaigns", SessionHeaders(second, false))).status, 401u);
  EXPECT_EQ(Send(GetRequest("/api/campaigns", SessionHeaders(third, false))).status, 401u);
}

TEST_F(OperatorAccessTest, ServesTheConsoleWithoutASessionAndKeepsItToItsOrigin) {
  for (std::string_view path : {"/console", "/console/", "/console/console.js"}) {
    const TestResponse page = Send(GetRequest(path));
    EXPECT_EQ(page.status, 200u) << path;
    EXPECT_THAT(page.Header("content-security-policy"), HasSubstr("default-src 'self'")) << path;
    EXPECT_EQ(page.Header("x-frame-options"), "DENY");
  }
  EXPECT_EQ(Send(GetRequest("/console/../CMakeLists.txt")).status, 404u);
  EXPECT_EQ(Send(GetRequest("/console/missing.js")).status, 404u);
}

TEST(ClientAddressTest, ForwardedForCountsOnlyBehindATrustedProxy) {
  const std::vector<std::string> proxies = {"10.0.0.5", "10.0.0.6", "fd00::1"};
  // Not a proxy: the header is the client's own claim, ignored.
  EXPECT_EQ(ClientAddressOf("203.0.113.9", "198.51.100.1", proxies), "203.0.113.9");
  EXPECT_EQ(ClientAddressOf("203.0.113.9", "198.51.100.1", {}), "203.0.113.9");
  // A proxy: the rightmost hop that is not a proxy. What the client
  // prepended (left of it) does not count.
  EXPECT_EQ(ClientAddressOf("10.0.0.5", "198.51.100.1", proxies), "198.51.100.1");
  EXPECT_EQ(ClientAddressOf("10.0.0.5", "1.2.3.4, 198.51.100.1, 10.0.0.6", proxies),
            "198.51.100.1");
  EXPECT_EQ(ClientAddressOf("::ffff:10.0.0.5", "2001:db8::7", proxies), "2001:db8::7");
  EXPECT_EQ(ClientAddressOf("fd00:0::1", "198.51.100.2", proxies), "198.51.100.2");
  // Nothing usable forwarded: the proxy's own address.
  EXPECT_EQ(ClientAddressOf("10.0.0.5", "", proxies), "10.0.0.5");
  EXPECT_EQ(ClientAddressOf("10.0.0.5", "garbage", proxies), "10.0.0.5");
  EXPECT_EQ(ClientAddressOf("10.0.0.5", "unknown, 198.51.100.3", proxies), "198.51.100.3");
  EXPECT_EQ(ClientAddressOf("10.0.0.5", "198.51.100.3, not-an-ip", proxies), "10.0.0.5");
}

// Boots the bidder in each test, with a changed config.
class OperatorAccessConfigTest : public OperatorAccessTest {
 protected:
  void SetUp() override {}
};

TEST_F(OperatorAccessConfigTest, TelemetryQueriesMayBeOpenedWhilePutAndEverythingElseStayGuarded) {
  Boot("operator-access",
       [](config::BidderConfig& config) { config.telemetry.query_requires_login = false; });
  EXPECT_EQ(Send(GetRequest("/api/suggest?type=metrics")).status, 200u);
  EXPECT_EQ(Send(GetRequest("/api/aggregators")).status, 200u);
  EXPECT_NE(Send(GetRequest("/api/search/lookup?m=x")).status, 401u);
  EXPECT_NE(Send(PostRequest("/api/query", R"({"start":"1h-ago","queries":[]})")).status, 401u);
  EXPECT_EQ(Send(PostRequest("/api/put", "[]")).status, 401u);
  EXPECT_EQ(Send(GetRequest("/api/campaigns")).status, 401u);
}

TEST_F(OperatorAccessConfigTest, AdminApiCanBeTurnedOffButLoginStays) {
  Boot("operator-access",
       [](config::BidderConfig& config) { config.server.admin_api_enabled = false; });
  EXPECT_EQ(Send(GetRequest("/api/campaigns")).status, 404u);
  EXPECT_EQ(LogIn(*connection_).status, 200);
}

// Failed logins count per client address: behind a trusted proxy that is the
// forwarded address, so one locked-out client does not lock out every
// operator behind the same proxy; from an untrusted peer a forged header
// does not escape the lockout.
TEST_F(OperatorAccessConfigTest, AddressLockoutsFollowTheForwardedAddressOnlyBehindTrustedProxies) {
  auto login_from = [&](std::string_view forwarded) {
    return Send(PostRequest(
                    "/api/login",
                    nlohmann::json{{"user", "nobody@example.test"}, {"password", "x"}}.dump(),
                    absl::StrCat("X-Forwarded-For: ", std::string(forwarded), "\r\n")))
        .status;
  };
  auto limits = [](config::BidderConfig& config) {
    config.sessions.login_rate_limit.max_failures_per_address = 2;
    config.sessions.login_rate_limit.max_failures_per_user = 1000;
  };

  Boot("operator-access", [&](config::BidderConfig& config) {
    limits(config);
    config.sessions.trusted_proxies = {"127.0.0.1"};
  });
  EXPECT_EQ(login_from("198.51.100.7"), 401u);
  EXPECT_EQ(login_from("198.51.100.7"), 401u);
  EXPECT_EQ(login_from("198.51.100.7"), 429u);
  EXPECT_EQ(login_from("198.51.100.8"), 401u) << "another client behind the proxy";
  Stop();

  Boot("operator-access", limits);
  EXPECT_EQ(login_from("198.51.100.7"), 401u);
  EXPECT_EQ(login_from("198.51.100.7"), 401u);
  EXPECT_EQ(login_from("198.51.100.8"), 429u) << "the header of an untrusted peer is ignored";
}

}  // namespace
}  // namespace rtb::bidder
