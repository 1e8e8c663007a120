package rtb.hbase.gateway;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.OnlineLogRecord;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.util.Bytes;
import rtb.storage.thrift2.TBloomFilterType;
import rtb.storage.thrift2.TColumnFamilyDescriptor;
import rtb.storage.thrift2.TColumnValue;
import rtb.storage.thrift2.TCompressionAlgorithm;
import rtb.storage.thrift2.TDataBlockEncoding;
import rtb.storage.thrift2.TDurability;
import rtb.storage.thrift2.THRegionInfo;
import rtb.storage.thrift2.THRegionLocation;
import rtb.storage.thrift2.TKeepDeletedCells;
import rtb.storage.thrift2.TNamespaceDescriptor;
import rtb.storage.thrift2.TOnlineLogRecord;
import rtb.storage.thrift2.TResult;
import rtb.storage.thrift2.TServerName;
import rtb.storage.thrift2.TTableDescriptor;
import rtb.storage.thrift2.TTableName;

/**
 * HBase client results to Thrift2 replies, field by field as HBase's own gateway writes them
 * (org.apache.hadoop.hbase.thrift2.ThriftUtilities, HBase 2.6).
 */
final class ToThrift {
  private ToThrift() {}

  /** An absent row: neither row nor cells, as HBase answers it. */
  static TResult result(Result in) {
    TResult out = new TResult();
    byte[] row = in.getRow();
    if (row != null) {
      out.setRow(row);
    }
    Cell[] cells = in.rawCells();
    List<TColumnValue> values = new ArrayList<>(cells == null ? 0 : cells.length);
    if (cells != null) {
      for (Cell cell : cells) {
        TColumnValue value = new TColumnValue();
        value.setFamily(CellUtil.cloneFamily(cell));
        value.setQualifier(CellUtil.cloneQualifier(cell));
        value.setTimestamp(cell.getTimestamp());
        value.setValue(CellUtil.cloneValue(cell));
        value.setType(cell.getType().getCode());
        byte[] tags = PrivateCellUtil.cloneTags(cell);
        if (tags.length > 0) {
          value.setTags(tags);
        }
        values.add(value);
      }
    }
    out.setColumnValues(values);
    // True when a secondary region replica answered a TIMELINE read.
    out.setStale(in.isStale());
    out.setPartial(in.mayHaveMoreCellsInRow());
    return out;
  }

  static List<TResult> results(Result[] in) {
    List<TResult> out = new ArrayList<>(in.length);
    for (Result result : in) {
      out.add(result(result));
    }
    return out;
  }

  static TTableName tableName(TableName in) {
    TTableName out = new TTableName();
    out.setNs(in.getNamespace());
    out.setQualifier(in.getQualifier());
    return out;
  }

  static List<TTableName> tableNames(List<TableName> in) {
    List<TTableName> out = new ArrayList<>(in.size());
    for (TableName name : in) {
      out.add(tableName(name));
    }
    return out;
  }

  static List<TTableDescriptor> tableDescriptors(List<TableDescriptor> in) {
    List<TTableDescriptor> out = new ArrayList<>(in.size());
    for (TableDescriptor descriptor : in) {
      out.add(tableDescriptor(descriptor));
    }
    return out;
  }

  /** As HBase's gateway: the region id is left at 0. */
  static THRegionLocation regionLocation(HRegionLocation in) {
    RegionInfo region = in.getRegion();
    ServerName server = in.getServerName();
    TServerName serverName = new TServerName();
    serverName.setHostName(server.getHostname());
    serverName.setPort(server.getPort());
    serverName.setStartCode(server.getStartcode());
    THRegionInfo info = new THRegionInfo();
    info.setTableName(region.getTable().getName());
    info.setEndKey(region.getEndKey());
    info.setStartKey(region.getStartKey());
    info.setOffline(region.isOffline());
    info.setSplit(region.isSplit());
    info.setReplicaId(region.getReplicaId());
    THRegionLocation out = new THRegionLocation();
    out.setServerName(serverName);
    out.setRegionInfo(info);
    return out;
  }

  static List<THRegionLocation> regionLocations(List<HRegionLocation> in) {
    List<THRegionLocation> out = new ArrayList<>(in.size());
    for (HRegionLocation location : in) {
      out.add(regionLocation(location));
    }
    return out;
  }

  static TNamespaceDescriptor namespaceDescriptor(NamespaceDescriptor in) {
    TNamespaceDescriptor out = new TNamespaceDescriptor();
    out.setName(in.getName());
    for (Map.Entry<String, String> setting : in.getConfiguration().entrySet()) {
      out.putToConfiguration(setting.getKey(), setting.getValue());
    }
    return out;
  }

  static List<TNamespaceDescriptor> namespaceDescriptors(NamespaceDescriptor[] in) {
    List<TNamespaceDescriptor> out = new ArrayList<>(in.length);
    for (NamespaceDescriptor descriptor : in) {
      out.add(namespaceDescriptor(descriptor));
    }
    return out;
  }

