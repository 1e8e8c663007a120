package rtb.gateway;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Consistency;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.generated.FilterProtos;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.thrift.TBaseHelper;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.layered.TFramedTransport;
import rtb.storage.thrift2.TBloomFilterType;
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
import rtb.storage.thrift2.TGet;
import rtb.storage.thrift2.THBaseService;
import rtb.storage.thrift2.TIOError;
import rtb.storage.thrift2.TIllegalArgument;
import rtb.storage.thrift2.TIncrement;
import rtb.storage.thrift2.TKeepDeletedCells;
import rtb.storage.thrift2.TMutation;
import rtb.storage.thrift2.TPut;
import rtb.storage.thrift2.TResult;
import rtb.storage.thrift2.TRowMutations;
import rtb.storage.thrift2.TScan;
import rtb.storage.thrift2.TTableDescriptor;
import rtb.storage.thrift2.TTableName;

/**
 * A THBaseService (Thrift2) gateway in front of a real HBase cluster, for the hbase backend's
 * integration tests on machines whose Maven repository does not serve HBase's own hbase-thrift
 * artifact. It speaks the wire of storage/thrift/hbase.thrift (HBase 2.x's field ids and enum
 * values) and maps each call to the HBase Java client the way HBase's gateway does: same
 * conversions, same errors (an IOException becomes TIOError with its message and canRetry set
 * unless it is a DoNotRetryIOException; anything else surfaces as a Thrift application error).
 * Storage semantics (TTL, versions, delete markers, checks, filters, replicas) are HBase's own.
 *
 * <p>Usage: Thrift2Gateway PORT [framed]. The cluster is found through hbase-site.xml on the
 * classpath. Binds 127.0.0.1 only.
 */
