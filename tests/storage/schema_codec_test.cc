// The schema file's codec (storage/internal/schema_codec.h): what it writes
// reads back, and files of the first format, without descriptor values,
// still read.
#include "storage/internal/schema_codec.h"

#include <string>

#include "gtest/gtest.h"

namespace rtb::storage::internal {
namespace {

std::string Field(std::string_view bytes) {
  std::string out;
  const uint32_t n = static_cast<uint32_t>(bytes.size());
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(n >> shift));
  out.append(bytes);
  return out;
}

TEST(SchemaCodecTest, DescriptorValuesRoundTrip) {
  TableSchema t;
  t.name = "tenant:t";
  t.split_keys = {"m"};
  t.descriptor_values = {{"MAX_FILESIZE", "1024"}};
  FamilyOptions f;
  f.name = "f";
  f.max_versions = 3;
  f.configuration = {{"k", "v"}};
  f.descriptor_values = {{"BLOCKSIZE", "8192"}, {"DATA_BLOCK_ENCODING", "FAST_DIFF"}};
  t.families = {f};
  absl::StatusOr<std::vector<TableSchema>> back = DecodeSchemas(EncodeSchemas({t}));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ(back->front(), t);
}

TEST(SchemaCodecTest, FirstFormatFilesStillRead) {
  // One table "t" (replication 1, no split keys) with one family "f":
  // versions 2, min versions 0, TTL 60 s, not in memory, ROW bloom (1),
  // no compression (0), no FIFO, one configuration entry.
  std::string v1 = Field("rtb-schemas-1") + Field("1") + Field("t") + Field("1") + Field("0") +
                   Field("1") + Field("f") + Field("2") + Field("0") + Field("60") + Field("0") +
                   Field("1") + Field("0") + Field("0") + Field("1") + Field("k") + Field("v");
  absl::StatusOr<std::vector<TableSchema>> read = DecodeSchemas(v1);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 1u);
  const TableSchema& t = read->front();
  EXPECT_EQ(t.name, "t");
  ASSERT_EQ(t.families.size(), 1u);
  EXPECT_EQ(t.families[0].max_versions, 2);
  EXPECT_EQ(t.families[0].ttl_seconds, 60);
  EXPECT_EQ(t.families[0].configuration.at("k"), "v");
  EXPECT_TRUE(t.families[0].descriptor_values.empty());
  EXPECT_TRUE(t.descriptor_values.empty());
  EXPECT_FALSE(DecodeSchemas(v1.substr(0, v1.size() - 2)).ok());
}

}  // namespace
}  // namespace rtb::storage::internal
