// A worker's spend journal (the SpendJournal of pacing/pacer.h): the entries
// of the impressions it records, in the `spend_journal` table until their
// spend is counted in the worker's budget shard (layout:
// spend_journal_layout.h), and in memory the state that tells the flusher
// which of them it may count.
//
// Sequences. Begin hands out increasing sequences from a block of
// `block_size` the worker reserves with one Increment of its counter row; a
// new block when one runs out. A restarted worker reserves a fresh block, so
// it never reuses a sequence (a crash only wastes the rest of a block).
//
// Watermark. W is the highest sequence such that every sequence up to W that
// this incarnation handed out is settled (committed, abandoned or a Begin
// that failed). A committed entry above W is held back; when W passes it,
// its amount joins the released sums, by campaign and day, which the flusher
// takes together with W in one step under the lock. So what a flush counts
// for a campaign is exactly its committed entries up to W, and the position
// the flush writes beside the spend (budget_shard.h) is W: a restarted worker
// knows from the budget row alone which of its entries are counted.
//
// An entry whose claim failed without an answer is Unsettled: it stays in
// flight, holding W back, until ResolveUnsettled reads its impression row:
// the claim named this entry's key (committed) or not (abandoned).
//
// Recovery, in a new incarnation before its first flush: Recover reads the
// entries earlier incarnations left (every sequence below this incarnation's
// first), deletes those at or below their campaign's position (counted
// already), and releases those whose impression row names them: committed
// entries the previous incarnation had not flushed. The rest (the claim
// never happened, or a duplicate won it) are read again one flush later,
// like unsettled entries, and deleted then unless a claim naming them has
// landed meanwhile: a claim the dead process sent may still be queued in a
// remote store when the restarted worker first reads.
//
// Thread-safety: Begin, Commit, Abandon, Unsettled and Pending may be called
// from any number of threads at once; they take one mutex for a few map
// operations, and only Begin and Abandon call the store (outside the lock,
// except the rare block reservation). The flusher's side (ReserveFirstBlock,
// Recover, ResolveUnsettled, TakeReleased, DeleteEntries) runs on one thread.
#ifndef RTB_PACING_INTERNAL_SPEND_JOURNAL_H_
#define RTB_PACING_INTERNAL_SPEND_JOURNAL_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "pacing/internal/campaign_budget.h"
#include "pacing/internal/pacing_metrics.h"
#include "pacing/pacer.h"
#include "storage/store.h"

namespace rtb::pacing::internal {

// Spend of one campaign on one day (yyyymmdd).
struct DaySpend {
  std::string day;
  int64_t micros = 0;
};

// Released spend of one campaign: its sums by day and the entries behind
// them, whose rows the flusher deletes once the sums are counted.
struct CampaignRelease {
  std::vector<DaySpend> days;
  std::vector<uint64_t> sequences;

  void Add(std::string_view day, int64_t micros, uint64_t sequence);
  bool empty() const { return days.empty(); }
};

struct JournalRelease {
  // Every entry up to here is settled, and the committed ones are in
  // `campaigns` or were in an earlier release.
  uint64_t watermark = 0;
  std::vector<CampaignRelease> campaigns;  // one per campaign, config order
};

// What Recover found.
struct JournalRecovery {
  int counted = 0;           // at or below their position: deleted
  int committed = 0;         // claimed, not yet counted: released
  int abandoned = 0;         // torn rows: deleted
  int unclaimed = 0;         // not named by their impression row (yet): rechecked
                             // at the second ResolveUnsettled, then deleted or
                             // counted
  int unknown_campaign = 0;  // of a campaign no longer configured: left
  int64_t committed_micros = 0;
};

class WorkerSpendJournal final : public SpendJournal {
 public:
  // Sequences reserved at a time by default.
  static constexpr uint64_t kDefaultBlock = 1000000;

  // `campaigns`, `store` and `metrics` must outlive this. `worker_id` in
  // [0, 65535]; `block_size` > 0.
  WorkerSpendJournal(int worker_id, const std::vector<CampaignBudget>& campaigns,
                     storage::Store& store, PacingMetrics& metrics,
                     uint64_t block_size = kDefaultBlock);

