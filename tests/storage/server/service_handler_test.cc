// THBaseService calls on the handler directly, over an embedded store: what
// an HBase client sees for each call, without a network in between.
#include "storage/server/service_handler.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/hbase/convert.h"
#include "storage/server/convert.h"
#include "tests/storage/test_store.h"

namespace rtb::storage::server {
namespace {

namespace t2 = ::rtb::storage::thrift2;
using ::testing::HasSubstr;

t2::TTableName Name(const std::string& table) { return hbase::ToThriftTableName(table); }
t2::TTableName NameIn(const std::string& ns, const std::string& table) {
  t2::TTableName name = Name(table);
  name.__set_ns(ns);
  return name;
}

t2::TColumnValue Value(const std::string& family, const std::string& qualifier,
                       const std::string& value) {
  t2::TColumnValue cv;
  cv.family = family;
  cv.qualifier = qualifier;
  cv.value = value;
  return cv;
}

t2::TPut TPutOf(const std::string& row, const std::string& family, const std::string& qualifier,
                const std::string& value) {
  t2::TPut p;
  p.row = row;
  p.columnValues = {Value(family, qualifier, value)};
  return p;
}

t2::TGet GetOf(const std::string& row) {
  t2::TGet g;
  g.row = row;
  return g;
}

class ServiceHandlerTest : public testing::EmbeddedStoreTest {
 protected:
  void SetUp() override {
    EmbeddedStoreTest::SetUp();
    Create(Schema("t", {Fam("f"), Fam("v", 3)}));
    ServiceHandlerOptions options;
    options.clock = clock_;
    options.max_open_scanners = 3;
    options.scanner_idle_timeout_ms = 10000;
    options.max_rows_per_call = 4;
    handler_ = std::make_unique<StoreServiceHandler>(*store_, options);
  }
  void TearDown() override {
    handler_.reset();
    EmbeddedStoreTest::TearDown();
  }

  // The message of the TIOError `call` throws, or "" when it throws none.
  template <typename Call>
  std::string IOErrorOf(Call&& call) {
    try {
      call();
    } catch (const t2::TIOError& e) {
      return e.message;
    }
    return "";
  }

