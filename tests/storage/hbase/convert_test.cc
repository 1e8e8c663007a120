#include "storage/hbase/convert.h"

#include <string>

#include "gtest/gtest.h"
#include "storage/hbase/row_range_filter.h"

namespace rtb::storage::hbase {
namespace {

namespace t2 = ::rtb::storage::thrift2;

TEST(HBaseConvertTest, TtlAttributeIsEightByteBigEndianMillis) {
  EXPECT_EQ(EncodeTtlAttribute(1000), std::string("\0\0\0\0\0\0\x03\xe8", 8));
  EXPECT_EQ(EncodeTtlAttribute(int64_t{2} * 24 * 3600 * 1000),
            std::string("\0\0\0\0\x0a\x4c\xb8\x00", 8));
}

TEST(HBaseConvertTest, EnumsCarryHBaseWireValues) {
  // Values from HBase's hbase.thrift; a mismatch breaks the wire silently.
  EXPECT_EQ(ToThrift(Durability::kUseDefault), 0);
  EXPECT_EQ(ToThrift(Durability::kSkipWal), 1);
  EXPECT_EQ(ToThrift(Durability::kAsyncWal), 2);
  EXPECT_EQ(ToThrift(Durability::kSyncWal), 3);
  EXPECT_EQ(ToThrift(Durability::kFsyncWal), 4);
  EXPECT_EQ(ToThrift(CompareOp::kLess), 0);
  EXPECT_EQ(ToThrift(CompareOp::kLessOrEqual), 1);
  EXPECT_EQ(ToThrift(CompareOp::kEqual), 2);
  EXPECT_EQ(ToThrift(CompareOp::kNotEqual), 3);
  EXPECT_EQ(ToThrift(CompareOp::kGreaterOrEqual), 4);
  EXPECT_EQ(ToThrift(CompareOp::kGreater), 5);
  EXPECT_EQ(t2::TConsistency::STRONG, 1);
  EXPECT_EQ(t2::TConsistency::TIMELINE, 2);
  EXPECT_EQ(t2::TDeleteType::DELETE_FAMILY_VERSION, 3);
  EXPECT_EQ(t2::TCompressionAlgorithm::NONE, 2);
  EXPECT_EQ(t2::TCompressionAlgorithm::ZSTD, 6);
  EXPECT_EQ(t2::TBloomFilterType::ROWCOL, 2);
  EXPECT_EQ(t2::TDataBlockEncoding::ROW_INDEX_V1, 7);
}

TEST(HBaseConvertTest, TableNamesSplitOnNamespace) {
  t2::TTableName plain = ToThriftTableName("profiles");
  EXPECT_FALSE(plain.__isset.ns);
  EXPECT_EQ(plain.qualifier, "profiles");
  t2::TTableName spaced = ToThriftTableName("rtb:profiles");
  EXPECT_TRUE(spaced.__isset.ns);
  EXPECT_EQ(spaced.ns, "rtb");
  EXPECT_EQ(spaced.qualifier, "profiles");
}

TEST(HBaseConvertTest, GetCarriesColumnsRangeVersionsAndConsistency) {
  Get get;
  get.row = "r";
  get.columns = {{"seg", std::nullopt}, {"fc", std::string("c1")}};
  get.time_range = {10, 20};
  get.max_versions = 3;
  get.consistency = Consistency::kTimeline;
  absl::StatusOr<t2::TGet> t = ToThrift(get);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->row, "r");
  ASSERT_EQ(t->columns.size(), 2u);
  EXPECT_FALSE(t->columns[0].__isset.qualifier);
  EXPECT_EQ(t->columns[1].qualifier, "c1");
  ASSERT_TRUE(t->__isset.timeRange);
  EXPECT_EQ(t->timeRange.minStamp, 10);
  EXPECT_EQ(t->timeRange.maxStamp, 20);
  EXPECT_EQ(t->maxVersions, 3);
  EXPECT_EQ(t->consistency, t2::TConsistency::TIMELINE);
}

TEST(HBaseConvertTest, DefaultTimeRangeIsNotSent) {
  Get get;
  get.row = "r";
  absl::StatusOr<t2::TGet> t = ToThrift(get);
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->__isset.timeRange);
  EXPECT_FALSE(t->__isset.columns);
}

