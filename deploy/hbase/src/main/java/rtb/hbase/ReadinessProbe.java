package rtb.hbase;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * Decides whether the local HBase can take the project's tests: the active master has finished
 * initializing, sees the expected number of live region servers and serves hbase:meta, and the
 * Thrift2 gateway (when asked for) answers a real THBaseService call.
 *
 * <p>The gateway is checked with a hand-encoded TBinaryProtocol call to {@code tableExists} rather
 * than with generated Thrift classes, so the probe checks the bytes on the wire independently of
 * the gateway's own code, in the format the project's C++ client speaks.
 *
 * <pre>
 * ReadinessProbe --zk-port N --region-servers N --timeout-seconds N
 *                [--thrift-port N --thrift-transport buffered|framed]
 * </pre>
 *
 * Exit status: 0 ready, 1 not ready by the deadline (the last reason is printed), 2 bad arguments.
 */
public final class ReadinessProbe {
  private static final String LOOPBACK = "127.0.0.1";
  private static final long ATTEMPT_PAUSE_MS = 2000;

  private int zkPort = -1;
  private int regionServers = -1;
  private int timeoutSeconds = -1;
  private int thriftPort = -1;
  private boolean thriftFramed = false;

  public static void main(String[] args) {
    ReadinessProbe probe = new ReadinessProbe();
    String error = probe.parse(args);
    if (error != null) {
      // stdout: the caller shows it; the HBase client's own noise goes to stderr.
      System.out.println("readiness probe: " + error);
      System.exit(2);
    }
    System.exit(probe.waitUntilReady());
  }