public final class Thrift2Gateway {
  private Thrift2Gateway() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 2 || (args.length == 2 && !args[1].equals("framed"))) {
      System.err.println("usage: Thrift2Gateway PORT [framed]");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    boolean framed = args.length == 2;
    Configuration conf = HBaseConfiguration.create();
    Connection connection = ConnectionFactory.createConnection(conf);
    THBaseService.Processor<Handler> processor =
        new THBaseService.Processor<>(new Handler(connection));
    TServerSocket socket = new TServerSocket(new java.net.InetSocketAddress("127.0.0.1", port));
    TThreadPoolServer.Args serverArgs =
        new TThreadPoolServer.Args(socket)
            .processor(processor)
            .protocolFactory(new TBinaryProtocol.Factory())
            .minWorkerThreads(4)
            .maxWorkerThreads(256);
    if (framed) serverArgs.transportFactory(new TFramedTransport.Factory());
    TServer server = new TThreadPoolServer(serverArgs);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.stop();
      try {
        connection.close();
      } catch (IOException ignored) {
        // exiting anyway
      }
    }));
    System.out.println("Thrift2Gateway listening on 127.0.0.1:" + port + (framed ? " framed" : ""));
    server.serve();
  }

  static final class Handler implements THBaseService.Iface {
    private final Connection connection;
    private final AtomicInteger nextScannerId = new AtomicInteger(0);
    private final Map<Integer, ResultScanner> scanners = new ConcurrentHashMap<>();

    Handler(Connection connection) {
      this.connection = connection;
    }

    private static TIOError ioError(IOException e) {
      TIOError err = new TIOError();
      err.setMessage(e.getMessage());
      err.setCanRetry(!(e instanceof DoNotRetryIOException));
      return err;
    }

    private static byte[] bytes(ByteBuffer b) {
      return TBaseHelper.byteBufferToByteArray(b);
    }

    private Table table(ByteBuffer name) throws IOException {
      return connection.getTable(TableName.valueOf(bytes(name)));
    }

    // ---- conversions (as HBase's ThriftUtilities) ----

    private static Get getFromThrift(TGet in) throws IOException {
      Get out = new Get(in.getRow());
      if (in.isSetTimestamp()) {
        out.setTimestamp(in.getTimestamp());
      } else if (in.isSetTimeRange()) {
        out.setTimeRange(in.getTimeRange().getMinStamp(), in.getTimeRange().getMaxStamp());
      }
      if (in.isSetMaxVersions()) out.readVersions(in.getMaxVersions());
      if (in.isSetAttributes()) {
        for (Map.Entry<ByteBuffer, ByteBuffer> a : in.getAttributes().entrySet()) {
          out.setAttribute(Bytes.toStringBinary(bytes(a.getKey())), bytes(a.getValue()));
        }
      }
      if (in.isSetConsistency()) out.setConsistency(consistency(in.getConsistency()));
      if (in.isSetTargetReplicaId()) out.setReplicaId(in.getTargetReplicaId());
      if (in.isSetCacheBlocks()) out.setCacheBlocks(in.isCacheBlocks());
      if (in.isSetColumns()) {
        for (TColumn c : in.getColumns()) {
          if (c.isSetQualifier()) {
            out.addColumn(c.getFamily(), c.getQualifier());
          } else {
            out.addFamily(c.getFamily());
          }
        }
      }
      if (in.isSetFilterBytes()) out.setFilter(filterFromThrift(in.getFilterBytes()));
      return out;
    }

    private static Filter filterFromThrift(byte[] filterBytes) throws IOException {
      return ProtobufUtil.toFilter(FilterProtos.Filter.parseFrom(filterBytes));
    }

    private static Consistency consistency(TConsistency c) {
      return c == TConsistency.TIMELINE ? Consistency.TIMELINE : Consistency.STRONG;
    }

    private static Durability durability(TDurability d) {
      switch (d) {
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

    private static TDurability durability(Durability d) {
      switch (d) {
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

    private static TResult resultFromHBase(Result in) {
      TResult out = new TResult();
      if (in.getRow() != null) out.setRow(in.getRow());
      List<TColumnValue> values = new ArrayList<>();
      for (Cell c : in.rawCells()) {
        TColumnValue v = new TColumnValue();
        v.setFamily(CellUtil.cloneFamily(c));
        v.setQualifier(CellUtil.cloneQualifier(c));
        v.setTimestamp(c.getTimestamp());
        v.setValue(CellUtil.cloneValue(c));
        v.setType(c.getType().getCode());
        values.add(v);
      }
      out.setColumnValues(values);
      out.setStale(in.isStale());
      out.setPartial(in.mayHaveMoreCellsInRow());
      return out;
    }

    private static List<TResult> resultsFromHBase(Result[] in) {
      List<TResult> out = new ArrayList<>(in.length);
      for (Result r : in) out.add(resultFromHBase(r));
      return out;
    }

    private static void addAttributes(org.apache.hadoop.hbase.client.OperationWithAttributes op,
        Map<ByteBuffer, ByteBuffer> attributes) {
      if (attributes == null) return;
      for (Map.Entry<ByteBuffer, ByteBuffer> a : attributes.entrySet()) {
        op.setAttribute(Bytes.toStringBinary(bytes(a.getKey())), bytes(a.getValue()));
      }
    }

    private static Put putFromThrift(TPut in) {
      Put out = in.isSetTimestamp() ? new Put(in.getRow(), in.getTimestamp()) : new Put(in.getRow());
      if (in.isSetDurability()) out.setDurability(durability(in.getDurability()));
      for (TColumnValue v : in.getColumnValues()) {
        if (v.isSetTimestamp()) {
          out.addColumn(v.getFamily(), v.getQualifier(), v.getTimestamp(), v.getValue());
        } else {
          out.addColumn(v.getFamily(), v.getQualifier(), v.getValue());
        }
      }
      if (in.isSetAttributes()) addAttributes(out, in.getAttributes());
      return out;
    }

    private static Delete deleteFromThrift(TDelete in) {
      Delete out;
      if (in.isSetColumns()) {
        out = new Delete(in.getRow());
        for (TColumn c : in.getColumns()) {
          if (!in.isSetDeleteType()) {
            throw new IllegalArgumentException("DeleteType is required for TDelete");
          }
          switch (in.getDeleteType()) {
            case DELETE_COLUMN:
              if (c.isSetTimestamp()) {
                out.addColumn(c.getFamily(), c.getQualifier(), c.getTimestamp());
              } else {
                out.addColumn(c.getFamily(), c.getQualifier());
              }
              break;
            case DELETE_COLUMNS:
              if (c.isSetTimestamp()) {
                out.addColumns(c.getFamily(), c.getQualifier(), c.getTimestamp());
              } else {
                out.addColumns(c.getFamily(), c.getQualifier());
              }
              break;
            case DELETE_FAMILY:
              if (c.isSetTimestamp()) {
                out.addFamily(c.getFamily(), c.getTimestamp());
              } else {
                out.addFamily(c.getFamily());
              }
              break;
            case DELETE_FAMILY_VERSION:
              if (!c.isSetTimestamp()) {
                throw new IllegalArgumentException(
                    "Timestamp is required for TDelete with DeleteFamilyVersion type");
              }
              out.addFamilyVersion(c.getFamily(), c.getTimestamp());
              break;
            default:
              throw new IllegalArgumentException("unknown delete type " + in.getDeleteType());
          }
        }
      } else {
        out = in.isSetTimestamp() ? new Delete(in.getRow(), in.getTimestamp()) : new Delete(in.getRow());
      }
      if (in.isSetAttributes()) addAttributes(out, in.getAttributes());
      if (in.isSetDurability()) out.setDurability(durability(in.getDurability()));
      return out;
    }

    private static RowMutations rowMutationsFromThrift(TRowMutations in) throws IOException {
      RowMutations out = new RowMutations(in.getRow());
      for (TMutation m : in.getMutations()) {
        if (m.isSetPut()) out.add(putFromThrift(m.getPut()));
        if (m.isSetDeleteSingle()) out.add(deleteFromThrift(m.getDeleteSingle()));
      }
      return out;
    }

    private static Scan scanFromThrift(TScan in) throws IOException {
      Scan out = new Scan();
      if (in.isSetStartRow()) out.withStartRow(in.getStartRow());
      if (in.isSetStopRow()) out.withStopRow(in.getStopRow());
      if (in.isSetCaching()) out.setCaching(in.getCaching());
      if (in.isSetMaxVersions()) out.readVersions(in.getMaxVersions());
      if (in.isSetColumns()) {
        for (TColumn c : in.getColumns()) {
          if (c.isSetQualifier()) {
            out.addColumn(c.getFamily(), c.getQualifier());
          } else {
            out.addFamily(c.getFamily());
          }
        }
      }
      if (in.isSetTimeRange()) {
        out.setTimeRange(in.getTimeRange().getMinStamp(), in.getTimeRange().getMaxStamp());
      }
      if (in.isSetBatchSize()) out.setBatch(in.getBatchSize());
      if (in.isSetAttributes()) addAttributes(out, in.getAttributes());
      if (in.isSetReversed()) out.setReversed(in.isReversed());
      if (in.isSetCacheBlocks()) out.setCacheBlocks(in.isCacheBlocks());
      if (in.isSetLimit()) out.setLimit(in.getLimit());
      if (in.isSetConsistency()) out.setConsistency(consistency(in.getConsistency()));
      if (in.isSetTargetReplicaId()) out.setReplicaId(in.getTargetReplicaId());
      if (in.isSetFilterBytes()) out.setFilter(filterFromThrift(in.getFilterBytes()));
      return out;
    }

    private static CompareOperator compareOp(TCompareOperator op) {
      switch (op) {
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
        default:
          return CompareOperator.NO_OP;
      }
    }

    private static TableName tableName(TTableName in) {
      return in.isSetNs()
          ? TableName.valueOf(in.getNs(), in.getQualifier())
          : TableName.valueOf(in.getQualifier());
    }

    private static ColumnFamilyDescriptor familyFromThrift(TColumnFamilyDescriptor in) {
      ColumnFamilyDescriptorBuilder b = ColumnFamilyDescriptorBuilder.newBuilder(in.getName());
      if (in.isSetAttributes()) {
        for (Map.Entry<ByteBuffer, ByteBuffer> a : in.getAttributes().entrySet()) {
          b.setValue(bytes(a.getKey()), bytes(a.getValue()));
        }
      }
      if (in.isSetConfiguration()) {
        for (Map.Entry<String, String> c : in.getConfiguration().entrySet()) {
          b.setConfiguration(c.getKey(), c.getValue());
        }
      }
      if (in.isSetBlockSize()) b.setBlocksize(in.getBlockSize());
      if (in.isSetBloomnFilterType()) {
        switch (in.getBloomnFilterType()) {
          case NONE:
            b.setBloomFilterType(BloomType.NONE);
            break;
          case ROWCOL:
            b.setBloomFilterType(BloomType.ROWCOL);
            break;
          case ROWPREFIX_FIXED_LENGTH:
            b.setBloomFilterType(BloomType.ROWPREFIX_FIXED_LENGTH);
            break;
          default:
            b.setBloomFilterType(BloomType.ROW);
        }
      }
      if (in.isSetCompressionType()) {
        b.setCompressionType(Compression.Algorithm.valueOf(in.getCompressionType().name()));
      }
      if (in.isSetDataBlockEncoding()) {
        b.setDataBlockEncoding(DataBlockEncoding.valueOf(in.getDataBlockEncoding().name()));
      }
      if (in.isSetKeepDeletedCells()) {
        b.setKeepDeletedCells(KeepDeletedCells.valueOf(in.getKeepDeletedCells().name()));
      }
      if (in.isSetMaxVersions()) b.setMaxVersions(in.getMaxVersions());
      if (in.isSetMinVersions()) b.setMinVersions(in.getMinVersions());
      if (in.isSetTimeToLive()) b.setTimeToLive(in.getTimeToLive());
      if (in.isSetBlockCacheEnabled()) b.setBlockCacheEnabled(in.isBlockCacheEnabled());
      if (in.isSetInMemory()) b.setInMemory(in.isInMemory());
      return b.build();
    }

    private static TColumnFamilyDescriptor familyFromHBase(ColumnFamilyDescriptor in) {
      TColumnFamilyDescriptor out = new TColumnFamilyDescriptor();
      out.setName(in.getName());
      for (Map.Entry<Bytes, Bytes> a : in.getValues().entrySet()) {
        out.putToAttributes(ByteBuffer.wrap(a.getKey().get()), ByteBuffer.wrap(a.getValue().get()));
      }
      for (Map.Entry<String, String> c : in.getConfiguration().entrySet()) {
        out.putToConfiguration(c.getKey(), c.getValue());
      }
      out.setBlockSize(in.getBlocksize());
      switch (in.getBloomFilterType()) {
        case NONE:
          out.setBloomnFilterType(TBloomFilterType.NONE);
          break;
        case ROWCOL:
          out.setBloomnFilterType(TBloomFilterType.ROWCOL);
          break;
        case ROWPREFIX_FIXED_LENGTH:
          out.setBloomnFilterType(TBloomFilterType.ROWPREFIX_FIXED_LENGTH);
          break;
        default:
          out.setBloomnFilterType(TBloomFilterType.ROW);
      }
      out.setCompressionType(TCompressionAlgorithm.valueOf(in.getCompressionType().name()));
      out.setDataBlockEncoding(TDataBlockEncoding.valueOf(in.getDataBlockEncoding().name()));
      out.setKeepDeletedCells(TKeepDeletedCells.valueOf(in.getKeepDeletedCells().name()));
      out.setMaxVersions(in.getMaxVersions());
      out.setMinVersions(in.getMinVersions());
      out.setScope(in.getScope());
      out.setTimeToLive(in.getTimeToLive());
      out.setBlockCacheEnabled(in.isBlockCacheEnabled());
      out.setInMemory(in.isInMemory());
      return out;
    }

    // ---- THBaseService ----

    @Override
    public TResult get(ByteBuffer table, TGet tget) throws TIOError, TException {
      try (Table t = table(table)) {
        return resultFromHBase(t.get(getFromThrift(tget)));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public List<TResult> getMultiple(ByteBuffer table, List<TGet> tgets) throws TIOError, TException {
      try (Table t = table(table)) {
        List<Get> gets = new ArrayList<>(tgets.size());
        for (TGet g : tgets) gets.add(getFromThrift(g));
        return resultsFromHBase(t.get(gets));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public void put(ByteBuffer table, TPut tput) throws TIOError, TException {
      try (Table t = table(table)) {
        t.put(putFromThrift(tput));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public void putMultiple(ByteBuffer table, List<TPut> tputs) throws TIOError, TException {
      try (Table t = table(table)) {
        List<Put> puts = new ArrayList<>(tputs.size());
        for (TPut p : tputs) puts.add(putFromThrift(p));
        t.put(puts);
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public void deleteSingle(ByteBuffer table, TDelete tdelete) throws TIOError, TException {
      try (Table t = table(table)) {
        t.delete(deleteFromThrift(tdelete));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public List<TDelete> deleteMultiple(ByteBuffer table, List<TDelete> tdeletes)
        throws TIOError, TException {
      try (Table t = table(table)) {
        List<Delete> deletes = new ArrayList<>(tdeletes.size());
        for (TDelete d : tdeletes) deletes.add(deleteFromThrift(d));
        t.delete(deletes);
      } catch (IOException e) {
        throw ioError(e);
      }
      return Collections.emptyList();
    }

    @Override
    public TResult increment(ByteBuffer table, TIncrement tincrement) throws TIOError, TException {
      try (Table t = table(table)) {
        Increment inc = new Increment(tincrement.getRow());
        for (TColumnIncrement c : tincrement.getColumns()) {
          inc.addColumn(c.getFamily(), c.getQualifier(), c.getAmount());
        }
        if (tincrement.isSetAttributes()) addAttributes(inc, tincrement.getAttributes());
        if (tincrement.isSetDurability()) inc.setDurability(durability(tincrement.getDurability()));
        if (tincrement.isSetReturnResults()) inc.setReturnResults(tincrement.isReturnResults());
        return resultFromHBase(t.increment(inc));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public int openScanner(ByteBuffer table, TScan tscan) throws TIOError, TException {
      try (Table t = table(table)) {
        ResultScanner scanner = t.getScanner(scanFromThrift(tscan));
        int id = nextScannerId.getAndIncrement();
        scanners.put(id, scanner);
        return id;
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public List<TResult> getScannerRows(int scannerId, int numRows)
        throws TIOError, TIllegalArgument, TException {
      ResultScanner scanner = scanners.get(scannerId);
      if (scanner == null) {
        TIllegalArgument ex = new TIllegalArgument();
        ex.setMessage("Invalid scanner Id");
        throw ex;
      }
      try {
        return resultsFromHBase(scanner.next(numRows));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public void closeScanner(int scannerId) throws TIOError, TIllegalArgument, TException {
      ResultScanner scanner = scanners.remove(scannerId);
      if (scanner == null) {
        TIllegalArgument ex = new TIllegalArgument();
        ex.setMessage("Invalid scanner Id");
        throw ex;
      }
      scanner.close();
    }

    @Override
    public void mutateRow(ByteBuffer table, TRowMutations trowMutations) throws TIOError, TException {
      try (Table t = table(table)) {
        t.mutateRow(rowMutationsFromThrift(trowMutations));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public List<TResult> getScannerResults(ByteBuffer table, TScan tscan, int numRows)
        throws TIOError, TException {
      try (Table t = table(table); ResultScanner scanner = t.getScanner(scanFromThrift(tscan))) {
        return resultsFromHBase(scanner.next(numRows));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    @SuppressWarnings("deprecation")
    public boolean checkAndMutate(ByteBuffer table, ByteBuffer row, ByteBuffer family,
        ByteBuffer qualifier, TCompareOperator compareOperator, ByteBuffer value,
        TRowMutations rowMutations) throws TIOError, TException {
      try (Table t = table(table)) {
        return t.checkAndMutate(bytes(row), bytes(family))
            .qualifier(bytes(qualifier))
            .ifMatches(compareOp(compareOperator), bytes(value))
            .thenMutate(rowMutationsFromThrift(rowMutations));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public TTableDescriptor getTableDescriptor(TTableName table) throws TIOError, TException {
      try (Admin admin = connection.getAdmin()) {
        TableDescriptor in = admin.getDescriptor(tableName(table));
        TTableDescriptor out = new TTableDescriptor();
        TTableName name = new TTableName();
        name.setNs(in.getTableName().getNamespace());
        name.setQualifier(in.getTableName().getQualifier());
        out.setTableName(name);
        for (Map.Entry<Bytes, Bytes> a : in.getValues().entrySet()) {
          out.putToAttributes(ByteBuffer.wrap(a.getKey().get()), ByteBuffer.wrap(a.getValue().get()));
        }
        for (ColumnFamilyDescriptor c : in.getColumnFamilies()) out.addToColumns(familyFromHBase(c));
        out.setDurability(durability(in.getDurability()));
        return out;
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public boolean tableExists(TTableName tableName) throws TIOError, TException {
      try (Admin admin = connection.getAdmin()) {
        return admin.tableExists(tableName(tableName));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public void createTable(TTableDescriptor desc, List<ByteBuffer> splitKeys)
        throws TIOError, TException {
      TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(tableName(desc.getTableName()));
      for (TColumnFamilyDescriptor c : desc.getColumns()) b.setColumnFamily(familyFromThrift(c));
      if (desc.isSetAttributes()) {
        for (Map.Entry<ByteBuffer, ByteBuffer> a : desc.getAttributes().entrySet()) {
          b.setValue(bytes(a.getKey()), bytes(a.getValue()));
        }
      }
      if (desc.isSetDurability()) b.setDurability(durability(desc.getDurability()));
      byte[][] splits = null;
      if (splitKeys != null && !splitKeys.isEmpty()) {
        splits = new byte[splitKeys.size()][];
        for (int i = 0; i < splits.length; i++) splits[i] = bytes(splitKeys.get(i));
      }
      try (Admin admin = connection.getAdmin()) {
        admin.createTable(b.build(), splits);
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public void deleteTable(TTableName tableName) throws TIOError, TException {
      try (Admin admin = connection.getAdmin()) {
        admin.deleteTable(tableName(tableName));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public void enableTable(TTableName tableName) throws TIOError, TException {
      try (Admin admin = connection.getAdmin()) {
        admin.enableTable(tableName(tableName));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public void disableTable(TTableName tableName) throws TIOError, TException {
      try (Admin admin = connection.getAdmin()) {
        admin.disableTable(tableName(tableName));
      } catch (IOException e) {
        throw ioError(e);
      }
    }

    @Override
    public boolean isTableEnabled(TTableName tableName) throws TIOError, TException {
      try (Admin admin = connection.getAdmin()) {
        return admin.isTableEnabled(tableName(tableName));
      } catch (IOException e) {
        throw ioError(e);
      }
    }
  }
}
