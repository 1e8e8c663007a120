#include "bidder/bid/bid_handler.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bidder/bid/internal/bid_contents.h"
#include "bidder/bid/internal/recycling_allocator.h"
#include "bidder/bid/internal/response_scratch.h"
#include "bidder/events/events.h"
#include "bidder/http/gzip_response.h"
#include "boost/asio/steady_timer.hpp"
#include "storage/key_bytes.h"
#include "storage/schemas.h"

namespace rtb::bidder {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr std::string_view kJson = "application/json";

// The reads of step 6, as bits of PendingBid::reads_sent and reads_done.
constexpr unsigned kProfileRead = 1;
constexpr unsigned kHistoryRead = 2;
constexpr unsigned kCapRead = 4;  // all of the cap-only keys' reads

// Bid response ids: unique, not secret. 128 random bits per response from a
// per-thread generator seeded from the OS, appended to `*id` in hex.
void AppendResponseId(std::string* id) {
  thread_local std::mt19937_64 generator = [] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }();
  const uint64_t bits[2] = {generator(), generator()};
  storage::AppendHex(std::string_view(reinterpret_cast<const char*>(bits), sizeof(bits)), id);
}

std::string_view HeaderValue(const HttpHeaders* headers, std::string_view name) {
  if (headers == nullptr) return {};
  auto it = headers->find(boost::beast::string_view(name.data(), name.size()));
  if (it == headers->end()) return {};
  return std::string_view(it->value().data(), it->value().size());
}

BidOutcome NoBidOutcome(const AuctionResult& result) {
  if (result.no_currency) return BidOutcome::kNoBidCurrency;
  switch (result.rejection) {
    case Rejection::kNone:
      return BidOutcome::kNoBidNoCandidates;
    case Rejection::kInsecure:
      return BidOutcome::kNoBidInsecure;
    case Rejection::kSchedule:
      return BidOutcome::kNoBidSchedule;
    case Rejection::kSeat:
      return BidOutcome::kNoBidSeat;
    case Rejection::kBlocked:
      return BidOutcome::kNoBidBlocked;
    case Rejection::kTargeting:
      return BidOutcome::kNoBidTargeting;
    case Rejection::kSegments:
      return BidOutcome::kNoBidSegments;
    case Rejection::kDsa:
      return BidOutcome::kNoBidDsa;
    case Rejection::kCreative:
      return BidOutcome::kNoBidCreative;
    case Rejection::kFloor:
      return BidOutcome::kNoBidFloor;
    case Rejection::kStoreOutage:
      return BidOutcome::kNoBidStoreOutage;
    case Rejection::kFrequencyCap:
      return BidOutcome::kNoBidFrequencyCap;
    case Rejection::kPacing:
      return BidOutcome::kNoBidPacing;
  }
  return BidOutcome::kNoBidError;
}

// A bid's bidder_dsa_decisions_total outcome. `dsarequired` read as
// bidder/privacy/dsa.h does: absent or 0 not required, 1 supported, anything
// else required.
DsaOutcome DsaOutcomeOf(std::optional<int> dsarequired, bool attached) {
  const int required = dsarequired.value_or(0);
  if (required == 0) return DsaOutcome::kNotRequired;
  if (required == 1) {
    return attached ? DsaOutcome::kSupportedAndSupplied : DsaOutcome::kSupportedNotSupplied;
  }
  return DsaOutcome::kRequiredAndSupplied;
}

// The 400 of a request that does not parse: the parser's message and
// OpenRTB's no-bid reason for an invalid request.
HttpResponse InvalidRequest(const absl::Status& parsed) {
  HttpResponse response;
  response.status = 400;
  response.content_type = std::string(kJson);
  response.body = "{\"error\":";
  openrtb::AppendJsonString(std::string_view(parsed.message().data(), parsed.message().size()),
                            &response.body);
  absl::StrAppend(&response.body,
                  ",\"nbr\":", static_cast<int>(openrtb::NoBidReason::kInvalidRequest), "}");
  return response;
}

// The campaign's `ext.dsa` on `bid`, when the auction attached it.
void AttachDsa(const Campaign& campaign, const ImpBid& win, openrtb::Bid* bid) {
  if (!win.dsa.attach || !campaign.dsa.has_value()) return;
  openrtb::BidDsa& dsa = bid->dsa.emplace();
  dsa.behalf = campaign.dsa->behalf;
  dsa.paid = campaign.dsa->paid;
  dsa.adrender = win.dsa.adrender;
  if (!win.dsa.send_transparency) return;
  for (const config::DsaTransparencyConfig& t : campaign.dsa->transparency) {
    openrtb::DsaTransparency& entry = dsa.transparency.emplace_back();
    entry.domain = t.domain;
    entry.dsaparams.assign(t.dsaparams.begin(), t.dsaparams.end());
  }
}

