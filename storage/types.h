// The HBase data model as plain values: schemas, cells, results and the
// operations a Store accepts. Everything here is independent of the backend
// (embedded RocksDB engine, HBase through Thrift2, or the storage server).
//
// Ordering is HBase's: rows, families and qualifiers compare as unsigned
// bytes; versions of one column are newest first. Timestamps are milliseconds
// since the Unix epoch. Family TTLs are seconds, cell TTLs are milliseconds,
// exactly as in HBase, because mixing the two is a classic bug and the names
// below carry the unit.
//
// Thread-safety: these are values; share them as you would a std::string.
#ifndef RTB_STORAGE_TYPES_H_
#define RTB_STORAGE_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"

namespace rtb::storage {

inline constexpr int64_t kLatestTimestamp = std::numeric_limits<int64_t>::max();
// A family TTL of zero means cells never expire (HBase's FOREVER).
inline constexpr int64_t kForever = 0;

enum class BloomType { kNone, kRow, kRowCol };
enum class Compression { kNone, kSnappy, kLz4, kZstd };

struct FamilyOptions {
  std::string name;
  // Versions kept per column; older ones vanish for readers and on compaction.
  int max_versions = 1;
  // Versions kept even after TTL expiry (HBase MIN_VERSIONS). Default 0.
  int min_versions = 0;
  // Seconds since the cell timestamp after which a cell expires. 0 = forever.
  int64_t ttl_seconds = kForever;
  // Cache blocks in the reserved high-priority pool (HBase IN_MEMORY).
  bool in_memory = false;
  BloomType bloom = BloomType::kRow;
  Compression compression = Compression::kNone;
  // Drop whole expired files, never rewrite (HBase FIFOCompactionPolicy).
  // Requires a TTL and min_versions == 0.
  bool fifo_compaction = false;
  // Extra per-family settings passed verbatim to HBase (CONFIGURATION => {...}).
  std::map<std::string, std::string> configuration;
  // HBase column family descriptor values the engine keeps and reports back
  // but does not act on (BLOCKSIZE, DATA_BLOCK_ENCODING, REPLICATION_SCOPE,
  // ...), by HBase's key. Empty for the bidder's own tables.
  std::map<std::string, std::string> descriptor_values;

  bool operator==(const FamilyOptions&) const = default;
};

struct TableSchema {
  std::string name;
  std::vector<FamilyOptions> families;
  // Region boundaries, used by HBase; the embedded engine records them only.
  std::vector<std::string> split_keys;
  // HBase REGION_REPLICATION; secondaries serve TIMELINE reads.
  int region_replication = 1;
  // HBase table descriptor values kept and reported back but not acted on
  // (MAX_FILESIZE, coprocessors, ...), by HBase's key.
  std::map<std::string, std::string> descriptor_values;

  const FamilyOptions* Family(std::string_view family) const;
  bool operator==(const TableSchema&) const = default;
};

// Whether every backend can create `schema`: table and family names HBase
// accepts, at least one family and each once, versions, TTLs, FIFO
// compaction with a TTL, split keys strictly ascending. InvalidArgument
// saying what is wrong. Stores check it when a table is created; the storage
// server also checks names it builds itself.
absl::Status ValidateSchema(const TableSchema& schema);

struct Cell {
  Cell() = default;
  // Builds the strings in place; reads construct many cells per row.
  Cell(std::string_view family, std::string_view qualifier, int64_t timestamp,
       std::string_view value)
      : family(family), qualifier(qualifier), timestamp(timestamp), value(value) {}

  std::string family;
  std::string qualifier;
  int64_t timestamp = 0;
  std::string value;

