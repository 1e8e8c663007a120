#include "bidder/sessions/session_store.h"

#include <sodium.h>

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bidder/sessions/internal/keys.h"
#include "bidder/sessions/internal/metrics.h"
#include "bidder/sessions/internal/state_codec.h"
#include "storage/schemas.h"

namespace rtb::bidder::sessions {
namespace {

// The families' names (storage/schemas.h) as the strings requests hold.
std::string SessionFamily() { return std::string(storage::kSessionsFamily); }
std::string IndexFamily() { return std::string(storage::kUserSessionsFamily); }
constexpr char kStateColumn[] = "state";
constexpr char kVerColumn[] = "ver";
// Index rounds of one RevokeAll: bounds the work even if logins keep coming.
constexpr int kMaxRevokeRounds = 100;

int64_t Millis(std::chrono::seconds s) { return s.count() * 1000; }

}  // namespace

SessionStore::SessionStore(storage::Store& store, SessionStoreOptions options,
                           prometheus::Registry* registry)
    : store_(store),
      options_(std::move(options)),
      metrics_(std::make_unique<internal::SessionMetrics>(registry)) {
  if (sodium_init() < 0) std::abort();  // no CSPRNG: refusing to mint tokens is the only option
  if (!options_.clock) options_.clock = storage::SystemClock();
  if (!options_.sleep) {
    options_.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  }
  options_.max_update_attempts = std::max(options_.max_update_attempts, 1);
  uint64_t seed = 0;
  randombytes_buf(&seed, sizeof(seed));
  rng_.seed(seed);
}

SessionStore::~SessionStore() = default;

bool SessionStore::Expired(const SessionState& state, int64_t now_ms) const {
  if (now_ms - state.created_ms >= Millis(options_.absolute_lifetime)) {
    metrics_->expired_lifetime->Increment();
    return true;
  }
  if (now_ms - state.last_seen_ms >= Millis(options_.idle_timeout)) {
    metrics_->expired_idle->Increment();
    return true;
  }
  return false;
}

std::chrono::milliseconds SessionStore::Backoff(int attempt) {
  const int64_t ceiling = std::max<int64_t>(1, options_.first_backoff.count()) << attempt;
  absl::MutexLock lock(&rng_mu_);
  return std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(1, ceiling)(rng_));
}

absl::StatusOr<CreatedSession> SessionStore::Create(std::string_view user,
                                                    std::set<std::string> privileges) {
  if (user.empty()) return absl::InvalidArgumentError("session user is empty");
  const int64_t now = options_.clock->NowMillis();
  std::string token = internal::NewToken();
  std::optional<std::string> raw = internal::DecodeToken(token);
  CreatedSession created;
  created.session.key = internal::SessionKeyOf(*raw);
  sodium_memzero(raw->data(), raw->size());
  created.session.id = internal::SessionIdOf(created.session.key);
  SessionState& state = created.session.state;
  state.user = std::string(user);
  state.privileges = std::move(privileges);
  state.created_ms = now;
  state.last_seen_ms = now;
  created.session.version = 1;

  // Index first: a crash before the session write leaves an entry pointing
  // at nothing, which every reader skips.
  storage::Put index;
  index.row = internal::UserIndexRow(user, now);
  index.values.push_back({IndexFamily(), created.session.key, storage::EncodeCounter(now), {}});
  index.ttl_ms = Millis(options_.absolute_lifetime);
  index.durability = storage::Durability::kSyncWal;
  if (absl::Status s = store_.Put(storage::kUserSessionsTable, index); !s.ok()) return s;

  storage::CheckAndMutate cam;
  cam.row = created.session.key;
  cam.family = SessionFamily();
  cam.qualifier = kVerColumn;
  cam.value = std::nullopt;  // the row must not exist yet
  storage::Put put;
  put.row = created.session.key;
  put.values.push_back({SessionFamily(), kStateColumn, internal::EncodeState(state), {}});
  put.values.push_back({SessionFamily(), kVerColumn, storage::EncodeCounter(1), {}});
  put.ttl_ms = Millis(options_.absolute_lifetime);
  put.durability = storage::Durability::kSyncWal;
  cam.puts.push_back(std::move(put));
  absl::StatusOr<bool> applied = store_.CheckAndMutate(storage::kSessionsTable, cam);
  if (!applied.ok()) return applied.status();
  if (!*applied) return absl::InternalError("a fresh session key already exists");
  metrics_->created->Increment();
  created.token = std::move(token);
  return created;
}

