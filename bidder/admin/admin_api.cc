#include "bidder/admin/admin_api.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bidder/admin/operator_access.h"
#include "bidder/bid/beacon_url.h"
#include "bidder/bid/device_key.h"
#include "bidder/campaigns/campaign_follower.h"
#include "bidder/campaigns/campaign_store.h"
#include "bidder/events/erasure.h"
#include "bidder/events/events.h"
#include "bidder/telemetry/opentsdb.h"
#include "bidder/telemetry/telemetry.h"
#include "boost/asio/post.hpp"
#include "boost/asio/thread_pool.hpp"
#include "metrics/sharded.h"
#include "nlohmann/json.hpp"
#include "pacing/pacer.h"
#include "pricing/pricer.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/key_bytes.h"

namespace rtb::bidder {
namespace {

namespace http = boost::beast::http;

constexpr std::string_view kDevicesPrefix = "/api/devices/";
constexpr int kDefaultLimit = 100;

HttpResponse Json(unsigned status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/json";
  response.body = std::move(body);
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

HttpResponse Error(unsigned status, std::string_view message) {
  return Json(status, nlohmann::json{{"error", std::string(message)}}.dump());
}

HttpResponse Error(const absl::Status& status) {
  const std::string message(status.message());
  return Error(status.code() == absl::StatusCode::kInvalidArgument ? 400 : 500, message);
}

nlohmann::json EventJson(const events::Event& e) {
  nlohmann::json out = {{"type", std::string(events::EventTypeName(e.type))},
                        {"event_time_ms", e.event_time_ms},
                        {"event_id", storage::Hex(e.event_id)},
                        {"summary", e.summary}};
  if (!e.body.empty()) {
    nlohmann::json body = nlohmann::json::parse(e.body, nullptr, false);
    out["body"] = body.is_discarded() ? nlohmann::json(e.body) : body;
  }
  return out;
}

// The query parameters the API reads, decoded.
struct Query {
  std::optional<std::string> Get(std::string_view name) const {
    for (const auto& [n, v] : pairs) {
      if (n == name) return v;
    }
    return std::nullopt;
  }
  std::vector<std::pair<std::string, std::string>> pairs;
};

absl::StatusOr<Query> ParseQuery(std::string_view target) {
  Query query;
  const size_t q = target.find('?');
  std::string_view rest = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    std::string name;
    std::string value;
    if (!PercentDecode(pair.substr(0, eq), &name) ||
        !PercentDecode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), &value)) {
      return absl::InvalidArgumentError("malformed percent escape in the query");
    }
    query.pairs.emplace_back(std::move(name), std::move(value));
  }
  return query;
}

