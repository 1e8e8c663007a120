// Budget pacing: the loop that keeps every campaign inside its daily budget
// without ever running on, or blocking, the bid path (ad-tech seed, "Budget
// pacing without a hot row"; DESIGN.md, "Pacing loop").
//
//   beacon path ── SpendJournal::Begin/Commit ──► `spend_journal` rows and
//                  in-memory sums released up to the watermark
//                  (or SpendRecorder::Record ──► striped in-memory sums)
//   every flush interval: one Increment per campaign with spend, to the
//     worker's shard row campaignId|NN of `budget` (NN = worker id mod 16,
//     qualifier = the day in the campaign's time zone, micro-currency)
//   every controller interval: one short scan of a campaign's 16 shards gives
//     today's total; with the spend rate over the sliding window it yields a
//     throttle probability (even: the remaining budget over the remaining
//     hours of the campaign's day; asap: 1) and a stop decision taken at
//     least the maximum unflushed amount below the cap
//   bid path ── Decisions::MayBid ──► two relaxed atomic loads (the auction's clock)
//
// Who runs what:
//   - pacing.mode "sidecar" (default): each bidder process runs a Pacer that
//     flushes its own spend and controls every campaign from the shards.
//   - pacing.mode "pacer": each bidder process runs a Pacer that flushes its
//     spend and follows the decisions that one rtb-pacer process (a
//     PacerService) computes for all workers and publishes in the store.
//
// Overspend bound. When the controller stops a campaign, the spend it cannot
// see is what workers hold in memory: at most one flush interval each. It
// stops when  spent + reserve >= budget  with
//   overspend bound = flush interval x max(highest shard rate x active shards,
//                                          projected rate)
//   reserve         = overspend bound + projected rate x (controller interval
//                                                        + follow delay)
// where shard rates are measured over the sliding window and over the last
// six flush intervals (whichever is higher, so a burst counts), and the
// projected rate is the estimated demand times the throttle about to be
// published. Overspend therefore stays within the published bound as long as
// the spend rate does not jump by more than the active-shard factor within a
// few flush intervals.
//
// Spend journal. So that a process killed with money in flight loses none,
// the beacon path records spend through a SpendJournal (PacerOptions::
// spend_journal, on by default) rather than the in-memory recorder. Per won
// impression, before the notice is answered:
//   1. Begin: the entry (worker id + sequence -> campaign, day, amount,
//      impression id) is put in `spend_journal`, SYNC_WAL. Sequences come
//      from blocks the worker reserves with one Increment of its counter row,
//      so they only grow, across restarts too.
//   2. The impression claim (CheckAndMutate "absent", SYNC_WAL) also writes
//      the entry's key in the impression row: the claim and its entry are
//      tied in one atomic row write.
//   3. Commit (claimed), Abandon (a duplicate won: the entry row goes) or
//      Unsettled (the claim failed without an answer: the pacing loop reads
//      the impression row later and decides).
// The watermark W is the highest sequence up to which every entry of this
// incarnation is settled. A flush takes the committed spend up to W and, per
// campaign, adds it to the day columns AND moves the worker's position
// pos:<worker id> to W in the same Increment of the shard row: the row
// itself says which entries its spend includes. Counted entries are then
// deleted. A restarted worker, before its first flush, reads its positions
// and scans its entries of earlier incarnations: at or below the position,
// counted (deleted); named by their impression row, claimed and uncounted
// (flushed now); the rest, never claimed or claimed by a duplicate, are read
// once more a flush later (a claim the dead process sent may still land)
// and deleted then. A flush Increment that failed is settled by reading the
// position back (moved: applied; not moved: sent again), so spend is exact
// on every backend, nonce or not, as long as a failed call cannot still land
// after that read. Cost: one more SYNC_WAL Put per billing notice
// (BENCHMARKS.md, "Spend journal").
//
// Replay safety. The recorder and the journal take amounts, not
// impressions: the beacon path counts an impression only when it wins the
// impression claim, so a replayed beacon never reaches them. Spend given to
// the SpendRecorder directly (no journal) is flushed with a nonce, and a
// failed flush is retried with the same nonce and amount, so a retry the
// store had applied counts once (the embedded store honours nonces; Thrift2
// cannot carry them, so over HBase or the storage server an ambiguous
// failure may count twice, which under-spends); a process that dies loses
// what the recorder had not flushed, at most one flush interval of its own
// spend.
//
// Thread-safety: SpendRecorder::Record and Decisions::MayBid may be called
// from any number of threads at once and never block. Create, Start and Stop
// from one thread; RunDue only while the loop is not started.
#ifndef RTB_PACING_PACER_H_
#define RTB_PACING_PACER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "config/config.h"
#include "leases/lease.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/store.h"

