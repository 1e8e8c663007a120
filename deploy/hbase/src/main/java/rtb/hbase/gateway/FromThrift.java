package rtb.hbase.gateway;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Consistency;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.LogQueryFilter;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.OperationWithAttributes;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.ParseFilter;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.visibility.Authorizations;
import org.apache.hadoop.hbase.security.visibility.CellVisibility;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.generated.FilterProtos;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.thrift.TBaseHelper;
import rtb.storage.thrift2.TAppend;
import rtb.storage.thrift2.TAuthorization;
import rtb.storage.thrift2.TBloomFilterType;
import rtb.storage.thrift2.TCellVisibility;
import rtb.storage.thrift2.TColumn;
import rtb.storage.thrift2.TColumnFamilyDescriptor;
import rtb.storage.thrift2.TColumnIncrement;
import rtb.storage.thrift2.TColumnValue;
import rtb.storage.thrift2.TCompareOperator;
import rtb.storage.thrift2.TCompressionAlgorithm;
import rtb.storage.thrift2.TConsistency;
import rtb.storage.thrift2.TDataBlockEncoding;
import rtb.storage.thrift2.TDelete;
import rtb.storage.thrift2.TDurability;
import rtb.storage.thrift2.TFilterByOperator;
import rtb.storage.thrift2.TGet;
import rtb.storage.thrift2.TIncrement;
import rtb.storage.thrift2.TKeepDeletedCells;
import rtb.storage.thrift2.TLogQueryFilter;
import rtb.storage.thrift2.TLogType;
import rtb.storage.thrift2.TMutation;
import rtb.storage.thrift2.TNamespaceDescriptor;
import rtb.storage.thrift2.TPut;
import rtb.storage.thrift2.TReadType;
import rtb.storage.thrift2.TRowMutations;
import rtb.storage.thrift2.TScan;
import rtb.storage.thrift2.TServerName;
import rtb.storage.thrift2.TTableDescriptor;
import rtb.storage.thrift2.TTableName;
import rtb.storage.thrift2.TTimeRange;

/**
 * Thrift2 requests to HBase client objects, field by field as HBase's own gateway reads them
 * (org.apache.hadoop.hbase.thrift2.ThriftUtilities, HBase 2.6), so a client sees the same
 * semantics here as behind HBase's gateway. Where HBase's code would fail on input it does not
 * expect (a missing argument, an unknown enum value) an IllegalArgumentException says what is
 * wrong instead.
 */
final class FromThrift {
  private FromThrift() {}

  /** A table named on the wire as "table" or "namespace:table". */
  static TableName tableName(ByteBuffer name) {
    return TableName.valueOf(Bytes.toString(bytes(required(name, "table name"))));
  }

  /** An unset namespace is the default one. */
  static TableName tableName(TTableName name) {
    required(name, "table name");
    return TableName.valueOf(name.getNs(), name.getQualifier());
  }

  static Get get(TGet in) throws IOException {
    required(in, "get");
    Get out = new Get(in.getRow());
    // A timestamp wins over a time range when both are set.
    if (in.isSetTimestamp()) {
      out.setTimestamp(in.getTimestamp());
    } else if (in.isSetTimeRange()) {
      out.setTimeRange(in.getTimeRange().getMinStamp(), in.getTimeRange().getMaxStamp());
    }
    if (in.isSetMaxVersions()) {
      out.readVersions(in.getMaxVersions());
    }
    if (in.isSetFilterString()) {
      out.setFilter(new ParseFilter().parseFilterString(in.getFilterString()));
    }
    if (in.isSetAttributes()) {
      addAttributes(out, in.getAttributes());
    }
    if (in.isSetAuthorizations()) {
      out.setAuthorizations(authorizations(in.getAuthorizations()));
    }
    if (in.isSetConsistency()) {
      out.setConsistency(consistency(in.getConsistency()));
    }
    if (in.isSetTargetReplicaId()) {
      out.setReplicaId(in.getTargetReplicaId());
    }
    if (in.isSetCacheBlocks()) {
      out.setCacheBlocks(in.isCacheBlocks());
    }
    if (in.isSetStoreLimit()) {
      out.setMaxResultsPerColumnFamily(in.getStoreLimit());
    }
    if (in.isSetStoreOffset()) {
      out.setRowOffsetPerColumnFamily(in.getStoreOffset());
    }
    if (in.isSetExistence_only()) {
      out.setCheckExistenceOnly(in.isExistence_only());
    }
    if (in.isSetColumns()) {
      // Timestamps of TColumns are ignored on reads.
      for (TColumn column : in.getColumns()) {
        if (column.isSetQualifier()) {
          out.addColumn(column.getFamily(), column.getQualifier());
        } else {
          out.addFamily(column.getFamily());
        }
      }
    }
    if (in.isSetFilterBytes()) {
      out.setFilter(filter(in.getFilterBytes()));
    }
    return out;
  }