// An integer parameter in [min, max], `fallback` when absent.
absl::StatusOr<int64_t> IntParam(const Query& query, std::string_view name, int64_t fallback,
                                 int64_t min, int64_t max) {
  std::optional<std::string> text = query.Get(name);
  if (!text.has_value()) return fallback;
  int64_t value = 0;
  if (!absl::SimpleAtoi(*text, &value) || value < min || value > max) {
    return absl::InvalidArgumentError(std::string(name) + ": must be an integer in [" +
                                      std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return value;
}

// What a route asks of the caller's session.
struct Guard {
  // Needs a live session (else 401).
  bool session = true;
  // Changes state: needs the X-CSRF-Token too (else 403).
  bool changes_state = false;
  // Needs this privilege (else 403); empty: none.
  std::string_view privilege = "read";
};

constexpr Guard kRead{};
constexpr Guard kErase{.changes_state = true, .privilege = "erase"};
constexpr Guard kWrite{.changes_state = true, .privilege = "read"};
constexpr Guard kOpen{.session = false, .privilege = ""};

constexpr std::string_view kCampaignsPrefix = "/api/campaigns/";

nlohmann::json RecordJson(const campaigns::CampaignRecord& record) {
  nlohmann::json object = nlohmann::json::parse(record.json, nullptr, false);
  return {{"id", record.id},
          {"campaign_state", campaigns::CampaignStateName(record.state)},
          {"version", record.version},
          {"updated_ms", record.updated_ms},
          {"updated_by", record.updated_by},
          {"campaign", object.is_discarded() ? nlohmann::json(record.json) : object}};
}

// A failed campaign change as the API answers it: 422 with every validation
// problem, 409 with the current version on a stale edit, 404, 409 for an id
// taken or an archived campaign, else 503 (the store).
HttpResponse CampaignError(const absl::Status& status,
                           const std::optional<campaigns::CampaignRecord>& current) {
  const std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument: {
      nlohmann::json problems = nlohmann::json::array();
      for (absl::string_view problem : absl::StrSplit(message, "; ")) {
        problems.push_back(std::string(problem));
      }
      return Json(422,
                  nlohmann::json{{"error", "invalid campaign"}, {"problems", problems}}.dump());
    }
    case absl::StatusCode::kAborted: {
      nlohmann::json body = {{"error", message}};
      if (current.has_value()) {
        body["current_version"] = current->version;
        body["current"] = RecordJson(*current);
      }
      return Json(409, body.dump());
    }
    case absl::StatusCode::kNotFound:
      return Error(404, message);
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kFailedPrecondition:
      return Error(409, message);
    default:
      return Error(503, message);
  }
}

std::string_view PacingStateName(const pacing::CampaignPacingStatus& status, int64_t now_ms) {
  if (status.decided_at_ms == 0 || now_ms > status.valid_until_ms) return "fail-safe";
  if (status.stopped || status.throttle <= 0) return "stopped";
  if (status.throttle < 1) return "throttled";
  return "open";
}

// Bids and wins of each campaign since the process started: the counters of
// `bids_metric` and `wins_metric` summed over their other labels (exchange).
struct CampaignCounts {
  int64_t bids = 0;
  int64_t wins = 0;
};
absl::flat_hash_map<std::string, CampaignCounts> CountsByCampaign(
    const prometheus::Registry& registry) {
  absl::flat_hash_map<std::string, CampaignCounts> counts;
  for (const prometheus::MetricFamily& family : metrics::Collect(registry)) {
    int64_t CampaignCounts::*field = nullptr;
    if (family.name == "bidder_bids_total") field = &CampaignCounts::bids;
    if (family.name == "bidder_wins_total") field = &CampaignCounts::wins;
    if (field == nullptr) continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      for (const prometheus::ClientMetric::Label& label : metric.label) {
        if (label.name != "campaign") continue;
        counts[label.value].*field += static_cast<int64_t>(metric.counter.value);
      }
    }
  }
  return counts;
}

nlohmann::json PricingJson(const pricing::CampaignPricingStatus& price) {
  return {{"goal", price.goal},
          {"ctr", price.ctr},
          {"cvr", price.cvr},
          {"value_cpm", price.value_cpm},
          {"bids", price.bids},
          {"first_price_bids", price.first_price_bids},
          {"average_shading_factor", price.average_shading_factor},
          {"wins", price.wins},
          {"price_losses", price.price_losses},
          {"win_rate", price.win_rate},
          {"average_clearing_cpm", price.average_clearing_cpm}};
}

// What the pacing loop, the pricer and the bid counters know of each
// campaign at one moment, as GET /api/campaigns lists it.
class CampaignActivity {
 public:
  // `pricer` and `registry` may be null: no pricing, no bid counts.
  CampaignActivity(const pacing::Pacer& pacer, const pricing::Pricer* pricer,
                   const prometheus::Registry* registry, int64_t now_ms)
      : now_ms_(now_ms),
        statuses_(pacer.CampaignStatuses()),
        prices_(pricer != nullptr ? pricer->CampaignStatuses()
                                  : std::vector<pricing::CampaignPricingStatus>()),
        counts_(registry != nullptr ? std::optional(CountsByCampaign(*registry)) : std::nullopt) {
    for (const pacing::CampaignPacingStatus& status : statuses_) {
      pacing_of_[status.campaign_id] = &status;
    }
    for (const pricing::CampaignPricingStatus& price : prices_) {
      pricing_of_[price.campaign_id] = &price;
    }
  }
  CampaignActivity(const CampaignActivity&) = delete;
  CampaignActivity& operator=(const CampaignActivity&) = delete;