TEST(HBaseConvertTest, BadGetsAreInvalidArgument) {
  Get get;
  EXPECT_EQ(ToThrift(get).status().code(), absl::StatusCode::kInvalidArgument);  // empty row
  get.row = "r";
  get.max_versions = 0;
  EXPECT_EQ(ToThrift(get).status().code(), absl::StatusCode::kInvalidArgument);
  get.max_versions = 1;
  get.time_range = {5, 4};
  EXPECT_EQ(ToThrift(get).status().code(), absl::StatusCode::kInvalidArgument);
  get.time_range = {};
  get.row = std::string(40000, 'x');
  EXPECT_EQ(ToThrift(get).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(HBaseConvertTest, PutCarriesTtlAttributeAndDurability) {
  Put put;
  put.row = "imp1";
  put.values = {{"i", "price", "1.5", std::nullopt}, {"i", "ts", "x", int64_t{42}}};
  put.ttl_ms = 86400000;
  put.durability = Durability::kAsyncWal;
  absl::StatusOr<t2::TPut> t = ToThrift(put, Durability::kUseDefault);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->columnValues.size(), 2u);
  EXPECT_FALSE(t->columnValues[0].__isset.timestamp);
  EXPECT_TRUE(t->columnValues[1].__isset.timestamp);
  EXPECT_EQ(t->columnValues[1].timestamp, 42);
  ASSERT_TRUE(t->__isset.attributes);
  EXPECT_EQ(t->attributes.at("_ttl"), EncodeTtlAttribute(86400000));
  ASSERT_TRUE(t->__isset.durability);
  EXPECT_EQ(t->durability, t2::TDurability::ASYNC_WAL);
}

TEST(HBaseConvertTest, UseDefaultDurabilityTakesTheStoreFallback) {
  Put put;
  put.row = "r";
  put.values = {{"f", "q", "v", std::nullopt}};
  absl::StatusOr<t2::TPut> none = ToThrift(put, Durability::kUseDefault);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->__isset.durability);
  EXPECT_FALSE(none->__isset.attributes);
  absl::StatusOr<t2::TPut> fallback = ToThrift(put, Durability::kSkipWal);
  ASSERT_TRUE(fallback.ok());
  EXPECT_EQ(fallback->durability, t2::TDurability::SKIP_WAL);
}

TEST(HBaseConvertTest, BadPutsAreInvalidArgument) {
  Put put;
  put.row = "r";
  EXPECT_EQ(ToThrift(put, Durability::kUseDefault).status().code(),
            absl::StatusCode::kInvalidArgument);  // no values
  put.values = {{"f", "q", "v", std::nullopt}};
  put.ttl_ms = 0;
  EXPECT_EQ(ToThrift(put, Durability::kUseDefault).status().code(),
            absl::StatusCode::kInvalidArgument);
  put.ttl_ms.reset();
  put.values[0].timestamp = -1;
  EXPECT_EQ(ToThrift(put, Durability::kUseDefault).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(HBaseConvertTest, WholeRowDeleteHasNoColumns) {
  Delete del;
  del.row = "r";
  del.timestamp = 77;
  absl::StatusOr<std::vector<t2::TDelete>> t = ToThrift(del, Durability::kUseDefault);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->size(), 1u);
  EXPECT_FALSE((*t)[0].__isset.columns);
  EXPECT_EQ((*t)[0].timestamp, 77);
}

TEST(HBaseConvertTest, DeleteTargetsAreGroupedByDeleteType) {
  Delete del;
  del.row = "r";
  del.targets = {
      {"f", std::string("a"), DeleteKind::kColumnAll, std::nullopt},
      {"f", std::string("b"), DeleteKind::kColumnVersion, int64_t{5}},
      {"g", std::nullopt, DeleteKind::kFamily, std::nullopt},
      {"f", std::string("c"), DeleteKind::kColumnAll, int64_t{9}},
      {"h", std::nullopt, DeleteKind::kFamilyVersion, int64_t{3}},
  };
  absl::StatusOr<std::vector<t2::TDelete>> t = ToThrift(del, Durability::kFsyncWal);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 4u);
  EXPECT_EQ((*t)[0].deleteType, t2::TDeleteType::DELETE_COLUMNS);
  ASSERT_EQ((*t)[0].columns.size(), 2u);
  EXPECT_EQ((*t)[0].columns[1].qualifier, "c");
  EXPECT_EQ((*t)[0].columns[1].timestamp, 9);
  EXPECT_FALSE((*t)[0].columns[0].__isset.timestamp);
  EXPECT_EQ((*t)[1].deleteType, t2::TDeleteType::DELETE_COLUMN);
  EXPECT_EQ((*t)[2].deleteType, t2::TDeleteType::DELETE_FAMILY);
  EXPECT_FALSE((*t)[2].columns[0].__isset.qualifier);
  EXPECT_EQ((*t)[3].deleteType, t2::TDeleteType::DELETE_FAMILY_VERSION);
  for (const t2::TDelete& d : *t) {
    EXPECT_TRUE(d.__isset.deleteType);
    EXPECT_EQ(d.durability, t2::TDurability::FSYNC_WAL);
  }
}