// Reads `get` on `profiles` and hands the answer to `done`, once: at once
// when the store has the row at hand (most, from the embedded store's row
// cache), without the turn of the I/O loop AsyncGet's callback costs;
// otherwise through AsyncGet, bounded by `deadline`.
template <typename Done>
void ReadProfileRow(storage::Store& store, const storage::Get& get, storage::Deadline deadline,
                    const boost::asio::any_io_executor& executor, Done done) {
  if (std::optional<storage::RowResult> ready =
          store.GetWithoutWaiting(storage::kProfilesTable, get)) {
    return done(*std::move(ready));
  }
  store.AsyncGet(storage::kProfilesTable, get, deadline, executor, std::move(done));
}

}  // namespace

struct BidHandler::ExchangeContext {
  size_t index = 0;
  config::ExchangeConfig config;
  DeadlinePolicy deadlines;
  // What a request without an x-openrtb-version header is taken to be.
  openrtb::OpenRtbVersion configured_version = openrtb::OpenRtbVersion::k2_6;
  ExchangeBeaconBases beacon_bases;
};

// One request in flight, shared by the lookup's completion and its guard.
struct BidHandler::PendingBid {
  const ExchangeContext* exchange = nullptr;
  SteadyClock::time_point arrival;
  BidDeadline deadline;
  boost::asio::any_io_executor executor;
  Responder respond;
  // The index this request started with, kept until it has answered (the
  // auction's results point into it).
  std::shared_ptr<const LiveIndex> campaigns;
  openrtb::BidRequest request;
  openrtb::OpenRtbVersion version = openrtb::OpenRtbVersion::k2_5;
  // The answer goes gzip-compressed (the exchange's switch, and the
  // request's Accept-Encoding allows it).
  bool gzip = false;
  // What the request's privacy signals let this bid do, and the decision's
  // labels.
  RequestPermissions permissions;
  privacy::PrivacyRegime privacy_regime = privacy::PrivacyRegime::kNone;
  privacy::PrivacyOutcome privacy_outcome = privacy::PrivacyOutcome::kNotApplicable;
  DeviceIdentity identity;
  // The reads of step 6 (kProfileRead, kHistoryRead) sent, and those
  // answered: each completion writes its own result below, then sets its
  // bit; the one that completes `reads_sent`, or the guard, settles.
  unsigned reads_sent = 0;
  std::atomic<unsigned> reads_done{0};
  std::optional<absl::StatusOr<storage::RowResult>> profile;
  // The cap-only reads (RequestPermissions::frequency_cap_keys): one Get per
  // capped candidate, of its count's column; each completion writes its own
  // slot, and the last to answer completes kCapRead.
  std::vector<std::string> cap_columns;
  std::vector<std::optional<absl::StatusOr<storage::RowResult>>> caps;
  std::atomic<size_t> caps_pending{0};
  LookupOutcome history_outcome = LookupOutcome::kSkipped;
  pricing::DeviceHistory history;
  // Set by whichever settles first.
  std::atomic<bool> settled{false};
  // Only for a store that does not keep its deadlines itself.
  std::optional<boost::asio::steady_timer> guard;
};

absl::StatusOr<std::unique_ptr<BidHandler>> BidHandler::Create(Dependencies deps) {
  if (deps.config == nullptr || deps.store == nullptr || deps.pacing == nullptr ||
      deps.metrics == nullptr) {
    return absl::InvalidArgumentError("BidHandler needs a config, a store, pacing and metrics");
  }
  if (deps.wall_clock == nullptr) deps.wall_clock = storage::SystemClock();
  const config::BidConfig& bid = deps.config->bid;
  absl::StatusOr<CurrencyTable> currencies = CurrencyTable::Create(bid.currency_rates);
  if (!currencies.ok()) return currencies.status();
  if (!currencies->Has(bid.default_currency)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bid.default_currency ", bid.default_currency, " has no rate"));
  }
  absl::StatusOr<CampaignIndex> index =
      CampaignIndex::Build(deps.config->campaigns, bid.default_currency, *currencies);
  if (!index.ok()) return index.status();
  return std::unique_ptr<BidHandler>(
      new BidHandler(std::move(deps), *std::move(currencies), *std::move(index)));
}