namespace rtb::pacing {

// Spend not yet flushed, summed per campaign. Each thread adds to its own
// stripe (threads are assigned stripes round-robin), so the beacon path's
// add is an uncontended atomic add: no lock, no allocation.
class SpendRecorder final {
 public:
  // Stripes of counters; threads beyond this many share stripes.
  static constexpr size_t kStripes = 16;

  explicit SpendRecorder(size_t campaigns);
  SpendRecorder(const SpendRecorder&) = delete;
  SpendRecorder& operator=(const SpendRecorder&) = delete;

  // Adds the price of one won impression, in micro-units of the campaign's
  // own currency (convert CPM prices: micros = CPM x 1e6 / 1000). The caller
  // has deduplicated the impression id. Returns false, recording nothing,
  // for an unknown campaign index or an amount <= 0.
  bool Record(size_t campaign_index, int64_t micros) {
    if (campaign_index >= campaigns_ || micros <= 0) return false;
    counters_[ThreadStripe() * stride_ + campaign_index].fetch_add(micros,
                                                                   std::memory_order_relaxed);
    return true;
  }

  // Everything recorded for the campaign since the last Take; resets it.
  int64_t Take(size_t campaign_index);
  // What Take would return now, without resetting it.
  int64_t Pending(size_t campaign_index) const;
  size_t campaigns() const { return campaigns_; }

 private:
  static size_t ThreadStripe() {
    thread_local const size_t stripe = NextStripe();
    return stripe;
  }
  static size_t NextStripe();

  size_t campaigns_;
  // Counters per stripe, rounded up to whole cache lines so two stripes never
  // share one.
  size_t stride_;
  std::unique_ptr<std::atomic<int64_t>[]> storage_;
  std::atomic<int64_t>* counters_;  // storage_ aligned to a cache line
};

// One impression's spend in its worker's spend journal, from Begin until it
// is settled by Commit, Abandon or Unsettled.
struct SpendJournalEntry {
  uint64_t sequence = 0;
  size_t campaign_index = 0;
  // Micro-units of the campaign's own currency, > 0.
  int64_t micros = 0;
  // The campaign's day when Begin was called, yyyymmdd: the day the spend is
  // counted on, even when it is flushed or recovered after midnight.
  std::string day;
  std::string impression_id;
  // The entry's row in `spend_journal`. The impression claim puts it in the
  // impression row (storage::kImpressionJournalColumn): that is how, after a
  // crash, an entry is known to have been claimed.
  std::string key;
};

// The crash-safe way to record spend (see "Spend journal" at the top of this
// file). For each impression it is about to claim, the beacon path calls
// Begin, then claims the impression with one CheckAndMutate that also puts
// entry.key in the impression row, then settles the entry:
//   - claimed:                        Commit   (the spend counts);
//   - a duplicate claimed it first:   Abandon  (deletes the entry);
//   - the claim failed, outcome unknown: Unsettled (the flusher reads the
//                                     impression row and decides);
// and only then answers the notice. An entry must be settled exactly once.
class SpendJournal {
 public:
  virtual ~SpendJournal() = default;

  // Reserves a sequence and writes the entry (SYNC_WAL); `now_ms` gives the
  // campaign's day. InvalidArgument for an unknown campaign index or an
  // amount <= 0; a store error as it came. On an error there is nothing to
  // settle, and the impression must not be claimed.
  virtual absl::StatusOr<SpendJournalEntry> Begin(size_t campaign_index, int64_t micros,
                                                  std::string_view impression_id,
                                                  int64_t now_ms) = 0;
  virtual void Commit(const SpendJournalEntry& entry) = 0;
  virtual void Abandon(const SpendJournalEntry& entry) = 0;
  virtual void Unsettled(SpendJournalEntry entry) = 0;

  // Committed spend of the campaign that no flush has taken yet.
  virtual int64_t Pending(size_t campaign_index) const = 0;
};

// The published decisions, read by the bid path: per campaign a throttle
// probability in [0, 1] (0 = no bid) and the time until which it is valid.
// A decision past its validity (the loop has not refreshed it within
// pacing.state_max_age_ms) stops the campaign: fail safe.
class Decisions final {
 public:
  Decisions(size_t campaigns, std::shared_ptr<const storage::Clock> clock);
  Decisions(const Decisions&) = delete;
  Decisions& operator=(const Decisions&) = delete;

