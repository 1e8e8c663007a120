// SessionStore against real tables: the seed's failure modes (a session
// active past the idle timeout keeps every field, concurrent updates both
// land, logout everywhere revokes all, a crash between the index and the
// session write leaves nothing usable, dangling index entries), the
// security properties and the durability of each write. Built for the
// embedded store and for HBase (see session_fixture.h).
#include "bidder/sessions/session_store.h"

#include <sodium.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bidder/sessions/internal/keys.h"
#include "bidder/sessions/internal/state_codec.h"
#include "gtest/gtest.h"
#include "session_fixture.h"
#include "storage/schemas.h"

namespace rtb::bidder::sessions::testing {
namespace {

using internal::DecodeToken;
using internal::SessionKeyOf;

class SessionStoreTest : public SessionTablesTest {
 protected:
  CreatedSession MustCreate(SessionStore& sessions, std::string_view user,
                            std::set<std::string> privileges = {"read"}) {
    auto created = sessions.Create(user, std::move(privileges));
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? *std::move(created) : CreatedSession{};
  }
};

// Tests that move the store's clock to watch TTLs remove rows: the embedded
// store only. Skipped before any table is made.
class SessionStoreClockTest : public SessionStoreTest {
 protected:
  void SetUp() override {
    if (kOnHBase) {
      GTEST_SKIP() << "moves the store's clock to expire cells by TTL; HBase stamps and "
                      "expires cells by its own clock (CellTtlEmptiesHBaseStorage waits "
                      "for a short lifetime there instead)";
    }
    SessionStoreTest::SetUp();
  }
};

std::string DurabilityName(storage::Durability d) {
  switch (d) {
    case storage::Durability::kUseDefault:
      return "DEFAULT";
    case storage::Durability::kSkipWal:
      return "SKIP_WAL";
    case storage::Durability::kAsyncWal:
      return "ASYNC_WAL";
    case storage::Durability::kSyncWal:
      return "SYNC_WAL";
    case storage::Durability::kFsyncWal:
      return "FSYNC_WAL";
  }
  return "?";
}

// Notes "table op DURABILITY" for every mutation written, then forwards it.
class DurabilityLog final : public HookedStore {
 public:
  using HookedStore::HookedStore;

  // What was written since the last call.
  std::vector<std::string> Take() { return std::exchange(log_, {}); }

  absl::Status Put(std::string_view table, const storage::Put& put) override {
    Note(table, "Put", put.durability);
    return HookedStore::Put(table, put);
  }
  absl::Status Delete(std::string_view table, const storage::Delete& del) override {
    Note(table, "Delete", del.durability);
    return HookedStore::Delete(table, del);
  }
  absl::Status DeleteBatch(std::string_view table,
                           std::span<const storage::Delete> deletes) override {
    for (const storage::Delete& del : deletes) Note(table, "DeleteBatch", del.durability);
    return HookedStore::DeleteBatch(table, deletes);
  }
  absl::StatusOr<bool> CheckAndMutate(std::string_view table,
                                      const storage::CheckAndMutate& cam) override {
    for (const storage::Put& put : cam.puts) Note(table, "CheckAndMutate", put.durability);
    return HookedStore::CheckAndMutate(table, cam);
  }

 private:
  void Note(std::string_view table, std::string_view op, storage::Durability d) {
    log_.push_back(std::string(table) + " " + std::string(op) + " " + DurabilityName(d));
  }