BidHandler::BidHandler(Dependencies deps, CurrencyTable currencies, CampaignIndex index)
    : deps_(std::move(deps)),
      currencies_(std::move(currencies)),
      live_(std::make_shared<const LiveIndex>(std::move(index), currencies_, *deps_.pacing,
                                              deps_.pricer)),
      device_keys_(deps_.config->bid.device_key_secret),
      beacons_(deps_.config->bid.beacon_secret) {
  const config::BidConfig& bid = deps_.config->bid;
  key_policy_.skip_lookup_on_lmt = bid.skip_lookup_on_lmt;
  key_policy_.skip_lookup_on_dnt = bid.skip_lookup_on_dnt;
  key_policy_.coppa_contextual = bid.coppa_policy == config::CoppaPolicy::kContextual;
  const auto& exchanges = deps_.config->server.exchanges;
  exchanges_.resize(exchanges.size());
  for (size_t i = 0; i < exchanges.size(); ++i) {
    ExchangeContext& context = exchanges_[i];
    context.index = i;
    context.config = exchanges[i];
    context.deadlines.default_tmax_ms = exchanges[i].default_tmax_ms;
    context.deadlines.network_allowance_ms = exchanges[i].network_allowance_ms;
    context.deadlines.auction_budget_us = bid.auction_budget_us;
    context.configured_version = exchanges[i].openrtb_version == "2.5"
                                     ? openrtb::OpenRtbVersion::k2_5
                                     : openrtb::OpenRtbVersion::k2_6;
    context.beacon_bases = BeaconBasesOf(*deps_.config, exchanges[i]);
  }
}

BidHandler::~BidHandler() = default;

std::vector<std::string> BidHandler::SetCampaigns(
    const std::vector<config::CampaignConfig>& by_position) {
  std::vector<std::string> refused;
  absl::StatusOr<CampaignIndex> index =
      CampaignIndex::Build(by_position, deps_.config->bid.default_currency, currencies_, &refused);
  if (!index.ok()) return {std::string(index.status().message())};
  live_.store(std::make_shared<const LiveIndex>(*std::move(index), currencies_, *deps_.pacing,
                                                deps_.pricer));
  return refused;
}

std::shared_ptr<const CampaignIndex> BidHandler::campaigns() const {
  std::shared_ptr<const LiveIndex> live = live_.load();
  return std::shared_ptr<const CampaignIndex>(live, &live->index);
}

absl::StatusOr<HttpHandler> BidHandler::ForExchange(const config::ExchangeConfig& exchange) {
  for (const ExchangeContext& context : exchanges_) {
    if (context.config.name == exchange.name) {
      const size_t index = context.index;
      return HttpHandler([this, index](const HttpRequest& request, Responder respond) {
        Handle(index, request, std::move(respond));
      });
    }
  }
  return absl::NotFoundError(
      absl::StrCat("exchange ", exchange.name, " is not in server.exchanges"));
}

void BidHandler::Handle(size_t exchange, const HttpRequest& http, Responder respond) {
  auto pending = std::allocate_shared<PendingBid>(internal::RecyclingAllocator<PendingBid>());
  pending->exchange = &exchanges_[exchange];
  pending->arrival = http.arrival;
  pending->executor = http.executor;
  pending->respond = std::move(respond);
  pending->campaigns = live_.load();

  // 1. Parse.
  thread_local openrtb::BidRequestParser parser;
  if (absl::Status parsed = parser.Parse(http.body, &pending->request); !parsed.ok()) {
    return Finish(*pending, BidOutcome::kInvalid, InvalidRequest(parsed));
  }
  const openrtb::BidRequest& request = pending->request;
  deps_.metrics->CountIgnored(pending->exchange->index, request.ignored,
                              !RequestTaxonomy::Of(request).is_known());
  pending->version = openrtb::ResponseOpenRtbVersion(HeaderValue(http.headers, "x-openrtb-version"),
                                                     pending->exchange->configured_version);
  pending->gzip = pending->exchange->config.gzip_responses &&
                  AcceptsGzip(HeaderValue(http.headers, "accept-encoding"));

  // 2. Privacy: what the request's signals let this bid do.
  ApplyPrivacy(*pending);

  // 3. Deadlines.
  pending->deadline = ComputeBidDeadline(http.arrival, request.tmax, pending->exchange->deadlines);
  const SteadyClock::time_point now = SteadyClock::now();
  if (pending->deadline.Expired(now)) {
    return Finish(*pending, BidOutcome::kNoBidExpired, NoBid(*pending));
  }

  // 4. Policies and what could bid at all.
  if (deps_.config->bid.coppa_policy == config::CoppaPolicy::kNoBid && request.regs.has_value() &&
      request.regs->coppa.value_or(false)) {
    return Finish(*pending, BidOutcome::kNoBidCoppa, NoBid(*pending));
  }
  // The capped candidates are listed only for a bid whose caps live under
  // cap-only keys (a read per campaign).
  thread_local std::vector<size_t> capped;
  const AuctionPreview preview = pending->campaigns->auction.Preview(
      request, pending->exchange->beacon_bases.serves_secure(),
      pending->permissions.frequency_cap_keys ? &capped : nullptr);
  if (const std::optional<BidOutcome> refused = RefuseBeforeLookup(*pending, preview)) {
    return Finish(*pending, *refused, NoBid(*pending));
  }

  // 5. Device key and what to read.
  const DeviceReads reads = PlanDeviceReads(*pending, preview, !capped.empty(), now);
  if (!reads.any()) return Decide(*pending, nullptr, StoreUnhealthy(), {});

  // 6. The reads.
  if (reads.caps) ListCapColumns(*pending, capped);
  ReadDevice(std::move(pending), reads.profile, reads.history);
}

