#include "tests/storage/differential/thrift2_transcript.h"

#include <chrono>
#include <regex>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
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

}  // namespace

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

std::string MapText(const std::map<std::string, std::string>& map) {
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

std::string SystemDescriptorText(const t2::TTableDescriptor& d) {
  // The table attributes past IS_META (HBase's coprocessors and store file
  // tracker) follow the cluster's configuration; the families do not.
  t2::TTableDescriptor kept = d;
  kept.attributes.clear();
  if (auto it = d.attributes.find("IS_META"); it != d.attributes.end()) {
    kept.attributes.insert(*it);
  }
  return DescriptorText(kept);
}

std::string LocationText(const t2::THRegionLocation& l) {
  const t2::THRegionInfo& r = l.regionInfo;
  return absl::StrCat(Escape(r.tableName), " [", Escape(r.startKey), ",", Escape(r.endKey),
                      ") id=", r.regionId, " replica=", r.replicaId, " offline=", r.offline,
                      " split=", r.split, " server=", l.serverName.hostName.empty() ? "-" : "set");
}

void Transcript::Step(const std::string& name, const std::function<std::string()>& call) {
  std::string answer;
  try {
    answer = call();
  } catch (const t2::TIOError& e) {
    answer = absl::StrCat("TIOError(canRetry=", e.__isset.canRetry ? (e.canRetry ? "1" : "0") : "-",
                          ") ", ErrorText(e.message));
  } catch (const t2::TIllegalArgument& e) {
    answer = absl::StrCat("TIllegalArgument ", ErrorText(e.message));
  } catch (const at::TApplicationException& e) {
    answer = absl::StrCat("TApplicationException type=", e.getType());
  }
  lines_.push_back(
      absl::StrCat(lines_.size(), " ", name, ": ", absl::StrReplaceAll(answer, {{prefix_, "$"}})));
  // Calls a millisecond apart get distinct server timestamps on both sides.
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

std::string Transcript::ScannerText(int32_t id) {
  auto [it, added] = scanners_.emplace(id, scanners_.size());
  return absl::StrCat("#", it->second);
}

std::vector<std::string> Transcript::Finish() {
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
      text += ts >= kServerTime ? absl::StrCat("@S", std::distance(server.begin(), server.find(ts)))
                                : (*it)[0].str();
      last = it->position() + it->length();
    }
    text += line.substr(last);
    out.push_back(std::move(text));
  }
  return out;
}

}  // namespace rtb::storage::testing
