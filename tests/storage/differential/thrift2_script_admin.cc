// The differential test's calls that administer namespaces, families and
// tables (thrift2_script.h); the data and scan calls are in thrift2_script.cc.
#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/storage/differential/thrift2_requests.h"
#include "tests/storage/differential/thrift2_script.h"
#include "tests/storage/differential/thrift2_transcript.h"

namespace rtb::storage::testing {

namespace t2 = ::rtb::storage::thrift2;

void Namespaces(Transcript& s, const std::string& ns) {
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

void Families(Transcript& s, const std::string& t1) {
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
  s.Step("getTableDescriptor hbase:meta", [&] {
    t2::TTableDescriptor d;
    c.getTableDescriptor(d, Name("meta", "hbase"));
    return SystemDescriptorText(d);
  });
  s.Step("getTableDescriptor hbase:namespace", [&] {
    t2::TTableDescriptor d;
    c.getTableDescriptor(d, Name("namespace", "hbase"));
    return SystemDescriptorText(d);
  });
  s.Step("getTableDescriptorsByNamespace hbase", [&] {
    std::vector<t2::TTableDescriptor> all;
    c.getTableDescriptorsByNamespace(all, "hbase");
    std::vector<std::string> out;
    for (const auto& d : all) out.push_back(SystemDescriptorText(d));
    return absl::StrJoin(out, " || ");
  });
}

void AccessControl(Transcript& s, const std::string& t1) {
  auto& c = s.c_;
  auto entity = [](t2::TPermissionScope::type scope, const std::string& name) {
    t2::TAccessControlEntity e;
    e.username = "bidder";
    e.scope = scope;
    e.actions = "RW";
    if (scope == t2::TPermissionScope::TABLE) {
      e.__set_tableName(name);
    } else {
      e.__set_nsName(name);
    }
    return e;
  };
  s.Step("grant table", [&] { return Bool(c.grant(entity(t2::TPermissionScope::TABLE, t1))); });
  s.Step("revoke table", [&] { return Bool(c.revoke(entity(t2::TPermissionScope::TABLE, t1))); });
  s.Step("grant namespace",
         [&] { return Bool(c.grant(entity(t2::TPermissionScope::NAMESPACE, "default"))); });
  s.Step("revoke namespace",
         [&] { return Bool(c.revoke(entity(t2::TPermissionScope::NAMESPACE, "default"))); });
}

void Lifecycle(Transcript& s, const std::string& t1) {
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
  s.Step("get disabled", [&] {
    t2::TResult r;
    c.get(r, t1, GetOf("s03"));
    return ResultText(r);
  });
  s.Step("getScannerResults disabled", [&] {
    std::vector<t2::TResult> out;
    c.getScannerResults(out, t1, ScanOf(), 10);
    return ResultsText(out);
  });
  // Whether opening a scanner on a disabled table fails at once or at the
  // first read, as for a missing table.
  int32_t id = -1;
  s.Step("openScanner disabled", [&] {
    id = c.openScanner(t1, ScanOf());
    return s.ScannerText(id);
  });
  s.Step("getScannerRows disabled", [&] {
    std::vector<t2::TResult> rows;
    c.getScannerRows(rows, id, 3);
    return ResultsText(rows);
  });
  step("closeScanner disabled", [&] { c.closeScanner(id); });
  s.Step("openScanner bad filter disabled",
         [&] { return s.ScannerText(c.openScanner(t1, FilterScan("NoSuchFilter()"))); });
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

}  // namespace rtb::storage::testing
