package rtb.hbase.gateway;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.TTransportFactory;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import rtb.storage.thrift2.THBaseService;

/**
 * A Thrift2 gateway for HBase: serves THBaseService (binary protocol, buffered or framed
 * transport, one thread per connection) on top of one shared HBase client connection. It speaks
 * the protocol of HBase's own gateway (org.apache.hadoop.hbase.thrift2.ThriftServer), so clients
 * can use either.
 *
 * <pre>
 * Thrift2Gateway [--bind ADDRESS] [--port N] [--transport buffered|framed]
 * </pre>
 *
 * Defaults: 127.0.0.1, 9090, buffered. The HBase client finds its cluster through hbase-site.xml
 * on the classpath. These hbase-site settings of HBase's gateway apply here too:
 * hbase.thrift.minWorkerThreads [16], hbase.thrift.maxWorkerThreads [1000],
 * hbase.thrift.server.socket.read.timeout [60000 ms: an idle connection is closed after that],
 * hbase.thrift.framed.max_frame_size_in_mb [2], hbase.client.scanner.timeout.period [60000 ms:
 * an unread scanner is closed after that].
 *
 * <p>SIGTERM stops it: no new connections or calls, running calls get up to 10 s to finish, then
 * scanners and the HBase connection are closed. Exit status 2: bad arguments; 1: could not serve.
 */
public final class Thrift2Gateway {
  private static final Logger LOG = LoggerFactory.getLogger(Thrift2Gateway.class);
  private static final long DRAIN_TIMEOUT_MS = 10_000;

  private String bind = "127.0.0.1";
  private int port = 9090;
  private boolean framed = false;

  public static void main(String[] args) {
    Thrift2Gateway gateway = new Thrift2Gateway();
    String error = gateway.parse(args);
    if (error != null) {
      System.err.println("Thrift2Gateway: " + error);
      System.err.println("usage: Thrift2Gateway [--bind ADDRESS] [--port N]"
          + " [--transport buffered|framed]");
      System.exit(2);
    }
    try {
      gateway.serve();
    } catch (IOException | TTransportException | RuntimeException e) {
      LOG.error("Thrift2 gateway failed", e);
      System.err.println("Thrift2Gateway: " + e);
      System.exit(1);
    }
  }

  private String parse(String[] args) {
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        return "option " + args[i] + " needs a value";
      }
      String value = args[i + 1];
      switch (args[i]) {
        case "--bind":
          bind = value;
          break;
        case "--port":
          try {
            port = Integer.parseInt(value);
          } catch (NumberFormatException e) {
            port = 0;
          }
          if (port < 1 || port > 65535) {
            return "--port must be a port number in 1..65535, got '" + value + "'";
          }
          break;
        case "--transport":
          if (!value.equals("buffered") && !value.equals("framed")) {
            return "--transport must be buffered or framed, got '" + value + "'";
          }
          framed = value.equals("framed");
          break;
        default:
          return "unknown option " + args[i];
      }
    }
    return null;
  }

  private void serve() throws IOException, TTransportException {
    Configuration conf = HBaseConfiguration.create();
    int minWorkers = conf.getInt("hbase.thrift.minWorkerThreads", 16);
    int maxWorkers = conf.getInt("hbase.thrift.maxWorkerThreads", 1000);
    int readTimeoutMs = conf.getInt("hbase.thrift.server.socket.read.timeout", 60_000);
    int maxFrameMb = conf.getInt("hbase.thrift.framed.max_frame_size_in_mb", 2);
    long scannerTimeoutMs = conf.getLong(HConstants.HBASE_CLIENT_SCANNER_TIMEOUT_PERIOD,
        HConstants.DEFAULT_HBASE_CLIENT_SCANNER_TIMEOUT_PERIOD);
    if (minWorkers < 1 || maxWorkers < minWorkers || readTimeoutMs < 0 || maxFrameMb < 1
        || scannerTimeoutMs < 1) {
      throw new IllegalArgumentException("bad gateway settings: minWorkerThreads=" + minWorkers
          + " maxWorkerThreads=" + maxWorkers + " socket.read.timeout=" + readTimeoutMs
          + " max_frame_size_in_mb=" + maxFrameMb + " scanner.timeout.period=" + scannerTimeoutMs);
    }

    // Binding first makes a taken port fail at once, before the HBase client starts.
    TServerSocket socket = new TServerSocket(new TServerSocket.ServerSocketTransportArgs()
        .bindAddr(new InetSocketAddress(bind, port))
        .clientTimeout(readTimeoutMs));
    Connection connection = ConnectionFactory.createConnection(conf);
    Scanners scanners = new Scanners(scannerTimeoutMs);
    HBaseService service = new HBaseService(connection, scanners);

    TTransportFactory transport = framed
        ? new TFramedTransport.Factory(maxFrameMb * 1024 * 1024)
        : new TTransportFactory();
    TServer server = new TThreadPoolServer(new TThreadPoolServer.Args(socket)
        .processor(new THBaseService.Processor<>(service))
        .protocolFactory(new TBinaryProtocol.Factory())
        .transportFactory(transport)
        .minWorkerThreads(minWorkers)
        .maxWorkerThreads(maxWorkers)
        .stopTimeoutVal((int) DRAIN_TIMEOUT_MS)
        .stopTimeoutUnit(TimeUnit.MILLISECONDS));

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      LOG.info("stopping: no new connections, waiting for running calls");
      server.stop();
      try {
        if (!service.drain(DRAIN_TIMEOUT_MS)) {
          LOG.warn("calls still running after {} ms; closing anyway", DRAIN_TIMEOUT_MS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      scanners.close();
      try {
        connection.close();
      } catch (IOException e) {
        LOG.warn("closing the HBase connection failed", e);
      }
      LOG.info("stopped");
      stopped.countDown();
    }, "gateway-shutdown"));

    LOG.info("serving THBaseService on {}:{}, binary protocol, {} transport, {}..{} workers",
        bind, port, framed ? "framed" : "buffered", minWorkers, maxWorkers);
    server.serve();
    // serve() returns after stop() (the shutdown hook); any other return is a failure.
    try {
      if (stopped.await(DRAIN_TIMEOUT_MS + 5_000, TimeUnit.MILLISECONDS)) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new IOException("the Thrift server stopped serving on its own; see the log");
  }
}
