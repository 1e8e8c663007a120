#include "storage/hbase/convert.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "storage/hbase/absl_compat.h"
#include "storage/hbase/row_range_filter.h"

namespace rtb::storage::hbase {
namespace {

namespace t2 = ::rtb::storage::thrift2;

constexpr size_t kMaxRowBytes = 32767;  // HBase's Short.MAX_VALUE row limit

absl::Status CheckRow(std::string_view what, std::string_view row) {
  if (row.empty())
    return absl::InvalidArgumentError(absl::StrCat(AsAbsl(what), " has an empty row key"));
  if (row.size() > kMaxRowBytes) {
    return absl::InvalidArgumentError(absl::StrCat(AsAbsl(what), " has a row key of ", row.size(),
                                                   " bytes; the limit is ", kMaxRowBytes));
  }
  return absl::OkStatus();
}

absl::Status CheckFamilyName(std::string_view what, std::string_view family) {
  if (family.empty())
    return absl::InvalidArgumentError(absl::StrCat(AsAbsl(what), " names an empty family"));
  return absl::OkStatus();
}

absl::Status CheckTimeRange(std::string_view what, const TimeRange& range) {
  if (range.min < 0 || range.max < range.min) {
    return absl::InvalidArgumentError(absl::StrCat(AsAbsl(what), ": time range [", range.min, ", ",
                                                   range.max, ") is not a valid range"));
  }
  return absl::OkStatus();
}

absl::Status CheckTtl(std::string_view what, const std::optional<int64_t>& ttl_ms) {
  if (ttl_ms && *ttl_ms <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(AsAbsl(what), ": cell TTL must be > 0 ms, got ", *ttl_ms));
  }
  return absl::OkStatus();
}

bool IsDefault(const TimeRange& range) { return range.min == 0 && range.max == kLatestTimestamp; }

t2::TTimeRange ToThrift(const TimeRange& range) {
  t2::TTimeRange out;
  out.minStamp = range.min;
  out.maxStamp = range.max;
  return out;
}

absl::StatusOr<std::vector<t2::TColumn>> ToThrift(std::string_view what,
                                                  const std::vector<Column>& columns) {
  std::vector<t2::TColumn> out;
  out.reserve(columns.size());
  for (const Column& c : columns) {
    if (absl::Status s = CheckFamilyName(what, c.family); !s.ok()) return s;
    t2::TColumn col;
    col.family = c.family;
    if (c.qualifier) col.__set_qualifier(*c.qualifier);
    out.push_back(std::move(col));
  }
  return out;
}

Durability Resolve(Durability wanted, Durability fallback) {
  return wanted == Durability::kUseDefault ? fallback : wanted;
}

template <typename Mutation>
void SetTtl(const std::optional<int64_t>& ttl_ms, Mutation* mutation) {
  if (!ttl_ms) return;
  mutation->attributes[kTtlAttribute] = EncodeTtlAttribute(*ttl_ms);
  mutation->__isset.attributes = true;
}

t2::TDeleteType::type ToThrift(DeleteKind kind) {
  switch (kind) {
    case DeleteKind::kColumnVersion:
      return t2::TDeleteType::DELETE_COLUMN;
    case DeleteKind::kColumnAll:
      return t2::TDeleteType::DELETE_COLUMNS;
    case DeleteKind::kFamily:
      return t2::TDeleteType::DELETE_FAMILY;
    case DeleteKind::kFamilyVersion:
      return t2::TDeleteType::DELETE_FAMILY_VERSION;
  }
  return t2::TDeleteType::DELETE_COLUMNS;
}

}  // namespace

t2::TBloomFilterType::type ToThrift(BloomType bloom) {
  switch (bloom) {
    case BloomType::kNone:
      return t2::TBloomFilterType::NONE;
    case BloomType::kRow:
      return t2::TBloomFilterType::ROW;
    case BloomType::kRowCol:
      return t2::TBloomFilterType::ROWCOL;
  }
  return t2::TBloomFilterType::ROW;
}