  std::vector<std::string> log_;
};

TEST(SessionKeysTest, TokenCarries256RandomBitsAndDecodes) {
  ASSERT_GE(sodium_init(), 0);
  std::string a = internal::NewToken();
  std::string b = internal::NewToken();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.size(), 43u);
  auto raw = DecodeToken(a);
  ASSERT_TRUE(raw.has_value());
  EXPECT_EQ(raw->size(), 32u);
  EXPECT_EQ(internal::Base64Url(*raw), a);
  EXPECT_FALSE(DecodeToken(a.substr(1)).has_value());
  EXPECT_FALSE(DecodeToken(std::string(43, '!')).has_value());
  EXPECT_FALSE(DecodeToken("").has_value());
  EXPECT_EQ(SessionKeyOf(*raw).size(), 32u);
  EXPECT_NE(internal::CsrfTokenOf(*raw), a);
}

TEST(SessionKeysTest, UserIndexRowsSortNewestFirstUnderTheUserPrefix) {
  std::string older = internal::UserIndexRow("alice", 1000);
  std::string newer = internal::UserIndexRow("alice", 2000);
  EXPECT_LT(newer, older);
  EXPECT_EQ(older.rfind(internal::UserIndexPrefix("alice"), 0), 0u);
  EXPECT_NE(internal::UserIndexRow("alice", 1000).rfind(internal::UserIndexPrefix("alic"), 0), 0u);
}

TEST(SessionStateCodecTest, RoundTripsEveryField) {
  SessionState state;
  state.user = "ops@example";
  state.privileges = {"read", "erase"};
  state.created_ms = kStart;
  state.last_seen_ms = kStart + 5;
  state.attributes = {{"campaign", "c-1"}, {"theme", "dark \"quoted\""}};
  auto decoded = internal::DecodeState(internal::EncodeState(state));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, state);
  EXPECT_EQ(internal::DecodeState("{\"v\":2}").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(internal::DecodeState("not json").status().code(), absl::StatusCode::kDataLoss);
}

TEST_F(SessionStoreTest, CreatedSessionAuthenticatesWithItsToken) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession created = MustCreate(sessions, "alice", {"read", "erase"});
  auto session = sessions.Authenticate(created.token);
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ(session->state.user, "alice");
  EXPECT_EQ(session->state.privileges, (std::set<std::string>{"erase", "read"}));
  EXPECT_EQ(session->id, created.session.id);
  EXPECT_EQ(session->key, SessionKeyOf(*DecodeToken(created.token)));
}

