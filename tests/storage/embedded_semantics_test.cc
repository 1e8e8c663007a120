// HBase semantics reproduced by the embedded engine, one test per behaviour,
// including the traps the design articles warn about.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <thread>

#include "storage/internal/nonce_record.h"
#include "storage/types.h"
#include "tests/storage/test_store.h"

namespace rtb::storage::testing {
namespace {

constexpr int64_t kSecond = 1000;
constexpr int64_t kDayMs = 24 * 3600 * kSecond;

// Runs `write` on a thread of its own and `read` over and over on this one
// until the writes end or `read` answers false. A failed ASSERT in either
// ends its side without leaving the other waiting: the writes' end is
// signalled whatever way `write` returns, and the writer is always joined.
void ReadWhileWriting(const std::function<void()>& write, const std::function<bool()>& read) {
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    write();
    stop = true;
  });
  while (!stop && read()) {
  }
  writer.join();
}

class SemanticsTest : public EmbeddedStoreTest {
 protected:
  // Table files on disk, oldest first (RocksDB numbers files in creation order).
  std::vector<std::string> SstFiles() const {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(path_)) {
      if (entry.path().extension() == ".sst") files.push_back(entry.path().filename().string());
    }
    std::sort(files.begin(), files.end());
    return files;
  }
};

// ---- TTL: measured against the cell timestamp ----

TEST_F(SemanticsTest, CellExpiresForReadersOnceFamilyTtlPasses) {
  Create(Schema("t", {Fam("f", 1, 60)}));
  MustPut("t", PutOf("r", "f", "q", "v"));
  clock_->Advance(60 * kSecond);
  EXPECT_FALSE(MustGet("t", "r").empty()) << "alive at exactly the TTL";
  clock_->Advance(1);
  EXPECT_TRUE(MustGet("t", "r").empty()) << "expired just after the TTL";
}

TEST_F(SemanticsTest, ExpiredCellsLeaveDiskOnCompaction) {
  Create(Schema("t", {Fam("f", 1, 60)}));
  for (int i = 0; i < 10; ++i) MustPut("t", PutOf("r" + std::to_string(i), "f", "q", "v"));
  ASSERT_TRUE(store_->Flush("t").ok());
  clock_->Advance(61 * kSecond);
  EXPECT_TRUE(MustGet("t", "r0").empty());
  store_.reset();
  EXPECT_EQ(RawKeyCount("t", "f"), 10u) << "expired for readers, still on disk";
  Reopen();
  ASSERT_TRUE(store_->MajorCompact("t").ok());
  store_.reset();
  EXPECT_EQ(RawKeyCount("t", "f"), 0u);
}

TEST_F(SemanticsTest, CellTtlIsInMilliseconds) {
  Create(Schema("t", {Fam("f")}));
  Put p = PutOf("r", "f", "q", "v");
  p.ttl_ms = 1500;
  MustPut("t", p);
  clock_->Advance(1500);
  EXPECT_FALSE(MustGet("t", "r").empty());
  clock_->Advance(1);
  EXPECT_TRUE(MustGet("t", "r").empty());
}

TEST_F(SemanticsTest, CellTtlShortensFamilyTtl) {
  Create(Schema("t", {Fam("f", 1, 3600)}));
  Put p = PutOf("r", "f", "q", "v");
  p.ttl_ms = 10 * kSecond;
  MustPut("t", p);
  clock_->Advance(11 * kSecond);
  EXPECT_TRUE(MustGet("t", "r").empty());
}

TEST_F(SemanticsTest, CellTtlCannotExtendFamilyTtl) {
  Create(Schema("t", {Fam("f", 1, 60)}));
  Put p = PutOf("r", "f", "q", "v");
  p.ttl_ms = 3600 * kSecond;
  MustPut("t", p);
  clock_->Advance(61 * kSecond);
  EXPECT_TRUE(MustGet("t", "r").empty());
}

// The event-tracking trap: event time used as the cell timestamp.
TEST_F(SemanticsTest, LateEventWrittenWithEventTimeTimestampExpiresOnArrival) {
  Create(Schema("events", {Fam("d", 1, 90 * 24 * 3600)}));
  const int64_t event_time = kNow - 91 * kDayMs;
  ASSERT_TRUE(store_->Put("events", PutOf("u1", "d", "body", "late", event_time)).ok());
  EXPECT_TRUE(MustGet("events", "u1").empty()) << "acknowledged, yet invisible";
}

