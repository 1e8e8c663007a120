#include "storage/internal/validation.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace rtb::storage::internal {
namespace {

// HBase allows word characters, '-' and '.' in table and family names.
bool IsValidName(std::string_view name) {
  if (name.empty() || name.size() > 128 || name[0] == '.' || name[0] == '-') return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// A table name is "qualifier" (the default namespace) or "namespace:qualifier".
bool IsValidTableName(std::string_view name) {
  const size_t colon = name.find(':');
  if (colon == std::string_view::npos) return IsValidName(name);
  return IsValidName(name.substr(0, colon)) && IsValidName(name.substr(colon + 1));
}

absl::Status CheckRow(const TableSchema& table, const char* what, std::string_view row) {
  if (row.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " on table '", table.name, "' has an empty row key"));
  }
  if (row.size() > 32767) {
    return absl::InvalidArgumentError(absl::StrCat(what, " on table '", table.name,
                                                   "' has a row key of ", row.size(),
                                                   " bytes; the limit is 32767"));
  }
  return absl::OkStatus();
}

absl::Status CheckFamily(const TableSchema& table, const std::string& family) {
  if (table.Family(family) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("table '", table.name, "' has no family '", family, "'"));
  }
  return absl::OkStatus();
}

absl::Status CheckColumns(const TableSchema& table, const std::vector<Column>& columns) {
  for (const Column& c : columns) {
    if (absl::Status s = CheckFamily(table, c.family); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CheckTimeRange(const TableSchema& table, const TimeRange& range) {
  if (range.min < 0 || range.max < range.min) {
    return absl::InvalidArgumentError(absl::StrCat("time range [", range.min, ", ", range.max,
                                                   ") on table '", table.name,
                                                   "' is not a valid range"));
  }
  return absl::OkStatus();
}

absl::Status CheckTtl(const TableSchema& table, const std::optional<int64_t>& ttl_ms) {
  if (ttl_ms && *ttl_ms <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cell TTL on table '", table.name, "' must be > 0 ms, got ", *ttl_ms));
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace rtb::storage::internal

namespace rtb::storage {

absl::Status ValidateSchema(const TableSchema& schema) {
  using internal::IsValidName;
  using internal::IsValidTableName;
  if (!IsValidTableName(schema.name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "table name '", schema.name,
        "' must be 1-128 of [A-Za-z0-9_.-], not starting with . or -, after an optional "
        "namespace of the same and ':'"));
  }
  if (schema.families.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("table '", schema.name, "' needs at least one family"));
  }
  if (schema.region_replication < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("table '", schema.name, "' region_replication must be >= 1"));
  }
  absl::flat_hash_set<std::string> seen;
  for (const FamilyOptions& f : schema.families) {
    const std::string where = absl::StrCat("table '", schema.name, "' family '", f.name, "'");
    if (!IsValidName(f.name) || f.name.find(':') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": name must be [A-Za-z0-9_.-]"));
    }
    if (!seen.insert(f.name).second) {
      return absl::InvalidArgumentError(absl::StrCat(where, " is defined twice"));
    }
    if (f.max_versions < 1) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": max_versions must be >= 1"));
    }
    if (f.min_versions < 0 || f.min_versions > f.max_versions) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": min_versions must be in [0, max_versions]"));
    }
    if (f.ttl_seconds < 0) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ttl_seconds must be >= 0"));
    }
    if (f.fifo_compaction && (f.ttl_seconds == kForever || f.min_versions != 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": FIFO compaction needs a TTL and min_versions 0"));
    }
  }
  for (size_t i = 1; i < schema.split_keys.size(); ++i) {
    if (!(schema.split_keys[i - 1] < schema.split_keys[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("table '", schema.name, "' split keys must be strictly ascending"));
    }
  }
  return absl::OkStatus();
}

}  // namespace rtb::storage