  std::unique_ptr<StoreServiceHandler> handler_;
};

TEST_F(ServiceHandlerTest, PutThenGetAnswersTheRowAndAnAbsentRowAnswersNoRow) {
  handler_->put("t", TPutOf("r", "f", "q", "v"));
  t2::TResult found;
  handler_->get(found, "t", GetOf("r"));
  EXPECT_EQ(found.row, "r");
  ASSERT_EQ(found.columnValues.size(), 1u);
  EXPECT_EQ(found.columnValues[0].value, "v");
  EXPECT_EQ(found.columnValues[0].timestamp, testing::kNow);
  t2::TResult absent;
  handler_->get(absent, "default:t", GetOf("missing"));
  EXPECT_FALSE(absent.__isset.row);
  EXPECT_TRUE(absent.columnValues.empty());
}

TEST_F(ServiceHandlerTest, UnknownTablesAndFamiliesAreTIOErrors) {
  t2::TResult result;
  EXPECT_EQ(IOErrorOf([&] { handler_->get(result, "nope", GetOf("r")); }), "nope");
  EXPECT_THAT(IOErrorOf([&] { handler_->put("t", TPutOf("r", "x", "q", "v")); }),
              HasSubstr("NoSuchColumnFamilyException"));
  // The scanner opens; its first read fails, as HBase's client does it.
  const int32_t id = handler_->openScanner("nope", t2::TScan());
  std::vector<t2::TResult> rows;
  EXPECT_EQ(IOErrorOf([&] { handler_->getScannerRows(rows, id, 1); }), "nope");
}

TEST_F(ServiceHandlerTest, IncrementAnswersNewValuesUnlessAskedNotTo) {
  t2::TIncrement inc;
  inc.row = "r";
  t2::TColumnIncrement col;
  col.family = "f";
  col.qualifier = "n";
  col.__set_amount(5);
  inc.columns = {col};
  t2::TResult result;
  handler_->increment(result, "t", inc);
  ASSERT_EQ(result.columnValues.size(), 1u);
  EXPECT_EQ(result.columnValues[0].value, EncodeCounter(5));
  inc.__set_returnResults(false);
  handler_->increment(result, "t", inc);
  EXPECT_TRUE(result.columnValues.empty());
  EXPECT_EQ(MustGet("t", "r").Counter("f", "n"), 10);
}

TEST_F(ServiceHandlerTest, MutateRowAppliesPutsAndDeletesTogether) {
  MustPut("t", Put{"r", {{"f", "old", "x", std::nullopt}}});
  t2::TRowMutations m;
  m.row = "r";
  t2::TMutation put, del;
  put.__set_put(TPutOf("r", "v", "new", "y"));
  t2::TDelete d;
  d.row = "r";
  t2::TColumn column;
  column.family = "f";
  column.__set_qualifier("old");
  d.__set_columns({column});
  del.__set_deleteSingle(d);
  m.mutations = {put, del};
  handler_->mutateRow("t", m);
  RowResult r = MustGet("t", "r");
  EXPECT_EQ(r.Value("v", "new"), "y");
  EXPECT_FALSE(r.Value("f", "old").has_value());
  t2::TDelete whole;
  whole.row = "r";
  t2::TMutation only_delete;
  only_delete.__set_deleteSingle(whole);
  m.mutations = {only_delete};
  handler_->mutateRow("t", m);
  EXPECT_TRUE(MustGet("t", "r").empty());
}

TEST_F(ServiceHandlerTest, CheckAndMutateWithAnEmptyValueChecksForAbsence) {
  t2::TRowMutations m;
  m.row = "r";
  t2::TMutation put;
  put.__set_put(TPutOf("r", "f", "seen", "1"));
  m.mutations = {put};
  EXPECT_TRUE(handler_->checkAndMutate("t", "r", "f", "seen", t2::TCompareOperator::EQUAL, "", m));
  EXPECT_FALSE(handler_->checkAndMutate("t", "r", "f", "seen", t2::TCompareOperator::EQUAL, "", m));
  EXPECT_TRUE(handler_->checkAndMutate("t", "r", "f", "seen", t2::TCompareOperator::EQUAL, "1", m));
}

TEST_F(ServiceHandlerTest, ScannersStreamAndCloseAndUnknownIdsAreIllegalArguments) {
  for (const char* row : {"a", "b", "c", "d", "e", "f"})
    MustPut("t", Put{row, {{"f", "q", row, std::nullopt}}});
  t2::TScan scan;
  int32_t id = handler_->openScanner("t", scan);
  std::vector<t2::TResult> rows;
  handler_->getScannerRows(rows, id, 100);
  EXPECT_EQ(rows.size(), 4u) << "held to max_rows_per_call";
  handler_->getScannerRows(rows, id, 100);
  EXPECT_EQ(rows.size(), 2u);
  handler_->getScannerRows(rows, id, 100);
  EXPECT_TRUE(rows.empty());
  handler_->closeScanner(id);
  try {
    handler_->getScannerRows(rows, id, 1);
    ADD_FAILURE() << "a closed scanner answered";
  } catch (const t2::TIllegalArgument& e) {
    EXPECT_EQ(e.message, "Invalid scanner Id");
  }
  EXPECT_NO_THROW(handler_->closeScanner(id)) << "closing twice is not an error, as in HBase";
}

TEST_F(ServiceHandlerTest, IdleScannersExpireAndTheLimitIsARetriableError) {
  t2::TScan scan;
  int32_t idle = handler_->openScanner("t", scan);
  handler_->openScanner("t", scan);
  handler_->openScanner("t", scan);
  try {
    handler_->openScanner("t", scan);
    ADD_FAILURE() << "a fourth scanner opened";
  } catch (const t2::TIOError& e) {
    EXPECT_TRUE(e.canRetry);
  }
  clock_->Advance(10001);
  EXPECT_EQ(handler_->ExpireIdleScanners(), 3);
  std::vector<t2::TResult> rows;
  EXPECT_THROW(handler_->getScannerRows(rows, idle, 1), t2::TIllegalArgument);
  EXPECT_NO_THROW(handler_->openScanner("t", scan));
}

TEST_F(ServiceHandlerTest, GetScannerResultsReadsAtMostTheRowsAsked) {
  for (const char* row : {"a", "b", "c"}) MustPut("t", Put{row, {{"f", "q", row, std::nullopt}}});
  t2::TScan scan;
  std::vector<t2::TResult> rows;
  handler_->getScannerResults(rows, "t", scan, 2);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].row, "b");
  handler_->getScannerResults(rows, "t", scan, 0);
  EXPECT_TRUE(rows.empty());
  scan.__set_limit(1);
  handler_->getScannerResults(rows, "t", scan, 10);
  EXPECT_EQ(rows.size(), 1u);
  EXPECT_EQ(IOErrorOf([&] { handler_->getScannerResults(rows, "nope", scan, 1); }), "nope");
}