TEST_F(SessionStoreTest, MalformedOrUnknownTokenIsUnauthenticated) {
  SessionStore sessions(*hooked_, Options());
  EXPECT_EQ(sessions.Authenticate("").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(sessions.Authenticate("x").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(sessions.Authenticate(internal::NewToken()).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST_F(SessionStoreTest, TokenNeverReachesStorageRaw) {
  SessionStore sessions(*hooked_, Options());
  std::vector<CreatedSession> created;
  for (int i = 0; i < 5; ++i) created.push_back(MustCreate(sessions, "alice"));
  ASSERT_TRUE(
      sessions.Update(created[0].token, [](SessionState& s) { s.attributes["k"] = "v"; }).ok());
  clock_->Advance(2 * kMinute);
  ASSERT_TRUE(sessions.Authenticate(created[1].token).ok());
  ASSERT_TRUE(sessions.Revoke(created[2].token).ok());

  int rows_seen = 0;
  for (std::string_view table : {storage::kSessionsTable, storage::kUserSessionsTable}) {
    for (const storage::RowResult& row : Dump(table)) {
      ++rows_seen;
      for (const CreatedSession& c : created) {
        const std::string raw = *DecodeToken(c.token);
        for (const std::string& secret : {c.token, raw}) {
          EXPECT_EQ(row.row.find(secret), std::string::npos) << table;
          for (const storage::Cell& cell : row.cells) {
            EXPECT_EQ(cell.qualifier.find(secret), std::string::npos) << table;
            EXPECT_EQ(cell.value.find(secret), std::string::npos) << table;
          }
        }
      }
    }
  }
  // 4 live sessions; the 4 index entries share one row (same user, same ms).
  EXPECT_EQ(rows_seen, 5);
  // The session row is keyed by the hash of the token.
  storage::RowResult row =
      StoredRow(storage::kSessionsTable, SessionKeyOf(*DecodeToken(created[0].token)));
  EXPECT_TRUE(row.Value("s", "state").has_value());
  EXPECT_TRUE(row.Counter("s", "ver").has_value());
}

// seeds/sessions.txt: "a test that keeps a session active past the TTL and
// asserts every field survives". Active for 7.5 hours, 15 idle timeouts.
TEST_F(SessionStoreTest, SessionActivePastIdleTimeoutKeepsEveryField) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession created = MustCreate(sessions, "alice", {"read", "erase"});
  ASSERT_TRUE(sessions
                  .Update(created.token,
                          [](SessionState& s) {
                            s.attributes["campaign"] = "c-7";
                            s.attributes["range"] = "24h";
                          })
                  .ok());
  for (int step = 0; step < 90; ++step) {
    clock_->Advance(5 * kMinute);
    auto session = sessions.Authenticate(created.token);
    ASSERT_TRUE(session.ok()) << "step " << step << ": " << session.status();
  }
  auto session = sessions.Authenticate(created.token);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session->state.user, "alice");
  EXPECT_EQ(session->state.privileges, (std::set<std::string>{"erase", "read"}));
  EXPECT_EQ(session->state.created_ms, Start());
  EXPECT_EQ(session->state.attributes,
            (std::map<std::string, std::string>{{"campaign", "c-7"}, {"range", "24h"}}));
  // Both cells survive in storage with aligned timestamps.
  storage::RowResult row = StoredRow(storage::kSessionsTable, created.session.key);
  ASSERT_EQ(row.cells.size(), 2u);
  EXPECT_EQ(row.cells[0].timestamp, row.cells[1].timestamp);
}

// The absolute lifetime ends a session however active it is, in code and in
// storage (the cell TTL of the remaining lifetime; storage expires a cell
// once its age exceeds the TTL).
TEST_F(SessionStoreClockTest, AbsoluteLifetimeEndsAnActiveSessionInCodeAndStorage) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession created = MustCreate(sessions, "alice");
  for (int step = 0; step < 90; ++step) {
    clock_->Advance(5 * kMinute);
    auto session = sessions.Authenticate(created.token);
    ASSERT_TRUE(session.ok()) << "step " << step << ": " << session.status();
  }
  ASSERT_FALSE(StoredRow(storage::kSessionsTable, created.session.key).empty());
  clock_->Advance(30 * kMinute + 1);
  EXPECT_EQ(sessions.Authenticate(created.token).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(StoredRow(storage::kSessionsTable, created.session.key).empty());
}

// The same on HBase, by HBase's clock: the cell TTLs the writes carry (the
// remaining lifetime, as the `_ttl` attribute, on a plain Put and inside a
// CheckAndMutate) remove the session row and its index entry. A lifetime of
// a few seconds on the real clock; the wait for it is bounded.
TEST_F(SessionStoreTest, CellTtlEmptiesHBaseStorage) {
  if (!kOnHBase) {
    GTEST_SKIP() << "waits on the real clock; the embedded store follows the ManualClock "
                    "(AbsoluteLifetimeEndsAnActiveSessionInCodeAndStorage)";
  }
  SessionStoreOptions options = Options();
  options.clock = storage::SystemClock();
  options.absolute_lifetime = std::chrono::seconds(4);
  SessionStore sessions(*hooked_, options);
  const auto created_at = std::chrono::steady_clock::now();
  CreatedSession created = MustCreate(sessions, "alice");
  ASSERT_TRUE(
      sessions.Update(created.token, [](SessionState& s) { s.attributes["k"] = "v"; }).ok());
  ASSERT_FALSE(StoredRow(storage::kSessionsTable, created.session.key).empty());
  ASSERT_EQ(Dump(storage::kUserSessionsTable).size(), 1u);

  const auto give_up = created_at + std::chrono::seconds(30);
  bool emptied = false;
  while (!emptied && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    emptied = StoredRow(storage::kSessionsTable, created.session.key).empty() &&
              Dump(storage::kUserSessionsTable).empty();
  }
  EXPECT_TRUE(emptied) << "the session's cells outlived their TTL by more than 26 s";
  EXPECT_GE(std::chrono::steady_clock::now() - created_at, std::chrono::seconds(3))
      << "the cells went before their lifetime was up";
  EXPECT_EQ(sessions.Authenticate(created.token).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST_F(SessionStoreTest, IdleTimeoutEndsSessionOnRead) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession created = MustCreate(sessions, "alice");
  clock_->Advance(29 * kMinute);
  ASSERT_TRUE(sessions.Authenticate(created.token).ok());
  clock_->Advance(30 * kMinute);
  EXPECT_EQ(sessions.Authenticate(created.token).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(sessions.Update(created.token, [](SessionState&) {}).status().code(),
            absl::StatusCode::kUnauthenticated);
  auto listed = sessions.ListSessions("alice");
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
}

TEST_F(SessionStoreTest, TouchesAreDebounced) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession created = MustCreate(sessions, "alice");
  int session_writes = 0;
  hooked_->SetWriteHook([&](std::string_view table, std::string_view) {
    if (table == storage::kSessionsTable) ++session_writes;
    return absl::OkStatus();
  });
  for (int i = 0; i < 59; ++i) {
    clock_->Advance(1000);
    ASSERT_TRUE(sessions.Authenticate(created.token).ok());
  }
  EXPECT_EQ(session_writes, 0);
  clock_->Advance(1000);
  auto session = sessions.Authenticate(created.token);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session_writes, 1);
  EXPECT_EQ(session->state.last_seen_ms, Start() + kMinute);
  EXPECT_EQ(session->version, 2);
}

// Two updates race: the second lands between the first's read and its
// CheckAndMutate. The first retries on the new version; both land.
TEST_F(SessionStoreTest, TwoConcurrentUpdatesBothLand) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession created = MustCreate(sessions, "alice");
  bool raced = false;
  hooked_->SetWriteHook([&](std::string_view table, std::string_view op) {
    if (table == storage::kSessionsTable && op == "CheckAndMutate" && !raced) {
      raced = true;
      auto other = sessions.Update(created.token,
                                   [](SessionState& s) { s.attributes["tab2"] = "cart item B"; });
      EXPECT_TRUE(other.ok()) << other.status();
    }
    return absl::OkStatus();
  });
  auto first =
      sessions.Update(created.token, [](SessionState& s) { s.attributes["tab1"] = "cart item A"; });
  ASSERT_TRUE(raced);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->version, 3);  // created 1, tab2 2, tab1 (retried) 3
  auto session = sessions.Authenticate(created.token);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session->state.attributes.at("tab1"), "cart item A");
  EXPECT_EQ(session->state.attributes.at("tab2"), "cart item B");
}

