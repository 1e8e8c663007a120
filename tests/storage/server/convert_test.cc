// The storage server's reading of Thrift2 requests: each conversion is the
// inverse of the client's (storage/hbase/convert.h), and fields are read as
// HBase's gateway reads them.
#include "storage/server/convert.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/hbase/convert.h"
#include "storage/hbase/row_range_filter.h"
#include "storage/schemas.h"
#include "storage/server/descriptors.h"

namespace rtb::storage::server {
namespace {

namespace t2 = ::rtb::storage::thrift2;
using ::testing::ElementsAre;

std::vector<std::string> RangeStrings(const std::vector<RowRange>& ranges) {
  std::vector<std::string> out;
  for (const RowRange& r : ranges) {
    out.push_back(std::string(r.start_inclusive ? "[" : "(") + r.start + "," + r.stop +
                  (r.stop_inclusive ? "]" : ")"));
  }
  return out;
}

TEST(ServerConvertTest, GetRoundTripsThroughTheClientConversion) {
  Get get;
  get.row = "r";
  get.columns = {{"seg", std::nullopt}, {"fc", std::string("c1")}};
  get.time_range = {10, 20};
  get.max_versions = 3;
  get.consistency = Consistency::kTimeline;
  absl::StatusOr<t2::TGet> wire = hbase::ToThrift(get);
  ASSERT_TRUE(wire.ok());
  absl::StatusOr<Get> back = GetFromThrift(*wire);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->row, "r");
  ASSERT_EQ(back->columns.size(), 2u);
  EXPECT_EQ(back->columns[0].family, "seg");
  EXPECT_FALSE(back->columns[0].qualifier.has_value());
  EXPECT_EQ(back->columns[1].qualifier, "c1");
  EXPECT_EQ(back->time_range.min, 10);
  EXPECT_EQ(back->time_range.max, 20);
  EXPECT_EQ(back->max_versions, 3);
  EXPECT_EQ(back->consistency, Consistency::kTimeline);
}

TEST(ServerConvertTest, GetTimestampWinsOverTheTimeRange) {
  t2::TGet in;
  in.row = "r";
  in.__set_timestamp(42);
  t2::TTimeRange range;
  range.minStamp = 0;
  range.maxStamp = 100;
  in.__set_timeRange(range);
  absl::StatusOr<Get> get = GetFromThrift(in);
  ASSERT_TRUE(get.ok());
  EXPECT_EQ(get->time_range.min, 42);
  EXPECT_EQ(get->time_range.max, 43);
  EXPECT_EQ(get->max_versions, 1) << "HBase's default";
}

TEST(ServerConvertTest, GetRefusesWhatTheEngineCannotHonour) {
  t2::TGet filtered;
  filtered.row = "r";
  filtered.__set_filterString("KeyOnlyFilter()");
  EXPECT_TRUE(GetFromThrift(filtered).ok()) << "filter strings are the handler's";
  t2::TGet existence;
  existence.row = "r";
  existence.__set_existence_only(true);
  EXPECT_TRUE(absl::IsInvalidArgument(GetFromThrift(existence).status()));
  t2::TGet limited;
  limited.row = "r";
  limited.__set_storeLimit(1);
  EXPECT_TRUE(absl::IsInvalidArgument(GetFromThrift(limited).status()));
  t2::TGet hints;
  hints.row = "r";
  hints.__set_cacheBlocks(false);
  hints.__set_targetReplicaId(1);
  EXPECT_TRUE(GetFromThrift(hints).ok()) << "tuning hints are ignored";
}

TEST(ServerConvertTest, PutRoundTripsTtlTimestampsAndDurability) {
  Put put;
  put.row = "r";
  put.values = {{"f", "a", "1", std::nullopt}, {"f", "b", "2", int64_t{77}}};
  put.ttl_ms = 3600000;
  put.durability = Durability::kAsyncWal;
  absl::StatusOr<t2::TPut> wire = hbase::ToThrift(put, Durability::kUseDefault);
  ASSERT_TRUE(wire.ok());
  absl::StatusOr<Put> back = PutFromThrift(*wire);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->row, "r");
  ASSERT_EQ(back->values.size(), 2u);
  EXPECT_FALSE(back->values[0].timestamp.has_value());
  EXPECT_EQ(back->values[1].timestamp, 77);
  EXPECT_EQ(back->values[1].value, "2");
  EXPECT_EQ(back->ttl_ms, 3600000);
  EXPECT_EQ(back->durability, Durability::kAsyncWal);
}