t2::TCompressionAlgorithm::type ToThrift(Compression compression) {
  switch (compression) {
    case Compression::kNone:
      return t2::TCompressionAlgorithm::NONE;
    case Compression::kSnappy:
      return t2::TCompressionAlgorithm::SNAPPY;
    case Compression::kLz4:
      return t2::TCompressionAlgorithm::LZ4;
    case Compression::kZstd:
      return t2::TCompressionAlgorithm::ZSTD;
  }
  return t2::TCompressionAlgorithm::NONE;
}

BloomType BloomFromThrift(t2::TBloomFilterType::type bloom) {
  switch (bloom) {
    case t2::TBloomFilterType::NONE:
      return BloomType::kNone;
    case t2::TBloomFilterType::ROWCOL:
      return BloomType::kRowCol;
    default:
      return BloomType::kRow;
  }
}

Compression CompressionFromThrift(t2::TCompressionAlgorithm::type compression) {
  switch (compression) {
    case t2::TCompressionAlgorithm::SNAPPY:
      return Compression::kSnappy;
    case t2::TCompressionAlgorithm::LZ4:
      return Compression::kLz4;
    case t2::TCompressionAlgorithm::ZSTD:
      return Compression::kZstd;
    default:
      return Compression::kNone;
  }
}

std::string EncodeTtlAttribute(int64_t ttl_ms) { return EncodeCounter(ttl_ms); }

t2::TDurability::type ToThrift(Durability durability) {
  switch (durability) {
    case Durability::kUseDefault:
      return t2::TDurability::USE_DEFAULT;
    case Durability::kSkipWal:
      return t2::TDurability::SKIP_WAL;
    case Durability::kAsyncWal:
      return t2::TDurability::ASYNC_WAL;
    case Durability::kSyncWal:
      return t2::TDurability::SYNC_WAL;
    case Durability::kFsyncWal:
      return t2::TDurability::FSYNC_WAL;
  }
  return t2::TDurability::USE_DEFAULT;
}

t2::TCompareOperator::type ToThrift(CompareOp op) {
  switch (op) {
    case CompareOp::kLess:
      return t2::TCompareOperator::LESS;
    case CompareOp::kLessOrEqual:
      return t2::TCompareOperator::LESS_OR_EQUAL;
    case CompareOp::kEqual:
      return t2::TCompareOperator::EQUAL;
    case CompareOp::kNotEqual:
      return t2::TCompareOperator::NOT_EQUAL;
    case CompareOp::kGreaterOrEqual:
      return t2::TCompareOperator::GREATER_OR_EQUAL;
    case CompareOp::kGreater:
      return t2::TCompareOperator::GREATER;
  }
  return t2::TCompareOperator::EQUAL;
}

absl::Status CheckTableName(std::string_view table) {
  if (table.empty()) return absl::InvalidArgumentError("table name is empty");
  if (table.size() > 255) {
    return absl::InvalidArgumentError(
        absl::StrCat("table name of ", table.size(), " bytes is too long"));
  }
  return absl::OkStatus();
}

t2::TTableName ToThriftTableName(std::string_view table) {
  t2::TTableName out;
  size_t colon = table.find(':');
  if (colon == std::string_view::npos) {
    out.qualifier = std::string(table);
  } else {
    out.__set_ns(std::string(table.substr(0, colon)));
    out.qualifier = std::string(table.substr(colon + 1));
  }
  return out;
}