TEST_F(ServiceHandlerTest, TablesAreCreatedDescribedDisabledAndDeletedAsInHBase) {
  TableSchema schema = Schema("made", {Fam("a", 2, 3600)});
  absl::StatusOr<t2::TTableDescriptor> descriptor = hbase::ToThrift(schema);
  ASSERT_TRUE(descriptor.ok());
  handler_->createTable(*descriptor, {"m"});
  EXPECT_TRUE(handler_->tableExists(Name("made")));
  EXPECT_THAT(IOErrorOf([&] { handler_->createTable(*descriptor, {}); }),
              HasSubstr("TableExistsException: made"));
  t2::TTableDescriptor described;
  handler_->getTableDescriptor(described, Name("made"));
  EXPECT_TRUE(hbase::SameDefinition(schema, hbase::FromThrift(described)));

  EXPECT_THAT(IOErrorOf([&] { handler_->deleteTable(Name("made")); }),
              HasSubstr("TableNotDisabledException"));
  EXPECT_TRUE(handler_->isTableEnabled(Name("made")));
  handler_->disableTable(Name("made"));
  EXPECT_FALSE(handler_->isTableEnabled(Name("made")));
  // HBase's client words it so before sending anything.
  EXPECT_EQ(IOErrorOf([&] { handler_->put("made", TPutOf("r", "a", "q", "v")); }),
            "made is disabled.");
  handler_->put("t", TPutOf("r", "f", "q", "v"));  // other tables carry on
  handler_->deleteTable(Name("made"));
  EXPECT_FALSE(handler_->tableExists(Name("made")));
  EXPECT_EQ(IOErrorOf([&] { handler_->getTableDescriptor(described, Name("made")); }), "made");
}

TEST_F(ServiceHandlerTest, FamiliesAreAddedModifiedAndDeletedKeepingTheOthersCells) {
  MustPut("t", Put{"r", {{"f", "q", "kept", std::nullopt}}});
  t2::TColumnFamilyDescriptor g;
  g.name = "g";
  g.__set_maxVersions(2);
  handler_->addColumnFamily(Name("t"), g);
  handler_->put("t", TPutOf("r", "g", "q", "1"));
  handler_->put("t", TPutOf("r", "g", "q", "2"));
  EXPECT_THAT(IOErrorOf([&] { handler_->addColumnFamily(Name("t"), g); }),
              HasSubstr("InvalidFamilyOperationException: Column family 'g' in table 't' already "
                        "exists so cannot be added"));
  auto versions_of_g = [&] {
    t2::TTableDescriptor described;
    handler_->getTableDescriptor(described, Name("t"));
    for (const t2::TColumnFamilyDescriptor& cf : described.columns) {
      if (cf.name == "g") return cf.maxVersions;
    }
    return -1;
  };
  EXPECT_EQ(versions_of_g(), 2);
  g.__set_maxVersions(1);
  handler_->modifyColumnFamily(Name("t"), g);
  EXPECT_EQ(versions_of_g(), 1);
  handler_->deleteColumnFamily(Name("t"), "g");
  EXPECT_THAT(IOErrorOf([&] { handler_->put("t", TPutOf("r", "g", "q", "3")); }),
              HasSubstr("NoSuchColumnFamilyException"));
  EXPECT_EQ(MustGet("t", "r").Value("f", "q"), "kept");
  t2::TTableDescriptor lone;
  lone.tableName.qualifier = "lone";
  lone.columns.emplace_back();
  lone.columns.back().name = "f";
  handler_->createTable(lone, {});
  EXPECT_THAT(IOErrorOf([&] { handler_->deleteColumnFamily(Name("lone"), "f"); }),
              HasSubstr("is the only column family in the table"));
}

TEST_F(ServiceHandlerTest, TruncateNeedsADisabledTableAndLeavesItEnabledAndEmpty) {
  MustPut("t", Put{"r", {{"f", "q", "v", std::nullopt}}});
  EXPECT_THAT(IOErrorOf([&] { handler_->truncateTable(Name("t"), true); }),
              HasSubstr("TableNotDisabledException: t"));
  handler_->disableTable(Name("t"));
  handler_->truncateTable(Name("t"), true);
  EXPECT_TRUE(handler_->isTableEnabled(Name("t")));
  EXPECT_TRUE(MustGet("t", "r").empty());
}