  // Same contract as rtb::bidder::PacingSnapshot::MayBid: true when campaign
  // `campaign_index` (its position in config.campaigns) may bid on this
  // impression; `uniform` is a random draw in [0, 1). False for an unknown
  // index, before the first decision, and while the decision is too old.
  bool MayBid(size_t campaign_index, double uniform) const {
    return MayBid(campaign_index, uniform, clock_->NowMillis());
  }
  // The same at `now_ms` (Unix milliseconds of this clock), for a caller
  // that has read the clock already: the auction, once per request.
  bool MayBid(size_t campaign_index, double uniform, int64_t now_ms) const {
    if (campaign_index >= campaigns_) return false;
    const Slot& slot = slots_[campaign_index];
    if (now_ms >= slot.valid_until_ms.load(std::memory_order_acquire)) {
      fail_safe_refusals_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    return uniform < slot.throttle.load(std::memory_order_relaxed);
  }

  // Writer side (the pacing loop).
  void Publish(size_t campaign_index, double throttle, int64_t valid_until_ms);
  // Every campaign refused from now on, whatever is published later (the
  // worker id's lease was lost), until Restore.
  void Revoke();
  void Restore() { revoked_.store(false); }
  bool revoked() const { return revoked_.load(std::memory_order_relaxed); }
  double throttle(size_t campaign_index) const;
  int64_t valid_until_ms(size_t campaign_index) const;
  size_t campaigns() const { return campaigns_; }
  // Bids refused because a decision was too old, since construction.
  uint64_t fail_safe_refusals() const {
    return fail_safe_refusals_.load(std::memory_order_relaxed);
  }

 private:
  struct Slot {
    std::atomic<double> throttle{0.0};
    std::atomic<int64_t> valid_until_ms{0};
  };
  size_t campaigns_;
  std::unique_ptr<Slot[]> slots_;
  std::shared_ptr<const storage::Clock> clock_;
  std::atomic<bool> revoked_{false};
  // Its own cache line: only written while failing safe.
  alignas(64) mutable std::atomic<uint64_t> fail_safe_refusals_{0};
};

// What tests and simulations change; production uses the defaults.
struct PacerOptions {
  // Time of every schedule, day and decision age. Default: the system clock.
  std::shared_ptr<const storage::Clock> clock;
  // Seed of the flush nonces. Default 0: a random seed per Pacer, so two
  // incarnations of a worker never reuse a nonce.
  uint64_t nonce_seed = 0;
  // Keep a spend journal (Pacer::journal()) in the `spend_journal` table.
  // Default true. Spend given to the SpendRecorder is flushed either way,
  // and lost when the process dies before flushing it.
  bool spend_journal = true;
  // Journal sequences a worker reserves with one Increment. Default
  // 1,000,000; must be > 0.
  uint64_t journal_block = 1000000;