TEST_F(SemanticsTest, LateEventWithServerTimestampIsNotExpiredOnArrival) {
  Create(Schema("events", {Fam("d", 1, 90 * 24 * 3600)}));
  MustPut("events", PutOf("u1", "d", "body", "late"));
  EXPECT_EQ(MustGet("events", "u1").Value("d", "body"), "late");
  clock_->Advance(89 * kDayMs);
  EXPECT_FALSE(MustGet("events", "u1").empty()) << "full retention counted from ingest";
}

// The sessions trap: several cells, only one rewritten on activity.
TEST_F(SemanticsTest, MultiCellSessionRewritingOneCellLosesTheOthersAtTtl) {
  Create(Schema("sessions", {Fam("s", 1, 1800)}));
  Put login;
  login.row = "sess";
  login.values = {{"s", "user", "42"}, {"s", "cart", "book"}, {"s", "last_seen", "t0"}};
  MustPut("sessions", login);
  for (int minute = 5; minute <= 35; minute += 5) {
    clock_->Advance(5 * 60 * kSecond);
    MustPut("sessions", PutOf("sess", "s", "last_seen", "t" + std::to_string(minute)));
  }
  RowResult r = MustGet("sessions", "sess");
  EXPECT_TRUE(r.Value("s", "last_seen").has_value()) << "the touched cell survives";
  EXPECT_FALSE(r.Value("s", "user").has_value()) << "an active session lost its user";
  EXPECT_FALSE(r.Value("s", "cart").has_value());
}

TEST_F(SemanticsTest, SingleRewrittenStateCellSlidesTheTtl) {
  Create(Schema("sessions", {Fam("s", 1, 1800)}));
  for (int minute = 0; minute <= 60; minute += 10) {
    MustPut("sessions", PutOf("sess", "s", "state", "{user:42,cart:book}"));
    clock_->Advance(10 * 60 * kSecond);
  }
  EXPECT_EQ(MustGet("sessions", "sess").Value("s", "state"), "{user:42,cart:book}");
}

// ---- Versions ----

TEST_F(SemanticsTest, GetReturnsVersionsNewestFirstUpToMaxVersions) {
  Create(Schema("t", {Fam("f", 3)}));
  for (int i = 1; i <= 5; ++i) MustPut("t", PutOf("r", "f", "q", "v" + std::to_string(i), i));
  RowResult r = MustGet("t", "r", 10);
  ASSERT_EQ(r.cells.size(), 3u) << "family keeps 3 versions";
  EXPECT_EQ(r.cells[0].value, "v5");
  EXPECT_EQ(r.cells[2].value, "v3");
  EXPECT_EQ(MustGet("t", "r", 1).cells.size(), 1u);
}

TEST_F(SemanticsTest, MinVersionsKeepsNewestVersionsPastTtl) {
  FamilyOptions f = Fam("f", 3, 60);
  f.min_versions = 1;
  Create(Schema("t", {f}));
  MustPut("t", PutOf("r", "f", "q", "old", kNow - 1000));
  MustPut("t", PutOf("r", "f", "q", "new"));
  clock_->Advance(3600 * kSecond);
  RowResult r = MustGet("t", "r", 3);
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_EQ(r.cells[0].value, "new");
}

TEST_F(SemanticsTest, ExtraVersionsLeaveDiskOnCompaction) {
  Create(Schema("t", {Fam("f", 2)}));
  for (int i = 1; i <= 6; ++i) MustPut("t", PutOf("r", "f", "q", "v", i));
  ASSERT_TRUE(store_->MajorCompact("t").ok());
  store_.reset();
  EXPECT_EQ(RawKeyCount("t", "f"), 2u);
}

// ---- Delete markers ----

class DeleteTest : public SemanticsTest {
 protected:
  void SetUp() override {
    SemanticsTest::SetUp();
    Create(Schema("t", {Fam("f", 5), Fam("g", 5)}));
    for (int ts = 10; ts <= 30; ts += 10) {
      Put p;
      p.row = "r";
      p.values = {{"f", "a", "a" + std::to_string(ts), ts},
                  {"f", "b", "b" + std::to_string(ts), ts},
                  {"g", "c", "c" + std::to_string(ts), ts}};
      MustPut("t", p);
    }
  }
  std::string Visible() {
    std::string out;
    for (const Cell& c : MustGet("t", "r", 5).cells) out += c.value + " ";
    return out;
  }
  void MustDelete(const Delete& d) {
    absl::Status s = store_->Delete("t", d);
    ASSERT_TRUE(s.ok()) << s;
  }
};

