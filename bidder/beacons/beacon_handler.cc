// Routing and threading of the beacon endpoints: each beacon is verified and
// matched to its campaign here, then handed to its endpoint
// (internal/notice_beacons.cc, internal/engagement_beacons.cc) on the
// handler's worker threads.
#include "bidder/beacons/beacon_handler.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <utility>
#include <variant>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bidder/beacons/internal/beacon_context.h"
#include "bidder/beacons/internal/beacon_record.h"
#include "boost/asio/post.hpp"

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

// A beacon verified and matched to its campaign (conversions: to the
// clicked impression), before anything is written.
struct Parsed {
  Endpoint endpoint = Endpoint::kWin;
  VerifiedBeacon beacon;  // all but conversions
  std::shared_ptr<const beacons::CampaignEntry> campaign;
  const config::CreativeConfig* creative = nullptr;
  std::string impression_id;
  beacons::Conversion conversion;  // conversions
};

class BeaconHandler::Impl : public stream::RecordApplier {
 public:
  Impl(Dependencies deps, BeaconHandlerOptions options, CurrencyTable currencies,
       absl::flat_hash_map<std::string, beacons::ExchangeRules> exchanges,
       std::vector<std::string> path_prefixes)
      : context_(std::move(deps), options, std::move(currencies), std::move(exchanges)),
        path_prefixes_(std::move(path_prefixes)) {}

  ~Impl() override {
    // Every accepted beacon gets its answer before the handler goes.
    if (context_.deps().log != nullptr) context_.deps().log->Flush(absl::Seconds(30)).IgnoreError();
  }

  beacons::BeaconContext& context() { return context_; }

