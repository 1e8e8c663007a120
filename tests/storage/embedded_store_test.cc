// The Store API on the embedded engine: reads, writes, scans, errors, reopen
// and the asynchronous reads.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "absl/strings/str_cat.h"
#include "boost/asio/io_context.hpp"
#include "gmock/gmock.h"
#include "rocksdb/db.h"
#include "storage/types.h"
#include "tests/storage/test_store.h"

namespace rtb::storage::testing {

size_t EmbeddedStoreTest::RawColumnFamilyKeyCount(const std::string& column_family) {
  std::vector<std::string> names;
  EXPECT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path_, &names).ok());
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const std::string& n : names) descriptors.emplace_back(n, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s =
      rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(), path_, descriptors, &handles, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return 0;
  size_t count = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != column_family) continue;
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), handles[i]));
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++count;
  }
  for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
  delete db;
  return count;
}

namespace {

class StoreApiTest : public EmbeddedStoreTest {
 protected:
  void SetUp() override {
    EmbeddedStoreTest::SetUp();
    Create(Schema("t", {Fam("a", 3), Fam("b", 3)}));
  }
};

TEST_F(StoreApiTest, AbsentRowIsEmptyNotAnError) {
  RowResult r = MustGet("t", "nobody");
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.row, "nobody");
}

TEST_F(StoreApiTest, GetReturnsFamiliesAndQualifiersInHBaseOrder) {
  Put p;
  p.row = "r1";
  p.values = {{"b", "z", "1"}, {"a", "y", "2"}, {"a", "x", "3"}};
  MustPut("t", p);
  RowResult r = MustGet("t", "r1");
  ASSERT_EQ(r.cells.size(), 3u);
  EXPECT_EQ(r.cells[0].family + r.cells[0].qualifier, "ax");
  EXPECT_EQ(r.cells[1].family + r.cells[1].qualifier, "ay");
  EXPECT_EQ(r.cells[2].family + r.cells[2].qualifier, "bz");
  EXPECT_EQ(r.Value("a", "y"), "2");
  EXPECT_FALSE(r.Value("a", "nope").has_value());
}

TEST_F(StoreApiTest, ServerAssignsTimestampWhenNoneGiven) {
  MustPut("t", PutOf("r", "a", "q", "v"));
  RowResult r = MustGet("t", "r");
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_EQ(r.cells[0].timestamp, kNow);
}

TEST_F(StoreApiTest, GetSelectsFamiliesAndColumns) {
  Put p;
  p.row = "r";
  p.values = {{"a", "x", "1"}, {"a", "y", "2"}, {"b", "z", "3"}};
  MustPut("t", p);
  Get g;
  g.row = "r";
  g.columns = {Column{"a", std::string("y")}, Column{"b", std::nullopt}};
  RowResult r = MustGet("t", g);
  ASSERT_EQ(r.cells.size(), 2u);
  EXPECT_EQ(r.cells[0].qualifier, "y");
  EXPECT_EQ(r.cells[1].qualifier, "z");
}

TEST_F(StoreApiTest, RowsThatArePrefixesOfOthersStayApart) {
  MustPut("t", PutOf("ab", "a", "q", "short"));
  MustPut("t", PutOf("abc", "a", "q", "long"));
  MustPut("t", PutOf(std::string("ab\0", 3), "a", "q", "zero"));
  EXPECT_EQ(MustGet("t", "ab").Value("a", "q"), "short");
  EXPECT_EQ(MustGet("t", "abc").Value("a", "q"), "long");
  EXPECT_EQ(MustGet("t", std::string("ab\0", 3)).Value("a", "q"), "zero");
  EXPECT_EQ(MustGet("t", "ab").cells.size(), 1u);
}

TEST_F(StoreApiTest, MultiGetAnswersEachRowInOrder) {
  MustPut("t", PutOf("r1", "a", "q", "1"));
  MustPut("t", PutOf("r3", "a", "q", "3"));
  std::vector<Get> gets(3);
  gets[0].row = "r1";
  gets[1].row = "r2";
  gets[2].row = "r3";
  auto r = store_->MultiGet("t", gets);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].Value("a", "q"), "1");
  EXPECT_TRUE((*r)[1].empty());
  EXPECT_EQ((*r)[2].Value("a", "q"), "3");
}

