#include "bidder/sessions/console_files.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace rtb::bidder::sessions {
namespace {

std::string Header(const SessionHttpResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

TEST(ConsoleFilesTest, ServesTheIndexAndItsAssets) {
  for (std::string_view path : {"/console", "/console/", "/console/index.html"}) {
    SessionHttpResponse page = ServeConsoleFile("GET", path);
    ASSERT_EQ(page.status, 200u) << path;
    EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
    EXPECT_NE(page.body.find("<form id=\"login\""), std::string::npos);
    EXPECT_NE(Header(page, "Content-Security-Policy").find("default-src 'self'"),
              std::string::npos);
  }
  EXPECT_EQ(ServeConsoleFile("GET", "/console/console.js").content_type,
            "text/javascript; charset=utf-8");
  EXPECT_EQ(ServeConsoleFile("GET", "/console/console.css").status, 200u);
}

TEST(ConsoleFilesTest, ServesEveryFileOfTheSourceDirectoryByteForByte) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(RTB_SESSIONS_CONSOLE_DIR)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    const std::string name = entry.path().filename().string();
    SessionHttpResponse served = ServeConsoleFile("GET", "/console/" + name);
    ASSERT_EQ(served.status, 200u) << name;
    EXPECT_EQ(served.body, content.str()) << name;
    ++files;
  }
  EXPECT_GE(files, 3);
}

TEST(ConsoleFilesTest, RefusesEverythingOutsideTheDirectory) {
  for (std::string_view path :
       {"/console/../CMakeLists.txt", "/console/..", "/console/.hidden", "/console/a/b.js",
        "/console/missing.js", "/consolex", "/console/%2e%2e/x", "/api/login"}) {
    EXPECT_EQ(ServeConsoleFile("GET", path).status, 404u) << path;
  }
  EXPECT_EQ(ServeConsoleFile("POST", "/console/").status, 405u);
}

}  // namespace
}  // namespace rtb::bidder::sessions