TEST_F(SessionStoreTest, ThreadedUpdatesAllLand) {
  SessionStoreOptions options = Options();
  options.sleep = nullptr;  // real jittered waits between retries
  options.max_update_attempts = 50;
  SessionStore sessions(*hooked_, options);
  CreatedSession created = MustCreate(sessions, "alice");
  constexpr int kPerThread = 25;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto r = sessions.Update(created.token, [&](SessionState& s) {
          s.attributes["t" + std::to_string(t) + "-" + std::to_string(i)] = "x";
        });
        if (!r.ok()) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto session = sessions.Authenticate(created.token);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session->state.attributes.size(), 2u * kPerThread);
  EXPECT_EQ(session->version, 1 + 2 * kPerThread);
}

TEST_F(SessionStoreTest, UpdateThatKeepsLosingIsSessionBusy) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession created = MustCreate(sessions, "alice");
  bool inside = false;
  int competing = 0;
  hooked_->SetWriteHook([&](std::string_view table, std::string_view op) {
    if (table == storage::kSessionsTable && op == "CheckAndMutate" && !inside) {
      inside = true;
      auto other = sessions.Update(created.token, [&](SessionState& s) {
        s.attributes["other"] = std::to_string(++competing);
      });
      EXPECT_TRUE(other.ok());
      inside = false;
    }
    return absl::OkStatus();
  });
  auto loser = sessions.Update(created.token, [](SessionState& s) { s.attributes["me"] = "1"; });
  EXPECT_EQ(loser.status().code(), absl::StatusCode::kAborted);
  EXPECT_NE(loser.status().message().find("session busy"), std::string::npos);
  hooked_->SetWriteHook(nullptr);
  auto session = sessions.Authenticate(created.token);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session->state.attributes.count("me"), 0u);
  EXPECT_EQ(session->state.attributes.at("other"), std::to_string(competing));
  EXPECT_EQ(competing, sessions.options().max_update_attempts);
}