  static List<Get> gets(List<TGet> in) throws IOException {
    List<Get> out = new ArrayList<>(required(in, "gets").size());
    for (TGet get : in) {
      out.add(get(get));
    }
    return out;
  }

  static Put put(TPut in) {
    required(in, "put");
    Put out = in.isSetTimestamp() ? new Put(in.getRow(), in.getTimestamp()) : new Put(in.getRow());
    if (in.isSetDurability()) {
      out.setDurability(durability(in.getDurability()));
    }
    // Tags and cell types of TColumnValues are not written, as in HBase's gateway.
    for (TColumnValue value : in.getColumnValues()) {
      long timestamp = value.isSetTimestamp() ? value.getTimestamp() : out.getTimestamp();
      out.addColumn(value.getFamily(), value.getQualifier(), timestamp, value.getValue());
    }
    if (in.isSetAttributes()) {
      addAttributes(out, in.getAttributes());
    }
    if (in.isSetCellVisibility()) {
      out.setCellVisibility(cellVisibility(in.getCellVisibility()));
    }
    return out;
  }

  static List<Put> puts(List<TPut> in) {
    List<Put> out = new ArrayList<>(required(in, "puts").size());
    for (TPut put : in) {
      out.add(put(put));
    }
    return out;
  }

  /**
   * Without columns the whole row goes, at or before the delete's timestamp; with columns the one
   * delete type applies to each of them.
   */
  static Delete delete(TDelete in) {
    required(in, "delete");
    Delete out;
    if (in.isSetColumns()) {
      out = new Delete(in.getRow());
      for (TColumn column : in.getColumns()) {
        if (!in.isSetDeleteType()) {
          throw new IllegalArgumentException("DeleteType is required for TDelete");
        }
        byte[] family = column.getFamily();
        byte[] qualifier = column.getQualifier();
        boolean stamped = column.isSetTimestamp();
        switch (in.getDeleteType()) {
          case DELETE_COLUMN:
            if (stamped) {
              out.addColumn(family, qualifier, column.getTimestamp());
            } else {
              out.addColumn(family, qualifier);
            }
            break;
          case DELETE_COLUMNS:
            if (stamped) {
              out.addColumns(family, qualifier, column.getTimestamp());
            } else {
              out.addColumns(family, qualifier);
            }
            break;
          case DELETE_FAMILY:
            if (stamped) {
              out.addFamily(family, column.getTimestamp());
            } else {
              out.addFamily(family);
            }
            break;
          case DELETE_FAMILY_VERSION:
            if (!stamped) {
              throw new IllegalArgumentException(
                  "Timestamp is required for TDelete with DeleteFamilyVersion type");
            }
            out.addFamilyVersion(family, column.getTimestamp());
            break;
          default:
            throw new IllegalArgumentException("unknown delete type " + in.getDeleteType());
        }
      }
    } else if (in.isSetTimestamp()) {
      out = new Delete(in.getRow(), in.getTimestamp());
    } else {
      out = new Delete(in.getRow());
    }
    if (in.isSetAttributes()) {
      addAttributes(out, in.getAttributes());
    }
    if (in.isSetDurability()) {
      out.setDurability(durability(in.getDurability()));
    }
    if (in.isSetCellVisibility()) {
      out.setCellVisibility(cellVisibility(in.getCellVisibility()));
    }
    return out;
  }