  static List<TOnlineLogRecord> logRecords(List<OnlineLogRecord> in) {
    List<TOnlineLogRecord> out = new ArrayList<>(in.size());
    for (OnlineLogRecord record : in) {
      TOnlineLogRecord t = new TOnlineLogRecord();
      t.setStartTime(record.getStartTime());
      t.setProcessingTime(record.getProcessingTime());
      t.setQueueTime(record.getQueueTime());
      t.setResponseSize(record.getResponseSize());
      t.setClientAddress(record.getClientAddress());
      t.setServerClass(record.getServerClass());
      t.setMethodName(record.getMethodName());
      t.setCallDetails(record.getCallDetails());
      t.setParam(record.getParam());
      t.setUserName(record.getUserName());
      t.setMultiGetsCount(record.getMultiGetsCount());
      t.setMultiMutationsCount(record.getMultiMutationsCount());
      t.setMultiServiceCalls(record.getMultiServiceCalls());
      if (record.getRegionName() != null) {
        t.setRegionName(record.getRegionName());
      }
      t.setBlockBytesScanned(record.getBlockBytesScanned());
      t.setFsReadTime(record.getFsReadTime());
      out.add(t);
    }
    return out;
  }

  static TTableDescriptor tableDescriptor(TableDescriptor in) {
    TTableDescriptor out = new TTableDescriptor();
    out.setTableName(tableName(in.getTableName()));
    for (Map.Entry<Bytes, Bytes> attribute : in.getValues().entrySet()) {
      out.putToAttributes(ByteBuffer.wrap(attribute.getKey().copyBytes()),
          ByteBuffer.wrap(attribute.getValue().copyBytes()));
    }
    for (ColumnFamilyDescriptor family : in.getColumnFamilies()) {
      out.addToColumns(familyDescriptor(family));
    }
    out.setDurability(durability(in.getDurability()));
    return out;
  }

  static TColumnFamilyDescriptor familyDescriptor(ColumnFamilyDescriptor in) {
    TColumnFamilyDescriptor out = new TColumnFamilyDescriptor();
    out.setName(in.getName());
    for (Map.Entry<Bytes, Bytes> attribute : in.getValues().entrySet()) {
      out.putToAttributes(ByteBuffer.wrap(attribute.getKey().copyBytes()),
          ByteBuffer.wrap(attribute.getValue().copyBytes()));
    }
    for (Map.Entry<String, String> setting : in.getConfiguration().entrySet()) {
      out.putToConfiguration(setting.getKey(), setting.getValue());
    }
    out.setBlockSize(in.getBlocksize());
    out.setBloomnFilterType(bloomType(in));
    out.setCompressionType(compression(in));
    out.setDfsReplication(in.getDFSReplication());
    out.setDataBlockEncoding(dataBlockEncoding(in));
    out.setKeepDeletedCells(keepDeletedCells(in));
    out.setMaxVersions(in.getMaxVersions());
    out.setMinVersions(in.getMinVersions());
    out.setScope(in.getScope());
    out.setTimeToLive(in.getTimeToLive());
    out.setBlockCacheEnabled(in.isBlockCacheEnabled());
    out.setCacheBloomsOnWrite(in.isCacheBloomsOnWrite());
    out.setCacheDataOnWrite(in.isCacheDataOnWrite());
    out.setCacheIndexesOnWrite(in.isCacheIndexesOnWrite());
    out.setCompressTags(in.isCompressTags());
    out.setEvictBlocksOnClose(in.isEvictBlocksOnClose());
    out.setInMemory(in.isInMemory());
    return out;
  }

  private static TDurability durability(Durability in) {
    switch (in) {
      case SKIP_WAL:
        return TDurability.SKIP_WAL;
      case ASYNC_WAL:
        return TDurability.ASYNC_WAL;
      case SYNC_WAL:
        return TDurability.SYNC_WAL;
      case FSYNC_WAL:
        return TDurability.FSYNC_WAL;
      default:
        return TDurability.USE_DEFAULT;
    }
  }

  private static TBloomFilterType bloomType(ColumnFamilyDescriptor in) {
    switch (in.getBloomFilterType()) {
      case NONE:
        return TBloomFilterType.NONE;
      case ROWCOL:
        return TBloomFilterType.ROWCOL;
      case ROWPREFIX_FIXED_LENGTH:
        return TBloomFilterType.ROWPREFIX_FIXED_LENGTH;
      default:
        return TBloomFilterType.ROW;
    }
  }

  private static TCompressionAlgorithm compression(ColumnFamilyDescriptor in) {
    switch (in.getCompressionType()) {
      case LZO:
        return TCompressionAlgorithm.LZO;
      case GZ:
        return TCompressionAlgorithm.GZ;
      case SNAPPY:
        return TCompressionAlgorithm.SNAPPY;
      case LZ4:
        return TCompressionAlgorithm.LZ4;
      case BZIP2:
        return TCompressionAlgorithm.BZIP2;
      case ZSTD:
        return TCompressionAlgorithm.ZSTD;
      default:
        return TCompressionAlgorithm.NONE;
    }
  }

  private static TDataBlockEncoding dataBlockEncoding(ColumnFamilyDescriptor in) {
    switch (in.getDataBlockEncoding()) {
      case PREFIX:
        return TDataBlockEncoding.PREFIX;
      case DIFF:
        return TDataBlockEncoding.DIFF;
      case FAST_DIFF:
        return TDataBlockEncoding.FAST_DIFF;
      case ROW_INDEX_V1:
        return TDataBlockEncoding.ROW_INDEX_V1;
      default:
        return TDataBlockEncoding.NONE;
    }
  }

  private static TKeepDeletedCells keepDeletedCells(ColumnFamilyDescriptor in) {
    switch (in.getKeepDeletedCells()) {
      case TRUE:
        return TKeepDeletedCells.TRUE;
      case TTL:
        return TKeepDeletedCells.TTL;
      default:
        return TKeepDeletedCells.FALSE;
    }
  }
}