TEST_F(SessionStoreTest, UpdateMayNotChangeUser) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession created = MustCreate(sessions, "alice");
  EXPECT_EQ(
      sessions.Update(created.token, [](SessionState& s) { s.user = "root"; }).status().code(),
      absl::StatusCode::kInvalidArgument);
}

TEST_F(SessionStoreTest, PrivilegeChangeLands) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession created = MustCreate(sessions, "alice", {"read"});
  ASSERT_TRUE(sessions.ChangePrivileges(created.token, {"read", "erase"}).ok());
  auto session = sessions.Authenticate(created.token);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session->state.privileges, (std::set<std::string>{"erase", "read"}));
}

TEST_F(SessionStoreTest, RevokeEndsOneSessionAndItsIndexEntry) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession a = MustCreate(sessions, "alice");
  CreatedSession b = MustCreate(sessions, "alice");
  ASSERT_TRUE(sessions.Revoke(a.token).ok());
  ASSERT_TRUE(sessions.Revoke(a.token).ok());  // idempotent
  EXPECT_EQ(sessions.Authenticate(a.token).status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(sessions.Authenticate(b.token).ok());
  auto listed = sessions.ListSessions("alice");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, b.session.id);
  EXPECT_EQ(Dump(storage::kUserSessionsTable).size(), 1u);
}

TEST_F(SessionStoreTest, RevokeDeletesTheSessionBeforeTheIndex) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession a = MustCreate(sessions, "alice");
  std::vector<std::string> order;
  hooked_->SetWriteHook([&](std::string_view table, std::string_view op) {
    order.push_back(std::string(table) + " " + std::string(op));
    // The process dies after the session delete.
    if (table == storage::kUserSessionsTable) return absl::UnavailableError("crash");
    return absl::OkStatus();
  });
  EXPECT_FALSE(sessions.Revoke(a.token).ok());
  EXPECT_EQ(order, (std::vector<std::string>{"sessions Delete", "user_sessions Delete"}));
  hooked_->SetWriteHook(nullptr);
  EXPECT_EQ(sessions.Authenticate(a.token).status().code(), absl::StatusCode::kUnauthenticated);
  auto listed = sessions.ListSessions("alice");
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());  // the dangling entry is skipped
}

TEST_F(SessionStoreTest, LogoutEverywhereRevokesAllSessionsOfTheUser) {
  SessionStore sessions(*hooked_, Options());
  std::vector<CreatedSession> alice;
  for (int i = 0; i < 4; ++i) {
    alice.push_back(MustCreate(sessions, "alice"));
    clock_->Advance(1000);
  }
  CreatedSession bob = MustCreate(sessions, "bob");
  CreatedSession alicia = MustCreate(sessions, "alice.b");  // shares a name prefix
  auto listed = sessions.ListSessions("alice");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 4u);
  EXPECT_EQ((*listed)[0].id, alice[3].session.id);  // newest first

  auto revoked = sessions.RevokeAll("alice");
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_EQ(*revoked, 4);
  for (const CreatedSession& c : alice) {
    EXPECT_EQ(sessions.Authenticate(c.token).status().code(), absl::StatusCode::kUnauthenticated);
  }
  EXPECT_TRUE(sessions.Authenticate(bob.token).ok());
  EXPECT_TRUE(sessions.Authenticate(alicia.token).ok());
  listed = sessions.ListSessions("alice");
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
  EXPECT_EQ(Dump(storage::kUserSessionsTable).size(), 2u);  // bob's and alice.b's
  EXPECT_EQ(Dump(storage::kSessionsTable).size(), 2u);
}

