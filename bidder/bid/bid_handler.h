// The bid endpoint: one exchange bid request in, a bid response (or 204, or
// 400) out, never after the request's deadline.
//
// The steps, top to bottom (bid_handler.cc reads in this order):
//   1. Parse the body with the thread's BidRequestParser; invalid -> 400
//      {"error": "<reason>", "nbr": 2} (OpenRTB no-bid reason 2, invalid
//      request).
//   2. Privacy (bidder/privacy/privacy_decision.h, mapped by
//      bidder/bid/internal/request_privacy.h): one decision per request,
//      counted in bidder_privacy_decisions_total; lat/lon dropped unless
//      precise geo is allowed.
//   3. Deadlines (bidder/deadline.h). Already past -> 204, no lookup.
//   4. Policies: regs.coppa=1 with coppa_policy "no-bid" -> 204. No usable
//      currency in `cur`, or no campaign that could serve any impression
//      (bidder/campaign_index.h) -> 204 without a lookup. Then a privacy
//      decision that allows no bid -> 204 (nobid_privacy, its reason in
//      bidder_privacy_nobids_total).
//   5. Device key (bidder/device_key.h), computed only when privacy allows
//      the lookup, the key in beacon URLs or cap-only keys (frequency caps
//      without the device key: a US opt-out). The profile is looked up only
//      when a candidate campaign can use it (required segments or a
//      frequency cap) and privacy allows reading that part of it; the
//      device's engagement history only when a candidate has a cpc or cpa
//      goal, privacy allows segments (the history personalises the price)
//      and pricing.device_history_days > 0. Either needs a device that may
//      be tracked, a valid id, and time left before the lookup deadline;
//      otherwise the auction runs on an empty profile and the campaigns'
//      own rates.
//   6. The reads, sent together and bounded by the lookup deadline: one
//      AsyncGet on `profiles` (families seg and fc as privacy allows,
//      TIMELINE), or under cap-only keys one AsyncGet per capped candidate
//      of its count's fc column under its key (the counts become the fc
//      cells of the auction's profile), and one AsyncScan of the device's `event_rollups` rows
//      over the last pricing.device_history_days UTC days (at most that
//      many rows; bidder/events/events.h, DailyCountsScan), whose
//      impression, click and conversion counters sum to the device's
//      history (pricing/pricer.h, DeviceHistory). A get the store can
//      answer without I/O (Store::GetWithoutWaiting: the embedded store's
//      row cache, memtables, block cache) is answered at once, without the
//      turn of the I/O loop AsyncGet's callback costs. The last to answer
//      settles. For a backend that does not declare it keeps its deadline
//      (Store::KeepsAsyncDeadlines), a guard timer at the same instant
//      settles instead with what has arrived, so the request never waits
//      longer; the embedded store keeps it, and a request on it has one
//      timer at most. A profile read that timed out or failed -> empty
//      profile, and the profile counts as unavailable: each candidate's
//      store_outage_policy (config.h) decides whether it may bid without
//      it. So does a store the readiness check reports unhealthy
//      (Dependencies::store_healthy), lookup or not. A history read that
//      timed out or failed -> the campaigns' rates (counted in
//      bidder_device_history_reads_total).
//   7. The auction (bidder/auction.h, with the DSA signal per campaign),
//      then the response: signed beacon URLs (bidder/beacon_url.h: the
//      device key only when privacy allows it, else a capped bid's cap-only
//      key when caps are counted, and what the beacon side may record;
//      bidder_dsa_decisions_total per bid and per DSA-skipped candidate),
//      the markup's ${CLICK_URL} replaced by the click URL, ext.dsa
//      where the DSA signal asks for it, serialised by openrtb's writer.
//      Ready after the deadline -> 204 instead ("late").
//
// The response carries `x-openrtb-version`: the request's own header when it
// names a 2.x version, else the exchange's configured openrtb_version
// (openrtb's ResponseOpenRtbVersion()). Every bid carries mtype (and, for
// video and audio, dur) at its 2.6 place, repeated in bid.ext in 2.5
// answers; cat is written in the request's cattax taxonomy when the
// campaign's categories translate into it (bidder/bid/internal/bid_contents.h).
//
// Secure impressions (imp.secure = 1) get beacon URLs of the exchange's https
// base (ExchangeBeaconBases, bidder/bid/beacon_url.h) and only creatives
// whose markup has no http:// reference; an exchange without an https base
// gets no bid on them (nobid_insecure). With the exchange's gzip_responses
// and a request whose Accept-Encoding allows gzip, a bid answer goes
// gzip-compressed (bidder/http/gzip_response.h).
// Every bid has a win notice (nurl); with nurl_delivery the markup is
// served by it and adm is omitted. A no-bid is always an empty 204 (OpenRTB's
// preferred form); its reason goes to the metrics.
//
// Test requests (test=1) are bid on as any other; their beacon URLs carry
// test=1 (signed), so the beacon side bills nothing for them.
//
// Campaigns changed while running: SetCampaigns builds a new index and
// auction off the I/O threads and swaps them in atomically. Each request
// takes the index current when it arrives and keeps it (a shared_ptr in the
// request) until it has answered, so a request in flight never sees two.
//
// Thread-safety: Handle() runs concurrently on all I/O threads, and
// SetCampaigns on any one other thread. Everything they share is immutable,
// an atomic pointer to an immutable index, or a metric handle; per-request
// state lives in the request.
#ifndef RTB_BIDDER_BID_BID_HANDLER_H_
#define RTB_BIDDER_BID_BID_HANDLER_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bidder/bid/beacon_url.h"
#include "bidder/bid/bid_metrics.h"
#include "bidder/bid/currency.h"
#include "bidder/bid/device_key.h"
#include "bidder/bid/internal/auction.h"
#include "bidder/bid/internal/campaign_index.h"
#include "bidder/bid/internal/deadline.h"
#include "bidder/bid/internal/request_privacy.h"
#include "bidder/bid/pacing_snapshot.h"
#include "bidder/http/http_server.h"
#include "bidder/openrtb/openrtb.h"
#include "config/config.h"
#include "pricing/pricer.h"
#include "storage/clock.h"
#include "storage/store.h"