void BidHandler::ApplyPrivacy(PendingBid& pending) {
  // Decided once and counted for every valid request
  // (bidder/bid/internal/request_privacy.h).
  const privacy::PrivacyDecision decision =
      privacy::DecidePrivacy(SignalsOf(pending.request), deps_.config->privacy);
  deps_.metrics->CountPrivacyDecision(decision.regime, decision.outcome);
  if (decision.unused_malformed_gpp) {
    deps_.metrics->CountUnusedMalformedGpp(pending.exchange->index);
  }
  pending.privacy_regime = decision.regime;
  pending.privacy_outcome = decision.outcome;
  pending.permissions = PermissionsOf(decision);
  if (!pending.permissions.precise_geo) DropPreciseGeo(&pending.request);
}

std::optional<BidOutcome> BidHandler::RefuseBeforeLookup(const PendingBid& pending,
                                                         const AuctionPreview& preview) {
  if (!preview.currency_acceptable) return BidOutcome::kNoBidCurrency;
  if (!preview.any_candidates) {
    return preview.insecure_skipped ? BidOutcome::kNoBidInsecure : BidOutcome::kNoBidNoCandidates;
  }
  // A privacy no-bid only counts where some campaign could have bid, with
  // its reason where the no-bids are counted.
  if (!pending.permissions.bid) {
    deps_.metrics->CountPrivacyNoBid(pending.privacy_regime, pending.privacy_outcome);
    return BidOutcome::kNoBidPrivacy;
  }
  return std::nullopt;
}

BidHandler::DeviceReads BidHandler::PlanDeviceReads(PendingBid& pending,
                                                    const AuctionPreview& preview, bool any_capped,
                                                    std::chrono::steady_clock::time_point now) {
  // The device key, unless privacy allows neither the lookup, nor the key in
  // beacon URLs, nor cap-only keys.
  const RequestPermissions& permissions = pending.permissions;
  if (permissions.needs_device_key()) {
    pending.identity = ResolveDeviceIdentity(pending.request, key_policy_, device_keys_);
  } else {
    pending.identity.skip = LookupSkipReason::kPrivacy;
  }
  DeviceReads reads;
  reads.profile =
      preview.needs_profile && ((preview.needs_segments && permissions.read_segments) ||
                                (preview.needs_frequency_caps && permissions.read_frequency_caps));
  // The history is read for cpc and cpa candidates only, with the same
  // permission as segments (a device's engagement personalises the price).
  reads.history = preview.needs_history && permissions.read_history &&
                  deps_.config->pricing.device_history_days > 0;
  // Under cap-only keys the caps are read apart from the profile (which is
  // then not read for them).
  reads.caps = permissions.frequency_cap_keys && any_capped;
  const bool can_read = pending.identity.key.has_value() && pending.deadline.LookupPossible(now);
  if (preview.needs_profile && !((reads.profile || reads.caps) && can_read)) {
    deps_.metrics->CountLookup(pending.exchange->index, LookupOutcome::kSkipped);
  }
  if (preview.needs_history && !(reads.history && can_read)) {
    deps_.metrics->CountHistoryRead(LookupOutcome::kSkipped);
  }
  if (!can_read) reads = DeviceReads{};
  return reads;
}