absl::StatusOr<t2::TGet> ToThrift(const Get& get) {
  if (absl::Status s = CheckRow("Get", get.row); !s.ok()) return s;
  if (get.max_versions < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Get: max_versions must be >= 1, got ", get.max_versions));
  }
  if (absl::Status s = CheckTimeRange("Get", get.time_range); !s.ok()) return s;
  t2::TGet out;
  out.row = get.row;
  if (!get.columns.empty()) {
    absl::StatusOr<std::vector<t2::TColumn>> columns = ToThrift("Get", get.columns);
    if (!columns.ok()) return columns.status();
    out.__set_columns(*std::move(columns));
  }
  if (!IsDefault(get.time_range)) out.__set_timeRange(ToThrift(get.time_range));
  out.__set_maxVersions(get.max_versions);
  out.__set_consistency(get.consistency == Consistency::kTimeline ? t2::TConsistency::TIMELINE
                                                                  : t2::TConsistency::STRONG);
  return out;
}

absl::StatusOr<t2::TPut> ToThrift(const Put& put, Durability fallback) {
  if (absl::Status s = CheckRow("Put", put.row); !s.ok()) return s;
  if (put.values.empty()) return absl::InvalidArgumentError("Put has no values");
  if (absl::Status s = CheckTtl("Put", put.ttl_ms); !s.ok()) return s;
  t2::TPut out;
  out.row = put.row;
  out.columnValues.reserve(put.values.size());
  for (const PutValue& v : put.values) {
    if (absl::Status s = CheckFamilyName("Put", v.family); !s.ok()) return s;
    if (v.timestamp && *v.timestamp < 0) {
      return absl::InvalidArgumentError("Put has a negative timestamp");
    }
    t2::TColumnValue cv;
    cv.family = v.family;
    cv.qualifier = v.qualifier;
    cv.value = v.value;
    if (v.timestamp) cv.__set_timestamp(*v.timestamp);
    out.columnValues.push_back(std::move(cv));
  }
  SetTtl(put.ttl_ms, &out);
  Durability d = Resolve(put.durability, fallback);
  if (d != Durability::kUseDefault) out.__set_durability(ToThrift(d));
  return out;
}

absl::StatusOr<std::vector<t2::TDelete>> ToThrift(const Delete& del, Durability fallback) {
  if (absl::Status s = CheckRow("Delete", del.row); !s.ok()) return s;
  Durability d = Resolve(del.durability, fallback);
  auto base = [&] {
    t2::TDelete out;
    out.row = del.row;
    if (d != Durability::kUseDefault) out.__set_durability(ToThrift(d));
    return out;
  };
  std::vector<t2::TDelete> out;
  if (del.targets.empty()) {
    t2::TDelete whole = base();
    if (del.timestamp) {
      if (*del.timestamp < 0) return absl::InvalidArgumentError("Delete has a negative timestamp");
      whole.__set_timestamp(*del.timestamp);
    }
    out.push_back(std::move(whole));
    return out;
  }
  for (const DeleteTarget& t : del.targets) {
    if (absl::Status s = CheckFamilyName("Delete", t.family); !s.ok()) return s;
    bool column_kind = t.kind == DeleteKind::kColumnAll || t.kind == DeleteKind::kColumnVersion;
    if (column_kind && !t.qualifier) {
      return absl::InvalidArgumentError(
          absl::StrCat("column delete of family '", t.family, "' needs a qualifier"));
    }
    if (t.kind == DeleteKind::kFamilyVersion && !t.timestamp) {
      return absl::InvalidArgumentError(
          absl::StrCat("family-version delete of family '", t.family, "' needs a timestamp"));
    }
    if (t.timestamp && *t.timestamp < 0) {
      return absl::InvalidArgumentError("Delete has a negative timestamp");
    }
    t2::TDeleteType::type type = ToThrift(t.kind);
    auto same_type = [type](const t2::TDelete& x) { return x.deleteType == type; };
    auto it = std::find_if(out.begin(), out.end(), same_type);
    if (it == out.end()) {
      t2::TDelete fresh = base();
      fresh.__set_deleteType(type);
      fresh.__isset.columns = true;
      out.push_back(std::move(fresh));
      it = out.end() - 1;
    }
    t2::TColumn col;
    col.family = t.family;
    if (column_kind) col.__set_qualifier(*t.qualifier);
    if (t.timestamp) col.__set_timestamp(*t.timestamp);
    it->columns.push_back(std::move(col));
  }
  return out;
}

