#include "tests/storage/differential/thrift2_script.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "storage/types.h"
#include "tests/storage/differential/thrift2_requests.h"
#include "tests/storage/differential/thrift2_transcript.h"
#include "thrift/Thrift.h"

namespace rtb::storage::testing {
namespace {

namespace t2 = ::rtb::storage::thrift2;
namespace at = ::apache::thrift;

void AdminAndData(Transcript& s, const std::string& t1) {
  auto& c = s.c_;
  s.Step("tableExists", [&] { return Bool(c.tableExists(Name(t1))); });
  s.Step("createTable", [&] {
    t2::TTableDescriptor d;
    d.tableName = Name(t1);
    d.__set_columns({FamilyOf("f", 3), FamilyOf("g")});
    d.columns[1].__set_blockSize(8192);
    d.columns[1].__set_dataBlockEncoding(t2::TDataBlockEncoding::FAST_DIFF);
    // No TTL on g: the script writes its cells at small explicit timestamps
    // (1970), which any TTL would expire, leaving the filters nothing to
    // see. TTL round-trips through modifyColumnFamily (family h).
    c.createTable(d, {});
    return std::string("ok");
  });
  s.Step("tableExists", [&] { return Bool(c.tableExists(Name(t1))); });
  s.Step("getTableDescriptor", [&] {
    t2::TTableDescriptor d;
    c.getTableDescriptor(d, Name(t1));
    return DescriptorText(d);
  });
  s.Step("createTable exists", [&] {
    t2::TTableDescriptor d;
    d.tableName = Name(t1);
    d.__set_columns({FamilyOf("f")});
    c.createTable(d, {});
    return std::string("ok");
  });
  s.Step("isTableEnabled", [&] { return Bool(c.isTableEnabled(Name(t1))); });
  s.Step("isTableDisabled", [&] { return Bool(c.isTableDisabled(Name(t1))); });
  s.Step("isTableAvailable", [&] { return Bool(c.isTableAvailable(Name(t1))); });
  s.Step("isTableAvailableWithSplit",
         [&] { return Bool(c.isTableAvailableWithSplit(Name(t1), {"zz"})); });
  s.Step("isTableAvailable missing", [&] { return Bool(c.isTableAvailable(Name(t1 + "nope"))); });
  s.Step("isTableEnabled missing", [&] { return Bool(c.isTableEnabled(Name(t1 + "nope"))); });
  s.Step("getTableDescriptor missing", [&] {
    t2::TTableDescriptor d;
    c.getTableDescriptor(d, Name(t1 + "nope"));
    return DescriptorText(d);
  });
  s.Step("getAllRegionLocations", [&] {
    std::vector<t2::THRegionLocation> all;
    c.getAllRegionLocations(all, t1);
    std::vector<std::string> out;
    for (const auto& l : all) out.push_back(LocationText(l));
    return absl::StrJoin(out, " | ");
  });
  s.Step("getRegionLocation", [&] {
    t2::THRegionLocation l;
    c.getRegionLocation(l, t1, "row", false);
    return LocationText(l);
  });
  s.Step("getThriftServerType", [&] { return absl::StrCat(c.getThriftServerType()); });
  s.Step("getClusterId", [&] {
    std::string id;
    c.getClusterId(id);
    return absl::StrCat("length ", id.size());
  });
  s.Step("getSlowLogResponses", [&] {
    std::vector<t2::TOnlineLogRecord> records;
    c.getSlowLogResponses(records, {}, t2::TLogQueryFilter());
    return absl::StrCat(records.size(), " records");
  });
  s.Step("clearSlowLogResponses", [&] {
    std::vector<bool> cleared;
    c.clearSlowLogResponses(cleared, {});
    return absl::StrCat(cleared.size(), " servers");
  });
  // The server that holds t1's region, as the server reports it: the calls
  // that take server names must answer for exactly the servers named.
  t2::TServerName holder;
  s.Step("getRegionLocation for server name", [&] {
    t2::THRegionLocation l;
    c.getRegionLocation(l, t1, "", false);
    holder = l.serverName;
    return std::string(holder.hostName.empty() ? "no host" : "host set");
  });
  s.Step("getSlowLogResponses one server", [&] {
    std::vector<t2::TOnlineLogRecord> records;
    c.getSlowLogResponses(records, {holder}, t2::TLogQueryFilter());
    return absl::StrCat(records.size(), " records");
  });
  s.Step("clearSlowLogResponses one server", [&] {
    std::vector<bool> cleared;
    c.clearSlowLogResponses(cleared, {holder});
    std::vector<std::string> out;
    for (bool b : cleared) out.push_back(Bool(b));
    return absl::StrCat(cleared.size(), " servers: ", absl::StrJoin(out, ","));
  });

  // ---- Writes and reads ----
  for (int v = 1; v <= 4; ++v) {
    s.Step("put version", [&, v] {
      c.put(t1, PutOf("r1", {Value("f", "a", absl::StrCat("a", v), 100 + v),
                             Value("f", "b", absl::StrCat("b", v), 100 + v)}));
      return std::string("ok");
    });
  }
  s.Step("put server time", [&] {
    c.put(t1, PutOf("r2", {Value("f", "a", "x"), Value("g", "c", "y")}));
    return std::string("ok");
  });
  s.Step("put row timestamp", [&] {
    t2::TPut p = PutOf("r3", {Value("f", "a", "p"), Value("g", "c", "q", 7)});
    p.__set_timestamp(50);
    c.put(t1, p);
    return std::string("ok");
  });
  s.Step("putMultiple", [&] {
    c.putMultiple(t1, {PutOf("r4", {Value("f", "a", "4", 10)}),
                       PutOf("r5", {Value("f", "a", "5", 10), Value("g", "z", "", 10)})});
    return std::string("ok");
  });
  s.Step("put missing family", [&] {
    c.put(t1, PutOf("r1", {Value("zz", "a", "v")}));
    return std::string("ok");
  });
  s.Step("put missing table", [&] {
    c.put(t1 + "nope", PutOf("r1", {Value("f", "a", "v")}));
    return std::string("ok");
  });
  auto get = [&](const std::string& name, t2::TGet g) {
    s.Step(name, [&c, &t1, g] {
      t2::TResult r;
      c.get(r, t1, g);
      return ResultText(r);
    });
  };
  get("get row", GetOf("r1"));
  get("get absent", GetOf("nope"));
  get("get column", GetOf("r1", {Column("f", "b")}));
  get("get family", GetOf("r2", {Column("g")}));
  {
    t2::TGet g = GetOf("r1");
    g.__set_maxVersions(3);
    get("get versions", g);
    g.__set_timestamp(102);
    get("get timestamp", g);
    t2::TGet r = GetOf("r1");
    r.__set_maxVersions(10);
    t2::TTimeRange range;
    range.minStamp = 102;
    range.maxStamp = 104;
    r.__set_timeRange(range);
    get("get time range", r);
  }
  get("get row timestamp", GetOf("r3"));
  get("get missing family", GetOf("r1", {Column("zz")}));
  s.Step("get missing table", [&] {
    t2::TResult r;
    c.get(r, t1 + "nope", GetOf("r1"));
    return ResultText(r);
  });
  s.Step("getMultiple", [&] {
    std::vector<t2::TResult> rows;
    c.getMultiple(rows, t1, {GetOf("r4"), GetOf("nope"), GetOf("r5")});
    return ResultsText(rows);
  });
  s.Step("exists", [&] { return Bool(c.exists(t1, GetOf("r4"))); });
  s.Step("exists absent", [&] { return Bool(c.exists(t1, GetOf("nope"))); });
  s.Step("exists column", [&] { return Bool(c.exists(t1, GetOf("r4", {Column("g")}))); });
  s.Step("existsAll", [&] {
    std::vector<bool> found;
    c.existsAll(found, t1, {GetOf("r4"), GetOf("nope"), GetOf("r5", {Column("g", "z")})});
    std::vector<std::string> out;
    for (bool b : found) out.push_back(Bool(b));
    return absl::StrJoin(out, ",");
  });

  // ---- Deletes ----
  auto del = [&](const std::string& name, t2::TDelete d) {
    s.Step(name, [&c, &t1, d] {
      c.deleteSingle(t1, d);
      return std::string("ok");
    });
  };
  del("delete one version",
      DeleteOf("r1", {Column("f", "a", 104)}, t2::TDeleteType::DELETE_COLUMN));
  get("get after version delete", [] {
    t2::TGet g = GetOf("r1", {Column("f", "a")});
    g.__set_maxVersions(5);
    return g;
  }());
  del("delete latest version", DeleteOf("r1", {Column("f", "a")}, t2::TDeleteType::DELETE_COLUMN));
  get("get after latest delete", [] {
    t2::TGet g = GetOf("r1", {Column("f", "a")});
    g.__set_maxVersions(5);
    return g;
  }());
  del("delete columns up to",
      DeleteOf("r1", {Column("f", "b", 102)}, t2::TDeleteType::DELETE_COLUMNS));
  get("get after columns delete", [] {
    t2::TGet g = GetOf("r1");
    g.__set_maxVersions(5);
    return g;
  }());
  del("delete family version",
      DeleteOf("r1", {Column("f", std::nullopt, 103)}, t2::TDeleteType::DELETE_FAMILY_VERSION));
  get("get after family version delete", [] {
    t2::TGet g = GetOf("r1");
    g.__set_maxVersions(5);
    return g;
  }());
  del("delete family", DeleteOf("r2", {Column("g")}, t2::TDeleteType::DELETE_FAMILY));
  get("get after family delete", GetOf("r2"));
  del("delete row", DeleteOf("r3", {}, t2::TDeleteType::DELETE_COLUMNS));
  get("get after row delete", GetOf("r3"));
  s.Step("deleteMultiple", [&] {
    std::vector<t2::TDelete> left;
    c.deleteMultiple(left, t1,
                     {DeleteOf("r4", {}, t2::TDeleteType::DELETE_COLUMNS),
                      DeleteOf("r5", {Column("g", "z")}, t2::TDeleteType::DELETE_COLUMNS)});
    return absl::StrCat(left.size(), " left");
  });
  s.Step("getMultiple after deletes", [&] {
    std::vector<t2::TResult> rows;
    c.getMultiple(rows, t1, {GetOf("r4"), GetOf("r5")});
    return ResultsText(rows);
  });
  del("delete missing family", DeleteOf("r5", {Column("zz")}, t2::TDeleteType::DELETE_FAMILY));

  // ---- Increment and append ----
  auto increment = [&](const std::string& name, const std::string& row, int64_t amount,
                       bool results) {
    s.Step(name, [&c, &t1, row, amount, results] {
      t2::TIncrement inc;
      inc.row = row;
      t2::TColumnIncrement col;
      col.family = "f";
      col.qualifier = "n";
      col.__set_amount(amount);
      inc.columns = {col};
      if (!results) inc.__set_returnResults(false);
      t2::TResult r;
      c.increment(r, t1, inc);
      return ResultText(r);
    });
  };
  increment("increment new", "c1", 5, true);
  increment("increment again", "c1", -2, true);
  increment("increment no results", "c1", 10, false);
  get("get counter", GetOf("c1"));
  s.Step("increment not a counter", [&] {
    t2::TIncrement inc;
    inc.row = "r5";
    t2::TColumnIncrement col;
    col.family = "f";
    col.qualifier = "a";
    inc.columns = {col};
    t2::TResult r;
    c.increment(r, t1, inc);
    return ResultText(r);
  });
  auto append = [&](const std::string& name, const std::string& row, const std::string& tail,
                    bool results) {
    s.Step(name, [&c, &t1, row, tail, results] {
      t2::TAppend a;
      a.row = row;
      a.columns = {Value("f", "s", tail)};
      if (!results) a.__set_returnResults(false);
      t2::TResult r;
      c.append(r, t1, a);
      return ResultText(r);
    });
  };
  append("append new", "ap", "ab", true);
  append("append again", "ap", "cd", true);
  append("append no results", "ap", "ef", false);
  get("get appended", GetOf("ap"));

  // ---- Checks ----
  s.Step("checkAndPut equal", [&] {
    return Bool(c.checkAndPut(t1, "r5", "f", "a", "5", PutOf("r5", {Value("f", "a", "6", 20)})));
  });
  s.Step("checkAndPut not equal", [&] {
    return Bool(c.checkAndPut(t1, "r5", "f", "a", "5", PutOf("r5", {Value("f", "a", "7", 30)})));
  });
  s.Step("checkAndPut absent", [&] {
    return Bool(c.checkAndPut(t1, "r6", "f", "a", "", PutOf("r6", {Value("f", "a", "n", 20)})));
  });
  s.Step("checkAndPut absent fails", [&] {
    return Bool(c.checkAndPut(t1, "r6", "f", "a", "", PutOf("r6", {Value("f", "a", "m", 30)})));
  });
  get("get checked", GetOf("r6"));
  s.Step("checkAndDelete equal", [&] {
    return Bool(c.checkAndDelete(t1, "r6", "f", "a", "n",
                                 DeleteOf("r6", {}, t2::TDeleteType::DELETE_COLUMNS)));
  });
  s.Step("checkAndDelete not equal", [&] {
    return Bool(c.checkAndDelete(t1, "r5", "f", "a", "nope",
                                 DeleteOf("r5", {}, t2::TDeleteType::DELETE_COLUMNS)));
  });
  get("get after checkAndDelete", GetOf("r6"));
  auto check_and_mutate = [&](const std::string& name, t2::TCompareOperator::type op,
                              const std::string& value) {
    s.Step(name, [&c, &t1, op, value] {
      t2::TRowMutations m;
      m.row = "r5";
      m.mutations.emplace_back();
      m.mutations.back().__set_put(PutOf("r5", {Value("g", "m", value, 40)}));
      return Bool(c.checkAndMutate(t1, "r5", "f", "a", op, value, m));
    });
  };
  check_and_mutate("checkAndMutate less", t2::TCompareOperator::LESS, "5");
  check_and_mutate("checkAndMutate greater", t2::TCompareOperator::GREATER, "5");
  check_and_mutate("checkAndMutate not equal", t2::TCompareOperator::NOT_EQUAL, "6");
  check_and_mutate("checkAndMutate greater or equal", t2::TCompareOperator::GREATER_OR_EQUAL, "6");
  get("get after checkAndMutate", GetOf("r5"));
  s.Step("mutateRow", [&] {
    t2::TRowMutations m;
    m.row = "r7";
    m.mutations.emplace_back();
    m.mutations.back().__set_put(PutOf("r7", {Value("f", "a", "1", 5), Value("g", "b", "2", 5)}));
    m.mutations.emplace_back();
    m.mutations.back().__set_deleteSingle(
        DeleteOf("r7", {Column("g", "b")}, t2::TDeleteType::DELETE_COLUMNS));
    c.mutateRow(t1, m);
    return std::string("ok");
  });
  get("get after mutateRow", GetOf("r7"));
}

void Scans(Transcript& s, const std::string& t1) {
  auto& c = s.c_;
  s.Step("putMultiple scan rows", [&] {
    std::vector<t2::TPut> puts;
    for (int i = 0; i < 12; ++i) {
      const std::string row = absl::StrCat("s", absl::Dec(i, absl::kZeroPad2));
      puts.push_back(PutOf(row, {Value("f", "a", absl::StrCat("v", i), 10),
                                 Value("f", "a", absl::StrCat("old", i), 5),
                                 Value("f", absl::StrCat("q", i % 3), "x", 10),
                                 Value("g", "c", absl::StrCat("G", i % 4), 10)}));
    }
    puts.push_back(PutOf(
        "tv", {Value("f", "t", "t1", 1), Value("f", "t", "t2", 2), Value("f", "t", "t3", 3)}));
    c.putMultiple(t1, puts);
    return std::string("ok");
  });
  int32_t id = -1;
  s.Step("openScanner", [&] {
    id = c.openScanner(t1, ScanOf("s02", "s09"));
    return s.ScannerText(id);
  });
  for (int i = 0; i < 4; ++i) {
    s.Step("getScannerRows", [&] {
      std::vector<t2::TResult> rows;
      c.getScannerRows(rows, id, 3);
      return ResultsText(rows);
    });
  }
  s.Step("closeScanner", [&] {
    c.closeScanner(id);
    return std::string("ok");
  });
  s.Step("getScannerRows closed", [&] {
    std::vector<t2::TResult> rows;
    c.getScannerRows(rows, id, 3);
    return ResultsText(rows);
  });
  s.Step("openScanner missing table", [&] {
    id = c.openScanner(t1 + "nope", ScanOf());
    return s.ScannerText(id);
  });
  s.Step("getScannerRows missing table", [&] {
    std::vector<t2::TResult> rows;
    c.getScannerRows(rows, id, 3);
    return ResultsText(rows);
  });
  auto results = [&](const std::string& name, t2::TScan scan, int rows) {
    s.Step(name, [&c, &t1, scan, rows] {
      std::vector<t2::TResult> out;
      c.getScannerResults(out, t1, scan, rows);
      return ResultsText(out);
    });
  };
  {
    t2::TScan reversed = ScanOf("s05", "s01");
    reversed.__set_reversed(true);
    results("scan reversed", reversed, 10);
    t2::TScan limited = ScanOf("s00");
    limited.__set_limit(2);
    results("scan limit", limited, 10);
    t2::TScan columns = ScanOf("s00", "s03");
    columns.__set_columns({Column("g")});
    results("scan family", columns, 10);
    t2::TScan versions = ScanOf("s00", "s02");
    versions.__set_maxVersions(2);
    versions.__set_columns({Column("f", "a")});
    results("scan versions", versions, 10);
    t2::TScan ranged = ScanOf("s00", "s02");
    t2::TTimeRange range;
    range.minStamp = 0;
    range.maxStamp = 6;
    ranged.__set_timeRange(range);
    results("scan time range", ranged, 10);
  }
  // Each filter below is chosen so that its answer differs from the whole
  // table (what a filter that does nothing returns); the comment says what
  // a broken filter would show instead. Rows: ap, c1, r1, r2, r5, r7 (from
  // the calls above, g:m only on r5), s00..s11 (f:a@10=v<i> over
  // f:a@5=old<i>, f:q<i%3>@10=x, g:c@10=G<i%4>), tv (f:t at 1, 2 and 3).
  const std::vector<std::pair<std::string, int>> filters = {
      // Values emptied; a no-op keeps them.
      {"KeyOnlyFilter()", 1},
      {"KeyOnlyFilter(true)", 1},
      // One cell a row; a no-op gives every cell.
      {"FirstKeyOnlyFilter()", 1},
      // s10, s11 only; a no-op gives every row.
      {"PrefixFilter('s1')", 1},
      // Only the q columns; a no-op keeps f:a and g:c.
      {"ColumnPrefixFilter('q')", 1},
      // f:a and f:q1 only; a no-op keeps q0, q2, g:c and the others.
      {"MultipleColumnPrefixFilter('a', 'q1')", 1},
      // Exclusive 'a', inclusive 'q1': f:b, g:c, f:n, q0 and q1 kept, f:a
      // and q2 dropped; with the bounds' inclusion swapped f:a is kept and q1
      // dropped (the next step), a no-op keeps everything.
      {"ColumnRangeFilter('a', false, 'q1', true)", 1},
      // Inclusive 'a', exclusive 'q1': f:a and q0 kept, q1 and q2 dropped.
      {"ColumnRangeFilter('a', true, 'q1', false)", 1},
      // Open low end up to 'c' inclusive: f:a, f:b and g:c, no q columns.
      {"ColumnRangeFilter('', true, 'c', true)", 1},
      // Two cells a row: the s rows lose g:c; a no-op keeps all three.
      {"ColumnCountGetFilter(2)", 1},
      // In a scan, HBase closes a family whose store scanner finds the count
      // passed when it reads on: after r1 (f:a, f:b) family f is closed for
      // the rest of the scan, so r2, r7 and tv vanish and the s rows give
      // g:c. A filter counting per row only gives f:a on every row, a no-op
      // every cell.
      {"ColumnCountGetFilter(1)", 1},
      // Three rows; a no-op gives every row.
      {"PageFilter(3)", 1},
      {"RowFilter(<, 'binary:s03')", 1},
      {"RowFilter(>=, 'binaryprefix:s1')", 1},
      // r1, r2, r5, r7; a comparator reading 'r' as the whole key finds none.
      {"RowFilter(=, 'binaryprefix:r')", 1},
      {"RowFilter(=, 'substring:1')", 1},
      // Rows without a '0' in the key; a no-op keeps s00..s09 and s10.
      {"RowFilter(!=, 'substring:0')", 1},
      {"QualifierFilter(=, 'binary:a')", 1},
      {"QualifierFilter(!=, 'binaryprefix:q')", 1},
      // The q columns alone.
      {"QualifierFilter(=, 'binaryprefix:q')", 1},
      // f:q1 alone (the only qualifier holding a '1'); q0, q2, a, c dropped.
      {"QualifierFilter(=, 'substring:1')", 1},
      // g:c on the s rows and g:m on r5; a no-op keeps the f cells too.
      {"FamilyFilter(=, 'binary:g')", 1},
      // Same cells through a prefix comparator.
      {"FamilyFilter(=, 'binaryprefix:g')", 1},
      // Family f only: every g cell dropped.
      {"FamilyFilter(!=, 'substring:g')", 1},
      // g:c=G1 on s01, s05, s09 only.
      {"ValueFilter(=, 'binary:G1')", 1},
      // old1, old10, old11 (older versions, two read); not old2 and the rest.
      {"ValueFilter(=, 'binaryprefix:old1')", 2},
      {"ValueFilter(=, 'substring:OLD')", 1},
      {"ValueFilter(>, 'binary:v5')", 2},
      // Present column, latest version: s02, s06, s10 whose g:c is G2, and
      // the rows with no g:c (filterIfMissing false); a no-op keeps the other
      // s rows, a filter that drops rows missing the column loses ap, c1, ...
      {"SingleColumnValueFilter('g', 'c', =, 'binary:G2')", 1},
      // filterIfMissing true, some rows with the column and some without: the
      // s rows but s02, s06, s10, and no row lacking g:c.
      {"SingleColumnValueFilter('g', 'c', !=, 'binary:G2', true, true)", 1},
      {"SingleColumnValueFilter('g', 'zz', =, 'binary:G2', true, true)", 1},
      // Every version looked at: s03 (old3 is its older f:a) and the rows
      // without f:a; with latestVersionOnly ignored the answer is the same,
      // so the next two steps tell the two apart.
      {"SingleColumnValueFilter('f', 'a', =, 'binary:old3', false, false)", 2},
      // Latest version only: s03's latest f:a is v3, so s03 is gone and only
      // the rows without f:a remain; a filter reading every version keeps s03.
      {"SingleColumnValueFilter('f', 'a', =, 'binary:old3', false, true)", 2},
      // Older version, rows without the column dropped: s03 alone; with
      // latestVersionOnly misread as true the answer is empty.
      {"SingleColumnValueFilter('f', 'a', =, 'binary:old3', true, false)", 2},
      {"TimestampsFilter(5)", 2},
      {"TimestampsFilter(5, 10)", 2},
      // tv's f:t@3 and f:t@1 of three versions, not f:t@2.
      {"TimestampsFilter(1, 3)", 3},
      // One version read, but the filter comes first: tv's f:t@1 (the oldest);
      // a reader that cut versions before filtering returns nothing for tv.
      {"TimestampsFilter(1)", 1},
      {"InclusiveStopFilter('s03')", 1},
      {"PrefixFilter('s0') AND ValueFilter(=, 'binary:x')", 1},
      {"PrefixFilter('s10') OR PrefixFilter('s02')", 1},
      // Drops s03, s07, s11 whole (their g:c is G3) and keeps every cell of
      // the other rows; a SKIP that only drops the cell keeps those rows.
      {"SKIP ValueFilter(!=, 'binary:G3')", 1},
      // Drops the rows with any q0 column (s00, s03, s06, s09).
      {"SKIP QualifierFilter(!=, 'binary:q0')", 1},
      {"WHILE RowFilter(<, 'binary:s04')", 1},
      // Stops at the first cell equal to G2 (s02's g:c), mid-scan: nothing
      // after s02 comes back; a WHILE that only skips the cell goes on.
      {"WHILE ValueFilter(!=, 'binary:G2')", 1},
      {"(FamilyFilter(=, 'binary:f') AND ColumnPrefixFilter('q')) OR ValueFilter(=, 'binary:G0')",
       1},
      // Empty: in an AND list PageFilter counts every row the scan reaches,
      // the ones SingleColumnValueFilter drops too, so ap and c1 (no g:c) use
      // up the page before s01. A PageFilter counting only the rows kept
      // answers s01, s05; one ignored answers s01, s05, s09.
      {"PageFilter(2) AND SingleColumnValueFilter('g', 'c', =, 'binary:G1', true, true)", 1},
      {"FirstKeyOnlyFilter() AND KeyOnlyFilter()", 1},
  };
  for (const auto& [filter, versions] : filters) {
    results(absl::StrCat("scan ", filter), FilterScan(filter, versions), 20);
  }
  {
    // From s05: WHILE stops after s07, PageFilter counts from the start row.
    t2::TScan ranged = FilterScan("WHILE RowFilter(<=, 'binary:s07')");
    ranged.__set_startRow("s05");
    results("scan from s05 WHILE RowFilter(<=, 'binary:s07')", ranged, 20);
    ranged = FilterScan("PageFilter(2)");
    ranged.__set_startRow("s05");
    results("scan from s05 PageFilter(2)", ranged, 20);
  }
  {
    t2::TScan limited = FilterScan("QualifierFilter(=, 'binary:q1')");
    limited.__set_limit(2);
    results("scan filter with limit", limited, 20);
    t2::TScan reversed = FilterScan("PrefixFilter('s0') AND KeyOnlyFilter()");
    reversed.__set_reversed(true);
    results("scan reversed filter", reversed, 20);
  }
  s.Step("openScanner filtered", [&] {
    id = c.openScanner(t1, FilterScan("ValueFilter(=, 'binary:x')"));
    return s.ScannerText(id);
  });
  for (int i = 0; i < 3; ++i) {
    s.Step("getScannerRows filtered", [&] {
      std::vector<t2::TResult> rows;
      c.getScannerRows(rows, id, 5);
      return ResultsText(rows);
    });
  }
  s.Step("closeScanner filtered", [&] {
    c.closeScanner(id);
    return std::string("ok");
  });
  // s03: f:a@10=v3, f:a@5=old3, f:q0@10=x, g:c@10=G3. The SingleColumnValue
  // gets see g:c present: G3 keeps the row, G0 drops it (a no-op keeps it).
  for (const char* filter :
       {"KeyOnlyFilter()", "ColumnPrefixFilter('q')", "ValueFilter(=, 'binary:nope')",
        "ValueFilter(=, 'binary:G3')", "SingleColumnValueFilter('g', 'c', =, 'binary:G3')",
        "SingleColumnValueFilter('g', 'c', =, 'binary:G0')",
        "SingleColumnValueFilter('g', 'c', =, 'binary:G0', true, true)", "TimestampsFilter(5)",
        "FamilyFilter(=, 'binary:g')", "ColumnCountGetFilter(2)"}) {
    s.Step(absl::StrCat("get ", filter), [&c, &t1, filter] {
      t2::TGet g = GetOf("s03");
      g.__set_filterString(filter);
      g.__set_maxVersions(2);
      t2::TResult r;
      c.get(r, t1, g);
      return ResultText(r);
    });
  }
  // A filter string that does not parse fails the call that carries it:
  // getScannerResults, get and openScanner (at once, not at the first read,
  // and even on a missing table: the gateway parses it before it looks).
  for (const char* bad : {"PrefixFilter('abc", "NoSuchFilter()", "KeyOnlyFilter() AND",
                          "ValueFilter(<, 'substring:x')", "PageFilter(2", "ValueFilter(=, 'x')",
                          "PrefixFilter('a') OR"}) {
    s.Step(absl::StrCat("scan bad filter ", bad), [&c, &t1, bad] {
      std::vector<t2::TResult> out;
      c.getScannerResults(out, t1, FilterScan(bad), 5);
      return ResultsText(out);
    });
  }
  for (const char* bad : {"PrefixFilter('abc", "NoSuchFilter()", "KeyOnlyFilter() AND"}) {
    s.Step(absl::StrCat("get bad filter ", bad), [&c, &t1, bad] {
      t2::TGet g = GetOf("s03");
      g.__set_filterString(bad);
      t2::TResult r;
      c.get(r, t1, g);
      return ResultText(r);
    });
    s.Step(absl::StrCat("openScanner bad filter ", bad),
           [&s, &c, &t1, bad] { return s.ScannerText(c.openScanner(t1, FilterScan(bad))); });
  }
  s.Step("openScanner bad filter missing table",
         [&] { return s.ScannerText(c.openScanner(t1 + "nope", FilterScan("NoSuchFilter()"))); });
  s.Step("openScanner good filter missing table", [&] {
    id = c.openScanner(t1 + "nope", FilterScan("KeyOnlyFilter()"));
    return s.ScannerText(id);
  });
  s.Step("getScannerRows good filter missing table", [&] {
    std::vector<t2::TResult> rows;
    c.getScannerRows(rows, id, 3);
    return ResultsText(rows);
  });
}

}  // namespace

std::vector<std::string> RunThrift2Script(t2::THBaseServiceClient& client,
                                          const std::string& prefix) {
  Transcript script(client, prefix);
  const std::string t1 = prefix + "t1";
  AdminAndData(script, t1);
  Scans(script, t1);
  Namespaces(script, prefix + "ns");
  Families(script, t1);
  AccessControl(script, t1);
  Lifecycle(script, t1);
  return script.Finish();
}

}  // namespace rtb::storage::testing