void BidHandler::ListCapColumns(PendingBid& pending, const std::vector<size_t>& capped) {
  // Each capped candidate's count of today (in its own zone) under its
  // cap-only key.
  const absl::Time today = absl::FromUnixMillis(deps_.wall_clock->NowMillis());
  const CampaignIndex& index = pending.campaigns->index;
  pending.cap_columns.reserve(capped.size());
  for (size_t position : capped) {
    const Campaign& campaign = index.campaign(position);
    pending.cap_columns.push_back(
        FrequencyCapQualifier(campaign.id, today, campaign.frequency_cap.zone()));
  }
}

void BidHandler::ReadDevice(std::shared_ptr<PendingBid> pending, bool read_profile,
                            bool read_history) {
  const bool read_caps = !pending->cap_columns.empty();
  pending->reads_sent = (read_profile ? kProfileRead : 0u) | (read_history ? kHistoryRead : 0u) |
                        (read_caps ? kCapRead : 0u);
  // One timer per request at most: a store that keeps its deadline has its
  // own (the embedded one's only for reads that go to its pool).
  if (!deps_.store->KeepsAsyncDeadlines()) {
    pending->guard.emplace(pending->executor);
    pending->guard->expires_at(pending->deadline.lookup);
    pending->guard->async_wait([this, pending](const boost::system::error_code& error) {
      if (error || pending->settled.exchange(true)) return;
      SettleReads(*pending, pending->reads_done.load(std::memory_order_acquire));
    });
  }
  if (read_profile) SendProfileGet(pending);
  if (read_caps) SendCapGets(pending);
  if (read_history) SendHistoryScan(pending);
}

void BidHandler::CompleteRead(PendingBid& bid, unsigned read) {
  const unsigned done = bid.reads_done.fetch_or(read, std::memory_order_acq_rel) | read;
  if (done != bid.reads_sent || bid.settled.exchange(true)) return;
  if (bid.guard.has_value()) bid.guard->cancel();
  SettleReads(bid, done);
}

void BidHandler::SendProfileGet(const std::shared_ptr<PendingBid>& pending) {
  // The thread's read, refilled (its row and column list keep their memory):
  // only the rare read that has to wait is copied out. Nothing but the row,
  // the columns and the consistency is ever set, so the rest keeps its
  // defaults.
  thread_local storage::Get get;
  get.row.assign(pending->identity.key->bytes());
  get.columns.clear();
  // Only the families the request's privacy signals allow are read.
  if (pending->permissions.read_segments) {
    get.columns.push_back({std::string(storage::kProfileSegmentFamily), std::nullopt});
  }
  if (pending->permissions.read_frequency_caps) {
    get.columns.push_back({std::string(storage::kProfileFrequencyCapFamily), std::nullopt});
  }
  get.consistency = storage::Consistency::kTimeline;
  ReadProfileRow(*deps_.store, get, pending->deadline.lookup, pending->executor,
                 [this, pending](absl::StatusOr<storage::RowResult> row) {
                   pending->profile.emplace(std::move(row));
                   CompleteRead(*pending, kProfileRead);
                 });
}

void BidHandler::SendCapGets(const std::shared_ptr<PendingBid>& pending) {
  const size_t count = pending->cap_columns.size();
  pending->caps.resize(count);
  pending->caps_pending.store(count, std::memory_order_relaxed);
  for (size_t i = 0; i < count; ++i) {
    storage::Get get;
    get.row = std::string(
        device_keys_.FrequencyCapKey(*pending->identity.key, pending->cap_columns[i]).bytes());
    get.columns.push_back(
        {std::string(storage::kProfileFrequencyCapFamily), pending->cap_columns[i]});
    get.consistency = storage::Consistency::kTimeline;
    ReadProfileRow(*deps_.store, get, pending->deadline.lookup, pending->executor,
                   [this, pending, i](absl::StatusOr<storage::RowResult> row) {
                     pending->caps[i].emplace(std::move(row));
                     if (pending->caps_pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                       CompleteRead(*pending, kCapRead);
                     }
                   });
  }
}