  // The campaign's budget and pacing ("fail-safe" until the pacing loop
  // decides on it), its pricing and its bids and wins when known.
  nlohmann::json Describe(const std::string& id, const config::CampaignConfig& campaign) const {
    nlohmann::json out = {
        {"id", id},
        {"currency", campaign.currency},
        {"daily_budget_micros", campaign.daily_budget_micros},
        {"spend_today_micros", 0},
        {"pacing_mode", campaign.pacing_mode == config::PacingMode::kEven ? "even" : "asap"},
        {"time_zone", campaign.time_zone},
        {"throttle", 0},
        {"state", "fail-safe"},
        {"decided_at_ms", 0}};
    if (auto it = pacing_of_.find(id); it != pacing_of_.end()) {
      const pacing::CampaignPacingStatus& status = *it->second;
      out["daily_budget_micros"] = status.daily_budget_micros;
      out["spend_today_micros"] = status.spent_today_micros;
      out["throttle"] = status.throttle;
      out["state"] = std::string(PacingStateName(status, now_ms_));
      out["decided_at_ms"] = status.decided_at_ms;
    }
    if (auto it = pricing_of_.find(id); it != pricing_of_.end()) {
      out["pricing"] = PricingJson(*it->second);
    }
    if (counts_.has_value()) {
      auto it = counts_->find(id);
      const CampaignCounts count = it != counts_->end() ? it->second : CampaignCounts();
      out["bids"] = count.bids;
      out["wins"] = count.wins;
    }
    return out;
  }

 private:
  const int64_t now_ms_;
  const std::vector<pacing::CampaignPacingStatus> statuses_;
  const std::vector<pricing::CampaignPricingStatus> prices_;
  const std::optional<absl::flat_hash_map<std::string, CampaignCounts>> counts_;
  absl::flat_hash_map<std::string, const pacing::CampaignPacingStatus*> pacing_of_;
  absl::flat_hash_map<std::string, const pricing::CampaignPricingStatus*> pricing_of_;
};

// The stored campaigns in the worker's position order (the config's
// campaigns first, as before the table existed), then any the worker has not
// placed yet. `live` may be null.
std::vector<const campaigns::CampaignRecord*> InPositionOrder(
    const std::vector<campaigns::CampaignRecord>& records, const campaigns::LiveCampaigns* live) {
  std::vector<const campaigns::CampaignRecord*> ordered;
  absl::flat_hash_map<std::string, const campaigns::CampaignRecord*> record_of;
  for (const campaigns::CampaignRecord& record : records) record_of[record.id] = &record;
  if (live != nullptr) {
    for (const campaigns::LiveCampaign& campaign : live->by_position) {
      if (auto it = record_of.find(campaign.id); it != record_of.end()) {
        ordered.push_back(it->second);
        record_of.erase(it);
      }
    }
  }
  for (const campaigns::CampaignRecord& record : records) {
    if (record_of.contains(record.id)) ordered.push_back(&record);
  }
  return ordered;
}

}  // namespace

class AdminApi::Impl {
 public:
  explicit Impl(const Dependencies& deps)
      : config_(*deps.config),
        access_(*deps.access),
        pacer_(*deps.pacer),
        pricer_(deps.pricer),
        events_(*deps.events),
        eraser_(*deps.eraser),
        telemetry_(deps.telemetry),
        campaign_store_(deps.campaign_store),
        follower_(deps.follower),
        registry_(deps.registry),
        hasher_(deps.config->bid.device_key_secret),
        pool_(2) {}
  ~Impl() { pool_.join(); }