absl::StatusOr<t2::TIncrement> ToThrift(const Increment& increment, Durability fallback) {
  if (absl::Status s = CheckRow("Increment", increment.row); !s.ok()) return s;
  if (increment.columns.empty()) return absl::InvalidArgumentError("Increment has no columns");
  if (absl::Status s = CheckTtl("Increment", increment.ttl_ms); !s.ok()) return s;
  t2::TIncrement out;
  out.row = increment.row;
  out.columns.reserve(increment.columns.size());
  for (const IncrementColumn& c : increment.columns) {
    if (absl::Status s = CheckFamilyName("Increment", c.family); !s.ok()) return s;
    t2::TColumnIncrement col;
    col.family = c.family;
    col.qualifier = c.qualifier;
    col.__set_amount(c.amount);
    out.columns.push_back(std::move(col));
  }
  SetTtl(increment.ttl_ms, &out);
  Durability d = Resolve(increment.durability, fallback);
  if (d != Durability::kUseDefault) out.__set_durability(ToThrift(d));
  out.__set_returnResults(true);
  return out;
}

absl::StatusOr<t2::TRowMutations> ToRowMutations(std::string_view row, std::span<const Put> puts,
                                                 std::span<const Delete> deletes,
                                                 Durability fallback) {
  if (absl::Status s = CheckRow("row mutation", row); !s.ok()) return s;
  t2::TRowMutations out;
  out.row = std::string(row);
  for (const Put& p : puts) {
    if (p.row != row)
      return absl::InvalidArgumentError("a row mutation carries a Put for another row");
    absl::StatusOr<t2::TPut> put = ToThrift(p, fallback);
    if (!put.ok()) return put.status();
    t2::TMutation m;
    m.__set_put(*std::move(put));
    out.mutations.push_back(std::move(m));
  }
  for (const Delete& d : deletes) {
    if (d.row != row) {
      return absl::InvalidArgumentError("a row mutation carries a Delete for another row");
    }
    absl::StatusOr<std::vector<t2::TDelete>> parts = ToThrift(d, fallback);
    if (!parts.ok()) return parts.status();
    for (t2::TDelete& part : *parts) {
      t2::TMutation m;
      m.__set_deleteSingle(std::move(part));
      out.mutations.push_back(std::move(m));
    }
  }
  if (out.mutations.empty()) return absl::InvalidArgumentError("a row mutation has no mutations");
  return out;
}

absl::StatusOr<CheckAndMutateRequest> ToThrift(const CheckAndMutate& cam, Durability fallback) {
  if (absl::Status s = CheckRow("CheckAndMutate", cam.row); !s.ok()) return s;
  if (absl::Status s = CheckFamilyName("CheckAndMutate", cam.family); !s.ok()) return s;
  if (cam.puts.empty() && cam.deletes.empty()) {
    return absl::InvalidArgumentError("CheckAndMutate has no mutations");
  }
  CheckAndMutateRequest out;
  absl::StatusOr<t2::TRowMutations> mutations =
      ToRowMutations(cam.row, cam.puts, cam.deletes, fallback);
  if (!mutations.ok()) return mutations.status();
  out.mutations = *std::move(mutations);
  if (cam.value) {
    out.op = ToThrift(cam.op);
    out.value = *cam.value;
  } else {
    // An unset value checks for absence whatever the operator; HBase does
    // that for EQUAL with an empty value.
    out.op = t2::TCompareOperator::EQUAL;
  }
  return out;
}

