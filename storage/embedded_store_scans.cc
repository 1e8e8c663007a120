// The embedded backend's scans: a scan becomes sorted, merged row intervals
// (a start and stop row, a prefix, or MultiRowRangeFilter-style ranges), read
// forward or backward by one cursor per selected family on one snapshot.
#include <algorithm>

#include "storage/internal/cell_key.h"
#include "storage/internal/embedded_store_impl.h"
#include "storage/internal/validation.h"

namespace rtb::storage::internal {
namespace {

// One family's iterator walking whole rows forward or backward.
class FamilyCursor {
 public:
  FamilyCursor(rocksdb::DB* db, const Selection::Entry& entry, const rocksdb::Snapshot* snapshot,
               TimeRange time_range, int max_versions, int64_t now_ms, rocksdb::ReadTier tier)
      : filter_(entry.family->options, &entry.qualifiers, time_range, max_versions, now_ms) {
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot;
    ro.total_order_seek = true;
    ro.read_tier = tier;
    it_.reset(db->NewIterator(ro, entry.family->handle));
  }

  // Positions at the first row at or after `row`.
  void SeekForward(std::string_view row) {
    it_->Seek(ToSlice(RowPrefix(row)));
    LoadRow();
  }
  // Positions at the last row before `row` (or at it, when inclusive); an
  // empty `row` with inclusive means the last row of the table.
  void SeekBackward(std::string_view row, bool inclusive, bool unbounded) {
    if (unbounded) {
      it_->SeekToLast();
    } else {
      it_->SeekForPrev(ToSlice(inclusive ? RowUpperBound(row) : RowPrefix(row)));
    }
    LoadRow();
  }

  bool valid() const { return valid_; }
  const std::string& row() const { return row_; }
  absl::Status status() const { return FromRocks(it_->status(), "scan"); }

  // Reads every cell of the current row into `out` (visible ones only) and
  // moves to the next row in the direction of travel.
  void ConsumeRow(bool reversed, CellList* out) {
    const std::string prefix = RowPrefix(row_);
    if (reversed) it_->Seek(ToSlice(prefix));
    ReadFamilyRow(it_.get(), prefix, filter_, out);
    if (reversed) {
      it_->SeekForPrev(ToSlice(prefix));
    }
    LoadRow();
  }

 private:
  void LoadRow() {
    valid_ = false;
    while (it_->Valid()) {
      if (DecodeKey(ToView(it_->key()), &key_)) {
        row_ = key_.row;
        valid_ = true;
        return;
      }
      it_->Next();
    }
  }

  VisibleCellFilter filter_;
  std::unique_ptr<rocksdb::Iterator> it_;
  DecodedKey key_;
  std::string row_;
  bool valid_ = false;
};

// Half-open or closed row intervals, normalised from a Scan.
struct Interval {
  std::string lower;  // empty + inclusive: from the first row
  bool lower_inclusive = true;
  std::optional<std::string> upper;  // unset: to the last row
  bool upper_inclusive = false;

  bool AboveLower(std::string_view row) const {
    return lower_inclusive ? row >= lower : row > lower;
  }
  bool BelowUpper(std::string_view row) const {
    if (!upper) return true;
    return upper_inclusive ? row <= *upper : row < *upper;
  }
};

// Sorted intervals with the overlapping and touching ones joined, so every
// row is read once (HBase's MultiRowRangeFilter merges its ranges too).
std::vector<Interval> MergeOverlapping(std::vector<Interval> sorted) {
  std::vector<Interval> out;
  for (Interval& next : sorted) {
    if (!out.empty()) {
      Interval& last = out.back();
      const bool joins =
          !last.upper || next.lower < *last.upper ||
          (next.lower == *last.upper && (last.upper_inclusive || next.lower_inclusive));
      if (joins) {
        if (next.lower == last.lower) last.lower_inclusive |= next.lower_inclusive;
        if (last.upper && (!next.upper || *next.upper > *last.upper)) {
          last.upper = next.upper;
          last.upper_inclusive = next.upper_inclusive;
        } else if (last.upper && next.upper && *next.upper == *last.upper) {
          last.upper_inclusive |= next.upper_inclusive;
        }
        continue;
      }
    }
    out.push_back(std::move(next));
  }
  return out;
}

std::vector<Interval> Intervals(const storage::Scan& scan) {
  std::vector<Interval> out;
  if (scan.prefix) {
    Interval i{*scan.prefix, true, std::nullopt, false};
    std::string succ = PrefixSuccessor(*scan.prefix);
    if (!succ.empty()) i.upper = succ;
    out.push_back(std::move(i));
    return out;
  }
  if (!scan.ranges.empty()) {
    for (const RowRange& r : scan.ranges) {
      Interval i{r.start, r.start_inclusive, std::nullopt, r.stop_inclusive};
      if (!r.stop.empty()) i.upper = r.stop;
      out.push_back(std::move(i));
    }
    std::sort(out.begin(), out.end(), [](const Interval& a, const Interval& b) {
      return a.lower != b.lower ? a.lower < b.lower : a.lower_inclusive > b.lower_inclusive;
    });
    return MergeOverlapping(std::move(out));
  }
  if (scan.reversed) {
    // HBase reversed scans start at start_row (inclusive) and walk down to
    // stop_row (exclusive).
    Interval i{scan.stop_row, false, std::nullopt, true};
    if (scan.stop_row.empty()) i.lower_inclusive = true;
    if (!scan.start_row.empty()) i.upper = scan.start_row;
    out.push_back(std::move(i));
    return out;
  }
  Interval i{scan.start_row, true, std::nullopt, false};
  if (!scan.stop_row.empty()) i.upper = scan.stop_row;
  out.push_back(std::move(i));
  return out;
}

class EmbeddedScanner : public Scanner {
 public:
  // With `tier` kBlockCacheTier, a row that needs a block from disk makes
  // Next fail (Incomplete).
  EmbeddedScanner(std::shared_ptr<const Table> table, storage::Scan scan, int64_t now_ms,
                  rocksdb::ReadTier tier = rocksdb::kReadAllTier)
      : table_(std::move(table)), scan_(std::move(scan)), intervals_(Intervals(scan_)) {
    snapshot_ = table_->db->GetSnapshot();
    selection_ = Select(*table_, scan_.columns);
    for (const Selection::Entry& e : selection_.entries) {
      cursors_.push_back(std::make_unique<FamilyCursor>(table_->db, e, snapshot_, scan_.time_range,
                                                        scan_.max_versions, now_ms, tier));
    }
    remaining_ = scan_.limit > 0 ? scan_.limit : -1;
    if (scan_.reversed) std::reverse(intervals_.begin(), intervals_.end());
  }
  ~EmbeddedScanner() override {
    cursors_.clear();
    table_->db->ReleaseSnapshot(snapshot_);
  }