TEST_F(StoreApiTest, UnknownTableIsInvalidArgumentNamingIt) {
  auto r = store_->Get("nope", Get{"r"});
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("'nope'"), absl::string_view::npos);
}

TEST_F(StoreApiTest, UnknownFamilyIsInvalidArgumentNamingIt) {
  absl::Status s = store_->Put("t", PutOf("r", "zz", "q", "v"));
  ASSERT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'zz'"), absl::string_view::npos) << s;
}

TEST_F(StoreApiTest, NegativeLimitIsInvalidArgument) {
  Scan s;
  s.limit = -1;
  EXPECT_EQ(store_->Scan("t", s).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(StoreApiTest, ScanWithoutLimitOrStopRowIsRejected) {
  auto r = store_->Scan("t", Scan{});
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("limit"), absl::string_view::npos);
}

TEST_F(StoreApiTest, EmptyRowKeyIsRejected) {
  EXPECT_EQ(store_->Put("t", PutOf("", "a", "q", "v")).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(StoreApiTest, CreateTableIsIdempotentButRefusesADifferentSchema) {
  EXPECT_TRUE(store_->CreateTable(Schema("t", {Fam("a", 3), Fam("b", 3)})).ok());
  EXPECT_EQ(store_->CreateTable(Schema("t", {Fam("a", 1)})).code(),
            absl::StatusCode::kAlreadyExists);
}

TEST_F(StoreApiTest, InvalidSchemaIsRejectedWithTheFieldNamed) {
  absl::Status s = store_->CreateTable(Schema("bad name", {Fam("a")}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  FamilyOptions fifo = Fam("d");
  fifo.fifo_compaction = true;
  s = store_->CreateTable(Schema("m", {fifo}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("FIFO"), absl::string_view::npos);
}

TEST_F(StoreApiTest, DataAndSchemasSurviveReopen) {
  MustPut("t", PutOf("r", "a", "q", "kept"));
  Reopen();
  auto exists = store_->TableExists("t");
  ASSERT_TRUE(exists.ok());
  EXPECT_TRUE(*exists);
  EXPECT_EQ(MustGet("t", "r").Value("a", "q"), "kept");
}

TEST_F(StoreApiTest, DeleteTableRemovesItAcrossReopen) {
  MustPut("t", PutOf("r", "a", "q", "v"));
  ASSERT_TRUE(store_->DeleteTable("t").ok());
  Reopen();
  EXPECT_FALSE(*store_->TableExists("t"));
  Create(Schema("t", {Fam("a", 3), Fam("b", 3)}));
  EXPECT_TRUE(MustGet("t", "r").empty());
}

TEST_F(StoreApiTest, AlterTableAddsDropsAndChangesFamiliesKeepingTheirCells) {
  for (int64_t ts : {1, 2, 3}) {
    Put p = PutOf("r", "a", "q", "v" + std::to_string(ts));
    p.values[0].timestamp = ts;
    MustPut("t", p);
  }
  MustPut("t", PutOf("r", "b", "q", "gone"));
  TableSchema altered = Schema("t", {Fam("a", 2), Fam("c", 1)});
  altered.descriptor_values["MAX_FILESIZE"] = "1024";
  altered.families[0].descriptor_values["BLOCKSIZE"] = "8192";
  ASSERT_TRUE(store_->AlterTable(altered).ok());
  Get all;
  all.row = "r";
  all.max_versions = 5;
  // Versions past the new maximum are hidden at once; family b is gone.
  EXPECT_EQ(MustGet("t", all).cells.size(), 2u);
  EXPECT_TRUE(absl::IsInvalidArgument(store_->Put("t", PutOf("r", "b", "q", "x"))));
  MustPut("t", PutOf("r", "c", "q", "new"));
  // Compactions follow the new settings too: the oldest version leaves disk.
  ASSERT_TRUE(store_->MajorCompact("t").ok());
  Reopen();
  EXPECT_EQ(RawKeyCount("t", "a"), 2u);
  absl::StatusOr<std::vector<TableSchema>> tables = store_->ListTables();
  ASSERT_TRUE(tables.ok());
  ASSERT_EQ(tables->size(), 1u);
  EXPECT_EQ(tables->front(), altered) << "descriptor values survive a reopen";
  RowResult r = MustGet("t", all);
  EXPECT_EQ(r.Value("a", "q"), "v3");
  EXPECT_EQ(r.Value("c", "q"), "new");
  EXPECT_FALSE(r.Value("b", "q").has_value());
  EXPECT_TRUE(absl::IsNotFound(store_->AlterTable(Schema("nope", {Fam("a")}))));
}

TEST_F(StoreApiTest, TruncateTableEmptiesItAndKeepsItsSchema) {
  MustPut("t", PutOf("r", "a", "q", "v"));
  MustPut("t", PutOf("s", "b", "q", "v"));
  ASSERT_TRUE(store_->TruncateTable("t").ok());
  EXPECT_TRUE(MustGet("t", "r").empty());
  EXPECT_TRUE(MustGet("t", "s").empty());
  MustPut("t", PutOf("r", "a", "q", "after"));
  Reopen();
  EXPECT_EQ(MustGet("t", "r").Value("a", "q"), "after");
  EXPECT_TRUE(MustGet("t", "s").empty());
  EXPECT_TRUE(absl::IsNotFound(store_->TruncateTable("nope")));
}

TEST_F(StoreApiTest, NamespacedTablesAreTablesOfTheirOwn) {
  Create(Schema("tenant:t", {Fam("a")}));
  MustPut("tenant:t", PutOf("r", "a", "q", "theirs"));
  EXPECT_TRUE(MustGet("t", "r").empty());
  EXPECT_EQ(MustGet("tenant:t", "r").Value("a", "q"), "theirs");
  EXPECT_TRUE(absl::IsInvalidArgument(store_->CreateTable(Schema("a:b:c", {Fam("a")}))));
}

class ScanTest : public StoreApiTest {
 protected:
  void SetUp() override {
    StoreApiTest::SetUp();
    for (const char* row : {"a1", "a2", "a3", "b1", "b2", "c1"}) {
      MustPut("t", PutOf(row, "a", "q", row));
    }
    MustPut("t", PutOf("b1", "b", "only-b", "x"));
  }
  static std::string Rows(const std::vector<RowResult>& rows) {
    std::string out;
    for (const RowResult& r : rows) out += r.row + " ";
    return out;
  }
};

TEST_F(ScanTest, StartAndStopRowsAreInclusiveAndExclusive) {
  Scan s;
  s.start_row = "a2";
  s.stop_row = "b2";
  EXPECT_EQ(Rows(MustScan("t", s)), "a2 a3 b1 ");
}

TEST_F(ScanTest, PrefixScanStaysInsideThePrefix) {
  Scan s;
  s.prefix = "b";
  EXPECT_EQ(Rows(MustScan("t", s)), "b1 b2 ");
}

TEST_F(ScanTest, LimitStopsAfterNRows) {
  Scan s;
  s.limit = 2;
  EXPECT_EQ(Rows(MustScan("t", s)), "a1 a2 ");
}

TEST_F(ScanTest, ReversedScanStartsAtStartRowAndWalksDown) {
  Scan s;
  s.reversed = true;
  s.start_row = "b1";
  s.stop_row = "a1";
  EXPECT_EQ(Rows(MustScan("t", s)), "b1 a3 a2 ");
  Scan all;
  all.reversed = true;
  all.limit = 10;
  EXPECT_EQ(Rows(MustScan("t", all)), "c1 b2 b1 a3 a2 a1 ");
  Scan prefix;
  prefix.reversed = true;
  prefix.prefix = "a";
  EXPECT_EQ(Rows(MustScan("t", prefix)), "a3 a2 a1 ");
}

TEST_F(ScanTest, MultipleRowRangesReturnOnlyRowsInside) {
  Scan s;
  s.ranges = {RowRange{"c", true, "d", false}, RowRange{"a2", true, "a3", true},
              RowRange{"b1", false, "b9", false}};
  EXPECT_EQ(Rows(MustScan("t", s)), "a2 a3 b2 c1 ");
  s.reversed = true;
  EXPECT_EQ(Rows(MustScan("t", s)), "c1 b2 a3 a2 ");
}

TEST_F(ScanTest, ColumnSelectionSkipsRowsWithoutThoseColumns) {
  Scan s;
  s.limit = 10;
  s.columns = {Column{"b", std::nullopt}};
  EXPECT_EQ(Rows(MustScan("t", s)), "b1 ");
}

TEST_F(ScanTest, TimeRangeSelectsCellsByTimestamp) {
  MustPut("t", PutOf("d1", "a", "q", "old", kNow - 5000));
  Scan s;
  s.limit = 10;
  s.time_range = TimeRange{kNow - 6000, kNow - 4000};
  EXPECT_EQ(Rows(MustScan("t", s)), "d1 ");
}

TEST_F(ScanTest, ScannerStreamsInBatches) {
  Scan s;
  s.start_row = "a";
  s.stop_row = "z";
  auto scanner = store_->OpenScanner("t", s);
  ASSERT_TRUE(scanner.ok());
  std::string seen;
  for (int i = 0; i < 10; ++i) {
    auto batch = (*scanner)->Next(4);
    ASSERT_TRUE(batch.ok());
    if (batch->empty()) break;
    EXPECT_LE(batch->size(), 4u);
    seen += Rows(*batch);
  }
  EXPECT_EQ(seen, "a1 a2 a3 b1 b2 c1 ");
}

TEST_F(StoreApiTest, AsyncGetCompletesOnTheCallersExecutor) {
  MustPut("t", PutOf("r", "a", "q", "v"));
  boost::asio::io_context io;
  std::optional<absl::StatusOr<RowResult>> answer;
  std::thread::id callback_thread;
  store_->AsyncGet("t", Get{"r"}, std::chrono::steady_clock::now() + std::chrono::seconds(5),
                   io.get_executor(), [&](absl::StatusOr<RowResult> r) {
                     callback_thread = std::this_thread::get_id();
                     answer = std::move(r);
                   });
  io.run_for(std::chrono::seconds(5));
  ASSERT_TRUE(answer.has_value());
  ASSERT_TRUE(answer->ok());
  EXPECT_EQ((*answer)->Value("a", "q"), "v");
  EXPECT_EQ(callback_thread, std::this_thread::get_id());
}

// A row in no cache (flushed, then the store reopened) cannot be read
// without disk I/O on the caller's thread: the async pool reads it.
TEST_F(StoreApiTest, AsyncGetOfARowOnlyOnDiskIsAnsweredThroughThePool) {
  MustPut("t", PutOf("r", "a", "q", "on-disk"));
  ASSERT_TRUE(store_->Flush("t").ok());
  Reopen();
  boost::asio::io_context io;
  std::vector<absl::StatusOr<RowResult>> answers;
  for (int i = 0; i < 2; ++i) {  // the second read finds what the first cached
    store_->AsyncGet("t", Get{"r"}, std::chrono::steady_clock::now() + std::chrono::seconds(5),
                     io.get_executor(),
                     [&](absl::StatusOr<RowResult> r) { answers.push_back(std::move(r)); });
    EXPECT_EQ(answers.size(), static_cast<size_t>(i)) << "answered inside AsyncGet";
    io.restart();
    while (answers.size() == static_cast<size_t>(i) && io.run_one_for(std::chrono::seconds(5))) {
    }
    ASSERT_EQ(answers.size(), static_cast<size_t>(i + 1));
    ASSERT_TRUE(answers.back().ok()) << answers.back().status();
    EXPECT_EQ(answers.back()->Value("a", "q"), "on-disk");
  }
}

// GetWithoutWaiting answers what the store has in memory, as Get would, and
// nothing for a row whose blocks are only on disk (not even the part of it
// in the memtable) or a read Get would refuse.
TEST_F(StoreApiTest, GetWithoutWaitingAnswersOnlyWhatNeedsNoIo) {
  MustPut("t", PutOf("r", "a", "on-disk", "1"));
  ASSERT_TRUE(store_->Flush("t").ok());
  Reopen();
  MustPut("t", PutOf("r", "a", "in-memory", "2"));
  MustPut("t", PutOf("warm", "a", "q", "v"));
  EXPECT_FALSE(store_->GetWithoutWaiting("t", Get{"r"}).has_value());
  std::optional<RowResult> warm = store_->GetWithoutWaiting("t", Get{"warm"});
  ASSERT_TRUE(warm.has_value());
  EXPECT_EQ(warm->Value("a", "q"), "v");
  std::optional<RowResult> absent = store_->GetWithoutWaiting("t", Get{"absent"});
  ASSERT_TRUE(absent.has_value());
  EXPECT_TRUE(absent->empty());
  EXPECT_FALSE(store_->GetWithoutWaiting("no-such-table", Get{"warm"}).has_value());
  // Once Get has read the row from disk, its blocks are cached.
  absl::StatusOr<RowResult> read = store_->Get("t", Get{"r"});
  ASSERT_TRUE(read.ok());
  std::optional<RowResult> now_warm = store_->GetWithoutWaiting("t", Get{"r"});
  ASSERT_TRUE(now_warm.has_value());
  EXPECT_EQ(now_warm->Value("a", "on-disk"), "1");
  EXPECT_EQ(now_warm->Value("a", "in-memory"), "2");
}

// A row with a newer version in the memtable over an older one on disk
// reads the newer, whichever of the caller's thread and the pool reads it.
TEST_F(StoreApiTest, AsyncGetSeesTheMemtableOverTheDisk) {
  MustPut("t", PutOf("r", "a", "q", "old"));
  ASSERT_TRUE(store_->Flush("t").ok());
  MustPut("t", PutOf("r", "a", "q", "new"));
  boost::asio::io_context io;
  std::optional<absl::StatusOr<RowResult>> answer;
  store_->AsyncGet("t", Get{"r"}, std::chrono::steady_clock::now() + std::chrono::seconds(5),
                   io.get_executor(), [&](absl::StatusOr<RowResult> r) { answer = std::move(r); });
  EXPECT_FALSE(answer.has_value()) << "the callback ran inside AsyncGet, not on the executor";
  io.run_for(std::chrono::seconds(5));
  ASSERT_TRUE(answer.has_value());
  ASSERT_TRUE(answer->ok());
  EXPECT_EQ((*answer)->Value("a", "q"), "new");
}

// The memtable holds one column, a file not in the block cache another: a
// read on the caller's thread must not answer the memtable's part alone.
TEST_F(StoreApiTest, AsyncGetOfARowPartlyOnDiskSeesAllOfIt) {
  MustPut("t", PutOf("r", "a", "on-disk", "1"));
  ASSERT_TRUE(store_->Flush("t").ok());
  Reopen();
  MustPut("t", PutOf("r", "a", "in-memory", "2"));
  boost::asio::io_context io;
  std::optional<absl::StatusOr<RowResult>> answer;
  store_->AsyncGet("t", Get{"r"}, std::chrono::steady_clock::now() + std::chrono::seconds(5),
                   io.get_executor(), [&](absl::StatusOr<RowResult> r) { answer = std::move(r); });
  io.run_for(std::chrono::seconds(5));
  ASSERT_TRUE(answer.has_value());
  ASSERT_TRUE(answer->ok()) << answer->status();
  EXPECT_EQ((*answer)->Value("a", "on-disk"), "1");
  EXPECT_EQ((*answer)->Value("a", "in-memory"), "2");
}

// A short scan is tried on the caller's thread without disk I/O (the bid
// path's device history); rows whose blocks are only on disk send it to the
// pool instead, and either way every row in the range is answered, the
// memtable's and the file's.
TEST_F(StoreApiTest, AsyncScanOfRowsPartlyOnDiskSeesAllOfThem) {
  MustPut("t", PutOf("r1", "a", "q", "on-disk"));
  MustPut("t", PutOf("r3", "a", "q", "on-disk"));
  ASSERT_TRUE(store_->Flush("t").ok());
  Reopen();
  MustPut("t", PutOf("r2", "a", "q", "in-memory"));
  MustPut("t", PutOf("r3", "a", "q2", "in-memory"));
  for (int limit : {10, 1000}) {  // within and beyond what is tried without I/O
    SCOPED_TRACE(limit);
    Scan scan;
    scan.start_row = "r";
    scan.stop_row = "s";
    scan.limit = limit;
    boost::asio::io_context io;
    std::optional<absl::StatusOr<std::vector<RowResult>>> answer;
    store_->AsyncScan(
        "t", scan, std::chrono::steady_clock::now() + std::chrono::seconds(5), io.get_executor(),
        [&](absl::StatusOr<std::vector<RowResult>> rows) { answer = std::move(rows); });
    EXPECT_FALSE(answer.has_value()) << "answered inside AsyncScan, not on the executor";
    io.run_for(std::chrono::seconds(5));
    ASSERT_TRUE(answer.has_value());
    ASSERT_TRUE(answer->ok()) << answer->status();
    ASSERT_EQ((*answer)->size(), 3u);
    EXPECT_EQ((**answer)[0].Value("a", "q"), "on-disk");
    EXPECT_EQ((**answer)[1].Value("a", "q"), "in-memory");
    EXPECT_EQ((**answer)[2].Value("a", "q"), "on-disk");
    EXPECT_EQ((**answer)[2].Value("a", "q2"), "in-memory");
  }
}

TEST_F(StoreApiTest, AsyncScanOfWarmRowsKeepsItsLimit) {
  for (int i = 0; i < 5; ++i) MustPut("t", PutOf("w" + std::to_string(i), "a", "q", "v"));
  Scan scan;
  scan.prefix = "w";
  scan.limit = 2;
  boost::asio::io_context io;
  std::optional<absl::StatusOr<std::vector<RowResult>>> answer;
  store_->AsyncScan("t", scan, std::chrono::steady_clock::now() + std::chrono::seconds(5),
                    io.get_executor(),
                    [&](absl::StatusOr<std::vector<RowResult>> rows) { answer = std::move(rows); });
  io.run_for(std::chrono::seconds(5));
  ASSERT_TRUE(answer.has_value());
  ASSERT_TRUE(answer->ok()) << answer->status();
  ASSERT_EQ((*answer)->size(), 2u);
  EXPECT_EQ((**answer)[0].row, "w0");
  EXPECT_EQ((**answer)[1].row, "w1");
}

TEST_F(StoreApiTest, MemoryUsageNamesTheEnginesPartsAndFollowsThem) {
  const auto part = [this](std::string_view name) {
    for (const Store::MemoryPart& p : store_->MemoryUsage()) {
      if (p.part == name) return p.bytes;
    }
    ADD_FAILURE() << "no part " << name;
    return int64_t{-1};
  };
  // 256 KiB: above what the row cache keeps, within one block cache shard.
  constexpr int64_t kValueBytes = 256 << 10;
  const int64_t memtables = part("memtables");
  MustPut("t", PutOf("big", "a", "q", std::string(kValueBytes, 'v')));
  EXPECT_GE(part("memtables"), memtables + kValueBytes);
  ASSERT_TRUE(store_->Flush("t").ok());
  EXPECT_LT(part("memtables"), memtables + kValueBytes) << "flushed to a file";
  const int64_t cached = part("block_cache");
  ASSERT_TRUE(store_->Get("t", Get{"big"}).ok());
  EXPECT_GE(part("block_cache"), cached + kValueBytes) << "the file's block, read once";
  EXPECT_GE(part("row_cache"), 0);
  EXPECT_GE(part("table_readers"), 0);
  EXPECT_GE(part("block_cache_pinned"), 0);
}

TEST_F(StoreApiTest, EngineStatsCountTheDataFlushedToFiles) {
  std::optional<Store::EngineStats> before = store_->ReadEngineStats();
  ASSERT_TRUE(before.has_value()) << "the embedded engine reports them";
  EXPECT_EQ(before->sst_files_bytes, 0) << "nothing flushed yet";
  for (int i = 0; i < 100; ++i) {
    MustPut("t", PutOf("row" + std::to_string(i), "a", "q", std::string(1000, 'v')));
  }
  ASSERT_TRUE(store_->Flush("t").ok());
  std::optional<Store::EngineStats> after = store_->ReadEngineStats();
  ASSERT_TRUE(after.has_value());
  EXPECT_GT(after->sst_files_bytes, 0);
  EXPECT_GT(after->live_data_bytes, 0);
  EXPECT_GE(after->pending_compaction_bytes, 0);
  EXPECT_EQ(after->background_errors, 0);
  EXPECT_FALSE(after->writes_stopped);
  EXPECT_EQ(after->delayed_write_rate, 0);
}

// The bid handler sets no timer of its own around a store that declares
// this: the embedded store answers DeadlineExceeded itself (tests below).
TEST_F(StoreApiTest, EmbeddedStoreKeepsItsAsyncDeadlines) {
  EXPECT_TRUE(store_->KeepsAsyncDeadlines());
}

TEST_F(StoreApiTest, AsyncGetPastItsDeadlineAnswersDeadlineExceededOnce) {
  boost::asio::io_context io;
  int calls = 0;
  absl::Status status;
  store_->AsyncGet("t", Get{"r"}, std::chrono::steady_clock::now() - std::chrono::milliseconds(1),
                   io.get_executor(), [&](absl::StatusOr<RowResult> r) {
                     ++calls;
                     status = r.status();
                   });
  io.run_for(std::chrono::milliseconds(300));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
}

TEST_F(StoreApiTest, AsyncGetOfAWarmRowIsPostedAndSeesTheLatestWrite) {
  MustPut("t", PutOf("r", "a", "q", "old"));
  ASSERT_TRUE(store_->Get("t", Get{"r"}).ok());  // the row is now in the row cache
  MustPut("t", PutOf("r", "a", "q", "new"));
  ASSERT_TRUE(store_->Get("t", Get{"r"}).ok());
  boost::asio::io_context io;
  std::optional<absl::StatusOr<RowResult>> answer;
  store_->AsyncGet("t", Get{"r"}, std::chrono::steady_clock::now() + std::chrono::seconds(5),
                   io.get_executor(), [&](absl::StatusOr<RowResult> r) { answer = std::move(r); });
  EXPECT_FALSE(answer.has_value()) << "the callback ran inside AsyncGet, not on the executor";
  io.run_for(std::chrono::seconds(5));
  ASSERT_TRUE(answer.has_value());
  ASSERT_TRUE(answer->ok());
  EXPECT_EQ((*answer)->Value("a", "q"), "new");
}

TEST_F(StoreApiTest, AsyncGetOfAWarmRowPastItsDeadlineAnswersDeadlineExceeded) {
  MustPut("t", PutOf("r", "a", "q", "v"));
  ASSERT_TRUE(store_->Get("t", Get{"r"}).ok());
  boost::asio::io_context io;
  int calls = 0;
  absl::Status status;
  store_->AsyncGet("t", Get{"r"}, std::chrono::steady_clock::now() - std::chrono::milliseconds(1),
                   io.get_executor(), [&](absl::StatusOr<RowResult> r) {
                     ++calls;
                     status = r.status();
                   });
  io.run_for(std::chrono::milliseconds(300));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
}

TEST_F(StoreApiTest, AsyncScanReturnsRows) {
  MustPut("t", PutOf("r", "a", "q", "v"));
  boost::asio::io_context io;
  size_t rows = 0;
  Scan s;
  s.limit = 5;
  store_->AsyncScan("t", s, std::chrono::steady_clock::now() + std::chrono::seconds(5),
                    io.get_executor(), [&](absl::StatusOr<std::vector<RowResult>> r) {
                      ASSERT_TRUE(r.ok());
                      rows = r->size();
                    });
  io.run_for(std::chrono::seconds(5));
  EXPECT_EQ(rows, 1u);
}

// The memtables of many families together, with and without the shared budget.
class MemtableBudgetTest : public ::testing::Test {
 protected:
  static constexpr int kFamilies = 6;
  static constexpr int64_t kBytesPerFamily = int64_t{3} << 19;  // 1.5 MiB
  static constexpr int64_t kValueBytes = int64_t{64} << 10;

  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(path_);
  }
  absl::Status Open(int64_t budget_bytes) {
    path_ = TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    EmbeddedStoreOptions options;
    options.path = path_;
    options.block_cache_bytes = int64_t{32} << 20;  // 24 MiB for families not IN_MEMORY
    options.write_buffer_bytes = int64_t{8} << 20;  // no family fills its own
    options.row_cache_bytes = 0;
    options.memtable_budget_bytes = budget_bytes;
    absl::StatusOr<std::unique_ptr<Store>> store = OpenEmbeddedStore(options);
    if (!store.ok()) return store.status();
    store_ = *std::move(store);
    TableSchema table;
    table.name = "wide";
    for (int f = 0; f < kFamilies; ++f) {
      FamilyOptions family;
      family.name = absl::StrCat("f", f);
      table.families.push_back(family);
    }
    return store_->CreateTable(table);
  }
  // Round robin over the families, as a live load writes.
  void WriteEveryFamily() {
    for (int64_t written = 0; written < kBytesPerFamily; written += kValueBytes) {
      for (int f = 0; f < kFamilies; ++f) Write(f, absl::StrCat("r", f, "-", written), kValueBytes);
    }
  }
  void Write(int family, const std::string& row, int64_t bytes) {
    Put put{.row = row};
    put.values.push_back({absl::StrCat("f", family), "q", std::string(bytes, 'v'), std::nullopt});
    ASSERT_TRUE(store_->Put("wide", put).ok());
  }
  int64_t Part(std::string_view name) {
    for (const Store::MemoryPart& p : store_->MemoryUsage()) {
      if (p.part == name) return p.bytes;
    }
    ADD_FAILURE() << "no part " << name;
    return -1;
  }
  // Flushes run in the background, and RocksDB checks the budget as it
  // writes: keep a trickle of small writes going until (bounded) the
  // memtables are within `bytes`, and answer what they hold then.
  int64_t MemtablesOnceWithin(int64_t bytes) {
    for (int i = 0; i < 200 && Part("memtables") > bytes; ++i) {
      Write(i % kFamilies, absl::StrCat("trickle-", i), 16);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return Part("memtables");
  }

  std::string path_;
  std::unique_ptr<Store> store_;
};

TEST_F(MemtableBudgetTest, WithoutABudgetEveryFamilyKeepsItsOwnMemtable) {
  ASSERT_TRUE(Open(0).ok());
  WriteEveryFamily();
  EXPECT_GE(Part("memtables"), kFamilies * kBytesPerFamily);
}

TEST_F(MemtableBudgetTest, TheBudgetBoundsAllFamiliesTogetherAndIsCountedOnce) {
  constexpr int64_t kBudget = int64_t{4} << 20;
  ASSERT_TRUE(Open(kBudget).ok());
  WriteEveryFamily();
  EXPECT_LE(MemtablesOnceWithin(kBudget), kBudget) << "the largest memtables were flushed";
  // The memtables' reservations in the block cache are not counted again
  // as cached blocks: nothing has been read.
  EXPECT_LT(Part("block_cache"), int64_t{1} << 20);
  for (int f = 0; f < kFamilies; ++f) {
    absl::StatusOr<RowResult> row = store_->Get("wide", Get{absl::StrCat("r", f, "-0")});
    ASSERT_TRUE(row.ok()) << row.status();
    EXPECT_EQ(row->cells.size(), 1u) << "family " << f << " kept its writes through the flushes";
  }
}

TEST_F(MemtableBudgetTest, ABudgetBeyondTheBlockCachesShareIsRefused) {
  absl::Status opened = Open(int64_t{25} << 20);
  EXPECT_EQ(opened.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(opened.message()), ::testing::HasSubstr("memtable_budget_bytes"));
}

// RocksDB's own log and the write-ahead logs stay bounded: FlushWAL (on
// every SYNC_WAL write, and from the WAL flusher) writes no line, the info
// log rotates, and a total WAL size is set.
using ::testing::HasSubstr;

class StoreFilesTest : public EmbeddedStoreTest {};

TEST_F(StoreFilesTest, TheInfoLogHasNoLinePerFlushAndTheLogsAreBounded) {
  Create(Schema("t", {Fam("f")}));
  for (int i = 0; i < 50; ++i) {
    Put put = PutOf(absl::StrCat("r", i), "f", "q", "v");
    put.durability = Durability::kAsyncWal;
    MustPut("t", put);
    // Past the flusher's 100 ms interval now and then, so it flushes.
    if (i % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(120));
  }
  store_.reset();
  const auto read = [](const std::filesystem::path& file) {
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string log = read(std::filesystem::path(path_) / "LOG");
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.find("FlushWAL"), std::string::npos) << "a LOG line per WAL flush";
  std::string options;
  for (const auto& entry : std::filesystem::directory_iterator(path_)) {
    if (entry.path().filename().string().starts_with("OPTIONS-")) options = read(entry.path());
  }
  EXPECT_THAT(options, HasSubstr("info_log_level=INFO_LEVEL"));
  EXPECT_THAT(options, HasSubstr("max_log_file_size=16777216"));
  EXPECT_THAT(options, HasSubstr("keep_log_file_num=5"));
  EXPECT_THAT(options, HasSubstr("max_total_wal_size=67108864"));
}

}  // namespace
}  // namespace rtb::storage::testing
