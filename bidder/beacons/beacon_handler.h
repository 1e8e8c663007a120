// The beacon endpoints: what happens after the auction (ad-tech seed,
// "Impressions", "Frequency capping", "Attribution"; event-tracking seed).
//
//   GET|POST <prefix>/win         win notice (nurl): a win event; the markup
//                                 of a win-notice-delivered creative (200),
//                                 else 204
//   GET|POST <prefix>/billing     billing notice (burl)
//   GET      <prefix>/imp         impression pixel, 1x1 GIF
//   GET|POST <prefix>/loss        loss notice (lurl): a loss event with the
//                                 loss reason and the minimum to win, 204
// The exchange's billing notice (server.exchanges[].billing_notice: burl by
// default, nurl or the pixel) records the impression; the other two record
// only their own event. A notice whose signed bid time is older than the
// attribution window is refused with 410: its impression row has expired,
// so a replay would book again.
//   GET      <prefix>/click       a click event; 302 to the creative's landing
//                                 URL (from config, never from the request)
//                                 with a signed click token in rtb_click
//   GET|POST <prefix>/conversion  ?click=<token>[&oid=<order id>][&value=<v>]
//                                 [&cur=<ISO 4217>]: a conversion attributed
//                                 to the clicked impression, 204
// <prefix> is the path of a beacon base URL (bid.beacon_base_url, an
// exchange's beacon_base_url or secure_beacon_base_url; "" by default): the
// routes are served under each such path.
//
// Every beacon but the conversion is a signed URL of bidder/bid/beacon_url.h;
// a forged or altered one is refused with 403 and counted. Every beacon is
// idempotent: the impression id is a hash of the ids the signature covers
// (exchange, request, impression and bid id), so the billing notice and the
// pixel of one impression, and any replay of either, find the same row.
//
// Recording an impression, in this order:
//   1. Get `impressions` by id: present means a replay, and nothing changes;
//   2. the impression event (timeline, then index, both SYNC_WAL), the
//      device -> impression entry of `device_impressions`, the frequency-cap
//      Increment on `profiles:fc` (campaignId|yyyymmdd in the campaign's zone,
//      cell TTL two days, nonce from the impression id): all idempotent;
//   3. with a spend journal (pacing/pacer.h), its entry is written first
//      (SpendJournal::Begin, SYNC_WAL); then CheckAndMutate "row absent"
//      puts the impression row (campaign, creative, device key, price, time
//      and the journal entry's key; SYNC_WAL; family TTL = attribution
//      window). Only the caller that wins it counts the spend: it commits
//      the entry (or, without a journal, hands the spend to the pacing
//      recorder); a duplicate abandons it; a claim that failed leaves it
//      unsettled for the pacing loop to decide from the impression row. So
//      concurrent duplicates and replays count spend once, and a crash after
//      the claim loses none: the entry is in the store before the notice is
//      answered.
// A crash between 2 and 3 is repaired by the exchange's retry: 2 rewrites
// the same cells and 3 completes.
//
// Frequency caps after a crash. The cap Increment adds 1 to the count and 1
// to the impression's marker column fc:#<hex impression id> in the same
// row-atomic Increment, and carries a nonce from the impression id. Within
// one store incarnation the embedded engine answers a repeated nonce with
// the first result, so a concurrent duplicate adds nothing. The nonce memory
// does not outlive a restart, and Thrift2 carries no nonce; there the
// marker answers: a caller whose Increment made it 2 or more undoes its own
// 1 on the count. So a notice retried after a crash counts once on every
// backend (short of a second crash between the two Increments of a retry).
//
// A device under erasure (EventStore::IsErased) still gets its impression
// row and spend, which the budget needs, but no device key, event, index
// entry or cap count. Test bids (test=1) record nothing.
//
// The request's privacy signals, decided on the bid path, travel in the
// signed URL (BeaconPermissions, bidder/bid/beacon_url.h) and are followed
// here: a bid whose URLs carry no device key writes nothing under the
// device (no device_impressions entry, cap count or key in the impression
// row; its events go under the impression id), except that a URL carrying
// a cap-only key instead (fk, pf bit 4: a US opt-out's capped bid) has its
// billing notice add the impression to the count under that key, for the
// day of the signed bid time, and nothing else; one that may not count
// frequency caps writes no device_impressions entry and no cap count; one
// that may not measure records no event (win, loss, impression, click; the
// outcome is not_measured, though the impression row and spend still are)
// and its click redirect carries no click token, so no conversion follows. An unknown or
// expired impression on click or conversion is counted; the caller still
// gets its answer.
//
// An exchange with price_encryption keys sends its prices encrypted
// (internal/price_decryption.h); one that does not decrypt is refused and
// counted, and the impression recorded at our bid price. Clearing prices
// (${AUCTION_PRICE}) that are not a plain number, negative,
// above our bid price or above 1000 CPM are rejected and counted; the
// impression is then recorded at our bid price, the upper bound of what a
// second-price or first-price auction charges, so nothing is lost and
// pacing errs towards under-spending.
//
// Acknowledged means durable (event-tracking seed: "Events come from a
// durable, replayable log"). On the I/O thread a beacon is verified
// (signature, campaign, attribution window) and its answer decided from the
// beacon alone; a beacon with writes to make (not test=1, not a click that
// may not be measured, not refused) is appended to the beacon log
// (beaconlog/beacon_log.h, keyed by its impression id) as its endpoint, the
// time it was received and its query, and answered once the log says the
// record is durable, whatever the state of the store. A log that is full
// (the stream worker is behind) or failing gets 503 with Retry-After,
// counted as log_full or error: nothing acknowledged is ever dropped. The
// writes above are applied later by the stream worker (bidder/stream),
// through applier(): the record verified again and applied at the time it
// was received, so a replay after a crash writes the same keys and values.
// Writes that vouch for a later one (an impression's event before its
// claim, a click's event before its claim column) are made at once; the
// events nothing later checks (win, loss, a notice that does not bill) are
// gathered per worker lane and recorded together when the lane flushes
// (LaterEvents, EventStore::RecordBatch), before the log position is
// committed.
// When more than max_in_flight beacons wait for the log, the next get 503.
//
// Metrics: bidder_beacons_total{kind,outcome} (refusals when answered,
// the others when applied), bidder_beacon_price_rejected_total{kind},
// bidder_beacon_latency_seconds{kind} (arrival to answer), and per claimed impression (step 3)
// bidder_wins_total{exchange,campaign} and bidder_spend_micros_total{exchange,campaign}
// (micro-units of the campaign's currency).
//
// Thread-safety: handlers are called concurrently from every I/O thread.
#ifndef RTB_BIDDER_BEACONS_BEACON_HANDLER_H_
#define RTB_BIDDER_BEACONS_BEACON_HANDLER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "beaconlog/beacon_log.h"
#include "bidder/http/http_server.h"
#include "bidder/stream/stream_worker.h"
#include "config/config.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/store.h"