TEST_F(DeleteTest, DeleteColumnHidesAllVersionsAtOrBeforeItsTimestamp) {
  MustDelete(Delete{"r", {DeleteTarget{"f", "a", DeleteKind::kColumnAll, 20}}});
  EXPECT_EQ(Visible(), "a30 b30 b20 b10 c30 c20 c10 ");
}

TEST_F(DeleteTest, DeleteVersionHidesExactlyOneVersion) {
  MustDelete(Delete{"r", {DeleteTarget{"f", "a", DeleteKind::kColumnVersion, 20}}});
  EXPECT_EQ(Visible(), "a30 a10 b30 b20 b10 c30 c20 c10 ");
}

TEST_F(DeleteTest, DeleteVersionWithoutTimestampHidesTheLatest) {
  MustDelete(Delete{"r", {DeleteTarget{"f", "a", DeleteKind::kColumnVersion, std::nullopt}}});
  EXPECT_EQ(Visible(), "a20 a10 b30 b20 b10 c30 c20 c10 ");
}

TEST_F(DeleteTest, DeleteFamilyHidesEveryColumnOfTheFamily) {
  MustDelete(Delete{"r", {DeleteTarget{"f", std::nullopt, DeleteKind::kFamily, 20}}});
  EXPECT_EQ(Visible(), "a30 b30 c30 c20 c10 ");
}

TEST_F(DeleteTest, DeleteFamilyVersionHidesCellsAtExactlyItsTimestamp) {
  MustDelete(Delete{"r", {DeleteTarget{"f", std::nullopt, DeleteKind::kFamilyVersion, 20}}});
  EXPECT_EQ(Visible(), "a30 a10 b30 b10 c30 c20 c10 ");
}

TEST_F(DeleteTest, RowDeleteHidesEveryFamily) {
  clock_->Set(100);
  MustDelete(Delete{"r"});
  EXPECT_EQ(Visible(), "");
}

TEST_F(DeleteTest, MarkersApplyWhateverTheReadTimeRange) {
  MustDelete(Delete{"r", {DeleteTarget{"f", "a", DeleteKind::kColumnAll, 20}}});
  Get g;
  g.row = "r";
  g.max_versions = 5;
  g.columns = {Column{"f", std::string("a")}};
  g.time_range = TimeRange{0, 25};
  EXPECT_TRUE(MustGet("t", g).empty());
}

// The event-tracking trap: an old event re-put after an erasure delete.
TEST_F(DeleteTest, PutWithOlderTimestampAfterDeleteStaysMaskedUntilMajorCompaction) {
  MustDelete(Delete{"r"});
  MustPut("t", PutOf("r", "f", "a", "replayed", 500));
  EXPECT_EQ(Visible(), "") << "masked by the delete marker";
  ASSERT_TRUE(store_->MajorCompact("t").ok());
  EXPECT_EQ(Visible(), "") << "compaction removed the marker and what it masked";
  MustPut("t", PutOf("r", "f", "a", "replayed", 500));
  EXPECT_EQ(Visible(), "replayed ") << "no marker left to mask a new put";
}

TEST_F(DeleteTest, MajorCompactionRemovesMarkersAndWhatTheyMask) {
  MustDelete(Delete{"r", {DeleteTarget{"f", "a", DeleteKind::kColumnAll, 30}}});
  MustDelete(Delete{"r", {DeleteTarget{"g", std::nullopt, DeleteKind::kFamily, 20}}});
  ASSERT_TRUE(store_->MajorCompact("t").ok());
  EXPECT_EQ(Visible(), "b30 b20 b10 c30 ");
  store_.reset();
  EXPECT_EQ(RawKeyCount("t", "f"), 3u) << "b's three versions only";
  EXPECT_EQ(RawKeyCount("t", "g"), 1u) << "c30 only";
}

// ---- Increment ----

TEST_F(SemanticsTest, IncrementCreatesAndAddsToEightByteCounters) {
  Create(Schema("t", {Fam("fc")}));
  Increment inc{"dev", {{"fc", "c1|20261004", 1}}};
  ASSERT_TRUE(store_->Increment("t", inc).ok());
  inc.columns[0].amount = 2;
  auto r = store_->Increment("t", inc);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->Counter("fc", "c1|20261004"), 3);
  EXPECT_EQ(MustGet("t", "dev").Counter("fc", "c1|20261004"), 3);
  EXPECT_EQ(MustGet("t", "dev").Value("fc", "c1|20261004")->size(), 8u);
}

