package rtb.hbase.gateway;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import rtb.storage.thrift2.TCompareOperator;
import rtb.storage.thrift2.TDelete;
import rtb.storage.thrift2.TGet;
import rtb.storage.thrift2.THBaseService;
import rtb.storage.thrift2.TIOError;
import rtb.storage.thrift2.TIllegalArgument;
import rtb.storage.thrift2.TIncrement;
import rtb.storage.thrift2.TPut;
import rtb.storage.thrift2.TResult;
import rtb.storage.thrift2.TRowMutations;
import rtb.storage.thrift2.TScan;
import rtb.storage.thrift2.TTableDescriptor;
import rtb.storage.thrift2.TTableName;

/**
 * THBaseService on one shared HBase connection, call for call what HBase's own gateway does
 * (org.apache.hadoop.hbase.thrift2.ThriftHBaseServiceHandler, HBase 2.6).
 *
 * <p>What a client sees on errors:
 *
 * <ul>
 *   <li>IOException from HBase: TIOError with the exception's message and canRetry false exactly
 *       for DoNotRetryIOExceptions (unknown table or family, a counter that is not 8 bytes, ...);
 *   <li>an unknown scanner id in getScannerRows: TIllegalArgument "Invalid scanner Id";
 *       closeScanner of an unknown id does nothing (HBase 2.x: the scanner may have expired);
 *   <li>input HBase's client refuses (IllegalArgumentException: a bad filter string, an empty
 *       row, a missing argument): TIllegalArgument where the call declares it, else TIOError
 *       "java.lang.IllegalArgumentException: ..." with canRetry false. HBase's gateway lets
 *       these escape, and the client gets a bare "Internal error processing" instead;
 *   <li>anything else: a TApplicationException (INTERNAL_ERROR) naming the failure.
 * </ul>
 */
final class HBaseService implements THBaseService.Iface {
  private static final Logger LOG = LoggerFactory.getLogger(HBaseService.class);

  private final Connection connection;
  private final Scanners scanners;
  private final AtomicInteger callsInFlight = new AtomicInteger();
  private volatile boolean draining;

  HBaseService(Connection connection, Scanners scanners) {
    this.connection = connection;
    this.scanners = scanners;
  }

  // ---- Data ----------------------------------------------------------------

  @Override
  public TResult get(ByteBuffer table, TGet tget) throws TException {
    return call("get", false, () -> {
      try (Table t = table(table)) {
        return ToThrift.result(t.get(FromThrift.get(tget)));
      }
    });
  }

  @Override
  public List<TResult> getMultiple(ByteBuffer table, List<TGet> tgets) throws TException {
    return call("getMultiple", false, () -> {
      try (Table t = table(table)) {
        return ToThrift.results(t.get(FromThrift.gets(tgets)));
      }
    });
  }

  @Override
  public void put(ByteBuffer table, TPut tput) throws TException {
    call("put", false, () -> {
      try (Table t = table(table)) {
        t.put(FromThrift.put(tput));
      }
      return null;
    });
  }

  @Override
  public void putMultiple(ByteBuffer table, List<TPut> tputs) throws TException {
    call("putMultiple", false, () -> {
      try (Table t = table(table)) {
        t.put(FromThrift.puts(tputs));
      }
      return null;
    });
  }

  @Override
  public void deleteSingle(ByteBuffer table, TDelete tdelete) throws TException {
    call("deleteSingle", false, () -> {
      try (Table t = table(table)) {
        t.delete(FromThrift.delete(tdelete));
      }
      return null;
    });
  }

  /**
   * Any failed delete fails the call with TIOError; the answer is always empty, as HBase's gateway
   * answers it (the list is kept for old clients).
   */
  @Override
  public List<TDelete> deleteMultiple(ByteBuffer table, List<TDelete> tdeletes) throws TException {
    return call("deleteMultiple", false, () -> {
      try (Table t = table(table)) {
        t.delete(FromThrift.deletes(tdeletes));
      }
      return Collections.emptyList();
    });
  }

  @Override
  public TResult increment(ByteBuffer table, TIncrement tincrement) throws TException {
    return call("increment", false, () -> {
      try (Table t = table(table)) {
        return ToThrift.result(t.increment(FromThrift.increment(tincrement)));
      }
    });
  }

  @Override
  public void mutateRow(ByteBuffer table, TRowMutations trowMutations) throws TException {
    call("mutateRow", false, () -> {
      try (Table t = table(table)) {
        t.mutateRow(FromThrift.rowMutations(trowMutations));
      }
      return null;
    });
  }

  /**
   * Applies the mutations when "value OP stored value" holds for the cell (row, family,
   * qualifier): LESS succeeds when the given value sorts before the stored one. An empty or unset
   * value checks that the cell is absent.
   */
  @Override
  public boolean checkAndMutate(ByteBuffer table, ByteBuffer row, ByteBuffer family,
      ByteBuffer qualifier, TCompareOperator compareOperator, ByteBuffer value,
      TRowMutations rowMutations) throws TException {
    return call("checkAndMutate", false, () -> {
      CheckAndMutate check = CheckAndMutate.newBuilder(FromThrift.bytes(required(row, "row")))
          .ifMatches(FromThrift.bytes(required(family, "family")),
              FromThrift.bytes(required(qualifier, "qualifier")),
              FromThrift.compareOperator(compareOperator),
              value == null ? new byte[0] : FromThrift.bytes(value))
          .build(FromThrift.rowMutations(rowMutations));
      try (Table t = table(table)) {
        return t.checkAndMutate(check).isSuccess();
      }
    });
  }

