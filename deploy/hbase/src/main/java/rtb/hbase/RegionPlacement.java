package rtb.hbase;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;

/**
 * Puts a table's regions where a fault test wants them: once {@code --servers} region servers are
 * live, every primary region of {@code --table} moves to the newest one (the region server the
 * test started and will kill) and every secondary replica to an older one, so killing the newest
 * takes all primaries down while the replicas keep serving TIMELINE reads. Prints the newest
 * server's name.
 *
 * <pre>
 * RegionPlacement --zk-port N --table NAME --servers N --timeout-seconds N
 * </pre>
 *
 * Exit status: 0 placed, 1 failed (the reason is printed), 2 bad arguments.
 */
public final class RegionPlacement {
  public static void main(String[] args) throws Exception {
    int zkPort = -1;
    int servers = -1;
    int timeoutSeconds = 120;
    String table = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--zk-port":
          zkPort = Integer.parseInt(args[i + 1]);
          break;
        case "--servers":
          servers = Integer.parseInt(args[i + 1]);
          break;
        case "--timeout-seconds":
          timeoutSeconds = Integer.parseInt(args[i + 1]);
          break;
        case "--table":
          table = args[i + 1];
          break;
        default:
          System.out.println("region placement: unknown option " + args[i]);
          System.exit(2);
      }
    }
    if (zkPort <= 0 || servers <= 1 || table == null || args.length % 2 != 0) {
      System.out.println(
          "usage: RegionPlacement --zk-port N --table NAME --servers N [--timeout-seconds N]");
      System.exit(2);
    }
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.setInt("hbase.zookeeper.property.clientPort", zkPort);
    long giveUp = System.currentTimeMillis() + timeoutSeconds * 1000L;
    try (Connection connection = ConnectionFactory.createConnection(conf);
        Admin admin = connection.getAdmin()) {
      List<ServerName> live = new ArrayList<>();
      while (true) {
        ClusterMetrics metrics =
            admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
        live = new ArrayList<>(metrics.getLiveServerMetrics().keySet());
        if (live.size() >= servers) break;
        if (System.currentTimeMillis() > giveUp) {
          System.out.println("region placement: " + live.size() + " of " + servers
              + " region servers live after " + timeoutSeconds + " s");
          System.exit(1);
        }
        Thread.sleep(500);
      }
      ServerName newest = live.get(0);
      for (ServerName s : live) {
        if (s.getStartcode() > newest.getStartcode()) newest = s;
      }
      ServerName older = null;
      for (ServerName s : live) {
        if (!s.equals(newest)) older = s;
      }
      TableName name = TableName.valueOf(table);
      // A move is a procedure of the master's; the locations are read back
      // from meta (uncached) until every region is where it belongs, and a
      // move that did not happen is asked for again.
      try (RegionLocator locator = connection.getRegionLocator(name)) {
        String misplaced = null;
        while (true) {
          locator.clearRegionLocationCache();
          misplaced = null;
          for (HRegionLocation location : locator.getAllRegionLocations()) {
            RegionInfo region = location.getRegion();
            ServerName target =
                region.getReplicaId() == RegionInfo.DEFAULT_REPLICA_ID ? newest : older;
            if (!target.equals(location.getServerName())) {
              misplaced = region.getRegionNameAsString() + " is on " + location.getServerName()
                  + ", not " + target;
              try {
                admin.move(region.getEncodedNameAsBytes(), target);
              } catch (java.io.IOException e) {
                misplaced += " (" + e.getMessage() + ")";
              }
            }
          }
          if (misplaced == null) break;
          if (System.currentTimeMillis() > giveUp) {
            System.out.println("region placement: " + misplaced);
            System.exit(1);
          }
          Thread.sleep(1000);
        }
      }
      System.out.println(newest.getAddress());
    }
  }
}