TEST(HBaseConvertTest, BadDeletesAreInvalidArgument) {
  Delete del;
  del.row = "r";
  del.targets = {{"f", std::nullopt, DeleteKind::kColumnAll, std::nullopt}};
  EXPECT_EQ(ToThrift(del, Durability::kUseDefault).status().code(),
            absl::StatusCode::kInvalidArgument);
  del.targets = {{"f", std::nullopt, DeleteKind::kFamilyVersion, std::nullopt}};
  EXPECT_EQ(ToThrift(del, Durability::kUseDefault).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(HBaseConvertTest, IncrementAsksForResultsAndCarriesTtl) {
  Increment inc;
  inc.row = "dev";
  inc.columns = {{"fc", "c7|20240101", 1}, {"fc", "c8|20240101", -3}};
  inc.ttl_ms = 172800000;
  absl::StatusOr<t2::TIncrement> t = ToThrift(inc, Durability::kUseDefault);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->returnResults);
  ASSERT_EQ(t->columns.size(), 2u);
  EXPECT_EQ(t->columns[1].amount, -3);
  EXPECT_TRUE(t->columns[1].__isset.amount);
  EXPECT_EQ(t->attributes.at("_ttl"), EncodeTtlAttribute(172800000));
}

TEST(HBaseConvertTest, CheckAndMutateWithoutValueChecksAbsenceWithEqual) {
  CheckAndMutate cam;
  cam.row = "s";
  cam.family = "s";
  cam.qualifier = "ver";
  cam.op = CompareOp::kGreater;
  Put p;
  p.row = "s";
  p.values = {{"s", "ver", "1", std::nullopt}};
  cam.puts = {p};
  absl::StatusOr<CheckAndMutateRequest> t = ToThrift(cam, Durability::kUseDefault);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->op, t2::TCompareOperator::EQUAL);
  EXPECT_EQ(t->value, "");
  ASSERT_EQ(t->mutations.mutations.size(), 1u);
  EXPECT_TRUE(t->mutations.mutations[0].__isset.put);

  cam.value = "0";
  t = ToThrift(cam, Durability::kUseDefault);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->op, t2::TCompareOperator::GREATER);
  EXPECT_EQ(t->value, "0");
}