TEST(ServerConvertTest, PutTimestampIsTheDefaultOfItsValuesAndLatestMeansServerTime) {
  t2::TPut in;
  in.row = "r";
  t2::TColumnValue own, inherits, latest;
  own.family = inherits.family = latest.family = "f";
  own.__set_timestamp(5);
  latest.__set_timestamp(kHBaseLatestTimestamp);
  in.columnValues = {own, inherits, latest};
  in.__set_timestamp(9);
  absl::StatusOr<Put> put = PutFromThrift(in);
  ASSERT_TRUE(put.ok());
  EXPECT_EQ(put->values[0].timestamp, 5);
  EXPECT_EQ(put->values[1].timestamp, 9);
  EXPECT_FALSE(put->values[2].timestamp.has_value());
}

TEST(ServerConvertTest, TtlAttributeMustBeEightBytes) {
  t2::TPut in;
  in.row = "r";
  in.columnValues.resize(1);
  in.attributes[hbase::kTtlAttribute] = "123";
  in.__isset.attributes = true;
  EXPECT_TRUE(absl::IsInvalidArgument(PutFromThrift(in).status()));
  in.attributes[hbase::kTtlAttribute] = EncodeCounter(kLatestTimestamp);
  absl::StatusOr<Put> forever = PutFromThrift(in);
  ASSERT_TRUE(forever.ok());
  EXPECT_FALSE(forever->ttl_ms.has_value()) << "Long.MAX_VALUE is HBase's 'no TTL'";
}

TEST(ServerConvertTest, CellVisibilityIsRefused) {
  t2::TPut in;
  in.row = "r";
  in.columnValues.resize(1);
  t2::TCellVisibility visibility;
  visibility.__set_expression("secret");
  in.__set_cellVisibility(visibility);
  EXPECT_TRUE(absl::IsInvalidArgument(PutFromThrift(in).status()));
}

TEST(ServerConvertTest, DeleteKindsRoundTrip) {
  Delete del;
  del.row = "r";
  del.targets = {{"f", std::string("a"), DeleteKind::kColumnVersion, int64_t{3}},
                 {"f", std::string("b"), DeleteKind::kColumnAll, std::nullopt},
                 {"g", std::nullopt, DeleteKind::kFamily, int64_t{4}},
                 {"g", std::nullopt, DeleteKind::kFamilyVersion, int64_t{5}}};
  absl::StatusOr<std::vector<t2::TDelete>> wire = hbase::ToThrift(del, Durability::kUseDefault);
  ASSERT_TRUE(wire.ok());
  ASSERT_EQ(wire->size(), 4u) << "one TDelete per kind";
  std::vector<DeleteTarget> targets;
  for (const t2::TDelete& d : *wire) {
    absl::StatusOr<Delete> back = DeleteFromThrift(d);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->row, "r");
    for (DeleteTarget& t : back->targets) targets.push_back(t);
  }
  ASSERT_EQ(targets.size(), 4u);
  EXPECT_EQ(targets[0].kind, DeleteKind::kColumnVersion);
  EXPECT_EQ(targets[0].timestamp, 3);
  EXPECT_EQ(targets[1].kind, DeleteKind::kColumnAll);
  EXPECT_FALSE(targets[1].timestamp.has_value());
  EXPECT_EQ(targets[2].kind, DeleteKind::kFamily);
  EXPECT_FALSE(targets[2].qualifier.has_value());
  EXPECT_EQ(targets[3].kind, DeleteKind::kFamilyVersion);
  EXPECT_EQ(targets[3].timestamp, 5);
}

TEST(ServerConvertTest, DeleteWithoutColumnsIsAWholeRowDelete) {
  t2::TDelete in;
  in.row = "r";
  in.__set_timestamp(10);
  absl::StatusOr<Delete> del = DeleteFromThrift(in);
  ASSERT_TRUE(del.ok());
  EXPECT_TRUE(del->targets.empty());
  EXPECT_EQ(del->timestamp, 10);
}

