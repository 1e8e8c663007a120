#include "storage/server/convert.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "storage/hbase/absl_compat.h"
#include "storage/hbase/convert.h"
#include "storage/hbase/row_range_filter.h"

namespace rtb::storage::server {
namespace {

namespace t2 = ::rtb::storage::thrift2;
using hbase::AsAbsl;

constexpr char kDefaultNamespace[] = "default";

absl::Status Unsupported(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(AsAbsl(what), " is not supported by the storage server"));
}

std::optional<int64_t> TimestampFromThrift(int64_t timestamp) {
  if (timestamp == kHBaseLatestTimestamp) return std::nullopt;
  return timestamp;
}

absl::StatusOr<std::optional<int64_t>> TtlFromAttributes(
    const std::map<std::string, std::string>& attributes) {
  auto it = attributes.find(hbase::kTtlAttribute);
  if (it == attributes.end()) return std::optional<int64_t>();
  std::optional<int64_t> ttl = DecodeCounter(it->second);
  if (!ttl) {
    return absl::InvalidArgumentError(absl::StrCat("mutation attribute ", hbase::kTtlAttribute,
                                                   " must be 8 bytes (big-endian ms), got ",
                                                   it->second.size()));
  }
  // Mutation.getTTL() answers Long.MAX_VALUE for "no TTL".
  if (*ttl == kLatestTimestamp) return std::optional<int64_t>();
  return ttl;
}

absl::Status CheckVisibility(bool isset, const t2::TCellVisibility& visibility) {
  if (isset && visibility.__isset.expression && !visibility.expression.empty()) {
    return Unsupported("cell visibility");
  }
  return absl::OkStatus();
}

std::vector<Column> ColumnsFromThrift(const std::vector<t2::TColumn>& in) {
  std::vector<Column> out;
  out.reserve(in.size());
  // Timestamps of TColumns are ignored on reads, as in HBase.
  for (const t2::TColumn& c : in) {
    Column column;
    column.family = c.family;
    if (c.__isset.qualifier) column.qualifier = c.qualifier;
    out.push_back(std::move(column));
  }
  return out;
}

// HBase's filter language, only as far as PrefixFilter('prefix'); a quote
// inside the argument is written twice.
absl::StatusOr<std::string> ParsePrefixFilterString(std::string_view text) {
  auto skip_spaces = [&] {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  };
  auto unsupported = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("filterString '", AsAbsl(text.substr(0, 64)),
                     "' is not supported by the storage server (only PrefixFilter('...'))"));
  };
  const std::string_view original = text;
  skip_spaces();
  constexpr std::string_view kName = "PrefixFilter";
  if (!text.starts_with(kName)) {
    text = original;
    return unsupported();
  }
  text.remove_prefix(kName.size());
  skip_spaces();
  if (text.empty() || text.front() != '(') return unsupported();
  text.remove_prefix(1);
  skip_spaces();
  if (text.empty() || text.front() != '\'') return unsupported();
  text.remove_prefix(1);
  std::string prefix;
  while (true) {
    if (text.empty()) return unsupported();
    if (text.front() == '\'') {
      if (text.size() > 1 && text[1] == '\'') {
        prefix.push_back('\'');
        text.remove_prefix(2);
        continue;
      }
      text.remove_prefix(1);
      break;
    }
    prefix.push_back(text.front());
    text.remove_prefix(1);
  }
  skip_spaces();
  if (text.empty() || text.front() != ')') return unsupported();
  text.remove_prefix(1);
  skip_spaces();
  if (!text.empty()) return unsupported();
  return prefix;
}

RowRange PrefixRange(const std::string& prefix) {
  return RowRange{prefix, true, PrefixSuccessor(prefix), false};
}

// One end of the key span a scan's start and stop rows allow.
struct Bound {
  std::string key;
  bool inclusive = true;
  bool unbounded = true;
};

RowRange Intersect(RowRange r, const Bound& lower, const Bound& upper) {
  if (!lower.unbounded) {
    int c = r.start.compare(lower.key);
    if (c < 0) {
      r.start = lower.key;
      r.start_inclusive = lower.inclusive;
    } else if (c == 0) {
      r.start_inclusive = r.start_inclusive && lower.inclusive;
    }
  }
  if (!upper.unbounded) {
    int c = r.stop.empty() ? 1 : r.stop.compare(upper.key);
    if (c > 0) {
      r.stop = upper.key;
      r.stop_inclusive = upper.inclusive;
    } else if (c == 0) {
      r.stop_inclusive = r.stop_inclusive && upper.inclusive;
    }
  }
  return r;
}