namespace rtb::pacing {
class SpendRecorder;
class SpendJournal;
}  // namespace rtb::pacing

namespace rtb::pricing {
class PricingFeedback;
}  // namespace rtb::pricing

namespace rtb::bidder {

namespace events {
class EventStore;
}  // namespace events

struct BeaconHandlerOptions {
  // Beacons waiting for the log at most; more get 503. Default 4096.
  int max_in_flight = 4096;
  // Cell TTL of a frequency-cap count, ms: the family TTL of `profiles:fc`.
  int64_t frequency_cap_ttl_ms = int64_t{2} * 24 * 3600 * 1000;
};

class BeaconHandler {
 public:
  struct Dependencies {
    const config::BidderConfig* config = nullptr;
    storage::Store* store = nullptr;
    events::EventStore* events = nullptr;
    // Null: spend is not recorded (no pacing loop).
    pacing::SpendRecorder* spend = nullptr;
    // Null: spend goes to `spend` without a journal, and a crash loses what
    // the pacing loop had not flushed.
    pacing::SpendJournal* journal = nullptr;

    // Null: notices and engagement are not counted for pricing. Otherwise
    // first-price win and loss notices (those whose bid carried a pricing
    // bucket), first impressions, first clicks and conversions are
    // (pricing/feedback.h).
    pricing::PricingFeedback* pricing = nullptr;
    prometheus::Registry* registry = nullptr;
    // Default: the system clock.
    std::shared_ptr<storage::Clock> wall_clock;
    // The server's bound port, for beacon URLs when bid.beacon_base_url is
    // unset (markup served by win notices). Default: server.port.
    std::function<uint16_t()> bound_port;
    // Where accepted beacons go before they are answered. Null: the handler
    // only applies records (rtb-stream), and Register routes nothing.
    beaconlog::LogWriter* log = nullptr;
    // Called after each record the log made durable (the in-process stream
    // worker's Wake). May be empty.
    std::function<void()> appended;
  };

  // Checks the dependencies and the beacon base URL; declares the metrics.
  static absl::StatusOr<std::unique_ptr<BeaconHandler>> Create(Dependencies dependencies,
                                                               BeaconHandlerOptions options = {});
  // Waits (bounded) for the log to answer the beacons still waiting.
  ~BeaconHandler();
  BeaconHandler(const BeaconHandler&) = delete;
  BeaconHandler& operator=(const BeaconHandler&) = delete;

  // Routes every endpoint above on `server` (before it starts).
  void Register(HttpServer& server);

  // What the stream worker applies the log's records with.
  stream::RecordApplier& applier();

  // The campaigns changed while running: beacons are accepted for every
  // campaign the worker knows (paused and archived too: their bids may still
  // win), campaigns_by_position[i] at position i (spend and metrics). A
  // beacon being handled finishes with the set it started with.
  void SetCampaigns(
      const std::vector<std::shared_ptr<const config::CampaignConfig>>& campaigns_by_position);

  // The impression id of a bid's beacons: 16 bytes of SHA-256 over the
  // exchange and the request, impression and bid ids.
  static std::string ImpressionId(std::string_view exchange, std::string_view request_id,
                                  std::string_view imp_id, std::string_view bid_id);

 private:
  class Impl;
  explicit BeaconHandler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BEACONS_BEACON_HANDLER_H_