  void Register(HttpServer& server) {
    server.Route(http::verb::get, "/api/campaigns", Off(&Impl::GetCampaigns, kRead));
    if (campaign_store_ != nullptr) {
      const std::string prefix(kCampaignsPrefix);
      server.Route(http::verb::post, "/api/campaigns", OffAs(&Impl::CreateCampaign, kWrite));
      server.RoutePrefix(http::verb::get, prefix, Off(&Impl::GetCampaign, kRead));
      server.RoutePrefix(http::verb::put, prefix, OffAs(&Impl::ReplaceCampaign, kWrite));
      server.RoutePrefix(http::verb::patch, prefix, OffAs(&Impl::PatchCampaign, kWrite));
      server.RoutePrefix(http::verb::post, prefix, OffAs(&Impl::ChangeCampaignState, kWrite));
    }
    server.RoutePrefix(http::verb::get, std::string(kDevicesPrefix), Off(&Impl::GetDevice, kRead));
    server.RoutePrefix(http::verb::delete_, std::string(kDevicesPrefix),
                       Off(&Impl::EraseDevice, kErase));
    server.Route(http::verb::get, "/api/events", Off(&Impl::GetEventsOfType, kRead));
    if (telemetry_ != nullptr) {
      const Guard read = config_.telemetry.query_requires_login ? kRead : kOpen;
      server.Route(http::verb::post, "/api/put", Off(&Impl::TelemetryPut, kWrite));
      server.Route(http::verb::post, "/api/query", Off(&Impl::TelemetryQuery, read));
      server.Route(http::verb::post, "/api/suggest", Off(&Impl::TelemetrySuggest, read));
      server.Route(http::verb::get, "/api/suggest", Off(&Impl::TelemetrySuggest, read));
      server.Route(http::verb::post, "/api/search/lookup", Off(&Impl::TelemetryLookup, read));
      server.Route(http::verb::get, "/api/search/lookup", Off(&Impl::TelemetryLookup, read));
      server.Route(http::verb::get, "/api/aggregators", Off(&Impl::TelemetryAggregators, read));
    }
  }

 private:
  using Method = HttpResponse (Impl::*)(std::string_view path, const Query& query,
                                        std::string_view body);
  // A route that records who called it (audit): the session's operator.
  using OperatorMethod = HttpResponse (Impl::*)(const std::string& operator_name,
                                                std::string_view path, const Query& query,
                                                std::string_view body);

  // A handler that checks the caller's session as `guard` says, then runs
  // `method`, both on the API's threads (they block on storage), and answers
  // on the connection's executor.
  HttpHandler Off(Method method, Guard guard) {
    return [this, method, guard](const HttpRequest& request, Responder respond) {
      boost::asio::post(pool_, [this, method, guard, owned = OperatorRequest(request),
                                target = std::string(request.target), executor = request.executor,
                                respond = std::move(respond)]() mutable {
        HttpResponse response = Answer(method, guard, owned, target);
        boost::asio::post(executor,
                          [respond = std::move(respond), response = std::move(response)]() mutable {
                            respond(std::move(response));
                          });
      });
    };
  }

  HttpHandler OffAs(OperatorMethod method, Guard guard) {
    return [this, method, guard](const HttpRequest& request, Responder respond) {
      boost::asio::post(pool_, [this, method, guard, owned = OperatorRequest(request),
                                target = std::string(request.target), executor = request.executor,
                                respond = std::move(respond)]() mutable {
        HttpResponse response = AnswerAs(method, guard, owned, target);
        boost::asio::post(executor,
                          [respond = std::move(respond), response = std::move(response)]() mutable {
                            respond(std::move(response));
                          });
      });
    };
  }

  HttpResponse AnswerAs(OperatorMethod method, Guard guard, const OperatorRequest& request,
                        const std::string& target) {
    absl::StatusOr<sessions::AuthenticatedSession> session =
        access_.Authorize(request, guard.privilege, guard.changes_state);
    if (!session.ok()) return OperatorAccess::ErrorResponse(session.status());
    absl::StatusOr<Query> query = ParseQuery(target);
    if (!query.ok()) return Error(query.status());
    return (this->*method)(session->session.state.user, request.path, *query, request.body);
  }

  HttpResponse Answer(Method method, Guard guard, const OperatorRequest& request,
                      const std::string& target) {
    if (guard.session) {
      absl::StatusOr<sessions::AuthenticatedSession> session =
          access_.Authorize(request, guard.privilege, guard.changes_state);
      if (!session.ok()) return OperatorAccess::ErrorResponse(session.status());
    }
    absl::StatusOr<Query> query = ParseQuery(target);
    if (!query.ok()) return Error(query.status());
    return (this->*method)(request.path, *query, request.body);
  }