t2::TColumnValue CellToThrift(const Cell& cell) {
  t2::TColumnValue out;
  out.family = cell.family;
  out.qualifier = cell.qualifier;
  out.value = cell.value;
  out.__set_timestamp(cell.timestamp);
  out.__set_type(kPutCellType);
  return out;
}

}  // namespace

std::string TableFromThrift(const std::string& name) {
  constexpr std::string_view kPrefix = "default:";
  if (std::string_view(name).starts_with(kPrefix)) return name.substr(kPrefix.size());
  return name;
}

std::string TableFromThrift(const t2::TTableName& name) {
  if (name.__isset.ns && !name.ns.empty() && name.ns != kDefaultNamespace) {
    return absl::StrCat(name.ns, ":", name.qualifier);
  }
  return name.qualifier;
}

std::string NamespaceOf(std::string_view table) {
  const size_t colon = table.find(':');
  return colon == std::string_view::npos ? std::string(kDefaultNamespace)
                                         : std::string(table.substr(0, colon));
}

Durability DurabilityFromThrift(t2::TDurability::type durability) {
  switch (durability) {
    case t2::TDurability::SKIP_WAL:
      return Durability::kSkipWal;
    case t2::TDurability::ASYNC_WAL:
      return Durability::kAsyncWal;
    case t2::TDurability::SYNC_WAL:
      return Durability::kSyncWal;
    case t2::TDurability::FSYNC_WAL:
      return Durability::kFsyncWal;
    default:
      // Unknown values fall back to the default, as in HBase.
      return Durability::kUseDefault;
  }
}

absl::StatusOr<Get> GetFromThrift(const t2::TGet& in) {
  if (in.__isset.filterBytes && !in.filterBytes.empty()) return Unsupported("a Get filter");
  if (in.__isset.storeLimit) return Unsupported("storeLimit");
  if (in.__isset.storeOffset) return Unsupported("storeOffset");
  if (in.__isset.existence_only && in.existence_only) return Unsupported("existence_only");
  Get out;
  out.row = in.row;
  if (in.__isset.columns) out.columns = ColumnsFromThrift(in.columns);
  if (in.__isset.timestamp) {
    if (in.timestamp < 0 || in.timestamp == kLatestTimestamp) {
      return absl::InvalidArgumentError(
          absl::StrCat("Get timestamp ", in.timestamp, " is not a valid timestamp"));
    }
    out.time_range = TimeRange{in.timestamp, in.timestamp + 1};
  } else if (in.__isset.timeRange) {
    out.time_range = TimeRange{in.timeRange.minStamp, in.timeRange.maxStamp};
  }
  if (in.__isset.maxVersions) out.max_versions = in.maxVersions;
  if (in.__isset.consistency && in.consistency == t2::TConsistency::TIMELINE) {
    out.consistency = Consistency::kTimeline;
  }
  return out;
}

absl::StatusOr<Put> PutFromThrift(const t2::TPut& in) {
  if (absl::Status s = CheckVisibility(in.__isset.cellVisibility, in.cellVisibility); !s.ok()) {
    return s;
  }
  Put out;
  out.row = in.row;
  std::optional<int64_t> default_timestamp;
  if (in.__isset.timestamp) default_timestamp = TimestampFromThrift(in.timestamp);
  out.values.reserve(in.columnValues.size());
  // Tags and cell types of TColumnValues are not written, as in HBase's gateway.
  for (const t2::TColumnValue& cv : in.columnValues) {
    PutValue v;
    v.family = cv.family;
    v.qualifier = cv.qualifier;
    v.value = cv.value;
    v.timestamp = cv.__isset.timestamp ? TimestampFromThrift(cv.timestamp) : default_timestamp;
    out.values.push_back(std::move(v));
  }
  if (in.__isset.attributes) {
    absl::StatusOr<std::optional<int64_t>> ttl = TtlFromAttributes(in.attributes);
    if (!ttl.ok()) return ttl.status();
    out.ttl_ms = *ttl;
  }
  if (in.__isset.durability) out.durability = DurabilityFromThrift(in.durability);
  return out;
}