namespace rtb::bidder {

class BidHandler {
 public:
  struct Dependencies {
    // Whole config: bid policies, campaigns and the exchanges served.
    const config::BidderConfig* config = nullptr;
    storage::Store* store = nullptr;
    const PacingSnapshot* pacing = nullptr;
    // Values and first-price shading (pricing/pricer.h); null: every bid
    // is the campaign's max_bid_cpm.
    const pricing::Pricer* pricer = nullptr;
    BidMetrics* metrics = nullptr;
    // Wall clock for the frequency-cap day and beacon timestamps. Default:
    // the system clock.
    std::shared_ptr<storage::Clock> wall_clock;
    // The server's bound port, for beacon URLs when bid.beacon_base_url is
    // empty: they then start http://<server.listen_address>:<bound_port()>.
    // Read per response, since the port is known only once the server runs.
    // Unset: server.port.
    std::function<uint16_t()> bound_port;
    // Whether the store answers (the readiness check's last result); read
    // per request, so it must be cheap. Unset: always healthy.
    std::function<bool()> store_healthy;
  };

  // Builds the campaign index, currency table, key hasher and beacon signer.
  // Everything `dependencies` points to must outlive the handler and every
  // request it is still answering. InvalidArgument when the config cannot
  // be served (see CampaignIndex::Build).
  static absl::StatusOr<std::unique_ptr<BidHandler>> Create(Dependencies dependencies);

  BidHandler(const BidHandler&) = delete;
  BidHandler& operator=(const BidHandler&) = delete;
  ~BidHandler();

  // The handler of `exchange`'s bid path (register it at exchange.bid_path).
  // NotFound when the exchange is not in config.server.exchanges (matched
  // by name).
  absl::StatusOr<HttpHandler> ForExchange(const config::ExchangeConfig& exchange);

  // Answers one bid request of exchange number `exchange` (its position in
  // config.server.exchanges). `respond` is called exactly once, on
  // request.executor: before returning when no lookup is needed, else from
  // the lookup's completion.
  void Handle(size_t exchange, const HttpRequest& request, Responder respond);

  // Rebuilds the index from `by_position` (campaign i at position i, which
  // must be the position pacing and the metrics know it by; disabled ones
  // are kept but never candidates) and swaps it in. A campaign the bid path
  // cannot serve does not stop the others: it stays disabled and its error
  // is returned, one line per campaign, with the new index in use anyway.
  // Call from one thread at a time.
  std::vector<std::string> SetCampaigns(const std::vector<config::CampaignConfig>& by_position);