TEST_F(ServiceHandlerTest, NamespacesHoldTablesAndOnlyEmptyOnesAreDeleted) {
  std::vector<std::string> names;
  handler_->listNamespaces(names);
  EXPECT_EQ(names, (std::vector<std::string>{"default", "hbase"}));
  t2::TNamespaceDescriptor ns;
  ns.name = "tenant";
  ns.__set_configuration({{"k", "v"}});
  handler_->createNamespace(ns);
  EXPECT_THAT(IOErrorOf([&] { handler_->createNamespace(ns); }),
              HasSubstr("NamespaceExistException: Namespace tenant already exists"));
  t2::TNamespaceDescriptor read;
  handler_->getNamespaceDescriptor(read, "tenant");
  EXPECT_EQ(read.configuration.at("k"), "v");
  t2::TTableDescriptor desc;
  desc.tableName.__set_ns("tenant");
  desc.tableName.qualifier = "x";
  desc.columns.emplace_back();
  desc.columns.back().name = "f";
  handler_->createTable(desc, {});
  handler_->put("tenant:x", TPutOf("r", "f", "q", "v"));
  std::vector<t2::TTableName> tables;
  handler_->getTableNamesByNamespace(tables, "tenant");
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].qualifier, "x");
  EXPECT_THAT(IOErrorOf([&] { handler_->deleteNamespace("tenant"); }),
              HasSubstr("ConstraintException: Only empty namespaces can be removed"));
  desc.tableName.__set_ns("nope");
  EXPECT_THAT(IOErrorOf([&] { handler_->createTable(desc, {}); }),
              HasSubstr("NamespaceNotFoundException: nope"));
  handler_->disableTable(NameIn("tenant", "x"));
  handler_->deleteTable(NameIn("tenant", "x"));
  handler_->deleteNamespace("tenant");
  EXPECT_THAT(IOErrorOf([&] { handler_->getNamespaceDescriptor(read, "tenant"); }),
              HasSubstr("NamespaceNotFoundException: tenant"));
}

TEST_F(ServiceHandlerTest, RegionLocationsFollowTheSplitKeysOnTheOneServer) {
  t2::TTableDescriptor desc;
  desc.tableName.qualifier = "split";
  desc.columns.emplace_back();
  desc.columns.back().name = "f";
  handler_->createTable(desc, {"m"});
  std::vector<t2::THRegionLocation> all;
  handler_->getAllRegionLocations(all, "split");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].regionInfo.endKey, "m");
  EXPECT_EQ(all[1].regionInfo.startKey, "m");
  t2::THRegionLocation one;
  handler_->getRegionLocation(one, "split", "z", false);
  EXPECT_EQ(one.regionInfo.startKey, "m");
  EXPECT_EQ(one.serverName.hostName, "127.0.0.1");
  std::vector<t2::TOnlineLogRecord> slow;
  handler_->getSlowLogResponses(slow, {}, t2::TLogQueryFilter());
  EXPECT_TRUE(slow.empty());
  EXPECT_EQ(handler_->getThriftServerType(), t2::TThriftServerType::TWO);
}

// HBase's Admin asks only the servers named, and a region server with its
// slow log buffer off (the default) has nothing to clear.
TEST_F(ServiceHandlerTest, ClearSlowLogResponsesAnswersOneFalsePerServerNamed) {
  std::vector<bool> cleared = {true};
  handler_->clearSlowLogResponses(cleared, {});
  EXPECT_TRUE(cleared.empty());
  t2::TServerName one, two;
  one.hostName = "127.0.0.1";
  one.__set_port(1);
  two.hostName = "127.0.0.1";
  two.__set_port(2);
  handler_->clearSlowLogResponses(cleared, {one, two});
  EXPECT_EQ(cleared, (std::vector<bool>{false, false}));
}

TEST_F(ServiceHandlerTest, AScannerOnADisabledTableOpensAndFailsAtTheFirstRead) {
  handler_->disableTable(Name("t"));
  t2::TScan scan;
  const int32_t id = handler_->openScanner("t", scan);
  std::vector<t2::TResult> rows;
  EXPECT_EQ(IOErrorOf([&] { handler_->getScannerRows(rows, id, 1); }), "t is disabled.");
  EXPECT_EQ(IOErrorOf([&] { handler_->getScannerResults(rows, "t", scan, 1); }), "t is disabled.");
}