  static List<Delete> deletes(List<TDelete> in) {
    List<Delete> out = new ArrayList<>(required(in, "deletes").size());
    for (TDelete delete : in) {
      out.add(delete(delete));
    }
    return out;
  }

  static Increment increment(TIncrement in) {
    required(in, "increment");
    Increment out = new Increment(in.getRow());
    for (TColumnIncrement column : in.getColumns()) {
      out.addColumn(column.getFamily(), column.getQualifier(), column.getAmount());
    }
    if (in.isSetAttributes()) {
      addAttributes(out, in.getAttributes());
    }
    if (in.isSetDurability()) {
      out.setDurability(durability(in.getDurability()));
    }
    if (in.isSetCellVisibility()) {
      out.setCellVisibility(cellVisibility(in.getCellVisibility()));
    }
    if (in.isSetReturnResults()) {
      out.setReturnResults(in.isReturnResults());
    }
    return out;
  }

  /** Fails with WrongRowIOException when a mutation names another row. */
  static RowMutations rowMutations(TRowMutations in) throws IOException {
    required(in, "row mutations");
    List<TMutation> mutations = in.getMutations();
    RowMutations out = new RowMutations(in.getRow(), mutations.size());
    for (TMutation mutation : mutations) {
      if (mutation.isSetPut()) {
        out.add((Mutation) put(mutation.getPut()));
      }
      if (mutation.isSetDeleteSingle()) {
        out.add((Mutation) delete(mutation.getDeleteSingle()));
      }
    }
    return out;
  }

  static Scan scan(TScan in) throws IOException {
    required(in, "scan");
    Scan out = new Scan();
    if (in.isSetStartRow()) {
      out.withStartRow(in.getStartRow());
    }
    if (in.isSetStopRow()) {
      out.withStopRow(in.getStopRow());
    }
    if (in.isSetCaching()) {
      out.setCaching(in.getCaching());
    }
    if (in.isSetMaxVersions()) {
      out.readVersions(in.getMaxVersions());
    }
    if (in.isSetColumns()) {
      for (TColumn column : in.getColumns()) {
        if (column.isSetQualifier()) {
          out.addColumn(column.getFamily(), column.getQualifier());
        } else {
          out.addFamily(column.getFamily());
        }
      }
    }
    TTimeRange timeRange = in.getTimeRange();
    if (timeRange != null && timeRange.isSetMinStamp() && timeRange.isSetMaxStamp()) {
      out.setTimeRange(timeRange.getMinStamp(), timeRange.getMaxStamp());
    }
    if (in.isSetBatchSize()) {
      out.setBatch(in.getBatchSize());
    }
    if (in.isSetFilterString()) {
      out.setFilter(new ParseFilter().parseFilterString(in.getFilterString()));
    }
    if (in.isSetAttributes()) {
      addAttributes(out, in.getAttributes());
    }
    if (in.isSetAuthorizations()) {
      out.setAuthorizations(authorizations(in.getAuthorizations()));
    }
    if (in.isSetReversed()) {
      out.setReversed(in.isReversed());
    }
    if (in.isSetCacheBlocks()) {
      out.setCacheBlocks(in.isCacheBlocks());
    }
    if (in.isSetColFamTimeRangeMap()) {
      for (Map.Entry<ByteBuffer, TTimeRange> entry : in.getColFamTimeRangeMap().entrySet()) {
        out.setColumnFamilyTimeRange(bytes(entry.getKey()), entry.getValue().getMinStamp(),
            entry.getValue().getMaxStamp());
      }
    }
    if (in.isSetReadType()) {
      out.setReadType(readType(in.getReadType()));
    }
    if (in.isSetLimit()) {
      out.setLimit(in.getLimit());
    }
    if (in.isSetConsistency()) {
      out.setConsistency(consistency(in.getConsistency()));
    }
    if (in.isSetTargetReplicaId()) {
      out.setReplicaId(in.getTargetReplicaId());
    }
    if (in.isSetFilterBytes()) {
      out.setFilter(filter(in.getFilterBytes()));
    }
    return out;
  }

