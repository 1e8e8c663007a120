#include "bidder/campaigns/campaign_follower.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "storage/startup/startup.h"

namespace rtb::bidder::campaigns {
namespace {

int64_t SteadyMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Log(const std::string& line) { startup::Log("campaigns", line); }

}  // namespace

std::vector<config::CampaignConfig> LiveCampaigns::Configs() const {
  std::vector<config::CampaignConfig> configs;
  configs.reserve(by_position.size());
  for (const LiveCampaign& campaign : by_position) configs.push_back(*campaign.config);
  return configs;
}

std::vector<config::CampaignConfig> LiveCampaigns::PacingConfigs() const {
  std::vector<config::CampaignConfig> configs = Configs();
  for (config::CampaignConfig& campaign : configs) {
    if (campaign.daily_budget_micros <= 0) campaign.daily_budget_micros = 1;
  }
  return configs;
}

CampaignFollower::CampaignFollower(CampaignStore& store,
                                   const std::vector<config::CampaignConfig>& initial,
                                   Decoder decode, Listener listener,
                                   CampaignFollowerOptions options)
    : store_(store),
      decode_(std::move(decode)),
      listener_(std::move(listener)),
      options_(options),
      last_ok_ms_(SteadyMillis()) {
  auto first = std::make_shared<LiveCampaigns>();
  for (const config::CampaignConfig& campaign : initial) {
    if (first->by_position.size() >= options_.max_campaigns) break;
    positions_.emplace(campaign.id, first->by_position.size());
    LiveCampaign live;
    live.id = campaign.id;
    live.state = campaign.enabled ? CampaignState::kActive : CampaignState::kPaused;
    live.config = std::make_shared<const config::CampaignConfig>(campaign);
    first->by_position.push_back(std::move(live));
  }
  current_.store(std::move(first));
  if (options_.registry != nullptr) {
    auto& reads = prometheus::BuildCounter()
                      .Name("bidder_campaign_store_reads_total")
                      .Help(
                          "Reads of the campaigns table and its change log by the follower, by "
                          "outcome; after a failure the last campaign index stays in use")
                      .Register(*options_.registry);
    reads_ok_ = &reads.Add({{"outcome", "ok"}});
    reads_failed_ = &reads.Add({{"outcome", "error"}});
    over_capacity_ = &prometheus::BuildCounter()
                          .Name("bidder_campaigns_over_capacity_total")
                          .Help(
                              "Campaigns not bid on because campaign_store.max_campaigns "
                              "positions were taken")
                          .Register(*options_.registry)
                          .Add({});
  }
}

CampaignFollower::~CampaignFollower() { Stop(); }

absl::Status CampaignFollower::Start() {
  absl::Status first = Poll();
  if (!first.ok()) {
    Log(absl::StrCat("cannot read the campaigns table (", first.message(),
                     "); bidding on the config file's campaigns until it can"));
  }
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = false;
  }
  thread_ = std::thread([this] { Run(); });
  return first;
}

void CampaignFollower::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CampaignFollower::Run() {
  std::unique_lock<std::mutex> lock(stop_mu_);
  while (!wake_.wait_for(lock, options_.interval, [this] { return stopping_; })) {
    lock.unlock();
    // Failures are counted and shown by Readiness(); the next period retries.
    (void)Poll();
    lock.lock();
  }
}

absl::Status CampaignFollower::Poll() {
  std::lock_guard<std::mutex> lock(poll_mu_);
  absl::Status status = loaded_ ? ReadChanges() : ReadAll();
  CountRead(status.ok());
  return status;
}

absl::Status CampaignFollower::ReadAll() {
  // The sequence first: a change made while the table is listed is then
  // read again from the log, which is harmless.
  absl::StatusOr<uint64_t> sequence = store_.LastSequence();
  if (!sequence.ok()) return sequence.status();
  absl::StatusOr<std::vector<CampaignRecord>> records = store_.List();
  if (!records.ok()) return records.status();
  auto next = std::make_shared<LiveCampaigns>(*current_.load());
  // Campaigns of the file that the table does not hold are not bid on: the
  // table rules.
  for (LiveCampaign& campaign : next->by_position) {
    auto config = std::make_shared<config::CampaignConfig>(*campaign.config);
    config->enabled = false;
    campaign.config = std::move(config);
    campaign.state = CampaignState::kArchived;
  }
  for (const CampaignRecord& record : *records) Apply(record, *next);
  last_sequence_ = *sequence;
  loaded_ = true;
  Publish(std::move(next));
  return absl::OkStatus();
}