// seeds/sessions.txt: the index entry is written first; a crash before the
// session write leaves an entry pointing at nothing, which readers skip.
TEST_F(SessionStoreTest, CrashBetweenIndexAndSessionWriteLeavesNothingUsable) {
  SessionStore sessions(*hooked_, Options());
  std::vector<std::string> order;
  hooked_->SetWriteHook([&](std::string_view table, std::string_view op) {
    order.push_back(std::string(table) + " " + std::string(op));
    if (table == storage::kSessionsTable) return absl::UnavailableError("crash");
    return absl::OkStatus();
  });
  auto created = sessions.Create("alice", {"read"});
  EXPECT_FALSE(created.ok());
  EXPECT_EQ(order, (std::vector<std::string>{"user_sessions Put", "sessions CheckAndMutate"}));
  hooked_->SetWriteHook(nullptr);
  EXPECT_TRUE(Dump(storage::kSessionsTable).empty());
  EXPECT_EQ(Dump(storage::kUserSessionsTable).size(), 1u);  // the dangling entry
  auto listed = sessions.ListSessions("alice");
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
  // Logout everywhere skips it and cleans it up.
  auto revoked = sessions.RevokeAll("alice");
  ASSERT_TRUE(revoked.ok());
  EXPECT_EQ(*revoked, 0);
  EXPECT_TRUE(Dump(storage::kUserSessionsTable).empty());
  // A later login works as usual.
  CreatedSession later = MustCreate(sessions, "alice");
  EXPECT_TRUE(sessions.Authenticate(later.token).ok());
}

// Dangling index entries among live ones (a login that died after its index
// write, a logout that died after its session delete): readers skip them,
// logout everywhere counts only the live sessions and removes every entry.
TEST_F(SessionStoreTest, DanglingIndexEntriesAmongLiveOnesAreTolerated) {
  SessionStore sessions(*hooked_, Options());
  auto crash_on = [&](std::string_view crashing_table) {
    hooked_->SetWriteHook([crashing_table](std::string_view table, std::string_view) {
      return table == crashing_table ? absl::UnavailableError("crash") : absl::OkStatus();
    });
  };
  CreatedSession oldest = MustCreate(sessions, "alice");
  clock_->Advance(1000);
  crash_on(storage::kSessionsTable);
  EXPECT_FALSE(sessions.Create("alice", {"read"}).ok());
  hooked_->SetWriteHook(nullptr);
  clock_->Advance(1000);
  CreatedSession logged_out = MustCreate(sessions, "alice");
  crash_on(storage::kUserSessionsTable);
  EXPECT_FALSE(sessions.Revoke(logged_out.token).ok());
  hooked_->SetWriteHook(nullptr);
  clock_->Advance(1000);
  CreatedSession newest = MustCreate(sessions, "alice");
  ASSERT_EQ(Dump(storage::kUserSessionsTable).size(), 4u);  // two of them dangling

  auto listed = sessions.ListSessions("alice");
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].id, newest.session.id);
  EXPECT_EQ((*listed)[1].id, oldest.session.id);
  EXPECT_TRUE(sessions.Authenticate(oldest.token).ok());
  EXPECT_TRUE(sessions.Authenticate(newest.token).ok());
  EXPECT_EQ(sessions.Authenticate(logged_out.token).status().code(),
            absl::StatusCode::kUnauthenticated);

  auto revoked = sessions.RevokeAll("alice");
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_EQ(*revoked, 2);
  EXPECT_TRUE(Dump(storage::kUserSessionsTable).empty());
  EXPECT_TRUE(Dump(storage::kSessionsTable).empty());
}