namespace rtb::storage::internal {

absl::Status ValidateGet(const TableSchema& table, const Get& get) {
  if (absl::Status s = CheckRow(table, "Get", get.row); !s.ok()) return s;
  if (get.max_versions < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Get on table '", table.name, "': max_versions must be >= 1, got ", get.max_versions));
  }
  if (absl::Status s = CheckTimeRange(table, get.time_range); !s.ok()) return s;
  return CheckColumns(table, get.columns);
}

absl::Status ValidatePut(const TableSchema& table, const Put& put) {
  if (absl::Status s = CheckRow(table, "Put", put.row); !s.ok()) return s;
  if (put.values.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Put on table '", table.name, "' has no values"));
  }
  for (const PutValue& v : put.values) {
    if (absl::Status s = CheckFamily(table, v.family); !s.ok()) return s;
    if (v.timestamp && *v.timestamp < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Put on table '", table.name, "' has a negative timestamp"));
    }
  }
  return CheckTtl(table, put.ttl_ms);
}

absl::Status ValidateDelete(const TableSchema& table, const Delete& del) {
  if (absl::Status s = CheckRow(table, "Delete", del.row); !s.ok()) return s;
  for (const DeleteTarget& t : del.targets) {
    if (absl::Status s = CheckFamily(table, t.family); !s.ok()) return s;
    bool column_kind = t.kind == DeleteKind::kColumnAll || t.kind == DeleteKind::kColumnVersion;
    if (column_kind && !t.qualifier) {
      return absl::InvalidArgumentError(absl::StrCat(
          "column delete on table '", table.name, "' family '", t.family, "' needs a qualifier"));
    }
    if (t.kind == DeleteKind::kFamilyVersion && !t.timestamp) {
      return absl::InvalidArgumentError(
          absl::StrCat("family-version delete on table '", table.name, "' needs a timestamp"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateIncrement(const TableSchema& table, const Increment& increment) {
  if (absl::Status s = CheckRow(table, "Increment", increment.row); !s.ok()) return s;
  if (increment.columns.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Increment on table '", table.name, "' has no columns"));
  }
  for (const IncrementColumn& c : increment.columns) {
    if (absl::Status s = CheckFamily(table, c.family); !s.ok()) return s;
  }
  return CheckTtl(table, increment.ttl_ms);
}

absl::Status ValidateCheckAndMutate(const TableSchema& table, const CheckAndMutate& cam) {
  if (absl::Status s = CheckRow(table, "CheckAndMutate", cam.row); !s.ok()) return s;
  if (absl::Status s = CheckFamily(table, cam.family); !s.ok()) return s;
  if (cam.puts.empty() && cam.deletes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("CheckAndMutate on table '", table.name, "' has no mutations"));
  }
  for (const Put& p : cam.puts) {
    if (p.row != cam.row) {
      return absl::InvalidArgumentError(
          absl::StrCat("CheckAndMutate on table '", table.name, "' carries a Put for another row"));
    }
    if (absl::Status s = ValidatePut(table, p); !s.ok()) return s;
  }
  for (const Delete& d : cam.deletes) {
    if (d.row != cam.row) {
      return absl::InvalidArgumentError(absl::StrCat("CheckAndMutate on table '", table.name,
                                                     "' carries a Delete for another row"));
    }
    if (absl::Status s = ValidateDelete(table, d); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ValidateScan(const TableSchema& table, const Scan& scan, bool collecting) {
  if (scan.limit < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Scan on table '", table.name, "': limit must be >= 0, got ", scan.limit));
  }
  if (scan.caching < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Scan on table '", table.name, "': caching must be >= 0, got ", scan.caching));
  }
  if (scan.max_versions < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Scan on table '", table.name, "': max_versions must be >= 1, got ", scan.max_versions));
  }
  if (absl::Status s = CheckTimeRange(table, scan.time_range); !s.ok()) return s;
  if (absl::Status s = CheckColumns(table, scan.columns); !s.ok()) return s;
  for (const RowRange& r : scan.ranges) {
    if (!r.stop.empty() && r.stop < r.start) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Scan on table '", table.name, "' has a row range whose stop is before its start"));
    }
  }
  if (collecting && scan.limit == 0) {
    bool bounded;
    if (scan.prefix) {
      bounded = true;
    } else if (!scan.ranges.empty()) {
      bounded = true;
      for (const RowRange& r : scan.ranges) bounded = bounded && !r.stop.empty();
    } else {
      bounded = !scan.stop_row.empty();
    }
    if (!bounded) {
      return absl::InvalidArgumentError(
          absl::StrCat("Scan on table '", table.name, "' has neither a limit nor a stop row"));
    }
  }
  return absl::OkStatus();
}

}  // namespace rtb::storage::internal