  // The index in use now. Holding the pointer keeps it alive.
  std::shared_ptr<const CampaignIndex> campaigns() const;

 private:
  struct ExchangeContext;
  struct PendingBid;
  // An index with the auction that reads it, swapped as one.
  struct LiveIndex {
    LiveIndex(CampaignIndex built, const CurrencyTable& currencies, const PacingSnapshot& pacing,
              const pricing::Pricer* pricer)
        : index(std::move(built)), auction(index, currencies, pacing, pricer) {}
    LiveIndex(const LiveIndex&) = delete;
    LiveIndex& operator=(const LiveIndex&) = delete;
    const CampaignIndex index;
    const Auction auction;
  };

  explicit BidHandler(Dependencies dependencies, CurrencyTable currencies, CampaignIndex index);

  // Which of the device's reads a request makes (none without a device key
  // or time left for a lookup).
  struct DeviceReads {
    bool profile = false;  // the profile Get
    bool history = false;  // the history scan
    bool caps = false;     // one cap count per capped candidate, under cap-only keys
    bool any() const { return profile || history || caps; }
  };

  // Step 2: the privacy decision, counted, and the permissions it gives.
  void ApplyPrivacy(PendingBid& pending);
  // Step 4: the no-bid outcome of a request nothing can bid on, or that
  // privacy refuses, decided before any read.
  std::optional<BidOutcome> RefuseBeforeLookup(const PendingBid& pending,
                                               const AuctionPreview& preview);
  // Step 5: the device key, and what to read; counts the lookups skipped.
  DeviceReads PlanDeviceReads(PendingBid& pending, const AuctionPreview& preview, bool any_capped,
                              std::chrono::steady_clock::time_point now);
  // The cap count columns of the `capped` candidates, for the cap reads.
  void ListCapColumns(PendingBid& pending, const std::vector<size_t>& capped);
  // Step 6: the profile Get and the history scan that are asked for, at once.
  void ReadDevice(std::shared_ptr<PendingBid> pending, bool read_profile, bool read_history);
  // The reads ReadDevice sends, each completing with CompleteRead.
  void SendProfileGet(const std::shared_ptr<PendingBid>& pending);
  void SendCapGets(const std::shared_ptr<PendingBid>& pending);
  void SendHistoryScan(const std::shared_ptr<PendingBid>& pending);
  // Marks `read` done; the last of the reads sent settles the request
  // (unless the guard timer has).
  void CompleteRead(PendingBid& bid, unsigned read);
  // Once per request that read: counts the reads (those not in `done` timed
  // out) and decides with what arrived.
  void SettleReads(PendingBid& pending, unsigned done);
  // `profile_unavailable`: the profile could not be read (see the header
  // comment, step 5); with a null `row` otherwise the device has no profile
  // or none was needed. `history`: zeros when none was read.
  void Decide(PendingBid& pending, const storage::RowResult* row, bool profile_unavailable,
              const pricing::DeviceHistory& history);
  bool StoreUnhealthy() const;
  // Answers; the latency counted runs from arrival to `now`.
  void Finish(PendingBid& pending, BidOutcome outcome, HttpResponse response,
              std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
  // The bid response of `result`, bid at `bid_time_ms` (the auction's
  // time), into `*body`; false when the writer refused it.
  bool WriteResponse(const PendingBid& pending, const AuctionResult& result, int64_t bid_time_ms,
                     std::string* body);
  // The signed beacon parameters of one bid; `*cap_key` holds the cap-only
  // key the parameters point to, when there is one.
  BeaconParams BeaconParamsOf(const PendingBid& pending, std::string_view currency,
                              const ImpBid& win, const openrtb::Imp& imp, std::string_view bid_id,
                              int64_t bid_time_ms, std::string_view device_key,
                              std::string* cap_key) const;
  HttpResponse NoBid(const PendingBid& pending) const;
  // A beacon base URL (an ExchangeBeaconBases member; "": this server's),
  // appended to `*out`.
  void AppendBeaconBaseUrl(std::string_view configured, std::string* out) const;

  Dependencies deps_;
  CurrencyTable currencies_;
  std::atomic<std::shared_ptr<const LiveIndex>> live_;
  DeviceKeyHasher device_keys_;
  BeaconSigner beacons_;
  DeviceKeyPolicy key_policy_;
  std::vector<ExchangeContext> exchanges_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_BID_HANDLER_H_
