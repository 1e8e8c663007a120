// The part of HBase's Thrift2 gateway protocol (service THBaseService) that
// rtb-bidder speaks. Field ids, types, requiredness, defaults and enum values
// match HBase 2.x exactly, so this file and HBase's own IDL produce the same
// bytes on the wire; only names of C++ types and the namespace are ours.
// Structs and calls we do not use are left out: a peer ignores unknown fields,
// and a call is identified on the wire by its name alone.

namespace cpp rtb.storage.thrift2

// ---- Cells and operations -------------------------------------------------

// Half-open [minStamp, maxStamp) on cell timestamps, milliseconds.
struct TTimeRange {
  1: required i64 minStamp,
  2: required i64 maxStamp
}

// A family, or one column of it.
struct TColumn {
  1: required binary family,
  2: optional binary qualifier,
  3: optional i64 timestamp
}

struct TColumnValue {
  1: required binary family,
  2: required binary qualifier,
  3: required binary value,
  4: optional i64 timestamp,
  5: optional binary tags,
  6: optional i8 type
}

struct TColumnIncrement {
  1: required binary family,
  2: required binary qualifier,
  3: optional i64 amount = 1
}

// An absent row comes back with neither row nor cells set.
struct TResult {
  1: optional binary row,
  2: required list<TColumnValue> columnValues,
  // Set when a secondary region replica answered a TIMELINE read.
  3: optional bool stale = false,
  4: optional bool partial = false
}

enum TDeleteType {
  DELETE_COLUMN = 0,
  DELETE_COLUMNS = 1,
  DELETE_FAMILY = 2,
  DELETE_FAMILY_VERSION = 3
}

enum TDurability {
  USE_DEFAULT = 0,
  SKIP_WAL = 1,
  ASYNC_WAL = 2,
  SYNC_WAL = 3,
  FSYNC_WAL = 4
}

struct TAuthorization {
  1: optional list<string> labels
}

struct TCellVisibility {
  1: optional string expression
}

enum TConsistency {
  STRONG = 1,
  TIMELINE = 2
}

struct TGet {
  1: required binary row,
  2: optional list<TColumn> columns,
  3: optional i64 timestamp,
  4: optional TTimeRange timeRange,
  5: optional i32 maxVersions,
  6: optional binary filterString,
  7: optional map<binary, binary> attributes,
  8: optional TAuthorization authorizations,
  9: optional TConsistency consistency,
  10: optional i32 targetReplicaId,
  11: optional bool cacheBlocks,
  12: optional i32 storeLimit,
  13: optional i32 storeOffset,
  14: optional bool existence_only,
  // A serialized hbase.pb.Filter protobuf message.
  15: optional binary filterBytes
}

// Attributes carry per-mutation settings such as the cell TTL ("_ttl").
struct TPut {
  1: required binary row,
  2: required list<TColumnValue> columnValues,
  3: optional i64 timestamp,
  5: optional map<binary, binary> attributes,
  6: optional TDurability durability,
  7: optional TCellVisibility cellVisibility
}

// One delete type applies to every column listed; without columns the whole
// row is deleted at or before `timestamp`.
struct TDelete {
  1: required binary row,
  2: optional list<TColumn> columns,
  3: optional i64 timestamp,
  4: optional TDeleteType deleteType = 1,
  6: optional map<binary, binary> attributes,
  7: optional TDurability durability,
  8: optional TCellVisibility cellVisibility
}

struct TIncrement {
  1: required binary row,
  2: required list<TColumnIncrement> columns,
  4: optional map<binary, binary> attributes,
  5: optional TDurability durability,
  6: optional TCellVisibility cellVisibility,
  7: optional bool returnResults
}

enum TReadType {
  DEFAULT = 1,
  STREAM = 2,
  PREAD = 3
}

struct TScan {
  1: optional binary startRow,
  2: optional binary stopRow,
  3: optional list<TColumn> columns,
  4: optional i32 caching,
  5: optional i32 maxVersions = 1,
  6: optional TTimeRange timeRange,
  7: optional binary filterString,
  8: optional i32 batchSize,
  9: optional map<binary, binary> attributes,
  10: optional TAuthorization authorizations,
  11: optional bool reversed,
  12: optional bool cacheBlocks,
  13: optional map<binary, TTimeRange> colFamTimeRangeMap,
  14: optional TReadType readType,
  15: optional i32 limit,
  16: optional TConsistency consistency,
  17: optional i32 targetReplicaId,
  // A serialized hbase.pb.Filter protobuf message.
  18: optional binary filterBytes
}

union TMutation {
  1: TPut put,
  2: TDelete deleteSingle
}

// Mutations applied atomically to one row.
struct TRowMutations {
  1: required binary row,
  2: required list<TMutation> mutations
}

// The check of checkAndMutate reads "value <op> stored value".
enum TCompareOperator {
  LESS = 0,
  LESS_OR_EQUAL = 1,
  EQUAL = 2,
  NOT_EQUAL = 3,
  GREATER_OR_EQUAL = 4,
  GREATER = 5,
  NO_OP = 6
}

// ---- Admin -----------------------------------------------------------------