absl::StatusOr<ScanPlan> PlanScan(const Scan& scan, bool collecting) {
  if (scan.limit < 0) {
    return absl::InvalidArgumentError(absl::StrCat("Scan: limit must be >= 0, got ", scan.limit));
  }
  if (scan.caching < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Scan: caching must be >= 0, got ", scan.caching));
  }
  if (scan.max_versions < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Scan: max_versions must be >= 1, got ", scan.max_versions));
  }
  if (absl::Status s = CheckTimeRange("Scan", scan.time_range); !s.ok()) return s;
  for (const RowRange& r : scan.ranges) {
    if (!r.stop.empty() && r.stop < r.start) {
      return absl::InvalidArgumentError("Scan has a row range whose stop is before its start");
    }
  }
  if (collecting && scan.limit == 0) {
    bool bounded;
    if (scan.prefix) {
      bounded = true;
    } else if (!scan.ranges.empty()) {
      bounded = std::all_of(scan.ranges.begin(), scan.ranges.end(),
                            [](const RowRange& r) { return !r.stop.empty(); });
    } else {
      bounded = !scan.stop_row.empty();
    }
    if (!bounded) return absl::InvalidArgumentError("Scan has neither a limit nor a stop row");
  }

  ScanPlan plan;
  plan.limit = scan.limit;
  t2::TScan& out = plan.scan;
  // Key bounds, the way the embedded engine reads them: a prefix overrides
  // ranges, ranges override start/stop rows.
  if (scan.prefix) {
    std::string successor = PrefixSuccessor(*scan.prefix);
    if (!scan.reversed) {
      if (!scan.prefix->empty()) out.__set_startRow(*scan.prefix);
      if (!successor.empty()) out.__set_stopRow(successor);
    } else {
      // A reversed scan starts at its (inclusive) start row and walks down,
      // so it starts at the successor and a range filter drops that row.
      if (!successor.empty()) out.__set_startRow(successor);
      RowRange only{*scan.prefix, true, successor, false};
      out.__set_filterBytes(EncodeMultiRowRangeFilter({&only, 1}));
    }
  } else if (!scan.ranges.empty()) {
    std::vector<RowRange> ranges = RangesThatCanHoldRows(scan.ranges);
    if (ranges.empty()) {
      plan.matches_nothing = true;
      return plan;
    }
    out.__set_filterBytes(EncodeMultiRowRangeFilter(ranges));
  } else {
    if (!scan.start_row.empty()) out.__set_startRow(scan.start_row);
    if (!scan.stop_row.empty()) out.__set_stopRow(scan.stop_row);
  }
  if (!scan.columns.empty()) {
    absl::StatusOr<std::vector<t2::TColumn>> columns = ToThrift("Scan", scan.columns);
    if (!columns.ok()) return columns.status();
    out.__set_columns(*std::move(columns));
  }
  if (!IsDefault(scan.time_range)) out.__set_timeRange(ToThrift(scan.time_range));
  out.__set_maxVersions(scan.max_versions);
  int caching = scan.caching;
  if (scan.limit > 0 && (caching == 0 || caching > scan.limit)) caching = scan.limit;
  if (caching > 0) out.__set_caching(caching);
  if (scan.limit > 0) out.__set_limit(scan.limit);
  if (scan.reversed) out.__set_reversed(true);
  out.__set_consistency(scan.consistency == Consistency::kTimeline ? t2::TConsistency::TIMELINE
                                                                   : t2::TConsistency::STRONG);
  return plan;
}

RowResult FromThrift(t2::TResult&& result, std::string_view requested_row) {
  RowResult out;
  out.row = result.__isset.row ? std::move(result.row) : std::string(requested_row);
  out.stale = result.stale;
  out.cells.reserve(result.columnValues.size());
  for (t2::TColumnValue& cv : result.columnValues) {
    Cell c;
    c.family = std::move(cv.family);
    c.qualifier = std::move(cv.qualifier);
    c.timestamp = cv.timestamp;
    c.value = std::move(cv.value);
    out.cells.push_back(std::move(c));
  }
  return out;
}