  /** The check of checkAndMutate reads "given value OP stored value", as in HBase. */
  static CompareOperator compareOperator(TCompareOperator in) {
    if (in == null) {
      throw new IllegalArgumentException("compare operator is missing or unknown");
    }
    switch (in) {
      case LESS:
        return CompareOperator.LESS;
      case LESS_OR_EQUAL:
        return CompareOperator.LESS_OR_EQUAL;
      case EQUAL:
        return CompareOperator.EQUAL;
      case NOT_EQUAL:
        return CompareOperator.NOT_EQUAL;
      case GREATER_OR_EQUAL:
        return CompareOperator.GREATER_OR_EQUAL;
      case GREATER:
        return CompareOperator.GREATER;
      case NO_OP:
        return CompareOperator.NO_OP;
      default:
        throw new IllegalArgumentException("unknown compare operator " + in);
    }
  }

  static TableDescriptor tableDescriptor(TTableDescriptor in) {
    required(in, "table descriptor");
    TableDescriptorBuilder builder = TableDescriptorBuilder.newBuilder(tableName(in.getTableName()));
    if (in.isSetColumns()) {
      for (TColumnFamilyDescriptor family : in.getColumns()) {
        builder.setColumnFamily(familyDescriptor(family));
      }
    }
    // Raw descriptor values: REGION_REPLICATION, MAX_FILESIZE, coprocessors, ...
    if (in.isSetAttributes()) {
      for (Map.Entry<ByteBuffer, ByteBuffer> attribute : in.getAttributes().entrySet()) {
        builder.setValue(bytes(attribute.getKey()), bytes(attribute.getValue()));
      }
    }
    if (in.isSetDurability()) {
      builder.setDurability(durability(in.getDurability()));
    }
    return builder.build();
  }

  static ColumnFamilyDescriptor familyDescriptor(TColumnFamilyDescriptor in) {
    required(in, "column family descriptor");
    ColumnFamilyDescriptorBuilder builder = ColumnFamilyDescriptorBuilder.newBuilder(in.getName());
    if (in.isSetAttributes()) {
      for (Map.Entry<ByteBuffer, ByteBuffer> attribute : in.getAttributes().entrySet()) {
        builder.setValue(bytes(attribute.getKey()), bytes(attribute.getValue()));
      }
    }
    if (in.isSetConfiguration()) {
      for (Map.Entry<String, String> setting : in.getConfiguration().entrySet()) {
        builder.setConfiguration(setting.getKey(), setting.getValue());
      }
    }
    if (in.isSetBlockSize()) {
      builder.setBlocksize(in.getBlockSize());
    }
    if (in.isSetBloomnFilterType()) {
      builder.setBloomFilterType(bloomType(in.getBloomnFilterType()));
    }
    if (in.isSetCompressionType()) {
      builder.setCompressionType(compression(in.getCompressionType()));
    }
    if (in.isSetDfsReplication()) {
      builder.setDFSReplication(in.getDfsReplication());
    }
    if (in.isSetDataBlockEncoding()) {
      builder.setDataBlockEncoding(dataBlockEncoding(in.getDataBlockEncoding()));
    }
    if (in.isSetKeepDeletedCells()) {
      builder.setKeepDeletedCells(keepDeletedCells(in.getKeepDeletedCells()));
    }
    if (in.isSetMaxVersions()) {
      builder.setMaxVersions(in.getMaxVersions());
    }
    if (in.isSetMinVersions()) {
      builder.setMinVersions(in.getMinVersions());
    }
    if (in.isSetScope()) {
      builder.setScope(in.getScope());
    }
    if (in.isSetTimeToLive()) {
      builder.setTimeToLive(in.getTimeToLive());
    }
    if (in.isSetBlockCacheEnabled()) {
      builder.setBlockCacheEnabled(in.isBlockCacheEnabled());
    }
    if (in.isSetCacheBloomsOnWrite()) {
      builder.setCacheBloomsOnWrite(in.isCacheBloomsOnWrite());
    }
    if (in.isSetCacheDataOnWrite()) {
      builder.setCacheDataOnWrite(in.isCacheDataOnWrite());
    }
    if (in.isSetCacheIndexesOnWrite()) {
      builder.setCacheIndexesOnWrite(in.isCacheIndexesOnWrite());
    }
    if (in.isSetCompressTags()) {
      builder.setCompressTags(in.isCompressTags());
    }
    if (in.isSetEvictBlocksOnClose()) {
      builder.setEvictBlocksOnClose(in.isEvictBlocksOnClose());
    }
    if (in.isSetInMemory()) {
      builder.setInMemory(in.isInMemory());
    }
    return builder.build();
  }

