#include "bidder/sessions/login.h"

#include <sodium.h>

#include <string>

#include "bidder/sessions/session_routes.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "session_fixture.h"
#include "tests/bidder/sessions/test_password_hash.h"

namespace rtb::bidder::sessions::testing {
namespace {

// "name=value" of a Set-Cookie value, as a browser sends it back.
std::string CookieOf(const std::string& set_cookie) {
  return set_cookie.substr(0, set_cookie.find(';'));
}

class LoginTest : public SessionTablesTest {
 protected:
  void SetUp() override {
    SessionTablesTest::SetUp();
    config_.operators = {{"alice", TestPasswordHash("correct horse")},
                         {"bob", TestPasswordHash("battery staple")}};
    config_.login_rate_limit.max_failures_per_user = 5;
    config_.login_rate_limit.max_failures_per_address = 8;
    config_.login_rate_limit.window_s = 900;
    config_.login_rate_limit.lockout_initial_s = 30;
    config_.login_rate_limit.lockout_max_s = 100;
  }

  void Start() {
    store_ = std::make_unique<SessionStore>(*hooked_, SessionStoreOptionsFrom(config_, clock_));
    login_ = std::make_unique<LoginService>(*store_, config_, nullptr, clock_);
    routes_ = std::make_unique<SessionRoutes>(*login_);
  }

  absl::StatusOr<LoginResult> Login(std::string_view user, std::string_view password,
                                    std::string_view address = "192.0.2.1",
                                    std::string_view cookie = {}) {
    return login_->Login(user, password, address, cookie);
  }

