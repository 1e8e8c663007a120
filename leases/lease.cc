#include "leases/lease.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "threads/threads.h"

namespace rtb::leases {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kHolderColumn = "h";

// Unique to this run of this process: a restarted process is a new holder,
// even with the same pid on the same host.
std::string NewToken() {
  std::random_device random;
  std::uniform_int_distribution<uint64_t> bits;
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(bits(random)));
  return absl::StrCat(hex, "@", host, ":", ::getpid());
}

// The cell's value: the token, a space, the description.
std::string_view DescriptionOf(std::string_view value) {
  const size_t space = value.find(' ');
  return space == std::string_view::npos ? value : value.substr(space + 1);
}

storage::Put LeasePut(const std::string& name, const std::string& value, int64_t ttl_ms) {
  storage::Put put;
  put.row = name;
  put.values = {
      {std::string(storage::kLeasesFamily), std::string(kHolderColumn), value, std::nullopt}};
  put.ttl_ms = ttl_ms;
  put.durability = storage::Durability::kSyncWal;
  return put;
}

// "l:h absent" (value unset) or "l:h == value".
storage::CheckAndMutate LeaseCheck(const std::string& name, std::optional<std::string> value) {
  storage::CheckAndMutate check;
  check.row = name;
  check.family = std::string(storage::kLeasesFamily);
  check.qualifier = std::string(kHolderColumn);
  check.op = storage::CompareOp::kEqual;
  check.value = std::move(value);
  return check;
}

absl::Status CheckOptions(const std::string& holder, const LeaseOptions& options) {
  if (holder.empty() || options.table.empty() || options.ttl_ms < 1000 ||
      options.renew_every_ms < 0 || options.renew_every_ms >= options.ttl_ms) {
    return absl::InvalidArgumentError(
        "lease: a holder and a table are required, ttl_ms at least 1000 and renew_every_ms in "
        "[0, ttl_ms)");
  }
  return absl::OkStatus();
}

// FailedPrecondition naming who holds `name` now.
absl::Status HeldElsewhere(storage::Store& store, const std::string& name,
                           const std::string& table) {
  absl::StatusOr<std::string> holder = Lease::HolderOf(store, name, table);
  return absl::FailedPreconditionError(absl::StrCat(
      "lease ", name, " is held by ", holder.ok() && !holder->empty() ? *holder : "another process",
      " (free once its holder has stopped renewing it for its TTL)"));
}

}  // namespace

class Lease::State {
 public:
  State(storage::Store& store, std::string name, std::string value, LeaseOptions options)
      : store_(store),
        name_(std::move(name)),
        value_(std::move(value)),
        options_(std::move(options)),
        held_for_(std::chrono::milliseconds(options_.ttl_ms) - SafetyMargin(options_.ttl_ms)) {}

  ~State() {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (renewer_.joinable()) renewer_.join();
    if (watchdog_.joinable()) watchdog_.join();
    if (!Held()) return;
    storage::CheckAndMutate release = LeaseCheck(name_, value_);
    storage::Delete del;
    del.row = name_;
    release.deletes.push_back(std::move(del));
    // Best effort: a release that fails leaves the name to expire.
    (void)store_.CheckAndMutate(options_.table, release);
  }

  // The take: true when the name was free.
  absl::StatusOr<bool> Take() {
    absl::StatusOr<std::optional<Clock::time_point>> sent = PutIfHolderIs(std::nullopt);
    if (!sent.ok()) return sent.status();
    if (!sent->has_value()) return false;
    Confirmed(**sent);
    return true;
  }

  // The renewing thread (unless renewals are the caller's), and the
  // watchdog: a renewal stuck in a store that does not answer must not keep
  // the lease looking held past its expiry.
  void StartThreads() {
    watchdog_ = std::thread([this] { Watch(); });
    if (options_.renew_every_ms <= 0) return;
    renewer_ = std::thread([this] {
      threads::NameThisThread("rtb-lease");
      std::unique_lock<std::mutex> lock(mutex_);
      while (!stopping_ && !lost_) {
        wake_.wait_for(lock, std::chrono::milliseconds(options_.renew_every_ms),
                       [&] { return stopping_; });
        if (stopping_) break;
        lock.unlock();
        (void)Renew();
        lock.lock();
      }
    });
  }

  absl::Status Renew() {
    if (!Held()) return Lost("lease " + name_ + ": expired before it was renewed");
    absl::StatusOr<std::optional<Clock::time_point>> renewed = PutIfHolderIs(value_);
    if (!renewed.ok()) {
      // Tried again at the next period; Held() turns false at the expiry.
      if (!Held()) return Lost("lease " + name_ + ": expired while the store refused renewals");
      return renewed.status();
    }
    if (!renewed->has_value()) return Lost("lease " + name_ + ": another process holds it now");
    Confirmed(**renewed);
    return absl::OkStatus();
  }

  absl::Status Reclaim() {
    if (Held()) return absl::OkStatus();
    // Both threads end once the lease is lost (the renewer when its store
    // call returns).
    if (renewer_.joinable()) renewer_.join();
    if (watchdog_.joinable()) watchdog_.join();
    for (std::optional<std::string> expected :
         {std::optional<std::string>(value_), std::optional<std::string>()}) {
      absl::StatusOr<std::optional<Clock::time_point>> sent = PutIfHolderIs(std::move(expected));
      if (!sent.ok()) return sent.status();
      if (!sent->has_value()) continue;
      {
        std::lock_guard<std::mutex> guard(mutex_);
        lost_ = false;
      }
      Confirmed(**sent);
      StartThreads();
      return absl::OkStatus();
    }
    return HeldElsewhere(store_, name_, options_.table);
  }