  static Append append(TAppend in) {
    required(in, "append");
    Append out = new Append(in.getRow());
    for (TColumnValue value : in.getColumns()) {
      out.addColumn(value.getFamily(), value.getQualifier(), value.getValue());
    }
    if (in.isSetAttributes()) {
      addAttributes(out, in.getAttributes());
    }
    if (in.isSetDurability()) {
      out.setDurability(durability(in.getDurability()));
    }
    if (in.isSetCellVisibility()) {
      out.setCellVisibility(cellVisibility(in.getCellVisibility()));
    }
    if (in.isSetReturnResults()) {
      out.setReturnResults(in.isReturnResults());
    }
    return out;
  }

  static List<TableName> tableNames(List<TTableName> in) {
    List<TableName> out = new ArrayList<>(required(in, "table names").size());
    for (TTableName name : in) {
      out.add(tableName(name));
    }
    return out;
  }

  static NamespaceDescriptor namespaceDescriptor(TNamespaceDescriptor in) {
    required(in, "namespace descriptor");
    NamespaceDescriptor.Builder builder =
        NamespaceDescriptor.create(required(in.getName(), "namespace name"));
    if (in.isSetConfiguration()) {
      for (Map.Entry<String, String> setting : in.getConfiguration().entrySet()) {
        builder.addConfiguration(setting.getKey(), setting.getValue());
      }
    }
    return builder.build();
  }

  /** Null or empty: every region server. */
  static Set<ServerName> serverNames(Set<TServerName> in) {
    Set<ServerName> out = new HashSet<>();
    if (in != null) {
      for (TServerName name : in) {
        out.add(ServerName.valueOf(name.getHostName(), name.getPort(), name.getStartCode()));
      }
    }
    return out;
  }

  /** Letters of "RWXCA"; others are ignored, as HBase's gateway ignores them. */
  static Permission.Action[] permissionActions(String letters) {
    Set<Permission.Action> out = EnumSet.noneOf(Permission.Action.class);
    for (char letter : (letters == null ? "" : letters).toCharArray()) {
      for (Permission.Action action : Permission.Action.values()) {
        if (action.code() == letter) {
          out.add(action);
        }
      }
    }
    return out.toArray(new Permission.Action[0]);
  }

  static LogQueryFilter logQueryFilter(TLogQueryFilter in) {
    LogQueryFilter out = new LogQueryFilter();
    if (in == null) {
      return out;
    }
    out.setRegionName(in.getRegionName());
    out.setClientAddress(in.getClientAddress());
    out.setTableName(in.getTableName());
    out.setUserName(in.getUserName());
    out.setLimit(in.getLimit());
    out.setType(in.getLogType() == TLogType.LARGE_LOG ? LogQueryFilter.Type.LARGE_LOG
        : LogQueryFilter.Type.SLOW_LOG);
    out.setFilterByOperator(in.getFilterByOperator() == TFilterByOperator.AND
        ? LogQueryFilter.FilterByOperator.AND : LogQueryFilter.FilterByOperator.OR);
    return out;
  }

  /** None or an empty list: one region. */
  static byte[][] splitKeys(List<ByteBuffer> in) {
    if (in == null || in.isEmpty()) {
      return null;
    }
    byte[][] out = new byte[in.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = bytes(required(in.get(i), "split key"));
    }
    return out;
  }

  /**
   * The bytes a binary argument carries. Thrift may hand out a view into its read buffer, so the
   * backing array alone is not the value.
   */
  static byte[] bytes(ByteBuffer in) {
    return in == null ? null : TBaseHelper.byteBufferToByteArray(in);
  }

  static <T> T required(T value, String what) {
    if (value == null) {
      throw new IllegalArgumentException(what + " is missing");
    }
    return value;
  }