TEST(HBaseConvertTest, CheckAndMutateRejectsOtherRowsAndEmptyMutations) {
  CheckAndMutate cam;
  cam.row = "s";
  cam.family = "s";
  cam.qualifier = "q";
  EXPECT_EQ(ToThrift(cam, Durability::kUseDefault).status().code(),
            absl::StatusCode::kInvalidArgument);
  Delete d;
  d.row = "other";
  cam.deletes = {d};
  EXPECT_EQ(ToThrift(cam, Durability::kUseDefault).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(HBaseConvertTest, RowMutationsKeepPutsBeforeDeletes) {
  Put p;
  p.row = "r";
  p.values = {{"f", "a", "1", std::nullopt}};
  Delete d;
  d.row = "r";
  d.targets = {{"f", std::string("b"), DeleteKind::kColumnAll, std::nullopt},
               {"g", std::nullopt, DeleteKind::kFamily, std::nullopt}};
  absl::StatusOr<t2::TRowMutations> m =
      ToRowMutations("r", {&p, 1}, {&d, 1}, Durability::kUseDefault);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->mutations.size(), 3u);
  EXPECT_TRUE(m->mutations[0].__isset.put);
  EXPECT_TRUE(m->mutations[1].__isset.deleteSingle);
  EXPECT_TRUE(m->mutations[2].__isset.deleteSingle);
}

TEST(HBaseConvertTest, ForwardPrefixScanBecomesStartAndStopRows) {
  Scan scan;
  scan.prefix = std::string("ab\xff", 3);
  scan.limit = 10;
  scan.caching = 100;
  absl::StatusOr<ScanPlan> plan = PlanScan(scan, true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->scan.startRow, std::string("ab\xff", 3));
  EXPECT_EQ(plan->scan.stopRow, "ac");
  EXPECT_FALSE(plan->scan.__isset.filterBytes);
  EXPECT_EQ(plan->scan.limit, 10);
  EXPECT_EQ(plan->scan.caching, 10);  // never more than the limit
  EXPECT_FALSE(plan->scan.__isset.reversed);
}

TEST(HBaseConvertTest, ReversedPrefixScanStartsAtSuccessorAndFiltersToPrefix) {
  Scan scan;
  scan.prefix = "user1";
  scan.reversed = true;
  absl::StatusOr<ScanPlan> plan = PlanScan(scan, true);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->scan.startRow, "user2");
  EXPECT_FALSE(plan->scan.__isset.stopRow);
  EXPECT_TRUE(plan->scan.reversed);
  RowRange only{"user1", true, "user2", false};
  EXPECT_EQ(plan->scan.filterBytes, EncodeMultiRowRangeFilter({&only, 1}));
}

TEST(HBaseConvertTest, RangesBecomeAMultiRowRangeFilter) {
  Scan scan;
  scan.ranges = {{std::string("\x00\x01", 2), true, std::string("\x00\x05", 2), false},
                 {"m", false, "p", true}};
  scan.start_row = "ignored";
  absl::StatusOr<ScanPlan> plan = PlanScan(scan, true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->scan.__isset.startRow);
  EXPECT_EQ(plan->scan.filterBytes, EncodeMultiRowRangeFilter(scan.ranges));
}

TEST(HBaseConvertTest, RangesThatHoldNoRowMatchNothing) {
  Scan scan;
  scan.ranges = {{"a", true, "a", false}, {"b", false, "b", false}};
  absl::StatusOr<ScanPlan> plan = PlanScan(scan, true);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->matches_nothing);
}

TEST(HBaseConvertTest, StartAndStopRowsPassThrough) {
  Scan scan;
  scan.start_row = "k9";
  scan.stop_row = "k1";
  scan.reversed = true;
  scan.consistency = Consistency::kTimeline;
  absl::StatusOr<ScanPlan> plan = PlanScan(scan, true);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->scan.startRow, "k9");
  EXPECT_EQ(plan->scan.stopRow, "k1");
  EXPECT_EQ(plan->scan.consistency, t2::TConsistency::TIMELINE);
  EXPECT_FALSE(plan->scan.__isset.limit);
}