  // One relaxed-enough atomic load and a clock read: cheap for a hot path.
  bool Held() const {
    return Clock::now().time_since_epoch().count() < held_until_.load(std::memory_order_acquire);
  }

  const std::string& name() const { return name_; }

 private:
  // Held() ends this long before the store's expiry, so that a holder's
  // last writes leave before anybody may take the name: a tenth of the TTL,
  // at most a second.
  static std::chrono::milliseconds SafetyMargin(int64_t ttl_ms) {
    return std::chrono::milliseconds(std::min<int64_t>(ttl_ms / 10, 1000));
  }

  // Puts the lease cell when l:h is `expected` (nullopt: absent): when it
  // was sent if it was put, for Confirmed; nullopt when l:h was otherwise.
  absl::StatusOr<std::optional<Clock::time_point>> PutIfHolderIs(
      std::optional<std::string> expected) {
    const Clock::time_point sent = Clock::now();
    storage::CheckAndMutate write = LeaseCheck(name_, std::move(expected));
    write.puts.push_back(LeasePut(name_, value_, options_.ttl_ms));
    absl::StatusOr<bool> written = store_.CheckAndMutate(options_.table, write);
    if (!written.ok()) return written.status();
    if (!*written) return std::optional<Clock::time_point>();
    return std::optional<Clock::time_point>(sent);
  }

  // The store set the cell's expiry from its arrival, no earlier than `sent`.
  void Confirmed(Clock::time_point sent) {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      if (lost_) return;
      held_until_.store((sent + held_for_).time_since_epoch().count(), std::memory_order_release);
    }
    wake_.notify_all();
  }

  void Watch() {
    threads::NameThisThread("rtb-lease-watch");
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_ && !lost_) {
      const Clock::time_point until{Clock::duration(held_until_.load(std::memory_order_acquire))};
      if (Clock::now() >= until) {
        lock.unlock();
        (void)Lost("lease " + name_ + ": no renewal reached the store before the expiry");
        return;
      }
      wake_.wait_until(lock, until);
    }
  }

  absl::Status Lost(std::string why) {
    bool first = false;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      first = !lost_;
      lost_ = true;
      held_until_.store(0, std::memory_order_release);
    }
    wake_.notify_all();
    if (first) {
      std::fprintf(stderr, "%s\n", why.c_str());
      if (options_.on_lost) options_.on_lost();
    }
    return absl::FailedPreconditionError(why);
  }

  storage::Store& store_;
  const std::string name_;
  const std::string value_;
  const LeaseOptions options_;
  const std::chrono::milliseconds held_for_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  // Steady-clock ticks until which the lease counts as held; 0 once lost.
  std::atomic<Clock::rep> held_until_{0};
  bool lost_ = false;
  bool stopping_ = false;
  std::thread renewer_;
  std::thread watchdog_;
};

Lease::Lease(std::unique_ptr<State> state) : state_(std::move(state)) {}
Lease::~Lease() = default;

const std::string& Lease::name() const { return state_->name(); }
bool Lease::Held() const { return state_->Held(); }
absl::Status Lease::Renew() { return state_->Renew(); }
absl::Status Lease::Reclaim() { return state_->Reclaim(); }

absl::StatusOr<std::unique_ptr<Lease>> Lease::Take(storage::Store& store, std::string name,
                                                   std::string holder, LeaseOptions options) {
  if (name.empty()) return absl::InvalidArgumentError("lease: a name is required");
  if (absl::Status s = CheckOptions(holder, options); !s.ok()) return s;
  const std::string table = options.table;
  auto state = std::make_unique<State>(store, name, absl::StrCat(NewToken(), " ", holder),
                                       std::move(options));
  absl::StatusOr<bool> taken = state->Take();
  if (!taken.ok()) return taken.status();
  if (!*taken) return HeldElsewhere(store, name, table);
  state->StartThreads();
  return std::unique_ptr<Lease>(new Lease(std::move(state)));
}

absl::StatusOr<std::unique_ptr<Lease>> Lease::TakeFirstFree(storage::Store& store,
                                                            const std::vector<std::string>& names,
                                                            std::string holder,
                                                            LeaseOptions options) {
  int held = 0;
  for (const std::string& name : names) {
    absl::StatusOr<std::unique_ptr<Lease>> lease = Take(store, name, holder, options);
    if (lease.ok()) return lease;
    if (lease.status().code() != absl::StatusCode::kFailedPrecondition) return lease.status();
    ++held;
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("lease: all ", held, " names are held by live processes"));
}

absl::StatusOr<std::string> Lease::HolderOf(storage::Store& store, std::string_view name,
                                            std::string_view table) {
  storage::Get get;
  get.row = std::string(name);
  get.columns = {{std::string(storage::kLeasesFamily), std::string(kHolderColumn)}};
  absl::StatusOr<storage::RowResult> row = store.Get(table, get);
  if (!row.ok()) return row.status();
  std::optional<std::string_view> value = row->Value(storage::kLeasesFamily, kHolderColumn);
  return value.has_value() ? std::string(DescriptionOf(*value)) : std::string();
}

}  // namespace rtb::leases
