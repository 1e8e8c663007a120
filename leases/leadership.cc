#include "leases/leadership.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "threads/threads.h"

namespace rtb::leases {

class Leadership::State {
 public:
  State(storage::Store& store, std::string name, std::string holder, LeadershipOptions options)
      : store_(store),
        name_(std::move(name)),
        holder_(std::move(holder)),
        options_(std::move(options)) {}

  ~State() {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> guard(mutex_);
    lease_.reset();  // releases it when held
  }

  void Run() {
    TryToLead();
    thread_ = std::thread([this] {
      threads::NameThisThread("rtb-leader");
      std::unique_lock<std::mutex> lock(mutex_);
      while (!wake_.wait_for(lock, std::chrono::milliseconds(options_.retry_every_ms),
                             [this] { return stopping_; })) {
        lock.unlock();
        TryToLead();
        lock.lock();
      }
    });
  }

  bool Leads() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return lease_ != nullptr && lease_->Held();
  }

  int64_t terms() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return terms_;
  }

 private:
  // Takes the lease when this process does not hold it (any more). A lost
  // lease is dropped here, not in its on_lost (which runs on the lease's
  // own thread and may not destroy it).
  void TryToLead() {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      if (lease_ != nullptr && lease_->Held()) return;
    }
    std::unique_ptr<Lease> lost;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      lost = std::move(lease_);
    }
    lost.reset();
    absl::StatusOr<std::unique_ptr<Lease>> taken =
        Lease::Take(store_, name_, holder_,
                    LeaseOptions{.table = options_.table,
                                 .ttl_ms = options_.ttl_ms,
                                 .renew_every_ms = options_.ttl_ms / 3});
    if (!taken.ok()) return;  // another leads, or the store is away: next time
    std::lock_guard<std::mutex> guard(mutex_);
    lease_ = *std::move(taken);
    ++terms_;
  }

  storage::Store& store_;
  const std::string name_;
  const std::string holder_;
  const LeadershipOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::unique_ptr<Lease> lease_;
  int64_t terms_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

Leadership::Leadership(std::unique_ptr<State> state) : state_(std::move(state)) {}
Leadership::~Leadership() = default;

bool Leadership::Leads() const { return state_->Leads(); }
int64_t Leadership::terms() const { return state_->terms(); }

absl::StatusOr<std::unique_ptr<Leadership>> Leadership::Start(storage::Store& store,
                                                              std::string name, std::string holder,
                                                              LeadershipOptions options) {
  if (name.empty() || holder.empty() || options.ttl_ms < 1000 || options.retry_every_ms < 1) {
    return absl::InvalidArgumentError(
        "leadership: a name and a holder are required, ttl_ms at least 1000 and retry_every_ms "
        "at least 1");
  }
  auto state =
      std::make_unique<State>(store, std::move(name), std::move(holder), std::move(options));
  state->Run();
  return std::unique_ptr<Leadership>(new Leadership(std::move(state)));
}

}  // namespace rtb::leases
