#include "storage/server/descriptors.h"

#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "storage/hbase/absl_compat.h"
#include "storage/hbase/convert.h"
#include "storage/server/convert.h"

namespace rtb::storage::server {
namespace {

namespace t2 = ::rtb::storage::thrift2;

constexpr char kDefaultNamespace[] = "default";

absl::Status Unsupported(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(what, " is not supported by the storage server"));
}

bool IsSupportedCompression(t2::TCompressionAlgorithm::type compression) {
  switch (compression) {
    case t2::TCompressionAlgorithm::NONE:
    case t2::TCompressionAlgorithm::SNAPPY:
    case t2::TCompressionAlgorithm::LZ4:
    case t2::TCompressionAlgorithm::ZSTD:
      return true;
    default:
      return false;
  }
}

}  // namespace

// HBase's column family descriptor keys and the values the master fills in
// for a family that does not set them.
constexpr char kVersions[] = "VERSIONS";
constexpr char kMinVersions[] = "MIN_VERSIONS";
constexpr char kTtl[] = "TTL";
constexpr char kInMemory[] = "IN_MEMORY";
constexpr char kBloomFilter[] = "BLOOMFILTER";
constexpr char kCompression[] = "COMPRESSION";
constexpr char kKeepDeletedCells[] = "KEEP_DELETED_CELLS";
constexpr char kBlockSize[] = "BLOCKSIZE";
constexpr char kDataBlockEncoding[] = "DATA_BLOCK_ENCODING";
constexpr char kReplicationScope[] = "REPLICATION_SCOPE";
constexpr char kBlockCache[] = "BLOCKCACHE";
constexpr char kDfsReplication[] = "DFS_REPLICATION";
constexpr char kCacheBloomsOnWrite[] = "CACHE_BLOOMS_ON_WRITE";
constexpr char kCacheDataOnWrite[] = "CACHE_DATA_ON_WRITE";
constexpr char kCacheIndexOnWrite[] = "CACHE_INDEX_ON_WRITE";
constexpr char kCompressTags[] = "COMPRESS_TAGS";
constexpr char kEvictBlocksOnClose[] = "EVICT_BLOCKS_ON_CLOSE";
constexpr char kIndexBlockEncoding[] = "INDEX_BLOCK_ENCODING";

const char* BloomName(BloomType bloom) {
  switch (bloom) {
    case BloomType::kNone:
      return "NONE";
    case BloomType::kRowCol:
      return "ROWCOL";
    case BloomType::kRow:
      break;
  }
  return "ROW";
}

const char* CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kSnappy:
      return "SNAPPY";
    case Compression::kLz4:
      return "LZ4";
    case Compression::kZstd:
      return "ZSTD";
    case Compression::kNone:
      break;
  }
  return "NONE";
}

const char* EncodingName(t2::TDataBlockEncoding::type encoding) {
  switch (encoding) {
    case t2::TDataBlockEncoding::PREFIX:
      return "PREFIX";
    case t2::TDataBlockEncoding::DIFF:
      return "DIFF";
    case t2::TDataBlockEncoding::FAST_DIFF:
      return "FAST_DIFF";
    case t2::TDataBlockEncoding::ROW_INDEX_V1:
      return "ROW_INDEX_V1";
    default:
      return "NONE";
  }
}

t2::TDataBlockEncoding::type EncodingFromName(std::string_view name) {
  if (name == "PREFIX") return t2::TDataBlockEncoding::PREFIX;
  if (name == "DIFF") return t2::TDataBlockEncoding::DIFF;
  if (name == "FAST_DIFF") return t2::TDataBlockEncoding::FAST_DIFF;
  if (name == "ROW_INDEX_V1") return t2::TDataBlockEncoding::ROW_INDEX_V1;
  return t2::TDataBlockEncoding::NONE;
}

const char* Bool(bool b) { return b ? "true" : "false"; }