TEST(ServerConvertTest, DeleteTypeDefaultsToDeleteColumnsAndNullQualifierIsEmpty) {
  t2::TDelete in;
  in.row = "r";
  t2::TColumn column;
  column.family = "f";
  in.__set_columns({column});
  absl::StatusOr<Delete> del = DeleteFromThrift(in);
  ASSERT_TRUE(del.ok());
  ASSERT_EQ(del->targets.size(), 1u);
  EXPECT_EQ(del->targets[0].kind, DeleteKind::kColumnAll);
  EXPECT_EQ(del->targets[0].qualifier, "");
  in.__set_deleteType(t2::TDeleteType::DELETE_FAMILY_VERSION);
  EXPECT_TRUE(absl::IsInvalidArgument(DeleteFromThrift(in).status())) << "needs a timestamp";
}

TEST(ServerConvertTest, IncrementCarriesAmountsTtlAndDurability) {
  Increment inc;
  inc.row = "r";
  inc.columns = {{"c", "n", -3}, {"c", "m", 1}};
  inc.ttl_ms = 5000;
  inc.durability = Durability::kSkipWal;
  absl::StatusOr<t2::TIncrement> wire = hbase::ToThrift(inc, Durability::kUseDefault);
  ASSERT_TRUE(wire.ok());
  absl::StatusOr<Increment> back = IncrementFromThrift(*wire);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->columns.size(), 2u);
  EXPECT_EQ(back->columns[0].amount, -3);
  EXPECT_EQ(back->ttl_ms, 5000);
  EXPECT_EQ(back->durability, Durability::kSkipWal);
  EXPECT_EQ(back->nonce, 0u) << "Thrift2 carries no nonce";
}

TEST(ServerConvertTest, RowMutationsMustStayOnTheirRow) {
  Put put;
  put.row = "r";
  put.values = {{"f", "q", "v", std::nullopt}};
  Delete del;
  del.row = "r";
  del.targets = {{"f", std::string("old"), DeleteKind::kColumnAll, std::nullopt}};
  absl::StatusOr<t2::TRowMutations> wire =
      hbase::ToRowMutations("r", {&put, 1}, {&del, 1}, Durability::kUseDefault);
  ASSERT_TRUE(wire.ok());
  absl::StatusOr<RowMutations> back = RowMutationsFromThrift(*wire);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->puts.size(), 1u);
  EXPECT_EQ(back->deletes.size(), 1u);
  wire->mutations[0].put.row = "elsewhere";
  EXPECT_TRUE(absl::IsInvalidArgument(RowMutationsFromThrift(*wire).status()));
}

TEST(ServerConvertTest, CheckAndMutateKeepsTheOperatorAndAnEmptyValue) {
  CheckAndMutate cam;
  cam.row = "r";
  cam.family = "s";
  cam.qualifier = "ver";
  cam.op = CompareOp::kLess;
  cam.value = "7";
  Put put;
  put.row = "r";
  put.values = {{"s", "ver", "8", std::nullopt}};
  cam.puts = {put};
  absl::StatusOr<hbase::CheckAndMutateRequest> wire = hbase::ToThrift(cam, Durability::kUseDefault);
  ASSERT_TRUE(wire.ok());
  absl::StatusOr<CheckAndMutate> back =
      CheckAndMutateFromThrift("r", "s", "ver", wire->op, wire->value, wire->mutations);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->op, CompareOp::kLess);
  EXPECT_EQ(back->value, "7");
  EXPECT_EQ(back->puts.size(), 1u);
  absl::StatusOr<CheckAndMutate> null_check =
      CheckAndMutateFromThrift("r", "s", "ver", t2::TCompareOperator::EQUAL, "", wire->mutations);
  ASSERT_TRUE(null_check.ok());
  EXPECT_EQ(null_check->value, "") << "the engine reads an empty value as HBase's null check";
  EXPECT_TRUE(absl::IsInvalidArgument(
      CheckAndMutateFromThrift("r", "s", "ver", t2::TCompareOperator::NO_OP, "", wire->mutations)
          .status()));
  EXPECT_TRUE(absl::IsInvalidArgument(CheckAndMutateFromThrift("other", "s", "ver",
                                                               t2::TCompareOperator::EQUAL, "",
                                                               wire->mutations)
                                          .status()));
}