void BidHandler::SendHistoryScan(const std::shared_ptr<PendingBid>& pending) {
  // Today and the pricing.device_history_days - 1 UTC days before it.
  const int64_t now_ms = deps_.wall_clock->NowMillis();
  constexpr int64_t kDayMs = 24LL * 3600 * 1000;
  const int64_t today_ms = now_ms - now_ms % kDayMs;
  absl::StatusOr<storage::Scan> scan = events::DailyCountsScan(
      pending->identity.key->bytes(),
      std::max<int64_t>(0, today_ms - (deps_.config->pricing.device_history_days - 1) * kDayMs),
      today_ms + kDayMs);
  if (!scan.ok()) {
    pending->history_outcome = LookupOutcome::kError;
    return CompleteRead(*pending, kHistoryRead);
  }
  scan->consistency = storage::Consistency::kTimeline;
  deps_.store->AsyncScan(
      storage::kEventRollupsTable, *std::move(scan), pending->deadline.lookup, pending->executor,
      [this, pending](absl::StatusOr<std::vector<storage::RowResult>> rows) {
        if (!rows.ok()) {
          pending->history_outcome = rows.status().code() == absl::StatusCode::kDeadlineExceeded
                                         ? LookupOutcome::kTimeout
                                         : LookupOutcome::kError;
        } else {
          const events::EngagementTotals totals = events::SumEngagement(*rows);
          pending->history = {totals.impressions, totals.clicks, totals.conversions};
          const bool stale = std::any_of(rows->begin(), rows->end(),
                                         [](const storage::RowResult& r) { return r.stale; });
          pending->history_outcome = stale           ? LookupOutcome::kStale
                                     : rows->empty() ? LookupOutcome::kMiss
                                                     : LookupOutcome::kHit;
        }
        CompleteRead(*pending, kHistoryRead);
      });
}

void BidHandler::SettleReads(PendingBid& pending, unsigned done) {
  const storage::RowResult* row = nullptr;
  bool profile_unavailable = StoreUnhealthy();
  if (pending.reads_sent & kProfileRead) {
    LookupOutcome outcome = LookupOutcome::kTimeout;
    profile_unavailable = true;
    if (done & kProfileRead) {
      const absl::StatusOr<storage::RowResult>& read = *pending.profile;
      if (!read.ok()) {
        outcome = read.status().code() == absl::StatusCode::kDeadlineExceeded
                      ? LookupOutcome::kTimeout
                      : LookupOutcome::kError;
      } else {
        outcome = read->stale     ? LookupOutcome::kStale
                  : read->empty() ? LookupOutcome::kMiss
                                  : LookupOutcome::kHit;
        row = &*read;
        profile_unavailable = false;
      }
    }
    deps_.metrics->CountLookup(pending.exchange->index, outcome);
  }
  // The counts read under cap-only keys, as the `fc` cells of the profile,
  // in storage order: before the profile's own cells if it was read for its
  // segments ("fc" < "seg"; it was not read for its caps, which cap-only
  // keys replace).
  static_assert(storage::kProfileFrequencyCapFamily < storage::kProfileSegmentFamily);
  storage::RowResult with_caps;
  if (pending.reads_sent & kCapRead) {
    LookupOutcome outcome = LookupOutcome::kTimeout;
    bool failed = !(done & kCapRead);
    if (!failed) {
      outcome = LookupOutcome::kMiss;
      std::vector<storage::Cell> counts;
      for (size_t i = 0; i < pending.caps.size() && !failed; ++i) {
        const absl::StatusOr<storage::RowResult>& read = *pending.caps[i];
        if (!read.ok()) {
          failed = true;
          outcome = read.status().code() == absl::StatusCode::kDeadlineExceeded
                        ? LookupOutcome::kTimeout
                        : LookupOutcome::kError;
          break;
        }
        if (read->stale) outcome = LookupOutcome::kStale;
        const std::string& column = pending.cap_columns[i];
        if (std::optional<std::string_view> value =
                read->Value(storage::kProfileFrequencyCapFamily, column)) {
          if (outcome == LookupOutcome::kMiss) outcome = LookupOutcome::kHit;
          counts.emplace_back(storage::kProfileFrequencyCapFamily, column, 0, *value);
        }
      }
      if (!failed && !counts.empty()) {
        std::sort(counts.begin(), counts.end(), [](const storage::Cell& a, const storage::Cell& b) {
          return a.qualifier < b.qualifier;
        });
        for (storage::Cell& cell : counts) with_caps.cells.push_back(std::move(cell));
        if (row != nullptr) with_caps.cells.AppendShared(row->cells);
        row = &with_caps;
      }
    }
    // A count that could not be read leaves the caps unknown, as a profile
    // that could not be read: each campaign's store_outage_policy decides.
    if (failed) profile_unavailable = true;
    // Not counted again when the profile read already counted this request.
    if (!(pending.reads_sent & kProfileRead)) {
      deps_.metrics->CountLookup(pending.exchange->index, outcome);
    }
  }
  pricing::DeviceHistory history;
  if (pending.reads_sent & kHistoryRead) {
    deps_.metrics->CountHistoryRead((done & kHistoryRead) ? pending.history_outcome
                                                          : LookupOutcome::kTimeout);
    if (done & kHistoryRead) history = pending.history;
  }
  Decide(pending, row, profile_unavailable, history);
}

