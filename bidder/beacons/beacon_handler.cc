// Routing and threading of the beacon endpoints: each beacon is verified and
// matched to its campaign here, then handed to its endpoint
// (internal/notice_beacons.cc, internal/engagement_beacons.cc) on the
// handler's worker threads.
#include "bidder/beacons/beacon_handler.h"

#include <atomic>
#include <chrono>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bidder/beacons/internal/beacon_context.h"
#include "boost/asio/post.hpp"
#include "boost/asio/thread_pool.hpp"

namespace rtb::bidder {
namespace {

namespace http = boost::beast::http;
using beacons::Answer;
using beacons::Endpoint;
using beacons::Outcome;

// The query of a request target ("" without one).
std::string_view QueryOf(std::string_view target) {
  const size_t q = target.find('?');
  return q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
}

BeaconKind KindOf(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::kBilling:
      return BeaconKind::kBilling;
    case Endpoint::kImpression:
      return BeaconKind::kImpression;
    case Endpoint::kLoss:
      return BeaconKind::kLoss;
    case Endpoint::kClick:
      return BeaconKind::kClick;
    default:
      return BeaconKind::kWin;
  }
}

}  // namespace

class BeaconHandler::Impl {
 public:
  Impl(Dependencies deps, BeaconHandlerOptions options, CurrencyTable currencies,
       absl::flat_hash_map<std::string, beacons::ExchangeRules> exchanges,
       std::vector<std::string> path_prefixes)
      : context_(std::move(deps), options, std::move(currencies), std::move(exchanges)),
        path_prefixes_(std::move(path_prefixes)),
        pool_(static_cast<size_t>(options.threads)) {}

  ~Impl() { pool_.join(); }

  beacons::BeaconContext& context() { return context_; }

  void Register(HttpServer& server) {
    auto route = [&](std::initializer_list<http::verb> verbs, std::string_view path,
                     Endpoint endpoint) {
      for (const std::string& prefix : path_prefixes_) {
        for (http::verb verb : verbs) {
          server.Route(verb, prefix + std::string(path),
                       [this, endpoint](const HttpRequest& request, Responder respond) {
                         Accept(endpoint, request, std::move(respond));
                       });
        }
      }
    };
    route({http::verb::get, http::verb::post}, BeaconPath(BeaconKind::kWin), Endpoint::kWin);
    route({http::verb::get, http::verb::post}, BeaconPath(BeaconKind::kBilling),
          Endpoint::kBilling);
    route({http::verb::get}, BeaconPath(BeaconKind::kImpression), Endpoint::kImpression);
    route({http::verb::get, http::verb::post}, BeaconPath(BeaconKind::kLoss), Endpoint::kLoss);
    route({http::verb::get}, BeaconPath(BeaconKind::kClick), Endpoint::kClick);
    route({http::verb::get, http::verb::post}, "/conversion", Endpoint::kConversion);
  }