  bool operator==(const Cell&) const = default;
};

// A cell read in place: its bytes belong to the list or packed cells it came
// from, and live as long as they do.
struct CellView {
  std::string_view family;
  std::string_view qualifier;
  int64_t timestamp = 0;
  std::string_view value;
};

// Cells in one buffer, for a cache that holds many rows: a profile's short
// qualifiers and values take about a third of the memory of a vector of Cell,
// whose three strings are 96 bytes before their text. Immutable once built.
class CellList;

class PackedCells {
 public:
  class Builder;
  // `cells` packed in their order; nullopt past the Builder's limit.
  static std::optional<PackedCells> Of(const CellList& cells);

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  CellView operator[](size_t index) const;
  // The memory these cells hold, for a cache's accounting.
  size_t bytes() const;

 private:
  struct Entry {
    int64_t timestamp;
    uint32_t offset;  // of the qualifier in text_, the value right after it
    uint32_t qualifier_size;
    uint32_t value_size;
    uint32_t family;  // index in families_
  };
  // Rows hold one or two families (the profile's `seg` and `fc`).
  static constexpr size_t kInlineFamilies = 2;
  absl::InlinedVector<std::string, kInlineFamilies> families_;
  std::string text_;
  std::vector<Entry> entries_;
};

// Appends cells in the order they are read back. A row's texts are limited
// to 4 GiB together: Build() answers nullopt past that.
class PackedCells::Builder {
 public:
  void Add(const CellView& cell);
  std::optional<PackedCells> Build() &&;

 private:
  std::optional<PackedCells> cells_{std::in_place};
};

// A read-only sequence of cells that copies cheaply: it is a chain of
// immutable segments shared between copies, so a result answered from a
// cache hands out the cached cells without copying them. Appending writes to
// a segment only this list holds, never to one it shares.
//
// A segment may be packed cells (what the embedded store's row cache holds).
// view() and const_iterator::view() read them in place; operator[] and
// dereferencing an iterator, which answer a Cell, unpack such a segment the
// first time (once per list and its copies, safe from concurrent readers).
class CellList {
 public:
  class const_iterator;
  using iterator = const_iterator;
  using value_type = Cell;
  using size_type = size_t;

  CellList() = default;
  CellList(std::vector<Cell> cells);  // NOLINT: a vector is a one-segment list
  CellList(std::initializer_list<Cell> cells) : CellList(std::vector<Cell>(cells)) {}

  size_t size() const;
  bool empty() const { return size() == 0; }
  const Cell& operator[](size_t index) const;
  // Cell `index` without unpacking packed cells.
  CellView view(size_t index) const;
  const Cell& front() const { return (*this)[0]; }
  const Cell& back() const { return (*this)[size() - 1]; }
  const_iterator begin() const;
  const_iterator end() const;

  void push_back(Cell cell) { WritableTail().push_back(std::move(cell)); }
  template <typename... Args>
  Cell& emplace_back(Args&&... args) {
    return WritableTail().emplace_back(std::forward<Args>(args)...);
  }
  // Reserves room in the segment the next appends go to.
  void reserve(size_t cells) { WritableTail().reserve(cells); }
  // Appends the cells of `other` by sharing its segments; nothing is copied.
  void AppendShared(const CellList& other);
  // Appends `cells` by sharing them; nothing is copied.
  void AppendShared(std::shared_ptr<const PackedCells> cells);
  void clear();

  std::vector<Cell> ToVector() const;
  friend bool operator==(const CellList& a, const CellList& b);

 private:
  // Packed cells and, once something asked for them as Cell, those cells.
  struct Unpacked {
    explicit Unpacked(std::shared_ptr<const PackedCells> packed) : packed(std::move(packed)) {}
    const std::vector<Cell>& cells();

    const std::shared_ptr<const PackedCells> packed;

   private:
    absl::once_flag once_;
    std::vector<Cell> cells_;
  };
  struct Segment {
    // Exactly one of the two is set.
    std::shared_ptr<const std::vector<Cell>> cells;
    std::shared_ptr<Unpacked> packed;
    // Created by this list, so it may append while no copy shares it.
    bool owned = false;

    size_t size() const { return cells != nullptr ? cells->size() : packed->packed->size(); }
    const Cell& at(size_t offset) const {
      return cells != nullptr ? (*cells)[offset] : packed->cells()[offset];
    }
    CellView view(size_t offset) const;
  };
  std::vector<Cell>& WritableTail();