  void Register(HttpServer& server) {
    if (context_.deps().log == nullptr) return;  // applies records only
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

  // The stream worker's side: a lane applies records and records their
  // later events together when it flushes.
  class Lane final : public stream::RecordApplier::Lane {
   public:
    explicit Lane(Impl& impl) : impl_(impl) {}
    absl::Status Apply(const beaconlog::LogRecord& record) override {
      return impl_.Apply(record, later_);
    }
    absl::Status Flush() override {
      if (later_.empty()) return absl::OkStatus();
      if (absl::Status s = impl_.context_.deps().events->RecordBatch(later_); !s.ok()) return s;
      later_.clear();
      return absl::OkStatus();
    }

   private:
    Impl& impl_;
    beacons::LaterEvents later_;
  };

  std::unique_ptr<stream::RecordApplier::Lane> NewLane() override {
    return std::make_unique<Lane>(*this);
  }

  // The record's writes, at the time it was received; its later events go
  // to `later`.
  absl::Status Apply(const beaconlog::LogRecord& record, beacons::LaterEvents& later) {
    absl::StatusOr<beacons::BeaconRecord> beacon = beacons::DecodeBeaconRecord(record.payload);
    if (!beacon.ok()) return beacon.status();
    std::variant<Parsed, Answer> parsed =
        Parse(beacon->endpoint, beacon->query, /*now=*/std::nullopt);
    if (Answer* refused = std::get_if<Answer>(&parsed)) {
      // Accepted once, refused now: the campaign left the config meanwhile.
      context_.Count(beacon->endpoint, refused->outcome);
      return absl::OkStatus();
    }
    absl::StatusOr<Outcome> outcome =
        ApplyParsed(std::get<Parsed>(parsed), beacon->received_ms, later);
    if (!outcome.ok()) return outcome.status();
    context_.Count(beacon->endpoint, *outcome);
    return absl::OkStatus();
  }

 private:
  // On the I/O thread: verify, decide the answer, and log what has writes to
  // apply; the answer goes once the record is durable.
  void Accept(Endpoint endpoint, const HttpRequest& request, Responder respond) {
    if (in_flight_.fetch_add(1, std::memory_order_relaxed) >= context_.options().max_in_flight) {
      in_flight_.fetch_sub(1, std::memory_order_relaxed);
      Finish(endpoint, request.arrival, std::move(respond),
             {Busy("too many beacons in flight; retry"), Outcome::kOverloaded});
      return;
    }
    // A POSTed notice may carry its parameters as a form body instead.
    std::string_view query = QueryOf(request.target);
    if (request.method == http::verb::post && query.empty()) query = request.body;
    const int64_t now = context_.NowMillis();
    std::variant<Parsed, Answer> parsed = Parse(endpoint, query, now);
    if (Answer* answer = std::get_if<Answer>(&parsed)) {
      in_flight_.fetch_sub(1, std::memory_order_relaxed);
      Finish(endpoint, request.arrival, std::move(respond), std::move(*answer));
      return;
    }
    const Parsed& beacon = std::get<Parsed>(parsed);
    Answer answer = Respond(beacon);
    if (answer.outcome != Outcome::kRecorded) {  // nothing to write
      in_flight_.fetch_sub(1, std::memory_order_relaxed);
      Finish(endpoint, request.arrival, std::move(respond), std::move(answer));
      return;
    }
    context_.deps().log->Append(
        beacon.impression_id, beacons::EncodeBeaconRecord(endpoint, now, query),
        [this, endpoint, arrival = request.arrival, executor = request.executor,
         respond = std::move(respond),
         response = std::move(answer.response)](absl::Status logged) mutable {
          in_flight_.fetch_sub(1, std::memory_order_relaxed);
          Answer answer{std::move(response), Outcome::kRecorded};
          if (logged.ok()) {
            // Its outcome is counted when the record is applied.
            if (context_.deps().appended) context_.deps().appended();
          } else {
            answer = LogRefused(logged);
            context_.Count(endpoint, answer.outcome);
          }
          context_.ObserveLatency(endpoint, SecondsSince(arrival));
          boost::asio::post(executor, [respond = std::move(respond),
                                       response = std::move(answer.response)]() mutable {
            respond(std::move(response));
          });
        });
  }

  static double SecondsSince(std::chrono::steady_clock::time_point arrival) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - arrival).count();
  }

  static HttpResponse Busy(std::string_view why) {
    HttpResponse busy = beacons::Status(503, why);
    busy.headers.emplace_back("Retry-After", "1");
    return busy;
  }

  // 503 for a record the log did not take: the caller retries.
  static Answer LogRefused(const absl::Status& why) {
    if (why.code() == absl::StatusCode::kResourceExhausted) {
      return {Busy(std::string(why.message())), Outcome::kLogFull};
    }
    return {Busy(std::string(why.message())), Outcome::kError};
  }

  // An answer given without writing anything, counted now.
  void Finish(Endpoint endpoint, std::chrono::steady_clock::time_point arrival, Responder respond,
              Answer answer) {
    context_.Count(endpoint, answer.outcome);
    context_.ObserveLatency(endpoint, SecondsSince(arrival));
    respond(std::move(answer.response));
  }

  // Verifies the beacon and finds its campaign; an answer instead when it is
  // refused. With `now`, a notice older than the attribution window is
  // refused too (when applied later, the time it was received decided).
  std::variant<Parsed, Answer> Parse(Endpoint endpoint, std::string_view query,
                                     std::optional<int64_t> now) {
    Parsed parsed;
    parsed.endpoint = endpoint;
    if (endpoint == Endpoint::kConversion) {
      std::variant<beacons::Conversion, Answer> read = beacons::ReadConversion(context_, query);
      if (Answer* refused = std::get_if<Answer>(&read)) return std::move(*refused);
      parsed.conversion = std::get<beacons::Conversion>(std::move(read));
      parsed.impression_id = parsed.conversion.impression_id;
      return parsed;
    }
    absl::StatusOr<VerifiedBeacon> beacon = context_.signer().Verify(KindOf(endpoint), query);
    if (!beacon.ok()) {
      const bool forged = beacon.status().code() == absl::StatusCode::kUnauthenticated;
      return Answer{beacons::Status(forged ? 403 : 400, beacon.status()),
                    forged ? Outcome::kForged : Outcome::kInvalid};
    }
    if (beacon->request_id.empty() || beacon->imp_id.empty() || beacon->bid_id.empty()) {
      return Answer{beacons::Status(400, "beacon without the auction, impression and bid ids"),
                    Outcome::kInvalid};
    }
    parsed.campaign = context_.FindCampaign(beacon->campaign_id);
    if (parsed.campaign == nullptr || !parsed.campaign->creatives.contains(beacon->creative_id)) {
      return Answer{beacons::Status(endpoint == Endpoint::kClick ? 404 : 204),
                    Outcome::kUnknownCampaign};
    }
    parsed.creative = parsed.campaign->creatives.at(beacon->creative_id);
    parsed.impression_id =
        ImpressionId(beacon->exchange, beacon->request_id, beacon->imp_id, beacon->bid_id);
    // A notice replayed past the attribution window would find its
    // impression row expired and book again: by its signed time it is too
    // old to mean anything. Clicks still redirect (and find no impression).
    if (now.has_value() && endpoint != Endpoint::kClick &&
        !context_.WithinAttributionWindow(beacon->bid_time_ms, *now)) {
      return Answer{beacons::Status(410, "beacon older than the attribution window"),
                    Outcome::kExpired};
    }
    parsed.beacon = *std::move(beacon);
    return parsed;
  }

  // The answer of a verified beacon; kRecorded when its writes are to be
  // logged, the outcome already decided otherwise.
  Answer Respond(const Parsed& p) {
    const VerifiedBeacon& b = p.beacon;
    switch (p.endpoint) {
      case Endpoint::kWin: {
        HttpResponse markup = beacons::WinResponse(context_, b, *p.creative);
        return {std::move(markup), b.test ? Outcome::kTest : Outcome::kRecorded};
      }
      case Endpoint::kBilling:
      case Endpoint::kImpression:
      case Endpoint::kLoss:
        return {beacons::NoticeResponse(p.endpoint), b.test ? Outcome::kTest : Outcome::kRecorded};
      case Endpoint::kClick: {
        HttpResponse redirect = beacons::ClickResponse(context_, b, *p.creative, p.impression_id);
        if (b.test) return {std::move(redirect), Outcome::kTest};
        if (!b.permissions.measure) return {std::move(redirect), Outcome::kNotMeasured};
        return {std::move(redirect), Outcome::kRecorded};
      }
      default:
        return {beacons::Status(204), Outcome::kRecorded};
    }
  }

  absl::StatusOr<Outcome> ApplyParsed(const Parsed& p, int64_t now, beacons::LaterEvents& later) {
    switch (p.endpoint) {
      case Endpoint::kWin:
        return beacons::ApplyWin(context_, p.beacon, *p.campaign, p.impression_id, now, later);
      case Endpoint::kBilling:
      case Endpoint::kImpression:
        return beacons::ApplyImpression(context_, p.endpoint, p.beacon, *p.campaign,
                                        p.impression_id, now, later);
      case Endpoint::kLoss:
        return beacons::ApplyLoss(context_, p.beacon, p.impression_id, now, later);
      case Endpoint::kClick:
        return beacons::ApplyClick(context_, p.beacon, p.impression_id, now);
      default:
        return beacons::ApplyConversion(context_, p.conversion, now);
    }
  }

  beacons::BeaconContext context_;
  std::vector<std::string> path_prefixes_;  // BeaconPathPrefixes, each once
  std::atomic<int> in_flight_{0};
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

stream::RecordApplier& BeaconHandler::applier() { return *impl_; }

void BeaconHandler::SetCampaigns(
    const std::vector<std::shared_ptr<const config::CampaignConfig>>& campaigns_by_position) {
  impl_->context().SetCampaigns(campaigns_by_position);
}

}  // namespace rtb::bidder