  // Campaign positions the spend recorder and the decisions hold, so that
  // campaigns added while the bidder runs (Pacer::UpdateCampaigns) take the
  // next free position without the bid or beacon path noticing. 0: exactly
  // the config's campaigns.
  size_t campaign_capacity = 0;
  // Lease the worker id in the store (pacing.worker_id, "auto" or a
  // number; docs/running-a-fleet.md) for as long as the Pacer lives, and
  // recover the spend journals dead workers left under ids nobody holds.
  // Default true. False: the configured id as it is ("auto": 0), checked
  // against this process's other Pacers only (simulations on a manual
  // clock, whose store time would run the lease out).
  bool lease_worker_id = true;
  // This process as a lease's holder reads in a refusal, e.g. "rtb-bidder
  // 10.0.0.7:8080". Default: "rtb worker".
  std::string lease_holder;
  // Called once, on the pacing loop's thread, when the worker id is gone
  // for good: its lease was lost (bidding and spend stopped at that moment)
  // and, once the store answered again, another process held the id or had
  // written under it. (When nobody had, the Pacer takes the lease back and
  // goes on.) The process should exit, so that a restart leases an id and
  // recovers its journal. May be empty.
  std::function<void()> on_worker_id_lost;
};

namespace internal {
struct CampaignBudget;
class CampaignUpdates;
class PacingMetrics;
class SpendFlusher;
class WorkerSpendJournal;
class BudgetController;
class DecisionBoard;
class LoopThread;
class WorkerIdClaim;
class OrphanJournals;
struct BoardEntry;
}  // namespace internal

// One campaign as the pacing loop last saw it, for operators.
struct CampaignPacingStatus {
  std::string campaign_id;
  int64_t daily_budget_micros = 0;
  // Today's total over all workers as of decided_at_ms (micro-units of the
  // campaign's currency).
  int64_t spent_today_micros = 0;
  // Bid probability published, [0, 1]; 0 when stopped.
  double throttle = 0;
  // The budget (minus the reserve) is reached for today.
  bool stopped = false;
  // Clock time of the decision; 0 = none yet.
  int64_t decided_at_ms = 0;
  // After this the bid path refuses the campaign (fail safe).
  int64_t valid_until_ms = 0;
};

// The pacing loop of one bidder worker (see the top of this file): flushes
// its spend, and either controls every campaign (sidecar) or follows the
// decisions of the rtb-pacer process (pacer).
class Pacer {
 public:
  // Uses config.pacing and config.campaigns. `store` must hold the `budget`
  // table and outlive the Pacer; `registry` (may be null: no metrics) too.
  // Errors: AlreadyExists when another Pacer of this process holds
  // pacing.worker_id; FailedPrecondition when a live process holds its lease
  // (after waiting one pacing.worker_lease_ttl_ms for a dead holder's to
  // run out); ResourceExhausted when "auto" finds no free id; NotFound for a campaign time zone
  // missing from the zone database; InvalidArgument for a config ValidateConfig would refuse.
  static absl::StatusOr<std::unique_ptr<Pacer>> Create(const config::BidderConfig& config,
                                                       storage::Store& store,
                                                       prometheus::Registry* registry,
                                                       PacerOptions options = {});
  ~Pacer();  // Stop()
  Pacer(const Pacer&) = delete;
  Pacer& operator=(const Pacer&) = delete;

  // Computes (or fetches) the first decisions before returning, so the
  // bidder starts with a fresh state when the store answers, then starts the
  // loop thread. FailedPrecondition when already started.
  absl::Status Start();
  // Stops the thread, then flushes what is left (one attempt). Idempotent.
  void Stop();

  // The beacon path's entry: each won impression's price goes through the
  // journal when there is one (PacerOptions::spend_journal), else to Record().
  SpendJournal* journal();
  SpendRecorder& spend() { return *spend_; }
  // The bid path's entry: MayBid().
  const Decisions& decisions() const { return *decisions_; }

  // Runs what is due at the clock's time: flushes (every flush interval and
  // at each campaign's midnight), then control or following. The loop thread
  // calls it; a simulation on a ManualClock calls it instead of Start().
  void RunDue();
  // Clock time at which RunDue has work next.
  int64_t NextDueMillis() const;
  // Flushes everything recorded so far at the clock's time.
  void FlushNow();

  // The id this worker writes under (leased, or as configured).
  int worker_id() const { return worker_id_; }
  bool follows_pacer_service() const { return follow_; }
  // False while the worker id's lease is lost: nothing is bid or written
  // under the id then.
  bool holds_worker_id() const { return !id_lost_.load(); }
  // Orphaned worker ids this Pacer recovers now (tests, logs).
  std::vector<int> adopted_worker_ids() const;

  // The campaigns changed while running: `by_position[i]` is campaign i
  // (the positions of the previous list keep their campaign ids; new
  // campaigns are appended). Budgets, pacing modes and time zones take
  // effect at the loop's next step, which then decides at once (within a
  // second when the loop runs). Paused campaigns stay controlled (the bid
  // path does not ask for them). InvalidArgument for a changed position or
  // a budget the loop cannot use, OutOfRange past the capacity, NotFound
  // for an unknown time zone; nothing changes then. In pacer mode the
  // rtb-pacer process decides, with the same list from the same table: the
  // worker flushes the spend of appended campaigns and reads their
  // decisions.
  absl::Status UpdateCampaigns(const std::vector<config::CampaignConfig>& by_position);

  // Every campaign, in config order, as of the loop's last decision (or, in
  // pacer mode, the last board read). Safe from any thread.
  std::vector<CampaignPacingStatus> CampaignStatuses() const;

 private:
  Pacer();
  // Copies what the loop just decided or read into statuses_.
  void RecordStatuses(const std::vector<std::optional<internal::BoardEntry>>* board_entries);
  void Flush(int64_t as_of_ms);
  // On a lease thread: stops bidding and spend under the id.
  void WorkerIdLost();
  // On the loop's thread, while the lease is lost: takes it back when
  // nobody else held or used the id meanwhile, else gives the id up.
  void TryToTakeTheIdBack(int64_t now_ms);
  void ControlOrFollow(int64_t now_ms);
  void ExportLoopMetrics(int64_t now_ms);
  int64_t NextBoundaryAfter(int64_t unix_ms) const;
  // On the loop's thread: takes the list UpdateCampaigns left, if any.
  void ApplyCampaignUpdate(int64_t now_ms);