  // GET /api/campaigns[?state=active|paused|archived][&advertiser=<domain>]
  // Every campaign the pacing loop knows, with its pacing state ("state")
  // and, when the campaigns table is served, its stored state, version and
  // last change; the filters apply to the stored state and the advertiser
  // domains.
  HttpResponse GetCampaigns(std::string_view, const Query& query, std::string_view) {
    const int64_t now_ms = storage::SystemClock()->NowMillis();
    campaigns::CampaignFilter filter;
    if (std::optional<std::string> state = query.Get("state"); state.has_value()) {
      filter.state = campaigns::ParseCampaignState(*state);
      if (!filter.state.has_value()) {
        return Error(400, "state: must be active, paused or archived");
      }
    }
    filter.advertiser = query.Get("advertiser").value_or("");
    const CampaignActivity activity(pacer_, pricer_, registry_, now_ms);
    nlohmann::json list = nlohmann::json::array();
    if (campaign_store_ == nullptr) {
      for (const config::CampaignConfig& campaign : config_.campaigns) {
        list.push_back(activity.Describe(campaign.id, campaign));
      }
    } else {
      absl::StatusOr<std::vector<campaigns::CampaignRecord>> records =
          campaign_store_->List(filter);
      if (!records.ok()) return Error(503, std::string(records.status().message()));
      list = DescribeStoredCampaigns(*records, activity);
    }
    return Json(200, nlohmann::json{{"as_of_ms", now_ms}, {"campaigns", list}}.dump());
  }

  // Each stored campaign, in the worker's position order, with its stored
  // state, version and last change beside its activity.
  nlohmann::json DescribeStoredCampaigns(const std::vector<campaigns::CampaignRecord>& records,
                                         const CampaignActivity& activity) const {
    std::shared_ptr<const campaigns::LiveCampaigns> live =
        follower_ != nullptr ? follower_->current() : nullptr;
    absl::flat_hash_map<std::string, const config::CampaignConfig*> live_config;
    if (live != nullptr) {
      for (const campaigns::LiveCampaign& campaign : live->by_position) {
        live_config[campaign.id] = campaign.config.get();
      }
    }
    nlohmann::json list = nlohmann::json::array();
    for (const campaigns::CampaignRecord* record : InPositionOrder(records, live.get())) {
      nlohmann::json out;
      if (auto it = live_config.find(record->id); it != live_config.end()) {
        out = activity.Describe(record->id, *it->second);
      } else {
        out = activity.Describe(record->id, StoredConfig(*record));
      }
      out["campaign_state"] = campaigns::CampaignStateName(record->state);
      out["version"] = record->version;
      out["updated_ms"] = record->updated_ms;
      out["updated_by"] = record->updated_by;
      if (record->state != campaigns::CampaignState::kActive) out["state"] = "stopped";
      list.push_back(std::move(out));
    }
    return list;
  }

  // A campaign the worker has not placed yet (created or seeded a moment
  // ago) shows its stored budget, currency and pacing mode.
  config::CampaignConfig StoredConfig(const campaigns::CampaignRecord& record) const {
    if (absl::StatusOr<config::CampaignConfig> stored = config::ParseCampaign(record.json, config_);
        stored.ok()) {
      return *std::move(stored);
    }
    config::CampaignConfig fallback;
    fallback.id = record.id;
    return fallback;
  }

  // The campaign id and what follows it in /api/campaigns/{id}[/<action>].
  static std::pair<std::string, std::string> CampaignPath(std::string_view path) {
    std::string_view rest = path.substr(kCampaignsPrefix.size());
    const size_t slash = rest.find('/');
    std::string id;
    PercentDecode(rest.substr(0, slash), &id);
    return {id, slash == std::string_view::npos ? "" : std::string(rest.substr(slash + 1))};
  }

  // The current record after a failed change, for a 409's current version.
  HttpResponse CampaignChangeFailed(const absl::Status& status, const std::string& id) {
    std::optional<campaigns::CampaignRecord> current;
    if (status.code() == absl::StatusCode::kAborted) {
      if (auto got = campaign_store_->Get(id); got.ok() && got->has_value()) current = **got;
    }
    return CampaignError(status, current);
  }