TEST(HBaseConvertTest, CollectingScansNeedALimitOrABound) {
  Scan scan;
  EXPECT_EQ(PlanScan(scan, true).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(PlanScan(scan, false).ok());  // a Scanner may walk the table
  scan.ranges = {{"a", true, "", false}};
  EXPECT_EQ(PlanScan(scan, true).status().code(), absl::StatusCode::kInvalidArgument);
  scan.limit = 5;
  EXPECT_TRUE(PlanScan(scan, true).ok());
  scan.limit = -1;
  EXPECT_EQ(PlanScan(scan, false).status().code(), absl::StatusCode::kInvalidArgument);
  scan.limit = 1;
  scan.ranges = {{"b", true, "a", false}};
  EXPECT_EQ(PlanScan(scan, true).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(HBaseConvertTest, EmptyResultTakesTheRequestedRow) {
  t2::TResult empty;
  RowResult r = FromThrift(std::move(empty), "wanted");
  EXPECT_EQ(r.row, "wanted");
  EXPECT_TRUE(r.empty());
  EXPECT_FALSE(r.stale);

  t2::TResult full;
  full.__set_row("got");
  t2::TColumnValue cv;
  cv.family = "f";
  cv.qualifier = "q";
  cv.value = "v";
  cv.__set_timestamp(7);
  full.columnValues.push_back(cv);
  full.__set_stale(true);
  r = FromThrift(std::move(full), "wanted");
  EXPECT_EQ(r.row, "got");
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_EQ(r.cells[0], (Cell{"f", "q", 7, "v"}));
  EXPECT_TRUE(r.stale);
}

TableSchema Metrics() {
  TableSchema s;
  s.name = "metrics";
  FamilyOptions d;
  d.name = "d";
  d.ttl_seconds = 2 * 24 * 3600;
  d.fifo_compaction = true;
  d.bloom = BloomType::kNone;
  FamilyOptions p;
  p.name = "p";
  p.max_versions = 3;
  p.min_versions = 1;
  p.in_memory = true;
  p.compression = Compression::kZstd;
  p.configuration = {{"hbase.hstore.blockingStoreFiles", "30"}};
  s.families = {d, p};
  s.split_keys = {"\x40", "\x80", "\xc0"};
  s.region_replication = 2;
  return s;
}

TEST(HBaseConvertTest, SchemaBecomesDescriptor) {
  absl::StatusOr<t2::TTableDescriptor> t = ToThrift(Metrics());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->tableName.qualifier, "metrics");
  EXPECT_EQ(t->attributes.at("REGION_REPLICATION"), "2");
  ASSERT_EQ(t->columns.size(), 2u);
  const t2::TColumnFamilyDescriptor& d = t->columns[0];
  EXPECT_EQ(d.timeToLive, 172800);
  EXPECT_EQ(d.bloomnFilterType, t2::TBloomFilterType::NONE);
  EXPECT_EQ(d.configuration.at(kCompactionPolicyKey), kFifoCompactionPolicy);
  EXPECT_EQ(d.configuration.at(kBlockingStoreFilesKey), "1000");
  const t2::TColumnFamilyDescriptor& p = t->columns[1];
  EXPECT_FALSE(p.__isset.timeToLive);  // FOREVER is HBase's default
  EXPECT_EQ(p.maxVersions, 3);
  EXPECT_EQ(p.minVersions, 1);
  EXPECT_TRUE(p.inMemory);
  EXPECT_EQ(p.compressionType, t2::TCompressionAlgorithm::ZSTD);
  EXPECT_EQ(p.configuration.at(kBlockingStoreFilesKey), "30");
}

TEST(HBaseConvertTest, InvalidSchemaIsRejected) {
  TableSchema s = Metrics();
  s.families[0].ttl_seconds = 0;  // FIFO needs a TTL
  EXPECT_EQ(ToThrift(s).status().code(), absl::StatusCode::kInvalidArgument);
  s = Metrics();
  s.families[1].ttl_seconds = int64_t{1} << 40;
  EXPECT_EQ(ToThrift(s).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(HBaseConvertTest, DescriptorReadBackMatchesItsSchema) {
  TableSchema wanted = Metrics();
  absl::StatusOr<t2::TTableDescriptor> t = ToThrift(wanted);
  ASSERT_TRUE(t.ok());
  // HBase answers with every setting spelled out, FOREVER included.
  t->columns[1].__set_timeToLive(kHBaseForever);
  t->columns[1].configuration["hbase.some.default"] = "x";
  TableSchema back = FromThrift(*t);
  EXPECT_TRUE(SameDefinition(wanted, back));

  TableSchema other = wanted;
  other.families[1].max_versions = 4;
  EXPECT_FALSE(SameDefinition(other, back));
  other = wanted;
  other.region_replication = 1;
  EXPECT_FALSE(SameDefinition(other, back));
  other = wanted;
  other.families[0].fifo_compaction = false;
  EXPECT_FALSE(SameDefinition(other, back));
  other = wanted;
  other.families.pop_back();
  EXPECT_FALSE(SameDefinition(other, back));
}

}  // namespace
}  // namespace rtb::storage::hbase