bool BidHandler::StoreUnhealthy() const { return deps_.store_healthy && !deps_.store_healthy(); }

void BidHandler::Decide(PendingBid& pending, const storage::RowResult* row,
                        bool profile_unavailable, const pricing::DeviceHistory& history) {
  const Profile profile = row != nullptr ? Profile(*row) : Profile();
  AuctionInput input;
  input.request = &pending.request;
  input.profile = &profile;
  input.now = absl::FromUnixMillis(deps_.wall_clock->NowMillis());
  input.exchange_seat = pending.exchange->config.seat;
  input.profile_unavailable = profile_unavailable;
  input.history = history;
  input.exchange = pending.exchange->index;
  input.secure_beacons = pending.exchange->beacon_bases.serves_secure();
  thread_local AuctionResult result;
  pending.campaigns->auction.Run(input, &result);
  for (const auto& [campaign, withheld] : result.outage_decisions) {
    deps_.metrics->CountStoreOutageDecision(campaign, withheld);
  }
  deps_.metrics->CountDsa(DsaOutcome::kRequiredMissingCampaignSkipped, result.dsa_skipped);

  if (result.bids.empty()) return Finish(pending, NoBidOutcome(result), NoBid(pending));

  HttpResponse response;
  response.status = 200;
  response.content_type = std::string(kJson);
  response.body = RecycledResponseBody();
  if (!WriteResponse(pending, result, absl::ToUnixMillis(input.now), &response.body)) {
    return Finish(pending, BidOutcome::kNoBidError, NoBid(pending));
  }
  if (pending.gzip) {
    // Sent as written when compression fails: the exchange asked for gzip
    // but did not refuse the identity coding.
    if (GzipInPlace(&response.body).ok()) {
      response.headers.emplace_back("content-encoding", "gzip");
    }
  }

  const SteadyClock::time_point written = SteadyClock::now();
  if (pending.deadline.Expired(written)) {
    return Finish(pending, BidOutcome::kLate, NoBid(pending), written);
  }
  const std::optional<int> dsarequired =
      pending.request.regs.has_value() && pending.request.regs->dsa.has_value()
          ? pending.request.regs->dsa->dsarequired
          : std::optional<int>(0);
  for (const ImpBid& bid : result.bids) {
    deps_.metrics->CountDsa(DsaOutcomeOf(dsarequired, bid.dsa.attach));
    const double price = currencies_
                             .Convert(bid.price, PackCurrencyCode(result.currency),
                                      PackCurrencyCode(deps_.config->bid.default_currency))
                             .value_or(0);
    deps_.metrics->CountBid(pending.exchange->index, bid.campaign->index, price);
    if (deps_.pricer != nullptr) {
      deps_.pricer->CountBid(bid.campaign->index, bid.shade, {bid.price, bid.outcome});
    }
  }
  response.headers.emplace_back("x-openrtb-version",
                                std::string(openrtb::ToString(pending.version)));
  Finish(pending, BidOutcome::kBid, std::move(response), written);
}

