// Operator login sessions over the storage API (seeds/sessions.txt).
//
// Tables (storage/schemas.cc):
//   sessions       row = SHA-256(token); family `s`: one `state` cell (JSON,
//                  rewritten whole on every update so its timestamp follows
//                  activity) and one `ver` cell (8-byte counter) used by
//                  CheckAndMutate. Family TTL = absolute lifetime, the garbage
//                  collector; each write also carries a cell TTL of the
//                  remaining lifetime, so a touch cannot extend a session.
//   user_sessions  row = salt + user + reverse creation time, qualifier =
//                  session key: "which sessions does this user have".
// The raw token is returned to the caller once, at creation, and never
// written to storage or logs; callers log SessionInfo::id instead.
//
// Expiry: the idle timeout (last activity) and the absolute lifetime (since
// creation) are checked in code on every read; expired sessions read as
// NotFound/Unauthenticated. Touches are debounced (touch_debounce) and
// written ASYNC_WAL; creation, privilege changes and revocations SYNC_WAL.
//
// Write order across the two tables makes every crash harmless: on creation
// the index entry is written first, then the session; on revocation the
// session row is deleted first, then the index entry. Every reader of the
// index skips entries whose session is missing.
//
// Concurrent updates of one session (two tabs, two bidders) go through
// CheckAndMutate on `ver` with jittered, bounded retries; when they run out
// the update fails with Aborted ("session busy").
//
// Thread-safety: a SessionStore is safe to call from any number of threads.
// Every call blocks on storage: do not call it on an HTTP I/O thread.
#ifndef RTB_BIDDER_SESSIONS_SESSION_STORE_H_
#define RTB_BIDDER_SESSIONS_SESSION_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/store.h"

namespace rtb::bidder::sessions {

namespace internal {
struct SessionMetrics;
}

// What a session knows. Every field survives every update.
struct SessionState {
  std::string user;
  // Privileges granted to the session (e.g. "read", "erase").
  std::set<std::string> privileges;
  int64_t created_ms = 0;
  int64_t last_seen_ms = 0;
  // Free-form per-session values the console keeps (selected campaign, ...).
  std::map<std::string, std::string> attributes;

  bool operator==(const SessionState&) const = default;
};

// A session as read: its state, version, and an id safe to show and log
// (hex of the first 8 bytes of the session key; not a credential).
struct Session {
  std::string id;
  std::string key;  // SHA-256 of the token: the row key
  SessionState state;
  int64_t version = 0;
};

struct CreatedSession {
  // The bearer token, base64url. Hand it to the client and forget it.
  std::string token;
  Session session;
};

struct SessionStoreOptions {
  // Absolute lifetime from creation. Must not exceed the `sessions` family
  // TTL (storage::TableOptions::session_lifetime_seconds). Default 8 h.
  std::chrono::seconds absolute_lifetime{8 * 3600};
  // Inactivity after which a session ends. Default 30 min.
  std::chrono::seconds idle_timeout{30 * 60};
  // Least time between two stored touches of an unchanged session. Default 60 s.
  std::chrono::seconds touch_debounce{60};
  // CheckAndMutate attempts per update before "session busy". Default 5.
  int max_update_attempts = 5;
  // Upper bound of the first retry's random backoff; doubles per attempt.
  // Default 8 ms.
  std::chrono::milliseconds first_backoff{8};
  // Sessions of one user read or revoked at most. Default 1000.
  int max_sessions_per_user = 1000;
  // Time source for activity and expiry. Default the system clock.
  std::shared_ptr<storage::Clock> clock;
  // How a retry waits; tests replace it. Default std::this_thread::sleep_for.
  std::function<void(std::chrono::milliseconds)> sleep;
};

class SessionStore {
 public:
  // `store` must outlive this and hold the bidder tables. `registry` may be
  // null (no metrics).
  SessionStore(storage::Store& store, SessionStoreOptions options,
               prometheus::Registry* registry = nullptr);
  ~SessionStore();
  SessionStore(const SessionStore&) = delete;
  SessionStore& operator=(const SessionStore&) = delete;

  // A new session for `user` with a fresh token (SYNC_WAL). The index entry
  // is written before the session.
  absl::StatusOr<CreatedSession> Create(std::string_view user, std::set<std::string> privileges);

  // The live session of `token`, touching it when the last stored touch is
  // older than touch_debounce. Unauthenticated when the token is malformed,
  // unknown, revoked, idle too long or past its lifetime; Unavailable etc.
  // when storage fails.
  absl::StatusOr<Session> Authenticate(std::string_view token);

  // Reads, changes and writes the state of `token`'s session atomically
  // (CheckAndMutate on ver, retried). `change` may run several times and
  // must only modify the state it is given; it must not change `user` or
  // `created_ms`. `sync` selects SYNC_WAL (privilege changes) over ASYNC_WAL.
  // Aborted "session busy" when the retries run out.
  absl::StatusOr<Session> Update(std::string_view token,
                                 const std::function<void(SessionState&)>& change,
                                 bool sync = false);
  // Update with SYNC_WAL that replaces the privileges.
  absl::StatusOr<Session> ChangePrivileges(std::string_view token,
                                           std::set<std::string> privileges);

  // Ends the session of `token`: the session row first, then its index entry.
  // OK when it was already gone.
  absl::Status Revoke(std::string_view token);
  // Ends every session of `user`; returns how many sessions were live.
  absl::StatusOr<int> RevokeAll(std::string_view user);
  // The live sessions of `user`, newest first; dangling index entries are
  // skipped.
  absl::StatusOr<std::vector<Session>> ListSessions(std::string_view user);

  const SessionStoreOptions& options() const { return options_; }

 private:
  // The live session under `key`; NotFound when absent or expired.
  absl::StatusOr<Session> Read(const std::string& key);
  absl::Status Write(const Session& before, const SessionState& next, bool sync, bool* applied);
  absl::Status RevokeKey(const std::string& key, std::string_view user, int64_t created_ms);
  bool Expired(const SessionState& state, int64_t now_ms) const;
  std::chrono::milliseconds Backoff(int attempt);

  storage::Store& store_;
  SessionStoreOptions options_;
  std::unique_ptr<internal::SessionMetrics> metrics_;
  absl::Mutex rng_mu_;
  std::mt19937_64 rng_ ABSL_GUARDED_BY(rng_mu_);
};

}  // namespace rtb::bidder::sessions

#endif  // RTB_BIDDER_SESSIONS_SESSION_STORE_H_