  std::vector<internal::CampaignBudget> campaigns_;
  std::unique_ptr<internal::CampaignUpdates> updates_;
  int worker_id_ = 0;
  bool follow_ = false;
  int64_t flush_interval_ms_ = 0;
  int64_t controller_interval_ms_ = 0;
  int64_t state_max_age_ms_ = 0;
  std::shared_ptr<const storage::Clock> clock_;
  std::unique_ptr<internal::WorkerIdClaim> claim_;
  // Released last (~Pacer), after the final flush.
  std::unique_ptr<leases::Lease> lease_;
  std::atomic<bool> id_lost_{false};
  bool gave_up_id_ = false;
  std::function<void()> on_worker_id_lost_;
  std::unique_ptr<internal::PacingMetrics> metrics_;
  std::unique_ptr<SpendRecorder> spend_;
  std::unique_ptr<Decisions> decisions_;
  std::unique_ptr<internal::WorkerSpendJournal> journal_;  // null without a journal
  std::unique_ptr<internal::SpendFlusher> flusher_;
  std::unique_ptr<internal::BudgetController> controller_;  // sidecar
  std::unique_ptr<internal::DecisionBoard> board_;          // pacer mode
  std::unique_ptr<internal::OrphanJournals> orphans_;       // with a lease and a journal
  std::unique_ptr<internal::LoopThread> loop_;
  int64_t started_at_ms_ = 0;
  int64_t next_flush_ms_ = 0;
  int64_t next_boundary_ms_ = 0;
  int64_t next_control_ms_ = 0;
  uint64_t exported_refusals_ = 0;
  mutable absl::Mutex statuses_mu_;
  std::vector<CampaignPacingStatus> statuses_ ABSL_GUARDED_BY(statuses_mu_);
};

// The rtb-pacer process's loop (pacing.mode "pacer"): controls every campaign
// from the shards all workers write, and publishes the decisions in the store
// for the workers' Pacers to follow. It records no spend itself.
class PacerService {
 public:
  // As Pacer::Create, without a worker id.
  static absl::StatusOr<std::unique_ptr<PacerService>> Create(const config::BidderConfig& config,
                                                              storage::Store& store,
                                                              prometheus::Registry* registry,
                                                              PacerOptions options = {});
  ~PacerService();  // Stop()
  PacerService(const PacerService&) = delete;
  PacerService& operator=(const PacerService&) = delete;

  // Publishes the first decisions, then starts the loop thread.
  absl::Status Start();
  void Stop();
  void RunDue();
  int64_t NextDueMillis() const { return next_control_ms_; }

  // As Pacer::UpdateCampaigns: the campaigns table changed (rtb-pacer
  // follows it as the workers do). Applied at the next step, which decides
  // at once; appended campaigns take free positions up to
  // PacerOptions::campaign_capacity.
  absl::Status UpdateCampaigns(const std::vector<config::CampaignConfig>& by_position);

  // This process's own view of what it published (tests, logs).
  const Decisions& decisions() const { return *decisions_; }
  // The controller behind the decisions, with their inputs (tests).
  const internal::BudgetController& controller() const { return *controller_; }

 private:
  PacerService();
  void Control(int64_t now_ms);
  // On the loop's thread: takes the list UpdateCampaigns left, if any.
  void ApplyCampaignUpdate(int64_t now_ms);

  std::vector<internal::CampaignBudget> campaigns_;
  std::unique_ptr<internal::CampaignUpdates> updates_;
  int64_t controller_interval_ms_ = 0;
  int64_t state_max_age_ms_ = 0;
  std::shared_ptr<const storage::Clock> clock_;
  std::unique_ptr<internal::PacingMetrics> metrics_;
  std::unique_ptr<Decisions> decisions_;
  std::unique_ptr<internal::BudgetController> controller_;
  std::unique_ptr<internal::DecisionBoard> board_;
  std::unique_ptr<internal::LoopThread> loop_;
  int64_t started_at_ms_ = 0;
  int64_t next_control_ms_ = 0;
};

}  // namespace rtb::pacing

#endif  // RTB_PACING_PACER_H_