absl::StatusOr<Delete> DeleteFromThrift(const t2::TDelete& in) {
  if (absl::Status s = CheckVisibility(in.__isset.cellVisibility, in.cellVisibility); !s.ok()) {
    return s;
  }
  Delete out;
  out.row = in.row;
  if (in.__isset.durability) out.durability = DurabilityFromThrift(in.durability);
  if (!in.__isset.columns) {
    // The whole row, at or before the delete's timestamp.
    if (in.__isset.timestamp) out.timestamp = TimestampFromThrift(in.timestamp);
    return out;
  }
  // HBase reads the delete type even when the client left it out: its
  // default, DELETE_COLUMNS, is what the IDL declares. An empty column list
  // is a whole-row delete at the current time.
  for (const t2::TColumn& c : in.columns) {
    DeleteTarget t;
    t.family = c.family;
    if (c.__isset.timestamp) t.timestamp = TimestampFromThrift(c.timestamp);
    switch (in.deleteType) {
      case t2::TDeleteType::DELETE_COLUMN:
        t.kind = DeleteKind::kColumnVersion;
        break;
      case t2::TDeleteType::DELETE_COLUMNS:
        t.kind = DeleteKind::kColumnAll;
        break;
      case t2::TDeleteType::DELETE_FAMILY:
        t.kind = DeleteKind::kFamily;
        break;
      case t2::TDeleteType::DELETE_FAMILY_VERSION:
        t.kind = DeleteKind::kFamilyVersion;
        if (!t.timestamp) {
          return absl::InvalidArgumentError(
              "Timestamp is required for TDelete with DeleteFamilyVersion type");
        }
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("unknown delete type ", static_cast<int>(in.deleteType)));
    }
    if (t.kind == DeleteKind::kColumnVersion || t.kind == DeleteKind::kColumnAll) {
      // A missing qualifier is HBase's null qualifier: the empty one.
      t.qualifier = c.__isset.qualifier ? c.qualifier : std::string();
    }
    out.targets.push_back(std::move(t));
  }
  return out;
}

absl::StatusOr<Increment> IncrementFromThrift(const t2::TIncrement& in) {
  if (absl::Status s = CheckVisibility(in.__isset.cellVisibility, in.cellVisibility); !s.ok()) {
    return s;
  }
  Increment out;
  out.row = in.row;
  out.columns.reserve(in.columns.size());
  for (const t2::TColumnIncrement& c : in.columns) {
    out.columns.push_back(IncrementColumn{c.family, c.qualifier, c.amount});
  }
  if (in.__isset.attributes) {
    absl::StatusOr<std::optional<int64_t>> ttl = TtlFromAttributes(in.attributes);
    if (!ttl.ok()) return ttl.status();
    out.ttl_ms = *ttl;
  }
  if (in.__isset.durability) out.durability = DurabilityFromThrift(in.durability);
  return out;
}

absl::StatusOr<RowMutations> RowMutationsFromThrift(const t2::TRowMutations& in) {
  RowMutations out;
  out.row = in.row;
  for (const t2::TMutation& m : in.mutations) {
    if (!m.__isset.put && !m.__isset.deleteSingle) {
      return absl::InvalidArgumentError("a TMutation holds neither a put nor a delete");
    }
    if (m.__isset.put) {
      absl::StatusOr<Put> put = PutFromThrift(m.put);
      if (!put.ok()) return put.status();
      if (put->row != out.row) {
        return absl::InvalidArgumentError(
            "org.apache.hadoop.hbase.client.WrongRowIOException: a Put in the row mutations "
            "names another row");
      }
      out.puts.push_back(*std::move(put));
    }
    if (m.__isset.deleteSingle) {
      absl::StatusOr<Delete> del = DeleteFromThrift(m.deleteSingle);
      if (!del.ok()) return del.status();
      if (del->row != out.row) {
        return absl::InvalidArgumentError(
            "org.apache.hadoop.hbase.client.WrongRowIOException: a Delete in the row mutations "
            "names another row");
      }
      out.deletes.push_back(*std::move(del));
    }
  }
  if (out.puts.empty() && out.deletes.empty()) {
    return absl::InvalidArgumentError("row mutations hold no mutation");
  }
  return out;
}

absl::StatusOr<CheckAndMutate> CheckAndMutateFromThrift(
    const std::string& row, const std::string& family, const std::string& qualifier,
    t2::TCompareOperator::type op, const std::string& value, const t2::TRowMutations& mutations) {
  CheckAndMutate out;
  out.row = row;
  out.family = family;
  out.qualifier = qualifier;
  out.value = value;
  switch (op) {
    case t2::TCompareOperator::LESS:
      out.op = CompareOp::kLess;
      break;
    case t2::TCompareOperator::LESS_OR_EQUAL:
      out.op = CompareOp::kLessOrEqual;
      break;
    case t2::TCompareOperator::EQUAL:
      out.op = CompareOp::kEqual;
      break;
    case t2::TCompareOperator::NOT_EQUAL:
      out.op = CompareOp::kNotEqual;
      break;
    case t2::TCompareOperator::GREATER_OR_EQUAL:
      out.op = CompareOp::kGreaterOrEqual;
      break;
    case t2::TCompareOperator::GREATER:
      out.op = CompareOp::kGreater;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("compare operator ", static_cast<int>(op),
                                                     " is not supported by the storage server"));
  }
  if (mutations.row != row) {
    return absl::InvalidArgumentError(
        "the row mutations of checkAndMutate name another row than the checked one");
  }
  absl::StatusOr<RowMutations> parsed = RowMutationsFromThrift(mutations);
  if (!parsed.ok()) return parsed.status();
  out.puts = std::move(parsed->puts);
  out.deletes = std::move(parsed->deletes);
  return out;
}