TEST_F(SemanticsTest, IncrementOnAValueThatIsNotEightBytesIsInvalidArgument) {
  Create(Schema("t", {Fam("fc")}));
  MustPut("t", PutOf("dev", "fc", "q", "abc"));
  auto r = store_->Increment("t", Increment{"dev", {{"fc", "q", 1}}});
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("3-byte"), absl::string_view::npos) << r.status();
}

TEST_F(SemanticsTest, RetriedIncrementWithTheSameNonceCountsOnce) {
  Create(Schema("t", {Fam("fc")}));
  Increment inc{"dev", {{"fc", "q", 1}}};
  inc.nonce = 0x5eed;
  for (int attempt = 0; attempt < 3; ++attempt) ASSERT_TRUE(store_->Increment("t", inc).ok());
  EXPECT_EQ(MustGet("t", "dev").Counter("fc", "q"), 1);
  inc.nonce = 0x5eee;
  ASSERT_TRUE(store_->Increment("t", inc).ok());
  EXPECT_EQ(MustGet("t", "dev").Counter("fc", "q"), 2) << "a new nonce is a new increment";
}

TEST_F(SemanticsTest, NonceIsForgottenAfterItsRetentionPeriod) {
  Create(Schema("t", {Fam("fc")}));
  Increment inc{"dev", {{"fc", "q", 1}}};
  inc.nonce = 7;
  ASSERT_TRUE(store_->Increment("t", inc).ok());
  clock_->Advance(kNonceRetentionMs + 1);
  ASSERT_TRUE(store_->Increment("t", inc).ok());
  EXPECT_EQ(MustGet("t", "dev").Counter("fc", "q"), 2);
}

TEST_F(SemanticsTest, ARetryAnswersWhatTheFirstAttemptDid) {
  Create(Schema("t", {Fam("fc")}));
  Increment inc{"dev", {{"fc", "q", 5}}};
  inc.nonce = 11;
  auto first = store_->Increment("t", inc);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(store_->Increment("t", Increment{"dev", {{"fc", "q", 1}}}).ok());
  auto retry = store_->Increment("t", inc);
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(retry->row, "dev");
  EXPECT_EQ(retry->Counter("fc", "q"), 5) << "the first answer, not the current value";
  EXPECT_EQ(retry->cells.ToVector(), first->cells.ToVector());
  EXPECT_EQ(MustGet("t", "dev").Counter("fc", "q"), 6);
}

TEST_F(SemanticsTest, TheSameNonceOnAnotherRowOrTableIsAnotherIncrement) {
  Create(Schema("t", {Fam("fc")}));
  Create(Schema("u", {Fam("fc")}));
  for (const char* row : {"a", "b"}) {
    Increment inc{row, {{"fc", "q", 1}}};
    inc.nonce = 9;
    ASSERT_TRUE(store_->Increment("t", inc).ok());
    ASSERT_TRUE(store_->Increment("u", inc).ok());
  }
  EXPECT_EQ(MustGet("t", "a").Counter("fc", "q"), 1);
  EXPECT_EQ(MustGet("t", "b").Counter("fc", "q"), 1);
  EXPECT_EQ(MustGet("u", "a").Counter("fc", "q"), 1);
}

TEST_F(SemanticsTest, NoncesAreHonouredAfterTheStoreReopens) {
  Create(Schema("t", {Fam("fc")}));
  Increment inc{"dev", {{"fc", "q", 3}}};
  inc.nonce = 0xfeed;
  ASSERT_TRUE(store_->Increment("t", inc).ok());
  Reopen();
  clock_->Advance(kNonceRetentionMs - 1);
  ASSERT_TRUE(store_->Increment("t", inc).ok());
  EXPECT_EQ(MustGet("t", "dev").Counter("fc", "q"), 3);
  Reopen();
  clock_->Advance(1);
  ASSERT_TRUE(store_->Increment("t", inc).ok());
  EXPECT_EQ(MustGet("t", "dev").Counter("fc", "q"), 6) << "expired after its retention";
}