  // GET /api/campaigns/{id}, GET /api/campaigns/{id}/audit?limit=N
  HttpResponse GetCampaign(std::string_view path, const Query& query, std::string_view) {
    const auto [id, action] = CampaignPath(path);
    if (action == "audit") {
      absl::StatusOr<int64_t> limit = IntParam(query, "limit", kDefaultLimit, 1, 10000);
      if (!limit.ok()) return Error(limit.status());
      absl::StatusOr<std::vector<campaigns::AuditEntry>> history =
          campaign_store_->History(id, static_cast<int>(*limit));
      if (!history.ok()) return Error(503, std::string(history.status().message()));
      nlohmann::json entries = nlohmann::json::array();
      for (const campaigns::AuditEntry& entry : *history) {
        auto parsed = [](const std::string& text) {
          if (text.empty()) return nlohmann::json();
          nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
          return value.is_discarded() ? nlohmann::json(text) : value;
        };
        entries.push_back({{"at_ms", entry.at_ms},
                           {"operator", entry.operator_name},
                           {"action", entry.action},
                           {"version", entry.version},
                           {"before", parsed(entry.before)},
                           {"after", parsed(entry.after)}});
      }
      return Json(200, nlohmann::json{{"id", id}, {"audit", entries}}.dump());
    }
    if (!action.empty()) return Error(404, "no such campaign resource");
    absl::StatusOr<std::optional<campaigns::CampaignRecord>> record = campaign_store_->Get(id);
    if (!record.ok()) return Error(503, std::string(record.status().message()));
    if (!record->has_value()) return Error(404, "no campaign " + id);
    return Json(200, RecordJson(**record).dump());
  }

  // POST /api/campaigns: the body is the campaign object.
  HttpResponse CreateCampaign(const std::string& operator_name, std::string_view, const Query&,
                              std::string_view body) {
    absl::StatusOr<campaigns::CampaignRecord> created =
        campaign_store_->Create(body, operator_name);
    if (!created.ok()) return CampaignError(created.status(), std::nullopt);
    return Json(201, RecordJson(*created).dump());
  }

  // The ?version=N every change names: the version the caller read.
  static absl::StatusOr<int64_t> ExpectedVersion(const Query& query) {
    if (!query.Get("version").has_value()) {
      return absl::InvalidArgumentError("version: the version you read is required (?version=N)");
    }
    return IntParam(query, "version", 0, 1, std::numeric_limits<int64_t>::max());
  }

  // PUT /api/campaigns/{id}?version=N: the whole object.
  HttpResponse ReplaceCampaign(const std::string& operator_name, std::string_view path,
                               const Query& query, std::string_view body) {
    return EditCampaign(&campaigns::CampaignStore::Update, operator_name, path, query, body);
  }

  // PATCH /api/campaigns/{id}?version=N: a JSON merge patch (RFC 7386).
  HttpResponse PatchCampaign(const std::string& operator_name, std::string_view path,
                             const Query& query, std::string_view body) {
    return EditCampaign(&campaigns::CampaignStore::Patch, operator_name, path, query, body);
  }

  using CampaignEdit = absl::StatusOr<campaigns::CampaignRecord> (campaigns::CampaignStore::*)(
      std::string_view, std::string_view, int64_t, std::string_view);
  HttpResponse EditCampaign(CampaignEdit edit, const std::string& operator_name,
                            std::string_view path, const Query& query, std::string_view body) {
    const auto [id, action] = CampaignPath(path);
    if (!action.empty()) return Error(404, "no such campaign resource");
    absl::StatusOr<int64_t> version = ExpectedVersion(query);
    if (!version.ok()) return Error(version.status());
    absl::StatusOr<campaigns::CampaignRecord> updated =
        (campaign_store_->*edit)(id, body, *version, operator_name);
    if (!updated.ok()) return CampaignChangeFailed(updated.status(), id);
    return Json(200, RecordJson(*updated).dump());
  }

  // POST /api/campaigns/{id}/pause|resume|archive?version=N
  HttpResponse ChangeCampaignState(const std::string& operator_name, std::string_view path,
                                   const Query& query, std::string_view) {
    const auto [id, action] = CampaignPath(path);
    campaigns::CampaignState state;
    if (action == "pause") {
      state = campaigns::CampaignState::kPaused;
    } else if (action == "resume") {
      state = campaigns::CampaignState::kActive;
    } else if (action == "archive") {
      state = campaigns::CampaignState::kArchived;
    } else {
      return Error(404, "no such campaign action (pause, resume, archive)");
    }
    absl::StatusOr<int64_t> version = ExpectedVersion(query);
    if (!version.ok()) return Error(version.status());
    absl::StatusOr<campaigns::CampaignRecord> changed =
        campaign_store_->SetState(id, state, *version, operator_name);
    if (!changed.ok()) return CampaignChangeFailed(changed.status(), id);
    return Json(200, RecordJson(*changed).dump());
  }