absl::StatusOr<ScanRequest> ScanFromThrift(const t2::TScan& in) {
  if (in.__isset.batchSize && in.batchSize > 0) {
    return Unsupported("batchSize (rows come back whole)");
  }
  if (in.__isset.colFamTimeRangeMap && !in.colFamTimeRangeMap.empty()) {
    return Unsupported("colFamTimeRangeMap");
  }
  const bool has_string = in.__isset.filterString && !in.filterString.empty();
  const bool has_bytes = in.__isset.filterBytes && !in.filterBytes.empty();
  if (has_string && has_bytes) return Unsupported("a scan with both filterString and filterBytes");

  ScanRequest out;
  Scan& scan = out.scan;
  scan.reversed = in.__isset.reversed && in.reversed;
  // maxVersions defaults to 1 in the IDL, so the field holds it when unsent.
  scan.max_versions = in.maxVersions;
  if (in.__isset.columns) scan.columns = ColumnsFromThrift(in.columns);
  if (in.__isset.timeRange)
    scan.time_range = TimeRange{in.timeRange.minStamp, in.timeRange.maxStamp};
  if (in.__isset.limit && in.limit > 0) scan.limit = in.limit;
  if (in.__isset.caching && in.caching > 0) scan.caching = in.caching;
  if (in.__isset.consistency && in.consistency == t2::TConsistency::TIMELINE) {
    scan.consistency = Consistency::kTimeline;
  }
  const std::string start = in.__isset.startRow ? in.startRow : std::string();
  const std::string stop = in.__isset.stopRow ? in.stopRow : std::string();

  std::vector<RowRange> filter_ranges;
  if (has_string) {
    // A lone PrefixFilter is read as a row range; anything else is
    // evaluated over the rows read (storage/server/filtered_scanner.h).
    absl::StatusOr<std::string> prefix = ParsePrefixFilterString(in.filterString);
    if (prefix.ok()) {
      filter_ranges.push_back(PrefixRange(*prefix));
    } else {
      out.filter_string = in.filterString;
      out.filter_max_versions = scan.max_versions;
      scan.max_versions = std::numeric_limits<int>::max();
      out.filter_limit = scan.limit;
      scan.limit = 0;
    }
  } else if (has_bytes) {
    absl::StatusOr<hbase::DecodedRowFilter> filter = hbase::DecodeRowFilter(in.filterBytes);
    if (!filter.ok()) {
      return absl::InvalidArgumentError(filter.status().message());
    }
    if (filter->prefix) {
      filter_ranges.push_back(PrefixRange(*filter->prefix));
    } else {
      filter_ranges = std::move(filter->ranges);
    }
  }
  if (filter_ranges.empty()) {
    scan.start_row = start;
    scan.stop_row = stop;
    return out;
  }
  // The engine reads ranges instead of start and stop rows, so the ranges
  // are cut to them here. A reversed scan starts at its (inclusive) start
  // row and walks down to its (exclusive) stop row.
  Bound lower, upper;
  if (!scan.reversed) {
    if (!start.empty()) lower = Bound{start, true, false};
    if (!stop.empty()) upper = Bound{stop, false, false};
  } else {
    if (!start.empty()) upper = Bound{start, true, false};
    if (!stop.empty()) lower = Bound{stop, false, false};
  }
  std::vector<RowRange> cut;
  cut.reserve(filter_ranges.size());
  for (const RowRange& r : filter_ranges) {
    if (!r.stop.empty() && r.stop < r.start) {
      return absl::InvalidArgumentError("a row range of the filter stops before it starts");
    }
    cut.push_back(Intersect(r, lower, upper));
  }
  scan.ranges = hbase::RangesThatCanHoldRows(cut);
  out.matches_nothing = scan.ranges.empty();
  return out;
}

t2::TResult ResultToThrift(const RowResult& row) {
  t2::TResult out;
  if (!row.cells.empty()) out.__set_row(row.row);
  out.columnValues.reserve(row.cells.size());
  for (const Cell& c : row.cells) out.columnValues.push_back(CellToThrift(c));
  out.__set_stale(row.stale);
  out.__set_partial(false);
  return out;
}

}  // namespace rtb::storage::server