enum TBloomFilterType {
  NONE = 0,
  ROW = 1,
  ROWCOL = 2,
  ROWPREFIX_FIXED_LENGTH = 3
}

enum TCompressionAlgorithm {
  LZO = 0,
  GZ = 1,
  NONE = 2,
  SNAPPY = 3,
  LZ4 = 4,
  BZIP2 = 5,
  ZSTD = 6
}

// Ids 1, 5 and 6 are unused by HBase.
enum TDataBlockEncoding {
  NONE = 0,
  PREFIX = 2,
  DIFF = 3,
  FAST_DIFF = 4,
  ROW_INDEX_V1 = 7
}

enum TKeepDeletedCells {
  FALSE = 0,
  TRUE = 1,
  TTL = 2
}

// `ns` unset means the default namespace.
struct TTableName {
  1: optional binary ns,
  2: required binary qualifier
}

// timeToLive is in seconds. `configuration` holds per-family settings
// (CONFIGURATION => {...} in the HBase shell); `attributes` raw descriptor values.
struct TColumnFamilyDescriptor {
  1: required binary name,
  2: optional map<binary, binary> attributes,
  3: optional map<string, string> configuration,
  4: optional i32 blockSize,
  5: optional TBloomFilterType bloomnFilterType,
  6: optional TCompressionAlgorithm compressionType,
  7: optional i16 dfsReplication,
  8: optional TDataBlockEncoding dataBlockEncoding,
  9: optional TKeepDeletedCells keepDeletedCells,
  10: optional i32 maxVersions,
  11: optional i32 minVersions,
  12: optional i32 scope,
  13: optional i32 timeToLive,
  14: optional bool blockCacheEnabled,
  15: optional bool cacheBloomsOnWrite,
  16: optional bool cacheDataOnWrite,
  17: optional bool cacheIndexesOnWrite,
  18: optional bool compressTags,
  19: optional bool evictBlocksOnClose,
  20: optional bool inMemory
}

// `attributes` are table descriptor values, e.g. REGION_REPLICATION.
struct TTableDescriptor {
  1: required TTableName tableName,
  2: optional list<TColumnFamilyDescriptor> columns,
  3: optional map<binary, binary> attributes,
  4: optional TDurability durability
}

// ---- Errors ----------------------------------------------------------------

// Any failure inside HBase; the message starts with the Java exception class.
exception TIOError {
  1: optional string message,
  2: optional bool canRetry
}

exception TIllegalArgument {
  1: optional string message
}

// ---- Service ---------------------------------------------------------------

service THBaseService {
  TResult get(1: required binary table, 2: required TGet tget)
      throws (1: TIOError io),

  // Results line up with the gets; an absent row gives an empty TResult.
  list<TResult> getMultiple(1: required binary table, 2: required list<TGet> tgets)
      throws (1: TIOError io),

  void put(1: required binary table, 2: required TPut tput)
      throws (1: TIOError io),

  void putMultiple(1: required binary table, 2: required list<TPut> tputs)
      throws (1: TIOError io),

  void deleteSingle(1: required binary table, 2: required TDelete tdelete)
      throws (1: TIOError io),

  // Always answers an empty list.
  list<TDelete> deleteMultiple(1: required binary table, 2: required list<TDelete> tdeletes)
      throws (1: TIOError io),

  TResult increment(1: required binary table, 2: required TIncrement tincrement)
      throws (1: TIOError io),

  // Scanner ids are local to the gateway process that opened them.
  i32 openScanner(1: required binary table, 2: required TScan tscan)
      throws (1: TIOError io),

  list<TResult> getScannerRows(1: required i32 scannerId, 2: i32 numRows = 1)
      throws (1: TIOError io, 2: TIllegalArgument ia),

  void closeScanner(1: required i32 scannerId)
      throws (1: TIOError io, 2: TIllegalArgument ia),

  void mutateRow(1: required binary table, 2: required TRowMutations trowMutations)
      throws (1: TIOError io),

  // Opens a scanner, reads up to numRows rows and closes it, in one call.
  list<TResult> getScannerResults(1: required binary table, 2: required TScan tscan,
                                  3: i32 numRows = 1)
      throws (1: TIOError io),

  // An unset value (sent as empty) checks that the column is absent.
  bool checkAndMutate(1: required binary table,
                      2: required binary row,
                      3: required binary family,
                      4: required binary qualifier,
                      5: required TCompareOperator compareOperator,
                      6: binary value,
                      7: required TRowMutations rowMutations)
      throws (1: TIOError io),

  TTableDescriptor getTableDescriptor(1: required TTableName table)
      throws (1: TIOError io),

  bool tableExists(1: TTableName tableName)
      throws (1: TIOError io),

  void createTable(1: required TTableDescriptor desc, 2: list<binary> splitKeys)
      throws (1: TIOError io),

  void deleteTable(1: required TTableName tableName)
      throws (1: TIOError io),

  void enableTable(1: required TTableName tableName)
      throws (1: TIOError io),

  void disableTable(1: required TTableName tableName)
      throws (1: TIOError io),

  bool isTableEnabled(1: required TTableName tableName)
      throws (1: TIOError io)
}
