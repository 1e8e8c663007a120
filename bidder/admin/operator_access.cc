#include "bidder/admin/operator_access.h"

#include <atomic>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "bidder/sessions/console_files.h"
#include "bidder/sessions/session_store.h"
#include "boost/asio/ip/address.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/thread_pool.hpp"
#include "boost/beast/http/field.hpp"
#include "nlohmann/json.hpp"

namespace rtb::bidder {
namespace {

namespace http = boost::beast::http;

// `name`: an http::field or a header name.
template <typename Name>
std::string HeaderOf(const HttpRequest& request, Name name) {
  if (request.headers == nullptr) return {};
  const auto it = request.headers->find(name);
  return it == request.headers->end() ? std::string() : std::string(it->value());
}

HttpResponse Unavailable(std::string_view why) {
  HttpResponse response;
  response.status = 503;
  response.content_type = "application/json";
  response.body = nlohmann::json{{"error", std::string(why)}}.dump();
  response.headers = {{"Cache-Control", "no-store"}, {"Retry-After", "1"}};
  return response;
}

std::optional<boost::asio::ip::address> ParsedAddress(std::string_view text) {
  boost::system::error_code ec;
  boost::asio::ip::address address = boost::asio::ip::make_address(std::string(text), ec);
  if (ec) return std::nullopt;
  // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d.
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6());
  }
  return address;
}

}  // namespace

std::string ClientAddressOf(std::string_view peer, std::string_view forwarded_for,
                            const std::vector<std::string>& trusted_proxies) {
  auto trusted = [&](const boost::asio::ip::address& address) {
    for (const std::string& proxy : trusted_proxies) {
      if (ParsedAddress(proxy) == address) return true;
    }
    return false;
  };
  const std::optional<boost::asio::ip::address> peer_address = ParsedAddress(peer);
  if (!peer_address.has_value() || !trusted(*peer_address)) return std::string(peer);
  std::string client(peer);
  std::string_view rest = forwarded_for;
  while (!rest.empty()) {
    const size_t comma = rest.rfind(',');
    const std::string_view entry = comma == std::string_view::npos ? rest : rest.substr(comma + 1);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(0, comma);
    const absl::string_view stripped =
        absl::StripAsciiWhitespace(absl::string_view(entry.data(), entry.size()));
    const std::optional<boost::asio::ip::address> hop =
        ParsedAddress(std::string_view(stripped.data(), stripped.size()));
    if (!hop.has_value()) break;
    client = hop->to_string();
    if (!trusted(*hop)) break;
  }
  return client;
}

OperatorRequest::OperatorRequest(const HttpRequest& request,
                                 const std::vector<std::string>& trusted_proxies)
    : method(http::to_string(request.method)),
      path(request.path),
      cookie(HeaderOf(request, http::field::cookie)),
      csrf_token(HeaderOf(request, sessions::kCsrfHeader)),
      content_type(HeaderOf(request, http::field::content_type)),
      body(request.body),
      remote_address(ClientAddressOf(request.remote_address,
                                     HeaderOf(request, std::string_view("X-Forwarded-For")),
                                     trusted_proxies)) {}

sessions::SessionHttpRequest OperatorRequest::view() const {
  return {.method = method,
          .path = path,
          .cookie = cookie,
          .csrf_token = csrf_token,
          .content_type = content_type,
          .body = body,
          .remote_address = remote_address};
}

HttpResponse ToHttpResponse(sessions::SessionHttpResponse response) {
  HttpResponse out;
  out.status = response.status;
  out.content_type = std::move(response.content_type);
  out.body = std::move(response.body);
  out.headers = std::move(response.headers);
  return out;
}

class OperatorAccess::Impl {
 public:
  Impl(const config::BidderConfig& config, storage::Store& store, prometheus::Registry& registry)
      : config_(config),
        sessions_(store, sessions::SessionStoreOptionsFrom(config.sessions, nullptr), &registry),
        login_(sessions_, config.sessions, &registry),
        routes_(login_),
        pool_(2) {}
  ~Impl() { pool_.join(); }

  void Register(HttpServer& server) {
    for (std::string_view path :
         {sessions::SessionRoutes::kLoginPath, sessions::SessionRoutes::kLogoutPath,
          sessions::SessionRoutes::kLogoutEverywherePath}) {
      server.Route(http::verb::post, std::string(path), SessionRoute());
    }
    server.Route(http::verb::get, std::string(sessions::SessionRoutes::kSessionPath),
                 SessionRoute());
    if (config_.server.console_enabled) {
      // In-memory files: answered on the I/O thread.
      auto console = [](const HttpRequest& request, Responder respond) {
        respond(ToHttpResponse(sessions::ServeConsoleFile("GET", request.path)));
      };
      server.Route(http::verb::get, std::string(sessions::kConsolePath), console);
      server.RoutePrefix(http::verb::get, std::string(sessions::kConsolePath) + "/", console);
    }
  }

  absl::StatusOr<sessions::AuthenticatedSession> Authorize(const OperatorRequest& request,
                                                           std::string_view privilege,
                                                           bool changes_state) {
    absl::StatusOr<sessions::AuthenticatedSession> session =
        changes_state ? login_.AuthenticateForChange(request.cookie, request.csrf_token)
                      : login_.Authenticate(request.cookie);
    if (!session.ok()) return session;
    if (!privilege.empty() && !session->session.state.privileges.contains(std::string(privilege))) {
      return absl::PermissionDeniedError("this session lacks the privilege \"" +
                                         std::string(privilege) + "\"");
    }
    return session;
  }

 private:
  HttpHandler SessionRoute() {
    return [this](const HttpRequest& request, Responder respond) {
      if (in_flight_.fetch_add(1, std::memory_order_relaxed) >= kMaxLoginsInFlight) {
        in_flight_.fetch_sub(1, std::memory_order_relaxed);
        respond(Unavailable("too many session calls in flight"));
        return;
      }
      boost::asio::post(
          pool_, [this, owned = OperatorRequest(request, config_.sessions.trusted_proxies),
                  executor = request.executor, respond = std::move(respond)]() mutable {
            HttpResponse response = ToHttpResponse(routes_.Handle(owned.view()));
            // The password was in the body; keep no copy longer than needed.
            std::fill(owned.body.begin(), owned.body.end(), '\0');
            in_flight_.fetch_sub(1, std::memory_order_relaxed);
            boost::asio::post(
                executor, [respond = std::move(respond), response = std::move(response)]() mutable {
                  respond(std::move(response));
                });
          });
    };
  }

  const config::BidderConfig& config_;
  sessions::SessionStore sessions_;
  sessions::LoginService login_;
  sessions::SessionRoutes routes_;
  std::atomic<int> in_flight_{0};
  boost::asio::thread_pool pool_;
};

OperatorAccess::OperatorAccess(const config::BidderConfig& config, storage::Store& store,
                               prometheus::Registry& registry)
    : impl_(std::make_unique<Impl>(config, store, registry)) {}
OperatorAccess::~OperatorAccess() = default;

void OperatorAccess::Register(HttpServer& server) { impl_->Register(server); }

absl::StatusOr<sessions::AuthenticatedSession> OperatorAccess::Authorize(
    const OperatorRequest& request, std::string_view privilege, bool changes_state) {
  return impl_->Authorize(request, privilege, changes_state);
}

HttpResponse OperatorAccess::ErrorResponse(const absl::Status& status) {
  return ToHttpResponse(sessions::SessionRoutes::ErrorResponse(status));
}

}  // namespace rtb::bidder