  // ---- Scanners ------------------------------------------------------------

  @Override
  public int openScanner(ByteBuffer table, TScan tscan) throws TException {
    return call("openScanner", false, () -> {
      try (Table t = table(table)) {
        return scanners.add(t.getScanner(FromThrift.scan(tscan)));
      }
    });
  }

  @Override
  public List<TResult> getScannerRows(int scannerId, int numRows) throws TException {
    return call("getScannerRows", true, () -> {
      Result[] rows = scanners.next(scannerId, numRows);
      if (rows == null) {
        throw illegalArgument("Invalid scanner Id");
      }
      return ToThrift.results(rows);
    });
  }

  @Override
  public void closeScanner(int scannerId) throws TException {
    call("closeScanner", true, () -> {
      if (!scanners.close(scannerId)) {
        LOG.debug("closeScanner: no scanner {} (closed or expired)", scannerId);
      }
      return null;
    });
  }

  @Override
  public List<TResult> getScannerResults(ByteBuffer table, TScan tscan, int numRows)
      throws TException {
    return call("getScannerResults", false, () -> {
      try (Table t = table(table); ResultScanner scanner = t.getScanner(FromThrift.scan(tscan))) {
        return ToThrift.results(scanner.next(numRows));
      }
    });
  }

  // ---- Tables ----------------------------------------------------------------

  @Override
  public TTableDescriptor getTableDescriptor(TTableName tableName) throws TException {
    return call("getTableDescriptor", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return ToThrift.tableDescriptor(admin.getDescriptor(FromThrift.tableName(tableName)));
      }
    });
  }

  @Override
  public boolean tableExists(TTableName tableName) throws TException {
    return call("tableExists", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return admin.tableExists(FromThrift.tableName(tableName));
      }
    });
  }

  /** Returns once the table's regions (and their replicas) are assigned. */
  @Override
  public void createTable(TTableDescriptor desc, List<ByteBuffer> splitKeys) throws TException {
    call("createTable", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.createTable(FromThrift.tableDescriptor(desc), FromThrift.splitKeys(splitKeys));
      }
      return null;
    });
  }

  @Override
  public void deleteTable(TTableName tableName) throws TException {
    call("deleteTable", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.deleteTable(FromThrift.tableName(tableName));
      }
      return null;
    });
  }

  @Override
  public void enableTable(TTableName tableName) throws TException {
    call("enableTable", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.enableTable(FromThrift.tableName(tableName));
      }
      return null;
    });
  }

  @Override
  public void disableTable(TTableName tableName) throws TException {
    call("disableTable", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.disableTable(FromThrift.tableName(tableName));
      }
      return null;
    });
  }

  @Override
  public boolean isTableEnabled(TTableName tableName) throws TException {
    return call("isTableEnabled", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return admin.isTableEnabled(FromThrift.tableName(tableName));
      }
    });
  }

  // ---- Shutdown ----------------------------------------------------------------

  /**
   * Refuses new calls and waits up to {@code timeoutMs} for the running ones to finish; false
   * if some still run then.
   */
  boolean drain(long timeoutMs) throws InterruptedException {
    draining = true;
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (callsInFlight.get() > 0) {
      if (System.nanoTime() >= deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  // ---- Calls and errors ----------------------------------------------------------

  @FunctionalInterface
  private interface Body<T> {
    T run() throws IOException, TException;
  }

  /**
   * Runs one call, turning failures into what goes on the wire. {@code illegalArgumentDeclared}:
   * the call declares TIllegalArgument.
   */
  private <T> T call(String method, boolean illegalArgumentDeclared, Body<T> body)
      throws TException {
    callsInFlight.incrementAndGet();
    try {
      if (draining) {
        throw ioError("the Thrift2 gateway is shutting down", true);
      }
      return body.run();
    } catch (IOException e) {
      LOG.debug("{} failed", method, e);
      throw ioError(e);
    } catch (IllegalArgumentException e) {
      LOG.debug("{}: bad argument", method, e);
      if (illegalArgumentDeclared) {
        throw illegalArgument(e.getMessage());
      }
      throw ioError(e.toString(), false);
    } catch (RuntimeException e) {
      LOG.error("{} failed unexpectedly", method, e);
      throw new TApplicationException(TApplicationException.INTERNAL_ERROR,
          "Internal error processing " + method + ": " + e);
    } finally {
      callsInFlight.decrementAndGet();
    }
  }

  private static TIOError ioError(IOException e) {
    return ioError(e.getMessage(), !(e instanceof DoNotRetryIOException));
  }

  private static TIOError ioError(String message, boolean canRetry) {
    TIOError error = new TIOError();
    error.setMessage(message);
    error.setCanRetry(canRetry);
    return error;
  }

  private static TIllegalArgument illegalArgument(String message) {
    TIllegalArgument error = new TIllegalArgument();
    error.setMessage(message);
    return error;
  }

  private Table table(ByteBuffer name) throws IOException {
    return connection.getTable(FromThrift.tableName(name));
  }

  private static <T> T required(T value, String what) {
    return FromThrift.required(value, what);
  }
}