absl::Status CampaignFollower::ReadChanges() {
  absl::StatusOr<CampaignChanges> changes = store_.ChangesSince(last_sequence_);
  if (!changes.ok()) return changes.status();
  if (changes->campaign_ids.empty()) {
    last_sequence_ = changes->last_sequence;
    return absl::OkStatus();
  }
  std::vector<CampaignRecord> records;
  for (const std::string& id : changes->campaign_ids) {
    absl::StatusOr<std::optional<CampaignRecord>> record = store_.Get(id);
    // Nothing is applied unless everything was read, so the next poll
    // starts again from the same point of the log.
    if (!record.ok()) return record.status();
    if (record->has_value()) records.push_back(**std::move(record));
  }
  auto next = std::make_shared<LiveCampaigns>(*current_.load());
  for (const CampaignRecord& record : records) Apply(record, *next);
  last_sequence_ = changes->last_sequence;
  Publish(std::move(next));
  return absl::OkStatus();
}

bool CampaignFollower::Apply(const CampaignRecord& record, LiveCampaigns& next) {
  size_t position;
  if (auto it = positions_.find(record.id); it != positions_.end()) {
    position = it->second;
    const LiveCampaign& known = next.by_position[position];
    // Already seen at this version (the log repeats what a full read had).
    if (known.version == record.version && known.version != 0) return true;
  } else {
    if (next.by_position.size() >= options_.max_campaigns) {
      if (over_capacity_ != nullptr) over_capacity_->Increment();
      Log(absl::StrCat("campaign ", record.id, " is not bid on: all ", options_.max_campaigns,
                       " positions (campaign_store.max_campaigns) are taken"));
      return false;
    }
    position = next.by_position.size();
    positions_.emplace(record.id, position);
    next.by_position.emplace_back();
  }
  LiveCampaign& live = next.by_position[position];
  live.id = record.id;
  live.state = record.state;
  live.version = record.version;
  absl::StatusOr<config::CampaignConfig> decoded = decode_(record.json);
  auto config = std::make_shared<config::CampaignConfig>();
  if (decoded.ok()) {
    *config = *std::move(decoded);
  } else {
    Log(absl::StrCat("campaign ", record.id, " version ", record.version,
                     " is not bid on, its stored object is refused: ", decoded.status().message()));
    config->id = record.id;
  }
  config->enabled = decoded.ok() && record.state == CampaignState::kActive;
  live.config = std::move(config);
  return true;
}

void CampaignFollower::Publish(std::shared_ptr<LiveCampaigns> next) {
  next->generation = current_.load()->generation + 1;
  std::shared_ptr<const LiveCampaigns> published = std::move(next);
  current_.store(published);
  if (listener_) listener_(*published);
}

void CampaignFollower::CountRead(bool ok) {
  const int64_t now = SteadyMillis();
  if (ok) {
    last_ok_ms_.store(now);
    failing_since_ms_.store(0);
    if (reads_ok_ != nullptr) reads_ok_->Increment();
    return;
  }
  int64_t expected = 0;
  failing_since_ms_.compare_exchange_strong(expected, now);
  if (reads_failed_ != nullptr) reads_failed_->Increment();
}

absl::Status CampaignFollower::Readiness() const {
  const int64_t since = failing_since_ms_.load();
  if (since == 0) return absl::OkStatus();
  const int64_t failing_ms = SteadyMillis() - since;
  if (failing_ms < options_.unreadable_after.count()) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "campaigns table unreadable for ", failing_ms / 1000, " s; bidding on the index read ",
      (SteadyMillis() - last_ok_ms_.load()) / 1000, " s ago"));
}

}  // namespace rtb::bidder::campaigns