  config::SessionsConfig config_;
  std::unique_ptr<SessionStore> store_;
  std::unique_ptr<LoginService> login_;
  std::unique_ptr<SessionRoutes> routes_;
};

TEST_F(LoginTest, CorrectPasswordGivesAHostPrefixedSecureCookie) {
  Start();
  auto result = Login("alice", "correct horse");
  ASSERT_TRUE(result.ok()) << result.status();
  const std::string& c = result->set_cookie;
  EXPECT_EQ(c.rfind("__Host-rtb_session=", 0), 0u) << c;
  EXPECT_NE(c.find("; Path=/;"), std::string::npos);
  EXPECT_NE(c.find("; Secure"), std::string::npos);
  EXPECT_NE(c.find("; HttpOnly"), std::string::npos);
  EXPECT_NE(c.find("; SameSite=Strict"), std::string::npos);
  EXPECT_EQ(c.find("Domain"), std::string::npos);
  auto session = login_->Authenticate("theme=dark; " + CookieOf(c) + "; other=1");
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ(session->session.state.user, "alice");
  EXPECT_EQ(session->csrf_token, result->csrf_token);
  EXPECT_EQ(session->session.state.privileges, OperatorPrivileges());
}

TEST_F(LoginTest, LoopbackDevelopmentCookieIsNotSecure) {
  config_.cookie_secure = false;
  Start();
  auto result = Login("alice", "correct horse");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->set_cookie.rfind("rtb_session=", 0), 0u);
  EXPECT_EQ(result->set_cookie.find("Secure"), std::string::npos);
  EXPECT_TRUE(login_->Authenticate(CookieOf(result->set_cookie)).ok());
}

TEST_F(LoginTest, UnknownUserAndWrongPasswordGetTheSameError) {
  Start();
  absl::Status wrong = Login("alice", "wrong").status();
  absl::Status unknown = Login("mallory", "correct horse").status();
  absl::Status empty = Login("", "").status();
  EXPECT_EQ(wrong.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(wrong, unknown);
  EXPECT_EQ(wrong, empty);
  EXPECT_EQ(wrong.message(), "invalid user or password");
  // Another operator's password is no good either.
  EXPECT_EQ(Login("alice", "battery staple").status(), wrong);
}

TEST_F(LoginTest, UserIsLockedOutAfterMaxFailuresWithDoublingBackoff) {
  Start();
  // Each failure from its own address: only the user's limit is under test.
  int address = 0;
  auto guess = [&] { return Login("alice", "guess", "192.0.2." + std::to_string(++address)); };
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(guess().status().code(), absl::StatusCode::kUnauthenticated);
  }
  // Even the right password is refused while locked out.
  absl::Status locked = Login("alice", "correct horse", "198.51.100.7").status();
  EXPECT_EQ(locked.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(RetryAfterSeconds(locked), 30);
  EXPECT_TRUE(Login("bob", "battery staple").ok());  // other users are not affected
  clock_->Advance(31 * 1000);
  for (int i = 0; i < 5; ++i) (void)guess();
  locked = Login("alice", "correct horse").status();
  EXPECT_EQ(RetryAfterSeconds(locked), 60);
  clock_->Advance(61 * 1000);
  for (int i = 0; i < 5; ++i) (void)guess();
  EXPECT_EQ(RetryAfterSeconds(Login("alice", "correct horse").status()), 100);  // the ceiling
  clock_->Advance(101 * 1000);
  EXPECT_TRUE(Login("alice", "correct horse").ok());
}

TEST_F(LoginTest, UnknownUsersAreLockedOutLikeKnownOnes) {
  Start();
  for (int i = 0; i < 5; ++i) (void)Login("mallory", "guess", "192.0.2.9");
  EXPECT_EQ(Login("mallory", "guess", "192.0.2.10").status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST_F(LoginTest, AddressIsLockedOutAfterFailuresAcrossUsers) {
  Start();
  for (int i = 0; i < 8; ++i) (void)Login("user" + std::to_string(i), "guess", "203.0.113.5");
  EXPECT_EQ(Login("alice", "correct horse", "203.0.113.5").status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(Login("alice", "correct horse", "203.0.113.6").ok());
}

TEST_F(LoginTest, LoginRotatesTheSessionAndRevokesThePresentedOne) {
  Start();
  auto first = Login("alice", "correct horse");
  ASSERT_TRUE(first.ok());
  auto second = Login("alice", "correct horse", "192.0.2.1", CookieOf(first->set_cookie));
  ASSERT_TRUE(second.ok());
  EXPECT_NE(CookieOf(first->set_cookie), CookieOf(second->set_cookie));
  EXPECT_NE(first->session.id, second->session.id);
  EXPECT_NE(first->csrf_token, second->csrf_token);
  EXPECT_EQ(login_->Authenticate(CookieOf(first->set_cookie)).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(login_->Authenticate(CookieOf(second->set_cookie)).ok());
}

TEST_F(LoginTest, StateChangingCallsWithoutTheCsrfTokenAreRefused) {
  Start();
  auto result = Login("alice", "correct horse");
  ASSERT_TRUE(result.ok());
  const std::string cookie = CookieOf(result->set_cookie);
  EXPECT_EQ(login_->Logout(cookie, "").status().code(), absl::StatusCode::kPermissionDenied);
  std::string altered = result->csrf_token;
  altered[0] = altered[0] == 'x' ? 'y' : 'x';  // a different token whatever it began with
  EXPECT_EQ(login_->Logout(cookie, altered).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(login_->LogoutEverywhere(cookie, "").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(login_->Authenticate(cookie).ok());  // still logged in
  auto cleared = login_->Logout(cookie, result->csrf_token);
  ASSERT_TRUE(cleared.ok()) << cleared.status();
  EXPECT_NE(cleared->find("Max-Age=0"), std::string::npos);
  EXPECT_EQ(login_->Authenticate(cookie).status().code(), absl::StatusCode::kUnauthenticated);
}

TEST_F(LoginTest, LogoutEverywhereEndsEverySessionOfTheUser) {
  Start();
  auto a = Login("alice", "correct horse");
  auto b = Login("alice", "correct horse");
  auto c = Login("bob", "battery staple");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_TRUE(login_->LogoutEverywhere(CookieOf(b->set_cookie), b->csrf_token).ok());
  EXPECT_FALSE(login_->Authenticate(CookieOf(a->set_cookie)).ok());
  EXPECT_FALSE(login_->Authenticate(CookieOf(b->set_cookie)).ok());
  EXPECT_TRUE(login_->Authenticate(CookieOf(c->set_cookie)).ok());
}

TEST_F(LoginTest, PasswordsAndTokensNeverReachStorage) {
  Start();
  auto a = Login("alice", "correct horse");
  ASSERT_TRUE(a.ok());
  const std::string token =
      CookieOf(a->set_cookie).substr(std::string("__Host-rtb_session=").size());
  for (std::string_view table : {storage::kSessionsTable, storage::kUserSessionsTable}) {
    for (const storage::RowResult& row : Dump(table)) {
      for (const std::string& secret : {token, std::string("correct horse"), a->csrf_token}) {
        EXPECT_EQ(row.row.find(secret), std::string::npos);
        for (const storage::Cell& cell : row.cells) {
          EXPECT_EQ(cell.value.find(secret), std::string::npos);
          EXPECT_EQ(cell.qualifier.find(secret), std::string::npos);
        }
      }
    }
  }
}

// The routes, as the bidder's HTTP server calls them.
class SessionRoutesTest : public LoginTest {
 protected:
  SessionHttpResponse Call(std::string_view method, std::string_view path,
                           std::string_view cookie = {}, std::string_view csrf = {},
                           std::string_view body = {},
                           std::string_view content_type = "application/json") {
    SessionHttpRequest request;
    request.method = method;
    request.path = path;
    request.cookie = cookie;
    request.csrf_token = csrf;
    request.body = body;
    request.content_type = content_type;
    request.remote_address = "127.0.0.1";
    return routes_->Handle(request);
  }
  static std::string Header(const SessionHttpResponse& r, std::string_view name) {
    for (const auto& [k, v] : r.headers) {
      if (k == name) return v;
    }
    return "";
  }
};

TEST_F(SessionRoutesTest, LoginSessionLogoutAndRefusalAfterwards) {
  Start();
  SessionHttpResponse login =
      Call("POST", "/api/login", "", "", R"({"user":"alice","password":"correct horse"})");
  ASSERT_EQ(login.status, 200u) << login.body;
  EXPECT_EQ(Header(login, "Cache-Control"), "no-store");
  const std::string cookie = CookieOf(Header(login, "Set-Cookie"));
  const std::string csrf = nlohmann::json::parse(login.body).at("csrf_token");

  SessionHttpResponse current = Call("GET", "/api/session", cookie);
  ASSERT_EQ(current.status, 200u);
  nlohmann::json doc = nlohmann::json::parse(current.body);
  EXPECT_EQ(doc.at("user"), "alice");
  EXPECT_EQ(doc.at("csrf_token"), csrf);

  EXPECT_EQ(Call("POST", "/api/logout", cookie).status, 403u);
  SessionHttpResponse logout = Call("POST", "/api/logout", cookie, csrf);
  EXPECT_EQ(logout.status, 204u);
  EXPECT_NE(Header(logout, "Set-Cookie").find("Max-Age=0"), std::string::npos);
  EXPECT_EQ(Call("GET", "/api/session", cookie).status, 401u);
  EXPECT_EQ(Call("POST", "/api/logout", cookie, csrf).status, 401u);
}

TEST_F(SessionRoutesTest, LoginRefusalsAndMalformedRequests) {
  Start();
  SessionHttpResponse wrong =
      Call("POST", "/api/login", "", "", R"({"user":"alice","password":"nope"})");
  SessionHttpResponse unknown =
      Call("POST", "/api/login", "", "", R"({"user":"eve","password":"nope"})");
  EXPECT_EQ(wrong.status, 401u);
  EXPECT_EQ(wrong.body, unknown.body);
  EXPECT_TRUE(Header(wrong, "Set-Cookie").empty());
  EXPECT_EQ(Call("POST", "/api/login", "", "", "user=alice&password=x",
                 "application/x-www-form-urlencoded")
                .status,
            415u);
  EXPECT_EQ(Call("POST", "/api/login", "", "", "{").status, 400u);
  EXPECT_EQ(Call("POST", "/api/login", "", "", R"({"user":1,"password":"x"})").status, 400u);
  SessionHttpResponse get = Call("GET", "/api/login");
  EXPECT_EQ(get.status, 405u);
  EXPECT_EQ(Header(get, "Allow"), "POST");
  EXPECT_EQ(Call("GET", "/api/nothing").status, 404u);
  for (int i = 0; i < 4; ++i) {  // the fifth failure of alice
    Call("POST", "/api/login", "", "", R"({"user":"alice","password":"nope"})");
  }
  SessionHttpResponse locked =
      Call("POST", "/api/login", "", "", R"({"user":"alice","password":"correct horse"})");
  EXPECT_EQ(locked.status, 429u);
  EXPECT_EQ(Header(locked, "Retry-After"), "30");
}

TEST_F(SessionRoutesTest, AuthorizeChecksCsrfOnlyForStateChangingMethods) {
  Start();
  auto result = Login("alice", "correct horse");
  ASSERT_TRUE(result.ok());
  const std::string cookie = CookieOf(result->set_cookie);
  SessionHttpRequest request;
  request.cookie = cookie;
  request.path = "/api/campaigns";
  request.method = "GET";
  EXPECT_TRUE(routes_->Authorize(request).ok());
  request.method = "POST";
  absl::Status refused = routes_->Authorize(request).status();
  EXPECT_EQ(SessionRoutes::ErrorResponse(refused).status, 403u);
  request.csrf_token = result->csrf_token;
  EXPECT_TRUE(routes_->Authorize(request).ok());
  request.cookie = "";
  EXPECT_EQ(SessionRoutes::ErrorResponse(routes_->Authorize(request).status()).status, 401u);
  EXPECT_EQ(SessionRoutes::ErrorResponse(absl::UnavailableError("region down")).body,
            R"({"error":"session store unavailable"})");
}

}  // namespace
}  // namespace rtb::bidder::sessions::testing
