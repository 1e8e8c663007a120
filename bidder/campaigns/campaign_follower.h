// A worker's view of the campaigns table, kept current while the bidder
// runs: the first Poll reads the whole table, every later one reads only the
// change log past what it has seen (CampaignStore::ChangesSince) and fetches
// the campaigns named there. Each change hands the listener the new set,
// on the follower's own thread, so whatever the listener rebuilds (the
// campaign index, pacing budgets, the beacons' campaigns) is rebuilt off the
// I/O threads.
//
// Positions. Every campaign keeps the position it was first given for the
// life of the process: the config file's campaigns first, in file order,
// then the table's others by id, then new ones appended as they appear.
// Pacing decisions, spend counters and per-campaign metrics are arrays by
// position, so a change never moves a campaign under them. At most
// `max_campaigns` positions are given; a campaign past them is not bid on
// (logged once, counted).
//
// A table that cannot be read leaves the last set in place (bidding goes
// on); Readiness() says so once that has lasted `unreadable_after`, and
// every failed read is counted.
//
// Thread-safety: Start and Stop from one thread; current(), Readiness() and
// Poll() from any thread (Poll serialises itself).
#ifndef RTB_BIDDER_CAMPAIGNS_CAMPAIGN_FOLLOWER_H_
#define RTB_BIDDER_CAMPAIGNS_CAMPAIGN_FOLLOWER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "bidder/campaigns/campaign_store.h"
#include "config/config.h"
#include "prometheus/registry.h"

namespace rtb::bidder::campaigns {

struct LiveCampaign {
  std::string id;
  CampaignState state = CampaignState::kActive;
  int64_t version = 0;
  // The stored object decoded, with `enabled` true only for an active
  // campaign. Never null: a stored object that no longer decodes (the rules
  // changed since it was written) keeps the campaign disabled, with only
  // its id set.
  std::shared_ptr<const config::CampaignConfig> config;
};

// Every campaign the worker knows, by position.
struct LiveCampaigns {
  // +1 per change the follower saw; 0 before the table was first read.
  uint64_t generation = 0;
  std::vector<LiveCampaign> by_position;

  // The configs by position (paused, archived and undecodable ones with
  // enabled false): what CampaignIndex::Build and Pacer::UpdateCampaigns take.
  std::vector<config::CampaignConfig> Configs() const;
  // Configs() for Pacer/PacerService::UpdateCampaigns: a stored object that
  // no longer decodes keeps its position with a budget of one micro, since
  // the pacing loop needs a budget to hold a position.
  std::vector<config::CampaignConfig> PacingConfigs() const;
};

struct CampaignFollowerOptions {
  std::chrono::milliseconds interval{500};
  std::chrono::milliseconds unreadable_after{30000};
  size_t max_campaigns = 4096;
  // Declares bidder_campaign_store_reads_total{outcome} and
  // bidder_campaigns_over_capacity_total; may be null.
  prometheus::Registry* registry = nullptr;
};

class CampaignFollower {
 public:
  using Listener = std::function<void(const LiveCampaigns&)>;
  using Decoder = CampaignStore::Validator;

  // `store` must outlive this. `initial` (the config file's campaigns) is the
  // set until the table is first read, and gives the first positions.
  // `decode` turns a stored object into a campaign (config::ParseCampaign).
  CampaignFollower(CampaignStore& store, const std::vector<config::CampaignConfig>& initial,
                   Decoder decode, Listener listener, CampaignFollowerOptions options = {});
  ~CampaignFollower();  // Stop()
  CampaignFollower(const CampaignFollower&) = delete;
  CampaignFollower& operator=(const CampaignFollower&) = delete;

  // Reads the table once (its error is returned, and the follower goes on
  // with the initial set), then polls every `interval` on its thread.
  absl::Status Start();
  void Stop();

  // One step: the whole table the first time, then the change log. Calls
  // the listener when something changed.
  absl::Status Poll();

  std::shared_ptr<const LiveCampaigns> current() const { return current_.load(); }
  // OK unless the table has not been readable for `unreadable_after`.
  absl::Status Readiness() const;

 private:
  void Run();
  absl::Status ReadAll();
  absl::Status ReadChanges();
  // Sets the campaign from its record, giving it a position when new; false
  // when it is past max_campaigns.
  bool Apply(const CampaignRecord& record, LiveCampaigns& next);
  void Publish(std::shared_ptr<LiveCampaigns> next);
  void CountRead(bool ok);

  CampaignStore& store_;
  Decoder decode_;
  Listener listener_;
  CampaignFollowerOptions options_;

  std::mutex poll_mu_;  // one Poll at a time; guards the fields below
  bool loaded_ = false;
  uint64_t last_sequence_ = 0;
  absl::flat_hash_map<std::string, size_t> positions_;

  std::atomic<std::shared_ptr<const LiveCampaigns>> current_;
  std::atomic<int64_t> last_ok_ms_;  // steady clock
  std::atomic<int64_t> failing_since_ms_{0};

  prometheus::Counter* reads_ok_ = nullptr;
  prometheus::Counter* reads_failed_ = nullptr;
  prometheus::Counter* over_capacity_ = nullptr;

  std::mutex stop_mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace rtb::bidder::campaigns

#endif  // RTB_BIDDER_CAMPAIGNS_CAMPAIGN_FOLLOWER_H_