  // Two segments cover the common case: one per family read from a cache.
  absl::InlinedVector<Segment, 2> segments_;
};

// Random access across segments; cheap to step, O(segments) to jump.
class CellList::const_iterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = Cell;
  using difference_type = std::ptrdiff_t;
  using pointer = const Cell*;
  using reference = const Cell&;

  const_iterator() = default;
  reference operator*() const { return list_->segments_[segment_].at(offset_); }
  pointer operator->() const { return &**this; }
  // The cell without unpacking packed cells.
  CellView view() const { return list_->segments_[segment_].view(offset_); }
  reference operator[](difference_type n) const { return *(*this + n); }

  const_iterator& operator++() {
    ++index_;
    if (++offset_ == list_->segments_[segment_].size()) Seek(index_);
    return *this;
  }
  const_iterator operator++(int) {
    const_iterator before = *this;
    ++*this;
    return before;
  }
  const_iterator& operator--() {
    Seek(index_ - 1);
    return *this;
  }
  const_iterator operator--(int) {
    const_iterator before = *this;
    --*this;
    return before;
  }
  const_iterator& operator+=(difference_type n) {
    Seek(index_ + static_cast<size_t>(n));
    return *this;
  }
  const_iterator& operator-=(difference_type n) { return *this += -n; }
  friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
  friend const_iterator operator+(difference_type n, const_iterator it) { return it += n; }
  friend const_iterator operator-(const_iterator it, difference_type n) { return it -= n; }
  friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
    return static_cast<difference_type>(a.index_) - static_cast<difference_type>(b.index_);
  }
  friend bool operator==(const const_iterator& a, const const_iterator& b) {
    return a.index_ == b.index_;
  }
  friend auto operator<=>(const const_iterator& a, const const_iterator& b) {
    return a.index_ <=> b.index_;
  }

 private:
  friend class CellList;
  const_iterator(const CellList* list, size_t index) : list_(list) { Seek(index); }
  // Positions on cell `index`, skipping empty segments; past the end is end().
  void Seek(size_t index);

  const CellList* list_ = nullptr;
  size_t index_ = 0;    // position in the whole list
  size_t segment_ = 0;  // segment holding it
  size_t offset_ = 0;   // position in that segment
};

// The cells of one row, ordered by family, qualifier, then newest first.
struct RowResult {
  std::string row;
  CellList cells;
  // True when a secondary replica answered a TIMELINE read.
  bool stale = false;

  bool empty() const { return cells.empty(); }
  // Latest value of one column, or nullopt when absent.
  std::optional<std::string_view> Value(std::string_view family, std::string_view qualifier) const;
  // Latest value read as an 8-byte big-endian counter; nullopt when absent
  // or not 8 bytes wide.
  std::optional<int64_t> Counter(std::string_view family, std::string_view qualifier) const;
};

enum class Consistency { kStrong, kTimeline };

// HBase's durability levels. kSyncWal survives a process kill; kFsyncWal also
// survives a power loss; kAsyncWal may lose the last ~100 ms on a kill;
// kSkipWal loses everything not yet flushed.
enum class Durability { kUseDefault, kSkipWal, kAsyncWal, kSyncWal, kFsyncWal };

// A family, or one column of it when qualifier is set.
struct Column {
  std::string family;
  std::optional<std::string> qualifier;
};

// Half-open [min, max) on cell timestamps, as in HBase.
struct TimeRange {
  int64_t min = 0;
  int64_t max = kLatestTimestamp;
};

struct Get {
  std::string row;
  // Empty means every family of the table.
  std::vector<Column> columns;
  TimeRange time_range;
  int max_versions = 1;
  Consistency consistency = Consistency::kStrong;
};

struct PutValue {
  std::string family;
  std::string qualifier;
  std::string value;
  // Unset: the server assigns the write time (what TTLs should count from).
  std::optional<int64_t> timestamp;
};