// What a family's descriptor holds as HBase's master keeps it: every key,
// defaults included, the engine's settings from `f`.
std::map<std::string, std::string> FamilyValues(const FamilyOptions& f) {
  std::map<std::string, std::string> values = {
      {kBlockCache, "true"},         {kBlockSize, "65536"},        {kDataBlockEncoding, "NONE"},
      {kIndexBlockEncoding, "NONE"}, {kKeepDeletedCells, "FALSE"}, {kReplicationScope, "0"},
  };
  for (const auto& [key, value] : f.descriptor_values) values[key] = value;
  values[kVersions] = absl::StrCat(f.max_versions);
  values[kMinVersions] = absl::StrCat(f.min_versions);
  values[kTtl] = absl::StrCat(f.ttl_seconds == kForever ? hbase::kHBaseForever : f.ttl_seconds);
  values[kInMemory] = Bool(f.in_memory);
  values[kBloomFilter] = BloomName(f.bloom);
  values[kCompression] = CompressionName(f.compression);
  return values;
}

bool BoolValue(const std::map<std::string, std::string>& values, const char* key, bool fallback) {
  auto it = values.find(key);
  if (it == values.end()) return fallback;
  return absl::AsciiStrToLower(it->second) == "true";
}

int64_t IntValue(const std::map<std::string, std::string>& values, const char* key,
                 int64_t fallback) {
  auto it = values.find(key);
  int64_t out = 0;
  if (it == values.end() || !absl::SimpleAtoi(it->second, &out)) return fallback;
  return out;
}

absl::StatusOr<FamilyOptions> FamilyFromThrift(const t2::TColumnFamilyDescriptor& cf) {
  const std::string where = absl::StrCat("family '", cf.name, "'");
  if (cf.__isset.keepDeletedCells && cf.keepDeletedCells != t2::TKeepDeletedCells::FALSE) {
    return Unsupported(absl::StrCat(where, ": KEEP_DELETED_CELLS"));
  }
  if (cf.__isset.compressionType && !IsSupportedCompression(cf.compressionType)) {
    return Unsupported(absl::StrCat(where, ": compression ", static_cast<int>(cf.compressionType),
                                    " (NONE, SNAPPY, LZ4 and ZSTD are)"));
  }
  if (cf.__isset.timeToLive && cf.timeToLive <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": TTL must be positive, got ", cf.timeToLive));
  }
  t2::TTableDescriptor one;
  one.columns.push_back(cf);
  FamilyOptions f = std::move(hbase::FromThrift(one).families.front());
  // Raw values first, as HBase's builder applies them before the typed fields.
  for (const auto& [key, value] : cf.attributes) f.descriptor_values[key] = value;
  if (cf.__isset.blockSize) f.descriptor_values[kBlockSize] = absl::StrCat(cf.blockSize);
  if (cf.__isset.dataBlockEncoding) {
    f.descriptor_values[kDataBlockEncoding] = EncodingName(cf.dataBlockEncoding);
  }
  if (cf.__isset.scope) f.descriptor_values[kReplicationScope] = absl::StrCat(cf.scope);
  if (cf.__isset.dfsReplication) {
    f.descriptor_values[kDfsReplication] = absl::StrCat(cf.dfsReplication);
  }
  if (cf.__isset.blockCacheEnabled) f.descriptor_values[kBlockCache] = Bool(cf.blockCacheEnabled);
  if (cf.__isset.cacheBloomsOnWrite) {
    f.descriptor_values[kCacheBloomsOnWrite] = Bool(cf.cacheBloomsOnWrite);
  }
  if (cf.__isset.cacheDataOnWrite) {
    f.descriptor_values[kCacheDataOnWrite] = Bool(cf.cacheDataOnWrite);
  }
  if (cf.__isset.cacheIndexesOnWrite) {
    f.descriptor_values[kCacheIndexOnWrite] = Bool(cf.cacheIndexesOnWrite);
  }
  if (cf.__isset.compressTags) f.descriptor_values[kCompressTags] = Bool(cf.compressTags);
  if (cf.__isset.evictBlocksOnClose) {
    f.descriptor_values[kEvictBlocksOnClose] = Bool(cf.evictBlocksOnClose);
  }
  // The engine's own settings live in their fields, not twice.
  for (const char* key :
       {kVersions, kMinVersions, kTtl, kInMemory, kBloomFilter, kCompression, kKeepDeletedCells}) {
    f.descriptor_values.erase(key);
  }
  return f;
}

