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
#include "thrift/Thrift.h"

namespace rtb::storage::testing {
namespace {

namespace t2 = ::rtb::storage::thrift2;
namespace at = ::apache::thrift;

// Timestamps at or above this (2001-09-09 in ms) were assigned by a server;
// the script's own are small.
constexpr int64_t kServerTime = 1000000000000;

// Exceptions whose message clients match on: compared word for word.
constexpr const char* kWordedExceptions[] = {
    "TableNotFoundException",          "TableExistsException",       "TableNotEnabledException",
    "TableNotDisabledException",       "NamespaceNotFoundException", "NamespaceExistException",
    "InvalidFamilyOperationException", "ConstraintException"};

std::string Escape(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += absl::StrCat("\\x", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

std::string ErrorText(const std::string& message) {
  const std::string first = message.substr(0, message.find('\n'));
  static const std::regex java_class(R"(^([a-z][a-z0-9_]*\.)+([A-Z][A-Za-z0-9_]*)(: |$))");
  std::smatch m;
  if (!std::regex_search(first, m, java_class)) return first;
  const std::string name = m[2];
  for (const char* worded : kWordedExceptions) {
    if (name == worded) return first;
  }
  return name;
}

std::string CellText(const t2::TColumnValue& c) {
  return absl::StrCat(Escape(c.family), ":", Escape(c.qualifier), "@", c.timestamp, "=",
                      Escape(c.value));
}

std::string ResultText(const t2::TResult& r) {
  std::vector<std::string> cells;
  for (const t2::TColumnValue& c : r.columnValues) cells.push_back(CellText(c));
  return absl::StrCat(r.__isset.row ? Escape(r.row) : "-", "{", absl::StrJoin(cells, " "), "}",
                      r.stale ? " stale" : "");
}

std::string ResultsText(const std::vector<t2::TResult>& rows) {
  std::vector<std::string> out;
  for (const t2::TResult& r : rows) out.push_back(ResultText(r));
  return absl::StrCat("[", absl::StrJoin(out, ", "), "]");
}

template <typename Map>
std::string MapText(const Map& map) {
  std::vector<std::string> out;
  std::map<std::string, std::string> sorted(map.begin(), map.end());
  for (const auto& [k, v] : sorted) out.push_back(absl::StrCat(Escape(k), "=", Escape(v)));
  return absl::StrCat("{", absl::StrJoin(out, ","), "}");
}

std::string NameText(const t2::TTableName& n) {
  return absl::StrCat(n.__isset.ns ? Escape(n.ns) : "", ":", Escape(n.qualifier));
}

std::string DescriptorText(const t2::TTableDescriptor& d) {
  std::vector<std::string> families;
  for (const t2::TColumnFamilyDescriptor& f : d.columns) {
    families.push_back(absl::StrCat(
        Escape(f.name), " attrs", MapText(f.attributes), " conf", MapText(f.configuration),
        " bs=", f.blockSize, " bloom=", f.bloomnFilterType, " comp=", f.compressionType,
        " dfs=", f.dfsReplication, " dbe=", f.dataBlockEncoding, " kdc=", f.keepDeletedCells,
        " v=", f.maxVersions, " minv=", f.minVersions, " scope=", f.scope, " ttl=", f.timeToLive,
        " bc=", f.blockCacheEnabled, " cbow=", f.cacheBloomsOnWrite, " cdow=", f.cacheDataOnWrite,
        " ciow=", f.cacheIndexesOnWrite, " ct=", f.compressTags, " eboc=", f.evictBlocksOnClose,
        " mem=", f.inMemory));
  }
  return absl::StrCat(NameText(d.tableName), " attrs", MapText(d.attributes),
                      " durability=", d.durability, " families[", absl::StrJoin(families, "; "),
                      "]");
}

std::string LocationText(const t2::THRegionLocation& l) {
  const t2::THRegionInfo& r = l.regionInfo;
  return absl::StrCat(Escape(r.tableName), " [", Escape(r.startKey), ",", Escape(r.endKey),
                      ") id=", r.regionId, " replica=", r.replicaId, " offline=", r.offline,
                      " split=", r.split, " server=", l.serverName.hostName.empty() ? "-" : "set");
}

t2::TTableName Name(const std::string& table, const std::string& ns = "") {
  t2::TTableName out;
  if (!ns.empty()) out.__set_ns(ns);
  out.qualifier = table;
  return out;
}

t2::TColumnValue Value(const std::string& family, const std::string& qualifier,
                       const std::string& value, std::optional<int64_t> ts = std::nullopt) {
  t2::TColumnValue out;
  out.family = family;
  out.qualifier = qualifier;
  out.value = value;
  if (ts) out.__set_timestamp(*ts);
  return out;
}

t2::TPut PutOf(const std::string& row, std::vector<t2::TColumnValue> values) {
  t2::TPut out;
  out.row = row;
  out.columnValues = std::move(values);
  return out;
}

t2::TColumn Column(const std::string& family, std::optional<std::string> qualifier = std::nullopt,
                   std::optional<int64_t> ts = std::nullopt) {
  t2::TColumn out;
  out.family = family;
  if (qualifier) out.__set_qualifier(*qualifier);
  if (ts) out.__set_timestamp(*ts);
  return out;
}

t2::TGet GetOf(const std::string& row, std::vector<t2::TColumn> columns = {}) {
  t2::TGet out;
  out.row = row;
  if (!columns.empty()) out.__set_columns(std::move(columns));
  return out;
}

t2::TDelete DeleteOf(const std::string& row, std::vector<t2::TColumn> columns,
                     t2::TDeleteType::type type) {
  t2::TDelete out;
  out.row = row;
  if (!columns.empty()) out.__set_columns(std::move(columns));
  out.__set_deleteType(type);
  return out;
}

t2::TColumnFamilyDescriptor FamilyOf(const std::string& name, int versions = 0) {
  t2::TColumnFamilyDescriptor out;
  out.name = name;
  if (versions > 0) out.__set_maxVersions(versions);
  return out;
}

t2::TScan ScanOf(const std::string& start = "", const std::string& stop = "") {
  t2::TScan out;
  if (!start.empty()) out.__set_startRow(start);
  if (!stop.empty()) out.__set_stopRow(stop);
  return out;
}

t2::TScan FilterScan(const std::string& filter, int versions = 1) {
  t2::TScan out;
  out.__set_filterString(filter);
  out.__set_maxVersions(versions);
  return out;
}

class Script {
 public:
  Script(t2::THBaseServiceClient& client, std::string prefix)
      : c_(client), prefix_(std::move(prefix)) {}

  // Runs one call; `call` answers its text or throws what the server sent.
  void Step(const std::string& name, const std::function<std::string()>& call) {
    std::string answer;
    try {
      answer = call();
    } catch (const t2::TIOError& e) {
      answer =
          absl::StrCat("TIOError(canRetry=", e.__isset.canRetry ? (e.canRetry ? "1" : "0") : "-",
                       ") ", ErrorText(e.message));
    } catch (const t2::TIllegalArgument& e) {
      answer = absl::StrCat("TIllegalArgument ", ErrorText(e.message));
    } catch (const at::TApplicationException& e) {
      answer = absl::StrCat("TApplicationException type=", e.getType());
    }
    lines_.push_back(absl::StrCat(lines_.size(), " ", name, ": ",
                                  absl::StrReplaceAll(answer, {{prefix_, "$"}})));
    // Calls a millisecond apart get distinct server timestamps on both sides.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }

  // Scanner ids by order of appearance.
  std::string ScannerText(int32_t id) {
    auto [it, added] = scanners_.emplace(id, scanners_.size());
    return absl::StrCat("#", it->second);
  }

  std::vector<std::string> Finish() {
    // Server-assigned timestamps become their rank among all of them.
    static const std::regex stamp("@([0-9]{13,})");
    std::set<int64_t> server;
    for (const std::string& line : lines_) {
      for (std::sregex_iterator it(line.begin(), line.end(), stamp), end; it != end; ++it) {
        const int64_t ts = std::stoll((*it)[1]);
        if (ts >= kServerTime) server.insert(ts);
      }
    }
    std::vector<std::string> out;
    for (const std::string& line : lines_) {
      std::string text;
      size_t last = 0;
      for (std::sregex_iterator it(line.begin(), line.end(), stamp), end; it != end; ++it) {
        const int64_t ts = std::stoll((*it)[1]);
        text += line.substr(last, it->position() - last);
        text += ts >= kServerTime
                    ? absl::StrCat("@S", std::distance(server.begin(), server.find(ts)))
                    : (*it)[0].str();
        last = it->position() + it->length();
      }
      text += line.substr(last);
      out.push_back(std::move(text));
    }
    return out;
  }

  t2::THBaseServiceClient& c_;
  const std::string prefix_;

 private:
  std::vector<std::string> lines_;
  std::map<int32_t, size_t> scanners_;
};

std::string Bool(bool b) { return b ? "true" : "false"; }

void AdminAndData(Script& s, const std::string& t1) {
  auto& c = s.c_;
  s.Step("tableExists", [&] { return Bool(c.tableExists(Name(t1))); });
  s.Step("createTable", [&] {
    t2::TTableDescriptor d;
    d.tableName = Name(t1);
    d.__set_columns({FamilyOf("f", 3), FamilyOf("g")});
    d.columns[1].__set_blockSize(8192);
    d.columns[1].__set_dataBlockEncoding(t2::TDataBlockEncoding::FAST_DIFF);
    d.columns[1].__set_timeToLive(86400 * 365 * 50);
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

void Scans(Script& s, const std::string& t1) {
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
  const std::vector<std::pair<std::string, int>> filters = {
      {"KeyOnlyFilter()", 1},
      {"KeyOnlyFilter(true)", 1},
      {"FirstKeyOnlyFilter()", 1},
      {"PrefixFilter('s1')", 1},
      {"ColumnPrefixFilter('q')", 1},
      {"MultipleColumnPrefixFilter('a', 'q1')", 1},
      {"ColumnRangeFilter('a', false, 'q1', true)", 1},
      {"ColumnCountGetFilter(2)", 1},
      {"PageFilter(3)", 1},
      {"RowFilter(<, 'binary:s03')", 1},
      {"RowFilter(>=, 'binaryprefix:s1')", 1},
      {"RowFilter(=, 'substring:1')", 1},
      {"QualifierFilter(=, 'binary:a')", 1},
      {"QualifierFilter(!=, 'binaryprefix:q')", 1},
      {"FamilyFilter(=, 'binary:g')", 1},
      {"ValueFilter(=, 'binary:G1')", 1},
      {"ValueFilter(=, 'substring:OLD')", 1},
      {"ValueFilter(>, 'binary:v5')", 2},
      {"SingleColumnValueFilter('g', 'c', =, 'binary:G2')", 1},
      {"SingleColumnValueFilter('g', 'c', !=, 'binary:G2', true, true)", 1},
      {"SingleColumnValueFilter('g', 'zz', =, 'binary:G2', true, true)", 1},
      {"SingleColumnValueFilter('f', 'a', =, 'binary:old3', false, false)", 2},
      {"TimestampsFilter(5)", 2},
      {"TimestampsFilter(5, 10)", 2},
      {"InclusiveStopFilter('s03')", 1},
      {"PrefixFilter('s0') AND ValueFilter(=, 'binary:x')", 1},
      {"PrefixFilter('s10') OR PrefixFilter('s02')", 1},
      {"SKIP ValueFilter(!=, 'binary:G3')", 1},
      {"WHILE RowFilter(<, 'binary:s04')", 1},
      {"(FamilyFilter(=, 'binary:f') AND ColumnPrefixFilter('q')) OR ValueFilter(=, 'binary:G0')",
       1},
      {"PageFilter(2) AND SingleColumnValueFilter('g', 'c', =, 'binary:G1')", 1},
      {"FirstKeyOnlyFilter() AND KeyOnlyFilter()", 1},
  };
  for (const auto& [filter, versions] : filters) {
    results(absl::StrCat("scan ", filter), FilterScan(filter, versions), 20);
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
  for (const char* filter :
       {"KeyOnlyFilter()", "ColumnPrefixFilter('q')", "ValueFilter(=, 'binary:nope')",
        "SingleColumnValueFilter('g', 'c', =, 'binary:G3')", "TimestampsFilter(5)"}) {
    s.Step(absl::StrCat("get ", filter), [&c, &t1, filter] {
      t2::TGet g = GetOf("s03");
      g.__set_filterString(filter);
      g.__set_maxVersions(2);
      t2::TResult r;
      c.get(r, t1, g);
      return ResultText(r);
    });
  }
  for (const char* bad : {"PrefixFilter('abc", "NoSuchFilter()", "KeyOnlyFilter() AND",
                          "ValueFilter(<, 'substring:x')"}) {
    s.Step(absl::StrCat("scan bad filter ", bad), [&c, &t1, bad] {
      std::vector<t2::TResult> out;
      c.getScannerResults(out, t1, FilterScan(bad), 5);
      return ResultsText(out);
    });
  }
}

void Namespaces(Script& s, const std::string& ns) {
  auto& c = s.c_;
  auto list = [&] {
    std::vector<std::string> names;
    c.listNamespaces(names);
    std::vector<std::string> ours;
    for (const std::string& n : names) {
      if (n == "default" || n == "hbase" || n.starts_with(ns)) ours.push_back(n);
    }
    std::sort(ours.begin(), ours.end());
    return absl::StrJoin(ours, ",");
  };
  s.Step("listNamespaces", list);
  s.Step("createNamespace", [&] {
    t2::TNamespaceDescriptor d;
    d.name = ns;
    d.__set_configuration({{"owner", "rtb"}});
    c.createNamespace(d);
    return std::string("ok");
  });
  s.Step("createNamespace exists", [&] {
    t2::TNamespaceDescriptor d;
    d.name = ns;
    c.createNamespace(d);
    return std::string("ok");
  });
  s.Step("getNamespaceDescriptor", [&] {
    t2::TNamespaceDescriptor d;
    c.getNamespaceDescriptor(d, ns);
    return absl::StrCat(d.name, " ", MapText(d.configuration));
  });
  s.Step("getNamespaceDescriptor missing", [&] {
    t2::TNamespaceDescriptor d;
    c.getNamespaceDescriptor(d, ns + "nope");
    return d.name;
  });
  s.Step("listNamespaces after create", list);
  s.Step("listNamespaceDescriptors", [&] {
    std::vector<t2::TNamespaceDescriptor> all;
    c.listNamespaceDescriptors(all);
    std::vector<std::string> out;
    for (const auto& d : all) {
      if (d.name == "default" || d.name == "hbase" || d.name.starts_with(ns)) {
        out.push_back(absl::StrCat(d.name, MapText(d.configuration)));
      }
    }
    std::sort(out.begin(), out.end());
    return absl::StrJoin(out, ",");
  });
  s.Step("modifyNamespace", [&] {
    t2::TNamespaceDescriptor d;
    d.name = ns;
    d.__set_configuration({{"team", "bidder"}});
    c.modifyNamespace(d);
    t2::TNamespaceDescriptor read;
    c.getNamespaceDescriptor(read, ns);
    return MapText(read.configuration);
  });
  s.Step("createTable in namespace", [&] {
    t2::TTableDescriptor d;
    d.tableName = Name("x", ns);
    d.__set_columns({FamilyOf("f")});
    c.createTable(d, {"m"});
    return std::string("ok");
  });
  s.Step("createTable in missing namespace", [&] {
    t2::TTableDescriptor d;
    d.tableName = Name("x", ns + "nope");
    d.__set_columns({FamilyOf("f")});
    c.createTable(d, {});
    return std::string("ok");
  });
  s.Step("put namespaced", [&] {
    c.put(ns + ":x", PutOf("k", {Value("f", "q", "v", 1)}));
    return std::string("ok");
  });
  s.Step("get namespaced", [&] {
    t2::TResult r;
    c.get(r, ns + ":x", GetOf("k"));
    return ResultText(r);
  });
  s.Step("getTableNamesByNamespace", [&] {
    std::vector<t2::TTableName> names;
    c.getTableNamesByNamespace(names, ns);
    std::vector<std::string> out;
    for (const auto& n : names) out.push_back(NameText(n));
    return absl::StrJoin(out, ",");
  });
  s.Step("getTableDescriptorsByNamespace", [&] {
    std::vector<t2::TTableDescriptor> all;
    c.getTableDescriptorsByNamespace(all, ns);
    std::vector<std::string> out;
    for (const auto& d : all) out.push_back(DescriptorText(d));
    return absl::StrJoin(out, " || ");
  });
  s.Step("getTableNamesByNamespace missing", [&] {
    std::vector<t2::TTableName> names;
    c.getTableNamesByNamespace(names, ns + "nope");
    return absl::StrCat(names.size());
  });
  s.Step("getAllRegionLocations namespaced", [&] {
    std::vector<t2::THRegionLocation> all;
    c.getAllRegionLocations(all, ns + ":x");
    std::vector<std::string> out;
    for (const auto& l : all) out.push_back(LocationText(l));
    return absl::StrJoin(out, " | ");
  });
  s.Step("getRegionLocation namespaced", [&] {
    t2::THRegionLocation l;
    c.getRegionLocation(l, ns + ":x", "z", false);
    return LocationText(l);
  });
  s.Step("deleteNamespace not empty", [&] {
    c.deleteNamespace(ns);
    return std::string("ok");
  });
  s.Step("disableTable namespaced", [&] {
    c.disableTable(Name("x", ns));
    return std::string("ok");
  });
  s.Step("deleteTable namespaced", [&] {
    c.deleteTable(Name("x", ns));
    return std::string("ok");
  });
  s.Step("deleteNamespace", [&] {
    c.deleteNamespace(ns);
    return std::string("ok");
  });
  s.Step("deleteNamespace missing", [&] {
    c.deleteNamespace(ns);
    return std::string("ok");
  });
  s.Step("listNamespaces after delete", list);
}

void Families(Script& s, const std::string& t1) {
  auto& c = s.c_;
  auto describe = [&] {
    t2::TTableDescriptor d;
    c.getTableDescriptor(d, Name(t1));
    return DescriptorText(d);
  };
  s.Step("addColumnFamily", [&] {
    t2::TColumnFamilyDescriptor h = FamilyOf("h", 2);
    h.__set_inMemory(true);
    h.__set_scope(1);
    c.addColumnFamily(Name(t1), h);
    return std::string("ok");
  });
  s.Step("describe after add", describe);
  s.Step("put new family", [&] {
    c.put(t1, PutOf("fam", {Value("h", "q", "1", 1), Value("h", "q", "2", 2)}));
    t2::TGet g = GetOf("fam");
    g.__set_maxVersions(5);
    t2::TResult r;
    c.get(r, t1, g);
    return ResultText(r);
  });
  s.Step("addColumnFamily exists", [&] {
    c.addColumnFamily(Name(t1), FamilyOf("h"));
    return std::string("ok");
  });
  s.Step("modifyColumnFamily", [&] {
    t2::TColumnFamilyDescriptor h = FamilyOf("h");
    h.__set_timeToLive(3600 * 24 * 365 * 60);
    c.modifyColumnFamily(Name(t1), h);
    return std::string("ok");
  });
  s.Step("describe after modify", describe);
  s.Step("modifyColumnFamily missing", [&] {
    c.modifyColumnFamily(Name(t1), FamilyOf("nope"));
    return std::string("ok");
  });
  s.Step("deleteColumnFamily", [&] {
    c.deleteColumnFamily(Name(t1), "h");
    return std::string("ok");
  });
  s.Step("deleteColumnFamily missing", [&] {
    c.deleteColumnFamily(Name(t1), "h");
    return std::string("ok");
  });
  s.Step("put deleted family", [&] {
    c.put(t1, PutOf("fam", {Value("h", "q", "3", 3)}));
    return std::string("ok");
  });
  s.Step("modifyTable", [&] {
    t2::TTableDescriptor d;
    d.tableName = Name(t1);
    d.__set_columns({FamilyOf("f", 3), FamilyOf("g", 2)});
    c.modifyTable(d);
    return std::string("ok");
  });
  s.Step("describe after modifyTable", describe);
  s.Step("getTableNamesByPattern", [&] {
    std::vector<t2::TTableName> names;
    c.getTableNamesByPattern(names, s.prefix_ + ".*", false);
    std::vector<std::string> out;
    for (const auto& n : names) out.push_back(NameText(n));
    return absl::StrJoin(out, ",");
  });
  s.Step("getTableNamesByPattern default namespace", [&] {
    std::vector<t2::TTableName> names;
    c.getTableNamesByPattern(names, "default:" + s.prefix_ + "t1", false);
    return absl::StrCat(names.size());
  });
  s.Step("getTableDescriptorsByPattern", [&] {
    std::vector<t2::TTableDescriptor> all;
    c.getTableDescriptorsByPattern(all, s.prefix_ + "t.", false);
    std::vector<std::string> out;
    for (const auto& d : all) out.push_back(DescriptorText(d));
    return absl::StrJoin(out, " || ");
  });
  s.Step("getTableDescriptors", [&] {
    std::vector<t2::TTableDescriptor> all;
    c.getTableDescriptors(all, {Name(t1), Name(t1 + "nope")});
    std::vector<std::string> out;
    for (const auto& d : all) out.push_back(NameText(d.tableName));
    return absl::StrJoin(out, ",");
  });
  s.Step("getTableNamesByNamespace hbase", [&] {
    std::vector<t2::TTableName> names;
    c.getTableNamesByNamespace(names, "hbase");
    std::vector<std::string> out;
    for (const auto& n : names) out.push_back(NameText(n));
    return absl::StrJoin(out, ",");
  });
}

void Lifecycle(Script& s, const std::string& t1) {
  auto& c = s.c_;
  auto step = [&](const std::string& name, std::function<void()> call) {
    s.Step(name, [call] {
      call();
      return std::string("ok");
    });
  };
  step("truncateTable enabled", [&] { c.truncateTable(Name(t1), true); });
  step("enableTable enabled", [&] { c.enableTable(Name(t1)); });
  step("disableTable", [&] { c.disableTable(Name(t1)); });
  s.Step("isTableDisabled", [&] { return Bool(c.isTableDisabled(Name(t1))); });
  s.Step("isTableAvailable disabled", [&] { return Bool(c.isTableAvailable(Name(t1))); });
  step("disableTable disabled", [&] { c.disableTable(Name(t1)); });
  step("put disabled", [&] { c.put(t1, PutOf("r1", {Value("f", "a", "v")})); });
  step("truncateTable", [&] { c.truncateTable(Name(t1), true); });
  s.Step("isTableEnabled after truncate", [&] { return Bool(c.isTableEnabled(Name(t1))); });
  s.Step("get after truncate", [&] {
    t2::TResult r;
    c.get(r, t1, GetOf("s03"));
    return ResultText(r);
  });
  s.Step("scan after truncate", [&] {
    std::vector<t2::TResult> out;
    c.getScannerResults(out, t1, ScanOf(), 10);
    return ResultsText(out);
  });
  step("deleteTable enabled", [&] { c.deleteTable(Name(t1)); });
  step("disableTable again", [&] { c.disableTable(Name(t1)); });
  step("deleteTable", [&] { c.deleteTable(Name(t1)); });
  step("deleteTable missing", [&] { c.deleteTable(Name(t1)); });
  step("disableTable missing", [&] { c.disableTable(Name(t1)); });
  step("enableTable missing", [&] { c.enableTable(Name(t1)); });
  step("truncateTable missing", [&] { c.truncateTable(Name(t1), false); });
  step("addColumnFamily missing table", [&] { c.addColumnFamily(Name(t1), FamilyOf("x")); });
  s.Step("tableExists after delete", [&] { return Bool(c.tableExists(Name(t1))); });
}

}  // namespace

std::vector<std::string> RunThrift2Script(t2::THBaseServiceClient& client,
                                          const std::string& prefix) {
  Script script(client, prefix);
  const std::string t1 = prefix + "t1";
  AdminAndData(script, t1);
  Scans(script, t1);
  Namespaces(script, prefix + "ns");
  Families(script, t1);
  Lifecycle(script, t1);
  return script.Finish();
}

}  // namespace rtb::storage::testing
