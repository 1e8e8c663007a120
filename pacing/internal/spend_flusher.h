// Writes a worker's recorded spend to its budget shard: per campaign with
// spend, one Increment of spend:<day> on row campaignId|NN (see
// budget_shard.h), with a nonce.
//
// Without a journal, the spend is the SpendRecorder's, booked to the day the
// flush closes. A failed Increment is kept verbatim (same row, day, amount
// and nonce) and sent again first at the next flush; spend recorded
// meanwhile stays in the recorder until that retry succeeds. So a retry the
// store had in fact applied is recognised by its nonce and counts once, and
// new spend is never folded into an amount the store may already hold.
//
// With a journal (spend_journal.h), a flush first recovers what an earlier
// incarnation left (once: it reads every campaign's position from its shard
// row), settles the unsettled entries, then takes the journal's released
// sums with its watermark W. Each campaign's Increment adds its spend to
// each day it holds AND moves the worker's position pos:<worker> from P to
// W, in one Increment: atomic for the row, so the row says exactly which
// entries its spend includes. A failed Increment is in doubt; the next flush
// reads the position back: W means it was applied, P that it was not (its
// spend is then sent again, with whatever came since). That is exact on
// every backend, nonce or not, provided a failed call no longer lands once
// the next flush reads (see README, "Budget pacing"). Once counted, the
// entries' rows are deleted in batches. Spend given to the recorder directly
// joins the Increments as without a journal (booked to the day the flush
// closes, lost in a crash).
//
// An Unavailable or DeadlineExceeded answer ends the flush: the campaigns
// not reached keep their spend for the next one, and a store that is down
// costs one timeout.
//
// Thread-safety: one thread calls Recover and Flush (the pacing loop).
#ifndef RTB_PACING_INTERNAL_SPEND_FLUSHER_H_
#define RTB_PACING_INTERNAL_SPEND_FLUSHER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "pacing/internal/campaign_budget.h"
#include "pacing/internal/pacing_metrics.h"
#include "pacing/internal/spend_journal.h"
#include "pacing/pacer.h"
#include "storage/store.h"

namespace rtb::pacing::internal {

struct FlushResult {
  int increments_ok = 0;
  int increments_failed = 0;
  int64_t micros_flushed = 0;
  // Journal entries whose rows were deleted after their spend was counted.
  int entries_deleted = 0;
  // With a journal: recovery has not completed, nothing was flushed.
  bool unrecovered = false;
};

// A seed for a SpendFlusher's nonces from the system's random device: a
// new one per incarnation of a worker.
uint64_t RandomNonceSeed();

class SpendFlusher {
 public:
  // `campaigns`, `recorder`, `store`, `metrics` and `journal` (may be null:
  // no journal) must outlive this. `nonce_seed` must differ between
  // incarnations of a worker.
  SpendFlusher(int worker_id, const std::vector<CampaignBudget>& campaigns, SpendRecorder& recorder,
               storage::Store& store, PacingMetrics& metrics, uint64_t nonce_seed,
               WorkerSpendJournal* journal = nullptr);

  // Flushes what was recorded up to `as_of_ms`, attributed (recorder spend)
  // to the day each campaign was in just before that instant (so a flush
  // scheduled at a campaign's midnight books the day that ended).
  FlushResult Flush(int64_t as_of_ms);

  // Starts flushing the campaigns appended to `campaigns` since (positions
  // are kept for good), and tells the journal of them.
  void TrackAppendedCampaigns();

  // With a journal: reads the positions and recovers the journal entries of
  // earlier incarnations, once; Flush calls it until it succeeds. OK without
  // a journal.
  absl::Status Recover();
  bool recovered() const { return recovered_; }
  // With a journal: recovered, and nothing is left to send, settle, delete
  // or read again, here or in the journal.
  bool Idle() const;

  // Spend held by failed Increments (and, with a journal, taken but not yet
  // sent), per campaign (0 when none).
  int64_t Unacknowledged(size_t campaign) const;
  // The position last known to be stored for the campaign (journal).
  int64_t position(size_t campaign) const { return journaled_[campaign].position; }

 private:
  // Spend of one campaign taken for the store, and the journal entries
  // behind it.
  struct Batch {
    std::vector<DaySpend> days;
    std::vector<uint64_t> sequences;
    int64_t to = 0;  // the position it moves to; 0: it holds no entry

    void Add(std::string_view day, int64_t micros);
    void Merge(Batch other);
    int64_t micros() const;
    bool empty() const { return days.empty(); }
  };
  struct InDoubt {
    Batch batch;
    storage::Increment increment;
    bool moves_position = false;
  };
  struct JournaledCampaign {
    bool position_read = true;  // false: read the row before moving P
    int64_t position = 0;       // P: what the row says, as far as known
    Batch unsent;
    std::optional<InDoubt> in_doubt;
  };
  enum class Sent { kOk, kFailed, kStoreDown };

  uint64_t NextNonce();
  // Reads campaign `i`'s position when not known yet; false on a failed read.
  bool ReadPosition(size_t i);
  FlushResult FlushRecorded(int64_t as_of_ms);
  FlushResult FlushJournaled(int64_t as_of_ms);
  // Settles campaign `i`'s Increment in doubt: kOk when it is known to be
  // applied (counted) or not (its batch back in `unsent`), else the campaign
  // waits for the next flush.
  Sent ResolveInDoubt(size_t i, FlushResult& result);
  // Sends campaign `i`'s batch; a failure leaves it in doubt.
  Sent Send(size_t i, Batch batch, FlushResult& result);
  // The batch is in the store: metrics, and its entries' rows may go.
  void Counted(size_t i, Batch& batch, FlushResult& result);

  int worker_id_;
  const std::vector<CampaignBudget>& campaigns_;
  SpendRecorder& recorder_;
  storage::Store& store_;
  PacingMetrics& metrics_;
  WorkerSpendJournal* journal_;
  std::vector<std::string> rows_;
  std::string position_qualifier_;
  std::vector<std::optional<storage::Increment>> unacknowledged_;  // without a journal
  std::vector<JournaledCampaign> journaled_;                       // with one
  std::vector<uint64_t> deletable_;  // counted entries whose rows are left
  bool recovered_ = false;
  uint64_t nonce_seed_;
  uint64_t sequence_ = 0;
};

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_SPEND_FLUSHER_H_