  /** Per-operation settings; HBase itself reads some of them, e.g. "_ttl" as the cell TTL. */
  private static void addAttributes(OperationWithAttributes op,
      Map<ByteBuffer, ByteBuffer> attributes) {
    for (Map.Entry<ByteBuffer, ByteBuffer> attribute : attributes.entrySet()) {
      op.setAttribute(Bytes.toStringBinary(bytes(attribute.getKey())),
          bytes(attribute.getValue()));
    }
  }

  private static Authorizations authorizations(TAuthorization in) {
    List<String> labels = in.getLabels();
    return new Authorizations(labels == null ? Collections.emptyList() : labels);
  }

  private static CellVisibility cellVisibility(TCellVisibility in) {
    return new CellVisibility(in.getExpression() == null ? "" : in.getExpression());
  }

  private static Filter filter(byte[] serialized) throws IOException {
    return ProtobufUtil.toFilter(FilterProtos.Filter.parseFrom(serialized));
  }

  // Unknown enum values arrive as null; HBase falls back to the defaults below.

  static Durability durability(TDurability in) {
    if (in == null) {
      return Durability.USE_DEFAULT;
    }
    switch (in) {
      case SKIP_WAL:
        return Durability.SKIP_WAL;
      case ASYNC_WAL:
        return Durability.ASYNC_WAL;
      case SYNC_WAL:
        return Durability.SYNC_WAL;
      case FSYNC_WAL:
        return Durability.FSYNC_WAL;
      default:
        return Durability.USE_DEFAULT;
    }
  }

  private static Consistency consistency(TConsistency in) {
    return in == TConsistency.TIMELINE ? Consistency.TIMELINE : Consistency.STRONG;
  }

  private static Scan.ReadType readType(TReadType in) {
    if (in == null) {
      return Scan.ReadType.DEFAULT;
    }
    switch (in) {
      case STREAM:
        return Scan.ReadType.STREAM;
      case PREAD:
        return Scan.ReadType.PREAD;
      default:
        return Scan.ReadType.DEFAULT;
    }
  }

  private static BloomType bloomType(TBloomFilterType in) {
    if (in == null) {
      return BloomType.ROW;
    }
    switch (in) {
      case NONE:
        return BloomType.NONE;
      case ROWCOL:
        return BloomType.ROWCOL;
      case ROWPREFIX_FIXED_LENGTH:
        return BloomType.ROWPREFIX_FIXED_LENGTH;
      default:
        return BloomType.ROW;
    }
  }

  private static Compression.Algorithm compression(TCompressionAlgorithm in) {
    if (in == null) {
      return Compression.Algorithm.NONE;
    }
    switch (in) {
      case LZO:
        return Compression.Algorithm.LZO;
      case GZ:
        return Compression.Algorithm.GZ;
      case SNAPPY:
        return Compression.Algorithm.SNAPPY;
      case LZ4:
        return Compression.Algorithm.LZ4;
      case BZIP2:
        return Compression.Algorithm.BZIP2;
      case ZSTD:
        return Compression.Algorithm.ZSTD;
      default:
        return Compression.Algorithm.NONE;
    }
  }

  private static DataBlockEncoding dataBlockEncoding(TDataBlockEncoding in) {
    if (in == null) {
      return DataBlockEncoding.NONE;
    }
    switch (in) {
      case PREFIX:
        return DataBlockEncoding.PREFIX;
      case DIFF:
        return DataBlockEncoding.DIFF;
      case FAST_DIFF:
        return DataBlockEncoding.FAST_DIFF;
      case ROW_INDEX_V1:
        return DataBlockEncoding.ROW_INDEX_V1;
      default:
        return DataBlockEncoding.NONE;
    }
  }

  private static KeepDeletedCells keepDeletedCells(TKeepDeletedCells in) {
    if (in == null) {
      return KeepDeletedCells.FALSE;
    }
    switch (in) {
      case TRUE:
        return KeepDeletedCells.TRUE;
      case TTL:
        return KeepDeletedCells.TTL;
      default:
        return KeepDeletedCells.FALSE;
    }
  }
}
