#include "bidder/sessions/console_files.h"

#include <algorithm>
#include <span>
#include <string>

#include "absl/strings/ascii.h"
#include "bidder/sessions/internal/console_assets.h"

namespace rtb::bidder::sessions {
namespace {

bool IsPlainFileName(std::string_view name) {
  if (name.empty() || name.size() > 128 || name.front() == '.') return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') {
      return false;
    }
  }
  return true;
}

std::string ContentTypeOf(std::string_view name) {
  auto ends = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".json")) return "application/json";
  return "application/octet-stream";
}

SessionHttpResponse NotFound() {
  SessionHttpResponse response;
  response.status = 404;
  response.content_type = "text/plain; charset=utf-8";
  response.body = "not found\n";
  return response;
}

}  // namespace

bool IsConsolePath(std::string_view path) {
  return path == kConsolePath ||
         (path.size() > kConsolePath.size() &&
          path.substr(0, kConsolePath.size()) == kConsolePath && path[kConsolePath.size()] == '/');
}

SessionHttpResponse ServeConsoleFile(std::string_view method, std::string_view path) {
  if (!IsConsolePath(path)) return NotFound();
  if (method != "GET" && method != "HEAD") {
    SessionHttpResponse response;
    response.status = 405;
    response.headers.emplace_back("Allow", "GET, HEAD");
    return response;
  }
  std::string_view name = path.substr(kConsolePath.size());
  if (!name.empty()) name.remove_prefix(1);  // the '/'
  if (name.empty()) name = "index.html";
  if (!IsPlainFileName(name)) return NotFound();
  const std::span<const internal::ConsoleAsset> assets = internal::ConsoleAssets();
  const auto asset = std::lower_bound(
      assets.begin(), assets.end(), name,
      [](const internal::ConsoleAsset& a, std::string_view n) { return a.name < n; });
  if (asset == assets.end() || asset->name != name) return NotFound();
  SessionHttpResponse response;
  response.content_type = ContentTypeOf(name);
  response.body = std::string(asset->content);
  response.headers = {
      {"Content-Security-Policy",
       "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"},
      {"X-Content-Type-Options", "nosniff"},
      {"X-Frame-Options", "DENY"},
      {"Referrer-Policy", "no-referrer"},
      {"Cache-Control", "no-cache"},
  };
  return response;
}

}  // namespace rtb::bidder::sessions