struct Put {
  std::string row;
  std::vector<PutValue> values;
  // Per-mutation cell TTL in milliseconds; can shorten the family TTL only.
  std::optional<int64_t> ttl_ms;
  Durability durability = Durability::kUseDefault;
};

// HBase delete marker kinds.
enum class DeleteKind {
  kColumnVersion,  // one version of a column: exact timestamp, else the latest
  kColumnAll,      // every version of a column at or before the timestamp
  kFamily,         // every column of a family at or before the timestamp
  kFamilyVersion,  // every column of a family at exactly the timestamp
};

struct DeleteTarget {
  std::string family;
  std::optional<std::string> qualifier;  // required for the column kinds
  DeleteKind kind = DeleteKind::kColumnAll;
  std::optional<int64_t> timestamp;  // unset: now (or latest version)
};

struct Delete {
  std::string row;
  // Empty deletes the whole row: a family marker on every family.
  std::vector<DeleteTarget> targets;
  std::optional<int64_t> timestamp;  // for whole-row deletes
  Durability durability = Durability::kUseDefault;
};

struct IncrementColumn {
  std::string family;
  std::string qualifier;
  int64_t amount = 1;
};

struct Increment {
  std::string row;
  std::vector<IncrementColumn> columns;
  std::optional<int64_t> ttl_ms;
  Durability durability = Durability::kUseDefault;
  // Identifies one logical increment so a retry of it (same table, row and
  // nonce) is applied once and answers what the first attempt did. 0 means no
  // nonce. Nonces are remembered for kNonceRetentionMs; the embedded engine
  // keeps them on disk, written atomically with the increment, so they hold
  // across a crash and restart.
  uint64_t nonce = 0;
};

inline constexpr int64_t kNonceRetentionMs = 30 * 60 * 1000;

enum class CompareOp {
  kLess,
  kLessOrEqual,
  kEqual,
  kNotEqual,
  kGreaterOrEqual,
  kGreater,
};

// Atomic check-then-mutate on one row. The check reads as HBase's does,
// "`value` op stored": `kLess` succeeds when `value` is less than the latest
// stored value of (family, qualifier), compared as unsigned bytes. An unset
// or empty `value` is HBase's null check: it succeeds when the column is
// absent or holds an empty value, whatever the op, except that an empty
// (set) value with kNotEqual succeeds when the column holds a non-empty
// value. A non-empty value fails on an absent column, whatever the op.
struct CheckAndMutate {
  std::string row;
  std::string family;
  std::string qualifier;
  CompareOp op = CompareOp::kEqual;
  std::optional<std::string> value;
  std::vector<Put> puts;        // all for `row`
  std::vector<Delete> deletes;  // all for `row`
};

struct RowRange {
  std::string start;
  bool start_inclusive = true;
  std::string stop;  // empty: to the end of the table
  bool stop_inclusive = false;
};

struct Scan {
  std::string start_row;  // inclusive; empty: from the first row
  std::string stop_row;   // exclusive; empty: to the last row
  // Shorthand for [prefix, prefix+1). Overrides start_row/stop_row.
  std::optional<std::string> prefix;
  // When non-empty, only rows inside these ranges (HBase MultiRowRangeFilter).
  std::vector<RowRange> ranges;
  std::vector<Column> columns;
  TimeRange time_range;
  int max_versions = 1;
  // Maximum rows returned. Every scan needs a limit or a bounded range.
  int limit = 0;
  // Rows fetched per round trip by remote backends.
  int caching = 100;
  bool reversed = false;
  Consistency consistency = Consistency::kStrong;
};

// Rows returned by Store::Scan at most, whatever the limit.
inline constexpr int kMaxScanRows = 100000;

// The smallest key greater than every key starting with `prefix`, or "" when
// none exists (all 0xff).
std::string PrefixSuccessor(std::string_view prefix);

// 8-byte big-endian encoding used by Increment counters.
std::string EncodeCounter(int64_t value);
std::optional<int64_t> DecodeCounter(std::string_view bytes);

}  // namespace rtb::storage

#endif  // RTB_STORAGE_TYPES_H_