  // Campaigns appended to the pacer's list since (positions never change):
  // entries may be begun for them. From the pacing loop's thread.
  void TrackCampaigns(const std::vector<CampaignBudget>& campaigns) ABSL_LOCKS_EXCLUDED(mu_);
  // Begin refuses from now on (FailedPrecondition): the worker id's lease
  // was lost, and nothing may be written under it. Any thread.
  void Revoke() { revoked_.store(true); }
  // Begin accepts again (the id's lease was taken back).
  void Restore() { revoked_.store(false); }
  // Whether the worker's sequence counter still ends this incarnation's
  // block: false once anybody else reserved under the id (a process that
  // took the id over, or recovered it as an orphan, reserves a block before
  // it writes anything else). From the pacing loop's thread.
  absl::StatusOr<bool> CounterUnchanged();

  absl::StatusOr<SpendJournalEntry> Begin(size_t campaign_index, int64_t micros,
                                          std::string_view impression_id, int64_t now_ms) override;
  void Commit(const SpendJournalEntry& entry) override;
  void Abandon(const SpendJournalEntry& entry) override;
  void Unsettled(SpendJournalEntry entry) override;
  int64_t Pending(size_t campaign_index) const override;

  // Reserves this incarnation's first block, unless done. Recover needs it:
  // entries below it are the earlier incarnations'.
  absl::Status ReserveFirstBlock();
  // See the top of this file. `positions` holds each campaign's position
  // (config order), read from the budget rows. On an error nothing is
  // released and Recover may be called again; entries already deleted were
  // not needed.
  absl::StatusOr<JournalRecovery> Recover(const std::vector<int64_t>& positions);
  // Settles the Unsettled entries whose impression row can be read. Returns
  // how many are still unsettled.
  size_t ResolveUnsettled();
  // The released sums and the watermark, atomically; the sums restart at 0.
  JournalRelease TakeReleased();
  // Deletes the rows of these entries of this worker (their spend is counted).
  absl::Status DeleteEntries(std::span<const uint64_t> sequences);

  uint64_t watermark() const;
  size_t in_flight() const;
  // Entries begun and not yet taken by a flush: in flight (unsettled ones
  // included), committed above W, or released.
  size_t waiting() const;
  // Nothing waiting, unsettled or to be read again.
  bool Drained() const;
  int worker_id() const { return worker_id_; }

 private:
  struct Held {
    size_t campaign = 0;
    std::string day;
    int64_t micros = 0;
  };

  // The next sequence, reserving a block when none is left; the sequence is
  // in flight from here.
  absl::StatusOr<uint64_t> NextSequence() ABSL_LOCKS_EXCLUDED(mu_, reserve_mu_);
  // One Increment of the counter row by the block size: the block is the
  // block_size sequences up to the new value.
  absl::Status ReserveBlock() ABSL_EXCLUSIVE_LOCKS_REQUIRED(reserve_mu_) ABSL_LOCKS_EXCLUDED(mu_);
  // Settles `sequence`: no longer in flight; `committed` (may be null) holds
  // its amount back until the watermark passes it.
  void Settle(uint64_t sequence, const Held* committed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AdvanceWatermark() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Release(uint64_t sequence, const Held& held) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int worker_id_;
  std::atomic<bool> revoked_{false};
  storage::Store& store_;
  PacingMetrics& metrics_;
  const uint64_t block_size_;

  // Held while a block is reserved, so two threads never reserve at once.
  absl::Mutex reserve_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  // The campaigns by position (a copy: beacon threads read it while the
  // pacing loop appends), and their positions by id.
  std::vector<CampaignBudget> campaigns_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, size_t> campaign_index_ ABSL_GUARDED_BY(mu_);
  uint64_t first_sequence_ ABSL_GUARDED_BY(mu_) = 0;  // 0: no block yet
  uint64_t next_ ABSL_GUARDED_BY(mu_) = 0;            // next to hand out
  uint64_t block_end_ ABSL_GUARDED_BY(mu_) = 0;       // last of the block
  uint64_t watermark_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<uint64_t> in_flight_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, Held> held_ ABSL_GUARDED_BY(mu_);  // committed, above W
  std::vector<CampaignRelease> released_ ABSL_GUARDED_BY(mu_);
  std::vector<SpendJournalEntry> unsettled_ ABSL_GUARDED_BY(mu_);
  // Recovery's unclaimed entries, moved to unsettled_ by the next
  // ResolveUnsettled so that the one after decides them.
  std::vector<SpendJournalEntry> recheck_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_SPEND_JOURNAL_H_
