#include "storage/internal/cell_key.h"

#include <algorithm>
#include <random>
#include <tuple>

#include "gtest/gtest.h"

namespace rtb::storage::internal {
namespace {

TEST(CellKeyTest, RoundTripsRowsAndQualifiersWithZeroBytes) {
  const std::string row("a\0b\0\0", 5);
  const std::string qualifier("\0q\xff", 3);
  std::string key = EncodeKey(row, qualifier, 1791072000123, CellType::kDeleteColumn);
  DecodedKey d;
  ASSERT_TRUE(DecodeKey(key, &d));
  EXPECT_EQ(d.row, row);
  EXPECT_EQ(d.qualifier, qualifier);
  EXPECT_EQ(d.timestamp, 1791072000123);
  EXPECT_EQ(d.type, CellType::kDeleteColumn);
  EXPECT_EQ(RowPrefixLength(key), RowPrefix(row).size());
}

TEST(CellKeyTest, MalformedKeysAreRejected) {
  DecodedKey d;
  EXPECT_FALSE(DecodeKey("", &d));
  EXPECT_FALSE(DecodeKey(std::string("a\0\x05", 3), &d));
  std::string key = EncodeKey("r", "q", 5, CellType::kPut);
  EXPECT_FALSE(DecodeKey(key.substr(0, key.size() - 1), &d));
  key.back() = 0;  // not a known type code
  EXPECT_FALSE(DecodeKey(key, &d));
}

// Byte order of encoded keys must equal HBase's cell order: row, qualifier
// ascending as unsigned bytes; timestamp descending; markers before puts.
TEST(CellKeyTest, KeyOrderEqualsHBaseCellOrder) {
  std::mt19937 rng(42);
  auto random_bytes = [&](int max_len) {
    std::string s(rng() % (max_len + 1), '\0');
    for (char& c : s)
      c = static_cast<char>(
          "\x00\x01\x02\xfe\xff"
          "ab"[rng() % 7]);
    return s;
  };
  const CellType types[] = {CellType::kPut, CellType::kDeleteVersion,
                            CellType::kDeleteFamilyVersion, CellType::kDeleteColumn,
                            CellType::kDeleteFamily};
  struct Cell {
    std::string row, qualifier;
    int64_t ts;
    CellType type;
  };
  std::vector<Cell> cells;
  for (int i = 0; i < 2000; ++i) {
    cells.push_back(
        {random_bytes(4), random_bytes(3), static_cast<int64_t>(rng() % 4), types[rng() % 5]});
  }
  auto hbase_less = [](const Cell& a, const Cell& b) {
    auto ua = [](const std::string& s) {
      return std::basic_string<unsigned char>(s.begin(), s.end());
    };
    if (a.row != b.row) return ua(a.row) < ua(b.row);
    if (a.qualifier != b.qualifier) return ua(a.qualifier) < ua(b.qualifier);
    if (a.ts != b.ts) return a.ts > b.ts;
    return static_cast<int>(a.type) > static_cast<int>(b.type);
  };
  for (size_t i = 0; i + 1 < cells.size(); ++i) {
    const Cell& a = cells[i];
    const Cell& b = cells[i + 1];
    std::string ka = EncodeKey(a.row, a.qualifier, a.ts, a.type);
    std::string kb = EncodeKey(b.row, b.qualifier, b.ts, b.type);
    auto unsigned_less = [](const std::string& x, const std::string& y) {
      return std::lexicographical_compare(
          x.begin(), x.end(), y.begin(), y.end(), [](char p, char q) {
            return static_cast<unsigned char>(p) < static_cast<unsigned char>(q);
          });
    };
    EXPECT_EQ(unsigned_less(ka, kb), hbase_less(a, b)) << "pair " << i;
    EXPECT_EQ(unsigned_less(kb, ka), hbase_less(b, a)) << "pair " << i;
  }
}

TEST(CellKeyTest, ValueCarriesCellTtl) {
  DecodedValue v;
  const std::string with_ttl = EncodeValue("payload", 172800000);
  ASSERT_TRUE(DecodeValue(with_ttl, &v));
  EXPECT_EQ(v.value, "payload");
  ASSERT_TRUE(v.ttl_ms.has_value());
  EXPECT_EQ(*v.ttl_ms, 172800000);
  const std::string without_ttl = EncodeValue("", std::nullopt);
  ASSERT_TRUE(DecodeValue(without_ttl, &v));
  EXPECT_EQ(v.value, "");
  EXPECT_FALSE(v.ttl_ms.has_value());
  EXPECT_FALSE(DecodeValue("", &v));
  EXPECT_FALSE(DecodeValue("\x07xyz", &v));
}

}  // namespace
}  // namespace rtb::storage::internal