absl::StatusOr<t2::TTableDescriptor> ToThrift(const TableSchema& schema) {
  if (absl::Status s = ValidateSchema(schema); !s.ok()) return s;
  t2::TTableDescriptor out;
  out.tableName = ToThriftTableName(schema.name);
  out.__isset.columns = true;
  for (const FamilyOptions& f : schema.families) {
    const std::string where = absl::StrCat("table '", schema.name, "' family '", f.name, "'");
    t2::TColumnFamilyDescriptor cf;
    cf.name = f.name;
    cf.__set_maxVersions(f.max_versions);
    cf.__set_minVersions(f.min_versions);
    if (f.ttl_seconds != kForever) {
      if (f.ttl_seconds >= kHBaseForever) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": ttl_seconds must be < ", kHBaseForever, " for HBase"));
      }
      cf.__set_timeToLive(static_cast<int32_t>(f.ttl_seconds));
    }
    cf.__set_inMemory(f.in_memory);
    cf.__set_bloomnFilterType(ToThrift(f.bloom));
    cf.__set_compressionType(ToThrift(f.compression));
    std::map<std::string, std::string> configuration = f.configuration;
    if (f.fifo_compaction) {
      configuration[kCompactionPolicyKey] = kFifoCompactionPolicy;
      configuration.emplace(kBlockingStoreFilesKey, kFifoBlockingStoreFiles);
    }
    if (!configuration.empty()) cf.__set_configuration(std::move(configuration));
    out.columns.push_back(std::move(cf));
  }
  if (schema.region_replication > 1) {
    out.attributes[kRegionReplicationKey] = absl::StrCat(schema.region_replication);
    out.__isset.attributes = true;
  }
  return out;
}

TableSchema FromThrift(const t2::TTableDescriptor& descriptor) {
  TableSchema out;
  const t2::TTableName& name = descriptor.tableName;
  out.name = (name.__isset.ns && !name.ns.empty() && name.ns != "default")
                 ? absl::StrCat(name.ns, ":", name.qualifier)
                 : name.qualifier;
  for (const t2::TColumnFamilyDescriptor& cf : descriptor.columns) {
    FamilyOptions f;
    f.name = cf.name;
    if (cf.__isset.maxVersions) f.max_versions = cf.maxVersions;
    if (cf.__isset.minVersions) f.min_versions = cf.minVersions;
    if (cf.__isset.timeToLive && cf.timeToLive != kHBaseForever) f.ttl_seconds = cf.timeToLive;
    if (cf.__isset.inMemory) f.in_memory = cf.inMemory;
    if (cf.__isset.bloomnFilterType) f.bloom = BloomFromThrift(cf.bloomnFilterType);
    if (cf.__isset.compressionType) f.compression = CompressionFromThrift(cf.compressionType);
    f.configuration = cf.configuration;
    auto policy = f.configuration.find(kCompactionPolicyKey);
    f.fifo_compaction = policy != f.configuration.end() && policy->second == kFifoCompactionPolicy;
    out.families.push_back(std::move(f));
  }
  auto replication = descriptor.attributes.find(kRegionReplicationKey);
  int replicas = 1;
  if (replication != descriptor.attributes.end() &&
      absl::SimpleAtoi(replication->second, &replicas)) {
    out.region_replication = replicas;
  }
  return out;
}

bool SameDefinition(const TableSchema& wanted, const TableSchema& existing) {
  if (wanted.name != existing.name || wanted.region_replication != existing.region_replication ||
      wanted.families.size() != existing.families.size()) {
    return false;
  }
  for (const FamilyOptions& w : wanted.families) {
    const FamilyOptions* e = existing.Family(w.name);
    if (e == nullptr) return false;
    if (w.max_versions != e->max_versions || w.min_versions != e->min_versions ||
        w.ttl_seconds != e->ttl_seconds || w.in_memory != e->in_memory || w.bloom != e->bloom ||
        w.compression != e->compression || w.fifo_compaction != e->fifo_compaction) {
      return false;
    }
    for (const auto& [key, value] : w.configuration) {
      auto it = e->configuration.find(key);
      if (it == e->configuration.end() || it->second != value) return false;
    }
  }
  return true;
}

}  // namespace rtb::storage::hbase