 private:
  // On the I/O thread: copy what the work needs and hand it to the pool.
  void Accept(Endpoint endpoint, const HttpRequest& request, Responder respond) {
    if (in_flight_.fetch_add(1, std::memory_order_relaxed) >= context_.options().max_in_flight) {
      in_flight_.fetch_sub(1, std::memory_order_relaxed);
      context_.Count(endpoint, Outcome::kOverloaded);
      HttpResponse busy = beacons::Status(503, "too many beacons in flight; retry");
      busy.headers.emplace_back("Retry-After", "1");
      respond(std::move(busy));
      return;
    }
    // A POSTed notice may carry its parameters as a form body instead.
    std::string query(QueryOf(request.target));
    if (request.method == http::verb::post && query.empty()) query.assign(request.body);
    boost::asio::post(pool_, [this, endpoint, query = std::move(query), arrival = request.arrival,
                              executor = request.executor, respond = std::move(respond)]() mutable {
      Answer answer = Handle(endpoint, query);
      context_.Count(endpoint, answer.outcome);
      context_.ObserveLatency(
          endpoint,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - arrival).count());
      in_flight_.fetch_sub(1, std::memory_order_relaxed);
      boost::asio::post(executor, [respond = std::move(respond),
                                   response = std::move(answer.response)]() mutable {
        respond(std::move(response));
      });
    });
  }

  // On a worker thread: verify, find the campaign, hand to the endpoint.
  Answer Handle(Endpoint endpoint, std::string_view query) {
    if (endpoint == Endpoint::kConversion) return beacons::HandleConversion(context_, query);
    absl::StatusOr<VerifiedBeacon> beacon = context_.signer().Verify(KindOf(endpoint), query);
    if (!beacon.ok()) {
      const bool forged = beacon.status().code() == absl::StatusCode::kUnauthenticated;
      return {beacons::Status(forged ? 403 : 400, beacon.status()),
              forged ? Outcome::kForged : Outcome::kInvalid};
    }
    if (beacon->request_id.empty() || beacon->imp_id.empty() || beacon->bid_id.empty()) {
      return {beacons::Status(400, "beacon without the auction, impression and bid ids"),
              Outcome::kInvalid};
    }
    const std::shared_ptr<const beacons::CampaignEntry> campaign =
        context_.FindCampaign(beacon->campaign_id);
    if (campaign == nullptr || !campaign->creatives.contains(beacon->creative_id)) {
      return {beacons::Status(endpoint == Endpoint::kClick ? 404 : 204), Outcome::kUnknownCampaign};
    }
    const config::CreativeConfig& creative = *campaign->creatives.at(beacon->creative_id);
    const std::string impression_id =
        ImpressionId(beacon->exchange, beacon->request_id, beacon->imp_id, beacon->bid_id);
    // A notice replayed past the attribution window would find its
    // impression row expired and book again: by its signed time it is too
    // old to mean anything. Clicks still redirect (and find no impression).
    if (endpoint != Endpoint::kClick && !context_.Current(*beacon)) {
      return {beacons::Status(410, "beacon older than the attribution window"), Outcome::kExpired};
    }
    switch (endpoint) {
      case Endpoint::kWin:
        return beacons::HandleWin(context_, *beacon, *campaign, creative, impression_id);
      case Endpoint::kBilling:
      case Endpoint::kImpression:
        return beacons::HandleImpression(context_, endpoint, *beacon, *campaign, impression_id);
      case Endpoint::kLoss:
        return beacons::HandleLoss(context_, *beacon, impression_id);
      case Endpoint::kClick:
        return beacons::HandleClick(context_, *beacon, creative, impression_id);
      default:
        return {beacons::Status(500), Outcome::kError};
    }
  }

  beacons::BeaconContext context_;
  std::vector<std::string> path_prefixes_;  // BeaconPathPrefixes, each once
  std::atomic<int> in_flight_{0};
  boost::asio::thread_pool pool_;
};

std::string BeaconHandler::ImpressionId(std::string_view exchange, std::string_view request_id,
                                        std::string_view imp_id, std::string_view bid_id) {
  return beacons::Sha256Id({"rtb-impression-v1", exchange, request_id, imp_id, bid_id});
}

absl::StatusOr<std::unique_ptr<BeaconHandler>> BeaconHandler::Create(Dependencies deps,
                                                                     BeaconHandlerOptions options) {
  if (deps.config == nullptr || deps.store == nullptr || deps.events == nullptr ||
      deps.registry == nullptr) {
    return absl::InvalidArgumentError(
        "beacon handler: config, store, events and registry are required");
  }
  if (options.threads < 1 || options.threads > 256) {
    return absl::InvalidArgumentError("beacon handler: threads must be in [1, 256]");
  }
  if (options.max_in_flight < 1) {
    return absl::InvalidArgumentError("beacon handler: max_in_flight must be > 0");
  }
  if (deps.wall_clock == nullptr) deps.wall_clock = storage::SystemClock();
  absl::StatusOr<CurrencyTable> currencies = CurrencyTable::Create(deps.config->bid.currency_rates);
  if (!currencies.ok()) return currencies.status();
  // The path of every base URL (after scheme and authority) prefixes the routes.
  std::vector<std::string> prefixes = BeaconPathPrefixes(*deps.config);
  absl::StatusOr<absl::flat_hash_map<std::string, beacons::ExchangeRules>> exchanges =
      beacons::BeaconContext::RulesOf(*deps.config);
  if (!exchanges.ok()) return exchanges.status();
  try {
    auto impl = std::make_unique<Impl>(std::move(deps), options, *std::move(currencies),
                                       *std::move(exchanges), std::move(prefixes));
    return std::unique_ptr<BeaconHandler>(new BeaconHandler(std::move(impl)));
  } catch (const std::exception& e) {
    // prometheus-cpp throws on a metric name clash.
    return absl::InternalError(absl::StrCat("cannot declare the beacon metrics: ", e.what()));
  }
}

BeaconHandler::BeaconHandler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BeaconHandler::~BeaconHandler() = default;

void BeaconHandler::Register(HttpServer& server) { impl_->Register(server); }

void BeaconHandler::SetCampaigns(
    const std::vector<std::shared_ptr<const config::CampaignConfig>>& campaigns_by_position) {
  impl_->context().SetCampaigns(campaigns_by_position);
}

}  // namespace rtb::bidder
