#include "bidder/sessions/console_files.h"

#include <string>

#include "gtest/gtest.h"

namespace rtb::bidder::sessions {
namespace {

const std::filesystem::path kRoot = RTB_SESSIONS_CONSOLE_DIR;

std::string Header(const SessionHttpResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

TEST(ConsoleFilesTest, ServesTheIndexAndItsAssets) {
  for (std::string_view path : {"/console", "/console/", "/console/index.html"}) {
    SessionHttpResponse page = ServeConsoleFile(kRoot, "GET", path);
    ASSERT_EQ(page.status, 200u) << path;
    EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
    EXPECT_NE(page.body.find("<form id=\"login\""), std::string::npos);
    EXPECT_NE(Header(page, "Content-Security-Policy").find("default-src 'self'"),
              std::string::npos);
  }
  EXPECT_EQ(ServeConsoleFile(kRoot, "GET", "/console/console.js").content_type,
            "text/javascript; charset=utf-8");
  EXPECT_EQ(ServeConsoleFile(kRoot, "GET", "/console/console.css").status, 200u);
}

TEST(ConsoleFilesTest, RefusesEverythingOutsideTheDirectory) {
  for (std::string_view path :
       {"/console/../CMakeLists.txt", "/console/..", "/console/.hidden", "/console/a/b.js",
        "/console/missing.js", "/consolex", "/console/%2e%2e/x", "/api/login"}) {
    EXPECT_EQ(ServeConsoleFile(kRoot, "GET", path).status, 404u) << path;
  }
  EXPECT_EQ(ServeConsoleFile(kRoot, "POST", "/console/").status, 405u);
}

}  // namespace
}  // namespace rtb::bidder::sessions