  // The device key of the {id} segment; its length is the raw id's.
  absl::StatusOr<std::string> DeviceKeyOf(std::string_view escaped_id) const {
    std::string id;
    if (!PercentDecode(escaped_id, &id)) return absl::InvalidArgumentError("malformed device id");
    if (IsKnownInvalidDeviceId(id)) {
      return absl::InvalidArgumentError("not a device id (empty, zeros or a placeholder)");
    }
    return std::string(hasher_.Hash(id).bytes());
  }

  // /api/devices/{id}/events and /api/devices/{id}/erasure
  HttpResponse GetDevice(std::string_view path, const Query& query, std::string_view) {
    std::string_view rest = path.substr(kDevicesPrefix.size());
    const size_t slash = rest.rfind('/');
    if (slash == std::string_view::npos || slash == 0) return Error(404, "no such resource");
    const std::string_view resource = rest.substr(slash + 1);
    absl::StatusOr<std::string> key = DeviceKeyOf(rest.substr(0, slash));
    if (!key.ok()) return Error(key.status());
    if (resource == "erasure") {
      absl::StatusOr<std::optional<events::ErasureStatus>> status = eraser_.Status(*key);
      if (!status.ok()) return Error(status.status());
      if (!status->has_value()) return Error(404, "this device was never erased");
      return Json(200, events::ErasureStatusJson(**status));
    }
    if (resource != "events") return Error(404, "no such resource");
    absl::StatusOr<int64_t> limit =
        IntParam(query, "limit", kDefaultLimit, 1, events::kMaxReadLimit);
    if (!limit.ok()) return Error(limit.status());
    const bool windowed = query.Get("from").has_value() || query.Get("to").has_value();
    absl::StatusOr<std::vector<events::Event>> found;
    if (windowed) {
      absl::StatusOr<int64_t> from =
          IntParam(query, "from", 0, 0, std::numeric_limits<int64_t>::max());
      absl::StatusOr<int64_t> to = IntParam(query, "to", std::numeric_limits<int64_t>::max(), 0,
                                            std::numeric_limits<int64_t>::max());
      if (!from.ok()) return Error(from.status());
      if (!to.ok()) return Error(to.status());
      found = events_.EventsInWindow(*key, *from, *to, static_cast<int>(*limit));
    } else {
      found = events_.LastEvents(*key, static_cast<int>(*limit));
    }
    if (!found.ok()) return Error(found.status());
    nlohmann::json out = nlohmann::json::array();
    for (const events::Event& e : *found) out.push_back(EventJson(e));
    return Json(200, nlohmann::json{{"events", out}}.dump());
  }

  // DELETE /api/devices/{id}
  HttpResponse EraseDevice(std::string_view path, const Query&, std::string_view) {
    const std::string_view id = path.substr(kDevicesPrefix.size());
    if (id.empty() || id.find('/') != std::string_view::npos) return Error(404, "no such resource");
    absl::StatusOr<std::string> key = DeviceKeyOf(id);
    if (!key.ok()) return Error(key.status());
    absl::StatusOr<events::ErasureStatus> status = eraser_.Erase(*key);
    if (!status.ok()) return Error(status.status());
    return Json(202, events::ErasureStatusJson(*status));
  }