TEST_F(SemanticsTest, ASkipWalIncrementCountsOnceWhetherOrNotItSurvivedAReopen) {
  Create(Schema("t", {Fam("fc")}));
  Increment inc{"dev", {{"fc", "q", 1}}};
  inc.nonce = 21;
  inc.durability = Durability::kSkipWal;
  ASSERT_TRUE(store_->Increment("t", inc).ok());
  Reopen();
  const int64_t after_reopen = MustGet("t", "dev").Counter("fc", "q").value_or(0);
  ASSERT_TRUE(store_->Increment("t", inc).ok());
  EXPECT_EQ(MustGet("t", "dev").Counter("fc", "q"), 1)
      << "counted once whether the first attempt survived (" << after_reopen << ") or not";
}

TEST_F(SemanticsTest, ExpiredNonceRecordsLeaveDiskAtAMajorCompaction) {
  Create(Schema("t", {Fam("fc")}));
  for (uint64_t nonce = 1; nonce <= 50; ++nonce) {
    Increment inc{"dev", {{"fc", "q", 1}}};
    inc.nonce = nonce;
    ASSERT_TRUE(store_->Increment("t", inc).ok());
  }
  ASSERT_TRUE(store_->MajorCompact("t").ok());
  store_.reset();
  EXPECT_EQ(RawColumnFamilyKeyCount(internal::kNonceColumnFamily), 50u) << "still retained";
  Reopen();
  clock_->Advance(kNonceRetentionMs);
  ASSERT_TRUE(store_->MajorCompact("t").ok());
  store_.reset();
  EXPECT_EQ(RawColumnFamilyKeyCount(internal::kNonceColumnFamily), 0u);
  Reopen();
  EXPECT_EQ(MustGet("t", "dev").Counter("fc", "q"), 50);
}

TEST_F(SemanticsTest, IncrementCellTtlIsInMilliseconds) {
  Create(Schema("t", {Fam("fc", 1, 2 * 24 * 3600)}));
  Increment inc{"dev", {{"fc", "q", 1}}};
  inc.ttl_ms = 2 * kDayMs;
  ASSERT_TRUE(store_->Increment("t", inc).ok());
  clock_->Advance(kDayMs);
  EXPECT_EQ(MustGet("t", "dev").Counter("fc", "q"), 1);
  clock_->Advance(kDayMs + 1);
  EXPECT_TRUE(MustGet("t", "dev").empty());
}

TEST_F(SemanticsTest, IncrementIsAtomicUnderConcurrency) {
  Create(Schema("t", {Fam("fc")}));
  constexpr int kThreads = 8, kEach = 500;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        if (!store_->Increment("t", Increment{"hot", {{"fc", "q", 1}, {"fc", "p", 2}}}).ok()) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  RowResult r = MustGet("t", "hot");
  EXPECT_EQ(r.Counter("fc", "q"), kThreads * kEach);
  EXPECT_EQ(r.Counter("fc", "p"), 2 * kThreads * kEach);
}

// ---- CheckAndMutate ----

TEST_F(SemanticsTest, CheckAndMutateComparesTheGivenValueAgainstTheStoredOne) {
  Create(Schema("t", {Fam("s")}));
  MustPut("t", PutOf("r", "s", "ver", "5"));
  auto attempt = [&](CompareOp op, std::string value) {
    CheckAndMutate cam{"r", "s", "ver", op, value, {PutOf("r", "s", "hit", "1")}, {}};
    auto r = store_->CheckAndMutate("t", cam);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() && *r;
  };
  EXPECT_TRUE(attempt(CompareOp::kEqual, "5"));
  EXPECT_FALSE(attempt(CompareOp::kEqual, "4"));
  EXPECT_TRUE(attempt(CompareOp::kNotEqual, "4"));
  EXPECT_TRUE(attempt(CompareOp::kLess, "4")) << "4 < stored 5";
  EXPECT_FALSE(attempt(CompareOp::kLess, "6"));
  EXPECT_TRUE(attempt(CompareOp::kGreater, "6")) << "6 > stored 5";
  EXPECT_TRUE(attempt(CompareOp::kLessOrEqual, "5"));
  EXPECT_TRUE(attempt(CompareOp::kGreaterOrEqual, "5"));
}

TEST_F(SemanticsTest, CheckAndMutateAbsentCheckSucceedsOnlyWhenTheColumnIsMissing) {
  Create(Schema("t", {Fam("i")}));
  CheckAndMutate first_seen{
      "imp-1", "i", "seen", CompareOp::kEqual, std::nullopt, {PutOf("imp-1", "i", "seen", "1")},
      {}};
  EXPECT_TRUE(*store_->CheckAndMutate("t", first_seen));
  EXPECT_FALSE(*store_->CheckAndMutate("t", first_seen)) << "a replay changes nothing";
}

