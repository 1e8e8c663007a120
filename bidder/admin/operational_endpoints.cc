#include "bidder/admin/operational_endpoints.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "boost/beast/http/verb.hpp"
#include "metrics/sharded.h"
#include "prometheus/text_serializer.h"

namespace rtb::bidder {

namespace http = boost::beast::http;

namespace {

constexpr char kTextPlain[] = "text/plain; charset=utf-8";
// The Prometheus text exposition format.
constexpr char kExpositionType[] = "text/plain; version=0.0.4; charset=utf-8";

HttpResponse Text(unsigned status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.content_type = kTextPlain;
  response.body = std::move(body);
  return response;
}

}  // namespace

void AddOperationalEndpoints(HttpServer& server, const StorageReadiness& readiness,
                             prometheus::Registry& registry, std::string metrics_path,
                             int campaigns_bidding_without_profiles, MemoryGauges* memory) {
  server.Route(http::verb::get, kHealthzPath,
               [](const HttpRequest&, Responder respond) { respond(Text(200, "ok")); });

  server.Route(http::verb::get, kReadyzPath,
               [&server, &readiness, campaigns_bidding_without_profiles](const HttpRequest&,
                                                                         Responder respond) {
                 if (server.draining()) return respond(Text(503, "not ready: shutting down\n"));
                 absl::Status status = readiness.Status();
                 if (!status.ok() && campaigns_bidding_without_profiles > 0) {
                   return respond(Text(200, absl::StrCat("ready: degraded, ", status.message(),
                                                         "; ", campaigns_bidding_without_profiles,
                                                         " campaigns bid without profiles\n")));
                 }
                 if (!status.ok()) {
                   return respond(Text(503, absl::StrCat("not ready: ", status.message(),
                                                         "; no campaign bids without profiles\n")));
                 }
                 respond(Text(200, "ready\n"));
               });

  server.Route(http::verb::get, std::move(metrics_path),
               [&registry, memory](const HttpRequest&, Responder respond) {
                 if (memory != nullptr) memory->Refresh();
                 HttpResponse response;
                 response.content_type = kExpositionType;
                 response.body = prometheus::TextSerializer().Serialize(metrics::Collect(registry));
                 respond(std::move(response));
               });
}

}  // namespace rtb::bidder
