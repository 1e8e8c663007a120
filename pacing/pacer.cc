#include "pacing/pacer.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "pacing/internal/budget_controller.h"
#include "pacing/internal/campaign_budget.h"
#include "pacing/internal/decision_board.h"
#include "pacing/internal/loop_thread.h"
#include "pacing/internal/orphan_journals.h"
#include "pacing/internal/pacing_metrics.h"
#include "pacing/internal/spend_flusher.h"
#include "pacing/internal/spend_journal.h"
#include "pacing/internal/worker_ids.h"
#include "pacing/internal/worker_lease.h"

namespace rtb::pacing {
namespace {

using internal::CampaignBudget;

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// The checks of config/config_validation.cc that keep the loop's arithmetic sound,
// for configs built in code.
absl::Status CheckPacingConfig(const config::PacingConfig& pacing) {
  if (pacing.worker_id < 0 && pacing.worker_id != config::kAutoWorkerId) {
    return absl::InvalidArgumentError("pacing.worker_id must be >= 0 or \"auto\"");
  }
  if (pacing.flush_interval_ms <= 0) {
    return absl::InvalidArgumentError("pacing.flush_interval_ms must be > 0");
  }
  if (pacing.controller_interval_ms <= 0) {
    return absl::InvalidArgumentError("pacing.controller_interval_ms must be > 0");
  }
  if (pacing.state_max_age_ms <= pacing.controller_interval_ms) {
    return absl::InvalidArgumentError(
        "pacing.state_max_age_ms must be greater than pacing.controller_interval_ms");
  }
  if (int64_t{pacing.sliding_window_s} * 1000 < pacing.flush_interval_ms) {
    return absl::InvalidArgumentError("pacing.sliding_window_s must cover a flush interval");
  }
  return absl::OkStatus();
}

internal::ControllerOptions ControllerOptionsFor(const config::PacingConfig& pacing,
                                                 bool workers_poll) {
  internal::ControllerOptions options;
  options.flush_interval_ms = pacing.flush_interval_ms;
  options.controller_interval_ms = pacing.controller_interval_ms;
  options.sliding_window_ms = int64_t{pacing.sliding_window_s} * 1000;
  options.follow_delay_ms = workers_poll ? pacing.controller_interval_ms : 0;
  return options;
}

absl::StatusOr<std::unique_ptr<internal::PacingMetrics>> MakeMetrics(
    prometheus::Registry* registry, const std::vector<CampaignBudget>& campaigns, bool flushes) {
  std::vector<std::string> ids;
  std::vector<int64_t> budgets;
  for (const CampaignBudget& campaign : campaigns) {
    ids.push_back(campaign.id);
    budgets.push_back(campaign.daily_budget_micros);
  }
  // prometheus-cpp throws on a name clash; at start-up that is an error to
  // report, not a crash.
  try {
    return std::make_unique<internal::PacingMetrics>(registry, ids, budgets, flushes);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot declare the pacing metrics: ", e.what()));
  }
}

void SetMetricCampaigns(const std::vector<CampaignBudget>& campaigns,
                        internal::PacingMetrics& metrics) {
  std::vector<std::string> ids;
  std::vector<int64_t> budgets;
  for (const CampaignBudget& campaign : campaigns) {
    ids.push_back(campaign.id);
    budgets.push_back(campaign.daily_budget_micros);
  }
  metrics.SetCampaigns(ids, budgets);
}

// Leaves the list for the loop's next step and wakes it. `loop` is set and
// reset by Start and Stop only, on the owner's thread; an update racing them
// is applied by the next RunDue anyway.
absl::Status HandOver(const std::vector<config::CampaignConfig>& by_position,
                      internal::CampaignUpdates& updates, internal::LoopThread* loop) {
  if (absl::Status s = updates.Offer(by_position); !s.ok()) return s;
  if (loop != nullptr) loop->Wake();
  return absl::OkStatus();
}

// The worker id, leased (PacerOptions::lease_worker_id) or as configured,
// and this process's claim of it.
struct WorkerIdentity {
  int worker_id = 0;
  std::unique_ptr<leases::Lease> lease;
  std::unique_ptr<internal::WorkerIdClaim> claim;
};

absl::StatusOr<WorkerIdentity> TakeWorkerId(const config::PacingConfig& pacing,
                                            storage::Store& store,
                                            const internal::WorkerLeaseOptions& lease_options,
                                            bool lease) {
  WorkerIdentity identity;
  identity.worker_id = pacing.worker_id == config::kAutoWorkerId ? 0 : pacing.worker_id;
  // A configured id another Pacer of this process holds is refused at once,
  // without waiting for the lease.
  if (!lease || pacing.worker_id != config::kAutoWorkerId) {
    absl::StatusOr<std::unique_ptr<internal::WorkerIdClaim>> claim =
        internal::WorkerIdClaim::Claim(identity.worker_id);
    if (!claim.ok()) return claim.status();
    identity.claim = *std::move(claim);
  }
  if (!lease) return identity;
  absl::StatusOr<std::unique_ptr<leases::Lease>> leased =
      internal::LeaseWorkerId(store, pacing.worker_id, lease_options);
  if (!leased.ok()) return leased.status();
  identity.worker_id = internal::LeasedWorkerId(**leased);
  identity.lease = *std::move(leased);
  if (identity.claim == nullptr) {
    absl::StatusOr<std::unique_ptr<internal::WorkerIdClaim>> claim =
        internal::WorkerIdClaim::Claim(identity.worker_id);
    if (!claim.ok()) return claim.status();
    identity.claim = *std::move(claim);
  }
  return identity;
}

internal::WorkerLeaseOptions WorkerLeaseOptionsFor(const config::PacingConfig& pacing,
                                                   const PacerOptions& options) {
  internal::WorkerLeaseOptions lease;
  lease.ttl_ms = pacing.worker_lease_ttl_ms;
  if (!options.lease_holder.empty()) lease.holder = options.lease_holder;
  return lease;
}

// Age of the oldest decision, and how many are past their validity.
// Positions past `campaigns` are free capacity, never decided.
void ExportAge(const Decisions& decisions, size_t campaigns, int64_t max_age_ms,
               int64_t started_at_ms, int64_t now_ms, internal::PacingMetrics& metrics) {
  int64_t oldest = now_ms;
  int stale = 0;
  for (size_t i = 0; i < campaigns && i < decisions.campaigns(); ++i) {
    const int64_t valid_until = decisions.valid_until_ms(i);
    const int64_t computed_at = valid_until == 0 ? started_at_ms : valid_until - max_age_ms;
    oldest = std::min(oldest, computed_at);
    if (valid_until <= now_ms) ++stale;
  }
  metrics.SetStateAge(static_cast<double>(std::max<int64_t>(now_ms - oldest, 0)) / 1000.0, stale);
}

}  // namespace

// ---------------------------------------------------------------------------
// Pacer

Pacer::Pacer() = default;

Pacer::~Pacer() {
  Stop();
  // Before any member goes: the lease's threads call WorkerIdLost.
  orphans_.reset();
  lease_.reset();
}

void Pacer::WorkerIdLost() {
  id_lost_.store(true);
  decisions_->Revoke();
  if (journal_ != nullptr) journal_->Revoke();
}

void Pacer::TryToTakeTheIdBack(int64_t now_ms) {
  if (gave_up_id_ || lease_ == nullptr) return;
  auto give_up = [this](const std::string& why) {
    gave_up_id_ = true;
    std::fprintf(stderr, "worker id %d given up: %s\n", worker_id_, why.c_str());
    if (on_worker_id_lost_) on_worker_id_lost_();
  };
  if (absl::Status s = lease_->Reclaim(); !s.ok()) {
    if (s.code() == absl::StatusCode::kFailedPrecondition) give_up(std::string(s.message()));
    return;  // the store is still away: the next step tries again
  }
  if (journal_ != nullptr) {
    // Nobody wrote under the id meanwhile, or this incarnation's view of
    // its journal and positions would be wrong.
    absl::StatusOr<bool> unchanged = journal_->CounterUnchanged();
    if (!unchanged.ok()) return;  // held again: read at the next step
    if (!*unchanged) {
      give_up("another process wrote under the id while its lease was lost");
      return;
    }
    journal_->Restore();
  }
  id_lost_.store(false);
  decisions_->Restore();
  next_control_ms_ = now_ms;  // publish again at once
}

std::vector<int> Pacer::adopted_worker_ids() const {
  return orphans_ != nullptr ? orphans_->adopted_ids() : std::vector<int>{};
}

absl::StatusOr<std::unique_ptr<Pacer>> Pacer::Create(const config::BidderConfig& config,
                                                     storage::Store& store,
                                                     prometheus::Registry* registry,
                                                     PacerOptions options) {
  if (absl::Status s = CheckPacingConfig(config.pacing); !s.ok()) return s;
  absl::StatusOr<std::vector<CampaignBudget>> campaigns =
      internal::CampaignBudgets(config.campaigns);
  if (!campaigns.ok()) return campaigns.status();

  std::unique_ptr<Pacer> pacer(new Pacer());
  internal::WorkerLeaseOptions lease_options = WorkerLeaseOptionsFor(config.pacing, options);
  lease_options.on_lost = [raw = pacer.get()] { raw->WorkerIdLost(); };
  absl::StatusOr<WorkerIdentity> identity =
      TakeWorkerId(config.pacing, store, lease_options, options.lease_worker_id);
  if (!identity.ok()) return identity.status();
  pacer->claim_ = std::move(identity->claim);
  pacer->lease_ = std::move(identity->lease);
  pacer->on_worker_id_lost_ = std::move(options.on_worker_id_lost);
  pacer->campaigns_ = *std::move(campaigns);
  pacer->worker_id_ = identity->worker_id;
  pacer->follow_ = config.pacing.mode == config::PacingProcessMode::kPacer;
  pacer->flush_interval_ms_ = config.pacing.flush_interval_ms;
  pacer->controller_interval_ms_ = config.pacing.controller_interval_ms;
  pacer->state_max_age_ms_ = config.pacing.state_max_age_ms;
  pacer->clock_ = options.clock ? options.clock : storage::SystemClock();

  absl::StatusOr<std::unique_ptr<internal::PacingMetrics>> metrics =
      MakeMetrics(registry, pacer->campaigns_, /*flushes=*/true);
  if (!metrics.ok()) return metrics.status();
  pacer->metrics_ = *std::move(metrics);

  const size_t n = std::max(pacer->campaigns_.size(), options.campaign_capacity);
  pacer->updates_ = std::make_unique<internal::CampaignUpdates>(pacer->campaigns_, n);
  pacer->spend_ = std::make_unique<SpendRecorder>(n);
  pacer->decisions_ = std::make_unique<Decisions>(n, pacer->clock_);
  if (options.spend_journal) {
    if (options.journal_block == 0) {
      return absl::InvalidArgumentError("the spend journal's block must be > 0");
    }
    pacer->journal_ = std::make_unique<internal::WorkerSpendJournal>(
        pacer->worker_id_, pacer->campaigns_, store, *pacer->metrics_, options.journal_block);
  }
  pacer->flusher_ = std::make_unique<internal::SpendFlusher>(
      pacer->worker_id_, pacer->campaigns_, *pacer->spend_, store, *pacer->metrics_,
      options.nonce_seed != 0 ? options.nonce_seed : internal::RandomNonceSeed(),
      pacer->journal_.get());
  if (pacer->lease_ != nullptr && pacer->journal_ != nullptr) {
    pacer->orphans_ = std::make_unique<internal::OrphanJournals>(
        pacer->campaigns_, store, *pacer->metrics_, WorkerLeaseOptionsFor(config.pacing, options));
  }
  if (pacer->follow_) {
    pacer->board_ = std::make_unique<internal::DecisionBoard>(pacer->campaigns_, store);
  } else {
    pacer->controller_ = std::make_unique<internal::BudgetController>(
        pacer->campaigns_, ControllerOptionsFor(config.pacing, /*workers_poll=*/false), store,
        *pacer->metrics_);
  }

  const int64_t now = pacer->clock_->NowMillis();
  pacer->started_at_ms_ = now;
  pacer->next_flush_ms_ = now + pacer->flush_interval_ms_;
  pacer->next_boundary_ms_ = pacer->NextBoundaryAfter(now);
  pacer->next_control_ms_ = now;
  return pacer;
}

absl::Status Pacer::Start() {
  if (loop_ != nullptr && loop_->running()) {
    return absl::FailedPreconditionError("the pacer is already started");
  }
  const int64_t now = clock_->NowMillis();
  // Campaigns handed over before the start (the campaigns table's) are
  // placed first, so the recovery below covers their journal entries too.
  ApplyCampaignUpdate(now);
  // Earlier incarnations' journal entries, before the first beacon when the
  // store answers; otherwise the first flush that reaches the store does it.
  (void)flusher_->Recover();
  ControlOrFollow(now);
  next_control_ms_ = now + controller_interval_ms_;
  ExportLoopMetrics(now);
  loop_ = std::make_unique<internal::LoopThread>(
      clock_, [this] { RunDue(); }, [this] { return NextDueMillis(); });
  loop_->Start();
  return absl::OkStatus();
}

void Pacer::Stop() {
  if (loop_ == nullptr) return;
  loop_->Stop();
  loop_.reset();
  FlushNow();
}

absl::Status Pacer::UpdateCampaigns(const std::vector<config::CampaignConfig>& by_position) {
  return HandOver(by_position, *updates_, loop_.get());
}

void Pacer::ApplyCampaignUpdate(int64_t now_ms) {
  std::optional<std::vector<CampaignBudget>> update = updates_->Take();
  if (!update.has_value()) return;
  {
    // CampaignStatuses reads campaigns_ under this mutex.
    absl::MutexLock lock(&statuses_mu_);
    campaigns_ = *std::move(update);
  }
  SetMetricCampaigns(campaigns_, *metrics_);
  flusher_->TrackAppendedCampaigns();
  if (orphans_ != nullptr) orphans_->TrackAppendedCampaigns();
  if (follow_) {
    board_->TrackAppendedCampaigns();
  } else {
    controller_->TrackAppendedCampaigns();
  }
  // A new budget is followed now, not at the next period; a new time zone
  // moves the next midnight.
  next_control_ms_ = now_ms;
  next_boundary_ms_ = NextBoundaryAfter(now_ms);
}

void Pacer::RunDue() {
  const int64_t now = clock_->NowMillis();
  if (id_lost_.load()) TryToTakeTheIdBack(now);
  ApplyCampaignUpdate(now);
  // Each due flush in time order, so a midnight between two regular flushes
  // gets its own flush and the day that ended keeps its spend.
  while (true) {
    const int64_t due = std::min(next_flush_ms_, next_boundary_ms_);
    if (due > now) break;
    Flush(due);
    if (next_flush_ms_ == due) {
      next_flush_ms_ += flush_interval_ms_;
      if (next_flush_ms_ <= now) next_flush_ms_ = now + flush_interval_ms_;
    }
    if (next_boundary_ms_ == due) next_boundary_ms_ = NextBoundaryAfter(due);
  }
  if (now >= next_control_ms_) {
    ControlOrFollow(now);
    next_control_ms_ += controller_interval_ms_;
    if (next_control_ms_ <= now) next_control_ms_ = now + controller_interval_ms_;
  }
  ExportLoopMetrics(now);
}

int64_t Pacer::NextDueMillis() const {
  return std::min({next_flush_ms_, next_boundary_ms_, next_control_ms_});
}

void Pacer::FlushNow() { Flush(clock_->NowMillis()); }

SpendJournal* Pacer::journal() { return journal_.get(); }

void Pacer::Flush(int64_t as_of_ms) {
  // Nothing more under an id another process may hold by now.
  if (id_lost_.load()) return;
  flusher_->Flush(as_of_ms);
  if (orphans_ != nullptr) orphans_->Flush(as_of_ms);
}

void Pacer::ControlOrFollow(int64_t now_ms) {
  if (follow_) {
    std::vector<std::optional<internal::BoardEntry>> entries;
    if (!board_->ReadInto(*decisions_, state_max_age_ms_, &entries).ok()) {
      metrics_->CountStoreError(internal::StoreOperation::kBoardRead);
      return;
    }
    RecordStatuses(&entries);
    return;
  }
  controller_->Tick(now_ms);
  for (size_t i = 0; i < controller_->campaigns(); ++i) {
    const internal::CampaignDecision& d = controller_->decision(i);
    if (d.computed_at_ms == now_ms) {
      decisions_->Publish(i, d.decision.throttle, now_ms + state_max_age_ms_);
    }
  }
  RecordStatuses(nullptr);
}

void Pacer::RecordStatuses(const std::vector<std::optional<internal::BoardEntry>>* board_entries) {
  absl::MutexLock lock(&statuses_mu_);
  statuses_.resize(campaigns_.size());
  for (size_t i = 0; i < campaigns_.size(); ++i) {
    CampaignPacingStatus& status = statuses_[i];
    status.campaign_id = campaigns_[i].id;
    status.daily_budget_micros = campaigns_[i].daily_budget_micros;
    status.valid_until_ms = decisions_->valid_until_ms(i);
    if (board_entries != nullptr) {
      if (i >= board_entries->size() || !(*board_entries)[i].has_value()) continue;
      const internal::BoardEntry& entry = *(*board_entries)[i];
      status.spent_today_micros = entry.spent_today_micros;
      status.throttle = entry.throttle;
      status.stopped = entry.stopped;
      status.decided_at_ms = entry.computed_at_ms;
      continue;
    }
    const internal::CampaignDecision& d = controller_->decision(i);
    if (d.computed_at_ms == 0) continue;
    status.spent_today_micros = d.spent_today_micros;
    status.throttle = d.decision.throttle;
    status.stopped = d.decision.stopped;
    status.decided_at_ms = d.computed_at_ms;
  }
}

std::vector<CampaignPacingStatus> Pacer::CampaignStatuses() const {
  absl::MutexLock lock(&statuses_mu_);
  if (statuses_.size() == campaigns_.size()) return statuses_;
  std::vector<CampaignPacingStatus> fresh(campaigns_.size());
  for (size_t i = 0; i < campaigns_.size(); ++i) {
    fresh[i].campaign_id = campaigns_[i].id;
    fresh[i].daily_budget_micros = campaigns_[i].daily_budget_micros;
  }
  return fresh;
}

void Pacer::ExportLoopMetrics(int64_t now_ms) {
  const uint64_t refusals = decisions_->fail_safe_refusals();
  metrics_->AddFailSafeRefusals(refusals - exported_refusals_);
  exported_refusals_ = refusals;
  ExportAge(*decisions_, campaigns_.size(), state_max_age_ms_, started_at_ms_, now_ms, *metrics_);
}

int64_t Pacer::NextBoundaryAfter(int64_t unix_ms) const {
  int64_t next = kNever;
  for (const CampaignBudget& campaign : campaigns_) {
    next = std::min(next, campaign.day.EndMillis(campaign.day.DayAt(unix_ms)));
  }
  return next;
}

// ---------------------------------------------------------------------------
// PacerService

PacerService::PacerService() = default;

PacerService::~PacerService() { Stop(); }

absl::StatusOr<std::unique_ptr<PacerService>> PacerService::Create(
    const config::BidderConfig& config, storage::Store& store, prometheus::Registry* registry,
    PacerOptions options) {
  if (absl::Status s = CheckPacingConfig(config.pacing); !s.ok()) return s;
  absl::StatusOr<std::vector<CampaignBudget>> campaigns =
      internal::CampaignBudgets(config.campaigns);
  if (!campaigns.ok()) return campaigns.status();

  std::unique_ptr<PacerService> service(new PacerService());
  service->campaigns_ = *std::move(campaigns);
  service->controller_interval_ms_ = config.pacing.controller_interval_ms;
  service->state_max_age_ms_ = config.pacing.state_max_age_ms;
  service->clock_ = options.clock ? options.clock : storage::SystemClock();
  absl::StatusOr<std::unique_ptr<internal::PacingMetrics>> metrics =
      MakeMetrics(registry, service->campaigns_, /*flushes=*/false);
  if (!metrics.ok()) return metrics.status();
  service->metrics_ = *std::move(metrics);
  const size_t n = std::max(service->campaigns_.size(), options.campaign_capacity);
  service->updates_ = std::make_unique<internal::CampaignUpdates>(service->campaigns_, n);
  service->decisions_ = std::make_unique<Decisions>(n, service->clock_);
  service->controller_ = std::make_unique<internal::BudgetController>(
      service->campaigns_, ControllerOptionsFor(config.pacing, /*workers_poll=*/true), store,
      *service->metrics_);
  service->board_ = std::make_unique<internal::DecisionBoard>(service->campaigns_, store);
  service->started_at_ms_ = service->clock_->NowMillis();
  service->next_control_ms_ = service->started_at_ms_;
  return service;
}

absl::Status PacerService::Start() {
  if (loop_ != nullptr && loop_->running()) {
    return absl::FailedPreconditionError("the pacer service is already started");
  }
  RunDue();
  loop_ = std::make_unique<internal::LoopThread>(
      clock_, [this] { RunDue(); }, [this] { return NextDueMillis(); });
  loop_->Start();
  return absl::OkStatus();
}

void PacerService::Stop() {
  if (loop_ == nullptr) return;
  loop_->Stop();
  loop_.reset();
}

absl::Status PacerService::UpdateCampaigns(const std::vector<config::CampaignConfig>& by_position) {
  return HandOver(by_position, *updates_, loop_.get());
}

void PacerService::ApplyCampaignUpdate(int64_t now_ms) {
  std::optional<std::vector<CampaignBudget>> update = updates_->Take();
  if (!update.has_value()) return;
  campaigns_ = *std::move(update);
  SetMetricCampaigns(campaigns_, *metrics_);
  controller_->TrackAppendedCampaigns();
  board_->TrackAppendedCampaigns();
  // A new budget is decided on now, not a period later.
  next_control_ms_ = now_ms;
}

void PacerService::RunDue() {
  const int64_t now = clock_->NowMillis();
  ApplyCampaignUpdate(now);
  if (now >= next_control_ms_) {
    Control(now);
    next_control_ms_ += controller_interval_ms_;
    if (next_control_ms_ <= now) next_control_ms_ = now + controller_interval_ms_;
  }
  ExportAge(*decisions_, campaigns_.size(), state_max_age_ms_, started_at_ms_, now, *metrics_);
}

void PacerService::Control(int64_t now_ms) {
  controller_->Tick(now_ms);
  for (size_t i = 0; i < controller_->campaigns(); ++i) {
    const internal::CampaignDecision& d = controller_->decision(i);
    if (d.computed_at_ms == now_ms) {
      decisions_->Publish(i, d.decision.throttle, now_ms + state_max_age_ms_);
    }
  }
  if (!board_->Write(*controller_).ok()) {
    metrics_->CountStoreError(internal::StoreOperation::kBoardWrite);
  }
}

}  // namespace rtb::pacing