  absl::StatusOr<std::vector<RowResult>> Next(int max_rows) override {
    std::vector<RowResult> out;
    while (static_cast<int>(out.size()) < max_rows && remaining_ != 0 &&
           interval_index_ < intervals_.size()) {
      const Interval& interval = intervals_[interval_index_];
      if (!positioned_) {
        Position(interval);
        positioned_ = true;
      }
      const std::string* next = NextRow();
      bool inside = next != nullptr &&
                    (scan_.reversed ? interval.AboveLower(*next) : interval.BelowUpper(*next));
      if (!inside) {
        ++interval_index_;
        positioned_ = false;
        continue;
      }
      RowResult row;
      row.row = *next;
      for (auto& c : cursors_) {
        if (c->valid() && c->row() == row.row) c->ConsumeRow(scan_.reversed, &row.cells);
      }
      bool wanted = scan_.reversed ? interval.BelowUpper(row.row) : interval.AboveLower(row.row);
      if (wanted && !row.cells.empty()) {
        out.push_back(std::move(row));
        if (remaining_ > 0) --remaining_;
      }
    }
    for (auto& c : cursors_) {
      if (absl::Status s = c->status(); !s.ok()) return s;
    }
    return out;
  }

 private:
  // Puts every cursor at the interval's first row in the direction of travel.
  void Position(const Interval& interval) {
    for (auto& c : cursors_) {
      if (scan_.reversed) {
        c->SeekBackward(interval.upper.value_or(""), interval.upper_inclusive,
                        !interval.upper.has_value());
      } else {
        c->SeekForward(interval.lower);
      }
    }
  }

  // The row the cursors reach next in the direction of travel; null at the end.
  const std::string* NextRow() const {
    const std::string* next = nullptr;
    for (const auto& c : cursors_) {
      if (!c->valid()) continue;
      if (next == nullptr || (scan_.reversed ? c->row() > *next : c->row() < *next)) {
        next = &c->row();
      }
    }
    return next;
  }

  std::shared_ptr<const Table> table_;
  storage::Scan scan_;
  std::vector<Interval> intervals_;
  const rocksdb::Snapshot* snapshot_ = nullptr;
  Selection selection_;
  std::vector<std::unique_ptr<FamilyCursor>> cursors_;
  size_t interval_index_ = 0;
  bool positioned_ = false;
  int remaining_ = -1;
};

}  // namespace

absl::StatusOr<std::vector<RowResult>> EmbeddedStoreImpl::Scan(std::string_view table_name,
                                                               const storage::Scan& scan) {
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok()) return table.status();
  if (absl::Status s = ValidateScan((*table)->schema, scan, true); !s.ok()) return s;
  EmbeddedScanner scanner(*table, scan, options_.clock->NowMillis());
  int max_rows = scan.limit > 0 ? std::min(scan.limit, kMaxScanRows) : kMaxScanRows;
  return scanner.Next(max_rows);
}

std::optional<std::vector<RowResult>> EmbeddedStoreImpl::TryScanWithoutIo(
    std::string_view table_name, const storage::Scan& scan) {
  if (scan.limit <= 0 || scan.limit > kMaxRowsScannedWithoutIo) return std::nullopt;
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok() || !ValidateScan((*table)->schema, scan, true).ok()) return std::nullopt;
  EmbeddedScanner scanner(*table, scan, options_.clock->NowMillis(), rocksdb::kBlockCacheTier);
  absl::StatusOr<std::vector<RowResult>> rows = scanner.Next(scan.limit);
  if (!rows.ok()) return std::nullopt;
  return *std::move(rows);
}

absl::StatusOr<std::unique_ptr<Scanner>> EmbeddedStoreImpl::OpenScanner(std::string_view table_name,
                                                                        const storage::Scan& scan) {
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok()) return table.status();
  if (absl::Status s = ValidateScan((*table)->schema, scan, false); !s.ok()) return s;
  return std::make_unique<EmbeddedScanner>(*table, scan, options_.clock->NowMillis());
}

}  // namespace rtb::storage::internal
