// Byte layout of one HBase cell in the embedded engine's RocksDB keys.
//
// Each (table, family) is one RocksDB column family, so the family is not in
// the key. A key is
//
//   +-------------------+-------+-------------------------+-------+--------------+------+
//   | escape(row)       | 00 01 | escape(qualifier)       | 00 01 | ~timestamp   | type |
//   +-------------------+-------+-------------------------+-------+--------------+------+
//                                                                   8 bytes BE     1 byte
//
// escape() writes 0x00 as 0x00 0xFF, so the 00 01 terminator sorts before any
// continuation and bytewise key order equals HBase's cell order: row
// ascending (a row sorts before its extensions), qualifier ascending (the
// empty qualifier of family markers first), timestamp descending (~ts), and at
// equal timestamps delete markers before puts (type = 0xFF - HBase type code:
// DeleteFamily 14, DeleteColumn 12, DeleteFamilyVersion 10, Delete 8, Put 4).
//
// A value is
//
//   +-------+----------------------+-------------+
//   | flags | cell TTL ms (8, BE)  | user value  |
//   +-------+----------------------+-------------+
//             only when flags & 1
#ifndef RTB_STORAGE_INTERNAL_CELL_KEY_H_
#define RTB_STORAGE_INTERNAL_CELL_KEY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rtb::storage::internal {

enum class CellType : uint8_t {
  kPut = 4,
  kDeleteVersion = 8,
  kDeleteFamilyVersion = 10,
  kDeleteColumn = 12,
  kDeleteFamily = 14,
};

struct DecodedKey {
  std::string row;
  std::string qualifier;
  int64_t timestamp = 0;
  CellType type = CellType::kPut;
};

struct DecodedValue {
  std::optional<int64_t> ttl_ms;
  std::string_view value;
};

// Appends escape(row) + terminator: the prefix shared by every key of a row.
void AppendRowPrefix(std::string_view row, std::string* out);
std::string RowPrefix(std::string_view row);
// Appends row prefix + escape(qualifier) + terminator.
std::string ColumnPrefix(std::string_view row, std::string_view qualifier);

std::string EncodeKey(std::string_view row, std::string_view qualifier, int64_t timestamp,
                      CellType type);
// False when `key` is not a well-formed cell key.
bool DecodeKey(std::string_view key, DecodedKey* out);
// The parts of a cell key after a row prefix of known length, without
// copying: `qualifier` points into `key`, or into `scratch` when the
// qualifier held escaped zero bytes. False when malformed.
struct CellSuffix {
  std::string_view qualifier;
  int64_t timestamp = 0;
  CellType type = CellType::kPut;
};
bool ParseCellSuffix(std::string_view key, size_t row_prefix_length, std::string* scratch,
                     CellSuffix* out);

// Length of the row prefix of `key` (escaped row and its terminator), or 0
// when malformed. Used by the row bloom filter's prefix extractor.
size_t RowPrefixLength(std::string_view key);
// Length of row prefix + escaped qualifier + terminator, or 0 when malformed.
size_t ColumnPrefixLength(std::string_view key);

std::string EncodeValue(std::string_view value, std::optional<int64_t> ttl_ms);
bool DecodeValue(std::string_view encoded, DecodedValue* out);

inline bool IsDeleteMarker(CellType type) { return type != CellType::kPut; }

}  // namespace rtb::storage::internal

#endif  // RTB_STORAGE_INTERNAL_CELL_KEY_H_