TEST(ServerConvertTest, ScanKeepsBoundsLimitVersionsAndDirection) {
  Scan scan;
  scan.start_row = "a";
  scan.stop_row = "m";
  scan.limit = 7;
  scan.max_versions = 2;
  scan.time_range = {5, 50};
  scan.reversed = true;
  scan.columns = {{"f", std::string("q")}};
  absl::StatusOr<hbase::ScanPlan> plan = hbase::PlanScan(scan, true);
  ASSERT_TRUE(plan.ok());
  absl::StatusOr<ScanRequest> back = ScanFromThrift(plan->scan);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(back->matches_nothing);
  EXPECT_EQ(back->scan.start_row, "a");
  EXPECT_EQ(back->scan.stop_row, "m");
  EXPECT_EQ(back->scan.limit, 7);
  EXPECT_EQ(back->scan.max_versions, 2);
  EXPECT_EQ(back->scan.time_range.min, 5);
  EXPECT_TRUE(back->scan.reversed);
  ASSERT_EQ(back->scan.columns.size(), 1u);
  EXPECT_TRUE(back->scan.ranges.empty());
}

TEST(ServerConvertTest, MultiRowRangeFilterBytesBecomeRanges) {
  Scan scan;
  scan.ranges = {{"a", true, "c", false}, {"x", false, "", false}};
  scan.limit = 10;
  absl::StatusOr<hbase::ScanPlan> plan = hbase::PlanScan(scan, true);
  ASSERT_TRUE(plan.ok());
  absl::StatusOr<ScanRequest> back = ScanFromThrift(plan->scan);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_THAT(RangeStrings(back->scan.ranges), ElementsAre("[a,c)", "(x,)"));
}

TEST(ServerConvertTest, FilterRangesAreCutToTheStartAndStopRows) {
  t2::TScan in;
  in.__set_startRow("b");
  in.__set_stopRow("y");
  std::vector<RowRange> ranges = {
      {"a", true, "c", true}, {"d", true, "e", false}, {"x", true, "", false}};
  in.__set_filterBytes(hbase::EncodeMultiRowRangeFilter(ranges));
  absl::StatusOr<ScanRequest> back = ScanFromThrift(in);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_THAT(RangeStrings(back->scan.ranges), ElementsAre("[b,c]", "[d,e)", "[x,y)"));
  in.__set_startRow("f");
  in.__set_stopRow("g");
  back = ScanFromThrift(in);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->matches_nothing);
}

TEST(ServerConvertTest, AReversedPrefixScanAsTheClientSendsItStaysInThePrefix) {
  Scan scan;
  scan.prefix = "p";
  scan.reversed = true;
  absl::StatusOr<hbase::ScanPlan> plan = hbase::PlanScan(scan, true);
  ASSERT_TRUE(plan.ok());
  absl::StatusOr<ScanRequest> back = ScanFromThrift(plan->scan);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->scan.reversed);
  EXPECT_THAT(RangeStrings(back->scan.ranges), ElementsAre("[p,q)"));
}

TEST(ServerConvertTest, PrefixFilterInBytesOrInTheFilterLanguage) {
  t2::TScan bytes;
  bytes.__set_filterBytes(hbase::EncodePrefixFilter("ab"));
  absl::StatusOr<ScanRequest> a = ScanFromThrift(bytes);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(RangeStrings(a->scan.ranges), ElementsAre("[ab,ac)"));
  t2::TScan text;
  text.__set_filterString(" PrefixFilter ( 'it''s' ) ");
  absl::StatusOr<ScanRequest> b = ScanFromThrift(text);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(RangeStrings(b->scan.ranges), ElementsAre("[it's,it't)"));
}

TEST(ServerConvertTest, OtherFiltersAreLeftToTheFilterAndBadOnesAndRowSplittingAreRefused) {
  t2::TScan other;
  other.__set_filterString("KeyOnlyFilter()");
  other.__set_limit(3);
  other.__set_maxVersions(2);
  absl::StatusOr<ScanRequest> filtered = ScanFromThrift(other);
  ASSERT_TRUE(filtered.ok()) << filtered.status();
  EXPECT_EQ(filtered->filter_string, "KeyOnlyFilter()");
  EXPECT_EQ(filtered->filter_limit, 3);
  EXPECT_EQ(filtered->filter_max_versions, 2);
  EXPECT_EQ(filtered->scan.limit, 0) << "the limit counts rows the filter kept";
  t2::TScan garbage;
  garbage.__set_filterBytes("\xff\xff\xff");
  EXPECT_TRUE(absl::IsInvalidArgument(ScanFromThrift(garbage).status()));
  t2::TScan batched;
  batched.__set_batchSize(10);
  EXPECT_TRUE(absl::IsInvalidArgument(ScanFromThrift(batched).status()));
}