// seeds/sessions.txt: SYNC_WAL for login, privilege changes and revocation,
// ASYNC_WAL for touches (and ordinary state updates). Every write says its
// level, and the backend takes each of them.
TEST_F(SessionStoreTest, WritesCarryTheirDurabilityAndTheBackendAcceptsIt) {
  DurabilityLog log(*hooked_);
  SessionStore sessions(log, Options());
  CreatedSession a = MustCreate(sessions, "alice");
  CreatedSession b = MustCreate(sessions, "alice");
  EXPECT_EQ(log.Take(), (std::vector<std::string>{
                            "user_sessions Put SYNC_WAL", "sessions CheckAndMutate SYNC_WAL",
                            "user_sessions Put SYNC_WAL", "sessions CheckAndMutate SYNC_WAL"}));
  ASSERT_TRUE(sessions.Update(a.token, [](SessionState& s) { s.attributes["k"] = "v"; }).ok());
  EXPECT_EQ(log.Take(), (std::vector<std::string>{"sessions CheckAndMutate ASYNC_WAL"}));
  clock_->Advance(2 * kMinute);
  ASSERT_TRUE(sessions.Authenticate(a.token).ok());  // a touch
  EXPECT_EQ(log.Take(), (std::vector<std::string>{"sessions CheckAndMutate ASYNC_WAL"}));
  ASSERT_TRUE(sessions.ChangePrivileges(a.token, {"read", "erase"}).ok());
  EXPECT_EQ(log.Take(), (std::vector<std::string>{"sessions CheckAndMutate SYNC_WAL"}));

  auto session = sessions.Authenticate(a.token);
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ(session->version, 4);  // created, updated, touched, privileges changed
  EXPECT_EQ(session->state.attributes.at("k"), "v");
  EXPECT_EQ(session->state.last_seen_ms, Start() + 2 * kMinute);
  EXPECT_EQ(session->state.privileges, (std::set<std::string>{"erase", "read"}));
  EXPECT_TRUE(log.Take().empty());  // within the debounce: no touch

  ASSERT_TRUE(sessions.Revoke(a.token).ok());
  EXPECT_EQ(log.Take(), (std::vector<std::string>{"sessions Delete SYNC_WAL",
                                                  "user_sessions Delete SYNC_WAL"}));
  auto revoked = sessions.RevokeAll("alice");
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_EQ(*revoked, 1);
  EXPECT_EQ(log.Take(), (std::vector<std::string>{"sessions DeleteBatch SYNC_WAL",
                                                  "user_sessions DeleteBatch SYNC_WAL"}));
  EXPECT_EQ(sessions.Authenticate(b.token).status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(Dump(storage::kSessionsTable).empty());
  EXPECT_TRUE(Dump(storage::kUserSessionsTable).empty());
}

TEST_F(SessionStoreClockTest, IndexEntriesAgeOutWithTheLifetime) {
  SessionStore sessions(*hooked_, Options());
  MustCreate(sessions, "alice");
  clock_->Advance(8 * kHour + 1);
  EXPECT_TRUE(Dump(storage::kUserSessionsTable).empty());
  EXPECT_TRUE(Dump(storage::kSessionsTable).empty());
}

}  // namespace
}  // namespace rtb::bidder::sessions::testing

namespace rtb::bidder::sessions::testing {
namespace {

TEST_F(SessionStoreTest, FailedTouchDoesNotFailTheRequest) {
  SessionStore sessions(*hooked_, Options());
  CreatedSession created = MustCreate(sessions, "alice");
  hooked_->SetWriteHook(
      [](std::string_view, std::string_view) { return absl::UnavailableError("region moving"); });
  clock_->Advance(2 * kMinute);
  auto session = sessions.Authenticate(created.token);
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ(session->state.last_seen_ms, Start());  // the stored activity is unchanged
}

}  // namespace
}  // namespace rtb::bidder::sessions::testing
