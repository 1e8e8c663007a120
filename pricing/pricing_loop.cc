#include "pricing/pricing_loop.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "pricing/bucket.h"
#include "pricing/internal/bid_tally.h"
#include "pricing/internal/model_board.h"
#include "pricing/internal/pricing_metrics.h"
#include "pricing/internal/shading_fitter.h"
#include "pricing/pricer.h"
#include "storage/schemas.h"

namespace rtb::pricing {
namespace {

// Waits are bounded, so a clock moved by other means than real time (a test
// clock) is noticed.
constexpr int64_t kLongestWaitMs = 1000;
constexpr int64_t kBidCountFlushMs = 10000;

uint64_t RandomNonceSeed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace

PricingRole BidderPricingRole(const config::PacingConfig& pacing) {
  return pacing.mode == config::PacingProcessMode::kPacer ? PricingRole::kFollowStore
                                                          : PricingRole::kFitLocally;
}

PricingLoop::PricingLoop() = default;

PricingLoop::~PricingLoop() { Stop(); }

absl::StatusOr<std::unique_ptr<PricingLoop>> PricingLoop::Create(
    const config::BidderConfig& config, storage::Store& store, Pricer* pricer, PricingRole role,
    prometheus::Registry* registry, std::shared_ptr<const storage::Clock> clock) {
  if (pricer == nullptr && role != PricingRole::kFitAndPublish) {
    return absl::InvalidArgumentError("a bidder's pricing loop needs the bid path's Pricer");
  }
  if (config.pricing.fit_interval_s <= 0) {
    return absl::InvalidArgumentError("pricing.fit_interval_s must be > 0");
  }
  std::unique_ptr<PricingLoop> loop(new PricingLoop());
  loop->role_ = role;
  loop->pricer_ = pricer;
  loop->store_ = &store;
  loop->clock_ = clock != nullptr ? std::move(clock) : storage::SystemClock();
  loop->interval_ms_ = int64_t{config.pricing.fit_interval_s} * 1000;
  if (role != PricingRole::kFollowStore) {
    loop->fitter_ = std::make_unique<internal::ShadingFitter>(config, store);
  }
  std::vector<std::string> names;
  for (const config::ExchangeConfig& exchange : config.server.exchanges) {
    names.push_back(exchange.name);
    loop->exchange_bits_.push_back(ExchangeBucketBits(exchange.name));
  }
  try {
    loop->metrics_ = std::make_unique<internal::LoopMetrics>(registry, names);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot declare the pricing loop metrics: ", e.what()));
  }
  loop->next_due_ms_ = loop->clock_->NowMillis();
  loop->next_flush_ms_ = loop->next_due_ms_ + kBidCountFlushMs;
  loop->next_nonce_ = RandomNonceSeed();
  return loop;
}

absl::Status PricingLoop::Start() {
  if (thread_.joinable()) return absl::FailedPreconditionError("the pricing loop is started");
  RunDue();
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = false;
  }
  thread_ = std::thread([this] { Run(); });
  return absl::OkStatus();
}

void PricingLoop::Stop() {
  if (!thread_.joinable()) return;
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  thread_.join();
  FlushBidCounts();
}

int64_t PricingLoop::NextDueMillis() const {
  return pricer_ != nullptr ? std::min(next_due_ms_, next_flush_ms_) : next_due_ms_;
}

void PricingLoop::Run() {
  while (true) {
    const int64_t wait_ms =
        std::clamp<int64_t>(NextDueMillis() - clock_->NowMillis(), 1, kLongestWaitMs);
    {
      absl::MutexLock lock(&mutex_);
      if (mutex_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Milliseconds(wait_ms))) {
        return;
      }
    }
    RunDue();
  }
}

void PricingLoop::RunDue() {
  const int64_t now = clock_->NowMillis();
  if (pricer_ != nullptr && now >= next_flush_ms_) {
    FlushBidCounts();
    next_flush_ms_ = std::max(next_flush_ms_ + kBidCountFlushMs, now + 1);
  }
  if (now >= next_due_ms_) {
    Step(now);
    next_due_ms_ += interval_ms_;
    if (next_due_ms_ <= now) next_due_ms_ = now + interval_ms_;
  }
  ExportAge(now);
}

void PricingLoop::FlushBidCounts() {
  if (pricer_ == nullptr) return;
  for (storage::Increment& increment : internal::BidCountIncrements(pricer_->bid_tally().Take())) {
    increment.nonce = ++next_nonce_ == 0 ? ++next_nonce_ : next_nonce_;
    unwritten_.push_back(std::move(increment));
  }
  std::vector<storage::Increment> failed;
  for (storage::Increment& increment : unwritten_) {
    if (!store_->Increment(storage::kPricingTable, increment).ok()) {
      failed.push_back(std::move(increment));
    }
  }
  if (!failed.empty()) metrics_->CountStoreError(internal::PricingStoreOperation::kBidCountWrite);
  unwritten_ = std::move(failed);
}

void PricingLoop::Step(int64_t now_ms) {
  if (role_ == PricingRole::kFollowStore) {
    absl::StatusOr<std::optional<internal::PricingModel>> model =
        internal::ReadModel(*store_, model_version_);
    if (!model.ok()) {
      metrics_->CountStoreError(internal::PricingStoreOperation::kModelRead);
      return;
    }
    if (model->has_value()) Publish(**model);
    return;
  }
  const auto started = std::chrono::steady_clock::now();
  absl::StatusOr<internal::PricingModel> model = fitter_->Fit(now_ms);
  metrics_->SetFitSeconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (!model.ok()) {
    metrics_->CountStoreError(internal::PricingStoreOperation::kFitRead);
    return;
  }
  if (role_ == PricingRole::kFitAndPublish && !internal::WriteModel(*store_, *model).ok()) {
    metrics_->CountStoreError(internal::PricingStoreOperation::kModelWrite);
  }
  Publish(*model);
}

void PricingLoop::Publish(const internal::PricingModel& model) {
  model_version_ = model.computed_at_ms;
  if (pricer_ != nullptr) pricer_->Publish(model);
  for (size_t i = 0; i < exchange_bits_.size(); ++i) {
    for (const internal::ExchangeFigures& figures : model.exchanges) {
      if (figures.exchange_bits != exchange_bits_[i]) continue;
      const int64_t outcomes = figures.wins + figures.losses;
      metrics_->SetExchange(
          i, outcomes > 0 ? static_cast<double>(figures.wins) / static_cast<double>(outcomes) : 0,
          figures.wins > 0 ? static_cast<double>(figures.clearing_sum_micros) / 1e6 /
                                 static_cast<double>(figures.wins)
                           : 0,
          figures.buckets_shaded);
    }
  }
}

void PricingLoop::ExportAge(int64_t now_ms) {
  metrics_->SetModelAge(model_version_ > 0 ? static_cast<double>(now_ms - model_version_) / 1000.0
                                           : 0);
}

}  // namespace rtb::pricing