TEST(ServerConvertTest, EveryBidderTableReadsBackAsItsSchema) {
  for (const TableSchema& schema : BidderTables()) {
    absl::StatusOr<t2::TTableDescriptor> wire = hbase::ToThrift(schema);
    ASSERT_TRUE(wire.ok()) << schema.name;
    absl::StatusOr<TableSchema> back = SchemaFromThrift(*wire, schema.split_keys);
    ASSERT_TRUE(back.ok()) << schema.name << ": " << back.status();
    EXPECT_EQ(*back, schema) << schema.name;
    absl::StatusOr<t2::TTableDescriptor> described = DescriptorToThrift(schema);
    ASSERT_TRUE(described.ok());
    EXPECT_EQ(described->tableName.ns, "default");
    EXPECT_TRUE(hbase::SameDefinition(schema, hbase::FromThrift(*described))) << schema.name;
  }
}

TEST(ServerConvertTest, DescriptorsTheEngineCannotHonourAreRefused) {
  TableSchema schema;
  schema.name = "t";
  schema.families = {FamilyOptions{.name = "f"}};
  absl::StatusOr<t2::TTableDescriptor> wire = hbase::ToThrift(schema);
  ASSERT_TRUE(wire.ok());
  t2::TTableDescriptor keep = *wire;
  keep.columns[0].__set_keepDeletedCells(t2::TKeepDeletedCells::TRUE);
  EXPECT_TRUE(absl::IsInvalidArgument(SchemaFromThrift(keep, {}).status()));
  t2::TTableDescriptor gz = *wire;
  gz.columns[0].__set_compressionType(t2::TCompressionAlgorithm::GZ);
  EXPECT_TRUE(absl::IsInvalidArgument(SchemaFromThrift(gz, {}).status()));
  t2::TTableDescriptor zero_ttl = *wire;
  zero_ttl.columns[0].__set_timeToLive(0);
  EXPECT_TRUE(absl::IsInvalidArgument(SchemaFromThrift(zero_ttl, {}).status()));
  t2::TTableDescriptor forever = *wire;
  forever.columns[0].__set_timeToLive(hbase::kHBaseForever);
  absl::StatusOr<TableSchema> back = SchemaFromThrift(forever, {});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->families[0].ttl_seconds, kForever);
}

TEST(ServerConvertTest, ResultsOfAbsentRowsCarryNoRow) {
  t2::TResult empty = ResultToThrift(RowResult{"r", {}, false});
  EXPECT_FALSE(empty.__isset.row);
  EXPECT_TRUE(empty.columnValues.empty());
  RowResult row;
  row.row = "r";
  row.cells = {Cell("f", "q", 12, "v")};
  t2::TResult full = ResultToThrift(row);
  EXPECT_EQ(full.row, "r");
  ASSERT_EQ(full.columnValues.size(), 1u);
  EXPECT_EQ(full.columnValues[0].timestamp, 12);
  EXPECT_EQ(full.columnValues[0].type, kPutCellType);
  RowResult read = hbase::FromThrift(std::move(full), "");
  EXPECT_EQ(read.cells.ToVector(), row.cells.ToVector());
}

TEST(ServerConvertTest, DataCallsNameTablesWithOrWithoutTheDefaultNamespace) {
  EXPECT_EQ(TableFromThrift(std::string("default:profiles")), "profiles");
  EXPECT_EQ(TableFromThrift(std::string("profiles")), "profiles");
  t2::TTableName name;
  name.qualifier = "profiles";
  EXPECT_EQ(TableFromThrift(name), "profiles");
  name.__set_ns("default");
  EXPECT_EQ(TableFromThrift(name), "profiles");
  name.__set_ns("tenant");
  EXPECT_EQ(TableFromThrift(name), "tenant:profiles");
  EXPECT_EQ(TableFromThrift(std::string("tenant:profiles")), "tenant:profiles");
  EXPECT_EQ(NamespaceOf("tenant:profiles"), "tenant");
  EXPECT_EQ(NamespaceOf("profiles"), "default");
}