  private String parse(String[] args) {
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        return "option " + args[i] + " needs a value";
      }
      String name = args[i];
      String value = args[i + 1];
      switch (name) {
        case "--zk-port":
          zkPort = parsePort(value);
          break;
        case "--region-servers":
          regionServers = parseCount(value);
          break;
        case "--timeout-seconds":
          timeoutSeconds = parseCount(value);
          break;
        case "--thrift-port":
          thriftPort = parsePort(value);
          break;
        case "--thrift-transport":
          if (!value.equals("buffered") && !value.equals("framed")) {
            return "--thrift-transport must be buffered or framed, got '" + value + "'";
          }
          thriftFramed = value.equals("framed");
          break;
        default:
          return "unknown option " + name;
      }
    }
    if (zkPort <= 0) {
      return "--zk-port must be a port number in 1..65535";
    }
    if (regionServers <= 0) {
      return "--region-servers must be a positive count";
    }
    if (timeoutSeconds <= 0) {
      return "--timeout-seconds must be a positive count";
    }
    if (thriftPort == 0) {
      return "--thrift-port must be a port number in 1..65535";
    }
    return null;
  }

  private static int parsePort(String value) {
    try {
      int port = Integer.parseInt(value);
      return port >= 1 && port <= 65535 ? port : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static int parseCount(String value) {
    try {
      return Math.max(0, Integer.parseInt(value));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private int waitUntilReady() {
    long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
    String lastReason = null;
    while (true) {
      String reason = masterNotReadyReason();
      if (reason == null && thriftPort > 0) {
        reason = gatewayNotReadyReason();
      }
      if (reason == null) {
        System.out.println("ready: master with " + regionServers + " live region servers"
            + (thriftPort > 0
                ? ", Thrift2 gateway " + LOOPBACK + ":" + thriftPort
                    + (thriftFramed ? " (framed)" : " (buffered)")
                : ""));
        return 0;
      }
      if (!reason.equals(lastReason)) {
        System.out.println("waiting: " + reason);
        lastReason = reason;
      }
      if (System.nanoTime() + ATTEMPT_PAUSE_MS * 1_000_000L > deadline) {
        System.out.println("not ready after " + timeoutSeconds + " s: " + reason);
        return 1;
      }
      try {
        Thread.sleep(ATTEMPT_PAUSE_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 1;
      }
    }
  }

  /** Returns null when the master is initialized with enough region servers, else why not. */
  private String masterNotReadyReason() {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", LOOPBACK);
    conf.setInt("hbase.zookeeper.property.clientPort", zkPort);
    // One short try per attempt: the loop above does the retrying, within its deadline.
    conf.setInt("hbase.client.retries.number", 1);
    conf.setInt("zookeeper.recovery.retry", 0);
    conf.setInt("zookeeper.session.timeout", 10000);
    conf.setInt("hbase.rpc.timeout", 5000);
    conf.setInt("hbase.client.operation.timeout", 10000);
    conf.setInt("hbase.client.meta.operation.timeout", 10000);
    try (Connection connection = ConnectionFactory.createConnection(conf);
        Admin admin = connection.getAdmin()) {
      ClusterMetrics metrics =
          admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.MASTER,
              ClusterMetrics.Option.LIVE_SERVERS));
      ServerName master = metrics.getMasterName();
      if (master == null) {
        return "no active master yet";
      }
      long live = metrics.getLiveServerMetrics().keySet().stream()
          .filter(server -> !server.equals(master)).count();
      if (live < regionServers) {
        return live + " of " + regionServers + " region servers live";
      }
      // Answered only once the master has finished initializing (PleaseHoldException before).
      admin.listTableNames();
      try (Table meta = connection.getTable(TableName.META_TABLE_NAME);
          ResultScanner scanner = meta.getScanner(new Scan().setLimit(1))) {
        scanner.next();
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return "master: " + firstLine(e);
    }
  }

  /** Returns null when the gateway answers tableExists(hbase:meta) with true, else why not. */
  private String gatewayNotReadyReason() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(LOOPBACK, thriftPort), 2000);
      socket.setSoTimeout(10000);
      byte[] call = tableExistsCall("hbase", "meta");
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      if (thriftFramed) {
        out.writeInt(call.length);
      }
      out.write(call);
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      if (thriftFramed) {
        in.readInt();
      }
      return tableExistsReplyProblem(in);
    } catch (IOException e) {
      return "Thrift2 gateway on " + LOOPBACK + ":" + thriftPort + ": " + firstLine(e);
    }
  }

  // TBinaryProtocol, strict: version word 0x8001 | message type; type ids from the Thrift spec.
  private static final int VERSION_1 = 0x80010000;
  private static final int MESSAGE_CALL = 1;
  private static final int MESSAGE_REPLY = 2;
  private static final int MESSAGE_EXCEPTION = 3;
  private static final byte T_STOP = 0;
  private static final byte T_BOOL = 2;
  private static final byte T_BYTE = 3;
  private static final byte T_DOUBLE = 4;
  private static final byte T_I16 = 6;
  private static final byte T_I32 = 8;
  private static final byte T_I64 = 10;
  private static final byte T_STRING = 11;
  private static final byte T_STRUCT = 12;
  private static final byte T_MAP = 13;
  private static final byte T_SET = 14;
  private static final byte T_LIST = 15;

  // THBaseService.tableExists(1: TTableName tableName); TTableName {1: binary ns, 2: binary qualifier}.
  private static byte[] tableExistsCall(String namespace, String qualifier) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(VERSION_1 | MESSAGE_CALL);
    writeString(out, "tableExists");
    out.writeInt(1);
    out.writeByte(T_STRUCT);
    out.writeShort(1);
    out.writeByte(T_STRING);
    out.writeShort(1);
    writeString(out, namespace);
    out.writeByte(T_STRING);
    out.writeShort(2);
    writeString(out, qualifier);
    out.writeByte(T_STOP);
    out.writeByte(T_STOP);
    out.flush();
    return bytes.toByteArray();
  }

  private static String tableExistsReplyProblem(DataInputStream in) throws IOException {
    int version = in.readInt();
    if ((version & 0xffff0000) != VERSION_1) {
      return String.format("Thrift2 gateway: unexpected reply header 0x%08x (transport mismatch?)",
          version);
    }
    String name = readString(in);
    in.readInt();
    int type = version & 0xff;
    if (type == MESSAGE_EXCEPTION) {
      return "Thrift2 gateway: application exception: " + readFirstStringField(in);
    }
    if (type != MESSAGE_REPLY || !name.equals("tableExists")) {
      return "Thrift2 gateway: unexpected message " + name + " of type " + type;
    }
    Boolean exists = null;
    String ioError = null;
    while (true) {
      byte fieldType = in.readByte();
      if (fieldType == T_STOP) {
        break;
      }
      short id = in.readShort();
      if (id == 0 && fieldType == T_BOOL) {
        exists = in.readByte() != 0;
      } else if (id == 1 && fieldType == T_STRUCT) {
        ioError = readFirstStringField(in);
      } else {
        skip(in, fieldType);
      }
    }
    if (ioError != null) {
      return "Thrift2 gateway: TIOError: " + ioError;
    }
    if (exists == null) {
      return "Thrift2 gateway: reply without a result";
    }
    return exists ? null : "Thrift2 gateway says hbase:meta does not exist";
  }

  /** Reads a struct, returning its first string field (an exception's message). */
  private static String readFirstStringField(DataInputStream in) throws IOException {
    String first = null;
    while (true) {
      byte fieldType = in.readByte();
      if (fieldType == T_STOP) {
        return first == null ? "(no message)" : first;
      }
      in.readShort();
      if (fieldType == T_STRING && first == null) {
        first = readString(in);
      } else {
        skip(in, fieldType);
      }
    }
  }

  private static void skip(DataInputStream in, byte type) throws IOException {
    switch (type) {
      case T_BOOL:
      case T_BYTE:
        in.readByte();
        return;
      case T_I16:
        in.readShort();
        return;
      case T_I32:
        in.readInt();
        return;
      case T_I64:
      case T_DOUBLE:
        in.readLong();
        return;
      case T_STRING:
        skipFully(in, readLength(in));
        return;
      case T_STRUCT:
        while (true) {
          byte fieldType = in.readByte();
          if (fieldType == T_STOP) {
            return;
          }
          in.readShort();
          skip(in, fieldType);
        }
      case T_MAP: {
        byte keyType = in.readByte();
        byte valueType = in.readByte();
        int size = readLength(in);
        for (int i = 0; i < size; i++) {
          skip(in, keyType);
          skip(in, valueType);
        }
        return;
      }
      case T_SET:
      case T_LIST: {
        byte elementType = in.readByte();
        int size = readLength(in);
        for (int i = 0; i < size; i++) {
          skip(in, elementType);
        }
        return;
      }
      default:
        throw new IOException("unknown Thrift type " + type + " in reply");
    }
  }

  private static void writeString(DataOutputStream out, String value) throws IOException {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    out.writeInt(utf8.length);
    out.write(utf8);
  }

  private static String readString(DataInputStream in) throws IOException {
    byte[] utf8 = new byte[readLength(in)];
    in.readFully(utf8);
    return new String(utf8, StandardCharsets.UTF_8);
  }

  // A gateway reply never carries more than a few KiB; a huge length means a garbled stream.
  private static int readLength(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > (1 << 20)) {
      throw new IOException("implausible length " + length + " in reply (transport mismatch?)");
    }
    return length;
  }

  private static void skipFully(InputStream in, int count) throws IOException {
    int left = count;
    while (left > 0) {
      long skipped = in.skip(left);
      if (skipped <= 0) {
        if (in.read() < 0) {
          throw new IOException("reply ended early");
        }
        skipped = 1;
      }
      left -= (int) skipped;
    }
  }

  /** One line about the root cause; HBase's retry exceptions list every attempt on lines below. */
  private static String firstLine(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String[] lines = String.valueOf(root.getMessage()).split("\n");
    String line = lines[0];
    if (line.endsWith("exceptions:") && lines.length > 1) {
      int cause = lines[1].lastIndexOf("Exception: ");
      line = cause < 0 ? lines[1] : lines[1].substring(cause + "Exception: ".length());
    }
    if (line.length() > 200) {
      line = line.substring(0, 200) + "...";
    }
    return root.getClass().getSimpleName() + ": " + line;
  }
}