TEST_F(ServiceHandlerTest, GrantAndRevokeFailAsWithoutHBasesAccessController) {
  t2::TAccessControlEntity entity;
  entity.username = "bidder";
  entity.scope = t2::TPermissionScope::TABLE;
  entity.actions = "RW";
  entity.__set_tableName("t");
  EXPECT_THAT(IOErrorOf([&] { handler_->grant(entity); }),
              HasSubstr("DoNotRetryIOException: java.lang.UnsupportedOperationException"));
  EXPECT_THAT(IOErrorOf([&] { handler_->revoke(entity); }), HasSubstr("is not loaded"));
}

TEST_F(ServiceHandlerTest, SystemTablesAreDescribedWithHBasesFamilies) {
  t2::TTableDescriptor meta;
  handler_->getTableDescriptor(meta, NameIn("hbase", "meta"));
  EXPECT_EQ(meta.attributes["IS_META"], "true");
  std::vector<std::string> families;
  for (const auto& f : meta.columns) families.push_back(f.name);
  EXPECT_THAT(families, ::testing::ElementsAre("info", "rep_barrier", "table"));
  EXPECT_EQ(meta.columns[0].blockSize, 8192);
  EXPECT_EQ(meta.columns[0].dataBlockEncoding, t2::TDataBlockEncoding::ROW_INDEX_V1);
  t2::TTableDescriptor ns;
  handler_->getTableDescriptor(ns, NameIn("hbase", "namespace"));
  EXPECT_EQ(ns.attributes["IS_META"], "false");
  ASSERT_EQ(ns.columns.size(), 1u);
  EXPECT_EQ(ns.columns[0].maxVersions, 10);
}

TEST_F(ServiceHandlerTest, HBaseMetaExistsForHealthChecksAndOtherNamespacesDoNot) {
  t2::TTableName meta;
  meta.__set_ns("hbase");
  meta.qualifier = "meta";
  EXPECT_TRUE(handler_->tableExists(meta));
  t2::TTableName other;
  other.__set_ns("tenant");
  other.qualifier = "t";
  EXPECT_FALSE(handler_->tableExists(other));
}

// A filter string that does not parse is a TIOError naming HBase's exception
// class, the problem and its byte position, through each call that carries
// one: get, openScanner (at once, even for a missing table) and
// getScannerResults.
TEST_F(ServiceHandlerTest, BadFilterStringsAreTIOErrorsNamingThePosition) {
  MustPut("t", Put{"a", {{"f", "q", "1", std::nullopt}}});
  const std::string bad = "PrefixFilter('a') AND NoSuchFilter()";
  constexpr char kWhere[] = "at position 22";
  t2::TGet get = GetOf("a");
  get.__set_filterString(bad);
  t2::TScan scan;
  scan.__set_filterString(bad);
  t2::TResult result;
  std::vector<t2::TResult> rows;
  for (const std::string& message :
       {IOErrorOf([&] { handler_->get(result, "t", get); }),
        IOErrorOf([&] { handler_->openScanner("t", scan); }),
        IOErrorOf([&] { handler_->openScanner("nope", scan); }),
        IOErrorOf([&] { handler_->getScannerResults(rows, "t", scan, 5); })}) {
    EXPECT_THAT(message, HasSubstr("java.lang.IllegalArgumentException: "));
    EXPECT_THAT(message, HasSubstr(kWhere));
  }
  scan.__set_filterString("PrefixFilter('a");
  EXPECT_THAT(IOErrorOf([&] { handler_->getScannerResults(rows, "t", scan, 5); }),
              HasSubstr("unterminated quoted argument at position 13"));
  scan.__set_filterString("ValueFilter(=, 'x')");
  EXPECT_THAT(IOErrorOf([&] { handler_->getScannerResults(rows, "t", scan, 5); }),
              HasSubstr("at position 15"));
  // The same filters parse when well formed.
  scan.__set_filterString("PrefixFilter('a')");
  handler_->getScannerResults(rows, "t", scan, 5);
  EXPECT_EQ(rows.size(), 1u);
}

TEST_F(ServiceHandlerTest, DeleteMultipleAnswersAnEmptyList) {
  MustPut("t", Put{"a", {{"f", "q", "1", std::nullopt}}});
  MustPut("t", Put{"b", {{"f", "q", "2", std::nullopt}}});
  t2::TDelete a, b;
  a.row = "a";
  b.row = "b";
  std::vector<t2::TDelete> left = {a};
  handler_->deleteMultiple(left, "t", {a, b});
  EXPECT_TRUE(left.empty());
  EXPECT_TRUE(MustGet("t", "a").empty());
  EXPECT_TRUE(MustGet("t", "b").empty());
}

}  // namespace
}  // namespace rtb::storage::server