absl::StatusOr<Session> SessionStore::Read(const std::string& key) {
  storage::Get get;
  get.row = key;
  get.columns.push_back({SessionFamily(), std::nullopt});
  absl::StatusOr<storage::RowResult> row = store_.Get(storage::kSessionsTable, get);
  if (!row.ok()) return row.status();
  std::optional<std::string_view> cell = row->Value(storage::kSessionsFamily, kStateColumn);
  std::optional<int64_t> version = row->Counter(storage::kSessionsFamily, kVerColumn);
  if (!cell || !version) return absl::NotFoundError("no such session");
  absl::StatusOr<SessionState> state = internal::DecodeState(*cell);
  if (!state.ok()) return state.status();
  Session session;
  session.key = key;
  session.id = internal::SessionIdOf(key);
  session.state = *std::move(state);
  session.version = *version;
  return session;
}

absl::Status SessionStore::Write(const Session& before, const SessionState& next, bool sync,
                                 bool* applied) {
  const int64_t now = options_.clock->NowMillis();
  const int64_t remaining = next.created_ms + Millis(options_.absolute_lifetime) - now;
  if (remaining <= 0) return absl::UnauthenticatedError("session expired");
  storage::CheckAndMutate cam;
  cam.row = before.key;
  cam.family = SessionFamily();
  cam.qualifier = kVerColumn;
  cam.value = storage::EncodeCounter(before.version);
  storage::Put put;
  put.row = before.key;
  // Both cells every time, so their timestamps stay aligned and neither
  // expires before the other.
  put.values.push_back({SessionFamily(), kStateColumn, internal::EncodeState(next), {}});
  put.values.push_back(
      {SessionFamily(), kVerColumn, storage::EncodeCounter(before.version + 1), {}});
  // A touch must not carry the session past its absolute lifetime.
  put.ttl_ms = remaining;
  put.durability = sync ? storage::Durability::kSyncWal : storage::Durability::kAsyncWal;
  cam.puts.push_back(std::move(put));
  absl::StatusOr<bool> ok = store_.CheckAndMutate(storage::kSessionsTable, cam);
  if (!ok.ok()) return ok.status();
  *applied = *ok;
  return absl::OkStatus();
}

absl::StatusOr<Session> SessionStore::Authenticate(std::string_view token) {
  std::optional<std::string> raw = internal::DecodeToken(token);
  if (!raw) return absl::UnauthenticatedError("no valid session");
  const std::string key = internal::SessionKeyOf(*raw);
  sodium_memzero(raw->data(), raw->size());
  absl::StatusOr<Session> session = Read(key);
  if (absl::IsNotFound(session.status())) return absl::UnauthenticatedError("no valid session");
  if (!session.ok()) return session.status();
  const int64_t now = options_.clock->NowMillis();
  if (Expired(session->state, now)) return absl::UnauthenticatedError("no valid session");
  if (now - session->state.last_seen_ms >= Millis(options_.touch_debounce)) {
    SessionState next = session->state;
    next.last_seen_ms = now;
    bool applied = false;
    // A failed touch only makes the idle timer early; the read stands.
    absl::Status s = Write(*session, next, /*sync=*/false, &applied);
    if (s.ok() && applied) {
      metrics_->touches->Increment();
      session->state = std::move(next);
      ++session->version;
    }
    // Not applied: a concurrent update wrote the session, and with it a
    // newer last_seen; this request is still authenticated by the read.
  }
  return session;
}

absl::StatusOr<Session> SessionStore::Update(std::string_view token,
                                             const std::function<void(SessionState&)>& change,
                                             bool sync) {
  std::optional<std::string> raw = internal::DecodeToken(token);
  if (!raw) return absl::UnauthenticatedError("no valid session");
  const std::string key = internal::SessionKeyOf(*raw);
  sodium_memzero(raw->data(), raw->size());
  for (int attempt = 0; attempt < options_.max_update_attempts; ++attempt) {
    absl::StatusOr<Session> session = Read(key);
    if (absl::IsNotFound(session.status())) return absl::UnauthenticatedError("no valid session");
    if (!session.ok()) return session.status();
    const int64_t now = options_.clock->NowMillis();
    if (Expired(session->state, now)) return absl::UnauthenticatedError("no valid session");
    SessionState next = session->state;
    change(next);
    if (next.user != session->state.user || next.created_ms != session->state.created_ms) {
      return absl::InvalidArgumentError("a session update may not change its user or creation");
    }
    next.last_seen_ms = now;
    bool applied = false;
    if (absl::Status s = Write(*session, next, sync, &applied); !s.ok()) return s;
    if (applied) {
      session->state = std::move(next);
      ++session->version;
      return session;
    }
    metrics_->update_conflicts->Increment();
    if (attempt + 1 < options_.max_update_attempts) options_.sleep(Backoff(attempt));
  }
  metrics_->busy->Increment();
  return absl::AbortedError(absl::StrCat("session busy: ", options_.max_update_attempts,
                                         " concurrent updates won in a row; retry the request"));
}

absl::StatusOr<Session> SessionStore::ChangePrivileges(std::string_view token,
                                                       std::set<std::string> privileges) {
  return Update(
      token, [&](SessionState& state) { state.privileges = privileges; }, /*sync=*/true);
}

