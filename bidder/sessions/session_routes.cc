#include "bidder/sessions/session_routes.h"

#include <sodium.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace rtb::bidder::sessions {
namespace {

constexpr char kJson[] = "application/json";

SessionHttpResponse JsonResponse(unsigned status, const nlohmann::json& body) {
  SessionHttpResponse response;
  response.status = status;
  response.content_type = kJson;
  response.body = body.dump();
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

SessionHttpResponse MethodNotAllowed(std::string_view allow) {
  SessionHttpResponse response = JsonResponse(405, {{"error", "method not allowed"}});
  response.headers.emplace_back("Allow", std::string(allow));
  return response;
}

bool IsJsonContentType(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  return absl::EqualsIgnoreCase(
      absl::StripAsciiWhitespace(absl::string_view(media.data(), media.size())), kJson);
}

bool IsSafeMethod(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "OPTIONS";
}

}  // namespace

bool SessionRoutes::Handles(std::string_view path) {
  return path == kLoginPath || path == kLogoutPath || path == kLogoutEverywherePath ||
         path == kSessionPath;
}

SessionHttpResponse SessionRoutes::ErrorResponse(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      return JsonResponse(400, {{"error", std::string(status.message())}});
    case absl::StatusCode::kUnauthenticated:
      return JsonResponse(401, {{"error", std::string(status.message())}});
    case absl::StatusCode::kPermissionDenied:
      return JsonResponse(403, {{"error", std::string(status.message())}});
    case absl::StatusCode::kAborted:
      return JsonResponse(409, {{"error", std::string(status.message())}});
    case absl::StatusCode::kResourceExhausted: {
      SessionHttpResponse response = JsonResponse(429, {{"error", std::string(status.message())}});
      if (std::optional<int64_t> seconds = RetryAfterSeconds(status)) {
        response.headers.emplace_back("Retry-After", absl::StrCat(*seconds));
      }
      return response;
    }
    default:
      return JsonResponse(503, {{"error", "session store unavailable"}});
  }
}

SessionHttpResponse SessionRoutes::Handle(const SessionHttpRequest& request) {
  if (request.path == kLoginPath) {
    return request.method == "POST" ? Login(request) : MethodNotAllowed("POST");
  }
  if (request.path == kLogoutPath || request.path == kLogoutEverywherePath) {
    return request.method == "POST" ? Logout(request, request.path == kLogoutEverywherePath)
                                    : MethodNotAllowed("POST");
  }
  if (request.path == kSessionPath) {
    return request.method == "GET" ? Current(request) : MethodNotAllowed("GET");
  }
  return JsonResponse(404, {{"error", "not found"}});
}

absl::StatusOr<AuthenticatedSession> SessionRoutes::Authorize(const SessionHttpRequest& request) {
  if (IsSafeMethod(request.method)) return login_.Authenticate(request.cookie);
  return login_.AuthenticateForChange(request.cookie, request.csrf_token);
}

SessionHttpResponse SessionRoutes::Login(const SessionHttpRequest& request) {
  if (!IsJsonContentType(request.content_type)) {
    return JsonResponse(415, {{"error", "login takes application/json"}});
  }
  nlohmann::json body = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("user") || !body["user"].is_string() ||
      !body.contains("password") || !body["password"].is_string()) {
    return ErrorResponse(
        absl::InvalidArgumentError("login body must be {\"user\": string, \"password\": string}"));
  }
  std::string user = body["user"].get<std::string>();
  std::string password = body["password"].get<std::string>();
  absl::StatusOr<LoginResult> result =
      login_.Login(user, password, request.remote_address, request.cookie);
  sodium_memzero(password.data(), password.size());
  body = nullptr;
  if (!result.ok()) return ErrorResponse(result.status());
  SessionHttpResponse response = JsonResponse(200, {{"user", result->session.state.user},
                                                    {"session_id", result->session.id},
                                                    {"csrf_token", result->csrf_token}});
  response.headers.emplace_back("Set-Cookie", result->set_cookie);
  return response;
}

SessionHttpResponse SessionRoutes::Logout(const SessionHttpRequest& request, bool everywhere) {
  absl::StatusOr<std::string> clearing =
      everywhere ? login_.LogoutEverywhere(request.cookie, request.csrf_token)
                 : login_.Logout(request.cookie, request.csrf_token);
  if (!clearing.ok()) return ErrorResponse(clearing.status());
  SessionHttpResponse response;
  response.status = 204;
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("Set-Cookie", *clearing);
  return response;
}

SessionHttpResponse SessionRoutes::Current(const SessionHttpRequest& request) {
  absl::StatusOr<AuthenticatedSession> session = login_.Authenticate(request.cookie);
  if (!session.ok()) return ErrorResponse(session.status());
  const SessionState& state = session->session.state;
  return JsonResponse(200, {{"user", state.user},
                            {"session_id", session->session.id},
                            {"privileges", state.privileges},
                            {"csrf_token", session->csrf_token},
                            {"created_ms", state.created_ms}});
}

}  // namespace rtb::bidder::sessions