TEST(ServerConvertTest, DescriptorsAreFilledAsHBaseFillsThem) {
  t2::TTableDescriptor wire;
  wire.tableName.qualifier = "t";
  t2::TColumnFamilyDescriptor plain;
  plain.name = "f";
  t2::TColumnFamilyDescriptor tuned;
  tuned.name = "g";
  tuned.__set_maxVersions(3);
  tuned.__set_blockSize(8192);
  tuned.__set_dataBlockEncoding(t2::TDataBlockEncoding::FAST_DIFF);
  tuned.__set_scope(1);
  wire.columns = {plain, tuned};
  absl::StatusOr<TableSchema> schema = SchemaFromThrift(wire, {});
  ASSERT_TRUE(schema.ok()) << schema.status();
  absl::StatusOr<t2::TTableDescriptor> described = DescriptorToThrift(*schema);
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->attributes.at("IS_META"), "false");
  ASSERT_EQ(described->columns.size(), 2u);
  const t2::TColumnFamilyDescriptor& f = described->columns[0];
  EXPECT_EQ(f.attributes.size(), 12u);
  EXPECT_EQ(f.attributes.at("TTL"), "2147483647");
  EXPECT_EQ(f.attributes.at("BLOOMFILTER"), "ROW");
  EXPECT_EQ(f.blockSize, 65536);
  EXPECT_TRUE(f.compressTags);
  EXPECT_TRUE(f.blockCacheEnabled);
  const t2::TColumnFamilyDescriptor& g = described->columns[1];
  EXPECT_EQ(g.attributes.at("VERSIONS"), "3");
  EXPECT_EQ(g.attributes.at("BLOCKSIZE"), "8192");
  EXPECT_EQ(g.attributes.at("DATA_BLOCK_ENCODING"), "FAST_DIFF");
  EXPECT_EQ(g.blockSize, 8192);
  EXPECT_EQ(g.dataBlockEncoding, t2::TDataBlockEncoding::FAST_DIFF);
  EXPECT_EQ(g.scope, 1);
  EXPECT_EQ(g.maxVersions, 3);
}

TEST(RowFilterDecodeTest, DecodesWhatTheClientEncodes) {
  std::vector<RowRange> ranges = {{std::string("\x00\xff", 2), true, "b", false},
                                  {std::string(300, 'k'), false, "", true}};
  absl::StatusOr<hbase::DecodedRowFilter> decoded =
      hbase::DecodeRowFilter(hbase::EncodeMultiRowRangeFilter(ranges));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->ranges.size(), 2u);
  EXPECT_EQ(decoded->ranges[0].start, std::string("\x00\xff", 2));
  EXPECT_TRUE(decoded->ranges[0].start_inclusive);
  EXPECT_EQ(decoded->ranges[1].start, std::string(300, 'k'));
  EXPECT_FALSE(decoded->ranges[1].start_inclusive);
  EXPECT_TRUE(decoded->ranges[1].stop_inclusive);
  EXPECT_FALSE(decoded->prefix.has_value());
}

TEST(RowFilterDecodeTest, TruncatedOrForeignFiltersAreErrors) {
  std::string bytes =
      hbase::EncodeMultiRowRangeFilter(std::vector<RowRange>{{"a", true, "b", false}});
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(hbase::DecodeRowFilter(bytes.substr(0, cut)).ok()) << "cut at " << cut;
  }
  std::string foreign;
  foreign += '\x0a';
  foreign += static_cast<char>(sizeof("org.apache.hadoop.hbase.filter.KeyOnlyFilter") - 1);
  foreign += "org.apache.hadoop.hbase.filter.KeyOnlyFilter";
  absl::Status s = hbase::DecodeRowFilter(foreign).status();
  EXPECT_TRUE(absl::IsUnimplemented(s)) << s;
  EXPECT_NE(s.message().find("KeyOnlyFilter"), absl::string_view::npos);
}

}  // namespace
}  // namespace rtb::storage::server
