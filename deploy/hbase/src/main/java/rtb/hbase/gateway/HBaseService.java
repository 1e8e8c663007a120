package rtb.hbase.gateway;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import rtb.storage.thrift2.TAccessControlEntity;
import rtb.storage.thrift2.TAppend;
import rtb.storage.thrift2.TColumnFamilyDescriptor;
import rtb.storage.thrift2.TCompareOperator;
import rtb.storage.thrift2.TDelete;
import rtb.storage.thrift2.TGet;
import rtb.storage.thrift2.THBaseService;
import rtb.storage.thrift2.THRegionLocation;
import rtb.storage.thrift2.TIOError;
import rtb.storage.thrift2.TIllegalArgument;
import rtb.storage.thrift2.TIncrement;
import rtb.storage.thrift2.TLogQueryFilter;
import rtb.storage.thrift2.TNamespaceDescriptor;
import rtb.storage.thrift2.TOnlineLogRecord;
import rtb.storage.thrift2.TPermissionScope;
import rtb.storage.thrift2.TPut;
import rtb.storage.thrift2.TResult;
import rtb.storage.thrift2.TRowMutations;
import rtb.storage.thrift2.TScan;
import rtb.storage.thrift2.TServerName;
import rtb.storage.thrift2.TTableDescriptor;
import rtb.storage.thrift2.TTableName;
import rtb.storage.thrift2.TThriftServerType;

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
  public boolean exists(ByteBuffer table, TGet tget) throws TException {
    return call("exists", false, () -> {
      try (Table t = table(table)) {
        return t.exists(FromThrift.get(tget));
      }
    });
  }

  @Override
  public List<Boolean> existsAll(ByteBuffer table, List<TGet> tgets) throws TException {
    return call("existsAll", false, () -> {
      try (Table t = table(table)) {
        boolean[] found = t.exists(FromThrift.gets(tgets));
        List<Boolean> out = new ArrayList<>(found.length);
        for (boolean f : found) {
          out.add(f);
        }
        return out;
      }
    });
  }

  /** An unset value checks that the cell is absent; otherwise it must equal the stored value. */
  @Override
  public boolean checkAndPut(ByteBuffer table, ByteBuffer row, ByteBuffer family,
      ByteBuffer qualifier, ByteBuffer value, TPut tput) throws TException {
    return call("checkAndPut", false, () -> {
      CheckAndMutate check = checkEquals(row, family, qualifier, value)
          .build(FromThrift.put(required(tput, "put")));
      try (Table t = table(table)) {
        return t.checkAndMutate(check).isSuccess();
      }
    });
  }

  @Override
  public boolean checkAndDelete(ByteBuffer table, ByteBuffer row, ByteBuffer family,
      ByteBuffer qualifier, ByteBuffer value, TDelete tdelete) throws TException {
    return call("checkAndDelete", false, () -> {
      CheckAndMutate check = checkEquals(row, family, qualifier, value)
          .build(FromThrift.delete(required(tdelete, "delete")));
      try (Table t = table(table)) {
        return t.checkAndMutate(check).isSuccess();
      }
    });
  }

  @Override
  public TResult append(ByteBuffer table, TAppend tappend) throws TException {
    return call("append", false, () -> {
      try (Table t = table(table)) {
        return ToThrift.result(t.append(FromThrift.append(tappend)));
      }
    });
  }

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

  // ---- Regions ---------------------------------------------------------------

  @Override
  public THRegionLocation getRegionLocation(ByteBuffer table, ByteBuffer row, boolean reload)
      throws TException {
    return call("getRegionLocation", false, () -> {
      try (RegionLocator locator = connection.getRegionLocator(FromThrift.tableName(table))) {
        return ToThrift.regionLocation(
            locator.getRegionLocation(FromThrift.bytes(required(row, "row")), reload));
      }
    });
  }

  @Override
  public List<THRegionLocation> getAllRegionLocations(ByteBuffer table) throws TException {
    return call("getAllRegionLocations", false, () -> {
      try (RegionLocator locator = connection.getRegionLocator(FromThrift.tableName(table))) {
        return ToThrift.regionLocations(locator.getAllRegionLocations());
      }
    });
  }

  // ---- Tables ----------------------------------------------------------------

  @Override
  public List<TTableDescriptor> getTableDescriptors(List<TTableName> tables) throws TException {
    return call("getTableDescriptors", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return ToThrift.tableDescriptors(
            admin.listTableDescriptors(FromThrift.tableNames(tables)));
      }
    });
  }

  @Override
  public List<TTableDescriptor> getTableDescriptorsByPattern(String regex,
      boolean includeSysTables) throws TException {
    return call("getTableDescriptorsByPattern", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return ToThrift.tableDescriptors(
            admin.listTableDescriptors(pattern(regex), includeSysTables));
      }
    });
  }

  @Override
  public List<TTableDescriptor> getTableDescriptorsByNamespace(String name) throws TException {
    return call("getTableDescriptorsByNamespace", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return ToThrift.tableDescriptors(admin.listTableDescriptorsByNamespace(
            Bytes.toBytes(required(name, "namespace name"))));
      }
    });
  }

  @Override
  public List<TTableName> getTableNamesByPattern(String regex, boolean includeSysTables)
      throws TException {
    return call("getTableNamesByPattern", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return ToThrift.tableNames(
            Arrays.asList(admin.listTableNames(pattern(regex), includeSysTables)));
      }
    });
  }

  @Override
  public List<TTableName> getTableNamesByNamespace(String name) throws TException {
    return call("getTableNamesByNamespace", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return ToThrift.tableNames(
            Arrays.asList(admin.listTableNamesByNamespace(required(name, "namespace name"))));
      }
    });
  }

  @Override
  public void truncateTable(TTableName tableName, boolean preserveSplits) throws TException {
    call("truncateTable", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.truncateTable(FromThrift.tableName(tableName), preserveSplits);
      }
      return null;
    });
  }

  @Override
  public boolean isTableDisabled(TTableName tableName) throws TException {
    return call("isTableDisabled", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return admin.isTableDisabled(FromThrift.tableName(tableName));
      }
    });
  }

  @Override
  public boolean isTableAvailable(TTableName tableName) throws TException {
    return call("isTableAvailable", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return admin.isTableAvailable(FromThrift.tableName(tableName));
      }
    });
  }

  /** The split keys are not checked, as in HBase's gateway since 2.2. */
  @Override
  public boolean isTableAvailableWithSplit(TTableName tableName, List<ByteBuffer> splitKeys)
      throws TException {
    return call("isTableAvailableWithSplit", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return admin.isTableAvailable(FromThrift.tableName(tableName));
      }
    });
  }

  @Override
  public void addColumnFamily(TTableName tableName, TColumnFamilyDescriptor column)
      throws TException {
    call("addColumnFamily", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.addColumnFamily(FromThrift.tableName(tableName), FromThrift.familyDescriptor(column));
      }
      return null;
    });
  }

  @Override
  public void deleteColumnFamily(TTableName tableName, ByteBuffer column) throws TException {
    call("deleteColumnFamily", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.deleteColumnFamily(FromThrift.tableName(tableName),
            FromThrift.bytes(required(column, "column family")));
      }
      return null;
    });
  }

  @Override
  public void modifyColumnFamily(TTableName tableName, TColumnFamilyDescriptor column)
      throws TException {
    call("modifyColumnFamily", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.modifyColumnFamily(FromThrift.tableName(tableName),
            FromThrift.familyDescriptor(column));
      }
      return null;
    });
  }

  @Override
  public void modifyTable(TTableDescriptor desc) throws TException {
    call("modifyTable", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.modifyTable(FromThrift.tableDescriptor(desc));
      }
      return null;
    });
  }

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

  // ---- Namespaces --------------------------------------------------------------

  @Override
  public void createNamespace(TNamespaceDescriptor namespaceDesc) throws TException {
    call("createNamespace", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.createNamespace(FromThrift.namespaceDescriptor(namespaceDesc));
      }
      return null;
    });
  }

  @Override
  public void modifyNamespace(TNamespaceDescriptor namespaceDesc) throws TException {
    call("modifyNamespace", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.modifyNamespace(FromThrift.namespaceDescriptor(namespaceDesc));
      }
      return null;
    });
  }

  @Override
  public void deleteNamespace(String name) throws TException {
    call("deleteNamespace", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        admin.deleteNamespace(required(name, "namespace name"));
      }
      return null;
    });
  }

  @Override
  public TNamespaceDescriptor getNamespaceDescriptor(String name) throws TException {
    return call("getNamespaceDescriptor", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return ToThrift.namespaceDescriptor(
            admin.getNamespaceDescriptor(required(name, "namespace name")));
      }
    });
  }

  @Override
  public List<TNamespaceDescriptor> listNamespaceDescriptors() throws TException {
    return call("listNamespaceDescriptors", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return ToThrift.namespaceDescriptors(admin.listNamespaceDescriptors());
      }
    });
  }

  @Override
  public List<String> listNamespaces() throws TException {
    return call("listNamespaces", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return Arrays.asList(admin.listNamespaces());
      }
    });
  }

  // ---- Cluster -------------------------------------------------------------------

  @Override
  public TThriftServerType getThriftServerType() {
    return TThriftServerType.TWO;
  }

  @Override
  public String getClusterId() throws TException {
    return call("getClusterId", false, () -> connection.getClusterId());
  }

  @Override
  public List<TOnlineLogRecord> getSlowLogResponses(Set<TServerName> serverNames,
      TLogQueryFilter logQueryFilter) throws TException {
    return call("getSlowLogResponses", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return ToThrift.logRecords(admin.getSlowLogResponses(
            FromThrift.serverNames(serverNames), FromThrift.logQueryFilter(logQueryFilter)));
      }
    });
  }

  @Override
  public List<Boolean> clearSlowLogResponses(Set<TServerName> serverNames) throws TException {
    return call("clearSlowLogResponses", false, () -> {
      try (Admin admin = connection.getAdmin()) {
        return admin.clearSlowLogResponses(FromThrift.serverNames(serverNames));
      }
    });
  }

  // ---- Access control ------------------------------------------------------------

  @Override
  public boolean grant(TAccessControlEntity info) throws TException {
    return call("grant", false, () -> {
      changePermissions(info, true);
      return true;
    });
  }

  @Override
  public boolean revoke(TAccessControlEntity info) throws TException {
    return call("revoke", false, () -> {
      changePermissions(info, false);
      return true;
    });
  }

  /**
   * Grants or revokes through HBase's AccessControlClient, as HBase's gateway does; the master
   * refuses both unless its AccessController is loaded.
   */
  private void changePermissions(TAccessControlEntity info, boolean grant) throws IOException {
    Permission.Action[] actions = FromThrift.permissionActions(info.getActions());
    try {
      if (info.getScope() == TPermissionScope.NAMESPACE) {
        if (grant) {
          AccessControlClient.grant(connection, info.getNsName(), info.getUsername(), actions);
        } else {
          AccessControlClient.revoke(connection, info.getNsName(), info.getUsername(), actions);
        }
      } else {
        TableName table = TableName.valueOf(info.getTableName());
        if (grant) {
          AccessControlClient.grant(connection, table, info.getUsername(), null, null, actions);
        } else {
          AccessControlClient.revoke(connection, table, info.getUsername(), null, null, actions);
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      throw e;
    } catch (Throwable t) {
      throw new DoNotRetryIOException(t.getMessage());
    }
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

  /** "Value equals the stored one", or "the cell is absent" for an unset value. */
  private static CheckAndMutate.Builder checkEquals(ByteBuffer row, ByteBuffer family,
      ByteBuffer qualifier, ByteBuffer value) {
    CheckAndMutate.Builder builder = CheckAndMutate.newBuilder(
        FromThrift.bytes(required(row, "row")));
    byte[] f = FromThrift.bytes(required(family, "family"));
    byte[] q = FromThrift.bytes(required(qualifier, "qualifier"));
    return value == null ? builder.ifNotExists(f, q)
        : builder.ifEquals(f, q, FromThrift.bytes(value));
  }

  private static Pattern pattern(String regex) {
    return regex == null ? null : Pattern.compile(regex);
  }

  private Table table(ByteBuffer name) throws IOException {
    return connection.getTable(FromThrift.tableName(name));
  }

  private static <T> T required(T value, String what) {
    return FromThrift.required(value, what);
  }
}