absl::StatusOr<TableSchema> SchemaFromThrift(const t2::TTableDescriptor& in,
                                             const std::vector<std::string>& split_keys) {
  TableSchema schema = hbase::FromThrift(in);
  schema.families.clear();
  for (const t2::TColumnFamilyDescriptor& cf : in.columns) {
    absl::StatusOr<FamilyOptions> f = FamilyFromThrift(cf);
    if (!f.ok()) return f.status();
    schema.families.push_back(*std::move(f));
  }
  schema.name = TableFromThrift(in.tableName);
  schema.split_keys = split_keys;
  for (const auto& [key, value] : in.attributes) {
    if (key != hbase::kRegionReplicationKey) schema.descriptor_values[key] = value;
  }
  return schema;
}

absl::StatusOr<t2::TTableDescriptor> DescriptorToThrift(const TableSchema& schema) {
  t2::TTableDescriptor out;
  out.tableName = hbase::ToThriftTableName(schema.name);
  if (!out.tableName.__isset.ns) out.tableName.__set_ns(kDefaultNamespace);
  out.__isset.columns = true;
  for (const FamilyOptions& f : schema.families) {
    const std::map<std::string, std::string> values = FamilyValues(f);
    t2::TColumnFamilyDescriptor cf;
    cf.name = f.name;
    cf.__set_attributes(std::map<std::string, std::string>(values.begin(), values.end()));
    std::map<std::string, std::string> configuration = f.configuration;
    if (f.fifo_compaction) {
      configuration[hbase::kCompactionPolicyKey] = hbase::kFifoCompactionPolicy;
      configuration.emplace(hbase::kBlockingStoreFilesKey, hbase::kFifoBlockingStoreFiles);
    }
    if (!configuration.empty()) cf.__set_configuration(std::move(configuration));
    cf.__set_blockSize(static_cast<int32_t>(IntValue(values, kBlockSize, 65536)));
    cf.__set_bloomnFilterType(hbase::ToThrift(f.bloom));
    cf.__set_compressionType(hbase::ToThrift(f.compression));
    cf.__set_dfsReplication(static_cast<int16_t>(IntValue(values, kDfsReplication, 0)));
    cf.__set_dataBlockEncoding(EncodingFromName(values.at(kDataBlockEncoding)));
    cf.__set_keepDeletedCells(t2::TKeepDeletedCells::FALSE);
    cf.__set_maxVersions(f.max_versions);
    cf.__set_minVersions(f.min_versions);
    cf.__set_scope(static_cast<int32_t>(IntValue(values, kReplicationScope, 0)));
    cf.__set_timeToLive(static_cast<int32_t>(IntValue(values, kTtl, hbase::kHBaseForever)));
    cf.__set_blockCacheEnabled(BoolValue(values, kBlockCache, true));
    cf.__set_cacheBloomsOnWrite(BoolValue(values, kCacheBloomsOnWrite, false));
    cf.__set_cacheDataOnWrite(BoolValue(values, kCacheDataOnWrite, false));
    cf.__set_cacheIndexesOnWrite(BoolValue(values, kCacheIndexOnWrite, false));
    cf.__set_compressTags(BoolValue(values, kCompressTags, true));
    cf.__set_evictBlocksOnClose(BoolValue(values, kEvictBlocksOnClose, false));
    cf.__set_inMemory(f.in_memory);
    out.columns.push_back(std::move(cf));
  }
  // As HBase's master describes a table: IS_META always, REGION_REPLICATION
  // when more than one, and the values the table was given.
  out.attributes = {{"IS_META", "false"}};
  for (const auto& [key, value] : schema.descriptor_values) out.attributes[key] = value;
  if (schema.region_replication > 1) {
    out.attributes[hbase::kRegionReplicationKey] = absl::StrCat(schema.region_replication);
  }
  out.__isset.attributes = true;
  out.__set_durability(t2::TDurability::USE_DEFAULT);
  return out;
}

}  // namespace rtb::storage::server