TEST_F(SemanticsTest, CheckAndMutateAppliesPutsAndDeletesTogether) {
  Create(Schema("t", {Fam("s")}));
  Put p;
  p.row = "r";
  p.values = {{"s", "ver", "1"}, {"s", "old", "x"}};
  MustPut("t", p);
  CheckAndMutate cam{"r",
                     "s",
                     "ver",
                     CompareOp::kEqual,
                     "1",
                     {PutOf("r", "s", "ver", "2")},
                     {Delete{"r", {DeleteTarget{"s", "old", DeleteKind::kColumnAll}}}}};
  ASSERT_TRUE(*store_->CheckAndMutate("t", cam));
  RowResult r = MustGet("t", "r");
  EXPECT_EQ(r.Value("s", "ver"), "2");
  EXPECT_FALSE(r.Value("s", "old").has_value());
}

TEST_F(SemanticsTest, CheckAndMutateRejectsMutationsForAnotherRow) {
  Create(Schema("t", {Fam("s")}));
  CheckAndMutate cam{
      "r", "s", "ver", CompareOp::kEqual, std::nullopt, {PutOf("other", "s", "ver", "1")}, {}};
  EXPECT_EQ(store_->CheckAndMutate("t", cam).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(SemanticsTest, CheckAndMutateIsAtomicUnderConcurrency) {
  Create(Schema("t", {Fam("s")}));
  MustPut("t", PutOf("r", "s", "ver", EncodeCounter(0)));
  constexpr int kThreads = 6, kEach = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int done = 0; done < kEach;) {
        auto current = store_->Get("t", Get{"r"});
        int64_t ver = *current->Counter("s", "ver");
        CheckAndMutate cam{"r",
                           "s",
                           "ver",
                           CompareOp::kEqual,
                           EncodeCounter(ver),
                           {PutOf("r", "s", "ver", EncodeCounter(ver + 1))},
                           {}};
        if (*store_->CheckAndMutate("t", cam)) ++done;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(MustGet("t", "r").Counter("s", "ver"), kThreads * kEach)
      << "every successful update landed; none was lost to a race";
}

TEST_F(SemanticsTest, MultiColumnPutIsAtomicForReaders) {
  Create(Schema("t", {Fam("f"), Fam("g")}));
  int torn = 0, reads = 0;
  ReadWhileWriting(
      [&] {
        for (int i = 0; i < 3000; ++i) {
          Put p;
          p.row = "r";
          std::string v = std::to_string(i);
          p.values = {{"f", "x", v}, {"f", "y", v}, {"g", "z", v}};
          ASSERT_TRUE(store_->Put("t", p).ok());
          clock_->Advance(1);
        }
      },
      [&] {
        std::vector<Get> gets(1);
        gets[0].row = "r";
        auto r = store_->MultiGet("t", gets);
        if (!r.ok()) {
          ADD_FAILURE() << r.status();
          return false;
        }
        const RowResult& row = (*r)[0];
        if (row.empty()) return true;
        ++reads;
        if (row.Value("f", "x") != row.Value("f", "y") ||
            row.Value("f", "x") != row.Value("g", "z")) {
          ++torn;
        }
        return true;
      });
  EXPECT_EQ(torn, 0) << "of " << reads << " reads";
}

// A scan reads from one snapshot without row locks. Flushes run the version
// filter, which a RocksDB snapshot does not hold back, so this is where a
// scan could see one family at another write than the other, or a column
// whose last visible version a flush has dropped.
TEST_F(SemanticsTest, ScanSeesWholeRowsUnderConcurrentWritesAndFlushes) {
  Create(Schema("t", {Fam("f"), Fam("g")}));
  constexpr int kRows = 8;
  int torn = 0, rows_read = 0;
  Scan all;
  all.limit = 100;
  ReadWhileWriting(
      [&] {
        for (int i = 0; i < 3000; ++i) {
          Put p;
          p.row = "r" + std::to_string(i % kRows);
          std::string v = std::to_string(i);
          p.values = {{"f", "x", v}, {"f", "y", v}, {"g", "z", v}};
          ASSERT_TRUE(store_->Put("t", p).ok());
          clock_->Advance(1);
          if (i % 100 == 99) {
            ASSERT_TRUE(store_->Flush("t").ok());
          }
        }
      },
      [&] {
        for (const RowResult& row : MustScan("t", all)) {
          ++rows_read;
          const auto x = row.Value("f", "x");
          if (!x.has_value() || x != row.Value("f", "y") || x != row.Value("g", "z")) {
            if (++torn > 5) continue;
            ADD_FAILURE() << row.row << ": f:x=" << x.value_or("<none>")
                          << " f:y=" << row.Value("f", "y").value_or("<none>")
                          << " g:z=" << row.Value("g", "z").value_or("<none>");
          }
        }
        return true;
      });
  EXPECT_EQ(torn, 0) << "of " << rows_read << " rows scanned";
}

TEST_F(SemanticsTest, MultiFamilyPutIsAtomicForSingleRowGets) {
  Create(Schema("t", {Fam("f"), Fam("g")}));
  int torn = 0, reads = 0;
  ReadWhileWriting(
      [&] {
        for (int i = 0; i < 3000; ++i) {
          Put p;
          p.row = "r";
          std::string v = std::to_string(i);
          p.values = {{"f", "x", v}, {"g", "z", v}};
          ASSERT_TRUE(store_->Put("t", p).ok());
          clock_->Advance(1);
        }
      },
      [&] {
        RowResult row = MustGet("t", "r");
        if (row.empty()) return true;
        ++reads;
        if (row.Value("f", "x") != row.Value("g", "z")) ++torn;
        return true;
      });
  EXPECT_EQ(torn, 0) << "of " << reads << " reads";
}

// ---- Row cache: never serves what a reader should not see ----

TEST_F(SemanticsTest, CachedRowSeesLaterWrites) {
  Create(Schema("t", {Fam("f", 3)}));
  MustPut("t", PutOf("r", "f", "q", "v1"));
  EXPECT_EQ(MustGet("t", "r").Value("f", "q"), "v1");
  EXPECT_EQ(MustGet("t", "r").Value("f", "q"), "v1");
  clock_->Advance(1);
  MustPut("t", PutOf("r", "f", "q", "v2"));
  EXPECT_EQ(MustGet("t", "r").Value("f", "q"), "v2");
  ASSERT_TRUE(store_->Increment("t", Increment{"r", {{"f", "n", 5}}}).ok());
  EXPECT_EQ(MustGet("t", "r").Counter("f", "n"), 5);
  ASSERT_TRUE(store_->Delete("t", Delete{"r"}).ok());
  EXPECT_TRUE(MustGet("t", "r").empty());
}

TEST_F(SemanticsTest, CachedRowStillExpiresOnTime) {
  Create(Schema("t", {Fam("f", 1, 60)}));
  MustPut("t", PutOf("r", "f", "q", "v"));
  EXPECT_FALSE(MustGet("t", "r").empty());
  clock_->Advance(61 * kSecond);
  EXPECT_TRUE(MustGet("t", "r").empty());
}

TEST_F(SemanticsTest, CachedRowAnswersEachReadersVersionsAndTimeRange) {
  Create(Schema("t", {Fam("f", 5)}));
  for (int ts = 1; ts <= 4; ++ts) MustPut("t", PutOf("r", "f", "q", "v" + std::to_string(ts), ts));
  EXPECT_EQ(MustGet("t", "r", 5).cells.size(), 4u);
  EXPECT_EQ(MustGet("t", "r", 2).cells.size(), 2u);
  Get g;
  g.row = "r";
  g.max_versions = 5;
  g.time_range = TimeRange{2, 4};
  RowResult r = MustGet("t", g);
  ASSERT_EQ(r.cells.size(), 2u);
  EXPECT_EQ(r.cells[0].value, "v3");
}

// A row of one version per column is cached as its latest view alone; reads
// of other versions and time ranges, and expiry, still see the stored cells.
TEST_F(SemanticsTest, CachedSingleVersionRowAnswersTimeRangesVersionsAndExpiry) {
  Create(Schema("t", {Fam("f", 3, 60)}));
  for (int ts = 1; ts <= 3; ++ts) {
    MustPut("t", PutOf("r", "f", "q" + std::to_string(ts), "v" + std::to_string(ts), kNow + ts));
  }
  EXPECT_EQ(MustGet("t", "r").cells.size(), 3u);  // read, then cached
  Get g;
  g.row = "r";
  g.max_versions = 3;
  g.time_range = TimeRange{kNow + 2, kNow + 3};
  RowResult ranged = MustGet("t", g);
  ASSERT_EQ(ranged.cells.size(), 1u);
  EXPECT_EQ(ranged.cells[0].qualifier, "q2");
  EXPECT_EQ(ranged.cells[0].value, "v2");
  EXPECT_EQ(MustGet("t", "r", 3).cells.size(), 3u);
  clock_->Advance(60 * kSecond + 2);  // q1 is past the family TTL
  RowResult aged = MustGet("t", "r", 3);
  ASSERT_EQ(aged.cells.size(), 2u);
  EXPECT_EQ(aged.cells[0].qualifier, "q2");
  // A second version of q3, cached with its stored cells apart; then q2
  // expires too.
  MustPut("t", PutOf("r", "f", "q3", "v3b", kNow + 4));
  EXPECT_EQ(MustGet("t", "r").Value("f", "q3"), "v3b");
  EXPECT_EQ(MustGet("t", "r", 3).cells.size(), 3u);
  clock_->Advance(1);
  RowResult later = MustGet("t", "r", 3);
  ASSERT_EQ(later.cells.size(), 2u);
  EXPECT_EQ(later.cells[0].value, "v3b");
  EXPECT_EQ(later.cells[1].value, "v3");
}

// What a cached profile-like row costs the row cache: one cell each of its
// 80 columns, not a stored copy beside the latest one.
// Kept once (its latest cells stand for what is stored) and packed: each
// cell's 6 bytes of text and at most 32 of bookkeeping, where an unpacked
// Cell alone is sizeof(Cell), over 100 bytes.
TEST_F(SemanticsTest, CachedSingleVersionRowIsKeptOncePacked) {
  Create(Schema("t", {Fam("f")}));
  Put put;
  put.row = "device";
  for (int i = 0; i < 80; ++i) put.values.push_back({"f", "s" + std::to_string(1000 + i), "Z", {}});
  MustPut("t", put);
  ASSERT_EQ(MustGet("t", "device").cells.size(), 80u);
  int64_t cached = -1;
  for (const Store::MemoryPart& part : store_->MemoryUsage()) {
    if (std::string_view(part.part) == "row_cache") cached = part.bytes;
  }
  EXPECT_GT(cached, 80 * 6);
  EXPECT_LT(cached, 80 * (6 + 32) + 1024);
}

TEST_F(SemanticsTest, RowCacheCountsItsHitsAndMisses) {
  Create(Schema("t", {Fam("f")}));
  MustPut("t", PutOf("r", "f", "q", "v"));
  const Store::RowCacheReads before = store_->RowCacheReadCounts();
  MustGet("t", "r");
  MustGet("t", "r");
  MustGet("t", "absent");
  const Store::RowCacheReads after = store_->RowCacheReadCounts();
  EXPECT_EQ(after.misses - before.misses, 2);  // the first read of each row
  EXPECT_EQ(after.hits - before.hits, 1);
}

// ---- FIFO compaction ----

TEST_F(SemanticsTest, FifoCompactionDropsWholeExpiredFilesWithoutRewriting) {
  FamilyOptions raw = Fam("d", 1, 3600);
  raw.fifo_compaction = true;
  Create(Schema("metrics", {raw}));
  for (int i = 0; i < 50; ++i) MustPut("metrics", PutOf("old" + std::to_string(i), "d", "q", "v"));
  ASSERT_TRUE(store_->Flush("metrics").ok());
  const std::vector<std::string> old_files = SstFiles();
  ASSERT_EQ(old_files.size(), 1u);
  clock_->Advance(2 * 3600 * kSecond);
  for (int i = 0; i < 5; ++i) MustPut("metrics", PutOf("new" + std::to_string(i), "d", "q", "v"));
  ASSERT_TRUE(store_->Flush("metrics").ok());
  ASSERT_TRUE(store_->MajorCompact("metrics").ok());
  const std::vector<std::string> files = SstFiles();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_NE(files[0], old_files[0]) << "the expired file was deleted whole";
  ASSERT_TRUE(store_->MajorCompact("metrics").ok());
  EXPECT_EQ(SstFiles(), files) << "the live file is never rewritten";
  Scan all;
  all.limit = 100;
  EXPECT_EQ(MustScan("metrics", all).size(), 5u);
  store_.reset();
  EXPECT_EQ(RawKeyCount("metrics", "d"), 5u) << "the expired file is gone, the new one intact";
}

}  // namespace
}  // namespace rtb::storage::testing