  // GET /api/events
  HttpResponse GetEventsOfType(std::string_view, const Query& query, std::string_view) {
    std::optional<std::string> type_name = query.Get("type");
    if (!type_name.has_value()) return Error(400, "type: required");
    std::optional<events::EventType> type = events::ParseEventType(*type_name);
    if (!type.has_value()) return Error(400, "type: not an event type");
    if (!query.Get("from").has_value() || !query.Get("to").has_value()) {
      return Error(400, "from and to (ms since the epoch) are required");
    }
    absl::StatusOr<int64_t> from =
        IntParam(query, "from", 0, 0, std::numeric_limits<int64_t>::max());
    absl::StatusOr<int64_t> to = IntParam(query, "to", 0, 0, std::numeric_limits<int64_t>::max());
    absl::StatusOr<int64_t> limit =
        IntParam(query, "limit", kDefaultLimit, 1, events::kMaxReadLimit);
    for (const auto* p : {&from, &to, &limit}) {
      if (!p->ok()) return Error(p->status());
    }
    absl::StatusOr<std::vector<events::Event>> found =
        events_.EventsOfType(*type, *from, *to, static_cast<int>(*limit));
    if (!found.ok()) return Error(found.status());
    nlohmann::json out = nlohmann::json::array();
    for (const events::Event& e : *found) out.push_back(EventJson(e));
    return Json(200, nlohmann::json{{"events", out}}.dump());
  }

  // OpenTSDB's status codes for a handler's answer (bidder/telemetry/opentsdb.h).
  static HttpResponse TelemetryAnswer(const absl::StatusOr<std::string>& answer) {
    if (answer.ok()) return Json(200, *answer);
    const std::string message(answer.status().message());
    switch (answer.status().code()) {
      case absl::StatusCode::kInvalidArgument:
        // /api/put answers its JSON summary as the message.
        return message.starts_with("{") ? Json(400, message) : Error(400, message);
      case absl::StatusCode::kNotFound:
        return Error(400, message);
      case absl::StatusCode::kResourceExhausted:
        return Error(413, message);
      default:
        return Error(500, message);
    }
  }

  HttpResponse TelemetryPut(std::string_view, const Query&, std::string_view body) {
    return TelemetryAnswer(telemetry::HandlePut(*telemetry_, body));
  }
  HttpResponse TelemetryQuery(std::string_view, const Query&, std::string_view body) {
    return TelemetryAnswer(telemetry::HandleQuery(*telemetry_, body));
  }
  HttpResponse TelemetrySuggest(std::string_view, const Query& query, std::string_view body) {
    if (!body.empty()) return TelemetryAnswer(telemetry::HandleSuggest(*telemetry_, body));
    nlohmann::json request = nlohmann::json::object();
    for (const char* key : {"type", "q"}) {
      if (std::optional<std::string> v = query.Get(key)) request[key] = *v;
    }
    if (std::optional<std::string> max = query.Get("max")) {
      int64_t n = 0;
      if (!absl::SimpleAtoi(*max, &n)) return Error(400, "max: not an integer");
      request["max"] = n;
    }
    return TelemetryAnswer(telemetry::HandleSuggest(*telemetry_, request.dump()));
  }

  HttpResponse TelemetryLookup(std::string_view, const Query& query, std::string_view body) {
    if (!body.empty()) return TelemetryAnswer(telemetry::HandleLookup(*telemetry_, body));
    std::optional<std::string> m = query.Get("m");
    if (!m) return Error(400, "/api/search/lookup: m is required");
    std::optional<std::string> limit = query.Get("limit");
    return TelemetryAnswer(telemetry::HandleLookupQueryString(
        *telemetry_, *m, limit ? std::optional<std::string_view>(*limit) : std::nullopt));
  }
  HttpResponse TelemetryAggregators(std::string_view, const Query&, std::string_view) {
    return Json(200, telemetry::AggregatorsJson());
  }

  const config::BidderConfig& config_;
  OperatorAccess& access_;
  const pacing::Pacer& pacer_;
  const pricing::Pricer* pricer_;
  events::EventStore& events_;
  events::DeviceEraser& eraser_;
  telemetry::Telemetry* telemetry_;
  campaigns::CampaignStore* campaign_store_;
  const campaigns::CampaignFollower* follower_;
  const prometheus::Registry* registry_;
  DeviceKeyHasher hasher_;
  boost::asio::thread_pool pool_;
};

AdminApi::AdminApi(const Dependencies& deps) : impl_(std::make_unique<Impl>(deps)) {}
AdminApi::~AdminApi() = default;

void AdminApi::Register(HttpServer& server) { impl_->Register(server); }

}  // namespace rtb::bidder