bool BidHandler::WriteResponse(const PendingBid& pending, const AuctionResult& result,
                               int64_t bid_time_ms, std::string* body) {
  const openrtb::BidRequest& request = pending.request;
  thread_local internal::ResponseScratch scratch;
  openrtb::BidResponse& response = scratch.Start();
  response.id = request.id;
  response.bidid.clear();
  AppendResponseId(&response.bidid);
  response.cur = result.currency;
  response.version = pending.version;
  response.strict_2_5 = pending.exchange->config.strict_openrtb_2_5;
  const RequestTaxonomy taxonomy = RequestTaxonomy::Of(request);
  // Scratch kept by the thread: each is rewritten per request.
  thread_local std::string device_key;
  thread_local std::string cap_key;
  thread_local std::string click_url;
  thread_local std::string impression_url;
  device_key.clear();
  if (pending.permissions.device_key && pending.identity.key.has_value()) {
    storage::AppendHex(pending.identity.key->bytes(), &device_key);
  }
  // The beacons' bases: the plain one, and for secure impressions the secure
  // one (the auction bids on none without it).
  thread_local std::string base_url;
  thread_local std::string secure_base_url;
  base_url.clear();
  secure_base_url.clear();
  const ExchangeBeaconBases& bases = pending.exchange->beacon_bases;

  for (size_t n = 0; n < result.bids.size(); ++n) {
    const ImpBid& win = result.bids[n];
    const openrtb::Imp& imp = request.imp[win.imp_index];
    const Campaign& campaign = *win.campaign;
    const Creative& creative = *win.creative;

    openrtb::Bid& bid = scratch.AddBid(win.seat);
    absl::StrAppend(&bid.id, response.bidid, "-", n + 1);
    bid.impid = imp.id;
    bid.price = win.price;
    const BeaconParams params = BeaconParamsOf(pending, result.currency, win, imp, bid.id,
                                               bid_time_ms, device_key, &cap_key);
    click_url.clear();
    impression_url.clear();
    // Markup served by the win notice is filled in there, from the same
    // signed parameters.
    const bool fill_markup = !creative.nurl_delivery;
    const bool secure = imp.secure.value_or(false);
    std::string& base = secure ? secure_base_url : base_url;
    if (base.empty()) AppendBeaconBaseUrl(secure ? *bases.secure : bases.plain, &base);
    beacons_.AppendUrls(
        base, params, &bid.nurl, &bid.burl, &bid.lurl, fill_markup ? &click_url : nullptr,
        fill_markup && MarkupHasImpressionPixel(creative) ? &impression_url : nullptr);
    if (fill_markup && !WriteMarkup(creative, imp, click_url, impression_url, &bid.adm)) {
      return false;
    }
    bid.adomain = campaign.advertiser_domains;
    bid.crid = creative.id;
    bid.cid = campaign.id;
    DescribeCreative(creative, taxonomy, &bid);
    if (win.deal != nullptr) bid.dealid = win.deal->id;
    AttachDsa(campaign, win, &bid);
  }
  return openrtb::SerializeBidResponse(scratch.Finish(), body).ok();
}

BeaconParams BidHandler::BeaconParamsOf(const PendingBid& pending, std::string_view currency,
                                        const ImpBid& win, const openrtb::Imp& imp,
                                        std::string_view bid_id, int64_t bid_time_ms,
                                        std::string_view device_key, std::string* cap_key) const {
  const openrtb::BidRequest& request = pending.request;
  const Campaign& campaign = *win.campaign;
  BeaconParams params;
  params.exchange = pending.exchange->config.name;
  params.campaign_id = campaign.id;
  params.creative_id = win.creative->id;
  params.device_key = device_key;
  params.deal_id = win.deal != nullptr ? std::string_view(win.deal->id) : std::string_view();
  params.bid_price_micros = std::llround(win.price * 1e6);
  params.bid_currency = currency;
  params.bid_time_ms = bid_time_ms;
  params.test = request.test;
  params.permissions = pending.permissions.beacons;
  // Under cap-only keys a capped campaign's URLs name its count of the
  // bid's day, and nothing else; an uncapped one's count nothing.
  if (pending.permissions.frequency_cap_keys) {
    if (campaign.frequency_cap.capped() && pending.identity.key.has_value()) {
      *cap_key =
          device_keys_
              .FrequencyCapKey(*pending.identity.key,
                               FrequencyCapQualifier(campaign.id, absl::FromUnixMillis(bid_time_ms),
                                                     campaign.frequency_cap.zone()))
              .Hex();
      params.frequency_cap_key = *cap_key;
    } else {
      params.permissions.count_frequency_cap = false;
    }
  }
  params.request_id = request.id;
  params.imp_id = imp.id;
  params.bid_id = bid_id;
  params.pricing_bucket = win.shade.bucket;
  return params;
}

void BidHandler::AppendBeaconBaseUrl(std::string_view configured, std::string* out) const {
  const config::BidderConfig& config = *deps_.config;
  bidder::AppendBeaconBaseUrl(configured, config.server.listen_address,
                              deps_.bound_port ? deps_.bound_port() : config.server.port, out);
}

HttpResponse BidHandler::NoBid(const PendingBid& pending) const {
  HttpResponse response;
  response.status = 204;
  response.headers.emplace_back("x-openrtb-version",
                                std::string(openrtb::ToString(pending.version)));
  return response;
}

void BidHandler::Finish(PendingBid& pending, BidOutcome outcome, HttpResponse response,
                        std::chrono::steady_clock::time_point now) {
  const std::chrono::duration<double> latency = now - pending.arrival;
  deps_.metrics->CountRequest(pending.exchange->index, outcome, latency.count());
  Responder respond = std::move(pending.respond);
  respond(std::move(response));
}

}  // namespace rtb::bidder