absl::Status SessionStore::RevokeKey(const std::string& key, std::string_view user,
                                     int64_t created_ms) {
  // The session row first: that is the security event. A crash after it
  // leaves a dangling index entry, which readers skip and the TTL removes.
  storage::Delete del;
  del.row = key;
  del.durability = storage::Durability::kSyncWal;
  if (absl::Status s = store_.Delete(storage::kSessionsTable, del); !s.ok()) return s;
  storage::Delete index;
  index.row = internal::UserIndexRow(user, created_ms);
  index.targets.push_back({IndexFamily(), key, storage::DeleteKind::kColumnAll, std::nullopt});
  index.durability = storage::Durability::kSyncWal;
  return store_.Delete(storage::kUserSessionsTable, index);
}

absl::Status SessionStore::Revoke(std::string_view token) {
  std::optional<std::string> raw = internal::DecodeToken(token);
  if (!raw) return absl::OkStatus();  // nothing such a token could name
  const std::string key = internal::SessionKeyOf(*raw);
  sodium_memzero(raw->data(), raw->size());
  // Expired sessions too: their rows are deleted rather than left to the TTL.
  absl::StatusOr<Session> session = Read(key);
  if (absl::IsNotFound(session.status())) return absl::OkStatus();
  if (!session.ok()) return session.status();
  if (absl::Status s = RevokeKey(key, session->state.user, session->state.created_ms); !s.ok()) {
    return s;
  }
  metrics_->revoked->Increment();
  return absl::OkStatus();
}

absl::StatusOr<int> SessionStore::RevokeAll(std::string_view user) {
  int live = 0;
  for (int round = 0; round < kMaxRevokeRounds; ++round) {
    storage::Scan scan;
    scan.prefix = internal::UserIndexPrefix(user);
    scan.columns.push_back({IndexFamily(), std::nullopt});
    scan.limit = options_.max_sessions_per_user;
    absl::StatusOr<std::vector<storage::RowResult>> rows =
        store_.Scan(storage::kUserSessionsTable, scan);
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return live;
    std::vector<storage::Get> gets;
    std::vector<storage::Delete> session_deletes;
    std::vector<storage::Delete> index_deletes;
    for (const storage::RowResult& row : *rows) {
      storage::Delete index;
      index.row = row.row;
      index.durability = storage::Durability::kSyncWal;
      for (const storage::Cell& cell : row.cells) {
        storage::Get get;
        get.row = cell.qualifier;
        get.columns.push_back({SessionFamily(), std::string(kVerColumn)});
        gets.push_back(std::move(get));
        storage::Delete del;
        del.row = cell.qualifier;
        del.durability = storage::Durability::kSyncWal;
        session_deletes.push_back(std::move(del));
        // Only the entries seen: a login landing meanwhile keeps its own.
        index.targets.push_back(
            {IndexFamily(), cell.qualifier, storage::DeleteKind::kColumnAll, std::nullopt});
      }
      index_deletes.push_back(std::move(index));
    }
    absl::StatusOr<std::vector<storage::RowResult>> existing =
        store_.MultiGet(storage::kSessionsTable, gets);
    if (!existing.ok()) return existing.status();
    for (const storage::RowResult& r : *existing) {
      if (r.empty()) {
        metrics_->dangling_index_entries->Increment();
      } else {
        ++live;
      }
    }
    // Sessions first, then the index (see RevokeKey).
    if (absl::Status s = store_.DeleteBatch(storage::kSessionsTable, session_deletes); !s.ok()) {
      return s;
    }
    metrics_->revoked->Increment(static_cast<double>(session_deletes.size()));
    if (absl::Status s = store_.DeleteBatch(storage::kUserSessionsTable, index_deletes); !s.ok()) {
      return s;
    }
  }
  return live;
}

absl::StatusOr<std::vector<Session>> SessionStore::ListSessions(std::string_view user) {
  storage::Scan scan;
  scan.prefix = internal::UserIndexPrefix(user);
  scan.columns.push_back({IndexFamily(), std::nullopt});
  scan.limit = options_.max_sessions_per_user;
  absl::StatusOr<std::vector<storage::RowResult>> rows =
      store_.Scan(storage::kUserSessionsTable, scan);
  if (!rows.ok()) return rows.status();
  std::vector<Session> sessions;
  const int64_t now = options_.clock->NowMillis();
  for (const storage::RowResult& row : *rows) {
    for (const storage::Cell& cell : row.cells) {
      absl::StatusOr<Session> session = Read(cell.qualifier);
      if (absl::IsNotFound(session.status())) {
        metrics_->dangling_index_entries->Increment();
        continue;
      }
      if (!session.ok()) return session.status();
      if (session->state.user != user || Expired(session->state, now)) continue;
      sessions.push_back(*std::move(session));
    }
  }
  return sessions;
}

}  // namespace rtb::bidder::sessions
